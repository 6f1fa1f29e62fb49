"""Issue 28, facts implied by what the text shows: the nvidia-smi table's ECC cell is the ECC mode; a GPU's name or
PCI device id implies its architecture (no GSP before Turing, no MIG before Ampere); the GPU table's rows name the
default power cap of GPUs people paste (A800 80GB PCIe, GTX 1080 Ti). Step 3: a card's board power, an NVL pair's
bridges, a cloud size's vGPU, a log's date before an engine's custom all-reduce, TGI without one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import body, capture_checks, paste_checks, pasted
from stackaudit.checks.rt import torch_supports, wheel_arch_list
from stackaudit.engine.testing import run_checks
from stackaudit.facts.applicability import dated_before
from stackaudit.facts.nvidia_smi import parse_query_text, parse_table
from stackaudit.facts.platform import VGPU_PROFILE, gpus_from_instance_type, instance_gpus
from stackaudit.facts.serving_logs import parse_log_date, parse_serving_log
from stackaudit.gputable import (
    PRE_AMPERE,
    PRE_TURING,
    GpuTableError,
    UnknownGpuError,
    architecture_of,
    board_power,
    load_table,
    lookup,
    on_nvswitch,
    sold_bridged,
    table_text,
)
from stackaudit.gputable import parse_table as parse_table_toml
from test_cut_gpu_names import PHOENIX_17


def _check(text: str, check_id: str) -> Any:
    return run_checks(pasted(text), [check_id])[check_id]


# --- the table's `Volatile Uncorr. ECC` cell --------------------------------------------------------

@pytest.mark.parametrize(("capture", "modes"), [
    # Real: https://github.com/vllm-project/vllm/issues/41519, two A800 80GB PCIe reading "0".
    ("203", [True, True]),
    # Real: https://github.com/huggingface/text-generation-inference/issues/2671, two A10G reading "0".
    ("153", [True, True]),
    # Real: https://github.com/NVIDIA/DCGM/issues/70, GPUs 0-1 read "0" and GPU 2 (MIG enabled) reads "On".
    ("128", [True, True, True]),
    # Real: https://github.com/wookayin/gpustat/issues/62, GeForce GTX 1080 Ti cards reading "N/A" (no ECC).
    ("201", [None, None, None]),
])
def test_the_ecc_cell_is_the_ecc_mode(capture: str, modes: list[bool | None]) -> None:
    gpus = parse_table(body(capture)).gpus
    assert [g.ecc_current for g in gpus] == modes
    assert all(("ecc" in g.unsupported) == (g.ecc_current is None) for g in gpus)


def test_phoenix_17_off_is_ecc_disabled_on_an_a100() -> None:
    # Real (phoenix-miner issue 17): an A100 SXM4 40GB whose cell reads "Off": ECC supported and disabled.
    gpu = parse_table(PHOENIX_17).gpus[0]
    assert gpu.ecc_current is False and "ecc" not in gpu.unsupported


def test_vllm_41519_a800s_ecc_on_is_ok_over_the_gpus_shown() -> None:
    r = _check(body("203"), "MEM-ECC-MODE")
    assert r.status == "ok" and "ECC Enabled on 2 GPU(s)" in r.message


def test_modelled_one_gpu_off_among_counting_ones_is_an_issue() -> None:
    # Modelled on vllm#41519's layout: GPU 1's cell changed from "0" to "Off".
    text = body("203").replace("|   00000000:50:00.0 Off |                    0 |",
                               "|   00000000:50:00.0 Off |                  Off |")
    r = _check(text, "MEM-ECC-MODE")
    assert r.status == "issue" and "differs" in r.message


# --- GPU table rows for GPUs people paste ------------------------------------------------------------

def test_vllm_41519_a800_pcie_default_is_300_w() -> None:
    spec = lookup("NVIDIA A800 80GB PCIe").spec
    assert (spec.name, spec.power_w, spec.architecture, spec.family) == ("A800 PCIe 80GB", 300, "Ampere",
                                                                          "datacenter-pcie")
    r = _check(body("203"), "PWR-GPU-POWER-LIMIT")
    assert r.status == "ok" and "300 W" in r.message


def test_gpustat_62_cut_gtx_108_name_is_the_1080_ti_at_its_250_w_default() -> None:
    gpus = parse_table(body("201"))
    assert {g.name for g in gpus.gpus} == {"GeForce GTX 1080 Ti"}
    assert "11178 MiB" in gpus.notes[1]
    assert _check(body("201"), "PWR-GPU-POWER-LIMIT").status == "ok"


def test_a_gtx_1080_is_not_read_as_the_1080_ti() -> None:
    # Real: https://github.com/NVIDIA/nvidia-docker/issues/564 (Product Name GeForce GTX 1080, default 180 W): the
    # word-subset lookup must not give it the Ti's 250 W; an 8 GB card cut to "GeForce GTX 108..." fits no row.
    with pytest.raises(LookupError):
        lookup("GeForce GTX 1080")
    shown = """|   0  GeForce GTX 108...  On   | 00000000:03:00.0 Off |                  N/A |
| 52%   79C    P2   183W / 200W |   1357MiB /  8119MiB |     93%      Default |
"""
    assert parse_table(shown).gpus[0].spec is None


# --- architecture implied by the name or the PCI device id ------------------------------------------

# Real: https://github.com/netdata/netdata/issues/4892 (comment by Svenskunganka, 2018-12-01), `nvidia-smi -a` of
# driver 410.72: no MIG Mode, no GSP field, no Product Architecture.
NETDATA_4892 = """==============NVSMI LOG==============

Timestamp                           : Sat Dec  1 23:45:21 2018
Driver Version                      : 410.72
CUDA Version                        : 10.0

Attached GPUs                       : 1
GPU 00000000:01:00.0
    Product Name                    : GeForce GTX 960M
    Product Brand                   : GeForce
    Display Mode                    : Disabled
    Display Active                  : Disabled
    Persistence Mode                : Disabled
    Accounting Mode                 : Disabled
    Accounting Mode Buffer Size     : 4000
    Driver Model
        Current                     : N/A
        Pending                     : N/A
    Serial Number                   : N/A
    GPU UUID                        : GPU-101b1cf0-fdf7-b374-a62c-76b25134fcf2
    Minor Number                    : 0
    VBIOS Version                   : 82.07.73.00.06
    MultiGPU Board                  : No
    Board ID                        : 0x100
    GPU Part Number                 : N/A
    Inforom Version
        Image Version               : N/A
        OEM Object                  : N/A
        ECC Object                  : N/A
        Power Management Object     : N/A
    GPU Operation Mode
        Current                     : N/A
"""

# Real: https://github.com/NVIDIA/nvidia-docker/issues/1146 (issue body by gjgjh): the middle of an RTX 2080 Ti's
# `nvidia-smi -q` (driver 418), without its Product Name; Device Id 0x1E04 is TU102, a Turing chip.
NVIDIA_DOCKER_1146 = """    Persistence Mode                : Disabled
    Accounting Mode                 : Disabled
    Accounting Mode Buffer Size     : 4000
    Driver Model
        Current                     : N/A
        Pending                     : N/A
    Serial Number                   : N/A
    GPU UUID                        : GPU-01587ddd-09b1-67aa-a07b-c5ec7105bd61
    Minor Number                    : 2
    VBIOS Version                   : 90.02.17.00.DB
    MultiGPU Board                  : No
    Board ID                        : 0x8600
    GPU Part Number                 : N/A
    Inforom Version
        Image Version               : G001.0000.02.04
        OEM Object                  : 1.1
        ECC Object                  : N/A
        Power Management Object     : N/A
    GPU Operation Mode
        Current                     : N/A
        Pending                     : N/A
    GPU Virtualization Mode
        Virtualization mode         : None
    IBMNPU
        Relaxed Ordering Mode       : N/A
    PCI
        Bus                         : 0x86
        Device                      : 0x00
        Domain                      : 0x0000
        Device Id                   : 0x1E0410DE
        Bus Id                      : 00000000:86:00.0
        Sub System Id               : 0x12FA10DE
"""


def test_nvidia_docker_1753_maxwell_device_id_has_no_gsp_and_no_mig() -> None:
    # Real (capture 207): an excerpt without Product Name; Device Id 0x140110DE is GM206.
    gpu = parse_query_text(body("207")).gpus[0]
    assert gpu.pci_device_id == 0x1401 and gpu.implied_architecture == "pre-Turing"
    gsp = _check(body("207"), "DRV-GSP-FIRMWARE")
    assert gsp.status == "not-applicable" and "no GSP before Turing" in gsp.message
    assert _check(body("207"), "MEM-MIG").status == "not-applicable"


def test_k8s_device_plugin_265_tesla_k40c_is_kepler_without_mig() -> None:
    # Real (capture 156): driver 440 prints no MIG Mode; the K40c is in no table row, its model number says Kepler.
    r = _check(body("156"), "MEM-MIG")
    assert r.status == "not-applicable" and "Tesla K40c (Kepler: MIG starts with Ampere)" in r.message
    assert _check(body("156"), "DRV-GSP-FIRMWARE").status == "not-applicable"


def test_netdata_4892_gtx_960m_is_maxwell_without_gsp() -> None:
    assert architecture_of("GeForce GTX 960M") == "Maxwell"
    r = _check(NETDATA_4892, "DRV-GSP-FIRMWARE")
    assert r.status == "not-applicable" and "GeForce GTX 960M (Maxwell)" in r.message


def test_nvidia_docker_1146_turing_device_id_implies_nothing_and_gsp_stays_unknown() -> None:
    gpu = parse_query_text(NVIDIA_DOCKER_1146).gpus[0]
    assert gpu.pci_device_id == 0x1E04 and gpu.implied_architecture == ""
    assert _check(NVIDIA_DOCKER_1146, "DRV-GSP-FIRMWARE").status == "unknown"


# https://github.com/MatthiasSchinzel/sysmon/issues/12 (thedanyes): the head of a GeForce GTX 780's `nvidia-smi -q`,
# driver 450.66, cut after Inforom Version; no Product Architecture line (NVML had none before 455).
SYSMON_12 = """\
==============NVSMI LOG==============

Timestamp                                 : Sat Oct 10 17:02:53 2020
Driver Version                            : 450.66
CUDA Version                              : 11.0

Attached GPUs                             : 1
GPU 00000000:01:00.0
    Product Name                          : GeForce GTX 780
    Product Brand                         : GeForce
    Display Mode                          : N/A
    Display Active                        : N/A
    Persistence Mode                      : Disabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    Accounting Mode                       : N/A
    Accounting Mode Buffer Size           : N/A
    Driver Model
        Current                           : N/A
        Pending                           : N/A
    Serial Number                         : N/A
    GPU UUID                              : GPU-a230e637-c9e1-1b61-3830-a437b874d88d
    Minor Number                          : 0
    VBIOS Version                         : 80.80.31.00.0D
    MultiGPU Board                        : N/A
    Board ID                              : N/A
    GPU Part Number                       : N/A
"""


def test_sysmon_12_gtx_780_is_kepler_without_gsp() -> None:
    # The GTX 700 line mixes Kepler (760-780) and Maxwell (745, 750): the model number says which.
    r = _check(SYSMON_12, "DRV-GSP-FIRMWARE")
    assert r.status == "not-applicable" and "GeForce GTX 780 (Kepler)" in r.message


@pytest.mark.parametrize(("name", "device_id", "architecture"), [
    ("Tesla V100-SXM2-32GB", None, "Volta"),
    ("Tesla V100-SXM2...", None, "Volta"),  # a name the table cut keeps its series
    ("Quadro P6000", None, "Pascal"),
    ("TITAN RTX", None, "Turing"),
    ("NVIDIA GeForce GTX 1660", None, "Turing"),
    ("NVIDIA RTX A2000 Laptop GPU", None, "Ampere"),
    ("NVIDIA H100 80GB HBM3", None, "Hopper"),  # the table row
    ("GeForce 410M", None, ""),  # a series of mixed chips says nothing
    # NVIDIA's legacy CUDA list (https://developer.nvidia.com/cuda-legacy-gpus): Quadro K and GTX 700 mix Kepler and
    # Maxwell by model number, and "TITAN X" names a Maxwell (GeForce GTX) and a Pascal (NVIDIA) card.
    ("Quadro K2200", None, "Maxwell"),
    ("Quadro K4200", None, "Kepler"),
    ("GeForce GTX 750 Ti", None, "Maxwell"),
    ("GeForce GTX 780 Ti", None, "Kepler"),
    ("GeForce GTX TITAN Black", None, "Kepler"),
    ("GeForce GTX TITAN X", None, "Maxwell"),
    ("NVIDIA TITAN X (Pascal)", None, "Pascal"),
    ("Quadro GV100", None, "Volta"),
    ("", 0x1DB1, "pre-Turing"),  # GV100
    ("", 0x2330, ""),  # GH100
])
def test_architecture_of_names_and_device_ids(name: str, device_id: int | None, architecture: str) -> None:
    assert architecture_of(name, device_id) == architecture


def test_pre_turing_is_pre_ampere() -> None:
    assert PRE_TURING < PRE_AMPERE and "Turing" in PRE_AMPERE and "Ampere" not in PRE_AMPERE


# --- a report's GPU list is GPU evidence (the `gpus` inventory) ---------------------------------------

@pytest.mark.parametrize(("capture", "model"), [
    ("125", "NVIDIA GeForce RTX 4090"),  # Real: https://github.com/vllm-project/vllm/issues/13497 (collect_env)
    ("174", "Tesla P40"),  # Real: https://github.com/open-mmlab/mmdeploy/issues/17 (check_env, `INFO:root:` lines)
    ("159", "NVIDIA GeForce RTX 3090"),  # Real: https://github.com/InternLM/lmdeploy/issues/3996 (lmdeploy check_env)
    ("47", "NVIDIA A40"),  # Real: https://github.com/sgl-project/sglang/issues/2805 (sglang check_env)
])
def test_a_report_of_pcie_models_needs_no_fabric_manager(capture: str, model: str) -> None:
    r = _check(body(capture), "DRV-FABRIC-MANAGER")
    assert r.status == "not-applicable" and f"no NVSwitch ({model})" in r.message


@pytest.mark.parametrize("capture", [
    "45",  # Real: https://github.com/sgl-project/sglang/pull/965, 8x A100 SXM4 80GB (HGX boards carry NVSwitches)
    "202",  # Real: https://github.com/vllm-project/vllm/issues/11959, 8x H100 80GB HBM3 (SXM5)
])
def test_a_report_of_baseboard_models_leaves_fabric_manager_unknown(capture: str) -> None:
    # The models alone say the board needs Fabric Manager, not whether it runs; the report's torch initialising CUDA
    # on them says the fabric was up (drv.cuda_ran_on_nvswitch, tests/test_cuda_initialised.py).
    text = body(capture)
    assert _check(text, "DRV-FABRIC-MANAGER").status == "ok"
    unavailable = text.replace("CUDA available: True", "CUDA available: False")  # modelled: torch found no GPU
    assert unavailable != text and _check(unavailable, "DRV-FABRIC-MANAGER").status == "unknown"


@pytest.mark.parametrize(("name", "switch"), [
    ("NVIDIA H100 80GB HBM3", True), ("Tesla P40", False), ("NVIDIA GeForce RTX 3060", False),
    # The V100 SXM2 row joins its modules by direct NVLinks (no NVSwitch); the SXM3 module, which has no row, is the
    # NVSwitch board's (DGX-2), and its `-SXM` family says so.
    ("NVIDIA GB300", True), ("Tesla V100-SXM2-32GB", False), ("Tesla V100-SXM3-32GB", True),
    # A Kepler card predates NVLink, so no NVSwitch (gputable.PRE_NVLINK); a name nothing knows stays open.
    ("Tesla K40c", False), ("NVIDIA Accelerator X9", None),
    # The DGX Spark's GB10, an integrated GPU beside its CPU (gputable.INTEGRATED_GPUS); GB200 is a rack's tray.
    ("NVIDIA GB10", False), ("NVIDIA GB200", True),
])
def test_on_nvswitch_from_the_row_else_the_family(name: str, switch: bool | None) -> None:
    assert on_nvswitch(name) is switch


def test_a_dgx_spark_is_one_gb10_on_no_nvswitch_2279_1462(tmp_path: Path) -> None:
    """`DGX Spark` names its one GB10 (corpus 2279: the user's words; both readers say Fabric Manager is not
    applicable); CUDA's own GB10 (corpus 1462: nccl-tests' rank lines on two Sparks) needs no Fabric Manager either.
    A DGX B200 names eight B200 on an NVSwitch board, and a Spark that is not a DGX names no GPU."""
    from stackaudit.facts.gpus import stated_gpus

    assert stated_gpus("**GPU confirmed working on the DGX Spark with the open kernel modules**") == [(1, "NVIDIA GB10")]
    for capture in ("2279", "1462"):
        r = capture_checks(capture, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
        assert r.status == "not-applicable" and "NVIDIA GB10" in r.message, (capture, r.message)
    assert stated_gpus("We run Spark on a DGX B200") == [(8, "B200")]
    assert stated_gpus("Apache Spark 3.5 on 2 executors") == []
    r = paste_checks(tmp_path, "We run this on a DGX B200.\n", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert r.status != "not-applicable", r.message


# --- RT-TORCH-ARCH: an official wheel's arch list against the GPUs' compute capability ----------------

@pytest.mark.parametrize(("capture", "status", "says"), [
    # Real: https://github.com/vllm-project/vllm/issues/11959, torch 2.5.1+cu124 on eight H100.
    ("202", "ok", "has kernels for NVIDIA H100 80GB HBM3 (compute 9.0)"),
    # Real: https://github.com/vllm-project/vllm/issues/8243, torch 2.4.0+cu121 on eight H100.
    ("204", "ok", "has kernels for NVIDIA H100 80GB HBM3 (compute 9.0)"),
    # Real: https://github.com/sgl-project/sglang/pull/965, torch 2.3.1+cu121 on eight A100 SXM4.
    ("45", "ok", "has kernels for NVIDIA A100-SXM4-80GB (compute 8.0)"),
    # Real: https://github.com/vllm-project/vllm/issues/13497, torch 2.5.1+cu121 on an RTX 4090: compute 8.9 runs
    # the wheel's sm_86 cubins (same major, higher minor).
    ("125", "ok", "has kernels for NVIDIA GeForce RTX 4090 (compute 8.9)"),
    # Real: https://github.com/open-mmlab/mmdeploy/issues/17, torch 1.9.0+cu111: before the table's builds, but its
    # report prints the build's NVCC architecture flags (h72b: facts/collect_env.arch_flags), sm_60 for the P40's 6.1.
    ("174", "ok", "its NVCC architecture flags in pasted collect_env: sm_37, sm_50, sm_60"),
    # Real: capture 32 (vLLM collect_env, torch 2.7.0+cu128): the cu128 list every release from 2.7 on carries.
    ("32", "ok", "has kernels for NVIDIA RTX PRO 6000 Blackwell Workstation Edition (compute 12.0)"),
    # Real: capture 86 (WSL 2, vLLM collect_env): a laptop GPU the GPU table has no row for, named an Ada part, and
    # every Ada GPU is compute 8.9 (gputable.SINGLE_CAPABILITY).
    ("86", "ok", "has kernels for NVIDIA GeForce RTX 4070 Laptop GPU (compute 8.9)"),
])
def test_torch_arch_from_a_report(capture: str, status: str, says: str) -> None:
    # An ok names the GPUs the wheel covers; an unknown names what is missing.
    r = _check(body(capture), "RT-TORCH-ARCH")
    assert r.status == status and says in r.message


def test_modelled_blackwell_under_a_cu124_wheel_is_an_issue() -> None:
    # Modelled on vllm#11959's report: its H100s replaced by RTX PRO 6000 Blackwell cards (compute 12.0).
    text = body("202").replace("NVIDIA H100 80GB HBM3", "NVIDIA RTX PRO 6000 Blackwell Server Edition")
    r = _check(text, "RT-TORCH-ARCH")
    assert r.status == "issue" and "no kernels for NVIDIA RTX PRO 6000 Blackwell Server Edition (compute 12.0)" in r.message


@pytest.mark.parametrize(("version", "has_sm90", "arch_list_known"), [
    ("2.5.1+cu124", True, True), ("2.0.1+cu118", True, True), ("2.11.0+cu128", True, True),
    ("2.7.0+cu128", True, True), ("2.6.0+cu128", False, False), ("2.5.0a0+e000cf0ad9.nv24.10", False, False), ("1.13.1+cu117", False, True),
])
def test_wheel_arch_list(version: str, has_sm90: bool, arch_list_known: bool) -> None:
    arches = wheel_arch_list(version)
    assert (arches is not None) is arch_list_known and ("sm_90" in (arches or ())) is has_sm90


def test_a_cubin_runs_on_a_higher_minor_of_its_major_only() -> None:
    assert torch_supports("8.9", "2.5.1+cu121", "12.1", ("sm_80", "sm_86")) is True
    assert torch_supports("8.0", "x", "12.1", ("sm_86",)) is False
    assert torch_supports("12.0", "x", "12.4", ("sm_80", "sm_90")) is False


# --- one GPU shown whole: no all-reduce between GPUs --------------------------------------------------

@pytest.mark.parametrize("capture", [
    "125",  # Real: https://github.com/vllm-project/vllm/issues/13497 (collect_env, one RTX 4090, TP not shown)
    "160",  # Real: https://github.com/InternLM/lmdeploy/issues/3825 (lmdeploy check_env, one RTX 4060 Laptop)
    "32",  # Real: https://github.com/vllm-project/vllm/issues/20712 (collect_env, one RTX PRO 6000)
])
def test_one_gpu_needs_no_custom_all_reduce(capture: str) -> None:
    r = _check(body(capture), "IC-CUSTOM-ALLREDUCE")
    assert r.status == "not-applicable" and r.message.startswith("one GPU (")


def test_four_gpus_without_an_engine_stay_unknown() -> None:
    # Real: https://github.com/InternLM/lmdeploy/issues/3996 (check_env, four RTX 3090): the TP is not shown.
    assert _check(body("159"), "IC-CUSTOM-ALLREDUCE").status == "unknown"


# --- a vGPU profile name is a virtual machine -----------------------------------------------------

# Real: https://github.com/DDMAL/Rodan/issues/1170 (homework36, 2024-06-11), a GRID V100D-8C guest, cut as
# the thread's excerpt is.
RODAN_1170 = """\
root@prod-rodan-slim2:/srv/webapps/Rodan# nvidia-smi
Tue Jun 11 14:22:04 2024
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.239.06   Driver Version: 470.239.06   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  GRID V100D-8C       On   | 00000000:00:05.0 Off |                    0 |
| N/A   N/A    P0    N/A /  N/A |   7269MiB /  8192MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
"""


@pytest.mark.parametrize(("name", "vgpu"), [
    ("GRID A100-40C", True),  # vllm-project/vllm#4725 (corpus 295)
    ("GRID A100D-20C", True),  # huggingface/text-generation-inference#1156 (corpus 246)
    ("GRID V100D-8C", True),  # DDMAL/Rodan#1170
    ("GRID P4-1B4", True),  # DualCoder/vgpu_unlock#30 (`nvidia-smi vgpu -s`)
    ("GRID A100-3-20C", True),  # a MIG-backed profile, as NVIDIA's user guide lists them
    ("NVIDIA L40S-24Q", True),  # ollama/ollama#8023 (corpus 311): a newer guest driver's profile name
    ("GRID V100D-32C", True),  # InternLM/lmdeploy#2414 (corpus 339)
    ("GRID K520", False),  # a physical board (AWS g2)
    ("NVIDIA A100-PCIE-40GB", False),
    ("NVIDIA L40S", False),
    ("NVIDIA A100-SXM4-40GB", False),
    ("Tesla V100-PCIE-16GB", False),
    ("NVIDIA GeForce RTX 4090", False),
])
def test_a_vgpu_profile_name(name: str, vgpu: bool) -> None:
    assert bool(VGPU_PROFILE.match(name)) is vgpu


@pytest.mark.parametrize(("text", "status"), [
    # A guest of one vGPU whose source shows none of the vGPU's limits at work is judged over that GPU
    # (test_rule_vgpu_guest, h62a): one GRID A100-40C (295), a cut table of a GRID A100D-20C (246), Rodan's vGPU.
    (body("295"), "not-an-issue"),
    (body("246"), "not-an-issue"),
    (RODAN_1170, "not-an-issue"),
    # Modelled on 295: the user's words stating the licence at work make it an issue.
    ("We are noticing a licensing issue on this VM.\n" + body("295"), "issue"),
    # Modelled on 295: the same table with a physical board's name says nothing of a VM.
    (body("295").replace("GRID A100-40C ", "NVIDIA A100-40GB"), "unknown"),
])
def test_a_vgpu_guest_is_judged_by_its_vgpu_defaults(text: str, status: str) -> None:
    r = _check(text, "FW-VM")
    assert r.status == status, r.message
    if status != "unknown" or "GRID" in text:
        assert "vGPU guest" in r.message


# --- board power (power-only rows of gpus.toml) and laptop GPUs -----------------------------------


def test_board_power_names_desktop_cards_never_laptops() -> None:
    assert board_power("NVIDIA GeForce RTX 3060") == (170, "https://www.nvidia.com/en-us/geforce/graphics-cards/"
                                                           "30-series/compare/")
    assert board_power("NVIDIA RTX A2000 12GB") is not None and board_power("NVIDIA RTX A2000 12GB")[0] == 70
    assert board_power("NVIDIA GeForce RTX 3060 Laptop GPU") is None
    assert board_power("NVIDIA GeForce RTX 3060 Ti") is not None and board_power("NVIDIA GeForce RTX 3060 Ti")[0] == 200


def test_a_power_only_row_gives_board_power_and_no_model() -> None:
    """A `[[gpu]]` row with only name, aliases, power_w and source is read by the one loader as board power; no
    lookup of a model finds it (counter-example: the RTX 4090's full row is no power-only row)."""
    table = load_table()
    names = {row.name for row in table.power_only}
    assert "RTX 3060" in names and "RTX 4090" not in names
    assert not names & {gpu.name for gpu in table.gpus}
    with pytest.raises(UnknownGpuError):
        lookup("RTX 3060")
    assert board_power("NVIDIA GeForce RTX 4090") is None  # the full row's power is the GPU table's default


@pytest.mark.parametrize(("row", "error"), [
    ('[[gpu]]\nname = "RTX 9999"\nsource = "https://example.invalid/"\n', "lacks 'power_w'"),
    ('[[gpu]]\nname = "RTX 9999"\naliases = ["RTX 4090"]\npower_w = 1\nsource = "https://example.invalid/"\n',
     "is used by"),
])
def test_a_malformed_power_only_row_is_refused(row: str, error: str) -> None:
    with pytest.raises(GpuTableError, match=error):
        parse_table_toml(table_text() + "\n" + row)


def test_corpus_power_limits_from_board_power() -> None:
    assert capture_checks("917", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status == "ok"
    capped = capture_checks("922", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert capped.status == "issue" and "170 W" in capped.message and "GPU 1" not in capped.message
    laptop = capture_checks("918", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert laptop.status == "not-an-issue" and "laptop" in laptop.message


# Modelled: a desktop RTX 3060 Ti capped at 150 W (its board power is 200 W): the laptop rule must not cover it.
_DESKTOP_CAPPED = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3060 Ti     On  |   00000000:01:00.0 Off |                  N/A |
|  0%   40C    P8             10W /  150W |       1MiB /   8192MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|  No running processes found                                                             |
+-----------------------------------------------------------------------------------------+
"""


def test_desktop_card_below_board_power_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, _DESKTOP_CAPPED, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert result.status == "issue" and "200 W" in result.message


# --- NVL cards sold bridged (gputable.sold_bridged) ------------------------------------------------


def test_sold_bridged_needs_two_nvl_cards() -> None:
    assert sold_bridged(["H100 NVL", "H100 NVL"])
    assert not sold_bridged(["H100 NVL"])
    assert not sold_bridged(["L40S", "L40S"])
    assert not sold_bridged(["H100 PCIe", "H100 PCIe"])


def test_corpus_906_nvl_pair_without_nvlink() -> None:
    results = capture_checks("906", "DRV-NVLINK-HEALTH", "IC-TOPO-READ")
    assert results["DRV-NVLINK-HEALTH"].status == "issue"
    assert results["IC-TOPO-READ"].status == "issue" and "H100 NVL" in results["IC-TOPO-READ"].message


# Modelled: the same VM size with its pair's NVLink up (the user's other image, corpus 906's thread).
_NVL_UP = """\
We deploy Standard_NC80adis_H100_v5 with the vanilla image.
`nvidia-smi topo -m`
```
        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV12    NODE    0-39    0               N/A
GPU1    NV12     X      SYS     40-79   1               N/A
NIC0    NODE    SYS      X
```
"""


def test_nvl_pair_with_nvlink_is_not_flagged(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, _NVL_UP, "DRV-NVLINK-HEALTH", "IC-TOPO-READ")
    assert results["DRV-NVLINK-HEALTH"].status != "issue"
    assert results["IC-TOPO-READ"].status != "issue"


def test_pcie_cards_without_nvlink_are_not_flagged(tmp_path: Path) -> None:
    # Modelled: EC2 g6e.12xlarge (four L40S, PCIe only): a matrix without NV# is the build.
    text = _NVL_UP.replace("Standard_NC80adis_H100_v5", "g6e.12xlarge").replace("NV12", "SYS ")
    results = paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH", "IC-TOPO-READ")
    assert results["DRV-NVLINK-HEALTH"].status != "issue"
    assert results["IC-TOPO-READ"].status != "issue"


def test_azure_size_without_standard_prefix() -> None:
    assert instance_gpus("NC80adis_H100_v5") is not None
    assert instance_gpus("Standard_NC40ads_H100_v5") is not None and instance_gpus("Standard_NC40ads_H100_v5")[0] == 1
    line = ("When deploying NC80adis_H100_v5 in Sweden Central/East US using HPC Ubuntu 22.04 marketplace image, I "
            "noticed that the 2 GPU were not using NVLink but communicating via PCIe.")
    assert {g.model for g in gpus_from_instance_type(line).gpus} == {"H100 NVL"}


# --- vGPU cloud sizes (GpuInstance.vgpu) ----------------------------------------------------------


def test_corpus_932_vgpu_size() -> None:
    result = capture_checks("932", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "NV36ads_A10_v5" in result.message


def test_passthrough_size_is_no_vgpu(tmp_path: Path) -> None:
    # Modelled: an NC A100 v4 VM (passed-through A100s) is a VM, not a vGPU guest.
    results = paste_checks(tmp_path, "Our pods run on Standard_NC24ads_A100_v4 nodes.\n", "FW-VM")
    assert "vGPU" not in results["FW-VM"].message


# --- a log dated before vLLM's custom all-reduce (FEATURE_SINCE) -----------------------------------


def test_dated_before_bounds_from_above_only() -> None:
    assert dated_before("allreduce-engine", "vllm", "2023-10-30")
    assert dated_before("allreduce-engine", "vllm", "2023-12-21") == ""
    assert dated_before("allreduce-engine", "vllm", "2024-06-01") == ""
    assert dated_before("allreduce-engine", "sglang", "2023-10-30") == ""


def test_log_date_reads_a_year() -> None:
    assert parse_log_date("2023-09-21 09:59:38,239\tWARNING services.py:1889 -- x\n").day == "2023-09-21"
    assert parse_log_date("[2023-10-30 14:14:10] WARNING 10-30 06:14:10 config.py:351] x\n").day == "2023-10-30"


def test_corpus_old_vllm_runs_have_no_custom_allreduce() -> None:
    for prefix in ("897", "903"):
        result = capture_checks(prefix, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
        assert result.status == "not-applicable" and "vllm-project/vllm/pull/2192" in result.message, prefix


def test_recent_vllm_log_is_not_dated_out(tmp_path: Path) -> None:
    # Modelled: a vLLM start dated after the change: the date rule says nothing.
    text = ("[2024-06-01 10:00:00] INFO 06-01 10:00:00 llm_engine.py:100] Initializing an LLM engine (v0.4.3) with "
            "config: model='m', tensor_parallel_size=2, disable_custom_all_reduce=False\n")
    result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert "dates the run" not in result.message


def test_engine_name_decides_before_sglang_prefix() -> None:
    vllm = parse_serving_log("[2023-10-30 14:14:10] WARNING 10-30 06:14:10 config.py:351] Casting torch.bfloat16 "
                             "to torch.float16. python3 -m vllm.entrypoints.openai.api_server\n")
    assert vllm.engine == "vllm"
    sglang = parse_serving_log("[2025-01-02 03:04:05 TP0] Capture cuda graph begin. This can take up to several "
                               "minutes.\n")
    assert sglang.engine == "sglang"


# --- TGI has no custom all-reduce (applicability.ENGINES_WITHOUT) -------------------------------------


_MATRIX = _NVL_UP.split("\n", 1)[1].replace("NV12", "SYS ")


def test_tgi_alone_has_no_custom_allreduce(tmp_path: Path) -> None:
    # Modelled: the user's words name TGI by its image and nothing else shows an engine.
    text = "I start the docker image text-generation-inference:1.0.2 sharded over both cards.\n" + _MATRIX
    result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert result.status == "not-applicable" and "TGI" in result.message


def test_tgi_beside_vllm_stays_open(tmp_path: Path) -> None:
    text = "I compare TGI with vLLM on the same two cards.\n" + _MATRIX
    result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert result.status != "not-applicable"


# h61f: a laptop GPU's name implies the laptop's one discrete GPU (gputable.LAPTOP_PART).
@pytest.mark.parametrize(("name", "laptop"), [
    ("NVIDIA GeForce RTX 4070 Laptop GPU", True),
    ("NVIDIA GeForce GTX 1660 Ti with Max-Q Design", True),
    ("Quadro RTX 5000 with Max-Q Design", True),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", False),  # a desktop card
    ("NVIDIA GeForce GTX 1080", False),
    ("GeForce GTX 980M", False),  # an SLI laptop could carry two
])
def test_laptop_part_names(name: str, laptop: bool) -> None:
    from stackaudit.gputable import LAPTOP_PART

    assert bool(LAPTOP_PART.search(name)) is laptop


def test_laptop_gpu_of_one_shown_gpu_only() -> None:
    from stackaudit.facts.gpus import GpuInventory, GpuRecord

    one = GpuInventory(gpus=(GpuRecord(0, "", "NVIDIA GeForce RTX 3060 Laptop GPU"),), counts=(("x", 1),))
    assert "laptop" in one.laptop_gpu
    two = GpuInventory(gpus=(GpuRecord(0, "", "NVIDIA GeForce RTX 3060 Laptop GPU"),), counts=(("x", 1), ("y", 2)))
    assert two.laptop_gpu == ""


def test_jax_device_list_counts_one_hosts_gpus() -> None:
    from stackaudit.facts.gpus import parse_jax_gpus

    line = body("601").splitlines()[0]  # corpus 601: a Ray task's print of jax.devices()
    assert parse_jax_gpus(line).count == 4
    assert parse_jax_gpus("[CudaDevice(id=0), CudaDevice(id=1)]").count == 2
    # Two processes' devices (a multi-host list): one process's share.
    assert parse_jax_gpus("[GpuDevice(id=0, process_index=0), GpuDevice(id=1, process_index=1)]").count == 1
