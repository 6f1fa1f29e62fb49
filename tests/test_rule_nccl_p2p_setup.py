"""Rule of IC-P2P-FUNCTIONAL (issue 28): the pairs an NCCL log connected over its P2P transport settle that peer
access works between them (ok over the ranks shown, the message naming what is proven: NCCL's set-up, not a data
test); an NCCL warning or a P2P failure in the same log leaves it unknown, quoted.

Real pastes: 313 (Megatron-LM#516, eight ranks in one container, P2P/IPC/read), 326 (vllm#6636, four ranks, every
ring step P2P/IPC/read), 288 (vllm#6407, SHM on four links, P2P/IPC on one pair), 205 (nccl#302, a multi-node log
whose intra-node rings are P2P/IPC). The failure after set-up is modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks

P2P = "IC-P2P-FUNCTIONAL"


def test_every_ring_step_over_p2p_is_ok_over_the_ranks_shown() -> None:
    for prefix, ranks in (("326", 4), ("313", 7)):
        result = capture_checks(prefix, P2P)[P2P]
        assert result.status == "ok", prefix
        assert result.coverage is not None and result.coverage.count == ranks, prefix
        assert "over P2P (IPC/read)" in result.message and "not a test of the data" in result.message, prefix


def test_p2p_on_one_pair_beside_shm_covers_that_pair_only() -> None:
    result = capture_checks("288", P2P)[P2P]
    assert result.status == "ok" and "rank pair(s) 1-2 over P2P" in result.message
    assert "SHM on the other links" in result.message
    assert result.coverage is not None and result.coverage.shown == ("rank 1", "rank 2")


def test_intra_node_rings_of_a_multi_node_log() -> None:
    result = capture_checks("205", P2P)[P2P]
    assert result.status == "ok" and "over P2P (IPC)" in result.message


def _body(prefix: str) -> str:
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    return text.split("everything below this line is the capture, verbatim -----\n", 1)[1]


def test_modelled_failure_after_p2p_set_up_is_not_ok(tmp_path: Path) -> None:
    # Modelled: 326's channel lines followed by an NCCL warning of a failed kernel (what a pair that connects and
    # then faults under ACS redirect or the IOMMU logs).
    warn = ("gpuhost:154502:154502 [0] NCCL WARN Cuda failure 'an illegal memory access was encountered'\n"
            "gpuhost:154502:154502 [0] NCCL INFO enqueue.cc:1019 -> 1\n")
    result = paste_checks(tmp_path, _body("326").replace("```\n", "", 1).rstrip("`\n") + "\n" + warn, P2P)[P2P]
    assert result.status == "unknown"
    assert "illegal memory access" in result.message and "p2pBandwidthLatencyTest" in result.hint
