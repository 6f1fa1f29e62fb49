"""Every fix that edits the kernel command line takes the form of the host's distribution and boot loader:
Ubuntu (GRUB_CMDLINE_LINUX_DEFAULT, then update-grub), Rocky (grubby), and every form, each labelled, where
the source shows neither (fixes/kernel_cmdline.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.facts.boot_loader import parse_os_release, tool_of_os_release
from stackaudit.fixes.plan import build_plan
from stackaudit.fixes.plan_render import render_bash
from stackaudit.fixes.shell_quote import bash_word
from stackaudit.host.memory import MemoryHost, fake_host
from test_fix_plan import report, result
from test_fw_checks import _host as fw_host
from test_kern_checks import LSCPU_TURIN, LSCPU_XEON, SPR_STATES, cpufreq_files, idle_files
from test_pcie_checks import DSP0, DSP1, _devs
from test_pcie_checks import _host as pcie_host

# Modelled on the os-release files these releases ship (os-release(5) fields).
UBUNTU = 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\n'
ROCKY = ('NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\n'
         'VERSION_ID="9.4"\nPRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n')
POP = 'NAME="Pop!_OS"\nVERSION="22.04 LTS"\nID=pop\nID_LIKE="ubuntu debian"\nPRETTY_NAME="Pop!_OS 22.04 LTS"\n'
# A kernel whose release and version name no distribution (a self-built kernel).
PLAIN_UNAME = "Linux gpu01 6.8.12 #1 SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n"
TURIN_UNAME = "Linux gpu01 6.14.2 #1 SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux\n"


def _kern(files: dict[str, Any], lscpu: str = LSCPU_XEON, uname: str = PLAIN_UNAME) -> MemoryHost:
    return fake_host(files=files, commands={"lscpu": lscpu, "uname -a": uname})


def _forced_amd_pstate_disable() -> MemoryHost:
    files = cpufreq_files(driver="acpi-cpufreq", governor="performance", epp=None)
    files["/proc/cmdline"] = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro amd_pstate=disable\n"
    return _kern(files, LSCPU_TURIN, TURIN_UNAME)


def _acs_traps() -> MemoryHost:
    return pcie_host(_devs(acs_ctl=0), cmdline="BOOT_IMAGE=/vmlinuz ro pci=noacs pcie_acs_override=downstream")


# check, host with the issue, kernel parameters its fix adds (or removes)
CASES: dict[str, tuple[str, Callable[[], MemoryHost], str, bool]] = {
    "iommu": ("FW-IOMMU-MODE", lambda: fw_host("DMA-FQ"), "iommu=pt", False),
    "acs-redirect": ("FW-ACS-P2P", lambda: pcie_host(_devs(acs_ctl=0x1D)), f"pci=disable_acs_redir={DSP0};{DSP1}",
                     False),
    "acs-traps": ("FW-ACS-P2P", _acs_traps, "pci=noacs pcie_acs_override=downstream", True),
    "mps": ("PCIE-MPS", lambda: pcie_host(_devs(gpu_kw={"devcap_mps": 512, "mps": 128})), "pci=pcie_bus_safe", False),
    "governor": ("KERN-CPUFREQ-GOVERNOR", lambda: _kern(cpufreq_files(driver="acpi-cpufreq", governor="powersave",
                                                                      epp=None)),
                 "cpufreq.default_governor=performance", False),
    "cstates": ("KERN-CSTATES", lambda: _kern(idle_files(SPR_STATES, qos=2_000_000_000)), "intel_idle.max_cstate=1",
                False),
    "amd-pstate": ("KERN-AMD-PSTATE", _forced_amd_pstate_disable, "amd_pstate=disable", True),
}


def _run(case: str, os_release: str | None) -> tuple[Result, str]:
    check, make, _, _ = CASES[case]
    host = make()
    if os_release is not None:
        host.record.files["/etc/os-release"] = os_release.encode()
    r = run_checks(host, [check])[check]
    assert r.status == "issue" and r.fix is not None, (case, r.status, r.message)
    plan = render_bash(build_plan(report(result(check, r.fix))))
    return r, plan


def _forms(r: Result) -> list[str]:
    assert r.fix is not None
    return [p.describe() for s in r.fix.steps for p in s.persistent]


@pytest.mark.parametrize("case", list(CASES))
def test_ubuntu_host_edits_grub_default_then_update_grub(case: str) -> None:
    _, _, params, remove = CASES[case]
    r, plan = _run(case, UBUNTU)
    assert "grubby" not in plan and "kernelstub" not in plan
    assert "update-grub" in plan
    if remove:
        assert any(f"remove {params} from GRUB_CMDLINE_LINUX" in f for f in _forms(r)), _forms(r)
    else:
        quoted = f'\\"{params}\\"' if ";" in params else params
        assert f'GRUB_CMDLINE_LINUX_DEFAULT="... {quoted}"' in plan


@pytest.mark.parametrize("case", list(CASES))
def test_rocky_host_uses_grubby_and_no_grub_default_edit(case: str) -> None:
    _, _, params, remove = CASES[case]
    _, plan = _run(case, ROCKY)
    flag = "--remove-args=" if remove else "--args="
    assert f"grubby --update-kernel=ALL {bash_word(flag + params)}" in plan
    assert "update-grub" not in plan and "GRUB_CMDLINE_LINUX" not in plan and "kernelstub" not in plan


@pytest.mark.parametrize("case", list(CASES))
def test_unknown_host_gives_every_form_each_labelled(case: str) -> None:
    _, _, params, remove = CASES[case]
    r, plan = _run(case, None)
    forms = _forms(r)
    flag = "--remove-args=" if remove else "--args="
    assert any(f.startswith("GRUB, Debian/Ubuntu:") and "update-grub" in f for f in forms), forms
    assert any(f.startswith("grubby, RHEL/Fedora/Rocky/Alma:") and bash_word(flag + params) in f for f in forms)
    assert any(f.startswith("kernelstub, Pop!_OS:") and f"kernelstub {'-d' if remove else '-a'}" in f for f in forms)
    assert "grubby --update-kernel=ALL" in plan and "kernelstub" in plan and "update-grub" in plan


def test_pop_os_uses_kernelstub() -> None:
    _, plan = _run("iommu", POP)
    assert "kernelstub -a iommu=pt" in plan and "grubby" not in plan and "update-grub" not in plan


@pytest.mark.parametrize(("text", "loader", "tool"), [
    (UBUNTU, "", "update-grub"), (ROCKY, "", "grubby"), (POP, "systemd-boot", "kernelstub"),
    (UBUNTU, "systemd-boot", "systemd-boot"), ('ID=arch\n', "", ""),
])
def test_tool_of_os_release(text: str, loader: str, tool: str) -> None:
    assert tool_of_os_release(parse_os_release(text), loader) == tool


def test_kernel_build_names_the_family_where_os_release_is_not_the_hosts() -> None:
    """Inside a container /etc/os-release is the image's; the running kernel is the host's."""
    files = idle_files(SPR_STATES, qos=2_000_000_000)
    files["/.dockerenv"] = ""
    files["/etc/os-release"] = UBUNTU  # the image's, not the host's
    host = _kern(files, uname="Linux gpu01 5.14.0-427.13.1.el9_4.x86_64 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n")
    r = run_checks(host, ["KERN-CSTATES"])["KERN-CSTATES"]
    assert r.fix is not None and "grubby --update-kernel=ALL --args=intel_idle.max_cstate=1" in r.fix.persistent
    assert "update-grub" not in r.fix.persistent
