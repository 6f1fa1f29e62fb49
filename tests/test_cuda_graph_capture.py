"""Issue 28 (a verdict where the text suffices, and no more): what a serving log proves of CUDA graphs.

A capture that finished (vLLM's 'Graph capturing finished', SGLang's 'Capture cuda graph end', a capture progress bar
at 100%, or the server coming up after the capture began) proves graphs on. A capture that only began proves the
setting, not the capture: engines hang or fail inside it, so the verdict waits for its end. vLLM's capture line
advises "set 'enforce_eager=True'": that advice is not the value.

Real log lines are quoted from the thread named beside each; the counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/vllm-project/vllm/pull/11349 (mgoin's example log): a whole capture, begun and finished.
VLLM_11349 = """\
INFO 12-19 22:58:27 model_runner.py:1415] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.
Capturing CUDA graph shapes: 100%|██████████████████████████████████████████████████████████████████████████████████████████████████████████████████████| 35/35 [00:13<00:00,  2.51it/s]
INFO 12-19 22:58:41 model_runner.py:1535] Graph capturing finished in 14 secs, took 0.21 GiB
"""
# https://github.com/ai-dynamo/dynamo/issues/4087 (zhaotyer: `vllm serve` hangs): the capture bar stops part-way.
DYNAMO_4087 = """\
Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  76%|███████▌  | 51/67 [00:08<00:03,  4.15it/s]
Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  78%|███████▊  | 52/67 [00:08<00:03,  4.68it/s]
"""
# https://github.com/LMCache/LMCache/issues/503 (maobaolong): the bar at 0% and the workers' capture advice.
LMCACHE_503 = """\
Capturing CUDA graph shapes:   0%|                                                                                | 0/11 [00:00<?, ?it/s](VllmWorkerProcess pid=21013) INFO 04-24 08:27:56 [model_runner.py:1456] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.
"""
# Modelled: SGLang's capture begin, then the server's ready line (it serves only after capturing).
SGLANG_READY = """\
[2025-12-28 10:40:09 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=11.87 GB
[2025-12-28 10:40:31] INFO:     Application startup complete.
"""


def _graphs(tmp_path: Path, text: str) -> tuple[str, str]:
    r = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    return r.status, r.message


def test_a_finished_capture_proves_graphs_on_and_the_advice_is_not_eager_mode(tmp_path: Path) -> None:
    assert _graphs(tmp_path, VLLM_11349) == ("ok", "CUDA graphs are on: the vllm log shows them captured")


def test_sglang_capture_end_is_ok() -> None:
    assert capture_checks("70", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "ok"  # corpus 70 (sglang#11830)


def test_a_capture_that_only_began_waits_for_its_end(tmp_path: Path) -> None:
    r = capture_checks("178", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]  # corpus 178 (sglang#15909): begin on 4 ranks
    assert r.status == "unknown" and "Capture cuda graph begin" in r.message
    for text in (DYNAMO_4087, LMCACHE_503):
        status, message = _graphs(tmp_path, text)
        assert status == "unknown", message
        assert "before the capture finished" in message


def test_modelled_server_ready_after_the_capture_began_is_ok(tmp_path: Path) -> None:
    assert _graphs(tmp_path, SGLANG_READY)[0] == "ok"


def test_vllms_first_stats_format_predates_cuda_graphs(tmp_path: Path) -> None:
    # Corpus 1446 (a T4, August 2023): `scheduler.py:271] Throughput: 181.6 tokens/s, Running: 1 reqs, Swapped: 0
    # reqs, Pending: 0 reqs, ...`, the stats line of vLLM 0.1.x, which had no CUDA graphs.
    result = capture_checks("1446", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "not-applicable" and "0.2.6" in result.message, result.message
    # The later format (llm_engine.py / metrics.py `Avg prompt throughput`) dates nothing: still unknown, as before.
    later = ("INFO 02-28 05:25:49 metrics.py:396] Avg prompt throughput: 72.1 tokens/s, Avg generation throughput: "
             "1.4 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache "
             "usage: 0.0%.\n")  # tenstorrent/vllm#64 (bgoelTT)
    assert paste_checks(tmp_path, later, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "unknown"


def test_trtllm_warming_a_second_batch_sizes_graph_up_finished_the_first_2271(tmp_path: Path) -> None:
    """TensorRT-LLM's PyTorch backend logs `Run generation only CUDA graph warmup for batch size=N` before each size's
    capture (`Run generation-only ...` in later releases): a second size's line says the first one's finished (corpus
    2271, sizes 170 to 167; both readers ok). One size alone only began (modelled)."""
    r = capture_checks("2271", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "captured" in r.message, r.message
    one = "[05/30/2025-23:49:42] [TRT-LLM] [I] Run generation-only CUDA graph warmup for batch size=4, draft_len=0\n"
    status, message = _graphs(tmp_path, one)
    assert status == "unknown" and "before the capture finished" in message, message
    two = one + one.replace("size=4", "size=2")
    assert _graphs(tmp_path, two)[0] == "ok"


# vLLM's graph mode stated on a line of its own (issue 28, blind CS: corpus 2479), the user's words around it.
STATED_MODE = "CUDA Graph remained active:\n\n```text\ncudagraph_mode=FULL_AND_PIECEWISE\n```\n"


def test_a_stated_graph_mode_is_ok_2479() -> None:
    """Real (1CatAI/1Cat-vLLM#678, corpus 2479): `cudagraph_mode=FULL_AND_PIECEWISE` in a fence, no log or command."""
    r = capture_checks("2479", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "FULL_AND_PIECEWISE" in r.message
    assert list(r.evidence) == ["cudagraph_mode=FULL_AND_PIECEWISE"]


def test_a_log_that_sets_a_mode_still_decides_685() -> None:
    """Real (corpus 685, another thread): vLLM's own `setting cudagraph_mode=PIECEWISE` is its log's, not a stated
    line."""
    assert capture_checks("685", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "not-an-issue"


def test_modelled_stated_modes_none_two_and_prose(tmp_path: Path) -> None:
    """Modelled: NONE is eager mode; two different modes state no one run's; a sentence that names the setting is the
    user's words, not the setting."""
    check = "RT-CUDA-GRAPHS"
    assert paste_checks(tmp_path, STATED_MODE, check)[check].status == "ok"
    assert paste_checks(tmp_path, STATED_MODE.replace("FULL_AND_PIECEWISE", "NONE"), check)[check].status == "issue"
    two = STATED_MODE + "\n```text\ncudagraph_mode=PIECEWISE\n```\n"
    assert paste_checks(tmp_path, two, check)[check].status == "unknown"
    prose = ("GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
             "I set cudagraph_mode=FULL_AND_PIECEWISE in the config, but the server crashes on start.\n")
    assert paste_checks(tmp_path, prose, check)[check].status == "unknown"


def test_stated_graph_mode_pattern_is_bounded() -> None:
    """A 200 000-character line holds no match and returns at once."""
    import time

    from stackaudit.facts.serving_logs import STATED_GRAPH_MODE

    line = "cudagraph_mode" + " " * 100_000 + "=" + " " * 99_000 + "FULL_x"
    start = time.perf_counter()
    assert STATED_GRAPH_MODE.match(line) is None
    assert time.perf_counter() - start < 0.5
