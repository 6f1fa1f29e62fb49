"""Host checks from partial host evidence (issue 28, h79c).

KVER-INTEL-PSTATE: lscpu's `Frequency boost:` line is read from cpufreq/boost, which on an Intel CPU only acpi-cpufreq
creates (intel_pstate turns turbo off by intel_pstate/no_turbo), so an Intel Xeon model that has HWP with that line runs
on acpi-cpufreq: the issue, from lscpu alone (corpus 1788, Xeon 8480+; corpus 1711, Xeon 8358). Without the line, or on
an AMD CPU, or on a Xeon model without HWP, the driver stays unknown or the check does not apply.

FW-ABOVE4G-MMIO: a CUDA program at work on the GPUs (facts/cuda_ran.py) shows the driver attached them, which it refuses
for a GPU whose BARs got no space: ok for the GPUs CUDA found, without lspci (corpus 1784, 1283, 1445).

MEM-MIG: a Jetson module before Thor (Nano, TX1, TX2, Xavier, Orin) has an integrated GPU without MIG: jtop's `Module:`
line (corpus 1773) and collect_env's `Orin (nvgpu)` (corpus 1715) name it, so the check does not apply.

DRV-FABRIC-MANAGER: a GPU name the source cut means the one table row whose product name starts with what it shows
(`NVIDIA H100 80GB...`: the H100 SXM), so torch's CUDA up on H100 SXM GPUs reads ok (corpus 1774).

DRV-OPEN-MODULE and KVER-NVIDIA-KERNEL-COMBOS: NVIDIA/open-gpu-kernel-modules' bug form answers `NVIDIA Open GPU
Kernel Modules Version` with the open module's version and `Kernel Release` with the kernel (corpus 1786, 1787, 560).

PWR-GPU-POWER-LIMIT: the RTX 4090 D's default board power is 425 W (NVIDIA's page), so its cap at 425 W is ok.

Real pastes are corpus captures (their thread in the header) or public pages (named); modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.cpufreq import intel_driver_from_lscpu
from stackaudit.facts.gpus import jetson_module
from stackaudit.facts.nvidia import driver_from_evidence_lines
from stackaudit.facts.system import parse_lscpu
from stackaudit.gputable import board_power, candidates, has_mig, without_mig

PSTATE = "KVER-INTEL-PSTATE"
POWER = "PWR-GPU-POWER-LIMIT"


# --- KVER-INTEL-PSTATE from lscpu -------------------------------------------------------------------------------------

def test_a_sapphire_rapids_lscpu_with_the_boost_line_runs_acpi_cpufreq() -> None:
    r = capture_checks("1788", PSTATE)[PSTATE]  # pytorch/pytorch#140563: Xeon 8480+, Frequency boost, max 2001 MHz
    assert r.status == "issue" and "acpi-cpufreq" in r.message and "8480+" in r.message


def test_an_ice_lake_xeon_with_the_boost_line_reads_the_same() -> None:
    r = capture_checks("1711", PSTATE)[PSTATE]  # vllm-project/vllm#5443: Xeon 8358, Frequency boost: enabled
    assert r.status == "issue" and "8358" in r.message


# An Emerald Rapids lscpu (gyuanlab/ONTraC's command-line tutorial, its hardware section): Xeon 8568Y+, model 207,
# Frequency boost enabled and CPU max MHz 2301 (base + 1 MHz); its whole flags line has no `hwp`, which the BIOS hides.
EMERALD = """Architecture:                       x86_64
CPU op-mode(s):                     32-bit, 64-bit
CPU(s):                             96
Vendor ID:                          GenuineIntel
Model name:                         INTEL(R) XEON(R) PLATINUM 8568Y+
CPU family:                         6
Model:                              207
Thread(s) per core:                 1
Core(s) per socket:                 48
Socket(s):                          2
Stepping:                           2
Frequency boost:                    enabled
CPU(s) scaling MHz:                 100%
CPU max MHz:                        2301.0000
CPU min MHz:                        800.0000
BogoMIPS:                           4600.00
Flags:                              fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 est tm2 ssse3 dtherm ida arat pln pts hfi
"""


def test_an_emerald_rapids_lscpu_whose_flags_hide_hwp_is_the_issue(tmp_path: Path) -> None:
    cpu = parse_lscpu(EMERALD)
    assert cpu.frequency_boost == "enabled" and "hwp" not in cpu.flags and cpu.hwp_capable
    r = paste_checks(tmp_path, EMERALD, PSTATE)[PSTATE]
    assert r.status == "issue" and "8568Y+" in r.message


def test_modelled_lscpu_without_the_boost_line_stays_unknown(tmp_path: Path) -> None:
    # Modelled: corpus 1788's lscpu without its Frequency boost line (intel_pstate shows no cpufreq/boost).
    text = body("1788").replace("Frequency boost:                    enabled\n", "")
    assert "Frequency boost" not in text
    assert paste_checks(tmp_path, text, PSTATE)[PSTATE].status == "unknown"


def test_modelled_broadwell_xeon_with_the_boost_line_stays_unknown(tmp_path: Path) -> None:
    # Modelled: corpus 1788's lscpu as a Broadwell Xeon (model 79), which has no HWP: acpi-cpufreq is its driver.
    text = body("1788").replace("Model:                              143", "Model:                              79")
    assert paste_checks(tmp_path, text, PSTATE)[PSTATE].status == "unknown"


def test_the_boost_line_names_acpi_cpufreq_only_on_intel() -> None:
    # Real AMD pastes show the line too (util-linux/util-linux#755: EPYC 7451): amd-pstate or acpi-cpufreq, not told.
    assert intel_driver_from_lscpu("GenuineIntel", "disabled") == "acpi-cpufreq"
    assert intel_driver_from_lscpu("AuthenticAMD", "enabled") is None
    assert intel_driver_from_lscpu("GenuineIntel", "") is None


# --- FW-ABOVE4G-MMIO from CUDA at work ----------------------------------------------------------------------------------

MMIO = "FW-ABOVE4G-MMIO"


def test_two_p40s_llama_cpp_counted_have_their_bars() -> None:
    r = capture_checks("1784", MMIO)[MMIO]  # ggml-org/llama.cpp#16953: ggml_cuda_init found 2 CUDA devices
    assert r.status == "ok" and "2 CUDA device(s)" in r.message


def test_other_threads_cuda_at_work_read_the_same() -> None:
    # ggml-org/llama.cpp#13560 (found 3 CUDA devices); vllm-project/vllm#2700 (vLLM's metrics line generating).
    assert capture_checks("1283", MMIO)[MMIO].status == "ok"
    assert capture_checks("1445", MMIO)[MMIO].status == "ok"


def test_modelled_cuda_that_failed_to_start_stays_unknown(tmp_path: Path) -> None:
    # Modelled: corpus 1784's llama.cpp start where CUDA failed to initialise instead of counting its devices.
    text = body("1784").replace(
        "ggml_cuda_init: found 2 CUDA devices:",
        "ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version")
    assert paste_checks(tmp_path, text, MMIO)[MMIO].status == "unknown"


# --- PWR-GPU-POWER-LIMIT: the RTX 4090 D --------------------------------------------------------------------------------

def test_a_4090_d_at_425_w_is_at_its_default() -> None:
    r = capture_checks("1768", POWER)[POWER]  # triton-inference-server/server#7911: one RTX 4090 D, 23W / 425W
    assert r.status == "ok" and "GPU 0 425 W" in r.message


def test_modelled_4090_d_below_its_default_is_the_issue(tmp_path: Path) -> None:
    # Modelled: corpus 1768's table with the cap lowered to 350 W.
    text = body("1768").replace("23W /  425W", "23W /  350W")
    r = paste_checks(tmp_path, text, POWER)[POWER]
    assert r.status == "issue" and "350 W" in r.message and "425 W" in r.message


def test_the_4090_d_row_does_not_take_the_4090s_name() -> None:
    assert board_power("NVIDIA GeForce RTX 4090 D") is not None
    assert board_power("NVIDIA GeForce RTX 4090") is None  # the 4090's full row holds its 450 W


# --- MEM-MIG on a Jetson module -----------------------------------------------------------------------------------------

MIG = "MEM-MIG"


def test_a_jtop_summary_of_an_orin_nx_has_no_mig() -> None:
    r = capture_checks("1773", MIG)[MIG]  # dusty-nv/jetson-containers#704: jtop's `Module: NVIDIA Jetson Orin NX(16GB ram)`
    assert r.status == "not-applicable" and "Jetson Orin NX" in r.message


def test_collect_env_names_an_orins_gpu_without_mig() -> None:
    r = capture_checks("1715", MIG)[MIG]  # collect_env's `GPU 0: Orin (nvgpu)` on a tegra kernel
    assert r.status == "not-applicable" and "Orin (nvgpu)" in r.message


def test_jetson_lines_from_other_threads_name_the_module() -> None:
    # rbonghi/jetson_stats#617 (jtop's board list); OE4T/meta-tegra#1822 (hostnamectl); rbonghi/jetson_stats#864.
    assert jetson_module(" - Module: NVIDIA Jetson AGX Orin (32GB ram)") == "NVIDIA Jetson AGX Orin"
    assert jetson_module("  Hardware Model: NVIDIA Jetson AGX Orin Developer Kit") == "NVIDIA Jetson AGX Orin"
    assert jetson_module(" - Model: NVIDIA Jetson AGX Orin Developer Kit") == "NVIDIA Jetson AGX Orin"
    assert all(without_mig(m) for m in ("NVIDIA Jetson AGX Orin", "NVIDIA Jetson Orin NX", "Orin (nvgpu)"))


def test_a_host_name_or_thor_is_no_jetson_without_mig() -> None:
    # Modelled: a host name names no module; Jetson Thor's Blackwell GPU has MIG (corpus 1384 reads NVIDIA Thor ok).
    assert jetson_module("Hostname: jetson-desktop") == ""
    assert has_mig("NVIDIA Jetson AGX Thor") is not False and has_mig("NVIDIA Thor") is not False
    assert capture_checks("1384", MIG)[MIG].status == "ok"


# --- DRV-FABRIC-MANAGER: a cut GPU name read as its one row -----------------------------------------------------------

FABRIC = "DRV-FABRIC-MANAGER"


def test_torch_up_on_h100_sxm_with_a_cut_second_name_is_ok() -> None:
    # vllm-project/vllm#8881: collect_env's `Is CUDA available: True`, GPU 0 `NVIDIA H100 80GB HBM3`, GPU 1 cut at
    # `NVIDIA H100 80GB`: only the H100 SXM's product name starts so (the PCIe card is `NVIDIA H100 PCIe`).
    r = capture_checks("1774", FABRIC)[FABRIC]
    assert r.status == "ok" and "H100 SXM" in r.message


def test_the_cut_name_reads_as_its_one_row_only() -> None:
    assert [s.name for s in candidates("NVIDIA H100 80GB...")] == ["H100 SXM"]
    assert len(candidates("NVIDIA H100...")) > 1  # SXM, PCIe and NVL: no one row


def test_modelled_a_cut_name_several_rows_share_stays_unknown(tmp_path: Path) -> None:
    # Modelled: corpus 1774 with both names cut at `NVIDIA H100`, which the SXM, PCIe and NVL names all start with.
    text = body("1774").replace("GPU 1: NVIDIA H100 80GB", "GPU 1: NVIDIA H100").replace(
        "GPU 0: NVIDIA H100 80GB HBM3", "GPU 0: NVIDIA H100")
    assert paste_checks(tmp_path, text, FABRIC)[FABRIC].status == "unknown"


def test_modelled_a_cut_name_beside_its_full_name_reads_as_it(tmp_path: Path) -> None:
    # Modelled: GPU 1 cut at `NVIDIA H100` beside GPU 0's full `NVIDIA H100 80GB HBM3`: one device list of one board
    # names the cut GPU as the full name it begins (checks/drv._full_names, corpus 1852's two readers).
    text = body("1774").replace("GPU 1: NVIDIA H100 80GB", "GPU 1: NVIDIA H100")
    assert paste_checks(tmp_path, text, FABRIC)[FABRIC].status == "ok"


def test_the_802_refusal_still_wins() -> None:
    # Corpus 1105 (its header names the thread): gpu_burn's 'system not yet initialized' on H100 80GB HBM3 names cut.
    assert capture_checks("1105", FABRIC)[FABRIC].status == "issue"


# --- NVIDIA/open-gpu-kernel-modules' bug form ---------------------------------------------------------------------------

OPEN = "DRV-OPEN-MODULE"
COMBOS = "KVER-NVIDIA-KERNEL-COMBOS"


def test_the_forms_version_answer_names_the_open_module() -> None:
    # NVIDIA/open-gpu-kernel-modules#461: `### NVIDIA Open GPU Kernel Modules Version`, then `525.85.05 (...)`; an RTX
    # 3060 (Ampere) runs under either flavour.
    r = capture_checks("1786", OPEN, COMBOS)
    assert r[OPEN].status == "ok" and "open kernel module (525.85.05)" in r[OPEN].message
    # Its `### Kernel Release` answer (`6.1.3+ aarch64 GNU/Linux ...`) is the kernel, and still the Arm machine.
    assert r[COMBOS].status == "ok" and "kernel 6.1.3+" in r[COMBOS].message
    assert capture_checks("1786", "KVER-AMD-ZEN5")["KVER-AMD-ZEN5"].status == "not-applicable"


def test_other_threads_of_the_form_read_the_same() -> None:
    # NVIDIA/open-gpu-kernel-modules#363 (515.65.01, a GTX 1660 Ti).
    r = capture_checks("560", OPEN, COMBOS)
    assert r[OPEN].status == "ok" and "515.65.01" in r[OPEN].message
    assert r[COMBOS].status == "ok"
    # #246 (515.43.04, lsmod): the form names the open module, read as loaded; nvidia-smi cannot open its GPU, whose
    # model no source names, so whether the open flavour suits that GPU is not shown (h83b, as 1823 where both
    # readers say unknown).
    r = capture_checks("1787", OPEN, COMBOS)
    assert r[OPEN].status == "unknown" and "open kernel module is loaded" in r[OPEN].message
    assert r[COMBOS].status == "ok"


def test_modelled_the_heading_without_its_answer_names_no_driver() -> None:
    # Modelled: the form's heading left unanswered, then the next heading.
    text = "### NVIDIA Open GPU Kernel Modules Version\n\n### Operating System and Version\n\nUbuntu 22.04\n"
    with pytest.raises(ParseError):
        driver_from_evidence_lines(text)
    assert driver_from_evidence_lines("NVIDIA Open GPU Kernel Modules Version: 525.85.05\n").flavour == "open"
