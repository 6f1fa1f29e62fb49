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
