"""FW-VM where no source tells whether the machine is a VM (h122c): a workload that needs no P2P or topology a VM could
hide is not an issue, VM or not (checks/fw.py _machine_unread: one GPU, ollama's or a read llama.cpp command's layer
split); a GPU named by a provider's partition or a vGPU profile, a row split, a multi-GPU engine leave it open. Docker
Desktop beside a GPU is WSL 2 (facts/platform.py PLATFORM_WORDS), and its containers' GPUs are WSL 2's."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.parallelism import ServingEngine
from stackaudit.facts.platform import platform_words
from stackaudit.facts.processes import ProcessInfo


@pytest.mark.parametrize("number", ["2813", "2814", "2822", "2825", "2835", "2840", "2864", "1333", "2145"])
def test_workload_needing_no_p2p_is_not_an_issue_whatever_the_machine(number: str) -> None:
    result = capture_checks(number, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", (number, result.message)


@pytest.mark.parametrize("number", [
    "885",  # a provider's partition name (L20-2-PCIE-48GB-48GB-L-H-V): may be a slice
    "1472",  # llama-server's command (`--split-mode row`) is not read: the split is not shown
    "2146",  # llama-cli's command is cut inside its prompt: a split flag may follow
    "1293",  # a GPU table alone, no workload in view
])
def test_machine_left_open(number: str) -> None:
    result = capture_checks(number, "FW-VM")["FW-VM"]
    assert result.status == "unknown", (number, result.message)


def test_docker_desktop_with_eight_gpus_is_wsl2_with_eight_gpus() -> None:
    result = capture_checks("2869", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "WSL 2" in result.message and "8 GPUs" in result.message


# Modelled: a whole `vllm serve` command (TP 1 by default) on a host of four GPUs, nothing naming the machine.
VLLM_ONE_GPU = """\
I have 4x NVIDIA L40S in this server.

```
$ vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --max-model-len 8192
```
"""


def test_engine_at_tp1_on_a_four_gpu_host_is_not_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_ONE_GPU, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "TP 1" in result.message, result.message


def test_engine_over_four_gpus_leaves_the_machine_open(tmp_path: Path) -> None:
    text = VLLM_ONE_GPU.replace("--port 8000", "--port 8000 --tensor-parallel-size 4")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status == "unknown", result.message


# Modelled: llama-server pasted whole over three P40s, by layers (its default) or by rows.
LLAMA_SERVER = """\
```
$ ./llama-server -m /models/qwen2.5-32b-q4_k_m.gguf --n-gpu-layers 99 --port 8080
ggml_cuda_init: found 3 CUDA devices:
  Device 0: Tesla P40, compute capability 6.1, VMM: yes
  Device 1: Tesla P40, compute capability 6.1, VMM: yes
  Device 2: Tesla P40, compute capability 6.1, VMM: yes
```
"""


def test_llama_server_by_layers_is_not_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, LLAMA_SERVER, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "by layers" in result.message, result.message


def test_llama_server_by_rows_leaves_the_machine_open(tmp_path: Path) -> None:
    text = LLAMA_SERVER.replace("--port 8080", "--port 8080 --split-mode row")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status == "unknown", result.message


# Modelled: llama.cpp's device list of one GPU, named as the driver names a product, a provider's partition (corpus
# 885's name) or a vGPU profile (NVIDIA's newer guest drivers' form).
ONE_DEVICE = """\
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA L20, compute capability 8.9, VMM: yes
"""


def test_one_gpu_named_by_a_providers_partition_leaves_the_machine_open(tmp_path: Path) -> None:
    plain = paste_checks(tmp_path, ONE_DEVICE, "FW-VM")["FW-VM"]
    assert plain.status == "not-an-issue", plain.message
    partition = paste_checks(tmp_path, ONE_DEVICE.replace("NVIDIA L20", "L20-2-PCIE-48GB-48GB-L-H-V"), "FW-VM")
    assert partition["FW-VM"].status == "unknown", partition["FW-VM"].message
    # A vGPU profile's name is a vGPU guest's (facts/platform.vgpu_guest): judged as one, with its limits unshown.
    profile = paste_checks(tmp_path, ONE_DEVICE.replace("NVIDIA L20", "NVIDIA L40S-24Q"), "FW-VM")["FW-VM"]
    assert profile.status == "not-an-issue" and "vGPU guest" in profile.message, profile.message


@pytest.mark.parametrize(("line", "wsl"), [
    ("dockerdesktop 2080ti环境，执行 docker run --gpus all xprobe/xinference:latest", True),  # corpus 2869
    ("Docker Desktop 4.44.0 on Windows 11 with an RTX 5090 GPU", True),
    ("I run it in Docker Desktop with CUDA 12.4", True),
    ("I use Docker Desktop on my Mac", False),  # no GPU named: macOS or Linux Docker Desktop gives none
    ("It works in Docker Desktop but not on the GPU server", False),  # a comparison
])
def test_docker_desktop_beside_a_gpu_is_wsl2(line: str, wsl: bool) -> None:
    words = platform_words(line)
    assert (words is not None and words.wsl) == wsl, line


# Modelled: Docker Desktop named in the sentence that leads into the `docker run`, two GPUs, TP 2.
DESKTOP_TP2 = """\
I have two RTX 4090 cards.
On Docker Desktop I start it with docker run --gpus all --ipc=host vllm/vllm-openai:latest --model Qwen/Qwen2.5-14B --tensor-parallel-size 2
"""


def test_docker_desktop_leading_into_docker_run_is_wsl2(tmp_path: Path) -> None:
    vm = fact(pasted(DESKTOP_TP2), "virtualization")
    assert vm.wsl, vm
    result = paste_checks(tmp_path, DESKTOP_TP2, "FW-VM")["FW-VM"]
    assert result.status == "issue" and "WSL 2" in result.message, result.message


def _container(*argv: str) -> ServingEngine:
    return ServingEngine("vllm", None, container=ProcessInfo(pid=0, ppid=None, comm="container c", argv=argv,
                                                             engine="vllm"))


def test_xinference_server_names_no_tp() -> None:
    # Corpus 2869's docker run: Xinference's server starts no model, so its command shows no TP size.
    assert _container("xinference-local", "-H", "0.0.0.0").shown_tp is None
    assert _container("vllm", "serve", "m").shown_tp == 1


def test_container_script_cut_mid_continuation_names_no_tp() -> None:
    # Corpus 2579's pod: `vllm serve ... --port 8000 \\` where the paste cuts the spec.
    cut = _container("/bin/sh", "-c", "vllm serve google/gemma-4b-it \\\n  --port 8000 \\\n")
    assert cut.shown_tp is None
    assert _container("/bin/sh", "-c", "vllm serve google/gemma-4b-it --port 8000\n").shown_tp == 1


@pytest.mark.parametrize(("line", "model"), [
    ("- GPU:GRID T4-4Q", "GRID T4-4Q"),  # corpus 2830
    ("GPU: NVIDIA L40S-24Q", "NVIDIA L40S-24Q"),
    ("GPU: GRID A100D-3-40C", "GRID A100D-3-40C"),
    ("GPU: NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"),  # a board's name ends in GB: no profile
])
def test_hardware_list_names_a_vgpu_by_its_profile(line: str, model: str) -> None:
    from stackaudit.facts.gpus import listed_model

    assert listed_model(line) == model


def test_two_vms_on_one_t4_each_hold_one_vgpu() -> None:
    # Corpus 2830: each VM's GPU is a GRID T4-4Q vGPU; the model is split over the VMs by Ethernet, no limit shown.
    result = capture_checks("2830", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "vGPU guest" in result.message, result.message


# Modelled on corpus 2823: a vLLM command and an nvidia-smi table cut before its Processes box, display off.
BUDGET = """\
```
python3 -m vllm.entrypoints.api_server --model qwen-7b-chat --tensor-parallel-size 1{flags}
```
```
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 3090        On  | 00000000:3B:00.0 Off |                  N/A |
|  0%   36C    P2             105W / 350W |  {used}MiB / 24576MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
```
"""


@pytest.mark.parametrize(("flags", "used", "status"), [
    ("", "21232", "not-an-issue"),  # vLLM's default 0.9: 22118 MiB, 21232 within 5 % under it
    ("", "23900", "unknown"),  # more than 1 GiB over the default budget
    ("", "12000", "unknown"),  # well under it: not the engine's budget
    (" --gpu-memory-utilization 0.5", "12600", "not-an-issue"),  # the command's own budget
    (" --gpu-memory-utilization 0.5", "21232", "unknown"),
])
def test_vllm_default_budget(tmp_path: Path, flags: str, used: str, status: str) -> None:
    text = BUDGET.format(flags=flags, used=used)
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == status, result.message
