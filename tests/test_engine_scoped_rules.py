"""Engine commands of llama.cpp and TensorRT-LLM 0.9, the driver stated in text, and engine-scoped applicability
(RT-TORCH-ARCH, RT-CUDA-GRAPHS, RT-TRTLLM-ALLREDUCE) on real pastes, each with a modelled counter-example."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.gpus import ollama_cuda_from_log
from stackaudit.facts.nvidia import driver_from_engine_log, driver_from_evidence_lines
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"


def _run(tmp_path: Path, text: str, *ids: str) -> dict[str, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    results = run_checks(load_pasted([str(path)]), list(ids))
    return {cid: results[cid].status for cid in ids}


def _corpus(prefix: str, *ids: str) -> dict[str, str]:
    path = next(CAPTURES.glob(f"{prefix}-*.txt"))
    results = run_checks(load_pasted([str(path)]), list(ids))
    return {cid: results[cid].status for cid in ids}


# --- engine commands ---------------------------------------------------------------------------

# https://github.com/ggml-org/llama.cpp/issues/19191 (command line section)
LLAMA_SERVER_19191 = ("llama-server --host 0.0.0.0 --port 10000 --models-dir /opt/models/ --numa numactl --models-max 1 "
                      "--sleep-idle-seconds 120 --warmup --api-key imanapikey --models-preset /opt/models/models.ini")
# https://github.com/NVIDIA/TensorRT-LLM/issues/1131 (456); the paste's folders are under the audited host's /tmp,
# spelled T below so that no tracked file outside the captures names a scratch path (test_project_self_contained).
T = "/" + "tmp/"
TRTLLM_BUILD_1131 = (f"trtllm-build --checkpoint_dir {T}tllm_checkpoint_tp2/ --output_dir {T}2tp_fp16_batch32 "
                     "--gemm_plugin float16 --max_batch_size 32 --use_custom_all_reduce disable")
RUN_PY_1131 = (f"mpirun -n 2 --allow-run-as-root python run.py --engine_dir {T}2tp_fp16_batch32/ --max_output_len=50 "
               f"--tokenizer_dir {T}llama2-7b-hf/")
# https://github.com/NVIDIA/TensorRT-LLM/issues/1826 (464)
RUN_PY_1826 = ("mpirun -n 4 --allow-run-as-root python3 run.py --engine_dir /media/llama-13b-engines-fp16-4gpu "
               "--max_output_len 1024 --tokenizer_dir /media/Llama-2-13b-hf/ --input_text \"hello\"")


def test_llama_server_under_numactl_is_an_engine_command() -> None:
    # 455: numactl's own options (`--physcpubind="..."`, `--membind=1`) are the wrapper's, not the program.
    c = parse_command_line('CUDA_VISIBLE_DEVICES="0," numactl --physcpubind="8,10, 24,26" --membind=1 '
                           "/home/ai/llama.cpp/build/bin/llama-server --model m.gguf --n-gpu-layers 99")
    assert c is not None and c.engine == "llamacpp" and c.argv[1:3] == ("--model", "m.gguf")
    assert c.env == (("CUDA_VISIBLE_DEVICES", "0,"),)
    other = parse_command_line(LLAMA_SERVER_19191)
    assert other is not None and other.engine == "llamacpp"
    taskset = parse_command_line("taskset -c 0-7 vllm serve m --tensor-parallel-size 2")
    assert taskset is not None and taskset.argv[:2] == ("vllm", "serve")


def test_trtllm_build_and_run_py_are_engine_commands() -> None:
    build = parse_command_line(TRTLLM_BUILD_1131)
    assert build is not None and build.engine == "trtllm" and build.builds
    for line in (RUN_PY_1131, RUN_PY_1826):
        run = parse_command_line(line)
        assert run is not None and run.engine == "trtllm" and not run.builds


def test_a_bare_module_name_or_another_run_py_is_no_engine_command() -> None:
    # Modelled: 455's "Which modules are affected? llama-server", and a run.py that names no built engine.
    assert parse_command_line("llama-server") is None
    assert parse_command_line("python run.py --epochs 3") is None


def test_corpus_commands_are_recognised() -> None:
    # 456: its convert_checkpoint.py line (9) too, as the capture's header labels it (engine command 9-11).
    for prefix, span in (("455", "engine command (lines 22-30)"), ("456", "engine command (lines 9-11)"),
                         ("464", "engine command (lines 1-1)")):
        path = next(CAPTURES.glob(f"{prefix}-*.txt"))
        assert span in load_pasted([str(path)]).record.meta["recognised"]


# --- the driver stated in text ------------------------------------------------------------------

# https://github.com/ollama/ollama/issues/11723
OLLAMA_11723 = ('time=2025-08-06T09:31:53.549+02:00 level=DEBUG source=gpu.go:125 msg="detected GPUs" count=2 '
                "library=/usr/lib64/libcuda.so.535.129.03")


def test_driver_from_a_hardware_list_and_ollamas_libcuda() -> None:
    assert is_evidence("driver:525.116.03")  # 456
    assert driver_from_evidence_lines("driver:525.116.03\n").version == "525.116.03"
    assert is_evidence(OLLAMA_11723)
    assert driver_from_evidence_lines(OLLAMA_11723 + "\n").version == "535.129.03"
    line_454 = ('time=2025-02-28T12:38:08.949Z level=DEBUG source=gpu.go:125 msg="detected GPUs" count=1 '
                "library=/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.16")
    assert driver_from_evidence_lines(line_454 + "\n").version == "570.86.16"


def test_libcuda_so_1_names_no_driver() -> None:
    # Modelled: the soname link carries no version, and two versions name no one driver.
    with pytest.raises(ParseError):
        driver_from_evidence_lines('msg="detected GPUs" count=1 library=/usr/lib/x86_64-linux-gnu/libcuda.so.1\n')
    with pytest.raises(ParseError):
        driver_from_evidence_lines("driver:525.116.03\n" + OLLAMA_11723 + "\n")


def test_an_engine_log_line_naming_libcuda_names_the_driver() -> None:
    # 1565: ollama's failed initialisation names the driver's library; the line is read as its server log.
    line = next(CAPTURES.glob("1565-*.txt")).read_text().splitlines()[-1]
    assert driver_from_engine_log(line + "\n").version == "575.57.08"
    assert _corpus("1565", "DRV-CUDA-COMPAT") == {"DRV-CUDA-COMPAT": "ok"}
    # Modelled: two library versions in one log name no one driver, and `libcuda.so.1` names none.
    with pytest.raises(ParseError):
        driver_from_engine_log('library=/a/libcuda.so.535.129.03\nlibrary=/b/libcuda.so.550.54.15\n')
    with pytest.raises(ParseError):
        driver_from_engine_log('msg="Unable to load cudart library /usr/lib/libcuda.so.1: init failure: 3"\n')


def test_ollamas_cuda_probe_reads_the_drivers_cuda() -> None:
    found = ollama_cuda_from_log("CUDA driver version: 12.8\ndevice count 1\n")
    assert found.driver_cuda == "12.8" and found.device_count == 1


# --- engine-scoped applicability ----------------------------------------------------------------


def test_llama_server_and_ollama_alone_have_no_pytorch(tmp_path: Path) -> None:
    assert _corpus("455", "RT-TORCH-ARCH", "RT-CUDA-GRAPHS") == {"RT-TORCH-ARCH": "not-applicable",
                                                                  "RT-CUDA-GRAPHS": "not-applicable"}
    assert _corpus("454", "RT-TORCH-ARCH") == {"RT-TORCH-ARCH": "not-applicable"}
    got = _run(tmp_path, "```shell\n" + LLAMA_SERVER_19191 + "\n```\n", "RT-TORCH-ARCH", "RT-CUDA-GRAPHS")
    assert got == {"RT-TORCH-ARCH": "not-applicable", "RT-CUDA-GRAPHS": "not-applicable"}


def test_a_pytorch_engine_beside_llama_server_keeps_the_checks_open(tmp_path: Path) -> None:
    # Modelled: a vLLM command in the same paste; the llama.cpp command says nothing of it.
    got = _run(tmp_path, LLAMA_SERVER_19191 + "\n\nvllm serve Qwen/Qwen2.5-7B-Instruct --port 8001\n",
               "RT-TORCH-ARCH", "RT-CUDA-GRAPHS")
    assert got == {"RT-TORCH-ARCH": "unknown", "RT-CUDA-GRAPHS": "unknown"}


# --- RT-TRTLLM-ALLREDUCE from pasted commands ---------------------------------------------------

# https://github.com/NVIDIA/TensorRT/issues/4501
TRTLLM_SERVE_4501 = "trtllm-serve /models/qwen3-32b_nvfp4_hf/ --host 10.0.0.2 --port 8000 --backend pytorch"
# https://github.com/triton-inference-server/tensorrtllm_backend/issues/390: a build that leaves custom all-reduce as is
TRTLLM_BUILD_390 = ("trtllm-build --checkpoint_dir /app/models/tensorrt --gemm_plugin float16 "
                    "--output_dir /app/models/tensorrt_llm/context_fmha --tp_size 2 --max_batch_size 1")


def test_trtllm_allreduce_from_pasted_commands(tmp_path: Path) -> None:
    assert _corpus("456", "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "ok"}
    assert _corpus("458", "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "ok"}
    assert _run(tmp_path, TRTLLM_SERVE_4501 + "\n", "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "not-applicable"}
    assert _run(tmp_path, TRTLLM_BUILD_390 + "\n", "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "unknown"}
    assert _corpus("464", "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "unknown"}  # its build is not shown


def test_a_config_file_not_shown_leaves_the_strategy_open(tmp_path: Path) -> None:
    # Modelled: the YAML may force ONESHOT; its contents are not in the paste.
    text = "trtllm-serve m --tp_size 4 --backend pytorch --extra_llm_api_options /etc/opts.yaml\n"
    assert _run(tmp_path, text, "RT-TRTLLM-ALLREDUCE") == {"RT-TRTLLM-ALLREDUCE": "unknown"}


# --- RT-CUDA-GRAPHS with vLLM's version from its own start-up log --------------------------------


def test_vllm_version_line_completes_a_pasted_command(tmp_path: Path) -> None:
    assert _corpus("452", "RT-CUDA-GRAPHS") == {"RT-CUDA-GRAPHS": "ok"}
    # Modelled: the same model on vLLM's module entrypoint without the log: the release is not shown and the
    # entrypoint is older than CUDA graphs, so the whole command reads ok with 0.2.6 named as the caveat (h73b; `vllm
    # serve` itself shows 0.5 or later: GRAPHS_DEFAULT_MARKS). A vLLM stats line of 0.1.4-0.2.7 keeps it open.
    text = "python -m vllm.entrypoints.openai.api_server --model /models/Qwen2.5-VL-72B-Instruct --tensor-parallel-size 4\n"
    assert _run(tmp_path, text, "RT-CUDA-GRAPHS") == {"RT-CUDA-GRAPHS": "ok"}
    stats = ("INFO 09-10 12:13:24 llm_engine.py:613] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
             "0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.5%\n")
    assert _run(tmp_path, text + stats, "RT-CUDA-GRAPHS") == {"RT-CUDA-GRAPHS": "unknown"}
