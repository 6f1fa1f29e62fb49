"""DRV-XID: application Xids (13/31/43) that recur on one GPU under three or more different processes.

NVIDIA's Xid catalogue for Xid 31 (quoted in NVIDIA/NVSentinel#271): "Repeat MMU faults to same GPU (via
PCI-ID): RUN_DCGMEUD (possible HW issue)"; "Repeat MMU faults to diff GPU (via PCI-ID): CHECK_APP/CUDA";
"Solo, no burst: CHECK_APP/CUDA". One program that faults (and is restarted once) stays not-an-issue.
Real lines are quoted from the threads named beside each (corpus 416, tensorflow/models#10326: issue; open-gpu-kernel-
modules#363, akash-network/support#244, vllm#5901, corpus 343 and 298: no recurrence); the modelled counter-examples say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.gpu_events import RECURRING_PROCESSES

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/363 (birdie-github, 2022-09-05): two chrome processes.
CHROME_363 = """NVRM: GPU at PCI:0000:08:00: GPU-UID
NVRM: Xid (PCI:0000:08:00): 31, pid=169800, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
NVRM: Xid (PCI:0000:08:00): 31, pid=174421, name=chrome, Ch 00000023, intr 00000000. MMU Fault: ENGINE CE0 HUBCLIENT_HSCE0 faulted @ 0x0_0abe0000. Fault is of type FAULT_PTE ACCESS_TYPE_VIRT_READ
"""

# https://github.com/tensorflow/models/issues/10326 (issue body): the dmesg lines verbatim up to the fourth Xid 31;
# the retrieved copy cuts the fifth (pid=34758) mid-line, so it is left out. Four pids fault on 18:00.
TF_10326 = """[3138705.607699] test1[33417]: segfault at 656c6c6f ip 000055d26855077c sp 00007ffff2eeaab0 error 4 in test1[55d268550000+1000]
[3138765.887948] test1[33660]: segfault at 656c6c6f ip 000055f1846a677c sp 00007ffcde90ad50 error 4 in test1[55f1846a6000+1000]
[3138772.551306] test1[33687]: segfault at 656c6c6f ip 000055832d83077c sp 00007ffc23668210 error 4 in test1[55832d830000+1000]
[3138783.897230] NVRM: Xid (PCI:0000:18:00): 31, pid=33750, Ch 00000039, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f75_7bd4f000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
[3138883.734400] NVRM: Xid (PCI:0000:18:00): 31, pid=34180, Ch 00000039, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x7f69_43d4f000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
[3138904.688266] NVRM: Xid (PCI:0000:18:00): 31, pid=34292, Ch 00000039, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_6 faulted @ 0x7f1b_fdd4f000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
[3138940.219240] NVRM: Xid (PCI:0000:18:00): 31, pid=34464, Ch 00000039, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f8a_cbd4f000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
"""

# https://github.com/akash-network/support/issues/244 (issue body), the `dmesg -T |grep NVRM` output verbatim up to the
# Xid 31 line (the Xid 94 lines after it are left out): Xid 43 under two pids on 00:05, Xid 31 under one on 00:07.
AKASH_244 = """root@node4:~# dmesg -T |grep NVRM
[Sun Jul 28 09:15:27 2024] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024
[Wed Jul 31 23:14:18 2024] NVRM: GPU at PCI:0000:00:05: GPU-efbdfde9-5798-a6e7-4c46-12518fa15375
[Wed Jul 31 23:14:18 2024] NVRM: GPU Board Serial Number: 1650423013443
[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008
[Wed Jul 31 23:15:26 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1084984, name=pt_main_thread, Ch 00000008
[Mon Aug  5 03:54:13 2024] NVRM: GPU at PCI:0000:00:07: GPU-3b6ec030-5adc-1847-e155-79f635584b4e
[Mon Aug  5 03:54:13 2024] NVRM: GPU Board Serial Number: 1652923017935
[Mon Aug  5 03:54:13 2024] NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x73ac_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE
"""

# https://github.com/vllm-project/vllm/issues/5901 (comment by fengyizhu, 2024-08-23): the first six dmesg lines
# verbatim (the seventh is cut in the retrieved copy). Many Xid 13 lines on 43:00, none naming a process.
VLLM_5901 = """[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e 0x52e7b4=0x4 0x52e7a8=0xc81eb60 0x52e7ac=0x1174
[93297.029837] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52ef30=0x0 0x52ef34=0x20 0x52ef28=0xc81eb60 0x52ef2c=0x1174
[93297.031618] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52efb0=0x0 0x52efb4=0x20 0x52efa8=0xc81eb60 0x52efac=0x1174
[93297.040286] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52f730=0x0 0x52f734=0x20 0x52f728=0xc81eb60 0x52f72c=0x1174
[93297.042086] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52f7b0=0x0 0x52f7b4=0x20 0x52f7a8=0xc81eb60 0x52f7ac=0x1174
[93297.043905] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52ff30=0x0 0x52ff34=0x20 0x52ff28=0xc81eb60 0x52ff2c=0x1174
"""


def test_four_processes_on_one_gpu_in_a_real_log_are_an_issue(tmp_path: Path) -> None:
    assert fact(pasted(TF_10326), "gpu_events").recurring_app_faults() == {
        "0000:18:00.0": ("33750", "34180", "34292", "34464")}
    r = paste_checks(tmp_path, TF_10326, "DRV-XID")["DRV-XID"]
    assert r.status == "issue" and r.severity == "low", r.message
    assert "GPU 0000:18:00.0: 4 processes (pid 33750, 34180, 34292, 34464)" in r.message


def test_two_pids_on_one_gpu_and_one_on_another_do_not_recur() -> None:
    # akash#244: the other DRV-XID rules judge its training process's death; this rule finds no recurrence.
    assert fact(pasted(AKASH_244), "gpu_events").recurring_app_faults() == {}
    r = run_checks(pasted(AKASH_244), ["DRV-XID"])["DRV-XID"]
    assert "under different processes" not in r.message, r.message


def test_xid_lines_naming_no_process_are_no_recurrence() -> None:
    # vllm#5901: six Xid 13 lines on one GPU with pid='<unknown>': one burst, no process to count.
    events = fact(pasted(VLLM_5901), "gpu_events")
    assert len(events.xids) == 6 and events.recurring_app_faults() == {}
    r = run_checks(pasted(VLLM_5901), ["DRV-XID"])["DRV-XID"]
    assert "under different processes" not in r.message, r.message


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
