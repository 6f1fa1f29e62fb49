"""DRV-XID from a GSP heartbeat or RPC timeout without its Xid line (facts/symptoms.py `gsp-rpc-timeout`).

The driver prints these lines with Xid 119 (GSP RPC timeout); an excerpt often holds them and not the Xid line.
They prove the GPU stopped answering, whatever else the excerpt leaves out; the app-fault advice is not given.
Real pastes are verbatim (the public thread beside each) or corpus captures; counter-examples are modelled where
marked.
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


def _xid(tmp_path: Path, text: str):
    return paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"]


def test_heartbeat_timeouts_prove_a_lost_gpu(tmp_path: Path) -> None:
    for text in (BAZZITE_HEARTBEAT, RESUME_HEARTBEAT):
        result = _xid(tmp_path, text)
        assert result.status == "issue", result.message
        assert "Heartbeat timed out" in result.evidence[0]
        assert "the program comes first" not in result.message


def test_the_rpc_timeout_banner_without_its_xid_line() -> None:
    # Corpus 380 (NVIDIA/open-gpu-kernel-modules#1230): heartbeat, memsys error and the GSP Timeout banner, cut.
    result = capture_checks("380", "DRV-XID")["DRV-XID"]
    assert result.status == "issue", result.message
    assert any("GSP Timeout" in line for line in result.evidence)


def test_the_older_xid119_banner_alone(tmp_path: Path) -> None:
    # Corpus 121 (NVIDIA/open-gpu-kernel-modules#446, Talos kern log): its banner and rpcRecvPoll lines, no Xid line.
    lines = next(CAPTURES_DIR.glob("121-*.txt")).read_text().splitlines()
    banner = "\n".join(line for line in lines if "_kgspLogXid119" in line or "rpcRecvPoll timedout" in line) + "\n"
    assert "Xid (PCI" not in banner
    result = _xid(tmp_path, banner)
    assert result.status == "issue", result.message


def test_other_gsp_lines_prove_nothing(tmp_path: Path) -> None:
    # Modelled from bazzite#4449's other lines: an RPC event during boot and an assertion are no timeout.
    text = "".join(BAZZITE_HEARTBEAT.splitlines(keepends=True)[:2])
    assert _xid(tmp_path, text).status == "unknown"
