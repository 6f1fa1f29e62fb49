"""Issue 28, step 4 (h49c): IC-CUSTOM-ALLREDUCE where vLLM trusted the driver's P2P report, and on bridged GeForce.

Real pastes: 1032 (two RTX 5090, vLLM's "Skipping P2P check and trusting the driver's P2P report." then "Custom
allreduce is disabled because your platform lacks GPU P2P capability"), 1028 (a bridged RTX 3090 pair under WSL 2,
`nvidia-smi nvlink --status` with every link up, the log cut before vLLM's verdict). Counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

AR = "IC-CUSTOM-ALLREDUCE"

_DISABLED = ("(VllmWorker TP0 pid=429) WARNING 08-29 02:02:41 [custom_all_reduce.py:147] Custom allreduce is disabled "
             "because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify "
             "disable_custom_all_reduce=True explicitly.\n")
_SKIPPED = ("(VllmWorker TP0 pid=429) INFO 08-29 02:02:41 [custom_all_reduce.py:35] Skipping P2P check and trusting "
            "the driver's P2P report.\n")


def test_the_driver_s_own_refusal_is_by_design() -> None:
    result = capture_checks("1032", AR)[AR]
    assert result.status == "not-an-issue" and "the driver reports no P2P" in result.message


def test_a_failed_p2p_test_stays_an_issue(tmp_path: Path) -> None:
    # Modelled counter-example: the same warning with no skipped check before it, on a named P2P-capable PCIe pair:
    # vLLM's own test failed.
    pair = ("GPU 0: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
            "GPU 1: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000001)\n")
    result = paste_checks(tmp_path, pair + "vllm serve m --tensor-parallel-size 2\n" + _DISABLED, AR)[AR]
    assert result.status == "issue"
    result = paste_checks(tmp_path, "vllm serve m --tensor-parallel-size 2\n" + _SKIPPED + _DISABLED, AR)[AR]
    assert result.status == "not-an-issue"


def test_a_bridged_geforce_pair_waits_for_vllm_s_verdict() -> None:
    result = capture_checks("1028", AR)[AR]
    assert result.status == "unknown" and "NVLink bridge is up" in result.message


def test_geforce_cards_with_links_down_keep_the_key_negative(tmp_path: Path) -> None:
    # Modelled counter-example: the same pair with its NVLinks inactive (no bridge): no P2P, by design.
    text = ("$ nvidia-smi nvlink --status\n"
            "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-d38e6300-de5a-ae7b-585f-d6f65b3d442a)\n"
            "         Link 0: <inactive>\n"
            "GPU 1: NVIDIA GeForce RTX 3090 (UUID: GPU-b0128e9f-5d00-c9cb-97fe-269bce44cdee)\n"
            "         Link 0: <inactive>\n"
            "$ python3 -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2\n")
    result = paste_checks(tmp_path, text, AR)[AR]
    assert result.status == "not-an-issue" and "GeForce" in result.message
