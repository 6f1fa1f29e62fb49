"""A GSP heartbeat or RPC timeout without its Xid line (facts/symptoms.py `gsp-rpc-timeout`).

The driver prints these lines with Xid 119 (GSP RPC timeout); an excerpt often holds them and not the Xid line.
The driver's GSP timeout decision tree (kernel_gsp.c) asks first whether the GPU's memory hardware is stuck: where the
same log shows that (`Memory Subsystem Error detected`, the Xid 175 class) the timeout is the GPU's hardware fault,
DRV-XID's; else the GSP firmware stopped answering, DRV-GSP-FIRMWARE's finding. Either way the GPU is lost; the
app-fault advice is not given. Real pastes are verbatim (the public thread beside each) or corpus captures;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks

# https://github.com/ublue-os/bazzite/issues/4449 (the issue body's kernel buffer tail, leading spaces dropped)
BAZZITE_HEARTBEAT = """Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspProcessRpcEvent: Attempted to process RPC event from GPU0: 0x101a (PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock
Mar 21 21:42:01 kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446
Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 322227881 heartbeat 0 heartbeatWithOffsetMs 318098841 diff 4129040 timeout 5200
Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out
Mar 21 21:43:00 kernel: nvidia 0000:05:00.0: Enabling HDA controller
"""

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1125 (onien-12's comment, 2026-05-04: RTX 3090, resume)
RESUME_HEARTBEAT = """[37803.140477] NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 3856513292 heartbeat 0 heartbeatWithOffsetMs 0 diff 3856513292 timeout 5200
[37803.140481] NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out
[37804.140414] PM: suspend exit
"""


def _gsp(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]


def test_heartbeat_timeouts_prove_the_gsp_firmware_failed(tmp_path: Path) -> None:
    for text in (BAZZITE_HEARTBEAT, RESUME_HEARTBEAT):
        result = _gsp(tmp_path, text)
        assert result.status == "issue", result.message
        assert "Heartbeat timed out" in result.evidence[0]
        assert "stopped answering" in result.message


def test_a_heartbeat_timeout_under_sustained_load() -> None:
    # Corpus 1164 (NVIDIA/open-gpu-kernel-modules#1200): the GSP RM and LibOS heartbeats time out, then Xid 154.
    checks = capture_checks("1164", "DRV-GSP-FIRMWARE", "DRV-XID")
    assert checks["DRV-GSP-FIRMWARE"].status == "issue"
    assert checks["DRV-XID"].status == "issue" and "154" in checks["DRV-XID"].message


def test_a_stuck_memory_subsystem_makes_the_timeout_the_gpus() -> None:
    # Corpus 380 (NVIDIA/open-gpu-kernel-modules#1230): heartbeat, memsys error and the GSP Timeout banner, cut.
    checks = capture_checks("380", "DRV-XID", "DRV-GSP-FIRMWARE")
    assert checks["DRV-XID"].status == "issue", checks["DRV-XID"].message
    assert any("Memory Subsystem Error" in line for line in checks["DRV-XID"].evidence)
    assert checks["DRV-GSP-FIRMWARE"].status == "not-an-issue"


def test_the_older_xid119_banner_alone(tmp_path: Path) -> None:
    # Corpus 121 (NVIDIA/open-gpu-kernel-modules#446, Talos kern log): its banner and rpcRecvPoll lines, no Xid line.
    lines = next(CAPTURES_DIR.glob("121-*.txt")).read_text().splitlines()
    banner = "\n".join(line for line in lines if "_kgspLogXid119" in line or "rpcRecvPoll timedout" in line) + "\n"
    assert "Xid (PCI" not in banner
    result = _gsp(tmp_path, banner)
    assert result.status == "issue", result.message


def test_other_gsp_lines_prove_nothing(tmp_path: Path) -> None:
    # Modelled from bazzite#4449's other lines: an RPC event during boot and an assertion are no timeout.
    text = "".join(BAZZITE_HEARTBEAT.splitlines(keepends=True)[:2])
    assert _gsp(tmp_path, text).status != "issue"
