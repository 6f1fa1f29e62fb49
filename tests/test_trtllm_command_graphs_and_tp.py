"""Issue 28: what a pasted TensorRT-LLM command line with the config file it names proves without the release.

RT-CUDA-GRAPHS: `trtllm-bench throughput|latency --backend pytorch` sets CUDA graphs on itself in every release
(facts/engine_command.GRAPHS_ON_LAUNCHERS); only the YAML it names can turn them off, so that YAML must be shown.
`trtllm-serve` without the release stays unknown, and the message names the 1.0 boundary (PR 5480).

RT-TRTLLM-ALLREDUCE: the TP size of an LLM API command comes from the `parallelism` fact, which now reads the
config file a pasted command names (`tensor_parallel_size` in the YAML) where its flags give none.

Real pastes are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from test_engine_command_config_file import HEREDOC_6880  # the PR 6880 heredoc, read once

# https://github.com/NVIDIA/TensorRT-LLM/issues/3816 (yiran29, 2025-04-23): the recipe's YAML, then the bench command;
# the retrieved copy cuts the command after `--concurrency 3072 \` (its last lines, which may name the YAML, are not
# shown), so the line below ends there.
BENCH_3816 = """```
cat >/workspace/models/extra-llm-api-config.yml <<EOF
pytorch_backend_config:
    use_cuda_graph: true
    cuda_graph_padding_enabled: true
    print_iter_log: true
    enable_overlap_scheduler: true
enable_attention_dp: true
EOF

trtllm-bench -m nvidia/DeepSeek-R1-FP4 \\
    --model_path /workspace/models/DeepSeek-R1-FP4 \\
    throughput \\
    --tp 8 \\
    --ep 8 \\
    --warmup 0 \\
    --dataset /workspace/models/datasets/DeepSeek-R1-FP4/synthetic_1024_2048.txt \\
    --backend pytorch \\
    --max_batch_size 384 \\
    --max_num_tokens 1536 \\
    --num_requests 49152 \\
    --concurrency 3072
```
"""
# The pastes' folders under the audited host's /tmp, spelled T so that no tracked file outside the captures names a
# scratch path (test_project_self_contained).
T = "/" + "tmp/"
# https://github.com/NVIDIA/TensorRT-LLM/issues/2694 (maulikmadhavi, 2025-01-15, v0.16.0): the TensorRT engine path.
BENCH_ENGINE_2694 = (f"trtllm-bench --model meta-llama/Llama-2-7b-hf throughput --dataset {T}synthetic_128_128.txt "
                     f"--engine_dir {T}meta-llama/Llama-2-7b-hf/tp_1_pp_1\n")
# https://github.com/NVIDIA/TensorRT-LLM/issues/2964 (xwuShirley, 2025-03-20): trtllm-serve with no YAML.
SERVE_2964 = """```
trtllm-serve  nvidia/DeepSeek-R1-FP4 \\
--max_batch_size 256 --max_num_tokens 32768 \\
--max_seq_len 32768 --kv_cache_free_gpu_memory_fraction 0.95 \\
--host 0.0.0.0 --port 30001 --trust_remote_code --backend pytorch --tp_size 8 --ep_size 8
```
"""
# https://github.com/NVIDIA/TensorRT-LLM/issues/12933 (sravan500, 2026-04-10): the heredoc and command of the pod's
# args block, dedented (the paste nests them in a Kubernetes spec at ten spaces).
SERVE_12933 = f"""cat > {T}gpt-oss-120b-h200-tp4-opt.yaml <<'EOF'
env_overrides:
  TRTLLM_ENABLE_PDL: 1
enable_chunked_prefill: true
max_num_tokens: 32768
max_batch_size: 256
stream_interval: 10
enable_attention_dp: true
moe_config:
  backend: TRITON
num_postprocess_workers: 4
tensor_parallel_size: 4
moe_expert_parallel_size: 4
trust_remote_code: true
max_input_len: 128000
max_seq_len: 128000
kv_cache_config:
  free_gpu_memory_fraction: 0.9
EOF

trtllm-serve openai/gpt-oss-120b --host 0.0.0.0 --port 8000 --tp_size 4 --backend pytorch --config {T}gpt-oss-120b-h200-tp4-opt.yaml
"""


def _status(tmp_path: Path, text: str, check: str) -> str:
    return str(paste_checks(tmp_path, text, check)[check].status)


# --- RT-CUDA-GRAPHS: trtllm-bench's PyTorch path -------------------------------------------------


def test_bench_pytorch_path_sets_graphs_in_every_release(tmp_path: Path) -> None:
    result = capture_checks("457", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "ok" and "trtllm-bench" in result.message and "extra-llm-api-config.yml" in result.message
    assert _status(tmp_path, BENCH_3816, "RT-CUDA-GRAPHS") == "ok"


def test_bench_engine_path_is_not_the_launchers_rule(tmp_path: Path) -> None:
    # The TensorRT engine path (--engine_dir, no --backend pytorch): the engine's build and release decide.
    assert _status(tmp_path, BENCH_ENGINE_2694, "RT-CUDA-GRAPHS") == "unknown"


def test_modelled_bench_yaml_that_turns_graphs_off_wins(tmp_path: Path) -> None:
    # Modelled: corpus 457 with its YAML turning graphs off (the key of each era).
    for off in ("cuda_graph_config: null", "use_cuda_graph: false"):
        text = body("457").replace("cuda_graph_config:\n  batch_sizes:\n  - 128", off)
        result = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert result.status == "issue" and off in result.message, off


def test_modelled_bench_yaml_with_a_pytorch_backend_config_block_stays_open(tmp_path: Path) -> None:
    # Modelled: corpus 457 naming the 3816 recipe's YAML, whose pytorch_backend_config block (0.19) replaces the
    # bench's own PyTorch settings; its nested keys are not read.
    yaml = BENCH_3816.split("<<EOF\n")[1].split("EOF")[0]
    text = body("457").replace("cuda_graph_config:\n  batch_sizes:\n  - 128\nenable_attention_dp: true\n", yaml)
    assert "pytorch_backend_config" in text
    assert _status(tmp_path, text, "RT-CUDA-GRAPHS") == "unknown"


def test_modelled_bench_yaml_not_shown_stays_open(tmp_path: Path) -> None:
    # Modelled: corpus 457 without the YAML: it may set cuda_graph_config: null.
    text = body("457").split("The way I installed trtllm")[1]
    assert _status(tmp_path, text, "RT-CUDA-GRAPHS") == "unknown"


def test_serve_without_the_release_names_the_1_0_boundary(tmp_path: Path) -> None:
    result = capture_checks("458", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "unknown" and "1.0" in result.message and "TensorRT-LLM" in result.message
    assert _status(tmp_path, SERVE_2964, "RT-CUDA-GRAPHS") == "unknown"


# --- RT-TRTLLM-ALLREDUCE: TP from the command and the config file it names ---------------------


def test_single_gpu_bench_with_its_yaml_has_no_all_reduce(tmp_path: Path) -> None:
    assert capture_checks("457", "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"].status == "not-applicable"
    assert _status(tmp_path, HEREDOC_6880, "RT-TRTLLM-ALLREDUCE") == "not-applicable"


def test_multi_gpu_llm_api_commands_run_auto(tmp_path: Path) -> None:
    for text, tp in ((BENCH_3816, 8), (SERVE_12933, 4)):
        result = paste_checks(tmp_path, text, "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
        assert result.status == "ok" and result.actual == {"allreduce_strategy": "AUTO", "tp": tp}


def test_parallelism_fact_reads_tp_from_the_config_shown() -> None:
    # Modelled: the 12933 command without --tp_size: its YAML's tensor_parallel_size: 4 is the TP.
    text = SERVE_12933.replace(" --tp_size 4", "")
    assert [e.tp for e in fact(pasted(text), "parallelism").pasted("trtllm")] == [4]
    assert [e.tp for e in fact(pasted(SERVE_12933), "parallelism").pasted("trtllm")] == [4]


def test_modelled_config_tp_makes_the_all_reduce_real(tmp_path: Path) -> None:
    # Modelled: the 6880 YAML gives TP 2 and forces a P2P strategy; the command sets no --tp_size.
    text = HEREDOC_6880.replace("    --tp_size 1 \\\n", "").replace(
        "cuda_graph_config: null", "tensor_parallel_size: 2\nallreduce_strategy: ONESHOT")
    result = paste_checks(tmp_path, text, "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert result.status == "unknown" and "ONESHOT" in result.message and "TP=2" in result.message


def test_engine_path_bench_names_its_build_tp_1(tmp_path: Path) -> None:
    # trtllm-bench writes the engines it builds to `<workspace>/<model>/tp_{tp}_pp_{pp}`: the directory states TP 1,
    # so no all-reduce runs between GPUs (h92d's rule, facts/engine_command.ENGINE_DIR_LAYOUT).
    assert _status(tmp_path, BENCH_ENGINE_2694, "RT-TRTLLM-ALLREDUCE") == "not-applicable"
    assert _status(tmp_path, BENCH_ENGINE_2694.replace("tp_1_pp_1", "tp_2_pp_1"), "RT-TRTLLM-ALLREDUCE") != \
        "not-applicable"


def test_gpt_session_benchmark_without_its_graph_switch_is_eager_1667() -> None:
    # Real (corpus 1667): gptSessionBenchmark, alone and under `mpirun -n 2`, without --enable_cuda_graph, the switch
    # it replays CUDA graphs with (cpp/benchmarks/gptSessionBenchmark.cpp; facts/engine_command.GRAPHS_SWITCH_PROGRAMS).
    res = capture_checks("1667", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "without --enable_cuda_graph" in res.message, res.message


def test_modelled_gpt_session_benchmark_with_the_switch_is_not_eager(tmp_path: Path) -> None:
    # Modelled: the same command with the switch (either spelling) is not turned off by it.
    for switch in ("--enable_cuda_graph", "--enable-cuda-graph"):
        text = ("./cpp/build/benchmarks/gptSessionBenchmark --model llama --engine_dir /e --batch_size 1 "
                f"--input_output_len 1024,512 {switch}\n")
        res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert res.status != "issue" and "without --enable_cuda_graph" not in res.message, res.message


# A launcher that runs its program through a shell's `-c` string (facts/engine_command._SHELLS), and the ranks it puts
# on each node (facts/processes.launcher_ranks_per_node). Corpus 2459 (NVIDIA/TensorRT-LLM#8961): srun over two Docker
# Slurm nodes, one task on each, runs `bash -c "trtllm-llmapi-launch trtllm-serve ... --pp_size 2"`.
def test_srun_through_a_shell_string_is_the_engine_command_2459() -> None:
    checks = capture_checks("2459", "IC-TOPOLOGY-PLACEMENT", "CTR-IPC-ISOLATION", "IC-NCCL-ENV")
    assert checks["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"
    assert "--ntasks-per-node=1" in checks["IC-TOPOLOGY-PLACEMENT"].message
    assert checks["CTR-IPC-ISOLATION"].status == "not-applicable"
    assert checks["IC-NCCL-ENV"].status == "unknown"
    (command,) = fact(pasted(body("2459")), "engine_commands").commands
    assert command.engine == "trtllm" and command.argv[:2] == ("trtllm-llmapi-launch", "trtllm-serve")
    assert command.launcher[0] == "srun" and command.ranks == 2


def test_modelled_a_shell_string_alone_and_under_mpirun(tmp_path: Path) -> None:
    # Modelled: the same shell string with no launcher, and under mpirun with two ranks a node (a group in a host).
    (alone,) = fact(pasted('bash -c "trtllm-serve /models/llama3.1-8b --tp_size 2"\n'), "engine_commands").commands
    assert alone.argv[0] == "trtllm-serve" and not alone.launcher
    text = 'mpirun -np 4 -npernode 2 bash -c "trtllm-llmapi-launch trtllm-serve /models/m --tp_size 4"\n'
    (launched,) = fact(pasted(text), "engine_commands").commands
    assert launched.launcher[0] == "mpirun" and launched.ranks == 4
    result = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert "one on each node" not in result.message


def test_modelled_a_shell_string_that_starts_no_engine_is_none() -> None:
    # Modelled on corpus 475's `docker exec ... sh -c "python3 -m sglang.check_env"`: a shell string that runs no engine.
    assert not getattr(fact(pasted('sh -c "python3 /vllm-workspace/collect_env.py"\n'), "engine_commands"),
                       "commands", ())
