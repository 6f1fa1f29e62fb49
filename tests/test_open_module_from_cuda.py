"""DRV-OPEN-MODULE where no source shows the flavour: a Blackwell or Grace Hopper GPU on which a collect_env's or
check_env's torch initialised CUDA shows the open kernel module loaded, since only the open modules drive those GPUs
(facts/nvidia.py open_module_only, the driver README's "Blackwell and later are only supported by the open kernel
modules"). An Ampere or Hopper GPU that NVML or CUDA listed runs under either flavour, and WSL 2's GPU is the Windows
driver's.

Real pastes are corpus captures (the public thread beside each) or verbatim excerpts of a public thread;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia import open_module_only
from test_torch_cu129_cu130_arches import RTX5090_CU130

CHECK = "DRV-OPEN-MODULE"


@pytest.mark.parametrize(("prefix", "gpus", "model"), [
    ("484", 8, "NVIDIA GeForce RTX 5090"),  # sgl-project/sglang#8011: check_env, driver 570.148.08
    ("367", 8, "NVIDIA B200"),  # corpus 367: sglang check_env on eight B200, driver 580.95.05
    ("405", 2, "NVIDIA GeForce RTX 5090"),  # corpus 405: vLLM collect_env in an NGC 25.02 container, driver 570
    ("485", 4, "NVIDIA GB200"),  # corpus 485: sglang check_env on four GB200, driver 570.172.08
    ("32", 1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"),  # corpus 32: vLLM's new-format collect_env
])
def test_cuda_initialised_on_blackwell_shows_the_open_module(prefix: str, gpus: int, model: str) -> None:
    result = capture_checks(prefix, CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "open (inferred)"
    assert f"{gpus} Blackwell/Grace Hopper GPU(s)" in result.message and model in result.message
    assert "torch initialised CUDA" in result.message
    assert len(result.subjects) == gpus


@pytest.mark.parametrize(("prefix", "gpus", "arch"), [
    ("2243", 8, "Hopper"),  # corpus 2243: a collect_env's eight H100 SXM, driver 550.54.15 (both readers ok)
    ("202", 8, "Hopper"),  # vllm-project/vllm#11959: eight H100 under a collect_env whose CUDA is available
    ("348", 8, "Hopper"),  # vllm-project/vllm#13778: eight H20
    ("488", 3, "Ampere"),  # vllm-project/vllm#10409: three RTX 3070
])
def test_hopper_or_ampere_torch_ran_is_ok_under_either_flavour(prefix: str, gpus: int, arch: str) -> None:
    # Turing to Hopper run under either flavour: a collect_env's GPUs on which its torch initialised CUDA ran under
    # the loaded module, whichever it is (h101b; before it, a collect_env's GPUs alone left the flavour unknown).
    result = capture_checks(prefix, CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "either (not shown)", result.message
    assert f"{gpus} {arch} GPU(s) ran" in result.message and "collect_env" in result.message
    assert len(result.subjects) == gpus


def test_modelled_hopper_report_whose_cuda_is_not_available_says_nothing(tmp_path: Path) -> None:
    # Modelled on corpus 2243: the same collect_env with torch unable to initialise CUDA shows no GPU ran.
    text = body("2243").replace("Is CUDA available: True", "Is CUDA available: False")
    assert "Is CUDA available: False" in text
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown" and "flavour is not known" in result.message


def test_modelled_cuda_not_available_says_nothing(tmp_path: Path) -> None:
    # Modelled on sglang#8011's check_env: CUDA not available, so nothing shows the driver ran the GPUs (the report's
    # `nvidia-smi topo -m` is cut off too: NVML's columns would show the GPUs the module initialised, h72d).
    text = body("484").replace("CUDA available: True", "CUDA available: False").split("NVIDIA Topology:")[0]
    assert "CUDA available: False" in text
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown" and "flavour is not known" in result.message


def test_modelled_hopper_in_place_of_the_rtx_5090s_runs_under_either_flavour(tmp_path: Path) -> None:
    # Modelled on sglang#8011's check_env: the same report with H100s, which both flavours drive. Its `nvidia-smi topo
    # -m` columns (NVML's list) show the eight ran, so the verdict is ok whichever flavour is loaded (h97b).
    text = body("484").replace("NVIDIA GeForce RTX 5090", "NVIDIA H100 80GB HBM3").replace(
        "Compute Capability: 12.0", "Compute Capability: 9.0")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "either (not shown)" and "Hopper GPU(s) ran" in result.message


def test_wsl_2_blackwell_says_nothing_of_a_linux_module(tmp_path: Path) -> None:
    # vllm-project/vllm#30435: an RTX 5090 and an RTX 5060 Ti under WSL 2, where the GPUs are the Windows driver's
    # (581.57) and no Linux NVIDIA module is loaded.
    # No Linux kernel module runs there: the check does not apply (as corpus 986's WSL 2 words).
    result = paste_checks(tmp_path, RTX5090_CU130, CHECK)[CHECK]
    assert result.status == "not-applicable" and "WSL 2 (kernel 6.6.87.2-microsoft-standard-WSL2)" in result.message


def test_modelled_the_same_report_on_a_linux_kernel_shows_the_open_module(tmp_path: Path) -> None:
    # Modelled: vllm#30435's report with a plain Linux kernel and a Linux driver number (581.57 is a Windows driver's,
    # which a Linux report sees only under WSL 2, h72d), so the WSL 2 kernel alone keeps the rule out above.
    text = RTX5090_CU130.replace("6.6.87.2-microsoft-standard-WSL2", "6.8.0-62-generic").replace("581.57", "580.95.05")
    assert "580.95.05" in text
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "ok" and "2 Blackwell/Grace Hopper GPU(s)" in result.message


@pytest.mark.parametrize(("name", "architecture", "only_open"), [
    ("NVIDIA GeForce RTX 5090", "", True), ("NVIDIA GeForce RTX 5060 Ti", "", True),  # model words: Blackwell
    ("NVIDIA B200", "", True), ("NVIDIA GB200", "", True),  # table rows
    ("NVIDIA GH200 480GB", "", True),  # Grace Hopper: the one Hopper part only the open modules drive
    ("NVIDIA H100 80GB HBM3", "", False), ("NVIDIA GeForce RTX 3070", "", False), ("Tesla V100-SXM2-32GB", "", False),
    ("", "Blackwell", True), ("", "Hopper", False),  # NVML's Product Architecture alone
    ("NVIDIA Graphics Device", "", False),  # a name nothing reads stays out
])
def test_open_module_only(name: str, architecture: str, only_open: bool) -> None:
    assert open_module_only(name, architecture) is only_open



def test_turing_gpu_ollama_ran_is_ok_under_either_flavour() -> None:
    # Corpus 1676 (ollama/ollama#1973): ollama 0.1.20 finds a compute capability 7.5 GPU under 545.29.06; no source
    # shows the flavour, and both flavours drive Turing, so neither is required (h97b).
    result = capture_checks("1676", CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "either (not shown)" and "1 Turing GPU(s) ran" in result.message


def test_modelled_pre_turing_gpu_named_beside_the_turing_one_keeps_it_open(tmp_path: Path) -> None:
    # Modelled on 1676: the user's lspci also names a GTX 1080 (Pascal), which only the proprietary module drives;
    # the Turing GPU that ran no longer settles the check under either flavour.
    text = body("1676") + "\n01:00.0 VGA compatible controller: NVIDIA Corporation GP104 [GeForce GTX 1080] (rev a1)\n"
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.actual != "either (not shown)" and " Turing GPU(s) ran" not in result.message


@pytest.mark.parametrize(("prefix", "arch", "shown"), [
    ("1174", "Turing", "listed by nvidia-smi"),  # NVIDIA/gpu-operator#510: a T4 under the driver pod's nvidia-smi
    ("1037", "Turing", "nvbandwidth"),  # NVIDIA/nvbandwidth#13: two RTX 2080 Ti in nvbandwidth's device lines
    ("1204", "Turing", "ollama"),  # ollama/ollama#2883: ollama 0.1.27's compute capability 7.5 under 550.54.14
])
def test_turing_to_hopper_that_ran_elsewhere_is_ok_too(prefix: str, arch: str, shown: str) -> None:
    result = capture_checks(prefix, CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "either (not shown)"
    assert f"{arch} GPU(s) ran" in result.message and shown in result.message


def test_windows_driver_model_leaves_it_unknown() -> None:
    # Corpus 2047 (ollama/ollama#8980): Windows Server 2022's nvidia-smi shows the vGPU under WDDM, the Windows
    # driver's: no Linux kernel module ran it, so the either-flavour rule does not answer.
    result = capture_checks("2047", CHECK)[CHECK]
    assert result.actual != "either (not shown)"


@pytest.mark.parametrize(("prefix", "arch", "shown"), [
    ("2443", "Hopper", "ollama"),  # ollama/ollama#12136 (corpus 2443): ollama's CUDA discovery lists an H100
    ("2457", "Hopper", "collect_env"),  # corpus 2457: a collect_env's H20, torch's CUDA available, cut before the driver
    ("2278", "Turing", "nvidia-smi -L"),  # corpus 2278: `nvidia-smi -L` lists one Tesla T4, no driver version shown
])
def test_turing_to_hopper_that_ran_with_no_driver_shown_is_ok(prefix: str, arch: str, shown: str) -> None:
    # No source names the driver or its flavour: the GPU that CUDA or NVML listed ran under the loaded module, and
    # both flavours drive Turing to Hopper (h108a; before it, no driver shown left the check unknown).
    result = capture_checks(prefix, CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "either (not shown)", result.message
    assert f"{arch} GPU(s) ran" in result.message and shown in result.message


def test_modelled_report_with_no_driver_whose_cuda_is_not_available_stays_unknown(tmp_path: Path) -> None:
    # Modelled on corpus 2457: the same collect_env with torch unable to initialise CUDA shows no GPU ran.
    text = body("2457").replace("Is CUDA available            : True", "Is CUDA available            : False")
    assert "Is CUDA available            : False" in text
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown" and "not visible in this source" in result.message


def test_hgx_gb200_as_collect_env_names_it_shows_the_open_module() -> None:
    # NVIDIA/nccl#1769 (corpus 2439): torch's collect_env names each GPU of a Grace tray `HGX GB200` (the GB200 row's
    # alias), and torch initialised CUDA on the four: only the open module drives Blackwell.
    result = capture_checks("2439", CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "open (inferred)"
    assert "4 Blackwell/Grace Hopper GPU(s)" in result.message and "HGX GB200" in result.message


def test_owned_model_ends_at_a_glued_parenthesis() -> None:
    from stackaudit.facts.gpus import owned_model

    # vllm-project/vllm#20522 (corpus 2441): the user's words glue a parenthesis to the model.
    assert owned_model("... (rope-scaling \"YaRN\") on an RTX Pro 6000(202504 newest GPU), the server fails") \
        == "RTX Pro 6000"
    assert owned_model("I have an RTX 4090(24GB) here") == "RTX 4090"
    assert owned_model("on a cluster(ours) of machines") == ""


def test_cuda_launch_on_the_users_blackwell_gpu_shows_the_open_module() -> None:
    # vllm-project/vllm#20522 (corpus 2441): no driver shown, the user's one GPU is an RTX Pro 6000 (Blackwell), and
    # CUDA refused a kernel launch for want of code: its runtime reached the GPU, which the proprietary module refuses.
    result = capture_checks("2441", CHECK)[CHECK]
    assert result.status == "ok" and result.actual == "open (inferred)", result.message
    assert "RTX Pro 6000" in result.message and "no kernel image" in result.message


def test_modelled_blackwell_named_without_cuda_at_work_stays_unknown(tmp_path: Path) -> None:
    # Modelled on corpus 2441: the same paste without CUDA's error shows no GPU driven.
    text = "\n".join(line for line in body("2441").splitlines() if "kernel" not in line)
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown", result.message


def test_modelled_cuda_at_work_beside_an_ampere_gpu_says_nothing_of_open(tmp_path: Path) -> None:
    # Modelled on corpus 2441: the user's GPU an RTX 3090, which either flavour drives: CUDA at work shows no flavour.
    text = body("2441").replace("RTX Pro 6000", "RTX 3090")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.actual != "open (inferred)", result.message
