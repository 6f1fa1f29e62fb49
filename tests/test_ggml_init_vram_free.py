"""llama.cpp's `ggml_cuda_init` device lines with each device's total and free memory (facts/gpus.GGML_INIT_VRAM,
builds since ggml-org/llama.cpp#20185): the memory free when the backend started, read by MEM-GPU-SHARED."""

from __future__ import annotations

from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import engine_gpu_memory_from_ggml_init

_LINE = "  Device {i}: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes, VRAM: 24126 MiB ({free} MiB free)\n"


def test_real_1796_one_rtx_3090_nearly_free_is_ok() -> None:
    # Corpus 1796 (a llama.cpp issue's log): 23863 of 24126 MiB free before the load, 1 of 1 GPUs.
    memory = engine_gpu_memory_from_ggml_init(
        "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 24126 MiB):\n" + _LINE.format(i=0, free=23863))
    (gpu,) = memory.gpus
    assert (gpu.gpu, gpu.total_mib, gpu.free_mib) == ("CUDA0 (NVIDIA GeForce RTX 3090)", 24126.0, 23863.0)


def test_modelled_a_device_another_process_fills_is_read_held() -> None:
    # Modelled: the second device mostly taken before llama.cpp started.
    memory = engine_gpu_memory_from_ggml_init(_LINE.format(i=0, free=23863) + _LINE.format(i=1, free=2048))
    assert [g.held_mib for g in memory.gpus] == [263.0, 22078.0]


def test_modelled_unified_memory_free_above_total_is_left_out() -> None:
    # Modelled: a device whose free exceeds its total (unified memory) gives no reading of the GPU's own memory.
    line = "  Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes, VRAM: 122570 MiB (124000 MiB free)\n"
    try:
        engine_gpu_memory_from_ggml_init(line)
    except ParseError:
        return
    raise AssertionError("a free above the total was read")


def test_modelled_the_line_without_free_memory_is_not_read() -> None:
    # Builds after ggml-org/llama.cpp#20595 print the total only (`VRAM: 24126 MiB`): no free memory to read.
    try:
        engine_gpu_memory_from_ggml_init("  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes, "
                                         "VRAM: 24126 MiB\n")
    except ParseError:
        return
    raise AssertionError("a line without free memory was read")
