"""RT-CUDA-GRAPHS on a whole vLLM or SGLang command with no eager-mode flag whose release the paste does not show (h73b).

The blind readings of that shape were counted (tests/data/corpus_gaps.toml, 884 and 1611): ok 6 times (684, 1068, 1444,
1640, 1643, 1664), unknown twice (884, 1611), each unknown on text outside the capture. The tool follows the majority:
`ok`, naming what the command shows and the caveat, the release from which the engine captures graphs by default
(facts/engine_command.GRAPHS_DEFAULT_SINCE: vLLM 0.2.6, SGLang July 2024). Counter-cases with a positive reason for
doubt stay `unknown`: SGLang's `--enable-mla` before sgl-project/sglang#1401 (1068), a command cut at `\\`, another
engine whose release is open (LMDeploy, 1403), and a vLLM log whose stats line is in llm_engine.py's format of 0.1.4
to 0.2.7 (facts/serving_logs.VLLM_2023_STATS), releases most of which had no graphs.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: https://github.com/vllm-project/vllm/issues/9290 (2024-10), the server command as posted (verbatim; the
# sentence above it names a source build by commit, which no fact reads).
VLLM_9290 = """Server command:\x20
```
 python3         -m vllm.entrypoints.openai.api_server         -tp 4         --model ~/models/Meta-Llama-3-70B-Instruct         --port 8000         --disable-log-stats  --disable-log-requests  --gpu-memory-utilization 0.941 --max-num-seqs 512 --dtype bfloat16 --num-scheduler-steps 16 --multi-step-stream-outputs true
```
"""

# Real: https://github.com/sgl-project/sglang/issues/998 (2024-08-09), the environment list and both launch commands
# (verbatim).
SGLANG_998 = """my environment：
gpu:4090*1
cuda:12.4
Python:3.11.0
vllm:0.5.3
sglang:0.2.7

launch command:
`python -m vllm.entrypoints.openai.api_server --model /home/modeldata/Qwen2-1.5B-Instruct --port 8899`
`python -m sglang.launch_server --model-path /home/modeldata/Qwen2-1.5B-Instruct --host 0.0.0.0 --port 30000`
"""

# Real: https://github.com/vllm-project/vllm/issues/1003 (2023-09-10): the command and the first stats line, verbatim
# (the request JSON and the 'Received request' line between them left out). vLLM of September 2023 (0.1.x) had no CUDA
# graphs; the stats line's llm_engine.py format is what the capture shows of that.
VLLM_1003 = """I am using OpenAI API\x20

python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen-7B --host 0.0.0.0 --port 8001 --trust-remote-code

INFO 09-10 12:13:24 llm_engine.py:613] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.5%, CPU KV cache usage: 0.0%
"""


def test_corpus_whole_vllm_commands_without_a_release_read_ok() -> None:
    # 684 (the user's quoted stats lines carry no llm_engine.py prefix), 1643 (collect_env box holding only the
    # command).
    for name in ("684", "1643"):
        res = capture_checks(name, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert res.status == "ok" and "0.2.6" in res.message and "not in the source" in res.message, (name,
                                                                                                        res.message)
    # 1664's list line `vLLM 0.2.7` is read as the release since h73c: the same ok, with the release named.
    res = capture_checks("1664", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "vLLM 0.2.7" in res.message, res.message


def test_corpus_counter_cases_keep_unknown() -> None:
    res = capture_checks("1068", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "--enable-mla" in res.message, res.message
    res = capture_checks("1403", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]  # an LMDeploy command, no vLLM command
    assert res.status == "unknown", res.message


def test_real_9290_source_build_command_reads_ok(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, VLLM_9290, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "vllm-project/vllm#1926" in res.message, res.message


def test_real_998_two_engines_without_eager_flags_read_ok(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, SGLANG_998, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok", res.message


def test_real_1003_stats_line_of_2023_keeps_unknown(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, VLLM_1003, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "0.1.4 to 0.2.7" in res.message and "llm_engine.py:613" in res.message, \
        res.message


def test_modelled_cut_command_and_eager_flag_are_unchanged(tmp_path: Path) -> None:
    # Modelled: the same command cut at `\\` stays unknown; with --enforce-eager it is the issue.
    cut = "python -m vllm.entrypoints.openai.api_server --model m \\\n"
    res = paste_checks(tmp_path, cut, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "ends in" in res.message, res.message
    eager = "python -m vllm.entrypoints.openai.api_server --model m --enforce-eager\n"
    assert paste_checks(tmp_path, eager, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


# vLLM turns CUDA graphs off itself where data parallelism runs DeepEP's high-throughput kernels (checks/rt.py
# _deepep_ht_under_dp). Corpus 2456 (vllm-project/vllm#22886): the backend is set on the line, DP 16 from a variable.
def test_deepep_high_throughput_under_data_parallelism_turns_graphs_off() -> None:
    result = capture_checks("2456", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "issue", result.message
    assert "VLLM_ALL2ALL_BACKEND=deepep_high_throughput with --data-parallel-size 16" in result.message


# Modelled: the flag form, and its counter-examples (the low-latency kernels, no data parallelism).
_DEEPEP = ("vllm serve deepseek-ai/DeepSeek-V2-Lite --tensor-parallel-size 1 --enable-expert-parallel "
           "--data-parallel-size {dp} --all2all-backend {backend}\n")


def test_the_all2all_backend_flag_under_data_parallelism_turns_graphs_off(tmp_path: Path) -> None:
    text = _DEEPEP.format(dp=8, backend="deepep_high_throughput")
    result = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "issue" and "--all2all-backend deepep_high_throughput" in result.message


def test_low_latency_kernels_or_one_rank_keep_graphs(tmp_path: Path) -> None:
    for dp, backend in ((8, "deepep_low_latency"), (1, "deepep_high_throughput")):
        text = _DEEPEP.format(dp=dp, backend=backend)
        result = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert result.status != "issue" and "DeepEP" not in result.message, (dp, backend, result.message)
