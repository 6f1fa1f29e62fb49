"""Programs that start vLLM with settings of their own: LLaMA-Factory on its vLLM backend
(facts/engine_command.LLAMAFACTORY_PROGRAMS), whose `--vllm_*` flags become vLLM's and whose TP is the GPUs it sees,
and NVIDIA Dynamo's `dynamo serve`, whose resolved service config in its log gives each vLLM worker vLLM's own flags
(facts/serving_logs.dynamo_workers).

Real text: corpus 2866 (hiyouga/LlamaFactory#4870), 2873 (ai-dynamo/dynamo#1405), 2875 (ai-dynamo/dynamo#1229); the
other texts are modelled and say so.
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


# Modelled on corpus 2873's config line (Dynamo's log format), its VllmWorker's settings varied.
_DYNAMO = ("/workspace/examples/llm# dynamo serve graphs.agg:Frontend -f configs/agg.yaml\n"
           "2025-06-05T18:11:26.327Z  INFO utils.resolve_service_config: Running dynamo serve with config: "
           "{'Common': {'model': '/models/m', 'block-size': 64, 'max-model-len': 16384}, "
           "'Frontend': {'served_model_name': 'm', 'endpoint': 'dynamo.Processor.chat/completions', 'port': 8000}, "
           "'VllmWorker': {WORKER, 'ServiceArgs': {'workers': 1, 'resources': {'gpu': '4'}}, "
           "'common-configs': ['model', 'block-size', 'max-model-len']}}\n")


def _dynamo(tmp_path: Path, worker: str) -> dict[str, object]:
    return paste_checks(tmp_path, _DYNAMO.replace("WORKER", worker), "RT-CUDA-GRAPHS", "CTR-IPC-ISOLATION")


def test_dynamo_serve_config_with_enforce_eager_runs_eager() -> None:
    checks = capture_checks("2873", "RT-CUDA-GRAPHS", "CTR-IPC-ISOLATION", "IC-CUSTOM-ALLREDUCE")
    assert checks["RT-CUDA-GRAPHS"].status == "issue", checks["RT-CUDA-GRAPHS"].message
    # One VllmWorker of TP 8, started by the one dynamo serve: its ranks are the worker's own children.
    assert checks["CTR-IPC-ISOLATION"].status == "ok", checks["CTR-IPC-ISOLATION"].message
    assert "TP 8" in checks["CTR-IPC-ISOLATION"].message
    # TP 8 read from the config; eight H100s' links are not shown.
    assert checks["IC-CUSTOM-ALLREDUCE"].status == "unknown", checks["IC-CUSTOM-ALLREDUCE"].message


def test_dynamo_disagg_config_cut_in_its_prefill_worker_keeps_the_decode_worker() -> None:
    log = fact(pasted(body("2875")), "serving_log")
    # The PrefillWorker's section is cut by the paste: only the whole VllmWorker is read.
    assert log.dynamo_workers == (("VllmWorker", 2, False),)
    check = capture_checks("2875", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert check.status == "ok", check.message


def test_dynamo_worker_settings_decide(tmp_path: Path) -> None:
    eager = _dynamo(tmp_path, "'enforce-eager': True, 'tensor-parallel-size': 4")
    assert eager["RT-CUDA-GRAPHS"].status == "issue", eager["RT-CUDA-GRAPHS"].message
    assert eager["CTR-IPC-ISOLATION"].status == "ok", eager["CTR-IPC-ISOLATION"].message
    graphs = _dynamo(tmp_path, "'enforce-eager': False, 'tensor-parallel-size': 4")
    assert graphs["RT-CUDA-GRAPHS"].status != "issue", graphs["RT-CUDA-GRAPHS"].message
    # Ray may place a worker's ranks on other nodes' containers: not judged from the config.
    ray = _dynamo(tmp_path, "'tensor-parallel-size': 4, 'distributed-executor-backend': 'ray'")
    assert ray["CTR-IPC-ISOLATION"].status != "ok", ray["CTR-IPC-ISOLATION"].message
    # A worker of one rank has no group to split.
    one = _dynamo(tmp_path, "'gpu-memory-utilization': 0.9")
    assert one["CTR-IPC-ISOLATION"].status != "ok", one["CTR-IPC-ISOLATION"].message


def test_fastchat_model_worker_is_one_process_without_nccl_or_graphs() -> None:
    # Real: corpus 2860 (baichuan-inc/Baichuan2#276): the controller, a transformers model_worker over GPUs 0 and 1,
    # and the API server.
    (command,) = fact(pasted(body("2860")), "engine_commands").commands
    assert command.engine == "fastchat" and command.argv[0] == "fastchat.serve.model_worker"
    checks = capture_checks("2860", "CTR-SHM-SIZE", "IC-NCCL-ENV", "RT-CUDA-GRAPHS", "IC-TOPOLOGY-PLACEMENT")
    assert checks["CTR-SHM-SIZE"].status == "not-an-issue", checks["CTR-SHM-SIZE"].message
    assert checks["IC-NCCL-ENV"].status == "not-applicable", checks["IC-NCCL-ENV"].message
    assert checks["RT-CUDA-GRAPHS"].status == "not-applicable", checks["RT-CUDA-GRAPHS"].message
    assert "own CUDA-graph use" not in checks["RT-CUDA-GRAPHS"].message  # ggml's note, not transformers'
    # Its layers sit on two GPUs: a group whose links the paste does not show, not "one GPU".
    assert checks["IC-TOPOLOGY-PLACEMENT"].status == "unknown", checks["IC-TOPOLOGY-PLACEMENT"].message


def test_fastchat_vllm_worker_runs_vllm_at_num_gpus(tmp_path: Path) -> None:
    # Modelled on FastChat's docs/vllm_integration.md.
    two = parse_command_line("python3 -m fastchat.serve.vllm_worker --model-path lmsys/vicuna-7b-v1.5 --num-gpus 2")
    assert two is not None and two.engine == "vllm"
    assert two.argv[-2:] == ("--tensor-parallel-size", "2")
    one = parse_command_line("python3 -m fastchat.serve.vllm_worker --model-path m --enforce-eager")
    assert one is not None and one.engine == "vllm" and "--tensor-parallel-size" not in one.argv
    assert parse_command_line("python3 -m fastchat.serve.controller --host 0.0.0.0") is None
    assert parse_command_line("python3 -m fastchat.serve.openai_api_server --host 0.0.0.0 --port 8000") is None
    # The vLLM worker at 2 GPUs runs tensor-parallel ranks that share /dev/shm: not the one-process reading.
    shm = paste_checks(tmp_path, "python3 -m fastchat.serve.vllm_worker --model-path m --num-gpus 2\n", "CTR-SHM-SIZE")
    assert shm["CTR-SHM-SIZE"].status != "not-an-issue", shm["CTR-SHM-SIZE"].message


def test_lmdeploy_turbomind_without_tp_is_one_process(tmp_path: Path) -> None:
    check = capture_checks("2868", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]  # Real: InternLM/lmdeploy#3154
    assert check.status == "not-an-issue" and "TurboMind" in check.message, check.message
    # Modelled: the same command split over GPUs, and one that names no backend (lmdeploy may pick its PyTorch
    # engine, which runs workers), stay open.
    for line in ("lmdeploy serve api_server /m --backend turbomind --tp 2",
                 "lmdeploy serve api_server /m --server-port 8000"):
        shm = paste_checks(tmp_path, f"CUDA_VISIBLE_DEVICES=3,4 {line}\n", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
        assert shm.status != "not-an-issue", (line, shm.message)
