"""Fixes as data: the step model, the masked setpci arithmetic, fixes computed from what a check
found (MRRS/MPS on the devices it named, ACS only on bridges between GPUs), and every renderer
showing every command as written."""

from __future__ import annotations

import json

import pytest

from pcie_support import Dev, bridge_config
from report_scenarios import report
from stackaudit.checks.registry import load_all
from stackaudit.engine.testing import run_checks
from stackaudit.fixes.model import BDF_SUBJECT, PID_SUBJECT, Fix, cmd, keep_line, needs_shell, sh, step
from stackaudit.fixes.pcie import (
    ACS_CTRL_REDIRECT_MASK,
    CLEAR_VLLM_P2P_CACHE,
    devctl_write,
    mps_fix,
    mrrs_fix,
    setpci_devctl,
    size_code,
)
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions
from test_pcie_checks import DSP0, DSP1, GPU0, GPU1, ROOT, USP, _devs, _host
from test_render_escape import verbatim_lines
from test_scenarios_host import SCENARIOS

# -- the Device Control arithmetic (PCIe capability + 0x08: MPS bits 7:5, MRRS bits 14:12) -------------


def _write(register: int, value: int, mask: int) -> int:
    """What setpci's VALUE:MASK does to a register: only the bits set in MASK change."""
    return (register & ~mask & 0xFFFF) | (value & mask)


@pytest.mark.parametrize(("size", "code"), [(128, 0), (256, 1), (512, 2), (1024, 3), (2048, 4), (4096, 5)])
def test_size_codes(size: int, code: int) -> None:
    assert size_code(size) == code


def test_size_code_refuses_what_is_not_a_pcie_size() -> None:
    for size in (0, 64, 300, 8192):
        with pytest.raises(ValueError):
            size_code(size)


def test_mrrs_and_mps_fields_and_masks() -> None:
    assert devctl_write(mrrs=4096) == (0x5000, 0x7000)
    assert devctl_write(mrrs=512) == (0x2000, 0x7000)
    assert devctl_write(mps=256) == (0x0020, 0x00E0)
    assert devctl_write(mps=512) == (0x0040, 0x00E0)
    assert devctl_write(mrrs=4096, mps=256) == (0x5020, 0x70E0)
    with pytest.raises(ValueError):
        devctl_write()


def test_a_masked_write_changes_only_its_field() -> None:
    # Device Control of a GPU: MRRS 512 (0x2000), no-snoop, ext tags, MPS 256, relaxed ordering, error reporting.
    register = 0x2937
    value, mask = devctl_write(mrrs=4096)
    after = _write(register, value, mask)
    assert after == 0x5937 and after & ~0x7000 == register & ~0x7000
    # The common unmasked `=5937` on a device with RO off and MPS 128 turns both on: the masked form does not.
    other = 0x2807
    assert _write(other, 0x5937, 0xFFFF) & 0x00F0 != other & 0x00F0
    assert _write(other, value, mask) & ~0x7000 == other & ~0x7000


def test_setpci_command_is_the_masked_form() -> None:
    assert setpci_devctl("0000:c1:00.0", mrrs=4096).line == "setpci -s 0000:c1:00.0 CAP_EXP+0x08.w=5000:7000"
    assert setpci_devctl("0000:c1:00.0", mps=256).argv == ("setpci", "-s", "0000:c1:00.0", "CAP_EXP+0x08.w=0020:00e0")


# -- the step model ------------------------------------------------------------------------------------


def test_a_command_that_needs_a_shell_must_say_so() -> None:
    for line in ("echo 0 > /proc/x", "dmesg | grep -i xid", "rm ~/.cache/x_*.json", "a && b", "echo $(id -u)"):
        assert needs_shell(line), line
        with pytest.raises(ValueError):
            cmd(line)
        assert sh(line).shell and sh(line).argv == ()
    for line in ("prlimit --pid <api-server pid> --nofile=1048576:1048576", "printf 'a > b'", "sysctl -w a.b=0"):
        assert not needs_shell(line), line


def test_a_placeholder_stays_one_word() -> None:
    c = cmd("prlimit --pid <api-server pid> --nofile=1048576:1048576")
    assert c.argv == ("prlimit", "--pid", "<api-server pid>", "--nofile=1048576:1048576")
    assert c.to_json() == {"line": c.line, "argv": list(c.argv)}


def test_a_step_written_per_subject_is_repeated_for_each() -> None:
    f = mrrs_fix()
    assert [c.line for c in f.commands] == ["setpci -s <bdf> CAP_EXP+0x08.w=5000:7000"]
    bound = f.bind(["0000:01:00.0", "0000:02:00.0"])
    assert [c.line for c in bound.commands] == ["setpci -s 0000:01:00.0 CAP_EXP+0x08.w=5000:7000",
                                                "setpci -s 0000:02:00.0 CAP_EXP+0x08.w=5000:7000"]
    assert f.bind([]) is f
    with pytest.raises(ValueError):
        step("x", "sysctl -w a=1", per="<bdf>")


def test_cost_in_words_and_the_derived_fields() -> None:
    f = Fix.of(step("Turn it off", "sysctl -w kernel.numa_balancing=0",
                    keep=keep_line("kernel.numa_balancing = 0", "/etc/sysctl.d/90.conf")),
               step("Restart the engine", cost="restart", scope="container"))
    assert f.cost == "restart" and f.scope == "host"
    assert f.cost_words() == "runtime, then restart the engine"
    assert f.cost_words(pod=True) == "runtime, then redeploy the pod"
    assert f.runtime == "sysctl -w kernel.numa_balancing=0; Restart the engine"
    assert f.persistent == "kernel.numa_balancing = 0 (in /etc/sysctl.d/90.conf)"
    assert Fix.of(step("x", "sysctl -w a=0")).cost_words() == "runtime (takes effect now)"
    out = f.to_json()
    assert {"cost", "runtime", "persistent", "scope", "note", "steps"} <= set(out)
    assert out["steps"][0]["commands"] == [{"line": "sysctl -w kernel.numa_balancing=0",
                                            "argv": ["sysctl", "-w", "kernel.numa_balancing=0"]}]
    assert out["steps"][0]["persistent"] == [{"line": "kernel.numa_balancing = 0", "file": "/etc/sysctl.d/90.conf"}]
    with pytest.raises(ValueError):
        Fix.of()


def test_every_check_has_steps_and_its_commands_parse() -> None:
    for spec in load_all().values():
        assert spec.fix.steps, spec.id
        for c in spec.fix.commands:
            assert c.shell or c.argv, (spec.id, c.line)


# -- fixes computed from what the check found ----------------------------------------------------------

NIC_DSP, NIC = "0000:42:02.0", "0000:45:00.0"


def _with_nic_behind_acs() -> list[Dev]:
    """Two GPUs and a ConnectX NIC under one switch; ACS redirect on every downstream port."""
    devs = _devs(acs_ctl=0x1D)
    devs.append(Dev(NIC_DSP, [ROOT, USP], "0x1000", "0xc030", "0x060400",
                    bridge_config("downstream-port", acs_ctl=0x1D, devcap_mps=2048, cap_speed=32.0, speed=32.0)))
    devs.append(Dev(NIC, [ROOT, USP, NIC_DSP], "0x15b3", "0x1021", "0x020700",
                    bridge_config("endpoint", acs_ctl=None, devcap_mps=512, cap_speed=32.0, speed=32.0)))
    return devs


def test_acs_steps_name_only_the_bridges_between_gpus() -> None:
    r = run_checks(_host(_with_nic_behind_acs()), ["FW-ACS-P2P"])["FW-ACS-P2P"]
    assert r.status == "issue" and set(r.subjects) == {DSP0, DSP1}
    assert r.fix is not None
    clear, restart = r.fix.steps
    mask = f"{ACS_CTRL_REDIRECT_MASK:04x}"
    assert [c.line for c in clear.commands] == [f"setpci -s {DSP0} ECAP_ACS+0x6.w=0000:{mask}",
                                                f"setpci -s {DSP1} ECAP_ACS+0x6.w=0000:{mask}"]
    lines = " ".join(verbatim_lines(r.fix))
    assert NIC_DSP not in lines and ROOT not in lines
    # The revert puts back the redirect bits read (0x1d & 0x2c = 0x0c), masked the same way.
    assert [c.line for c in clear.revert] == [f"setpci -s {b} ECAP_ACS+0x6.w=000c:{mask}" for b in (DSP0, DSP1)]
    assert restart.cost == "restart" and "P2P cache" in restart.does
    assert [c.line for c in restart.commands] == [CLEAR_VLLM_P2P_CACHE]
    assert "VFIO" in r.fix.note and "IOMMU groups" in r.fix.note


def test_mrrs_fix_is_a_masked_write_on_the_devices_named() -> None:
    r = run_checks(_host(_devs(gpu_kw={"mrrs": 128})), ["PCIE-MRRS"])["PCIE-MRRS"]
    assert r.status == "issue" and r.fix is not None
    assert [c.line for c in r.fix.commands] == [f"setpci -s {g} CAP_EXP+0x08.w=5000:7000" for g in (GPU0, GPU1)]
    assert "5937" in r.fix.note and "whole Device Control register" in r.fix.note


def test_mps_fix_writes_upstream_first_to_the_path_minimum() -> None:
    r = run_checks(_host(_devs(gpu_kw={"devcap_mps": 512, "mps": 128})), ["PCIE-MPS"])["PCIE-MPS"]
    assert r.status == "issue" and r.fix is not None
    boot, live = r.fix.steps
    assert boot.cost == "reboot" and any("pcie_bus_safe" in p.line for p in boot.persistent)
    # The root port supports 512 (the path's minimum); the bridges are programmed 256, the GPUs 128.
    order = [ROOT, USP, DSP0, GPU0, DSP1, GPU1]
    assert [c.line for c in live.commands] == [f"setpci -s {b} CAP_EXP+0x08.w=0040:00e0" for b in order]
    assert mps_fix().steps[0].commands == ()


# -- every renderer shows every command as written ------------------------------------------------------


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_text_and_json_show_every_fix_line_verbatim(scenario: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    rep = report(scenario)
    issues = [r for r in rep.results if r.status == "issue" and r.fix is not None]
    text_lines = {line.strip() for line in render(rep, "text", options=RenderOptions()).splitlines()}
    doc = json.loads(render(rep, "json"))
    by_id = {r["id"]: r for r in doc["results"]}
    for r in issues:
        assert r.fix is not None
        for s in r.fix.steps:
            for c in (*s.commands, *s.revert, *(p.command for p in s.persistent if p.command)):
                assert f"$ {c.line}" in text_lines, (r.id, c.line)
            for p in s.persistent:
                if p.line:
                    assert p.line in text_lines, (r.id, p.line)
        steps = by_id[r.id]["fix"]["steps"]
        assert [c["line"] for st in steps for c in st["commands"]] == [c.line for c in r.fix.commands]


def test_a_step_takes_its_value_out_of_subjects_that_match() -> None:
    f = Fix.of(step("Raise it", "prlimit --pid <pid> --nofile=1048576:1048576", per="<pid>", per_match=PID_SUBJECT))
    assert [c.line for c in f.bind(["pid 731", "RemoveIPC"]).commands] == ["prlimit --pid 731 --nofile=1048576:1048576"]
    # No subject of its kind: the step stays written for `<pid>`.
    assert f.bind(["nofile"]).commands == f.commands
    gpu = Fix.of(step("Reset", "nvidia-smi -r -i <n>", per="<n>", per_match=BDF_SUBJECT))
    assert [c.line for c in gpu.bind(["0000:9a:00.0", "GPU 3"]).commands] == ["nvidia-smi -r -i 0000:9a:00.0"]


def test_the_api_servers_pid_goes_into_the_nofile_fix() -> None:
    r = next(r for r in report("proxmox-lxc").results if r.id == "RT-ULIMIT-NOFILE")
    assert r.status == "issue" and r.subjects == ("pid 731",) and r.fix is not None
    assert [c.line for c in r.fix.commands] == ["prlimit --pid 731 --nofile=1048576:1048576"]
