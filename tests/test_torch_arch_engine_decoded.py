"""RT-TORCH-ARCH from an engine's decode on the GPU (facts/cuda_ran.CudaRan.decoded): vLLM generating tokens out of
its GPU KV cache ran the model's kernels there, so the CUDA build of torch installed beside it carries code for the
GPU, even where no GPU model is named (corpus 1395). Modelled variants keep what does not prove it unknown."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.cuda_ran import CudaRan, Ran, ran_in_lines

CHECK = "RT-TORCH-ARCH"
# vLLM's metrics line of corpus 1395 (line 42 of its capture).
GENERATING = ("(APIServer pid=19189) INFO 10-06 11:26:41 [loggers.py:127] Engine 000: Avg prompt throughput: 0.0 "
              "tokens/s, Avg generation throughput: 149.6 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache "
              "usage: 33.4%, Prefix cache hit rate: 16.4%")


def test_the_metrics_line_is_a_decode() -> None:
    found = ran_in_lines([GENERATING])
    assert len(found) == 1 and found[0].decoded and found[0].program == "vLLM"
    assert CudaRan(found).decoded() == found[0]
    # A refused start in the same source wins; a torch OOM message is CUDA at work, not a decode.
    assert CudaRan(found, failed="CUDA driver version is insufficient").decoded() is None
    oom = ran_in_lines(["GPU 0 has a total capacity of 94.97 GiB of which 164.81 MiB is free."])
    assert not oom[0].decoded and CudaRan(oom).decoded() is None
    assert isinstance(found[0], Ran)


def test_vllm_generating_beside_its_collect_env_is_ok() -> None:
    # Corpus 1395: collect_env of vLLM 0.11.0 with torch 2.8.0+cu128 and one GPU0 in its topology, no GPU model.
    r = capture_checks("1395", CHECK)[CHECK]
    assert r.status == "ok", r.message
    assert "vLLM generated 149.6 tokens/s" in r.message and "torch 2.8.0+cu128" in r.message
    assert "vLLM 0.11.0" in r.message
    assert r.coverage is not None and r.coverage.shown == ("GPU 0",)


def test_without_the_decode_it_stays_unknown(tmp_path: Path) -> None:
    # Modelled on 1395: the collect_env alone (the log cut), and the log with generation at 0 tokens/s.
    report = body("1395").split("(APIServer", 1)[0]
    r = paste_checks(tmp_path, report, CHECK)[CHECK]
    assert r.status == "unknown" and "which GPUs serve" in r.message
    idle = report + GENERATING.replace("149.6 tokens/s, Running", "0.0 tokens/s, Running") + "\n"
    assert paste_checks(tmp_path, idle, CHECK)[CHECK].status == "unknown"


def test_a_torch_without_the_engine_or_on_cpu_stays_unknown(tmp_path: Path) -> None:
    # Modelled on 1395: a report without vLLM's section is another environment's torch; vLLM on its CPU platform
    # calls its cache the GPU's too.
    report = body("1395").split("(APIServer", 1)[0]
    no_vllm = report.replace("vLLM Version                 : 0.11.0\n", "")
    assert no_vllm != report
    r = paste_checks(tmp_path, no_vllm + GENERATING + "\n", CHECK)[CHECK]
    assert r.status == "unknown", r.message
    cpu = report + "INFO 10-06 11:20:00 [__init__.py:216] Automatically detected platform cpu.\n" + GENERATING + "\n"
    assert paste_checks(tmp_path, cpu, CHECK)[CHECK].status == "unknown"
