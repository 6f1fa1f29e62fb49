"""The driver's GSP RPC history dump is a GSP failure (DRV-GSP-FIRMWARE issue), quoted, with or without its banner.

kgspLogRpcDebugInfo (open-gpu-kernel-modules, src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c) prints the
`RPC history (CPU -> GSP)` and `RPC event history (CPU <- GSP)` tables; the driver calls it on an RPC timeout
(Xid 119) and on a failed GSP health check (Xid 120) only. Other lines that name GSP RPCs show GSP in use
(not-an-issue). The snippets are verbatim from the public threads named beside each; the counter-example is
modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1230 (gengchaogit): the RPC history a GSP timeout dumps.
OGKM_1230 = """\
[   84.738332] NVRM:     -3    72   GSP_SET_SYSTEM_INFO            0 0x0000000000000000 0x0000000000000000 0x000655d53b47bfbe 0x000655d53b587765   1095ms
[   84.738339] NVRM: GPU6 RPC event history (CPU <- GSP):
"""
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/659 (edmcman): the older table (no sequence column),
# the buffer line and the CPU -> GSP heading, with the Xid 119 banner cut away.
OGKM_659 = """\
Apr 24 13:23:29 banana kernel: NVRM: GPU0 GSP RPC buffer contains function 4108 (UCODE_LIBOS_PRINT) and data 0x0000000000000000 0x0000000000000000.
Apr 24 13:23:29 banana kernel: NVRM: GPU0 RPC history (CPU -> GSP):
Apr 24 13:23:29 banana kernel: NVRM:     entry function                   data0              data1              ts_start           ts_end             duration actively_polling
Apr 24 13:23:29 banana kernel: NVRM:      0    47   UNLOADING_GUEST_DRIVE 0x0000000000000000 0x0000000000000000 0x000616daa95805e8 0x000616daa95d9f17    366 s y
"""
# Modelled counter-example (not from a thread): the driver's slow-RPC warning and a control call's own refusal
# (0x56 NV_ERR_NOT_SUPPORTED) name GSP RPCs, yet neither is the history dump: GSP in use, no failure.
MODELLED_SLOW_RPC = """\
[  812.004211] NVRM: Slow RPC response from GPU0 GSP (5321us). Function 76 (GSP_RM_CONTROL) sequence 4124 (0x20809001 0x8).
[  812.004590] NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00064; hObject=0x5c000001; cmd=0x20801702; paramsSize=0x4; paramsStatus=0x0; status=0x56
"""


@pytest.mark.parametrize(("text", "quoted"), [
    (OGKM_1230, "GSP_SET_SYSTEM_INFO"),
    (OGKM_659, "GSP RPC buffer contains function 4108"),
], ids=["ogkm-1230", "ogkm-659"])
def test_rpc_history_dump_is_a_gsp_failure(tmp_path: Path, text: str, quoted: str) -> None:
    r = paste_checks(tmp_path, text, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "issue", r.message
    assert "RPC history" in r.message and quoted in r.message


def test_rpc_history_rows_alone_in_a_talos_log() -> None:
    # Corpus 506 (NVIDIA/open-gpu-kernel-modules#942, inheaden-admin): talosctl lines, the table rows and the
    # CPU <- GSP heading, no banner and no Xid line: the GSP failure is proven, the Xid number is not.
    r = capture_checks("506", "DRV-GSP-FIRMWARE", "DRV-XID")
    assert r["DRV-GSP-FIRMWARE"].status == "issue"
    assert "GSP_RM_CONTROL              4124" in r["DRV-GSP-FIRMWARE"].message
    assert r["DRV-XID"].status == "unknown"


def test_slow_rpc_and_refused_control_are_no_dump(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_SLOW_RPC, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue", r.message
    assert "runs the GSP firmware on GPU0" in r.message
