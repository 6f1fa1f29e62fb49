"""Facts implied by names and tables (issue 28, step 3, blind runs QQ and SS).

- A hardware summary's two-column Markdown table row (`| **Driver** | 595.71.05 (open kernel module) |`) states what a
  list's `Key: value` line does (facts/_parse.stated_line): the driver and its flavour, torch, the kernel, the CPU.
- An AMD model name implies its CPU family where lscpu's family line is not shown (facts/system.amd_family).
- A CPU that is no x86 CPU is read from the machine the kernel reports (facts/system.cpu_from_kernel_machine).
- A provider's partition name or a vGPU profile leads with the board it runs on (gputable.board_words).
- The H20 is an HGX board with NVLink (data/gpus.toml); its power limit at rest is 500 W.
- An engine shown on one GPU has no group of GPUs to place (facts/parallelism.one_gpu_engine).

Real pastes are corpus captures (the public thread in each header); counter-examples are modelled where marked.
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import stated_line
from stackaudit.facts.nvidia import toolkit_from_evidence_lines
from stackaudit.facts.system import amd_family
from stackaudit.gputable import board_words, capability_of, lookup, on_nvswitch


def test_a_markdown_row_states_the_cuda_toolkit() -> None:
    # Modelled on the hardware summaries of 857-868: the evidence reader takes the row, so the toolkit reader must too.
    assert toolkit_from_evidence_lines("| **CUDA Toolkit** | 13.0 |").version == "13.0"
    assert toolkit_from_evidence_lines("CUDA Toolkit: 13.0").version == "13.0"


def _status(text: str, check: str) -> tuple[str, str]:
    r = run_checks(pasted(text), [check])[check]
    return r.status, r.message


# --- a hardware summary as a Markdown table -------------------------------------------------------------------


def test_table_rows_read_as_key_value_lines() -> None:
    assert stated_line("| **Driver** | 595.71.05 (open kernel module) |") == "Driver: 595.71.05 (open kernel module)"
    assert stated_line("| Kernel | 6.17.0-1014-nvidia |") == "Kernel: 6.17.0-1014-nvidia"
    # Not a statement: the header's rule, an empty row, a row of three cells.
    for line in ("|---|---|", "| | |", "| Driver | 580.142 | CUDA 13.0 |"):
        assert stated_line(line) == line


def test_vllm_47266_summary_table_states_driver_flavour_torch_cpu_and_kernel() -> None:
    # https://github.com/vllm-project/vllm/issues/47266: the user's environment table (corpus 860).
    r = capture_checks("860", "DRV-OPEN-MODULE", "RT-TORCH-ARCH", "KVER-AMD-ZEN5")
    assert r["DRV-OPEN-MODULE"].status == "ok" and "595.71.05" in r["DRV-OPEN-MODULE"].message
    assert r["RT-TORCH-ARCH"].status == "ok" and "2.11.0+cu130" in r["RT-TORCH-ARCH"].message
    zen5 = r["KVER-AMD-ZEN5"]
    assert zen5.status == "issue" and "family 26" in zen5.message and "6.8.0-124-generic" in zen5.message


def test_modelled_table_driver_row_without_flavour_words_names_no_flavour() -> None:
    # Modelled on 860: the same row without "(open kernel module)".
    text = body("860").replace("595.71.05 (open kernel module)", "595.71.05")
    assert fact(pasted(text), "nvidia_driver").flavour is None


def test_modelled_table_kernel_6_14_is_ok_for_zen5() -> None:
    # Modelled on 860: a kernel past 6.13 runs amd-pstate on Zen 5 by default.
    text = body("860").replace("Linux 6.8.0-124-generic", "Linux 6.14.0-29-generic")
    assert _status(text, "KVER-AMD-ZEN5")[0] == "ok"


def test_modelled_table_intel_and_zen3_cpus_are_not_zen5() -> None:
    # Modelled on 860: the CPU row names an Intel Xeon, then an EPYC 7763 (Milan, family 25).
    for cpu in ("Intel(R) Xeon(R) w9-3495X", "AMD EPYC 7763 64-Core Processor"):
        text = body("860").replace("AMD Ryzen Threadripper PRO 9985WX 64-Core (128 threads)", cpu)
        assert _status(text, "KVER-AMD-ZEN5")[0] == "not-applicable", cpu


def test_modelled_plain_table_of_gb10_node_states_driver_and_kernel() -> None:
    # Modelled on the plain (not bold) environment tables of public SGLang test logs on DGX Spark nodes.
    text = ("## Environment\n\n| Component | Value |\n|-----------|-------|\n"
            "| GPU | NVIDIA GB10 (SM121/Blackwell), 128 GB per node |\n| Driver | 580.142 |\n| CUDA | 13.0 |\n"
            "| Kernel | 6.17.0-1014-nvidia |\n| OS | Ubuntu 24.04.4 LTS (aarch64) |\n")
    host = pasted(text)
    assert fact(host, "nvidia_driver").version == "580.142"
    assert fact(host, "kernel").release == "6.17.0-1014-nvidia"


def test_amd_family_by_model_name() -> None:
    assert amd_family("AMD Ryzen Threadripper PRO 9985WX 64-Core") == 26
    assert amd_family("AMD EPYC 9575F 64-Core Processor") == 26  # Turin
    assert amd_family("AMD EPYC 9V84 96-Core Processor") == 25  # Azure's Genoa
    assert amd_family("AMD EPYC 7282 16-Core Processor") == 23  # Rome
    assert amd_family("AMD Ryzen 9 9950X3D 16-Core Processor") == 26
    # Mobile Ryzen mix generations under one series; an Intel name is no AMD name.
    assert amd_family("AMD Ryzen 7 7840HS w/ Radeon 780M Graphics") is None
    assert amd_family("Intel(R) Xeon(R) Platinum 8480+") is None


# --- a CPU that is no x86 CPU ------------------------------------------------------------------------------------


def test_vllm_33543_gb200_collect_env_cut_before_cpu_is_aarch64() -> None:
    # https://github.com/vllm-project/vllm/issues/33543 (corpus 863): the report is cut before its CPU section.
    r = capture_checks("863", "KVER-AMD-ZEN5")["KVER-AMD-ZEN5"]
    assert r.status == "not-applicable" and "aarch64" in r.message


def test_modelled_x86_collect_env_cut_before_cpu_says_nothing_of_the_vendor() -> None:
    # Modelled on 863: an x86_64 machine may be AMD or Intel.
    text = body("863").replace("aarch64", "x86_64")
    assert _status(text, "KVER-AMD-ZEN5")[0] == "unknown"


# --- a provider's partition name --------------------------------------------------------------------------------


def test_vllm_10652_partition_name_leads_with_the_l20() -> None:
    # https://github.com/vllm-project/vllm/issues/10652 (corpus 885): `GPU 0: L20-2-PCIE-48GB-48GB-L-H-V`.
    r = capture_checks("885", "RT-TORCH-ARCH", "FW-VM", "MEM-GPU-SHARED")
    assert r["RT-TORCH-ARCH"].status == "ok" and "compute 8.9" in r["RT-TORCH-ARCH"].message
    # The name says nothing of whether the GPU is whole or shared.
    assert r["FW-VM"].status == "unknown" and r["MEM-GPU-SHARED"].status == "unknown"


def test_board_words_read_a_partition_or_vgpu_profile_only() -> None:
    assert board_words("L20-2-PCIE-48GB-48GB-L-H-V") == "L20"
    # vGPU profiles (NVIDIA Virtual GPU Software User Guide, "Virtual GPU Types"): the board without spaces, a variant
    # letter, a MIG slice count.
    assert board_words("NVIDIA RTXA5000-24Q") == "RTX A5000" and capability_of("NVIDIA RTXA5000-24Q") == "8.6"
    assert board_words("GRID A100D-16C") == "A100" and board_words("GRID A100-3-20C") == "A100"
    assert board_words("NVIDIA RTX6000-Ada-48Q") == "RTX 6000 Ada" and board_words("NVIDIA H100XM-80C") == "H100"
    # Not a partition or a profile: a board's own name (modelled).
    for name in ("NVIDIA L20", "A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB", "GRID K520", "NVIDIA L40S"):
        assert board_words(name) == "", name


def test_vllm_vgpu_profile_names_its_boards_compute_capability() -> None:
    # Corpus 944 (`GPU 0: NVIDIA RTXA5000-24Q`, torch 2.6.0+cu124): an RTX A5000 is 8.6, which the wheel carries.
    r = capture_checks("944", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok" and "compute 8.6" in r.message, r.message
    # A100 vGPU profiles of every variant are 8.0 (modelled collect_env lines after 936's `GRID A100D-16C`).
    text = ("PyTorch version: 2.1.2+cu121\nCUDA used to build PyTorch: 12.1\nGPU models and configuration: \n"
            "GPU 0: GRID A100D-16C\nNvidia driver version: 535.104.05\n")
    r = run_checks(pasted(text), ["RT-TORCH-ARCH"])["RT-TORCH-ARCH"]
    assert "compute 8.0" in r.message, r.message


# --- the H20 is an HGX board -------------------------------------------------------------------------------------


def test_sglang_6681_h20_tp2_runs_custom_allreduce_over_nvlink() -> None:
    # https://github.com/sgl-project/sglang/issues/6681 (corpus 881): `GPU: H20 TP2`, `--tp 2`.
    r = capture_checks("881", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "ok" and "NVLink" in r.message


def test_modelled_h20_tp2_with_custom_allreduce_disabled_is_an_issue() -> None:
    # Modelled on 881: the flag turns off what NVLink would run.
    text = body("881").replace("--tp 2\n", "--tp 2 --disable-custom-all-reduce\n")
    assert _status(text, "IC-CUSTOM-ALLREDUCE")[0] == "issue"


def test_h20_row_is_an_nvswitch_board_and_h200_names_stay_h200() -> None:
    assert lookup("NVIDIA H20").spec.family == "baseboard" and on_nvswitch("H20") is True
    assert lookup("NVIDIA H200").spec.name == "H200 SXM" and lookup("H200").spec.name == "H200 SXM"


# --- an engine on one GPU -------------------------------------------------------------------------------------


def test_sglang_2097_one_gpu_server_has_nothing_to_place() -> None:
    # https://github.com/sgl-project/sglang/issues/2097 (corpus 886): `CUDA_VISIBLE_DEVICES=0 ... launch_server` with no --tp.
    r = capture_checks("886", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-applicable" and "TP 1" in r.message


def test_modelled_tp2_server_is_not_one_gpu() -> None:
    # Modelled on 886: the same command at --tp 2 over two GPUs.
    text = body("886").replace("CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server",
                               "CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --tp 2")
    assert _status(text, "IC-TOPOLOGY-PLACEMENT")[0] != "not-applicable"
