"""A user's torch check names its GPU and torch's CUDA (issue 28, h97c: corpus 2050).

torch.cuda.get_device_name printed beside a torch version line names a GPU CUDA listed (facts/gpus.TORCH_DEVICE_NAME).
torch.version.cuda printed beside torch.cuda.is_available() is the CUDA torch was built with
(facts/python_env.TORCH_PRINTED_CUDA).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted

# Real printouts: a LAMMPS/torch notes page (an RTX 3080 Ti, torch 2.0.1), a tutorial's environment check (an RTX 4070
# Ti, torch 2.6.0+cu124), an install guide's check (an RTX 3090, torch 2.1.0 with CUDA 11.8).
LAMMPS = ("PyTorch Version: 2.0.1\nCUDA is available.\nCUDA Version: 11.7\nCUDA Device Name: NVIDIA GeForce RTX 3080 Ti\n"
          "Number of CUDA Devices: 1\n")
TUTORIAL = ("PyTorch Version: 2.6.0+cu124\nCUDA Available: True\nCUDA Device Count: 1\n"
            "CUDA Device Name: NVIDIA GeForce RTX 4070 Ti\n")
GUIDE = ("PyTorch Version: 2.1.0\nCUDA Available: True\nCUDA Version (PyTorch Built with): 11.8\n"
         "Available CUDA Devices: 1\nCurrent CUDA Device Index: 0\nCurrent CUDA Device Name: NVIDIA GeForce RTX 3090\n")


def test_the_device_name_a_torch_check_prints_is_a_gpu() -> None:
    for text, model in ((LAMMPS, "NVIDIA GeForce RTX 3080 Ti"), (TUTORIAL, "NVIDIA GeForce RTX 4070 Ti"),
                        (GUIDE, "NVIDIA GeForce RTX 3090")):
        assert [g.model for g in fact(pasted(text), "gpus").gpus] == [model]


def test_torch_cuda_is_read_only_beside_the_availability_line() -> None:
    assert fact(pasted(GUIDE), "python_env").environments[0].torch_cuda == "11.8"
    # LAMMPS's page prints `CUDA is available.`, not torch's labelled answer: its CUDA line is not taken as torch's.
    assert fact(pasted(LAMMPS), "python_env").environments[0].torch_cuda is None


def test_a_bare_release_with_its_printed_cuda_covers_the_named_gpu(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, GUIDE, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "ok"
    assert capture_checks("2050", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "ok"


def test_another_vendors_name_or_a_name_without_torch_is_not_read() -> None:
    # Modelled: ROCm's torch answers with AMD's name under the same label; a program's banner without torch's version.
    rocm = "PyTorch version: 2.4.0+rocm6.1\nCUDA available: True\nCUDA device name: AMD Radeon RX 7900 XTX\n"
    banner = "CUDA Device Name: NVIDIA GeForce RTX 3090\n"
    for text in (rocm, banner):
        gpus = fact(pasted(text), "gpus")
        assert not getattr(gpus, "gpus", ())


# Triton's glog lines (server#1567's format) under an NGC image named on its own line (corpus 1817's form).
def _triton(image: str, gpu: str) -> str:
    return (f"{image}\n"
            "I0528 11:19:45.103087 18 metrics.cc:164] found 1 GPUs supporting NVML metrics\n"
            f"I0528 11:19:45.109310 18 metrics.cc:173]   GPU 0: {gpu}\n")


def test_an_ngc_release_covers_a_gpu_between_its_floor_and_its_cuda(tmp_path: Path) -> None:
    assert capture_checks("1817", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "ok"
    text = _triton("nvcr.io/nvidia/tritonserver:20.09-py3", "Tesla T4")
    assert paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "ok"


def test_a_gpu_newer_than_the_releases_cuda_gets_no_ok(tmp_path: Path) -> None:
    # Modelled: an H100 (9.0, CUDA 11.8 and later) under 20.09's CUDA 11.0; an RTX 4090 (8.9) under 22.07's CUDA 11.7.
    for image, gpu in (("nvcr.io/nvidia/tritonserver:20.09-py3", "NVIDIA H100 PCIe"),
                       ("nvcr.io/nvidia/pytorch:22.07-py3", "NVIDIA GeForce RTX 4090")):
        assert paste_checks(tmp_path, _triton(image, gpu), "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status != "ok"
