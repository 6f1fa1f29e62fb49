"""GPU identity from words (issue 28, h82a): an issue form's `### Hardware: GPU` answer, a compute capability alone,
a Jetson's platform lines, and the board power of older GeForce cards; and what MEM-MIG, DRV-FABRIC-MANAGER and
PWR-GPU-POWER-LIMIT then judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, capture_result, paste_checks
from stackaudit.facts.gpus import jetson_module, jetson_platform, parse_jetson_gpus, parse_ollama_gpus
from stackaudit.gputable import board_power, capability_name, has_mig, on_nvswitch
from stackaudit.importers.prose_machine import form_gpu_answer

GPU_CHECKS = ("MEM-MIG", "DRV-FABRIC-MANAGER")


# --- an issue form's `### Hardware: GPU` (NVIDIA/open-gpu-kernel-modules' bug form) ---------------------------------


def test_the_open_modules_form_names_the_gpu_1850() -> None:
    """Real (corpus 1850, NVIDIA/open-gpu-kernel-modules#673): `### Hardware: GPU` answered `NVIDIA GeForce RTX 3080`."""
    results = capture_checks("1850", *GPU_CHECKS)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(GPU_CHECKS, "not-applicable")
    assert "RTX 3080" in results["MEM-MIG"].message


def test_the_same_form_of_another_thread_names_its_gpu_560() -> None:
    """Real (corpus 560, another thread of the same form): `NVIDIA GeForce GTX 1660 Ti`."""
    results = capture_checks("560", *GPU_CHECKS)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(GPU_CHECKS, "not-applicable")


def test_the_form_answer_is_joined_or_left_to_its_own_reader() -> None:
    lines = ["### Hardware: GPU", "", "NVIDIA GeForce RTX 3080", "", "### Describe the bug"]
    assert form_gpu_answer(lines, 0) == ("GPU: NVIDIA GeForce RTX 3080", 2)
    # Another heading with a colon is no GPU field.
    assert form_gpu_answer(["### Hardware: CPU", "", "AMD Ryzen 9 5950X"], 0) == ("", 0)


def test_a_form_answering_an_a100_keeps_mig_open(tmp_path: Path) -> None:
    """Counter-example (modelled): the form names an A100, which has MIG: the subject stays open."""
    text = ("### NVIDIA Open GPU Kernel Modules Version\n\n535.104.05\n\n### Hardware: GPU\n\nNVIDIA A100-SXM4-80GB\n\n"
            "### Describe the bug\n\nNVRM: GPU 0000:07:00.0: RmInitAdapter failed! (0x62:0x40:2006)\n")
    results = paste_checks(tmp_path, text, *GPU_CHECKS)
    assert {r.status for r in results.values()} == {"unknown"}, results


# --- a compute capability alone ---------------------------------------------------------------------------------------

_CUT = ('Haz 27 19:00:55 TR ollama[7527]: time=2024-06-27T19:00:55.102+03:00 level=INFO source=types.go:98 '
        'msg="inference compute" id=GPU-e3887261-dc8c-0463-82a9-ebe5e760166f library=cuda compute={cc} driver=12.4 '
        'name="')


def test_a_cut_ollama_line_names_its_gpu_by_capability_1845() -> None:
    """Real (corpus 1845, ollama/ollama#5240): the line is cut inside its name; compute=8.6 is a GA10x part."""
    result = capture_checks("1845", "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable" and "compute capability 8.6" in result.message
    assert [g.model for g in parse_ollama_gpus(_CUT.format(cc="8.6")).gpus] == ["GPU of compute capability 8.6"]


@pytest.mark.parametrize(("capability", "mig", "switch"), [
    ("8.6", False, False), ("8.9", False, False), ("7.5", False, False), ("6.1", False, False),
    ("7.0", False, None),  # V100 SXM2 sits on HGX-2's NVSwitches
    ("8.0", None, None), ("9.0", None, None), ("12.0", None, None),  # MIG parts beside parts without
])
def test_a_capability_says_what_its_architecture_allows(capability: str, mig: bool | None,
                                                        switch: bool | None) -> None:
    name = capability_name(capability)
    assert (has_mig(name), on_nvswitch(name)) == (mig, switch)


def test_a_cut_line_of_an_a100_keeps_mig_open(tmp_path: Path) -> None:
    """Counter-example (modelled): compute=8.0 is the A100's and the A30's, both with MIG."""
    result = paste_checks(tmp_path, _CUT.format(cc="8.0") + "\n", "MEM-MIG")["MEM-MIG"]
    assert result.status == "unknown", result.message


# --- a Jetson's platform lines -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["1828", "1831"])
def test_a_jetson_by_its_l4t_release_or_nvrmmem_lines(prefix: str) -> None:
    """Real: corpus 1828 (triton-inference-server/server#6373, `AGX L4T: 35.2.1`) and 1831 (ollama/ollama#1289, ollama's
    journal with `NvRmMemInitNvmap failed with Permission denied`)."""
    results = capture_checks(prefix, *GPU_CHECKS)
    assert {k: r.status for k, r in results.items()} == dict.fromkeys(GPU_CHECKS, "not-applicable")
    assert "Jetson" in results["MEM-MIG"].message


@pytest.mark.parametrize(("line", "model"), [
    # NVIDIA/nvidia-docker#1598: jtop's release line on an AGX Xavier.
    ("   * Jetpack 4.5.1 [L4T 32.5.2]", "NVIDIA Jetson, L4T R32.5.2"),
    # Osmantic/ODS#1479: an Orin Nano Super on R36.4.7.
    ("[log] GPU: NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super (Jetson L4T R36.4.7, 7619MB unified "
     "memory)", "NVIDIA Jetson Orin Nano"),
    ("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64", "NVIDIA Jetson, L4T R35.4.1"),
    # anduril/jetpack-nixos#118 (Orin) and jetsonhacks/rootOnNVMe#28 (TX2): Tegra's memory manager.
    ("Jul 27 12:26:37 nixos gdm-x-session[1085]: NvRmMemInitNvmap failed with Permission denied",
     "NVIDIA Jetson, Tegra's NvRmMem memory manager"),
    ("****NvRmMemInit failed**** error type: 196626", "NVIDIA Jetson, Tegra's NvRmMem memory manager"),
    ("Hostname: jetson-desktop", ""), ("nvcc: NVIDIA (R) Cuda compiler driver, release 12.4", ""),
])
def test_the_platform_lines_name_a_jetson(line: str, model: str) -> None:
    assert jetson_platform(line) == model


def test_thor_keeps_mig_open_and_has_no_nvswitch() -> None:
    """Counter-example (modelled): L4T R38 is Jetson AGX Thor's, whose GPU has MIG; no Jetson sits on an NVSwitch."""
    thor = jetson_module("L4T: 38.2.0")
    assert thor == "NVIDIA Jetson, L4T R38.2.0"
    assert has_mig(thor) is None and on_nvswitch(thor) is False
    assert has_mig(jetson_module("L4T: 36.4.0")) is False


def test_the_module_named_beside_its_release_is_one_gpu() -> None:
    """jtop names the module and its L4T release (corpus 1773): one GPU, named as the module."""
    inventory = parse_jetson_gpus("Module: NVIDIA Jetson Orin NX(16GB ram)\nL4T: 36.4.0\n")
    assert [g.model for g in inventory.gpus] == ["NVIDIA Jetson Orin NX"]
    assert capture_checks("1773", "MEM-MIG")["MEM-MIG"].status == "not-applicable"


def test_a_module_named_without_the_brand_is_the_jetson_2716() -> None:
    """Real: corpus 2716 (vllm-project/vllm#12346) names `Jetson Orin NX 16G` over `jetpack 6.2`: an Orin's integrated
    GPU, no MIG. Real, another thread: corpus 2517 (`a new Jetson thor`) names Thor, whose GPU keeps MIG open."""
    result = capture_result("2716", "MEM-MIG")
    assert result.status == "not-applicable" and "Jetson Orin NX" in result.message
    assert jetson_module("I just get a new Jetson thor couple days ago") == "NVIDIA Jetson Thor"
    assert has_mig("NVIDIA Jetson Thor") is None


@pytest.mark.parametrize("line", ["docker: dustynv/vllm:0.6.3-r36.4.0 on jetson-orin-nx", "cd ~/l4t.jetson orin/",
                                  "image: nvcr.io/jetson:orin"])
def test_a_path_or_image_name_names_no_module(line: str) -> None:
    """Counter-example (modelled): `jetson` inside a path, an image or a host name is no module."""
    assert jetson_module(line) == ""


# --- older GeForce cards' board power ----------------------------------------------------------------------------------


def test_a_gtx_1050_ti_at_its_board_power_is_ok_1846() -> None:
    """Real (corpus 1846, oobabooga/textgen#4407): 75 W, the GTX 1050 Ti's Graphics Card Power."""
    result = capture_checks("1846", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "ok" and "75 W" in result.message


@pytest.mark.parametrize("prefix", ["410", "1377", "1439"])
def test_other_older_geforce_caps_are_judged(prefix: str) -> None:
    """Real: corpus 410 (GTX 1650 at 75 W), 1377 (a GTX 1660 partner board at 130 W, above 120 W) and 1439 (a GTX 1080
    partner board at 200 W, above 180 W): a factory default above the reference loses nothing."""
    assert capture_checks(prefix, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status == "ok"


def test_the_ti_and_the_plain_card_are_different_rows() -> None:
    assert board_power("NVIDIA GeForce GTX 1050 Ti") is not None and board_power("NVIDIA GeForce GTX 1050") is None
    assert board_power("NVIDIA GeForce GTX 1660 SUPER") is None  # 125 W: a name the table does not give
    assert board_power("NVIDIA GeForce GTX 1650 Ti with Max-Q Design") is None  # a laptop's part


_CAPPED_1050_TI = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.113.01             Driver Version: 535.113.01   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce GTX 1050 Ti     Off | 00000000:01:00.0  On |                  N/A |
| 45%   29C    P0              N/A /  50W |    354MiB /  4096MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""


def test_a_gtx_1050_ti_capped_below_its_board_power_is_an_issue(tmp_path: Path) -> None:
    """Counter-example (modelled): the same card capped at 50 W."""
    result = paste_checks(tmp_path, _CAPPED_1050_TI, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "issue" and "75 W" in result.message
