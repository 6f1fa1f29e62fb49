"""Issue 28 (a value that looks wrong but is not says so): GSP firmware in use is a key negative.

GSP in use is the driver's default and what DRV-GSP-FIRMWARE wants, and also what old forum advice (and some
monitoring agents) says to turn off: the check says not-an-issue, whether `nvidia-smi -q` shows its version or the
kernel log names GSP RPCs, so both sources give one verdict. A GSP boot failure stays the issue.

Real pastes are corpus captures (their thread in the header); the counter-example is modelled and says so.
"""

from __future__ import annotations

from corpus import capture_checks
from nvidia_support import hgx, host_for
from stackaudit.engine.testing import run_checks


def _gsp(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    return r.status, r.message


def test_the_version_in_nvidia_smi_q_is_a_key_negative() -> None:
    status, message = _gsp("118")  # NVIDIA/DCGM#152: 'GSP Firmware Version : 535.104.05' on an A100
    assert status == "not-an-issue" and "GSP firmware 535.104.05 in use" in message
    assert "does not apply to inference servers" in message


def test_gsp_rpcs_in_the_kernel_log_give_the_same_verdict() -> None:
    assert _gsp("144")[0] == "not-an-issue"  # Neroued/ninfer#12: rpcRmApiFree_GSP lines, GSP in use


def test_a_gsp_boot_failure_stays_the_issue() -> None:
    assert _gsp("216")[0] == "issue"  # open-gpu-kernel-modules#876: '_kgspBootGspRm: unexpected WPR2 already up'


def test_modelled_gsp_in_use_on_an_hgx_board_with_the_coverage() -> None:
    r = run_checks(host_for(hgx(count=2)), ["DRV-GSP-FIRMWARE"])["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue" and r.coverage is not None and r.coverage.text() == "2 of 2 GPUs shown"


def test_rpcs_failing_on_a_gpu_gone_from_the_bus_are_a_consequence_not_a_gsp_fault() -> None:
    # Corpus 870 (NVIDIA/open-gpu-kernel-modules#1010): `_issueRpcAndWait: rpcSendMessage failed with status
    # 0x0000000f` in the same second as Xid 79: 0x0F is NV_ERR_GPU_IS_LOST, the GSP cannot answer for a GPU gone.
    results = capture_checks("870", "DRV-GSP-FIRMWARE", "DRV-XID")
    gsp = results["DRV-GSP-FIRMWARE"]
    assert gsp.status == "not-an-issue" and "NV_ERR_GPU_IS_LOST" in gsp.message and "DRV-XID" in gsp.message
    assert results["DRV-XID"].status == "issue" and "Xid 79" in results["DRV-XID"].message


def test_an_rpc_failing_with_another_status_names_no_lost_gpu() -> None:
    # Modelled counter-example: the same RPC line with status 0x56 (NV_ERR_NOT_SUPPORTED) shows GSP in use, and
    # says nothing of a GPU lost.
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    text = ("[  812.109301] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x00000056 for fn 78 "
            "sequence 1016221!\n")
    r = run_checks(MemoryHost(recognise(text).record), ["DRV-GSP-FIRMWARE"])["DRV-GSP-FIRMWARE"]
    assert r.status == "not-an-issue" and "GSP RPCs" in r.message and "NV_ERR_GPU_IS_LOST" not in r.message
