"""What the engine's shape implies: one GPU, one node, across nodes (issue 28, blind XE run: corpus 987-998).

- facts/parallelism.one_gpu_engine: an engine shown on one GPU (one visible device, TP 1 on its command line or in
  its log, llama.cpp's device list of one device, a host of one GPU) has no GPU group to place and no all-reduce:
  IC-TOPOLOGY-PLACEMENT, IC-CUSTOM-ALLREDUCE and RT-TRTLLM-ALLREDUCE are not applicable.
- facts/_parse.CUSTOM_AR_WORLD_SIZES: vLLM's and SGLang's custom all-reduce runs at world sizes 2, 4, 6, 8 inside one
  node, so a TP group of more than 8 GPUs never runs it: IC-CUSTOM-ALLREDUCE not applicable.
- engine/evaluate.engines_shown: the user's sentences name the engine only where no stronger source names one; a
  sentence beside a llama-server command that names vLLM names the run it is compared with, not the one shown.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

_ONE_GPU = ("IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE")

# Modelled: vLLM's engine-config line of a TP 2 run (the form of corpus 993's line 7).
VLLM_TP2_LOG = """\
INFO 05-23 12:02:05 llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='/models/llama-2-7b', speculative_config=None, tokenizer='/models/llama-2-7b', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, disable_custom_all_reduce=False, quantization=None, enforce_eager=False,
"""

# Modelled: a vLLM command whose TP size is a variable the paste does not set, on one visible device, then on two.
VLLM_ONE_DEVICE = "CUDA_VISIBLE_DEVICES=3 vllm serve /models/llama --tensor-parallel-size $TP --port 8000\n"
VLLM_TWO_DEVICES = "CUDA_VISIBLE_DEVICES=2,3 vllm serve /models/llama --tensor-parallel-size $TP --port 8000\n"

# Modelled: a llama-server command beside ggml_cuda_init's list of two devices (the form of corpus 989).
LLAMA_TWO_DEVICES = """\
./build/bin/llama-server -m /models/q8.gguf --host 0.0.0.0 --port 8080 -ngl 99

ggml_cuda_init: found 2 CUDA devices:
  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
  Device 1: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes
"""

# Modelled: the form of corpus 998's setup block, with two GPUs.
TRITON_TWO_A10 = """\
Used Image to compile the engine and run triton inference server: nvcr.io/nvidia/tritonserver:24.06-trtllm-python-py3
Used Tensorrt llm version: 0.10.0 - included in the image above
GPU name: 2 x Nvidia A10
"""

# Modelled: a vLLM command at TP 8, the largest world size custom all-reduce takes.
VLLM_TP8 = "vllm serve /models/llama --tensor-parallel-size 8 --port 8000\n"

# Modelled: the run a llama-server command is compared with, shown by its own command.
LLAMA_AND_VLLM = """\
When running the model on vLLM, token generation speed is ~ 120 tokens per second.

vllm serve Qwen/Qwen3-Coder-Next-FP8 --port 8000
./build/bin/llama-server -hf Qwen/Qwen3-Coder-Next-GGUF:Q8_0 --port 11434 -fa on
"""


def test_llama_server_on_the_one_device_ggml_found() -> None:
    """Real (capture 989, llama.cpp#19345): llama-server, `ggml_cuda_init: found 1 CUDA devices`, and `on VLLM` in the
    user's words for the run it is compared with: llama.cpp serves on one GPU and has no vLLM CUDA-graph flag."""
    r = capture_checks("989", *_ONE_GPU, "RT-CUDA-GRAPHS")
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"
    assert "found 1 CUDA device" in r["IC-TOPOLOGY-PLACEMENT"].message
    assert r["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    assert r["RT-CUDA-GRAPHS"].status == "not-applicable" and "llama.cpp" in r["RT-CUDA-GRAPHS"].message


def test_llama_server_over_two_devices_is_not_one_gpu(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, LLAMA_TWO_DEVICES, "IC-TOPOLOGY-PLACEMENT")
    assert r["IC-TOPOLOGY-PLACEMENT"].status != "not-applicable"


def test_a_shown_vllm_beside_llama_server_keeps_the_graph_check(tmp_path: Path) -> None:
    """A vLLM command shown beside the llama-server one is an engine the check judges: not `not applicable`."""
    r = paste_checks(tmp_path, LLAMA_AND_VLLM, "RT-CUDA-GRAPHS")
    assert r["RT-CUDA-GRAPHS"].status != "not-applicable"


def test_vllm_on_one_gpu() -> None:
    """Real (capture 993, vllm#5007): `CUDA_VISIBLE_DEVICES=1` on the benchmark's command line, and vLLM 0.4.2's
    engine-config line says `tensor_parallel_size=1`."""
    r = capture_checks("993", *_ONE_GPU)
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"
    assert "benchmark_throughput.py runs TP 1" in r["IC-TOPOLOGY-PLACEMENT"].message
    assert r["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_vllm_log_at_tp_1(tmp_path: Path) -> None:
    """Modelled: the engine-config line alone (capture 993's line 7 at its TP), no command line."""
    r = paste_checks(tmp_path, VLLM_TP2_LOG.replace("tensor_parallel_size=2", "tensor_parallel_size=1"),
                     "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-applicable" and "log shows TP 1" in r.message


def test_vllm_log_at_tp_2_is_a_group(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, VLLM_TP2_LOG, "IC-TOPOLOGY-PLACEMENT")
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "unknown"


def test_one_visible_device_from_an_unset_variable_is_none(tmp_path: Path) -> None:
    line = "CUDA_VISIBLE_DEVICES=$GPU_IDS vllm serve /models/llama --tensor-parallel-size $TP\n"
    assert paste_checks(tmp_path, line, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status != "not-applicable"


def test_one_visible_device(tmp_path: Path) -> None:
    """The TP size is not read (`$TP`), but CUDA_VISIBLE_DEVICES leaves the engine one GPU; two leave it a group."""
    r = paste_checks(tmp_path, VLLM_ONE_DEVICE, *_ONE_GPU)
    for check in _ONE_GPU:
        assert r[check].status == "not-applicable" and "CUDA_VISIBLE_DEVICES=3" in r[check].message, check
    r = paste_checks(tmp_path, VLLM_TWO_DEVICES, *_ONE_GPU)
    for check in _ONE_GPU:
        assert r[check].status != "not-applicable", check


def test_tritonserver_on_one_a10() -> None:
    """Real (capture 998, TensorRT-LLM#1938): `GPU name: 1 x Nvidia A10` under tritonserver: no all-reduce."""
    r = capture_checks("998", "RT-TRTLLM-ALLREDUCE", "IC-TOPOLOGY-PLACEMENT")
    assert r["RT-TRTLLM-ALLREDUCE"].status == "not-applicable" and "one GPU" in r["RT-TRTLLM-ALLREDUCE"].message
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"


def test_tritonserver_on_two_a10s(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TRITON_TWO_A10, "RT-TRTLLM-ALLREDUCE")
    assert r["RT-TRTLLM-ALLREDUCE"].status != "not-applicable"


def test_trtllm_run_without_tp_flag_is_not_tp_1() -> None:
    """Real (capture 578): `mpirun -n 4` over a built engine sets no TP flag; the engine holds its TP (4), so the
    command's missing flag is not TP 1."""
    r = capture_checks("578", "RT-TRTLLM-ALLREDUCE")
    assert r["RT-TRTLLM-ALLREDUCE"].status != "not-applicable"


def test_vllm_tp_above_eight() -> None:
    """Real (capture 987, vllm#14614: `--tensor-parallel-size 16` over a multi-node cluster; capture 765: TP 32)."""
    for capture, tp in (("987", 16), ("765", 32)):
        r = capture_checks(capture, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
        assert r.status == "not-applicable" and f"TP={tp}" in r.message and "2, 4, 6, 8" in r.message, capture


def test_vllm_tp_eight_stays_open(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, VLLM_TP8, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "unknown"


# Modelled: vLLM's benchmark script run for transformers (`--backend hf`), and one with no flag of vLLM's engine.
BENCH_HF = "python3 benchmark_throughput.py --backend hf --model /models/llama-2-7b --hf-max-batch-size 8 --gpu-memory-utilization 0.9\n"
BENCH_NO_VLLM_FLAG = "python3 benchmark_throughput.py --model /models/llama-2-7b --num-prompts 100\n"


def test_vllm_benchmark_script_after_a_glued_prompt() -> None:
    """Real (capture 993): `> root@13yper:.../benchmarks#CUDA_VISIBLE_DEVICES=1 python3
    benchmark_throughput.py ... --gpu-memory-utilization 0.95` is vLLM's engine in-process, on GPU 1; beside the
    log's `Initializing an LLM engine (v0.4.2)` its command line is judged with that version."""
    from corpus import body, fact, pasted

    commands = fact(pasted(body("993")), "engine_commands").commands
    assert [(c.engine, dict(c.env).get("CUDA_VISIBLE_DEVICES")) for c in commands] == [("vllm", "1")]
    r = capture_checks("993", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "ok" and "0.4.2" in r.message


def test_benchmark_script_of_another_backend_is_no_engine_command(tmp_path: Path) -> None:
    from stackaudit.facts.engine_command import parse_command_line

    assert parse_command_line(BENCH_HF.strip()) is None
    assert parse_command_line(BENCH_NO_VLLM_FLAG.strip()) is None
    assert parse_command_line("python3 benchmark_throughput.py --model m --tensor-parallel-size 2") is not None


def test_benchmark_command_without_version_stays_open(tmp_path: Path) -> None:
    """The command alone (no log, no collect_env) does not give the engine's version: RT-KERNEL-ARCH stays open."""
    line = "CUDA_VISIBLE_DEVICES=1 python3 benchmark_throughput.py --model /models/llama-2-7b --gpu-memory-utilization 0.95\n"
    assert paste_checks(tmp_path, line, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"].status == "unknown"


def test_checkpoint_conversion_states_the_tp() -> None:
    """Real (capture 996, TensorRT-LLM#2179): `python3 ./convert_checkpoint.py ... --tp_size=4 --pp_size=1` splits the
    checkpoint into the ranks the engine is built with: a TensorRT-LLM command at TP 4 x PP 1."""
    from corpus import body, fact, pasted

    sizes = fact(pasted(body("996")), "parallelism").engines
    assert [(e.engine, e.tp, e.pp) for e in sizes][:1] == [("trtllm", 4, 1)]


def test_conversion_beside_a_build_that_disables_custom_all_reduce() -> None:
    """Real (capture 456): a conversion sets no plugin flag, so the trtllm-build's `--use_custom_all_reduce disable`
    alone settles RT-TRTLLM-ALLREDUCE."""
    r = capture_checks("456", "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert r.status == "ok" and "disabled at build" in r.message


def test_arm_cpu_in_the_users_words() -> None:
    """Real (capture 997, TensorRT-LLM#2140): `System Im running on is Ampere One with H100 PCIe (2x H100 PCIe).` and
    `160 OCPUs, aarch64`: an Arm CPU, so the AMD Zen 5 check is not applicable."""
    r = capture_checks("997", "KVER-AMD-ZEN5")["KVER-AMD-ZEN5"]
    assert r.status == "not-applicable" and "aarch64" in r.message


def test_ampere_gpu_architecture_is_no_arm_cpu(tmp_path: Path) -> None:
    """Modelled: `Ampere` alone is NVIDIA's GPU architecture, not Ampere Computing's CPU."""
    from stackaudit.facts.system import stated_arm_cpu

    assert stated_arm_cpu("I run 2x A100 (Ampere architecture) GPUs on this server") == ""
    assert stated_arm_cpu("the arm64-v8a build") == ""
    r = paste_checks(tmp_path, "I run 2x A100 (Ampere architecture) GPUs on this server\n", "KVER-AMD-ZEN5")
    assert r["KVER-AMD-ZEN5"].status == "unknown"




def test_two_gpu_host_has_no_placement_to_choose() -> None:
    """Real (capture 997): `2x H100 PCIe on board`: any engine's group is both GPUs or one GPU alone."""
    r = capture_checks("997", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-an-issue" and "two GPUs" in r.message


def test_two_gpus_of_two_models_stay_open() -> None:
    """Real (capture 403: an A30 beside a Quadro M2000): two models keep the CUDA_DEVICE_ORDER question, so the
    two-GPU rule does not settle it."""
    r = capture_checks("403", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status != "not-an-issue"


def _runs(text: str) -> list[int | None]:
    from stackaudit.facts.engine_command import parse_engine_commands

    return [c.named_tp for c in parse_engine_commands(text).commands]


def test_engine_directories_state_their_tp() -> None:
    """EngineCommand.named_tp from the engine directory's path (ENGINE_DIR_LAYOUT), on the lines of real pastes:
    NVIDIA/TensorRT-LLM#1102 (corpus 1667: `1-gpu`, and `2-pp` under `mpirun -n 2`), #593 (the README's `tp=2/pp=1`),
    corpus 578 (`fp16_tp4`) and triton-inference-server/tensorrtllm_backend#355's `tp4pp2` name."""
    assert _runs("./cpp/build/benchmarks/gptSessionBenchmark --model llama --engine_dir examples/llama/trt-engines/"
                 "fp16/1-gpu/ --batch_size 1\nmpirun -n 2 ./cpp/build/benchmarks/gptSessionBenchmark --model llama "
                 "--engine_dir examples/llama/trt-engines/fp16/2-pp/ --batch_size 1") == [1, 1]
    assert _runs("mpirun -n 2 python3 ../run.py --max_output_len=50 --tokenizer_dir ./tmp/llama/7B/ "
                 "--engine_dir=./tmp/llama/7B/trt_engines/tp=2/pp=1/") == [2]
    assert _runs("mpirun -n 4 python3 ../run.py --engine_dir ./trt_engines/mpt-7b/fp16_tp4") == [4]
    # Modelled on #355's directory name: a run of it under its launcher's 8 ranks.
    assert _runs("mpirun -n 8 python3 run.py --engine_dir ./engine.inflight.tp4pp2.70b") == [4]


def test_a_pipeline_of_fewer_stages_than_ranks_states_no_tp() -> None:
    """Modelled: `2-pp` under 4 ranks leaves TP 2; a `2-gpu` engine (the README's TP 2 example) states no split."""
    assert _runs("mpirun -n 4 ./gptSessionBenchmark --model llama --engine_dir trt-engines/fp16/2-pp/") == [None]
    assert _runs("mpirun -n 2 python3 ../run.py --engine_dir ./tmp/llama/7B/trt_engines/fp16/2-gpu/") == [None]


def test_trtllm_pipeline_of_tp_1_runs_no_all_reduce() -> None:
    """Real (capture 1667, NVIDIA/TensorRT-LLM#1102): a one-GPU engine and a 2-stage pipeline under `mpirun -n 2`."""
    r = capture_checks("1667", "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert r.status == "not-applicable" and "2-pp" in r.message


def test_trtllm_run_of_a_tp_2_directory_stays_open(tmp_path: Path) -> None:
    """Real (NVIDIA/TensorRT-LLM#593, the README's run of a `tp=2/pp=1` engine under `mpirun -n 2`)."""
    text = ("mpirun -n 2 python3 ../run.py --max_output_len=50 --tokenizer_dir ./tmp/llama/7B/ "
            "--engine_dir=./tmp/llama/7B/trt_engines/tp=2/pp=1/\n")
    r = paste_checks(tmp_path, text, "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert r.status == "unknown", (r.status, r.message)
