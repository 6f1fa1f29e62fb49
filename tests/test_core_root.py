"""--root: audit a host filesystem mounted elsewhere, as a node agent does (host's / at /host)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def _host_tree(root: Path) -> None:
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "cmdline").write_text("BOOT_IMAGE=/boot/vmlinuz ro amd_iommu=on\n")
    (root / "etc").mkdir()
    (root / "etc" / "hostname").write_text("gpu-node-3\n")
    groups = root / "sys" / "kernel" / "iommu_groups"
    for n, bdf in enumerate(("0000:41:00.0", "0000:c1:00.0")):
        dev = root / "sys" / "devices" / f"pci0000:{n}0" / f"0000:{n}0:01.1" / bdf
        dev.mkdir(parents=True)
        for name, value in (("vendor", "0x10de"), ("device", "0x2bb1"), ("class", "0x030200"), ("numa_node", str(n))):
            (dev / name).write_text(value + "\n")
        group = groups / str(40 + n)
        group.mkdir(parents=True)
        (group / "type").write_text("DMA\n")
        os.symlink(f"../../../../kernel/iommu_groups/{40 + n}", dev / "iommu_group")
        links = root / "sys" / "bus" / "pci" / "devices"
        links.mkdir(parents=True, exist_ok=True)
        os.symlink(f"../../../devices/pci0000:{n}0/0000:{n}0:01.1/{bdf}", links / bdf)


def test_root_reads_the_mounted_host_not_this_machine(tmp_path) -> None:
    root = tmp_path / "host"
    _host_tree(root)
    # Commands still run here; a stand-in systemd-detect-virt says "bare metal" whatever this machine is.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "systemd-detect-virt").write_text("#!/bin/sh\necho none\nexit 1\n")
    (bindir / "systemd-detect-virt").chmod(0o755)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    proc = subprocess.run([sys.executable, "-m", "stackaudit", "audit", "--root", str(root), "--select",
                           "FW-IOMMU-MODE", "--format", "json"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["host"]["hostname"] == "gpu-node-3"
    assert data["host"]["gpus"]["count"] == 2
    [result] = data["results"]
    # The mounted host has two GPUs whose IOMMU groups translate (type DMA): read from the tree, not from here.
    assert result["status"] == "issue", result
    assert set(result["subjects"]) == {"0000:41:00.0", "0000:c1:00.0"}
    assert "not a valid value" in result["message"]
