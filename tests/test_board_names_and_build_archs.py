"""What a build was compiled for against the GPUs a paste names: a GV100 board named by its board number (`Tesla
PG503-216`), a hardware list's model with its memory in brackets, GPUs the driver names by no model, and a TensorRT-LLM
image named in a system summary (corpus 2923, 2924, 2929, 2930). Fixtures not taken from the corpus are modelled on
those files' lines and say so."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import inline_listed_model
from stackaudit.gputable import architecture_of, capability_of, has_mig, on_nvswitch, without_mig

TORCH = "RT-TORCH-ARCH"
KERNEL = "RT-KERNEL-ARCH"
MIG = "MEM-MIG"
FM = "DRV-FABRIC-MANAGER"
ALLREDUCE = "RT-TRTLLM-ALLREDUCE"


def test_gv100_board_numbers_are_volta_of_capability_7_0() -> None:
    # pci.ids: 1df0 `GV100GL [Tesla PG500-216]`, 1df2 `GV100GL [Tesla PG503-216]`.
    for name in ("Tesla PG503-216", "Tesla PG500-216", "NVIDIA Tesla PG503-216"):
        assert capability_of(name) == "7.0" and architecture_of(name) == "Volta", name
        assert has_mig(name) is not True and without_mig(name), name
    # The board number says the chip, not the module: whether it sits on an NVSwitch stays open.
    assert on_nvswitch("Tesla PG503-216") is None
    # Another board number is not read as one of them.
    assert capability_of("Tesla PG506-216") == ""


def test_pg503_beside_v100_and_2080_ti_covered_by_torch_arch_flags_2923() -> None:
    r = capture_checks("2923", TORCH, MIG)
    assert r[TORCH].status == "ok" and "Tesla PG503-216 (compute 7.0)" in r[TORCH].message
    assert r[MIG].status == "not-applicable" and "Tesla PG503-216 (Volta" in r[MIG].message


CHECK_ENV = """sys.platform: linux
Python: 3.10.18 (main, Jun  5 2025, 13:14:17) [GCC 11.2.0]
CUDA available: True
MUSA available: False
numpy_random_seed: 2147483648
{gpus}
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.8, V12.8.93
PyTorch: 2.8.0+cu128
PyTorch compiling details: PyTorch built with:
  - CUDA Runtime 12.8
  - NVCC architecture flags: {flags}
"""
SM70_TO_120 = ";".join(f"-gencode;arch=compute_{a},code=sm_{a}" for a in (70, 75, 80, 86, 90, 100, 120))
SM75_TO_120 = ";".join(f"-gencode;arch=compute_{a},code=sm_{a}" for a in (75, 80, 86, 90, 100, 120))


def test_modelled_pg503_alone_and_a_build_without_sm70(tmp_path: Path) -> None:
    # Modelled on 2923's check_env: eight PG503-216 (the other wording of a GV100 board) under torch's sm_70 flags.
    text = CHECK_ENV.format(gpus="GPU 0,1,2,3,4,5,6,7: Tesla PG503-216", flags=SM70_TO_120)
    r = paste_checks(tmp_path, text, TORCH, MIG)
    assert r[TORCH].status == "ok" and r[MIG].status == "not-applicable"
    # The same board under a build that starts at sm_75 (as CUDA 12.9's wheels do): no kernel for 7.0.
    r = paste_checks(tmp_path, CHECK_ENV.format(gpus="GPU 0: Tesla PG503-216", flags=SM75_TO_120), TORCH)
    assert r[TORCH].status != "ok"


def test_unnamed_gpus_cuda_initialised_settle_fabric_manager_2924(tmp_path: Path) -> None:
    r = capture_checks("2924", FM, TORCH)
    assert r[FM].status == "ok" and "NVIDIA Graphics Device" in r[FM].message
    assert r[TORCH].status == "unknown"  # their capability is not shown
    # Modelled: four of them, and the name without its vendor word.
    text = CHECK_ENV.format(gpus="GPU 0,1,2,3: Graphics Device", flags=SM70_TO_120)
    assert paste_checks(tmp_path, text, FM)[FM].status == "ok"
    # One GPU may be a partition of an NVSwitch board with its NVLinks off: CUDA starting there proves no fabric.
    one = CHECK_ENV.format(gpus="GPU 0: NVIDIA Graphics Device", flags=SM70_TO_120)
    assert paste_checks(tmp_path, one, FM)[FM].status == "unknown"
    # CUDA unavailable: nothing ran.
    refused = text.replace("CUDA available: True", "CUDA available: False")
    assert paste_checks(tmp_path, refused, FM)[FM].status != "ok"


def test_inline_hardware_list_with_bracketed_memory() -> None:
    assert inline_listed_model("RTX 4080 SUPER (16GB VRAM), driver 610.43, CUDA 13.3") == "RTX 4080 SUPER"
    # Modelled: another wording of the memory, another GPU.
    assert inline_listed_model("RTX 3090 (24 GB), Ubuntu 22.04, CUDA 12.4") == "RTX 3090"
    # No other item of a hardware list beside it: no list.
    assert inline_listed_model("RTX 4080 SUPER (16GB VRAM), fast, quiet") == ""
    # A bracketed aside that is not the memory stays part of the item, which then names no model alone.
    assert inline_listed_model("RTX 4080 SUPER (two of them), driver 610.43") == ""


LLAMA_ISSUE = """### Hardware

{hardware}

### Command line

```
llama-server -m gemma-4-12b-it-qat-q4_0.gguf --ctx-size 65536 -ngl 99 -np 1 --host 127.0.0.1 --port 8080
```
"""


def test_llama_server_command_on_a_listed_gpu_2930(tmp_path: Path) -> None:
    r = capture_checks("2930", KERNEL, MIG, FM)
    assert r[KERNEL].status == "ok" and "RTX 4080 SUPER (compute capability 8.9)" in r[KERNEL].message
    assert r[MIG].status == "not-applicable" and r[FM].status == "not-applicable"
    # Modelled: an Ampere card in the same list.
    ampere = LLAMA_ISSUE.format(hardware="RTX 3090 (24GB VRAM), driver 550.54, CUDA 12.4")
    assert paste_checks(tmp_path, ampere, KERNEL)[KERNEL].status == "ok"
    # Blackwell needs a CUDA 12.8 toolkit, which the paste does not show: not ok.
    blackwell = LLAMA_ISSUE.format(hardware="RTX 5090 (32GB VRAM), driver 575.64, CUDA 12.9")
    assert paste_checks(tmp_path, blackwell, KERNEL)[KERNEL].status == "unknown"
    # The command line cut: no ok from the flags it does not show.
    cut = ampere.replace("--host 127.0.0.1 --port 8080\n```\n", "--host 127.0")
    assert paste_checks(tmp_path, cut, KERNEL)[KERNEL].status != "ok"


SYSTEM_INFO = """### System Info

CPU:  X86-64, 16 cores
GPU:  {gpu}
system: ubuntu 22.04.4
driver: 555.42.06
docker_images: {image}
"""


def test_trtllm_image_named_on_sxm_modules_2929(tmp_path: Path) -> None:
    r = capture_checks("2929", ALLREDUCE)
    assert r[ALLREDUCE].status == "ok" and "A100 SXM4 80GB" in r[ALLREDUCE].message
    # Modelled: another SXM module, the same image.
    h100 = SYSTEM_INFO.format(gpu="H100-SXM5-80GB", image="nvcr.io/nvidia/tritonserver:24.06-trtllm-python-py3")
    assert paste_checks(tmp_path, h100, ALLREDUCE)[ALLREDUCE].status == "ok"
    # A PCIe card: whether it has peer access is not shown.
    l40s = SYSTEM_INFO.format(gpu="NVIDIA L40S", image="nvcr.io/nvidia/tritonserver:24.06-trtllm-python-py3")
    assert paste_checks(tmp_path, l40s, ALLREDUCE)[ALLREDUCE].status != "ok"
    # Triton's image without the TensorRT-LLM backend shows no TensorRT-LLM.
    plain = SYSTEM_INFO.format(gpu="A100-SXM4-80GB", image="nvcr.io/nvidia/tritonserver:24.06-py3")
    assert paste_checks(tmp_path, plain, ALLREDUCE)[ALLREDUCE].status != "ok"
