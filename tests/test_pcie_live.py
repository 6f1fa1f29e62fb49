"""On the machine the tests run on: as root, the config-space parser agrees with `lspci -vvv` on every PCI
device (pciutils must be installed: `apt-get install -y pciutils`). Skips cleanly without root or lspci."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from stackaudit.facts._parse import ParseError
from stackaudit.facts.lspci import parse_lspci
from stackaudit.facts.pcie_config import parse_config

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("lspci") is None
    or not os.path.isdir("/sys/bus/pci/devices") or not os.listdir("/sys/bus/pci/devices"),
    reason="needs root, pciutils (lspci) and a PCI bus")

# Registers that do not move between two reads a moment apart (link speed does: GPUs change generation).
STABLE = ("port_type", "devcap_mps", "devctl_mps", "devctl_mrrs", "devctl_relaxed_ordering", "devctl_ext_tag",
          "lnkcap_speed", "lnkcap_width", "lnkctl_aspm", "devcap2_10bit_comp", "devcap2_10bit_req", "devctl2_10bit_req")


def test_config_space_parser_agrees_with_lspci_on_every_device() -> None:
    proc = subprocess.run(["lspci", "-D", "-nn", "-vvv"], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, LC_ALL="C"))
    assert proc.returncode == 0, proc.stderr
    listed = parse_lspci(proc.stdout).by_bdf()
    compared = 0
    mismatches: list[str] = []
    for bdf in sorted(os.listdir("/sys/bus/pci/devices")):
        real = os.path.realpath(f"/sys/bus/pci/devices/{bdf}")
        with open(f"{real}/config", "rb") as fh:
            data = fh.read(4096)
        try:
            cfg = parse_config(data)
        except ParseError:
            continue
        dev = listed.get(bdf)
        assert dev is not None, f"{bdf} in sysfs but not in lspci"
        assert cfg.readable, f"{bdf}: root read only {len(data)} bytes"
        other = dev.config
        if other is None:
            continue
        compared += 1
        if (cfg.express is None) != (other.express is None):
            mismatches.append(f"{bdf}: Express capability present in one source only")
        if cfg.express and other.express:
            for name in STABLE:
                a, b = getattr(cfg.express, name), getattr(other.express, name)
                if b is not None and a != b:
                    mismatches.append(f"{bdf} {name}: config {a!r}, lspci {b!r}")
        if (cfg.acs is None) != (other.acs is None):
            mismatches.append(f"{bdf}: ACS present in one source only")
        elif cfg.acs and other.acs and ((cfg.acs.ctl or 0) & 0x7F != (other.acs.ctl or 0)
                                        or (cfg.acs.cap or 0) & 0x7F != (other.acs.cap or 0)):
            mismatches.append(f"{bdf} ACS: config {cfg.acs.cap}/{cfg.acs.ctl}, lspci {other.acs.cap}/{other.acs.ctl}")
        if (cfg.rebar or ()) != (other.rebar or ()) and other.rebar is not None:
            a_cur = [(e.bar, e.current_mib) for e in cfg.rebar or ()]
            b_cur = [(e.bar, e.current_mib) for e in other.rebar]
            if a_cur != b_cur:
                mismatches.append(f"{bdf} ReBAR: config {a_cur}, lspci {b_cur}")
    assert compared > 0
    assert not mismatches, "\n".join(mismatches)
