"""DRV-GSP-FIRMWARE from the driver's GSP Xids (facts/symptoms.py `gsp-xid`): a failure in a log proves itself.

An Xid 119 line (an RPC to the GSP firmware timed out) names a GSP RPC, so it also shows that GSP runs; the worse
reading wins: the line proves the GSP firmware's failure, quoted, and the kinder reading is quoted beside it. Xid 120
(an error in the GSP firmware) is the same class. DRV-XID still judges the Xid by its class where it has no Xid of its
own, and leaves the quote to DRV-GSP-FIRMWARE (one log line, one finding). A GPU the same log shows failing under its
firmware (Xid 79, lost from the bus, a memory-subsystem error) times out for that reason: no GSP failure then.
Real pastes are corpus captures (their public threads in their headers) or verbatim lines with their thread beside
them; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

GSP = "DRV-GSP-FIRMWARE"

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/446 (fighterhit): Xid 119, `dmesg -T` form, older wording.
OGKM_446 = """\
[Fri Mar  3 04:27:08 2023] NVRM: Xid (PCI:0000:61:00): 119, pid=1346198, name=nvidia-smi, Timeout waiting for RPC from GSP! Expected function 103 (GSP_RM_ALLOC) (0x80 0x38).
[Fri Mar  3 04:27:53 2023] NVRM: Xid (PCI:0000:61:00): 119, pid=1346198, name=nvidia-smi, Timeout waiting for RPC from GSP! Expected function 103 (GSP_RM_ALLOC) (0x2080 0x4).
"""
# https://forums.developer.nvidia.com/t/xid-62-xid-154-gsp-pmu-halt-crash-on-rtx-pro-6000-blackwell-during-llm-
# inference/364958 (RTX PRO 6000 Blackwell, driver 595.58.03): Xid 120 and the recovery action it set.
XID_120 = ("Mar 29 15:38:59 kernel: NVRM: Xid (PCI:0000:01:00): 120, GSP kernel exception: store access page fault "
           "(cause:0xf) @ pc:0xffffffff93003d42, partition:4#0\n"
           "Mar 29 15:38:59 kernel: NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) "
           "to 0x1 (GPU Reset Required)\n")
# Modelled (not from a thread): the GPU fell off the bus first, then an RPC to its GSP timed out.
MODELLED_OFF_BUS = ("[ 801.1] NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
                    "bus.\n"
                    "[ 846.2] NVRM: Xid (PCI:0000:61:00): 119, pid=4410, name=nvidia-smi, Timeout after 45s of "
                    "waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801702 0x4).\n")

# Modelled: corpus 380's memory-subsystem error line (NVIDIA/open-gpu-kernel-modules#1230), then an Xid 119 after it.
MODELLED_MEMORY_FAULT = ("[   84.300480] NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. "
                         "kbusSendSysmembarSingle failed.\n"
                         "[  129.300488] NVRM: Xid (PCI:0000:9b:00): 119, pid=4410, name=nvidia-smi, Timeout after 45s of "
                         "waiting for RPC response from GPU6 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801702 0x4).\n")


@pytest.mark.parametrize(("capture", "quoted"), [
    # NVIDIA/open-gpu-kernel-modules#1111: two Xid 119 under vLLM load, then an Xid 175.
    ("804", "Timeout after 45s of waiting for RPC response from GPU0 GSP"),
    # vllm-project/vllm#40652: a Talos kernel log, a GSP core dump, then Xid 119 on GPU3.
    ("121", "Timeout after 45s of waiting for RPC response from GPU3 GSP"),
    # leptonai/gpud#500: gpud's scan quotes five Xid 119 lines of one GPU.
    ("233", "Timeout after 45s of waiting for RPC response from GPU4 GSP"),
])
def test_an_xid_119_proves_the_gsp_firmware_failed(capture: str, quoted: str) -> None:
    results = capture_checks(capture, GSP, "DRV-XID")
    gsp, xid = results[GSP], results["DRV-XID"]
    assert gsp.status == "issue", gsp.message
    assert gsp.gpu_lost and any(quoted in line for line in gsp.evidence), gsp.evidence
    # The kinder reading of the same source is quoted beside it: the line also shows GSP in use.
    assert "the other evidence alone said not-an-issue" in gsp.message
    # DRV-XID stays an issue, without quoting the line DRV-GSP-FIRMWARE quotes.
    assert xid.status == "issue", xid.message
    assert not any(quoted in line for line in xid.evidence), xid.evidence


def test_the_xid_119_line_alone_in_its_older_wording(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, OGKM_446, GSP, "DRV-XID")
    assert results[GSP].status == "issue", results[GSP].message
    assert "Timeout waiting for RPC from GSP" in results[GSP].evidence[0]
    # DRV-XID has no Xid of its own here: it judges the Xid 119 by its class and names where it is quoted.
    xid = results["DRV-XID"]
    assert xid.status == "issue" and "lost — Xid 119" in xid.message and GSP in xid.message, xid.message


def test_an_xid_120_is_the_gsp_firmware_failing_and_still_a_lost_gpu(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, XID_120, GSP, "DRV-XID")
    assert results[GSP].status == "issue" and "GSP kernel exception" in results[GSP].evidence[0]
    xid = results["DRV-XID"]
    assert xid.status == "issue" and "lost — Xid 120" in xid.message and "GPU Reset Required" in xid.message
    assert not any("GSP kernel exception" in line for line in xid.evidence), xid.evidence


@pytest.mark.parametrize("text", [MODELLED_OFF_BUS, MODELLED_MEMORY_FAULT], ids=["off-the-bus", "memory-subsystem"])
def test_a_gpu_that_failed_under_its_firmware_is_no_gsp_failure(tmp_path: Path, text: str) -> None:
    # The GSP timed out on a GPU whose hardware had failed; the loss is DRV-XID's, GSP is only shown in use.
    assert "gsp-xid" not in {h.symptom.name for h in find_symptoms(text.splitlines())}
    results = paste_checks(tmp_path, text, GSP, "DRV-XID")
    assert results[GSP].status == "not-an-issue", results[GSP].message
    assert results["DRV-XID"].status == "issue", results["DRV-XID"].message
    # Without the hardware line, the same Xid 119 is the GSP firmware's failure.
    alone = "\n".join(line for line in text.splitlines() if "119," in line) + "\n"
    assert paste_checks(tmp_path, alone, GSP)[GSP].status == "issue"
    # Corpus 380 (NVIDIA/open-gpu-kernel-modules#1230): GSP timeouts after a memory-subsystem error, no Xid number.
    assert capture_checks("380", GSP)[GSP].status == "not-an-issue"


def test_only_the_gsp_xid_numbers_match() -> None:
    # Modelled: neighbouring numbers and an application Xid are no GSP Xid.
    lines = ["NVRM: Xid (PCI:0000:61:00): 1190, pid=1, name=x, y", "NVRM: Xid (PCI:0000:61:00): 19, pid=1, name=x",
             "NVRM: Xid (PCI:0000:61:00): 13, pid=1, name=python3, Graphics SM Warp Exception"]
    assert not [h for h in find_symptoms(lines) if h.symptom.name == "gsp-xid"]
    assert [h.symptom.check for h in find_symptoms(OGKM_446.splitlines())] == [GSP, GSP]
