"""Rule of IC-P2P-FUNCTIONAL (issue 28, h61c): the pairs an NCCL log connected over its P2P transport prove set-up
(the driver granted peer access, NCCL mapped the peer's buffers), not data crossing intact: unknown over the ranks
shown, naming them, as 10 of the 17 blind expectations on channel lines alone read it (400, 463, 787, 788, 968, 1149,
1225, 1312, 1313, 1314; 313, 326, 381, 384, 640, 668 and 1238 read ok, kept as gaps). `ok` where the same source shows
the collective's own check of its data: nccl-tests result rows with 0 wrong elements (759, 1193). An NCCL warning, a
P2P failure or a row with wrong elements in the same source leaves it unknown, quoted.

Real pastes: 313 (Megatron-LM#516, eight ranks in one container, P2P/IPC/read), 326 (vllm#6636, four ranks, every
ring step P2P/IPC/read), 288 (vllm#6407, SHM on four links, P2P/IPC on one pair), 205 (nccl#302, a multi-node log
whose intra-node rings are P2P/IPC), 1312 (a hang the title names, rings over P2P/IPC), 759 and 1193 (nccl-tests runs
whose rows report 0 wrong). The failures after set-up are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted

P2P = "IC-P2P-FUNCTIONAL"


def test_channel_lines_alone_are_set_up_not_proof_over_the_ranks_shown() -> None:
    for prefix, ranks, detail in (("326", 4, "IPC/read"), ("313", 7, "IPC/read"), ("1312", 8, "IPC"),
                                  ("1149", 7, "direct pointer")):
        result = capture_checks(prefix, P2P)[P2P]
        assert result.status == "unknown", prefix
        assert result.coverage is not None and result.coverage.count == ranks, prefix
        assert f"over P2P ({detail})" in result.message and "set-up, not data crossing" in result.message, prefix
        assert "p2pBandwidthLatencyTest" in result.hint, prefix


def test_p2p_on_one_pair_beside_shm_covers_that_pair_only() -> None:
    result = capture_checks("288", P2P)[P2P]
    assert result.status == "unknown" and "rank pair(s) 1-2 over P2P" in result.message
    assert "SHM on the other links" in result.message
    assert result.coverage is not None and result.coverage.shown == ("rank 1", "rank 2")


def test_intra_node_rings_of_a_multi_node_log() -> None:
    result = capture_checks("205", P2P)[P2P]
    assert result.status == "unknown" and "over P2P (IPC)" in result.message


def test_rows_with_no_wrong_elements_prove_the_data_crossed() -> None:
    # 759: sendrecv, in-place #wrong N/A (not checked), out-of-place 0; 1193: all_reduce, 0 in both.
    for prefix in ("759", "1193"):
        result = capture_checks(prefix, P2P)[P2P]
        assert result.status == "ok", (prefix, result.message)
        assert "over P2P (direct pointer)" in result.message and "0 wrong elements" in result.message, prefix
        assert result.coverage is not None and result.coverage.count == 2, prefix


def test_the_rows_fact_counts_checked_and_wrong_rows() -> None:
    runs = fact(pasted(body("759")), "nccl_test_runs")
    assert len(runs.checked_rows) == 2 and runs.checked_rows[0].startswith("8 ") and runs.wrong_rows == ()
    runs = fact(pasted(body("1193")), "nccl_test_runs")
    assert len(runs.checked_rows) == 2 and runs.wrong_rows == ()


def test_modelled_row_with_wrong_elements_is_not_ok(tmp_path: Path) -> None:
    # Modelled: 1193 with its 2 GiB row reporting 3 wrong elements in place (data corrupted on the way).
    text = body("1193").replace("18524  115.93  115.93      0", "18524  115.93  115.93      3")
    assert text != body("1193")
    result = paste_checks(tmp_path, text, P2P)[P2P]
    assert result.status == "unknown", result.message
    assert "115.93      3" in result.message


def test_modelled_rows_with_checks_off_prove_nothing(tmp_path: Path) -> None:
    # Modelled: 1193 run with -c 0, its #wrong columns N/A: no check of the data ran.
    text = body("1193").replace("115.37      0", "115.37    N/A").replace("115.56      0", "115.56    N/A") \
        .replace("115.86      0", "115.86    N/A").replace("115.93      0", "115.93    N/A")
    result = paste_checks(tmp_path, text, P2P)[P2P]
    assert result.status == "unknown" and "set-up, not data crossing" in result.message


def test_modelled_failure_after_p2p_set_up_is_not_ok(tmp_path: Path) -> None:
    # Modelled: 326's channel lines followed by an NCCL warning of a failed kernel (what a pair that connects and
    # then faults under ACS redirect or the IOMMU logs).
    warn = ("gpuhost:154502:154502 [0] NCCL WARN Cuda failure 'an illegal memory access was encountered'\n"
            "gpuhost:154502:154502 [0] NCCL INFO enqueue.cc:1019 -> 1\n")
    result = paste_checks(tmp_path, body("326").replace("```\n", "", 1).rstrip("`\n") + "\n" + warn, P2P)[P2P]
    assert result.status == "unknown"
    assert "illegal memory access" in result.message and "p2pBandwidthLatencyTest" in result.hint
