"""DRV-XID: application Xids (13/31/43) that recur on one GPU under three or more different processes.

NVIDIA's Xid catalogue for Xid 31 (quoted in NVIDIA/NVSentinel#271): "Repeat MMU faults to same GPU (via
PCI-ID): RUN_DCGMEUD (possible HW issue)"; "Repeat MMU faults to diff GPU (via PCI-ID): CHECK_APP/CUDA";
"Solo, no burst: CHECK_APP/CUDA". One program that faults (and is restarted once) stays not-an-issue.
Real lines are quoted from the threads named beside each; the modelled counter-examples say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpu_events import RECURRING_PROCESSES

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/363 (birdie-github, 2022-09-05): two chrome processes.
CHROME_363 = """NVRM: GPU at PCI:0000:08:00: GPU-UID
NVRM: Xid (PCI:0000:08:00): 31, pid=169800, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
NVRM: Xid (PCI:0000:08:00): 31, pid=174421, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
"""


def test_four_and_three_processes_on_two_gpus_are_an_issue() -> None:
    # Corpus 416 (pytorch/pytorch#51382): Xid 43 under four pids on 3d:00, Xid 31 under three pids on db:00.
    r = capture_checks("416", "DRV-XID")["DRV-XID"]
    assert r.status == "issue" and r.severity == "low"
    assert "4 processes" in r.message and "3 processes" in r.message and "dcgmi diag" in r.message
    assert len(r.subjects) == 2


def test_two_processes_stay_a_program_fault(tmp_path: Path) -> None:
    assert RECURRING_PROCESSES == 3
    assert paste_checks(tmp_path, CHROME_363, "DRV-XID")["DRV-XID"].status == "not-an-issue"
    # Corpus 343 (tinygrad, two pids of one program) and 298 (one game pid) read the same.
    assert capture_checks("343", "DRV-XID")["DRV-XID"].status == "not-an-issue"
    assert capture_checks("298", "DRV-XID")["DRV-XID"].status == "not-an-issue"


def test_one_process_per_gpu_is_the_program(tmp_path: Path) -> None:
    # Modelled: three processes each fault once, each on another GPU (the catalogue's "diff GPU": the app).
    text = "".join(f"[Thu Jan 28 0{i}:16:35 2021] NVRM: Xid (PCI:0000:{bus}:00): 43, pid={pid}, Ch 00000008\n"
                   for i, (bus, pid) in enumerate((("3d", 101), ("db", 102), ("5e", 103))))
    assert paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"].status == "not-an-issue"
    # Modelled: one pid faulting many times on one GPU is one program.
    same = "".join(f"[Thu Jan 28 0{i}:16:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=101, Ch 00000008\n"
                   for i in range(5))
    assert paste_checks(tmp_path, same, "DRV-XID")["DRV-XID"].status == "not-an-issue"
