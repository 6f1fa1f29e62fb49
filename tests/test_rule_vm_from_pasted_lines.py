"""Issue 28, FW-VM from lines people paste: the DMI ids the kernel prints (at boot, `DMI: ...`, and in every Oops or
WARN, `Hardware name: ...`; facts/platform.py kernel_dmi, read through the one DMI table, dmi_hypervisor), and the
`Environment:` line of club-3090's rig report (virtualization_from_rig_report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.platform import dmi_hypervisor, kernel_dmi, virtualization_from_rig_report
from stackaudit.facts.system import KernelLog

# Real: https://github.com/wjz304/arpl-zh_CN/issues/4 (`dmesg | grep "DMI:"` on VMware Workstation 17 and ESXi 8.0b,
# BIOS and UEFI, on Proxmox VE 7.4, and on a physical N5105 board).
ARPL_VMWARE_BIOS = ("[    0.000000] DMI: VMware, Inc. VMware Virtual Platform/440BX Desktop Reference Platform, "
                    "BIOS 6.00 11/12/2020")
ARPL_VMWARE_UEFI = ("[    0.000000] DMI: VMware, Inc. VMware20,1/440BX Desktop Reference Platform, "
                    "BIOS VMW201.00V.20904234.B64.2212051119 12/05/2022")
ARPL_PROXMOX = ("[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS rel-1.16.1-0-g3208b098f51a-prebuilt.qemu.org "
                "04/01/2014")
ARPL_BARE_METAL = "[    0.000000] DMI: Default string Default string/MW-NVR-N5105, BIOS 5.19 07/20/2022"
# Real: https://github.com/NVIDIA/nvidia-docker/issues/1582 (corpus 505), an Azure VM's Oops.
AZURE_OOPS = ("[1038101.880419] Hardware name: Microsoft Corporation Virtual Machine/Virtual Machine, BIOS Hyper-V UEFI "
              "Release v4.1 10/27/2020")


def _log(*lines: str) -> KernelLog:
    return KernelLog(tuple(lines))


@pytest.mark.parametrize(("line", "vm"), [
    (ARPL_VMWARE_BIOS, "vmware"),
    (ARPL_VMWARE_UEFI, "vmware"),
    (ARPL_PROXMOX, "qemu"),
    (AZURE_OOPS, "microsoft"),
    # Real: https://github.com/NVIDIA/cuda-samples/issues/104 (corpus 656), the journal's prefix taken off.
    ("Hardware name: VMware, Inc. VMware Virtual Platform/440BX Desktop Reference Platform, BIOS 6.00 11/12/2020",
     "vmware"),
])
def test_the_kernel_dmi_line_names_the_hypervisor(line: str, vm: str) -> None:
    assert dmi_hypervisor(kernel_dmi(_log("[    0.000000] Linux version 5.10.0-11-amd64", line))) == vm


def test_a_physical_board_names_no_hypervisor() -> None:
    """Real (arpl-zh_CN#4): a physical board whose firmware left its vendor strings at `Default string`."""
    ids = kernel_dmi(_log(ARPL_BARE_METAL))
    assert ids.startswith("Default string Default string/MW-NVR-N5105")
    assert dmi_hypervisor(ids) is None


def test_an_ec2_metal_instance_is_no_vm() -> None:
    """Modelled: an EC2 bare-metal instance keeps the `Amazon EC2` vendor and names its `.metal` type."""
    assert dmi_hypervisor("Amazon EC2 c5.metal/, BIOS 1.0 10/16/2017") is None
    assert dmi_hypervisor("Amazon EC2 g5.12xlarge/, BIOS 1.0 10/16/2017") == "amazon"


@pytest.mark.parametrize("line", [
    # Modelled: prose that quotes the line is no kernel line.
    "I think Hardware name: VMware, Inc. VMware Virtual Platform/440BX, BIOS 6.00 is the culprit",
    # Modelled on kernels >= 6.4 (dmi_scan.c): a `DMI:` line that is not the ids (no `, BIOS `).
    "[    0.000000] DMI: Memory slots populated: 2/4",
])
def test_other_lines_are_no_dmi_ids(line: str) -> None:
    assert kernel_dmi(_log(line)) == ""


def test_fw_vm_reads_the_guest_of_an_oops_with_its_one_gpu() -> None:
    # Corpus 656: the Oops's Hardware name is a VMware guest, and the driver's one `NVRM: GPU 0000:13:00.0` line is
    # its one GPU shown: judged over that GPU (the blind readings' majority, h61f).
    result = capture_checks("656", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "virtual machine (vmware)" in result.message, result.message
    assert "1 GPU shown" in result.message


@pytest.mark.parametrize(("capture", "hypervisor"), [
    # Corpus 505: Hyper-V, from the Oops.
    ("505", "microsoft"),
    # Corpus 634 (club-3090#642): a KVM guest whose report is cut in GPU 1's bullets: two GPUs, one of them whole.
    ("634", "kvm"),
])
def test_fw_vm_reads_the_guest_and_an_excerpt_stays_open(capture: str, hypervisor: str) -> None:
    result = capture_checks(capture, "FW-VM")["FW-VM"]
    assert result.status == "unknown", result.message
    assert f"virtual machine ({hypervisor})" in result.message


OOPS_HEAD = """\
[  879.012310] BUG: unable to handle page fault for address: 0000000000002a04
[  879.012315] #PF: supervisor read access in kernel mode
[  879.012318] Oops: 0000 [#1] SMP NOPTI
[  879.012320] CPU: 15 PID: 591 Comm: nv_queue Tainted: P           OE     5.15.0-91-generic #101-Ubuntu
"""


def test_fw_vm_a_proxmox_guest_from_a_pasted_oops(tmp_path: Path) -> None:
    """Real DMI ids (arpl-zh_CN#4, Proxmox VE) under a modelled Oops head."""
    result = paste_checks(tmp_path, OOPS_HEAD + ARPL_PROXMOX.replace("DMI:", "Hardware name:") + "\n", "FW-VM")["FW-VM"]
    assert "virtual machine (qemu)" in result.message


def test_fw_vm_a_physical_board_in_a_pasted_oops_is_bare_metal(tmp_path: Path) -> None:
    """Modelled: the same Oops on a Supermicro board is bare metal, never a VM."""
    line = "[  879.012322] Hardware name: Supermicro SYS-4029GP-TRT/X11DPG-OT-CPU, BIOS 3.3 02/21/2020\n"
    result = paste_checks(tmp_path, OOPS_HEAD + line, "FW-VM")["FW-VM"]
    assert result.status == "ok"
    assert "Supermicro" in result.message


# --- club-3090's rig report ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("capture", ["633", "646"])
def test_fw_vm_rig_report_bare_metal(capture: str) -> None:
    """Corpus 633 (club-3090#73) and 646 (club-3090#758): `- **Environment:** bare metal`."""
    result = capture_checks(capture, "FW-VM")["FW-VM"]
    assert result.status == "ok"
    assert "Environment: bare metal" in result.message


@pytest.mark.parametrize(("line", "vm"), [
    ("- **Environment:** kvm (virtualized)", "kvm"),
    # Modelled on report.sh's WSL branch.
    ("- **Environment:** WSL2 (kernel reports WSL2)", "microsoft"),
    ("- **Environment:** bare metal", "none"),
])
def test_the_environment_line(line: str, vm: str) -> None:
    assert virtualization_from_rig_report(line + "\n").vm == vm


@pytest.mark.parametrize("line", [
    # Modelled: systemd-detect-virt without --vm names a container, which says nothing of the machine under it.
    "- **Environment:** docker (virtualized)",
    "- **Environment:** inside-container (unusual for this script)",
])
def test_a_container_names_no_machine(line: str) -> None:
    with pytest.raises(ParseError):
        virtualization_from_rig_report(line + "\n")


def test_an_environment_bullet_outside_the_report_is_not_read(tmp_path: Path) -> None:
    """Modelled: a user's Markdown with the same bullet, no `# club-3090 rig report` heading above it."""
    text = ("## Setup\n\n- **Environment:** bare metal\n- **OS:** Ubuntu 22.04\n\n"
            "Linux gpu01 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 "
            "x86_64 GNU/Linux\n")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status != "ok"


@pytest.mark.parametrize("capture", ["2325", "1160"])
def test_fw_vm_rig_report_under_the_issue_forms_heading(capture: str) -> None:
    """Corpus 2325 (club-3090, a Strix Halo mini PC with two eGPUs): the user pastes the report from its `## System`
    section, under the issue form's heading that names `scripts/report.sh`, without the report's own heading. Corpus
    1160 (its header names the thread) keeps both headings."""
    result = capture_checks(capture, "FW-VM")["FW-VM"]
    assert result.status == "ok" and "Environment: bare metal" in result.message


def test_the_forms_heading_reads_only_a_system_section_under_it(tmp_path: Path) -> None:
    """Modelled: the issue form's heading over the user's own `## Setup` list with the same bullet: not the report's
    System section."""
    text = ("### Rig + bench report — paste contents of `bash scripts/report.sh --full`\n\n"
            "## Setup\n\n- **Environment:** bare metal\n- **OS:** Ubuntu 22.04\n")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status != "ok"
