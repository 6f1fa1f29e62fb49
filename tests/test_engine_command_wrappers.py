"""Programs that start vLLM with flags of their own, read as vLLM's command: LLaMA-Factory on its vLLM backend
(facts/engine_command.LLAMAFACTORY_PROGRAMS), whose `--vllm_*` flags become vLLM's and whose TP is the GPUs it sees.

Real text: corpus 2866 (hiyouga/LlamaFactory#4870); the other commands are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.engine_command import GPUS_SEEN, parse_command_line


def test_llamafactory_api_with_vllm_enforce_eager_true_runs_eager() -> None:
    (command,) = fact(pasted(body("2866")), "engine_commands").commands
    assert command.engine == "vllm"
    # CUDA_VISIBLE_DEVICES=0,1: LLaMA-Factory gives vLLM the two GPUs it sees as its TP.
    assert command.argv == ("src/api.py", "--model", "/home/qwen/Qwen2-7B-Instruct", "--max-model-len", "8000",
                            "--enforce-eager", "--tensor-parallel-size", "2")
    graphs = capture_checks("2866", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert graphs.status == "issue", graphs.message


def test_llamafactory_cli_flags_and_booleans() -> None:
    # Modelled on LLaMA-Factory's README (`llamafactory-cli api ... infer_backend=vllm`), in its flag forms.
    alone = parse_command_line("llamafactory-cli api --model_name_or_path Qwen/Qwen2.5-7B-Instruct --template qwen "
                               "--infer_backend vllm --vllm_enforce_eager")
    assert alone is not None and alone.argv == ("llamafactory-cli", "api", "--model", "Qwen/Qwen2.5-7B-Instruct",
                                                "--enforce-eager", "--tensor-parallel-size", GPUS_SEEN)
    off = parse_command_line("CUDA_VISIBLE_DEVICES=3 llamafactory-cli webchat --model_name_or_path m "
                             "--infer_backend=vllm --vllm_enforce_eager false --vllm_gpu_util 0.7")
    assert off is not None and off.argv == ("llamafactory-cli", "webchat", "--model", "m",
                                            "--gpu-memory-utilization", "0.7", "--tensor-parallel-size", "1")


def test_llamafactory_without_vllm_or_serving_is_no_engine() -> None:
    # Modelled: the Hugging Face backend, and training, start no vLLM engine.
    assert parse_command_line("python src/api.py --model_name_or_path m --infer_backend huggingface") is None
    assert parse_command_line("llamafactory-cli train --model_name_or_path m --infer_backend vllm") is None
    assert parse_command_line("llamafactory-cli api --model_name_or_path m --template qwen") is None


def test_a_tp_it_does_not_show_leaves_the_custom_all_reduce_open(tmp_path: Path) -> None:
    # Modelled: the line sets no CUDA_VISIBLE_DEVICES, so the TP (the GPUs it sees) is not shown.
    checks = paste_checks(tmp_path, "llamafactory-cli api --model_name_or_path m --infer_backend vllm\n",
                          "IC-CUSTOM-ALLREDUCE", "RT-CUDA-GRAPHS")
    assert checks["IC-CUSTOM-ALLREDUCE"].status == "unknown", checks["IC-CUSTOM-ALLREDUCE"].message
    assert checks["RT-CUDA-GRAPHS"].status != "issue", checks["RT-CUDA-GRAPHS"].message
