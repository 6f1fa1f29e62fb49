"""What an engine's own log shows of custom all-reduce and CUDA graphs, rank by rank (issue 28, blind run V).

- Each rank's `Registering N cuda graph addresses` (vLLM's and SGLang's custom_all_reduce.py) shows custom all-reduce
  on: IC-CUSTOM-ALLREDUCE ok over the ranks the log names (one GPU each).
- A CUDA error raised in custom_all_reduce.cuh shows it on where it cannot work: IC-CUSTOM-ALLREDUCE issue.
- RT-CUDA-GRAPHS from a log states its coverage over the ranks that finished their capture.
- simpleP2P's steps (`Run kernel on GPU1, taking source data from GPU0 ...`) name the GPUs its data test ran on.
- A collect_env behind the warnings of a broken vLLM import is read, and the SFF Ada cards are Ada Lovelace (no MIG).

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.peer_access import SIMPLE_P2P_STEP
from stackaudit.facts.serving_logs import log_rank
from stackaudit.gputable import has_mig

AR = "IC-CUSTOM-ALLREDUCE"
GRAPHS = "RT-CUDA-GRAPHS"

# https://github.com/vllm-project/vllm/pull/45150 (multi-node DP under Ray, 2026-06-10): one rank's registration.
VLLM_45150 = ("(RayWorkerProc pid=3865417) (Worker_DP0_TP1_EP1 pid=3865417) INFO 06-10 11:11:10 "
              "[custom_all_reduce.py:211] Registering 5590 cuda graph addresses [repeated 8x across cluster]\n")
# https://github.com/vllm-project/vllm/issues/49101 (A100 x 8, TP 4): the crash line.
VLLM_49101 = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n"
# https://github.com/ai-dynamo/dynamo/issues/787 (vLLM under dynamo, TP 8): the crash as the worker relays it.
DYNAMO_787 = ("2025-04-23T03:35:43.390Z  INFO dynamo_engine_vllm::worker: VLLM: Failed: "
              "/workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'\n"
              "2025-04-23T03:35:43.391Z  INFO dynamo_engine_vllm::worker: VLLM: Failed: "
              "/workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'\n")
# https://github.com/ggml-org/llama.cpp/issues/3230: the same CUDA error raised in llama.cpp's own code.
GGML_3230 = "CUDA error 217 at ggml-cuda.cu:6292: peer access is not supported between these two devices\n"
# https://github.com/sgl-project/sglang/issues/10088 (SGLang, 2025-09-05): one rank's capture end.
SGLANG_10088 = ("[2025-09-05 20:48:29 TP0] Capture cuda graph end. Time elapsed: 12.11 s. mem usage=0.54 GB. "
                "avail mem=16.74 GB.\n")


@pytest.mark.parametrize(("line", "rank"), [
    ("(VllmWorker TP1 pid=1422635) INFO 08-07 19:06:30 [custom_all_reduce.py:196] Registering", "TP1"),  # corpus 550
    ("[2025-03-10 16:21:31 TP0] Registering 2231 cuda graph addresses", "TP0"),  # corpus 342
    (VLLM_45150, "DP0_TP1_EP1"),
    ("[rank1]:[W CudaIPCTypes.cpp:16] Producer process has been terminated", "rank1"),  # corpus 552
    ("(EngineCore_0 pid=1422484) INFO 08-07 19:06:31 [core.py:198] init engine", ""),  # no rank: the engine core
    ("[2025-03-10 16:21:31] Registering 2231 cuda graph addresses", ""),  # modelled: a single-rank SGLang server
])
def test_log_rank(line: str, rank: str) -> None:
    assert log_rank(line) == rank


@pytest.mark.parametrize(("prefix", "ranks"), [
    ("550", ["TP0", "TP1"]),  # vllm-project/vllm#22479: two RTX PRO 6000 Blackwell, TP 2
    ("342", ["TP1", "TP0"]),  # sgl-project/sglang#4257: SGLang --tp 2
])
def test_each_rank_registering_shows_custom_all_reduce_on(prefix: str, ranks: list[str]) -> None:
    result = capture_checks(prefix, AR)[AR]
    assert result.status == "ok" and "custom all-reduce runs" in result.message
    assert result.coverage is not None and result.coverage.text() == f"{len(ranks)} GPUs shown"
    assert list(result.coverage.shown) == ranks


def test_one_rank_registering_under_ray_is_one_gpu_shown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_45150, AR)[AR]
    assert result.status == "ok" and result.coverage is not None and result.coverage.text() == "1 GPU shown"


def test_modelled_a_log_without_the_registration_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 550 without its two custom_all_reduce.py lines: graphs captured, custom all-reduce not shown.
    text = "".join(line + "\n" for line in (
        "(VllmWorker TP1 pid=1422635) INFO 08-07 19:06:31 [gpu_model_runner.py:2537] Graph capturing finished in 9 "
        "secs, took 1.21 GiB",
        "(VllmWorker TP0 pid=1422634) INFO 08-07 19:06:31 [gpu_model_runner.py:2537] Graph capturing finished in 9 "
        "secs, took 1.21 GiB"))
    assert fact(pasted(text), "serving_log").custom_ar_registered == ()
    assert paste_checks(tmp_path, text, AR)[AR].status == "unknown"


def test_the_crash_in_custom_all_reduce_is_an_issue(tmp_path: Path) -> None:
    # Corpus 552 (sgl-project/sglang#552, two T4 on Kaggle): 'peer access is not supported between these two devices'.
    result = capture_checks("552", AR)[AR]
    assert result.status == "issue" and "custom_all_reduce.cuh:307" in result.message
    for text in (VLLM_49101, DYNAMO_787):
        result = paste_checks(tmp_path, text, AR)[AR]
        assert result.status == "issue" and "'invalid argument'" in result.message


def test_the_same_cuda_error_elsewhere_is_not_custom_all_reduce(tmp_path: Path) -> None:
    # llama.cpp's own peer-access failure says nothing of vLLM/SGLang custom all-reduce.
    log = fact(pasted(GGML_3230), "serving_log")
    assert getattr(log, "custom_ar_errors", ()) == ()
    assert paste_checks(tmp_path, GGML_3230, AR)[AR].status != "issue"


@pytest.mark.parametrize("prefix", ["550", "342"])
def test_graphs_captured_by_each_rank_are_judged_over_those_gpus(prefix: str) -> None:
    result = capture_checks(prefix, GRAPHS)[GRAPHS]
    assert result.status == "ok" and result.coverage is not None and result.coverage.text() == "2 GPUs shown"


def test_one_rank_capture_is_one_gpu_shown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, SGLANG_10088, GRAPHS)[GRAPHS]
    assert result.status == "ok" and result.coverage is not None and result.coverage.text() == "1 GPU shown"


def test_modelled_a_capture_only_begun_states_no_coverage(tmp_path: Path) -> None:
    # Modelled on corpus 178: the capture began on a rank and the log ends before it finished.
    text = "[2025-12-28 10:40:09 TP2] Capture cuda graph begin. This can take up to several minutes. avail mem=11.87 GB\n"
    result = paste_checks(tmp_path, text, GRAPHS)[GRAPHS]
    assert result.status == "unknown" and result.coverage is None


@pytest.mark.parametrize(("line", "gpus"), [
    ("Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...", {"1", "0"}),  # corpus 563
    ("Enabling peer access between GPU0 and GPU1...", {"0", "1"}),  # corpus 390
    ("cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 19.87GB/s", {"0", "1"}),  # NVIDIA/cuda-samples#284
    ("Copy data back to host from GPU0 and verify results...", set()),  # names one GPU, moves nothing between two
])
def test_simple_p2p_steps_name_their_gpus(line: str, gpus: set[str]) -> None:
    m = SIMPLE_P2P_STEP.match(line)
    assert ({g for g in m.groups() if g is not None} if m else set()) == gpus


def test_simple_p2p_failure_is_judged_over_the_gpus_its_steps_name() -> None:
    # Corpus 563 (aikitoria/open-gpu-kernel-modules#8): the verification fails after the kernels ran on GPU0 and GPU1.
    result = capture_checks("563", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "issue" and result.coverage is not None and result.coverage.text() == "2 GPUs shown"


def test_modelled_verification_errors_alone_show_no_gpu(tmp_path: Path) -> None:
    # Modelled: corpus 563's verification lines without the steps before them.
    text = "Verification error @ element 0: val = nan, ref = 0.000000\n"
    result = paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "issue" and (result.coverage is None or result.coverage.count == 0)


def test_collect_env_behind_vllm_import_warnings_is_read() -> None:
    # Corpus 549 (a vLLM build without vllm._C): the report, after vLLM's import warnings, starts at its build line.
    env = fact(pasted(_body("549")), "collect_env")
    assert env.gpu_models == ("NVIDIA RTX 4000 SFF Ada Generation",) and env.driver_version == "535.183.01"
    assert capture_checks("549", "MEM-MIG")["MEM-MIG"].status == "not-applicable"


def test_modelled_a_server_log_after_the_opening_line_is_not_the_report() -> None:
    # Modelled: a vLLM server line after `Collecting environment information...` is no import warning.
    text = ("Collecting environment information...\n"
            "INFO 09-26 11:41:07 api_server.py:18] vLLM API server version 0.6.1\n"
            "CUDA used to build PyTorch: 12.1\n")
    assert fact(pasted(text), "serving_log").vllm_version == "0.6.1"


@pytest.mark.parametrize(("name", "mig"), [
    ("NVIDIA RTX 4000 SFF Ada Generation", False), ("NVIDIA RTX 2000E Ada Generation", False),
    ("NVIDIA RTX 6000 Ada Generation", False), ("NVIDIA A100-SXM4-80GB", True),
])
def test_ada_cards_have_no_mig(name: str, mig: bool) -> None:
    assert has_mig(name) is mig


def _body(prefix: str) -> str:
    from corpus import body

    return body(prefix)


# https://github.com/vllm-project/vllm/pull/36634 (vLLM 0.17.1-rc, TP 2): two lines of each worker.
VLLM_36634 = """(Worker_TP0 pid=3216417) INFO 03-13 17:30:51 [monitor.py:48] torch.compile took 1.71 s in total
(Worker_TP0 pid=3216417) INFO 03-13 17:30:51 [monitor.py:76] Initial profiling/warmup run took 0.06 s
(Worker_TP1 pid=3216418) WARNING 03-13 17:30:52 [kv_cache_utils.py:1054] Add 3 padding layers, may waste at most 6.25% KV cache memory
(Worker_TP1 pid=3216418) INFO 03-13 17:30:52 [kv_cache_utils.py:826] Overriding num_gpu_blocks=0 with num_gpu_blocks_override=16
"""


@pytest.mark.parametrize(("prefix", "least"), [
    ("178", 4),  # corpus 178: SGLang TP 4, its capture begun on TP0-TP3
    ("526", 8),  # corpus 526: SGLang, eight ranks loading weights
])
def test_a_log_without_its_tp_size_shows_its_ranks(prefix: str, least: int) -> None:
    result = capture_checks(prefix, AR)[AR]
    assert f"TP of at least {least} (ranks " in result.message and "TP=?" not in result.message


def test_vllm_worker_ranks_give_the_tp_lower_bound(tmp_path: Path) -> None:
    assert fact(pasted(VLLM_36634), "serving_log").ranks == ("TP0", "TP1")
    assert "TP of at least 2 (ranks TP0, TP1" in paste_checks(tmp_path, VLLM_36634, AR)[AR].message


def test_modelled_a_logged_tp_size_is_said_as_such(tmp_path: Path) -> None:
    # Modelled: vLLM's engine-config line states the TP size, so the ranks' lower bound is not needed.
    text = ("INFO 05-02 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.5.0) with config: model='m', "
            "tensor_parallel_size=2, pipeline_parallel_size=1\n" + VLLM_36634)
    message = paste_checks(tmp_path, text, AR)[AR].message
    assert "TP=2" in message and "at least" not in message


# A traceback frame in custom all-reduce's buffer sharing (serving_logs._AR_FRAME), which register_graph_buffers runs
# as the CUDA graph capture closes (_AR_GRAPH_BUFFERS).
def test_a_traceback_through_the_graph_buffer_registration_is_an_issue() -> None:
    # Corpus 2451 (sgl-project/sglang#9706, 8x H100): the one traceback line kept stops in register_graph_buffers.
    checks = capture_checks("2451", AR, GRAPHS)
    assert checks[AR].status == "issue" and "register_graph_buffers" in checks[AR].message
    assert checks[GRAPHS].status == "ok" and "captured" in checks[GRAPHS].message


def test_the_registration_line_shows_graphs_captured(tmp_path: Path) -> None:
    # vllm-project/vllm#45150: custom all-reduce registers the buffers of the graphs the rank just captured.
    result = paste_checks(tmp_path, VLLM_45150, GRAPHS)[GRAPHS]
    assert result.status == "ok" and result.coverage is not None and result.coverage.text() == "1 GPU shown"


@pytest.mark.parametrize("frame", [
    # Modelled on a vLLM worker's traceback through custom all-reduce's P2P test and its all-reduce call: frames a
    # traceback passes through for failures that are not its buffer sharing.
    '  File ".../vllm/distributed/device_communicators/custom_all_reduce.py", line 39, in _can_p2p',
    '  File ".../vllm/distributed/device_communicators/custom_all_reduce.py", line 260, in all_reduce',
])
def test_modelled_other_frames_of_custom_all_reduce_prove_nothing(tmp_path: Path, frame: str) -> None:
    text = "[2025-09-05 20:48:29 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" + frame + "\n"
    log = fact(pasted(text), "serving_log")
    assert getattr(log, "custom_ar_errors", ()) == () and log.cuda_graphs == ""
    assert paste_checks(tmp_path, text, AR)[AR].status != "issue"
