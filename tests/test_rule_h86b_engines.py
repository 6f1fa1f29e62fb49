"""Issue 28 (h86b): engine verdicts on blind batches AV and AX where both experts agree.

- IC-CUSTOM-ALLREDUCE: vLLM's "lacks GPU P2P capability or P2P test failed" at TP 2 (or an unshown TP size), with
  neither the GPU models nor their links shown, is unknown: the line does not separate cards the driver gives no P2P
  (by design) from a P2P-capable pair whose test failed (a fault).

Real lines are quoted verbatim from the threads named beside each; modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

AR = "IC-CUSTOM-ALLREDUCE"

# https://github.com/vllm-project/vllm/issues/23921 (corpus 1032's thread): one worker's line of a release with the
# real P2P test; the line names no GPU.
VLLM_23921 = ("(Worker pid=1592) WARNING 05-11 03:01:18 [custom_all_reduce.py:165] Custom allreduce is disabled because "
              "your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify "
              "disable_custom_all_reduce=True explicitly.\n")


def test_kaito_log_without_the_gpus_is_unknown() -> None:
    """Real (kaito-project/kaito#866, corpus 1914): a vLLM log at two GPUs, models and links not shown."""
    r = capture_checks("1914", AR)[AR]
    assert r.status == "unknown" and "neither the GPU models nor their links" in r.message


def test_ci_log_without_the_gpus_is_unknown() -> None:
    """Real (vllm-project/vllm#4770, corpus 241): the CI agent's cached P2P verdict for GPUs 0,1."""
    assert capture_checks("241", AR)[AR].status == "unknown"


def test_a_worker_line_at_tp_two_is_unknown(tmp_path: Path) -> None:
    """Real line (vllm-project/vllm#23921) under a modelled TP 2 command."""
    r = paste_checks(tmp_path, "vllm serve m --tensor-parallel-size 2\n" + VLLM_23921, AR)[AR]
    assert r.status == "unknown" and "nvidia-smi topo -p2p" in r.hint


def test_the_named_pair_or_a_group_above_two_stays_an_issue(tmp_path: Path) -> None:
    # Modelled counter-examples: a named P2P-capable PCIe pair; and a group of four, which reaches vLLM's P2P test only
    # after NVML reported the GPUs NVLink-connected.
    pair = ("GPU 0: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
            "GPU 1: NVIDIA L40S (UUID: GPU-00000000-0000-0000-0000-000000000001)\n")
    assert paste_checks(tmp_path, pair + "vllm serve m --tensor-parallel-size 2\n" + VLLM_23921, AR)[AR].status == "issue"
    assert paste_checks(tmp_path, "vllm serve m --tensor-parallel-size 4\n" + VLLM_23921, AR)[AR].status == "issue"
