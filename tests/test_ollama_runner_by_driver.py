"""DRV-CUDA-COMPAT from ollama's CUDA probe alone (checks/drv.py OLLAMA_RUNNER_BY_DRIVER, facts/gpus.py
ollama_cuda_from_log).

ollama picks its CUDA runner from the driver's CUDA its probe read (discover/gpu.go cudaVariant: v11 below a 12.1
driver where it ships v11, v12 below a CUDA 13 driver, v13 from it), so a driver of CUDA 12.1 or newer runs the
runner it loads even where the log does not name it. The probe's `[GPU-<uuid>] Compute Capability X.Y` lines are
the GPUs it found. Real pastes: corpus capture 454 (ollama#9415) and the excerpts below with their threads;
counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/ollama/ollama/issues/8532 (a comment's OLLAMA_DEBUG journal, cut after the probe).
A2000_PROBE = """jan 27 17:08:19 desktop ollama[1646734]: calling cuInit
jan 27 17:08:19 desktop ollama[1646734]: calling cuDriverGetVersion
jan 27 17:08:19 desktop ollama[1646734]: raw version 0x2f1c
jan 27 17:08:19 desktop ollama[1646734]: CUDA driver version: 12.6
jan 27 17:08:19 desktop ollama[1646734]: calling cuDeviceGetCount
jan 27 17:08:19 desktop ollama[1646734]: device count 1
"""

# https://github.com/ollama/ollama/issues/9245 (a comment's journal: the probe, then the discovery line).
RTX4080_PROBE = """2月 21 13:31:11 tc ollama[285585]: CUDA driver version: 12.3
2月 21 13:31:11 tc ollama[285585]: calling cuDeviceGetCount
2月 21 13:31:11 tc ollama[285585]: device count 1
2月 21 13:31:11 tc ollama[285585]: time=2025-02-21T13:31:11.754+08:00 level=DEBUG source=gpu.go:125 msg="detected GPUs" count=1 library=/usr/lib/x86_64-linux-gnu/libcuda.so.545.23.08
2月 21 13:31:11 tc ollama[285585]: [GPU-433dad3d-903e-13f1-25aa-8888bfae0c86] CUDA totalMem 16076 mb
2月 21 13:31:11 tc ollama[285585]: [GPU-433dad3d-903e-13f1-25aa-8888bfae0c86] CUDA freeMem 15811 mb
2月 21 13:31:11 tc ollama[285585]: [GPU-433dad3d-903e-13f1-25aa-8888bfae0c86] Compute Capability 8.9
"""
RTX4080_DISCOVERY = ("2月 21 13:31:11 tc ollama[285585]: time=2025-02-21T13:31:11.961+08:00 level=INFO source=types.go:130 "
                     'msg="inference compute" id=GPU-433dad3d-903e-13f1-25aa-8888bfae0c86 library=cuda variant=v12 '
                     'compute=8.9 driver=12.3 name="NVIDIA GeForce RTX 4080" total="15.7 GiB" available="15.4 GiB"\n')


def test_rtx5090_probe_is_ok_over_its_gpu() -> None:
    result = capture_checks("454", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "cudaVariant" in result.message
    assert result.coverage.shown and result.coverage.total == 1


def test_probe_without_gpu_lines_is_ok_but_shows_no_gpu(tmp_path: Path) -> None:
    # The excerpt ends at the device count: the verdict holds, over no GPU shown.
    result = paste_checks(tmp_path, A2000_PROBE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "CUDA 12.6" in result.message and "cudaVariant" in result.message
    assert result.coverage.total == 1 and not result.coverage.shown


def test_probe_gpu_line_is_the_gpu_shown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, RTX4080_PROBE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert result.coverage.shown == ("GPU 0",)


def test_a_chosen_runner_still_decides(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, RTX4080_PROBE + RTX4080_DISCOVERY, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "cuda v12 runner" in result.message


def test_old_driver_without_runner_stays_unknown(tmp_path: Path) -> None:
    # Modelled: a CUDA 11.4 driver; an ollama without the v11 runner loads v12, which that driver does not run.
    result = paste_checks(tmp_path, RTX4080_PROBE.replace("version: 12.3", "version: 11.4"),
                          "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "not in the lines shown" in result.message


# --- ollama's own log line beside the driver (checks/drv.py: ServingLog.engine joins the engines shown) ------------

# https://github.com/ollama/ollama/issues/9704 (corpus 1378): the issue body's nvidia-smi header and its one journal
# line of ollama's server, as pasted (the journal line under the user's `logs concerned:`).
OLLAMA_JOURNAL_LINE = ('3 Mar 13 09:03:54 oldpc ollama[1141]: time=2025-03-13T09:03:54.567+08:00 level=INFO '
                       'source=server.go:619 msg="waiting for server to become available" status="llm server error"\n')
SMI_570 = """nvidia-smi
Thu Mar 13 09:04:05 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.124.04             Driver Version: 570.124.04     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4060 Ti     Off |   00000000:02:00.0  On |                  N/A |
"""


def test_ollama_journal_line_beside_nvidia_smi_is_ok() -> None:
    # Corpus 1378: `ollama ps`, `ollama -v` and one ollama journal line above a driver for CUDA 12.8.
    result = capture_checks("1378", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "ollama" in result.message and "picks the runner this driver runs" in result.message


def test_the_journal_line_is_what_shows_ollama(tmp_path: Path) -> None:
    # The same text without ollama's line shows no program: no runtime to judge.
    shown = paste_checks(tmp_path, "logs concerned:\n" + OLLAMA_JOURNAL_LINE + "\n" + SMI_570,
                         "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert shown.status == "ok", shown.message
    assert "ollama" in shown.message
    alone = paste_checks(tmp_path, SMI_570, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert alone.status == "unknown", alone.message


def test_ollama_journal_line_under_a_cuda_11_driver_stays_open(tmp_path: Path) -> None:
    # Modelled: the same line under driver 470 (CUDA 11.4): which runner that release picks is not shown.
    old = SMI_570.replace("570.124.04", "470.256.02").replace("CUDA Version: 12.8", "CUDA Version: 11.4")
    result = paste_checks(tmp_path, "logs concerned:\n" + OLLAMA_JOURNAL_LINE + "\n" + old,
                          "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message


# --- the driver's CUDA nvidia-smi reported, without the driver's version (facts/nvidia.STATED_CUDA_ITEM's `smi`) ------

def test_2256_ollama_beside_the_cuda_nvidia_smi_reported_is_ok() -> None:
    # ollama/ollama#16957: `Driver: 552.x, CUDA 12.4 reported by nvidia-smi` and `Ollama: 0.30.11` (both readers: ok).
    result = capture_checks("2256", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "CUDA 12.4" in result.message and "0.30.11" in result.message, result.message


# Modelled on 2256's list, with the lines the rule turns on varied.
_LIST = "OS: Windows 11\nOllama: 0.30.11\nGPUs: NVIDIA Geforce GTX 1080Ti\nDriver: 552.x, {cuda}\n"


def test_modelled_the_drivers_cuda_copied_under_a_branch_is_nvidia_smis_too(tmp_path: Path) -> None:
    # nvidia-smi's header copied one field a line, the driver's version cut to its branch.
    text = "Ollama: 0.30.11\nDriver Version: 552.xx\nCUDA Version: 12.4\n"
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


def test_modelled_a_cuda_item_not_nvidia_smis_or_below_12_1_stays_open(tmp_path: Path) -> None:
    # A CUDA the user names without nvidia-smi may be the one in use; a driver for CUDA 12.0 runs no 0.30 runner.
    for cuda in ("CUDA 12.4", "CUDA 12.0 reported by nvidia-smi"):
        result = paste_checks(tmp_path, _LIST.format(cuda=cuda), "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
        assert result.status == "unknown", (cuda, result.message)
    ok = paste_checks(tmp_path, _LIST.format(cuda="CUDA 12.4 reported by nvidia-smi"), "DRV-CUDA-COMPAT")
    assert ok["DRV-CUDA-COMPAT"].status == "ok"
