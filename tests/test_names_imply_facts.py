"""Facts implied by the names a paste holds (issue 28, step 3): a card's board power, an NVL pair's bridges, a cloud
size's vGPU, a log's date before an engine's custom all-reduce."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.applicability import dated_before
from stackaudit.facts.platform import gpus_from_instance_type, instance_gpus
from stackaudit.facts.serving_logs import parse_log_date, parse_serving_log
from stackaudit.gputable import board_power, sold_bridged

# --- board power (gputable.BOARD_POWER) and laptop GPUs ------------------------------------------


def test_board_power_names_desktop_cards_never_laptops() -> None:
    assert board_power("NVIDIA GeForce RTX 3060") == (170, "https://www.nvidia.com/en-us/geforce/graphics-cards/"
                                                           "30-series/compare/")
    assert board_power("NVIDIA RTX A2000 12GB") is not None and board_power("NVIDIA RTX A2000 12GB")[0] == 70
    assert board_power("NVIDIA GeForce RTX 3060 Laptop GPU") is None
    assert board_power("NVIDIA GeForce RTX 3060 Ti") is not None and board_power("NVIDIA GeForce RTX 3060 Ti")[0] == 200


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
