"""DRV-XID from the driver's own status words without an Xid line (facts/symptoms.py `gpu-reset-status`).

A call inside the driver that returns `Reset required [NV_ERR_RESET_REQUIRED]` or `GPU lost from the bus
[NV_ERR_GPU_IS_LOST]` says the GPU does not work until it is reset; an excerpt often holds these lines and not
the Xid. Real pastes are verbatim (the public thread beside each) or corpus captures; counter-examples are
modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import find_symptoms

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/688 (Abatpool's comment: a DGX Station A100's journal)
DGX_STATION_LOST = """Feb 17 08:00:34 abggdna-DGX-Station-A100 kernel: NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106
Feb 17 08:00:34 abggdna-DGX-Station-A100 kernel: NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!
Feb 17 08:00:34 abggdna-DGX-Station-A100 kernel: NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!
"""

# https://github.com/openwall/john/issues/5835 (banderlog's dmesg: the GPU disappeared during a run)
JOHN_DMESG_LOST = """[   35.564059] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 78!
[   35.564060] NVRM: nvCheckOkFailedNoLog: Check failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from nvdEngineDumpCallbackHelper(pGpu, pPrbEnc, pNvDumpState, pEngineCallback) @ nv_debug_dump.c:274
[   35.564061] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 78!
"""

# The same thread as corpus 434 (NVIDIA/open-gpu-kernel-modules#1045): an assertion's expression names the full-chip
# reset status; it is no returned status, so it proves nothing on its own.
ASSERTION_EXPRESSION = ("Jun 12 16:31:50 fedora-box kernel: NVRM: nvAssertFailedNoLog: Assertion failed: (status == NV_OK) "
                        "|| (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_server.c:259\n")

# Modelled: a failed check whose status says nothing of the GPU's health (an invalid argument from a caller).
OTHER_STATUS = ("[  812.104411] NVRM: nvCheckOkFailedNoLog: Check failed: Invalid argument [NV_ERR_INVALID_ARGUMENT] "
                "(0x0000001F) returned from pRmApi->Control(pRmApi, hClient, hObject, cmd, pParams, size) @ ctrl.c:120\n")


def _xid(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"]


def test_reset_required_in_a_journal_excerpt() -> None:
    # Corpus 434 (open-gpu-kernel-modules#1045): NV_ERR_RESET_REQUIRED among assertions, no Xid line shown.
    result = capture_checks("434", "DRV-XID")["DRV-XID"]
    assert result.status == "issue", result.message
    assert any("NV_ERR_RESET_REQUIRED" in line for line in result.evidence)
    assert not any("FULLCHIP_RESET) @" in line for line in result.evidence)


def test_gpu_lost_status_proves_a_lost_gpu(tmp_path: Path) -> None:
    for text in (DGX_STATION_LOST, JOHN_DMESG_LOST):
        result = _xid(tmp_path, text)
        assert result.status == "issue", result.message
        assert result.severity == "high"
        assert "NV_ERR_GPU_IS_LOST" in result.evidence[0]


def test_the_line_alone_quoted_in_prose(tmp_path: Path) -> None:
    # The status line without its kernel-log prefix, as a thread quotes it (the evidence reader takes it).
    line = JOHN_DMESG_LOST.splitlines()[1].split("] ", 1)[1] + "\n"
    assert _xid(tmp_path, "The kernel said this before the run died:\n" + line).status == "issue"


def test_an_assertion_expression_or_another_status_proves_nothing(tmp_path: Path) -> None:
    assert not find_symptoms(ASSERTION_EXPRESSION.splitlines())
    assert not find_symptoms(OTHER_STATUS.splitlines())
    for text in (ASSERTION_EXPRESSION, OTHER_STATUS):
        assert _xid(tmp_path, text).status != "issue"
