"""Driver, kernel, firmware and GPU identity rules from the blind batches AV and AX (issue 28, h86a).

Real pastes are cited by their public threads (or, where marked, a public repository's file); counter-examples are
modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError, format_cpulist, parse_cpumask

COMPAT = "DRV-CUDA-COMPAT"
OPEN = "DRV-OPEN-MODULE"
ARCH = "RT-TORCH-ARCH"
KVER = "KVER-NVIDIA-KERNEL-COMBOS"
VM = "FW-VM"
ECC = "MEM-ECC-MODE"
REBAR = "FW-REBAR-BAR1"
NPS = "FW-NUMA-NPS"
WATCHDOG = "KERN-WATCHDOG"


# --- NCCL's `Init COMPLETE`: the CUDA runtime ran on the driver (facts/cuda_ran.NCCL_INIT_COMPLETE) ---------------

def test_nccl_init_complete_in_a_swarm_container_is_ok() -> None:
    # Corpus 1888 (sgl-project/sglang, docker swarm): ncclCommInitRank ... Init COMPLETE, NCCL 2.18+ form.
    result = capture_checks("1888", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "Init COMPLETE" in result.message


def test_nccl_init_complete_before_2_18_is_ok(tmp_path: Path) -> None:
    # NVIDIA/nccl#429 (a TensorFlow job under MPI): the pre-2.18 form, without `ncclCommInitRank`.
    text = ("machine-1:16194:18586 [6] NCCL INFO comm 0x7f4b28006640 rank 14 nranks 16 cudaDev 6 busId b1000 - Init COMPLETE\n"
            "machine-1:16194:18581 [1] NCCL INFO comm 0x7f4b34006640 rank 9 nranks 16 cudaDev 1 busId 1b000 - Init COMPLETE\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"


def test_nccl_init_complete_of_a_64_rank_job_is_ok(tmp_path: Path) -> None:
    # NVIDIA/nccl#1814 (a 64-rank job whose IB sends later fail): its ranks completed init first.
    text = ("hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId "
            "9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n"
            "hostname-test:982:1255 [2] NCCL INFO comm 0x560dfc7a10e0 rank 34 nranks 64 cudaDev 2 nvmlDev 2 busId "
            "49000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"


def test_nccl_init_start_alone_shows_nothing(tmp_path: Path) -> None:
    # osayamenja/FlashMoE#3: `Init START` only (the run hangs later): no line shows the init done.
    text = ("ubuntu-24.04:2446804:2446804 [0] NCCL INFO ncclCommInitRank comm 0x562cbb9575d0 rank 0 nranks 2 cudaDev 0 "
            "nvmlDev 0 busId 5000 commId 0x9a62312ff2b0ee85 - Init START\n"
            "ubuntu-24.04:2446805:2446805 [1] NCCL INFO ncclCommInitRank comm 0x5585958deff0 rank 1 nranks 2 cudaDev 1 "
            "nvmlDev 1 busId 9000 commId 0x9a62312ff2b0ee85 - Init START\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


# --- a Python session's torch.cuda.is_available() answering True (facts/cuda_ran.torch_answered) ------------------

def test_torch_is_available_true_in_a_ray_thread_is_ok() -> None:
    # Corpus 1898 (ray-project/ray): `torch.cuda.is_available()` then `True`, in fences, no driver shown.
    result = capture_checks("1898", COMPAT)[COMPAT]
    assert result.status == "ok", result.message


def test_torch_is_available_true_at_a_prompt_is_ok(tmp_path: Path) -> None:
    # A Jetson Orin's torch 2.3.0 wheel checked at the Python prompt (a public repository's install notes).
    text = (">>> import torch\n>>> torch.__version__\n'2.3.0'\n>>> torch.cuda.is_available()\nTrue\n"
            ">>> torch.cuda.device_count()\n1\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"


def test_torch_is_available_printed_true_is_ok(tmp_path: Path) -> None:
    # An RTX 4090 set-up's check at the prompt (a public repository's install notes), `print(...)` form modelled.
    text = ">>> print(torch.cuda.is_available())\nTrue\n>>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 4090'\n"
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"


def test_torch_is_available_false_shows_nothing(tmp_path: Path) -> None:
    # open-edge-platform/anomalib#584 pattern, modelled with the plain answer: False is no runtime at work.
    text = ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n"
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


def test_rocm_torch_is_available_true_is_not_cuda(tmp_path: Path) -> None:
    # A ROCm 5.6 torch on a Radeon RX 7900 XTX (a public repository's blog post): True there is HIP's.
    text = (">>> import torch\n>>> torch.__version__\n'2.1.0+rocm5.6'\n>>> torch.cuda.is_available()\nTrue\n"
            ">>> torch.cuda.get_device_name(torch.cuda.current_device())\n'Radeon RX 7900 XTX'\n")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


# --- GB10 (DGX Spark): Blackwell, compute capability 12.1 (gputable._ARCH_WORDS) ------------------------------------

def test_gb10_is_blackwell_121() -> None:
    from stackaudit.facts.nvidia import open_module_only
    from stackaudit.gputable import architecture_of, capability_of

    assert architecture_of("NVIDIA GB10") == "Blackwell"
    assert capability_of("NVIDIA GB10") == "12.1"
    assert open_module_only("NVIDIA GB10")


def test_gb10_running_cuda_shows_the_open_module() -> None:
    # Corpus 1912 (sgl-project/sglang#13198): check_env's `CUDA available: True` on the GB10.
    result = capture_checks("1912", OPEN)[OPEN]
    assert result.status == "ok", result.message


# --- torch's capability warning for a minor its build covers by the major's cubin (rt._warned_yet_covered) ----------

def test_gb10_warning_under_cu130_is_not_an_issue() -> None:
    # Corpus 1912 (sgl-project/sglang#13198): torch 2.9.1+cu130 warns of 12.1 outside (8.0)-(12.0).
    result = capture_checks("1912", ARCH)[ARCH]
    assert result.status == "not-an-issue", result.message
    assert "sm_120" in result.message


def test_gb10_warning_beside_a_report_of_torch_2_9_0_is_not_an_issue(tmp_path: Path) -> None:
    # mllam/neural-lam#163 (torch 2.9.0+cu130 on a DGX Spark): the warning; the report's lines modelled around it.
    text = ("/usr/lib/python3.12/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
            "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
            "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
            "    (8.0) - (12.0)\n\n"
            "Python: 3.11.13 (main, Jun  4 2025, 08:57:29) [GCC 11.4.0]\nCUDA available: True\nGPU 0: NVIDIA GB10\n"
            "GPU 0 Compute Capability: 12.1\nCUDA_HOME: /usr/local/cuda\nCUDA Driver Version: 580.95.05\n"
            "PyTorch: 2.9.0+cu130\nsglang: 0.5.4\n")
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status == "not-an-issue"


def test_warning_for_a_gpu_below_the_build_is_an_issue(tmp_path: Path) -> None:
    # rishikanthc/Scriberr#273: a GTX 1070 Ti (6.1) under a build from 7.0; the report's lines modelled around it.
    text = ("/app/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
            "    Found GPU0 NVIDIA GeForce GTX 1070 Ti which is of cuda capability 6.1.\n"
            "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
            "    (7.0) - (12.0)\n\n"
            "Python: 3.10.12 (main, Nov  6 2024, 20:22:13) [GCC 11.4.0]\nCUDA available: True\n"
            "GPU 0: NVIDIA GeForce GTX 1070 Ti\nGPU 0 Compute Capability: 6.1\nCUDA Driver Version: 570.133.07\n"
            "PyTorch: 2.8.0+cu128\nsglang: 0.5.0\n")
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status == "issue"


# --- WSL 2 from a library of its driver mount (facts/platform.WSL_LIBRARY) ------------------------------------------

def test_ollama_loading_wsl_nvml_is_wsl() -> None:
    # Corpus 1916 (ollama/ollama, an MX130 laptop): `/usr/lib/wsl/lib/libnvidia-ml.so.1` loaded.
    results = capture_checks("1916", KVER, VM)
    assert results[KVER].status == "not-applicable", results[KVER].message
    assert results[VM].status == "not-an-issue", results[VM].message


def test_nvidia_container_cli_selecting_wsl_libraries_is_wsl(tmp_path: Path) -> None:
    # NVIDIA/nvidia-docker#1699 (WSL 2, Modulus): libnvidia-container selecting the WSL mount's libraries.
    text = ("I1026 21:07:24.606205 4665 nvc_info.c:199] selecting /usr/lib/wsl/lib/libnvidia-opticalflow.so.1\n"
            "I1026 21:07:24.606880 4665 nvc_info.c:199] selecting /usr/lib/wsl/lib/libnvidia-ml.so.1\n"
            "Linux ubuntu 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux\n")
    assert paste_checks(tmp_path, text, KVER)[KVER].status == "not-applicable"


def test_ldconfig_listing_the_wsl_nvml_is_wsl(tmp_path: Path) -> None:
    # Syllo/nvtop#441 (an RTX 5070 Ti under WSL): ldconfig's cache maps libnvidia-ml.so.1 to the WSL mount.
    text = ("$ ldconfig -p | grep libnvidia-ml\n"
            "        libnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libnvidia-ml.so.1\n"
            "        libnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/libnvidia-ml.so.1\n")
    result = paste_checks(tmp_path, text, KVER)[KVER]
    assert result.status == "not-applicable", result.message


def test_a_missing_wsl_library_is_no_wsl(tmp_path: Path) -> None:
    # ollama/ollama#1704 (a Docker container, not WSL): ollama tried the WSL path and the file was not there.
    text = ("gpu.go:38: CUDA not detected: Unable to load libnvidia-ml.so library to query for Nvidia GPUs: "
            "/usr/lib/wsl/lib/libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n"
            "Linux ubuntu 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux\n")
    assert paste_checks(tmp_path, text, KVER)[KVER].status != "not-applicable"


def test_a_wsl_search_glob_is_no_wsl() -> None:
    # Modelled on ollama 0.1's search-path list, printed on every Linux host.
    from stackaudit.facts.platform import wsl_library

    assert wsl_library("gpu management search paths: [/usr/lib/wsl/lib/libnvidia-ml.so* /usr/lib64/libnvidia-ml.so*]") == ""
    assert wsl_library("wiring nvidia management library functions in /usr/lib/wsl/lib/libnvidia-ml.so.1")


# --- a GeForce card before Ada has no ECC (gputable.without_ecc) -----------------------------------------------------

def test_cut_smi_q_of_a_2080_ti_is_not_applicable() -> None:
    # Corpus 1919 (NVIDIA/nvidia-docker): `nvidia-smi -q` cut before its ECC Mode section.
    result = capture_checks("1919", ECC)[ECC]
    assert result.status == "not-applicable", result.message


def test_without_ecc_by_generation() -> None:
    from stackaudit.gputable import without_ecc

    assert without_ecc("NVIDIA GeForce RTX 3090")
    assert without_ecc("GeForce GTX 1080 Ti")
    assert not without_ecc("NVIDIA GeForce RTX 4090")  # Ada: NVML offers an ECC mode on some
    assert not without_ecc("Quadro RTX 6000")
    assert not without_ecc("NVIDIA A100-SXM4-80GB")


# --- no Resizable BAR before Turing, BAR1 shown or not (fw._bar1_from_nvidia) ---------------------------------------

def test_titan_xp_without_bar1_shown_is_not_an_issue() -> None:
    # Corpus 1896 (NVIDIA/nvidia-docker): a TITAN Xp's `nvidia-smi -q`, cut before BAR1 Memory Usage.
    result = capture_checks("1896", REBAR)[REBAR]
    assert result.status == "not-an-issue", result.message


# --- NCCL's affinity masks disjoint between GPUs: locality reported (fw._nccl_local_sets) ---------------------------

def test_disjoint_nccl_affinity_is_a_layout() -> None:
    # Corpus 1895 (pytorch/pytorch, NCCL 2.4.6): GPU 0 on 0-5,24-29, GPU 2 on 6-11,30-35.
    result = capture_checks("1895", NPS)[NPS]
    assert result.status == "not-an-issue", result.message


def test_a_cpu_mask_reads_as_its_cpus() -> None:
    # Corpus 1895's masks: words most significant first, as the kernel prints a cpumask.
    assert format_cpulist(parse_cpumask("3f00003f")) == "0-5,24-29"
    assert format_cpulist(parse_cpumask("0f,c0000fc0")) == "6-11,30-35"
    for bad in ("0-5", "", "f" * 16385):  # a list, nothing, a mask past 65536 CPUs (modelled)
        with pytest.raises(ParseError):
            parse_cpumask(bad)


def test_one_affinity_for_every_gpu_shows_no_layout(tmp_path: Path) -> None:
    # osayamenja/FlashMoE#3: both GPUs on the same CPUs (every CPU): no split shown.
    text = ("ubuntu-24.04:2446804:2446804 [0] NCCL INFO Setting affinity for GPU 0 to ffffffff,ffffffff\n"
            "ubuntu-24.04:2446805:2446805 [1] NCCL INFO Setting affinity for GPU 1 to ffffffff,ffffffff\n")
    assert paste_checks(tmp_path, text, NPS)[NPS].status != "not-an-issue"


# --- the lockup watchdog reporting a stall (kern.WATCHDOG_REPORTS) ---------------------------------------------------

def test_soft_lockup_report_is_not_an_issue() -> None:
    # Corpus 1913 (triton-inference-server/server): `watchdog: BUG: soft lockup - CPU#20 stuck for 23s!`.
    result = capture_checks("1913", WATCHDOG)[WATCHDOG]
    assert result.status == "not-an-issue", result.message


def test_hard_lockup_report_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled on the NMI watchdog's own line (kernel/watchdog_perf.c).
    text = "[123456.789012] NMI watchdog: Watchdog detected hard LOCKUP on cpu 12\n"
    assert paste_checks(tmp_path, text, WATCHDOG)[WATCHDOG].status == "not-an-issue"
