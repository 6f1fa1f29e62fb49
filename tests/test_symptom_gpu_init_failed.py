"""DRV-XID from the driver failing to initialise a GPU with no Xid (facts/symptoms.py `gpu-init-failed`).

`NVRM: GPU 0000:04:01.0: RmInitAdapter failed! (0x11:0x45:2525)` is the driver giving up on bringing the GPU up,
the class DRV-XID already names with "probe routine failed": CUDA has no device on it. A line of the same log that
names the cause (the GSP firmware's boot, the open module refusing the GPU, a BAR without space) makes it that
cause's finding. Real pastes are verbatim from the public thread beside each (or a corpus capture); modelled ones
are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

# https://github.com/NVIDIA/gpu-operator/issues/1146 (edwardzjl): one GPU of a worker fails again and again.
OPERATOR_1146 = """\
Dec  2 11:49:53 worker4 kernel: [  885.242168] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)
Dec  2 11:49:53 worker4 kernel: [  885.242457] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor number 5
Dec  2 11:50:34 worker4 kernel: [  926.232044] NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)
Dec  2 11:50:34 worker4 kernel: [  926.232358] NVRM: GPU 0000:0a:00.0: rm_init_adapter failed, device minor number 5
"""
# https://github.com/Bumblebee-Project/Bumblebee/issues/722 (ArchangeGabriel quoting the reporter's dmesg): before
# R470 the line names no GPU.
BUMBLEBEE_722 = """\
[87669.726564] NVRM: RmInitAdapter failed! (0x26:0xffff:1375)
[87669.726572] NVRM: rm_init_adapter failed for device bearing minor number 0
[87669.726589] NVRM: nvidia_frontend_open: minor 0, module->open() failed, error -5
"""
# Modelled: the driver's own trace inside RmInitAdapter, no failure of it.
TRACE_ONLY = "[  12.301122] NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter\n"


def _xid(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"]


def test_an_init_failure_without_a_cause_is_a_lost_gpu(tmp_path: Path) -> None:
    # Five threads: gpu-operator#649 (corpus 469, both GPUs every 5 s), gpu-operator#1146, Bumblebee#722, and two
    # where the driver cannot map a GPU it lost (`osInitNvMapping: *** Cannot attach gpu`, no cause named):
    # open-gpu-kernel-modules (corpus 146, an RTX 5080) and cmpunlocker#4 (corpus 657, a CMP 40HX).
    for result in (capture_checks("469", "DRV-XID")["DRV-XID"], _xid(tmp_path, OPERATOR_1146),
                   _xid(tmp_path, BUMBLEBEE_722), capture_checks("146", "DRV-XID")["DRV-XID"],
                   capture_checks("657", "DRV-XID")["DRV-XID"]):
        assert result.status == "issue", result.message
        assert result.severity == "high"
        assert result.gpu_lost
        assert any("RmInitAdapter failed!" in line for line in result.evidence)


def test_a_named_cause_keeps_the_failure_off_drv_xid() -> None:
    # Corpus 279 (open-gpu-kernel-modules#789): the GSP firmware did not boot, DRV-GSP-FIRMWARE's finding.
    results = capture_checks("279", "DRV-XID", "DRV-GSP-FIRMWARE")
    assert results["DRV-XID"].status == "unknown", results["DRV-XID"].message
    assert results["DRV-GSP-FIRMWARE"].status == "issue"


def test_only_the_failure_line_matches(tmp_path: Path) -> None:
    assert not find_symptoms(TRACE_ONLY.splitlines())
    assert _xid(tmp_path, TRACE_ONLY).status != "issue"
    # Modelled: a BAR without space names the cause (FW-ABOVE4G-MMIO's finding).
    bar = ("[    5.120001] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
           + OPERATOR_1146)
    assert not find_symptoms(bar.splitlines())
