"""ollama's GPU discovery lines read as evidence, and the GPUs they name reach the `gpus` fact.

Each fixture is a verbatim excerpt of a public thread (the URL beside it); the 4x GTX 1070 journal is
tests/data/captures/244 (https://github.com/ollama/ollama/issues/4636).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_result
from stackaudit.engine.collect import Collector
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import GpuInventory, parse_ollama_gpus
from stackaudit.facts.registry import load_all
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.recognition import recognise

# https://github.com/ollama/ollama/pull/10569 (dhiltgen, 2025-05-05): Windows, one RTX 2080 Ti.
RTX_2080TI = (
    'time=2025-05-05T16:11:49.762-07:00 level=INFO source=gpu.go:319 msg="detected OS VRAM overhead" '
    'id=GPU-d6de3398-9932-6902-11ec-fee8e424c8a2 library=cuda compute=7.5 driver=12.1 name="NVIDIA GeForce RTX 2080 Ti" '
    'overhead="590.9 MiB"\n'
    'time=2025-05-05T16:11:49.763-07:00 level=INFO source=types.go:130 msg="inference compute" '
    'id=GPU-d6de3398-9932-6902-11ec-fee8e424c8a2 library=cuda variant=v12 compute=7.5 driver=12.1 '
    'name="NVIDIA GeForce RTX 2080 Ti" total="11.0 GiB" available="9.9 GiB"\n'
)
# https://github.com/batteries-included/batteries-included/pull/1663 (JTarasovic, 2025-02-26): one A10G.
A10G = (
    'time=2025-02-26T21:01:22.814Z level=INFO source=gpu.go:226 msg="looking for compatible GPUs"\n'
    'time=2025-02-26T21:01:23.251Z level=INFO source=types.go:131 msg="inference compute" '
    'id=GPU-dd1f9e61-27e0-16ad-dd71-766641270fd6 library=cuda variant=v12 compute=8.6 driver=12.2 '
    'name="NVIDIA A10G" total="22.0 GiB" available="21.7 GiB"\n'
)
CAPTURE_244 = next(Path(__file__).parent.joinpath("data", "captures").glob("244-*.txt"))


def _gpus(text: str) -> GpuInventory:
    collector = Collector(MemoryHost(recognise(text).record), 30, load_all())
    collector.start(["gpus"])
    value = collector.results(["gpus"])["gpus"]
    assert isinstance(value, GpuInventory), value
    return value


@pytest.mark.parametrize(("text", "models"), [
    (RTX_2080TI, ["NVIDIA GeForce RTX 2080 Ti"]),
    (A10G, ["NVIDIA A10G"]),
    (CAPTURE_244.read_text(), ["NVIDIA GeForce GTX 1070"] * 4),
])
def test_ollama_inference_compute_lines_name_the_gpus(text: str, models: list[str]) -> None:
    gpus = _gpus(text)
    assert [g.model for g in gpus.gpus] == models
    # A pasted excerpt may leave GPUs out: its count is a lower bound, never the host's.
    assert gpus.whole_count is None


def test_discovery_lines_are_evidence_and_other_ollama_lines_are_not() -> None:
    assert is_evidence(A10G.splitlines()[0])  # looking for compatible GPUs
    assert all(is_evidence(line) for line in A10G.splitlines())
    assert not is_evidence(RTX_2080TI.splitlines()[0])  # a VRAM overhead line proves no GPU list
    assert recognise(A10G).record  # not refused


def test_rocm_and_cpu_inference_compute_lines_name_no_nvidia_gpu() -> None:
    # Modelled on the lines above with ollama's other libraries (`library=rocm`, `library=cpu`).
    with pytest.raises(ParseError):
        parse_ollama_gpus('msg="inference compute" id=0 library=rocm compute=gfx1100 driver=6.3 '
                          'name=1002:744c total="24.0 GiB" available="23.9 GiB"\n'
                          'msg="inference compute" id=0 library=cpu variant=avx2 compute="" driver=0.0 '
                          'name="" total="31.2 GiB" available="28.1 GiB"')


def test_ollama_lines_give_no_ok_they_cannot_show() -> None:
    # MEM-GPU-SHARED reads their total and available memory (tests/test_log_evidence_28.py); DRV-CUDA-COMPAT their
    # driver CUDA and runner (tests/test_ollama_cuda_runner.py: cuda_v11 under driver=12.2, ok);
    # persistence mode is in none of them.
    results = run_checks(MemoryHost(recognise(CAPTURE_244.read_text()).record), ["DRV-PERSISTENCE", "DRV-CUDA-COMPAT"])
    assert {cid: r.status for cid, r in results.items()} == {"DRV-PERSISTENCE": "unknown",
                                                             "DRV-CUDA-COMPAT": "ok"}


# --- ollama 0.1's CUDA driver probe names each GPU by its capability (h113a) ----------------------------------------


def test_the_cuda_driver_probes_capability_lines_name_the_gpu_2521_1867() -> None:
    # A Jetson Xavier's journal (2521): `[GPU-d1bf94b9-...] Compute Capability 7.2`, Volta, so no MIG.
    assert parse_ollama_gpus(body("2521")).models == {0: "GPU of compute capability 7.2"}
    r = capture_result("2521", "MEM-MIG")
    assert r.status == "not-applicable" and "7.2" in r.message
    # Another thread (1867): an A100's probe names a GPU of capability 8.0, whose MIG stays open.
    assert parse_ollama_gpus(body("1867")).models == {0: "GPU of compute capability 8.0"}
    assert capture_result("1867", "MEM-MIG").status == "unknown"
    # Modelled: an `inference compute` line's own name wins over the probe's capability; a line without the
    # probe's bracketed UUID names none.
    probe = "May 31 12:57:28 h ollama[1]: [GPU-d1bf94b9-edc1-55a1-80b1-a3de76dd41c8] Compute Capability 8.6\n"
    assert parse_ollama_gpus(probe + RTX_2080TI).models == {0: "NVIDIA GeForce RTX 2080 Ti"}
    with pytest.raises(ParseError):
        parse_ollama_gpus("May 31 12:57:28 h ollama[1]: GPU-d1bf94b9 Compute Capability 8.6\n")
