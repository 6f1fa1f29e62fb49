"""Facts a user's environment list states (issue 28, blind runs MM and NN).

- The driver written without a colon (`- NVIDIA driver 595.91.07`), as an item of a comma list (`..., driver
  580.159.03, ...`) or as the open flavour's package with its version (`nvidia-open 595.71.05`): facts/nvidia.py
  STATED_DRIVER.
- `nvidia-open`, the open flavour's package, on the line that states the driver's version names that driver's
  flavour: facts/nvidia.py OPEN_PACKAGE_NAME.
- torch named with its CUDA build among other items of a line (`Docker: PyTorch 2.13.0+cu130, ...`): facts/python_env.py
  STATED_TORCH_BUILD.
- A list's power limit: `N W per GPU` beside a count of one model (importers/rig_report.py per_gpu_limit), and a
  `Power limit is already at 480W (default 600W)` line below the list's GPU line, with its default.
- An engine image whose tag names its CUDA (`lmsysorg/sglang:v0.5.12-cu130`: facts/docker.py ENGINE_CUDA_IMAGE), and a
  list's `- Image:` line naming one, read as torch's CUDA (facts/python_env.py LISTED_ENGINE_IMAGE).
- B300 and GB300 (Blackwell Ultra, compute capability 10.3) are in the GPU table (data/gpus.toml); a collect_env whose
  copy ends inside its GPU list marks the cut name, and drops one that shows vendor words only
  (facts/collect_env.py _mark_cut_gpu). The A800 SXM4 is in the GPU table.
"""

from __future__ import annotations

import pytest

from corpus import capture_checks, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.facts.docker import engine_image_cuda
from stackaudit.facts.nvidia import driver_from_evidence_lines
from stackaudit.facts.python_env import listed_engine_image, python_env_from_stated_versions
from stackaudit.gputable import lookup
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.rig_report import per_gpu_limit

# https://github.com/flashinfer-ai/flashinfer/pull/4539 (a comment's hardware line)
FLASHINFER_4539 = ("Hardware: NVIDIA GB300 (`sm_103a`), UUID `GPU-72450c7a-8fc8-e142-912a-b6355c5da71a`, driver "
                   "580.167.08, CUDA 13.0 / NVCC 13.0.88, Torch 2.13.0+cu130.")
# https://github.com/autowarefoundation/auto_e2e/pull/27: the pinned requirement in prose, the build used in a list.
AUTO_E2E_27_PIN = ("The pinned `torch==2.4.1+cu118 (CUDA 11.8)` build predates the Blackwell architecture and ships no "
                   "`sm_120` kernels, so it cannot run on the RTX 5080.")
AUTO_E2E_27_LIST = "  - `torch 2.11.0+cu128`"
# corpus 237 (a node's health table), 621 (an environment list), 252 (a one-line environment)
LINE_237 = ("| Node labels | ✅ Compute capability `10.0` (Blackwell sm_100), driver 580.159.03, CUDA runtime 13.0 |")
LINE_621 = "- NVIDIA Driver 575.51.03, installed using `nvidia-open` package from CUDA repo"
LINE_252 = "Arch Linux, 7.0.5-arch1-1, nvidia-open 595.71.05-5, RTX 5070TI."


# --- the driver a list states -----------------------------------------------------------------------------------


def test_syv_ai_163_env_list_driver_and_torch_build_are_compatible() -> None:
    # corpus 805 (syv-ai/qwen38-27b-rtx3090#163): `- NVIDIA driver 595.91.07`, `- Docker: PyTorch 2.13.0+cu130, ...`.
    r = capture_checks("805", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok"
    assert "595.91.07" in r.message and "13.0" in r.message


@pytest.mark.parametrize(("line", "version"), [(LINE_237, "580.159.03"), (LINE_621, "575.51.03"),
                                               (LINE_252, "595.71.05"), (FLASHINFER_4539, "580.167.08")])
def test_driver_without_a_colon_in_a_list(line: str, version: str) -> None:
    assert is_evidence(line)
    assert driver_from_evidence_lines(line + "\n").version == version


def test_modelled_driver_in_a_sentence_is_not_stated() -> None:
    # Modelled: a driver the user tried, inside a sentence, is not the host's.
    line = "We also tried the driver 570.86.15 from the CUDA repo last week"
    assert not is_evidence(line)
    with pytest.raises(ParseError):
        driver_from_evidence_lines(line + "\n")


# --- the open flavour from its package's name --------------------------------------------------------------------


def test_rtx_pro_6000_nvidia_open_package_is_the_open_module() -> None:
    # corpus 803 (NVIDIA/open-gpu-kernel-modules#1159): `- **Driver**: nvidia-open 595.71.05 (Ubuntu package)`.
    r = capture_checks("803", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "595.71.05" in r.message


@pytest.mark.parametrize("line", [LINE_621, LINE_252])
def test_nvidia_open_beside_the_version_names_the_flavour(line: str) -> None:
    driver = driver_from_evidence_lines(line + "\n")
    assert driver.flavour == "open" and driver.flavour_evidence == f"package: {line.strip()}"


def test_modelled_nvidia_open_elsewhere_names_no_flavour() -> None:
    # Modelled: the package named in an install step, not beside the driver the list states.
    driver = driver_from_evidence_lines("- Driver: 570.133.07\n- Next I will try `sudo pacman -S nvidia-open`\n")
    assert driver.version == "570.133.07" and driver.flavour is None


# --- torch's build among other items ------------------------------------------------------------------------------


def test_torch_build_among_a_lines_items() -> None:
    env = python_env_from_stated_versions("- Docker: PyTorch 2.13.0+cu130, CUDA runtime 13.0, patched vLLM 0.28.0.\n")
    (found,) = env.environments
    assert found.torch_cuda == "13.0" and found.packages["vllm"] == "0.28.0" and found.engine == "vllm"
    assert python_env_from_stated_versions(AUTO_E2E_27_LIST + "\n").environments[0].torch_cuda == "12.8"


def test_flashinfer_4539_hardware_line_is_compatible() -> None:
    r = run_checks(pasted(FLASHINFER_4539 + "\n"), ["DRV-CUDA-COMPAT"])["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "580.167.08" in r.message and "13.0" in r.message


def test_auto_e2e_27_pinned_requirement_is_not_the_build() -> None:
    # pip's `torch==2.4.1+cu118` is what a file pins, not what runs: only the listed build counts.
    assert not is_evidence(AUTO_E2E_27_PIN)
    env = python_env_from_stated_versions(AUTO_E2E_27_PIN + "\n" + AUTO_E2E_27_LIST + "\n")
    assert env.environments[0].torch_cuda == "12.8"


def test_modelled_two_torch_builds_name_no_one_torch() -> None:
    with pytest.raises(ParseError):
        python_env_from_stated_versions("- tried torch 2.7.0+cu128 first\n- then torch 2.8.0+cu129, same error\n")


# --- Blackwell Ultra in the GPU table, and a GPU list the paste cuts ---------------------------------------------


@pytest.mark.parametrize("name", [
    "NVIDIA B300 SXM6 AC",  # corpus 825 (vllm-project/vllm#30441); `device: NVIDIA B300 SXM6 AC cc=(10, 3)` in a profile
    "NVIDIA GB300",  # flashinfer-ai/flashinfer#4539: `Hardware: NVIDIA GB300 (sm_103a)`
])
def test_blackwell_ultra_is_compute_10_3(name: str) -> None:
    assert lookup(name).spec.compute_capability == "10.3"
    assert lookup(name).spec.architecture == "Blackwell"


def test_vllm_30441_b300_collect_env_cut_in_its_gpu_list_has_torch_kernels() -> None:
    # corpus 825: the copy ends inside `GPU 3: NVIDIA B3`, the start of the B300 name above it.
    r = capture_checks("825", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok"
    assert "NVIDIA B300 SXM6 AC (compute 10.3)" in r.message and "NVIDIA B3... (compute 10.3)" in r.message


def test_a_cut_last_gpu_line_is_marked_cut() -> None:
    text = "GPU models and configuration : \nGPU 0: NVIDIA B300 SXM6 AC\nGPU 1: NVIDIA B3\n"
    assert parse_collect_env("PyTorch version              : 2.9.0+cu130\n" + text).gpu_models == (
        "NVIDIA B300 SXM6 AC", "NVIDIA B3...")


def test_a_cut_last_gpu_line_of_vendor_words_only_names_no_gpu() -> None:
    # corpus 958 (vllm-project/vllm-omni#241): the copy ends inside `GPU 1: NVIDIA`; the H20 above it is shown.
    text = "GPU models and configuration : \nGPU 0: NVIDIA H20\nGPU 1: NVIDIA\n"
    assert parse_collect_env("PyTorch version              : 2.8.0+cu128\n" + text).gpu_models == ("NVIDIA H20",)
    r = capture_checks("958", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok" and "NVIDIA H20 (compute 9.0)" in r.message, r.message


def test_vllm_17952_a800_sxm4_is_compute_8_0() -> None:
    # corpus 959 (vllm-project/vllm#17952): `GPU 0: NVIDIA A800-SXM4-80GB`, torch 2.6.0+cu124.
    assert lookup("NVIDIA A800-SXM4-80GB").spec.name == "A800 SXM4 80GB"
    r = capture_checks("959", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok" and "compute 8.0" in r.message, r.message


def test_a_cut_name_no_one_board_reads_leaves_fabric_manager_open() -> None:
    # corpus 650 (TabbyML/tabby): `NVIDIA ...` with 80 GB and a 400 W cap is an A100 or an A800 SXM4 module: which
    # board is not shown, and neither is a switch, so "no NVSwitch" does not follow.
    r = capture_checks("650", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert r.status == "unknown" and "names no one board" in r.message, r.message


def test_modelled_whole_gpu_lines_are_not_marked_cut() -> None:
    # Modelled: the same name twice, and a last name no other name starts with, are whole.
    head = "PyTorch version              : 2.9.0+cu130\nGPU models and configuration : \n"
    assert parse_collect_env(head + "GPU 0: NVIDIA B200\nGPU 1: NVIDIA B200\n").gpu_models == ("NVIDIA B200",) * 2
    assert parse_collect_env(head + "GPU 0: NVIDIA B300 SXM6 AC\nGPU 1: NVIDIA B200\n").gpu_models == (
        "NVIDIA B300 SXM6 AC", "NVIDIA B200")
    # A cut name that is not the paste's last line is a name the report printed.
    assert parse_collect_env(head + "GPU 0: NVIDIA B300 SXM6 AC\nGPU 1: NVIDIA B3\n\nNvidia driver version        : "
                             "580.95.05\n").gpu_models[1] == "NVIDIA B3"


# --- a power limit the list states ---------------------------------------------------------------------------------


def test_syv_ai_163_per_gpu_limit_below_the_3090_default() -> None:
    # corpus 805: `- 2× RTX 3090 24 GB, NVLink (...), 250 W per GPU.`: two GPUs, each capped below the table's 350 W.
    r = capture_checks("805", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "issue"
    assert "GPU 0 capped at 250 W" in r.message and "GPU 1 capped at 250 W" in r.message and "350 W" in r.message


def test_open_gpu_kernel_modules_1159_stated_limit_and_default() -> None:
    # corpus 803: `- **GPU**: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (96GB)`, then `- Power limit is
    # already at 480W (default 600W)`.
    r = capture_checks("803", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "issue" and "480 W" in r.message and "600 W" in r.message


def test_fwupd_10896_plain_list_limit_still_read() -> None:
    # corpus 751: `GPU power limit: 250 W` below `GPU: NVIDIA RTX PRO 6000 Blackwell Max-Q ..., 97,887 MiB`.
    assert capture_checks("751", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status != "unknown"


def test_per_gpu_limit_needs_one_counted_model() -> None:
    assert per_gpu_limit("- 2× RTX 3090 24 GB, NVLink (`nvidia-smi topo -m`: NV4), 250 W per GPU.") == (
        2, "RTX 3090", "250")
    # Modelled: no limit, or two models, state no one GPU's limit.
    assert per_gpu_limit("- 2× RTX 3090 24 GB, NVLink (`nvidia-smi topo -m`: NV4).") is None
    assert per_gpu_limit("- 2x RTX 3090 and 2x RTX 4090, 250 W per GPU") is None


def test_modelled_limit_at_the_stated_default_is_no_cap() -> None:
    text = "- **GPU**: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (96GB)\n- Power limit: 600W (default 600W)\n"
    assert run_checks(pasted(text), ["PWR-GPU-POWER-LIMIT"])["PWR-GPU-POWER-LIMIT"].status == "ok"


def test_modelled_limit_without_a_gpu_line_is_not_read() -> None:
    # Modelled: a limit with no GPU line above it is no GPU's.
    text = "- Power limit is already at 480W (default 600W) - not hitting power wall\n"
    assert run_checks(pasted(text), ["PWR-GPU-POWER-LIMIT"])["PWR-GPU-POWER-LIMIT"].status == "unknown"


# --- an engine image whose tag names its CUDA ----------------------------------------------------------------------


@pytest.mark.parametrize(("image", "found"), [
    ("lmsysorg/sglang:v0.5.12-cu130", ("sglang", "13.0")),  # corpus 810 (sgl-project/sglang#26087)
    ("lmsysorg/sglang:v0.2.13-cu121", ("sglang", "12.1")),  # corpus 750 (sgl-project/sglang#1117)
    ("lmsysorg/sglang:v0.5.3.post1-cu129-amd64", ("sglang", "12.9")),  # corpus 426 (sgl-project/sglang#11052)
    ("vllm/vllm-openai:deepseekv4-cu129", ("vllm", "12.9")),  # corpus 801/802
    # Modelled: a major without its minor, and a tag without a CUDA, name none.
    ("lmsysorg/sglang:dev-cu12", None),
    ("lmsysorg/sglang:latest", None),
])
def test_engine_image_cuda(image: str, found: tuple[str, str] | None) -> None:
    assert engine_image_cuda(image) == found


def test_sglang_26087_listed_image_is_torchs_cuda() -> None:
    # corpus 810: `- Driver: 595.58.03` and `- Image: `lmsysorg/sglang:v0.5.12-cu130``.
    r = capture_checks("810", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "ok" and "595.58.03" in r.message and "13.0" in r.message


def test_modelled_listed_image_newer_than_the_driver_is_an_issue() -> None:
    # Modelled on 810: a CUDA 13.0 image on a driver of the 570 branch (CUDA 12.8), below CUDA 13's floor.
    text = "- Driver: 570.133.20\n- Image: `lmsysorg/sglang:v0.5.12-cu130`\n"
    assert run_checks(pasted(text), ["DRV-CUDA-COMPAT"])["DRV-CUDA-COMPAT"].status == "issue"


def test_modelled_other_images_are_not_listed_engine_images() -> None:
    assert listed_engine_image("- Image: `lmsysorg/sglang:v0.5.12-cu130`") == "lmsysorg/sglang:v0.5.12-cu130"
    assert listed_engine_image("- Image: `nvidia/cuda:13.0.1-devel-ubuntu24.04`") == ""
    assert listed_engine_image("- Image: `lmsysorg/sglang:latest`") == ""


# --- the machine in the user's words, club-3090#803 (corpus 1058) ----------------------------------------------------

def test_a_power_cap_beside_a_count_is_each_cards_limit_1058() -> None:
    # corpus 1058: `i powercap at 230 watt, 2x rtx3090s, no nvlink.`: each RTX 3090 capped below the table's 350 W.
    r = capture_checks("1058", "PWR-GPU-POWER-LIMIT", "DRV-CUDA-COMPAT")
    assert r["PWR-GPU-POWER-LIMIT"].status == "issue"
    assert "GPU 1 capped at 230 W" in r["PWR-GPU-POWER-LIMIT"].message and "350 W" in r["PWR-GPU-POWER-LIMIT"].message
    # `GPU driver: NVIDIA 595.84`: the vendor's name before the version.
    assert r["DRV-CUDA-COMPAT"].status == "ok" and "595.84" in r["DRV-CUDA-COMPAT"].message
    assert driver_from_evidence_lines("GPU driver: NVIDIA 595.84\n").version == "595.84"


def test_modelled_a_cap_without_one_counted_model_is_no_ones() -> None:
    assert per_gpu_limit("I power-limited them to 280W, 2x RTX 3090") == (2, "RTX 3090", "280")
    # Modelled: a cap with no count and model, or with two models, names no GPU's limit.
    assert per_gpu_limit("i powercap at 230 watt to keep the room cool") is None
    assert per_gpu_limit("powercap at 230 watt, 2x RTX 3090 and 2x RTX 4090") is None
