"""Issue 28 (recognition, corpus 1471 and 1493): Triton Inference Server's logs and TensorRT-LLM's runtime lines are a
server log, and Triton's command with the model configs shown beside it is an engine command.

Triton's own lines are glog's (`I0327 13:12:22.342290 146 grpc_server.cc:2558] "Started GRPCInferenceService ..."`),
told from any other C++ program's by the source files that print them (facts/serving_logs.TRITON_LINE); TensorRT-LLM's
runtime writes `[TensorRT-LLM][INFO] ...` (TRTLLM_LINE). From them: the engine (triton, or trtllm where the
TensorRT-LLM backend shows), the MPI world and the ranks on the node, each rank's GPU, the engine's size, and the GPUs
Triton's metrics name through NVML (facts/gpus.gpus_from_triton_metrics). A `trtserver` (the TensorRT Inference
Server before 20.06) runs each model instance on one GPU; a Triton model config's instance_group that names a GPU
number past what the server's CUDA_VISIBLE_DEVICES leaves it is a config fault, not GPUs withheld (CTR-GPU-ACCESS).

Real lines are quoted verbatim from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, corpus_path, paste_checks
from stackaudit.facts.engine_command import parse_command_line, parse_engine_commands
from stackaudit.facts.gpus import gpus_from_triton_metrics
from stackaudit.facts.serving_logs import is_log_line, parse_serving_log
from stackaudit.importers.recognition import recognise

# https://github.com/triton-inference-server/tensorrtllm_backend/issues/396 (Saigut, 24.02-trtllm-python-py3).
TRTLLM_396 = """\
[TensorRT-LLM][INFO] MPI size: 4, rank: 0
[TensorRT-LLM][INFO] Rank 0 is using GPU 0
[TensorRT-LLM][INFO] MPI size: 4, rank: 3
[TensorRT-LLM][INFO] Rank 3 is using GPU 3
[TensorRT-LLM][INFO] MPI size: 4, rank: 2
[TensorRT-LLM][INFO] Rank 2 is using GPU 2
[TensorRT-LLM][INFO] MPI size: 4, rank: 1
[TensorRT-LLM][INFO] Rank 1 is using GPU 1
[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 1
[TensorRT-LLM][INFO] TRTGptModel maxBatchSize: 1
[TensorRT-LLM][INFO] TRTGptModel mMaxAttentionWindowSize: 2048
[TensorRT-LLM][INFO] TRTGptModel enableTrtOverlap: 0
[TensorRT-LLM][INFO] TRTGptModel normalizeLogProbs: 1
[TensorRT-LLM][INFO] Loaded engine size: 3404 MiB
"""
# https://github.com/triton-inference-server/tensorrtllm_backend/issues/576 (dhruvmullick, TP 2, 0.13.0.dev).
TRTLLM_576 = """\
[TensorRT-LLM][INFO] Engine version 0.13.0.dev2024081300 found in the config file, assuming engine(s) built by new builder API.
[TensorRT-LLM][INFO] Initializing MPI with thread mode 3
[TensorRT-LLM][INFO] Initialized MPI
[TensorRT-LLM][INFO] Initialized MPI
[TensorRT-LLM][INFO] Refreshed the MPI local session
[TensorRT-LLM][INFO] MPI size: 2, MPI local size: 2, rank: 1
[TensorRT-LLM][INFO] Refreshed the MPI local session
[TensorRT-LLM][INFO] Rank 1 is using GPU 1
[TensorRT-LLM][INFO] MPI size: 2, MPI local size: 2, rank: 0
[TensorRT-LLM][INFO] Rank 0 is using GPU 0
[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 8
"""
# https://github.com/triton-inference-server/tensorrtllm_backend/issues/577 (dhruvmullick, 24.08-trtllm-python-py3).
TRITON_577 = """\
root@763cf08503e3:/workspace/dhruv_artificial_agency/inference_service# python3 launch_triton_server.py --world_size=2 --model_repo=models_dhruv --log --tensorrt_llm_model_name=meta_llama_3_1_8B_instruct_vanilla_trt

root@763cf08503e3:/workspace/dhruv_artificial_agency/inference_service# I0830 02:11:11.780256 2914 pinned_memory_manager.cc:277] "Pinned memory pool is created at '0x7fe13e000000' with size 268435456"

I0830 02:11:11.797627 2914 cuda_memory_manager.cc:107] "CUDA memory pool is created on device 0 with size 67108864"

I0830 02:11:11.797656 2914 cuda_memory_manager.cc:107] "CUDA memory pool is created on device 1 with size 67108864"

I0830 02:11:12.083192 2914 model_lifecycle.cc:472] "loading: meta_llama_3_1_8B_instruct_vanilla_trt:1"

I0830 02:11:12.265538 2914 libtensorrtllm.cc:55] "TRITONBACKEND_Initialize: tensorrtllm"

I0830 02:11:12.265587 2914 libtensorrtllm.cc:62] "Triton TRITONBACKEND API version: 1.19"
"""
# https://github.com/triton-inference-server/server/issues/5197 (827346462): the model table, a model refused by the
# driver, and the metrics start-up naming the GPU.
TRITON_5197 = """\
I1228 01:49:02.636996 1 server.cc:633] \n\
+--------------------+---------+--------------------------------------------------------------------------------------------------------------+
| Model              | Version | Status                                                                                                       |
+--------------------+---------+--------------------------------------------------------------------------------------------------------------+
| densenet_onnx      | 1       | UNAVAILABLE: Internal: unable to create stream: the provided PTX was compiled with an unsupported toolchain. |
| inception_graphdef | 1       | UNAVAILABLE: Not found: model configuration is not provided for model 'inception_graphdef'                   |
+--------------------+---------+--------------------------------------------------------------------------------------------------------------+

I1228 01:49:02.665641 1 metrics.cc:864] Collecting metrics for GPU 0: NVIDIA GeForce RTX 3090
I1228 01:49:02.665956 1 metrics.cc:757] Collecting CPU metrics
I1228 01:49:02.666104 1 tritonserver.cc:2264] \n\
"""
# https://github.com/triton-inference-server/server/issues/2312 (chiyukunpeng, Triton 20.03: no quotes around messages).
TRITON_2312 = """\
I1204 08:17:45.082233 1 grpc_server.cc:1939] Started GRPCService at 0.0.0.0:8001
I1204 08:17:45.082251 1 http_server.cc:1411] Starting HTTPService at 0.0.0.0:8000
I1204 08:17:45.124574 1 http_server.cc:1426] Starting Metrics Service at 0.0.0.0:8002
I1204 08:17:45.130062 1 server.cc:224] Polling model repository
I1204 08:18:00.130377 1 server.cc:224] Polling model repository
"""


def _kinds(text: str) -> set[str]:
    return {kind for kind, _, _ in recognise(text).recognised}


@pytest.mark.parametrize("text", [TRTLLM_396, TRTLLM_576, TRITON_577, TRITON_5197, TRITON_2312, body("1471")])
def test_triton_and_trtllm_lines_are_a_server_log(text: str) -> None:
    assert "server log" in _kinds(text)


def test_glog_lines_of_other_programs_are_not_triton() -> None:
    # Modelled: glog's format from a C++ file Triton has none of, and a Go program's klog line.
    assert not is_log_line("I0101 00:00:00.000000 1 my_solver.cc:12] iteration 5 done")
    assert not is_log_line("I1019 06:25:03.801505       1 main.go:154] Starting FS watcher.")
    assert not is_log_line("[TensorRT-LLM] see the docs")  # the tag alone, no level


def test_trtllm_backend_log_reads_ranks_world_and_engine_size() -> None:
    log = parse_serving_log(body("1471"))
    assert log.engine == "trtllm" and log.triton_line.startswith("I0327 13:12:22.342290 146 grpc_server.cc")
    assert sorted(log.ranks) == [f"rank={n}" for n in range(8)]
    assert log.engine_size == (8745, "[TensorRT-LLM][INFO] Loaded engine size: 8745 MiB")


def test_mpi_size_and_rank_gpus() -> None:
    log = parse_serving_log(TRTLLM_396)
    assert log.engine == "trtllm" and log.world_size == 4 and log.local_ranks == 0
    assert log.rank_gpus == ((0, 0), (3, 3), (2, 2), (1, 1))
    assert log.engine_size is not None and log.engine_size[0] == 3404
    local = parse_serving_log(TRTLLM_576)
    assert local.world_size == 2 and local.local_ranks == 2


def test_backend_file_names_trtllm_and_plain_triton_stays_triton() -> None:
    assert parse_serving_log(TRITON_577).engine == "trtllm"  # libtensorrtllm.cc
    assert parse_serving_log(TRITON_2312).engine == "triton"
    assert parse_serving_log(TRITON_5197).engine == "triton"


def test_metrics_lines_name_the_gpus() -> None:
    gpus = gpus_from_triton_metrics(TRITON_5197)
    assert [(g.index, g.model) for g in gpus.gpus] == [(0, "NVIDIA GeForce RTX 3090")] and gpus.count == 1
    # corpus 1493: NVML found 8, the paste is cut after the third: 8 GPUs, three named.
    old = gpus_from_triton_metrics(parse_serving_log_text("1493"))
    assert old.count == 8 and {g.model for g in old.gpus} == {"GeForce RTX 2080 Ti"} and len(old.gpus) == 3


def parse_serving_log_text(prefix: str) -> str:
    """The corpus file's lines as the paste view reads them (the compose prefixes taken off)."""
    from stackaudit.importers.pasted import load_pasted

    return load_pasted([str(corpus_path(prefix))]).record.docs["engine_log"]


def test_model_refused_by_the_driver_is_a_symptom(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TRITON_5197, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue" and "PTX" in result.message


def test_corpus_1493_command_and_instance_groups() -> None:
    text = body("1493")
    assert [(a, b) for kind, a, b in recognise(text).recognised if kind == "engine command"] == [(25, 25)]  # the export above it read as its environment
    command = parse_command_line("trtserver --model-store=/data/  --grpc-infer-thread-count=16")
    assert command is not None and command.engine == "triton"
    doc = ("export CUDA_VISIBLE_DEVICES=6,7\ntrtserver --model-store=/data/\n"
           "cat > config.pbtxt <<'EOF'\ninstance_group [\n  {\n    gpus: [ 6 ]\n  }\n]\nEOF\n")
    parsed = parse_engine_commands(doc).commands[0]
    assert parsed.instance_gpus == ((6,),) and dict(parsed.env)["CUDA_VISIBLE_DEVICES"] == "6,7"


def test_corpus_1493_instances_past_the_visible_devices_are_the_config() -> None:
    results = capture_checks("1493", "CTR-GPU-ACCESS", "IC-TOPOLOGY-PLACEMENT")
    access = results["CTR-GPU-ACCESS"]
    assert access.status == "not-an-issue" and "GPU 6, 7" in access.message and "numbered 0, 1" in access.message
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"


# Modelled on corpus 1493: the same server with the configs naming the visible devices by CUDA's numbers.
WITHIN = """\
model1:
instance_group [
  {
    count: 1
    kind: KIND_GPU
    gpus: [ 0 ]
  }
]
export CUDA_VISIBLE_DEVICES=6,7
trtserver --model-store=/data/  --grpc-infer-thread-count=16
"""


def test_instances_within_the_visible_devices_prove_nothing(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, WITHIN, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "unknown"


def test_tritonserver_keeps_its_tp_unknown(tmp_path: Path) -> None:
    # Modelled: today's tritonserver may serve a TensorRT-LLM engine of any TP: no one-GPU reading from the command.
    text = "tritonserver --model-repository=/models --log-verbose=1\n"
    result = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "unknown"


# https://github.com/triton-inference-server/server/issues/8279 (eshine996, tritonserver:25.04-py3 on a V100S), the
# NGC image's own start-up check; corpus 1502.
NGC_8279 = """\
ERROR: Detected Tesla V100S-PCIE-32GB GPU, which is not supported by this container
ERROR: No supported GPU(s) detected to run this container
"""


def test_ngc_image_refusing_the_gpu_is_a_kernel_arch_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NGC_8279, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status == "issue" and "V100S" in " ".join(result.evidence)
    assert capture_checks("1502", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"].status == "issue"
