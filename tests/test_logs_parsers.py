"""Server and NCCL log parsing (facts/serving_logs.py) and the log importer (importers/logs.py).

The log lines follow the texts in vLLM's custom_all_reduce.py / all_reduce_utils.py, SGLang's
scheduler log format, and NCCL INFO lines as posted in NVIDIA/nccl issues (#952, #429, #527).
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus import capture_report, capture_result, report_spans
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.serving_logs import (
    AR_NO_P2P,
    AR_PCIE_ONLY,
    is_log_line,
    parse_nccl_conf,
    parse_p2p_cache,
    parse_serving_log,
)
from stackaudit.facts.sources import ENGINE_LOG
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise

VLLM_TP4_PCIE = """\
INFO 05-02 07:53:40 [__init__.py:239] Automatically detected platform cuda.
INFO 05-02 07:53:44 [api_server.py:1043] vLLM API server version 0.8.5
INFO 05-02 07:53:52 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5) with config: model='Qwen/Qwen3-235B-A22B-FP8', speculative_config=None, tokenizer='Qwen/Qwen3-235B-A22B-FP8', tensor_parallel_size=4, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=fp8, enforce_eager=False, seed=0
(VllmWorkerProcess pid=1410771) INFO 05-02 07:54:18 [pynccl.py:69] vLLM is using nccl==2.21.5
INFO 05-02 07:54:18 [pynccl.py:69] vLLM is using nccl==2.21.5
gpu-node:1410768:1410768 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
gpu-node:1410768:1410768 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1
gpu-node:1410768:1411002 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct
gpu-node:1410769:1411003 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via SHM/direct/direct
gpu-node:1410770:1411004 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via SHM/direct/direct
gpu-node:1410768:1410768 [0] NCCL INFO cuMem host allocations do not appear to be working; falling back to a /dev/shm/ based implementation. This could be due to the container runtime disabling NUMA support. To disable this warning, set NCCL_CUMEM_HOST_ENABLE=0
(VllmWorkerProcess pid=1410769) WARNING 05-02 07:54:19 [custom_all_reduce.py:136] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
WARNING 05-02 07:54:19 [custom_all_reduce.py:136] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.
INFO 05-02 07:55:31 [model_runner.py:1450] Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static.
INFO 05-02 07:55:31 [model_runner.py:1454] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or switching to eager mode.
INFO 05-02 07:55:49 [model_runner.py:1592] Graph capturing finished in 18 secs, took 0.61 GiB
"""

VLLM_TP2_P2P_FAIL = """\
INFO 08-12 10:01:02 [core.py:58] Initializing a V1 LLM engine (v0.10.0) with config: model='meta-llama/Llama-3.1-8B-Instruct', tensor_parallel_size=2, enforce_eager=True, disable_custom_all_reduce=False
(VllmWorker rank=0 pid=2101) INFO 08-12 10:01:20 [all_reduce_utils.py:240] generating GPU P2P access cache in /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json
(VllmWorker rank=0 pid=2101) INFO 08-12 10:01:24 [all_reduce_utils.py:260] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json
(VllmWorker rank=0 pid=2101) WARNING 08-12 10:01:24 [custom_all_reduce.py:147] Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.
"""

SGLANG_LOG = """\
[2025-03-03 18:40:01] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, disable_cuda_graph=False, disable_custom_all_reduce=False, enable_p2p_check=False)
[2025-03-03 18:46:44 TP3] Capture cuda graph begin. This can take up to several minutes.
[2025-03-03 18:47:31 TP3] Capture cuda graph end. Time elapsed: 47.12 s
"""

NCCL_MULTI_NODE_IB = """\
machine-1:16194:18586 [6] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>
machine-1:16194:18586 [6] NCCL INFO Channel 03 : 7[b2000] -> 14[b1000] [receive] via NET/IB/0/GDRDMA
machine-2:41626:45225 [7] NCCL INFO Channel 03 : 7[b2000] -> 14[b1000] [send] via NET/IB/0/GDRDMA
machine-2:41626:45219 [1] NCCL INFO Channel 02 : 1[1b000] -> 0[1a000] via P2P/direct pointer
"""


def test_vllm_pcie_tp4_log() -> None:
    log = parse_serving_log(VLLM_TP4_PCIE)
    assert log.engine == "vllm" and log.tp_size == 4 and log.nccl_version == "2.21.5"
    assert [r for r, _ in log.custom_ar_disabled] == [AR_PCIE_ONLY, AR_PCIE_ONLY]
    assert log.transports() == {"SHM"} and log.channels[0].src == 0 and log.channels[0].dst == 1
    assert log.nccl_env == {"NCCL_P2P_DISABLE": "1"} and log.cumem_fallback and log.cuda_graphs == "captured"
    assert log.disable_custom_all_reduce is False and log.nccl_hosts == ("gpu-node",) and not log.multi_host


def test_vllm_p2p_failure_and_eager() -> None:
    log = parse_serving_log(VLLM_TP2_P2P_FAIL)
    assert log.custom_ar_disabled[0][0] == AR_NO_P2P and log.p2p_cache_generated
    assert log.p2p_cache_paths[0].endswith("gpu_p2p_access_cache_for_0,1.json") and log.cuda_graphs == "eager"


def test_sglang_log() -> None:
    log = parse_serving_log(SGLANG_LOG)
    assert log.engine == "sglang" and log.tp_size == 8 and log.cuda_graphs == "captured"


def test_nccl_multi_node_ib() -> None:
    log = parse_serving_log(NCCL_MULTI_NODE_IB)
    assert log.multi_host and all(c.detail.startswith("IB") and c.gdr for c in log.channels if c.transport == "NET")
    assert {c.transport for c in log.channels} == {"NET", "P2P"} and log.channels[-1].detail == "direct pointer"


def test_nccl_hosts_behind_worker_and_rank_prefixes() -> None:
    """Ray/vLLM worker prefixes and mpirun rank tags before `host:pid:tid [dev] NCCL` (nccl#1232, #1672)."""
    text = ("(RayWorkerWrapper pid=3569860, ip=10.0.0.2) node-a:3569860:3571297 [0] NCCL INFO Channel 08/0 : "
            "0[0] -> 1[1] via P2P/IPC\n"
            "(VllmWorker rank=1 pid=2102) node-a:2102:2210 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC\n"
            "[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0\n")
    log = parse_serving_log(text)
    assert log.nccl_hosts == ("node-a", "node2") and log.multi_host
    assert [c.host for c in log.channels] == ["node-a", "node-a", "node2"]


def test_not_a_log() -> None:
    for text in ("", "hello", "PyTorch version: 2.3.0"):
        try:
            parse_serving_log(text)
        except ParseError:
            continue
        raise AssertionError(f"parsed {text!r}")
    assert not is_log_line("Architecture: x86_64") and is_log_line("[2025-01-01 00:00:00 TP0] hello")


def test_p2p_cache_and_nccl_conf() -> None:
    assert parse_p2p_cache('{"0->0": true, "0->1": false}') == {"0->0": True, "0->1": False}
    for bad in ("[]", "{}", '{"a": 1}', "nope"):
        try:
            parse_p2p_cache(bad)
        except ParseError:
            continue
        raise AssertionError(bad)
    assert parse_nccl_conf("# comment\nNCCL_P2P_DISABLE=1\nNCCL_DEBUG = INFO # x\n") == {
        "NCCL_P2P_DISABLE": "1", "NCCL_DEBUG": "INFO"}


def test_importer_appends_scattered_log_spans_in_order() -> None:
    text = ("My server fails:\n```\n" + VLLM_TP2_P2P_FAIL + "```\nand NCCL said\n" + NCCL_MULTI_NODE_IB + "\nthe cache:\n"
            "$ cat ~/.cache/vllm/gpu_p2p_access_cache_for_0,1.json\n{\n    \"0->0\": true,\n    \"0->1\": false,\n"
            "    \"1->0\": false,\n    \"1->1\": true\n}\n")
    result = recognise(text)
    log = result.record.docs[ENGINE_LOG.name]
    assert log.index("generating GPU P2P") < log.index("NET/IB : Using")
    cache = result.record.files["/root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json"].decode()
    assert parse_p2p_cache(cache)["0->1"] is False
    host = MemoryHost(result.record)
    r = run_checks(host, ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue" and "0->1" in r.message


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400) | st.lists(st.sampled_from([
    "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Custom allreduce is disabled because x", "\n",
    "INFO 05-02 07:53:40 [x.py:1] ", "tensor_parallel_size=", "enforce_eager=True", "[2025-01-01 00:00:00 TP0] ",
    "NCCL_P2P_DISABLE set by environment to ", "1", "NET/IB : Using", "reading GPU P2P access cache from a.json"]),
    max_size=30).map("".join))
def test_log_parser_never_crashes(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_serving_log(text)


# vLLM's `non-default args` dict (noonghunna/club-3090#127, a TP4 3090 host; LMCache/LMCache#2522) and its V0
# engine-config line as 0.7.3 to 0.10 print it (corpus 1935, 1887: "Initializing a V0 LLM engine").
ARGS_NO_GRAPH_KEY = (
    "(APIServer pid=1) INFO 05-14 00:00:10 [utils.py:240] non-default args: {'model_tag': 'qwen3.6-27b', 'host': "
    "'0.0.0.0', 'model': 'qwen3.6-27b', 'tensor_parallel_size': 4, 'disable_custom_all_reduce': True, 'max_num_seqs':"
    " 4, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}\n")
ARGS_EAGER = (
    "(APIServer pid=1) INFO 02-01 23:01:25 [utils.py:250] non-default args: {'model_tag': 'meta-llama/Llama-3.2-1B-"
    "Instruct', 'api_server_count': 1, 'model': 'meta-llama/Llama-3.2-1B-Instruct', 'max_model_len': 1024, "
    "'enforce_eager': True, 'load_format': 'dummy', 'gpu_memory_utilization': 0.35}\n")
V0_CONFIG = ("INFO 04-11 12:37:49 [llm_engine.py:242] Initializing a V0 LLM engine (v0.8.3) with config: "
             "model='OPEA/Mistral-Small', tensor_parallel_size=1, pipeline_parallel_size=1, "
             "disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager={}, kv_cache_dtype=auto\n")


def test_vllm_non_default_args_settle_graphs() -> None:
    assert parse_serving_log(ARGS_NO_GRAPH_KEY).cuda_graphs == "defaults"
    assert parse_serving_log(ARGS_EAGER).cuda_graphs == "eager"
    # Modelled: a capture-size key, data parallelism (vLLM forced eager under it, corpus 67) or a dict cut
    # before its closing brace leave the state open.
    for args in ("{'model': 'm', 'max_cudagraph_capture_size': 4}", "{'model': 'm', 'data_parallel_size': 2}",
                 "{'model': 'm', 'speculative_config': {'method': 'mtp'"):
        assert parse_serving_log(f"INFO 05-14 00:00:10 [utils.py:240] non-default args: {args}\n").cuda_graphs == ""
    # vLLM's own override later in the log wins.
    forced = ARGS_NO_GRAPH_KEY + ("INFO 05-26 03:09:25 [cuda.py:98] Data Parallel: Forcing enforce eager to be True "
                                  "since DP is currently not supported with CUDA Graphs.\n")
    assert parse_serving_log(forced).cuda_graphs == "eager"
    r = run_checks(MemoryHost(recognise(ARGS_NO_GRAPH_KEY).record), ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"]
    assert r.status == "ok" and "non-default args" in r.message


def test_vllm_v0_engine_config_line() -> None:
    assert parse_serving_log(V0_CONFIG.format("False")).cuda_graphs == "configured"
    assert parse_serving_log(V0_CONFIG.format("True")).cuda_graphs == "eager"


# The tail of vLLM V0's engine-config line (v0.7.2), cut before its enforce_eager, as corpus 2240 holds it (shortened).
V0_TAIL = (' mm_processor_kwargs=None, pooler_config=None, compilation_config={{"splitting_ops":[],"compile_sizes":[],'
           '"cudagraph_capture_sizes":[{}],"max_capture_size":{}}}, use_cached_outputs=True, \n'
           "INFO 03-26 05:25:01 cuda.py:230] Using Flash Attention backend.\n")


def test_vllm_v0_capture_sizes_settle_graphs() -> None:
    # Corpus 2240: V0 fills its capture sizes only with eager mode off (vllm/config.py _set_cudagraph_sizes, 0.7.2).
    r = capture_result("2240", "RT-CUDA-GRAPHS")
    assert r.status == "ok" and "capture sizes" in r.message, r.message
    assert "cudagraph_capture_sizes" in r.evidence[0]
    assert parse_serving_log(V0_TAIL.format("256,248,8,4,2,1", 256)).cuda_graphs == "configured"
    # Corpus 1887 (v0.7.3, enforce_eager=True): the same line lists no size, and the check's issue stands.
    assert capture_result("1887", "RT-CUDA-GRAPHS").status == "issue"
    # Modelled counter-examples: an empty list, a user's list overriding the model runner's empty one, vLLM's CPU
    # platform falling back to eager mode after the list was filled, and a line without V0's tail (a V1 line, whose
    # graphs hang on more than eager mode).
    assert parse_serving_log(V0_TAIL.format("", 0)).cuda_graphs == ""
    overridden = ("INFO 03-26 05:24:50 config.py:2992] cudagraph sizes specified by model runner [] is overridden by "
                  "config [4, 2, 1]\n" + V0_TAIL.format("4,2,1", 4))
    assert parse_serving_log(overridden).cuda_graphs == ""
    on_cpu = ("WARNING 03-26 05:24:50 cpu.py:66] CUDA graph is not supported on CPU, fallback to the eager mode.\n"
              + V0_TAIL.format("4,2,1", 4))
    assert parse_serving_log(on_cpu).cuda_graphs == ""
    assert parse_serving_log(V0_TAIL.format("4,2,1", 4).replace("use_cached_outputs=True, ", "")).cuda_graphs == ""


# vLLM V1's engine-config line, shortened from real pastes: containers/ramalama#912 (v0.8.3.dev, graphs forced on),
# huggingface/trl#3310 (v0.8.3, enforce_eager=True), vllm-project/vllm#20118 (v0.9.1) and #22265 (v0.10.2.dev),
# both cut before their graph setting; corpus 2141 (v0.8.1, cut inside `"use_c`).
V1_CONFIG = ("(EngineCore_0 pid=269) INFO 04-04 16:30:36 [core.py:61] Initializing a V1 LLM engine ({}) with config: "
             "model='google/gemma-3-1b-it', tensor_parallel_size=1, pipeline_parallel_size=1, "
             "disable_custom_all_reduce=False, quantization=None, enforce_eager={}, kv_cache_dtype=auto, "
             'compilation_config={{"level":3,"custom_ops":["none"],"use_inductor":true,"compile_sizes":[],{}\n')


@pytest.mark.parametrize(("version", "eager", "tail", "want"), [
    ("v0.8.3.dev244+g8b3a4a17e", "False", '"use_cudagraph":true,"cudagraph_num_of_warmups":1', "configured"),
    ("v0.8.1", "False", '"use_c', "configured"),  # before 0.9 V1 forces use_cudagraph on itself
    ("v0.8.3", "True", '"max_capture_size":0}', "eager"),
    ("v0.9.1", "False", '"use_c', ""),  # from 0.9 the user's use_cudagraph stands: cut before it, open
    ("v0.10.2.dev2+gf5635d62e.d20250805", "False", '"inductor_compile_config":{"enable_a', ""),
    ("v0.9.1", "False", '"use_cudagraph":false,"cudagraph_num_of_warmups":1', "eager"),  # modelled
])
def test_vllm_v1_engine_config_line(version: str, eager: str, tail: str, want: str) -> None:
    assert parse_serving_log(V1_CONFIG.format(version, eager, tail)).cuda_graphs == want


@pytest.mark.parametrize("line", [
    # corpus 2007 (vllm#8830's paste): the worker's tag cut before its `(`.
    "VllmWorkerProcess pid=214) ERROR 09-27 05:20:38 multiproc_worker_utils.py:233] Exception in worker",
    # corpus 2056 (sglang#8547's paste): a worker's line cut after its timestamp.
    "(VllmWorker rank=0 pid=401) INFO 07-29 11:31:40",
    # vllm#27067: two tags, whole.
    "(EngineCore_DP0 pid=200073) (Worker_PP3 pid=200085) ERROR 10-17 02:19:27 [multiproc_executor.py:654] x",
])
def test_vllm_worker_lines_cut_at_either_end_are_log_lines(line: str) -> None:
    assert is_log_line(line)


@pytest.mark.parametrize("line", [
    "(base) user@host:~$ INFO 07-29 11:31:40",  # modelled: a prompt, no pid tag
    "(VllmWorker rank=0 pid=401) see the log",  # modelled: no level and time
])
def test_a_tag_without_vllm_level_and_time_is_no_log_line(line: str) -> None:
    assert not is_log_line(line)


def test_vllms_memory_profiling_assertion_is_its_log_line() -> None:
    # Corpus 2736 (Project-HAMi/HAMi#1381): vLLM 0.9.2's assertion pasted bare in a fence is read as vLLM's log.
    assert ("server log", 5, 5) in report_spans(capture_report("2736"))
    # vLLM 0.4's wording of the same assertion (vllm/worker/worker.py, modelled).
    assert is_log_line("AssertionError: Error in memory profiling. This happens when the GPU memory was not properly "
                       "cleaned up before initializing the vLLM instance.")
    # Modelled counter-example: the words in a user's sentence are no log line.
    assert not is_log_line("I get an error in memory profiling. Initial free memory looks fine to me.")
