"""Issue 28 (recognition): four shapes of paste from the blind batches YA and YB that the readers now read.

- A vLLM collect_env whose line breaks were lost (several `Field: value` pairs on one line, corpus 1254) is the
  report: split back on torch's collect_env field names (facts/collect_env.unflatten_collect_env); a line with one
  field, whose value names another, stays as it is.
- An engine command after a command that sets the shell up (`conda activate lmdeploy && lmdeploy serve ...`, corpus
  1251) is read (facts/_parse.sequenced_commands); an `export` before it puts its variable in the command's env.
- TensorRT-LLM's engine builder before trtllm-build (`python3 examples/llama/build.py ...`, only with a flag of its
  own) and its C++ benchmarks of a built engine (`gptManagerBenchmark`, `gptSessionBenchmark` with `--engine_dir`)
  are engine commands (corpus 1262); builds for one GPU whose engines the runs run make RT-TRTLLM-ALLREDUCE
  not applicable, a build with `--world_size 2` does not.
- A `kubectl get pods` table with blank lines between its rows (corpus 1267) is one table.

Real pastes come from the corpus files named; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.collect_env import parse_collect_env, unflatten_collect_env
from stackaudit.facts.engine_command import built_for_one_gpu, parse_command_line
from stackaudit.facts.k8s_pods import parse_k8s_pods, table_end
from stackaudit.importers.recognition import recognise


def _kinds(text: str, kind: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == kind]


# --- a flattened collect_env (corpus 1254) ---------------------------------------------------------------------


def test_corpus_1254_flattened_collect_env_is_read_as_the_report() -> None:
    assert _kinds(body("1254"), "collect_env") == [("collect_env", 5, 9)]
    report = parse_collect_env("\n".join(body("1254").splitlines()[4:9]))
    assert (report.tool, report.torch_version, report.torch_cuda) == ("vllm", "2.2.1+cu121", "12.1")
    assert report.driver_version == "550.54.15"
    assert report.gpu_models == ("NVIDIA H100 80GB HBM3",) * 8
    assert report.cuda_runtime == "12.4.131" and report.kernel == "5.15.0-102-generic"


def test_corpus_1254_verdicts_from_the_flattened_report() -> None:
    results = capture_checks("1254", "DRV-CUDA-COMPAT", "RT-TORCH-ARCH")
    assert results["DRV-CUDA-COMPAT"].status == "ok"
    assert results["RT-TORCH-ARCH"].status == "ok"


def test_a_line_of_one_field_is_not_split() -> None:
    # Modelled: one field whose value holds GPU entries stays one line (the GPU list is read from it as before).
    line = "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB"
    assert unflatten_collect_env(line) == [line]
    assert unflatten_collect_env("Python version: 3.10.14 (main, Mar 21 2024) [GCC 11.2.0] (64-bit runtime)") == [
        "Python version: 3.10.14 (main, Mar 21 2024) [GCC 11.2.0] (64-bit runtime)"]


def test_a_flattened_run_splits_at_fields_gpus_and_packages() -> None:
    # Modelled on corpus 1254's lines, with a package list run together too.
    assert unflatten_collect_env("Collecting environment information... PyTorch version: 2.2.1+cu121 "
                                 "Is debug build: False") == [
        "Collecting environment information...", "PyTorch version: 2.2.1+cu121", "Is debug build: False"]
    assert unflatten_collect_env("Is CUDA available: True GPU models and configuration: GPU 0: NVIDIA H100 "
                                 "GPU 1: NVIDIA H100 Nvidia driver version: 550.54.15") == [
        "Is CUDA available: True", "GPU models and configuration:", "GPU 0: NVIDIA H100", "GPU 1: NVIDIA H100",
        "Nvidia driver version: 550.54.15"]
    assert unflatten_collect_env("Versions of relevant libraries: [pip3] numpy==1.26.4 [pip3] torch==2.2.1 "
                                 "vLLM Version: 0.5.0") == [
        "Versions of relevant libraries:", "[pip3] numpy==1.26.4", "[pip3] torch==2.2.1", "vLLM Version: 0.5.0"]


# --- an engine command after `&&` (corpus 1251) -----------------------------------------------------------------


def test_corpus_1251_command_after_conda_activate_is_read() -> None:
    assert _kinds(body("1251"), "engine command") == [("engine command", 11, 11)]
    command = parse_command_line(body("1251").splitlines()[10])
    assert command is not None and command.engine == "lmdeploy"
    assert command.argv[:3] == ("lmdeploy", "serve", "api_server")
    assert command.as_process().flag("--backend") == "turbomind"


def test_sequenced_commands_export_and_setup() -> None:
    # Modelled: `cd` with a glued `;`, an export before the engine, an engine first with a command after it.
    command = parse_command_line("cd /srv; export NCCL_P2P_DISABLE=1 && vllm serve m --tensor-parallel-size 2")
    assert command is not None and command.engine == "vllm"
    assert command.argv == ("vllm", "serve", "m", "--tensor-parallel-size", "2")
    assert command.env == (("NCCL_P2P_DISABLE", "1"),)
    first = parse_command_line("vllm serve m --tp 2 && echo done")
    assert first is not None and first.argv == ("vllm", "serve", "m", "--tp", "2")
    # Modelled: a line whose later command starts no engine is none.
    assert parse_command_line("conda activate vllm && pip list | grep vllm") is None


# --- TensorRT-LLM's build.py and C++ benchmarks (corpus 1262) ----------------------------------------------------


def test_corpus_1262_builds_and_benchmarks_are_engine_commands() -> None:
    assert [(a, b) for _, a, b in _kinds(body("1262"), "engine command")] == [(4, 4), (6, 6), (11, 11), (13, 13),
                                                                              (18, 18)]
    lines = body("1262").splitlines()
    build = parse_command_line(lines[3].strip("`"))
    bench = parse_command_line(lines[5].strip("`"))
    assert build is not None and build.builds and build.engine == "trtllm" and build.built_world_size == 1
    assert build.engine_dir == "examples/llama/out/7b/fp16_1gpu"
    assert bench is not None and not bench.builds and bench.engine == "trtllm"
    assert bench.engine_dir == "../../examples/llama/out/7b/fp16_1gpu"
    assert built_for_one_gpu([build, bench])


def test_corpus_1262_allreduce_not_applicable_on_one_gpu_builds() -> None:
    result = capture_checks("1262", "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert result.status == "not-applicable"
    assert "build.py for one GPU" in result.message


def test_a_build_py_of_another_project_is_no_command() -> None:
    # Modelled: a generic build.py without a TensorRT-LLM builder flag.
    assert parse_command_line("python3 build.py --model_dir m --output_dir out") is None


def test_a_build_for_two_gpus_leaves_allreduce_open(tmp_path: Path) -> None:
    # Modelled on corpus 1262: the same build for two GPUs, run under mpirun.
    text = ("`python3 examples/llama/build.py --model_dir m --dtype float16 --use_gpt_attention_plugin float16 "
            "--world_size 2 --tp_size 2 --output_dir out/fp16_2gpu`\n\n"
            "`mpirun -n 2 ./benchmarks/gptManagerBenchmark --model llama --engine_dir out/fp16_2gpu/ --type IFB`\n")
    build = parse_command_line(text.splitlines()[0].strip("`"))
    assert build is not None and build.built_world_size == 2
    result = paste_checks(tmp_path, text, "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert result.status != "not-applicable"


def test_a_run_of_an_engine_not_built_in_the_paste_leaves_allreduce_open(tmp_path: Path) -> None:
    # Modelled: a one-GPU build, and a run of another engine directory.
    text = ("`python3 examples/llama/build.py --model_dir m --use_gemm_plugin float16 --output_dir out/fp16_1gpu`\n\n"
            "`./benchmarks/gptSessionBenchmark --model llama --engine_dir out/fp16_4gpu/ --batch_size 1`\n")
    result = paste_checks(tmp_path, text, "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"]
    assert result.status == "unknown"


# --- a pod table with blank lines between its rows (corpus 1267) -------------------------------------------------


def test_corpus_1267_pod_table_with_blank_lines_is_one_table() -> None:
    lines = body("1267").splitlines()
    assert table_end(lines, 1) == 8  # the header (2) to the last row (8), the blank lines between passed over
    assert _kinds(body("1267"), "k8s pod listing") == [("k8s pod listing", 2, 8)]
    pods = parse_k8s_pods("\n".join(lines[1:8])).pods
    assert [(p.name, p.status) for p in pods][-1] == ("nvidia-device-plugin-9p462", "Error")
    assert len(pods) == 4


def test_a_table_ends_after_more_blank_lines_than_a_gap() -> None:
    # Modelled: a row three blank lines under the table is not the table's.
    lines = ["NAME   READY   STATUS    RESTARTS   AGE", "a-1    1/1     Running   0          1m", "", "", "",
             "b-2    1/1     Running   0          1m"]
    assert table_end(lines, 0) == 2
