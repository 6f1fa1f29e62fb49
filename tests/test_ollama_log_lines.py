"""ollama's own log lines (issue 28, blind run VV: corpus 919, 927, 928).

- ollama's structured lines (`time=... level=INFO source=memory.go:309 msg="offload to cuda" ...`, Go's slog text
  format) are its server log (facts/serving_logs.OLLAMA_LINE): the engine shown is ollama. Its GPU discovery lines
  stay the evidence reader's (OLLAMA_DISCOVERY).
- Its placement `layers.model=M layers.offload=N` is kept as ServingLog.gpu_layers, as llama.cpp's `offloaded N/M`.
- Its scheduler's weighing of the model against one GPU's free memory (OLLAMA_FIT) with every layer placed is a
  MEM-GPU-SHARED ok over that GPU.
- A journal line posted without its time and host keeps its program tag (`ollama[1773]: `): the engine is a host
  service (importers/_paste.LOG_PREFIXES "journal tag").

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import ServingLog, is_log_line, parse_serving_log

# https://github.com/ollama/ollama/issues/9181 (comment by rick-github, 2025-02-18): four GPUs, 44 of 81 layers
# placed (the comment's one line, wrapped there for width, joined here).
OFFLOAD_9181 = (
    'time=2025-02-18T02:29:51.627Z level=INFO source=server.go:130 msg=offload library=cuda layers.requested=-1 '
    'layers.model=81 layers.offload=44 layers.split=11,11,11,11 memory.available="[22.0 GiB 22.0 GiB 22.0 GiB '
    '22.0 GiB]" memory.gpu_overhead="0 B" memory.required.full="127.4 GiB" memory.required.partial="87.1 GiB" '
    'memory.required.kv="19.5 GiB"\n')
# https://github.com/ollama/ollama/issues/11983 (issue body by josetesan, 2025-08-20): the runner's system line.
SYSTEM_11983 = (
    "time=2025-08-20T11:52:12.286+02:00 level=INFO source=ggml.go:104 msg=system CPU.0.SSE3=1 CPU.0.SSSE3=1 "
    "CPU.0.AVX=1 CPU.0.AVX2=1 CPU.0.F16C=1 CPU.0.FMA=1 CPU.0.BMI2=1 CPU.0.LLAMAFILE=1 CPU.1.LLAMAFILE=1 "
    "CUDA.0.ARCHS=500,600,610,700,750,800,860,870,890,900,1200 CUDA.0.USE_GRAPHS=1 CUDA.0.PEER_MAX_BATCH_SIZE=128 "
    "compiler=cgo(gcc)\n")


def test_ollama_lines_are_its_server_log() -> None:
    assert is_log_line(SYSTEM_11983.strip()) and is_log_line(OFFLOAD_9181.strip())
    log = parse_serving_log(SYSTEM_11983 + OFFLOAD_9181)
    assert log.engine == "ollama"
    assert log.gpu_layers is not None and log.gpu_layers[:2] == (44, 81)
    # Four GPUs' free memory in one list: no one GPU's fit is read from it.
    assert log.model_fit is None


def test_discovery_lines_stay_evidence_lines() -> None:
    """corpus 244's discovery line: the evidence reader's (ollama_cuda, gpus), not the log's."""
    line = ('time=2024-05-27T12:33:01.069Z level=INFO source=types.go:71 msg="inference compute" '
            'id=GPU-4effbf41-2d2b-123d-3e00-87b020bf6f2c library=cuda compute=6.1 driver=12.2 '
            'name="NVIDIA GeForce GTX 1070" total="7.9 GiB" available="7.8 GiB"')
    assert not is_log_line(line)


def test_a_model_that_fits_one_gpu_919() -> None:
    """corpus 919: the scheduler found 15.0 GiB free for an 11.3 GiB model and placed 41 of 41 layers."""
    log = fact(pasted(body("919")), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "ollama"
    assert log.gpu_layers is not None and log.gpu_layers[:2] == (41, 41)
    assert log.model_fit is not None and log.model_fit[:2] == (15.0, 11.3)
    results = capture_checks("919", "MEM-GPU-SHARED", "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS", "DRV-CUDA-COMPAT")
    shared = results["MEM-GPU-SHARED"]
    assert shared.status == "ok" and "15 GiB free" in shared.message and shared.coverage.count == 1
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable" and "ollama" in results["RT-CUDA-GRAPHS"].message
    assert results["CTR-GPU-ACCESS"].status == "not-applicable"
    assert "ollama[1773]" in fact(pasted(body("919")), "container").evidence[0]
    assert results["DRV-CUDA-COMPAT"].status == "unknown"


def test_part_of_the_model_on_the_cpu_928() -> None:
    """corpus 928: 2.2 GiB free against 4.8 GiB, 12 of 33 layers placed: reported, not judged."""
    results = capture_checks("928", "MEM-GPU-SHARED", "RT-CUDA-GRAPHS")
    shared = results["MEM-GPU-SHARED"]
    assert shared.status == "unknown" and "12 of 33 layers" in shared.message
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"


def test_free_memory_short_of_the_model_is_no_ok(tmp_path: Path) -> None:
    """Modelled counter-example: one GPU with less free than the model needs, every layer still placed (a model
    whose layers fit while its graph does not): no ok."""
    text = ('time=2024-08-12T20:24:12.346-06:00 level=INFO source=memory.go:309 msg="offload to cuda" '
            'layers.requested=-1 layers.model=33 layers.offload=33 layers.split="" memory.available="[4.0 GiB]" '
            'memory.required.full="4.8 GiB" memory.required.partial="4.0 GiB"\n')
    assert paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"


# ollama's placement line lists the free memory of each GPU it gives the model's runner (llm/memory.go's
# availableList, one entry per GPU; layers.split only over two or more): one entry is a runner on one GPU (h69d).


def test_placement_over_one_gpu_1497() -> None:
    """corpus 1497: `layers.split="" memory.available="[21.6 GiB]"`: the model's runner holds one GPU, so no group of
    GPUs is placed (IC-TOPOLOGY-PLACEMENT not-applicable); `memory.gpu_overhead` between the free memory and the
    model's need (a later release's line) still reads as one GPU's fit (MEM-GPU-SHARED ok)."""
    log = fact(pasted(body("1497")), "serving_log")
    assert isinstance(log, ServingLog) and log.ollama_gpus is not None and log.ollama_gpus[:2] == (
        1, 'memory.available="[21.6 GiB]"')
    results = capture_checks("1497", "IC-TOPOLOGY-PLACEMENT", "MEM-GPU-SHARED")
    placement = results["IC-TOPOLOGY-PLACEMENT"]
    assert placement.status == "not-applicable" and "memory.available" in placement.message
    shared = results["MEM-GPU-SHARED"]
    assert shared.status == "ok" and "21.6 GiB free" in shared.message


def test_placement_over_four_gpus_is_no_one_gpu_run(tmp_path: Path) -> None:
    """ollama/ollama#9181's line (above): four GPUs' free memory and `layers.split=11,11,11,11` (unquoted, as slog
    writes a value without spaces): a group of four GPUs, so the placement check is not ruled out."""
    log = parse_serving_log(OFFLOAD_9181)
    assert log.ollama_gpus is not None and log.ollama_gpus[0] == 4
    placement = paste_checks(tmp_path, OFFLOAD_9181, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert placement.status != "not-applicable"


def test_placement_on_the_cpu_is_not_read() -> None:
    """Modelled counter-example: the CPU library's line lists system memory, no GPU: no GPU count is read from it."""
    line = ('time=2024-08-12T20:24:12.346-06:00 level=INFO source=memory.go:309 msg="offload to cpu" '
            'layers.requested=-1 layers.model=33 layers.offload=0 layers.split="" memory.available="[31.2 GiB]" '
            'memory.required.full="4.8 GiB" memory.required.partial="0 B"\n')
    assert parse_serving_log(line).ollama_gpus is None
