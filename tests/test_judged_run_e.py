"""Issue 28, blind pastes 287-301 (run E): what the text shows decides, as a rule for the class, not the file.

- MEM-ROW-REMAP-ECC: the nvidia-smi table shows only the volatile uncorrectable ECC count; a non-zero count is the
  issue, 0 the ok (no uncorrectable error since the driver loaded; h63f, the blind majority), the remap and
  retirement state named as not shown.
- DRV-CUDA-COMPAT: a CUDA above the driver branch's own, shown running (the nvidia-smi header reaching a later
  branch's CUDA, or torch initialising CUDA below its floor), is forward compatibility: not an issue on
  data-center GPUs, error 804 on GeForce.
- RT-TORCH-ARCH: the compute capability check_env states for a GPU model settles it where the table has no row.
- An engine command in Markdown inline code is read; SGLang's check_env cut before its `sglang:` line is check_env,
  and its `name: version` package lines and NVCC release reach python_env.
- The GPU table has the V100S PCIe (250 W default), which a cut `Tesla V100S-PCI...` resolves to.

The pastes are real corpus files (tests/data/captures names each one's public thread in its header);
modelled counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"


pasted, capture = paste_checks, capture_checks


# --- MEM-ROW-REMAP-ECC: the table's ECC column alone ------------------------------------------------


@pytest.mark.parametrize("prefix", ["128", "153", "203", "299"])
def test_table_ecc_column_zero_is_ok_naming_what_is_not_shown(prefix: str) -> None:
    # DCGM#70 (3x A100), TGI#2671 (A10G), 203's A800 PCIe thread, k8s-device-plugin#243 (V100S): 0 in the column.
    r = capture(prefix, "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"]
    assert r.status == "ok" and "no uncorrectable ECC error since the driver loaded" in r.message
    assert "page-retirement state is not in this source" in r.message


# Modelled: the 299 table with GPU 0's volatile uncorrectable count at 2.
TABLE_UNCORRECTABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.51.05    Driver Version: 450.51.05    CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla V100S-PCI...  Off  | 00000000:00:07.0 Off |                    2 |
| N/A   50C    P0   219W / 250W |   4617MiB / 32510MiB |    100%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_table_ecc_column_shows_the_issue(tmp_path: Path) -> None:
    r = pasted(tmp_path, TABLE_UNCORRECTABLE, "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"]
    assert r.status == "issue" and "volatile uncorrectable ECC errors on GPU(s) 0 (2)" in r.message


# --- DRV-CUDA-COMPAT: forward compatibility shown ----------------------------------------------------


def test_header_above_its_branch_shows_forward_compat_on_h100() -> None:
    # nccl#1967: 'CUDA Version: 12.9' on driver 560.35.03 (a 12.6 branch), H100 80GB HBM3.
    r = capture("287", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "not-an-issue" and "forward-compatibility" in r.message


def test_cuda_initialised_below_the_floor_is_forward_compat() -> None:
    # vLLM collect_env: torch 2.4.0+cu121, driver 470.129.06, 'Is CUDA available: True', 4x A10.
    r = capture("294", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "not-an-issue" and "Is CUDA available: True" in r.message


# Modelled: the 287 header on a GeForce card (no forward compatibility: error 804, as in nvidia-docker#1515).
HEADER_GEFORCE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.9     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0 Off |                  Off |
| 30%   35C    P8             20W /  450W |       1MiB /  24564MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def test_header_above_its_branch_on_geforce_is_an_issue(tmp_path: Path) -> None:
    r = pasted(tmp_path, HEADER_GEFORCE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "804" in r.message


def test_header_above_its_branch_on_a_workstation_card_is_unknown(tmp_path: Path) -> None:
    # Modelled: the same header on an RTX A6000 (forward compatibility only on select RTX SKUs).
    text = HEADER_GEFORCE.replace("NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000       ")
    r = pasted(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown" and "select RTX SKUs" in r.message


def test_header_of_a_branch_the_table_does_not_reach_shows_nothing(tmp_path: Path) -> None:
    # Modelled: a 595 driver reading CUDA 13.2 (its own): no later branch in the table, so no evidence.
    text = HEADER_GEFORCE.replace("560.35.03    ", "595.58.03    ").replace("CUDA Version: 12.9", "CUDA Version: 13.2")
    r = pasted(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "unknown" and "forward" not in r.message


def test_cuda_not_initialised_below_the_floor_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: the 294 report with 'Is CUDA available: False'.
    text = next(CAPTURES.glob("294-*.txt")).read_text().replace("Is CUDA available: True", "Is CUDA available: False")
    r = pasted(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "issue" and "525.60.13" in r.message


# --- RT-TORCH-ARCH: the capability check_env states -------------------------------------------------


@pytest.mark.parametrize(("prefix", "model", "capability"), [
    ("292", "Quadro RTX 6000", "7.5"),  # sglang#7877
    ("212", "NVIDIA H100 80GB HBM3", "9.0"),
    ("47", "NVIDIA A40", "8.6"),
    ("45", "NVIDIA A100-SXM4-80GB", "8.0"),
])
def test_check_env_states_the_capability(prefix: str, model: str, capability: str) -> None:
    report = parse_collect_env(next(CAPTURES.glob(prefix + "-*.txt")).read_text())
    assert report.capabilities == {model: capability}


def test_stated_capability_settles_a_model_the_table_lacks() -> None:
    r = capture("292", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok" and "Quadro RTX 6000 (compute 7.5)" in r.message


def test_stated_capability_the_wheel_lacks_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the 292 report with a Pascal capability and torch 2.10.0+cu128 (no sm_6x in its arch list).
    text = next(CAPTURES.glob("292-*.txt")).read_text()
    text = text.replace("Compute Capability: 7.5", "Compute Capability: 6.1").replace("2.7.1+cu126", "2.10.0+cu128")
    r = pasted(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "issue" and "compute 6.1" in r.message


# --- An engine command in Markdown inline code ----------------------------------------------------------


def _commands(text: str) -> str:
    from stackaudit.importers.recognition import recognise

    return recognise(text).record.docs.get("engine_command", "")


@pytest.mark.parametrize(("text", "command"), [
    # sglang#4814 (corpus 293): the command inside a prose sentence.
    ("Run `python -m sglang.launch_server --served-model-name=qwen --trust-remote-code "
     "--model=./Qwen2.5-0.5B-Instruct --tensor-parallel-size=2` on 8*4090 Node.",
     "python -m sglang.launch_server --served-model-name=qwen --trust-remote-code --model=./Qwen2.5-0.5B-Instruct "
     "--tensor-parallel-size=2"),
    # corpus 254 (SGLang TP2 /dev/shm thread): a line that is one span.
    ("`python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp 2`",
     "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp 2"),
    # https://github.com/vllm-project/vllm/issues/18814 (RodriMora, 2025-05-30): with its variables.
    ("`CUDA_VISIBLE_DEVICES=2,4 vllm serve mistralai/Mistral-Nemo-Instruct-2407 --max-model-len 16000 "
     "--host 0.0.0.0 --port 5000 -tp 2`",
     "CUDA_VISIBLE_DEVICES=2,4 vllm serve mistralai/Mistral-Nemo-Instruct-2407 --max-model-len 16000 "
     "--host 0.0.0.0 --port 5000 -tp 2"),
])
def test_inline_code_command_is_read(text: str, command: str) -> None:
    assert _commands(text) == command + "\n"


def test_inline_code_that_starts_no_engine_is_not_a_command() -> None:
    # Modelled: prose naming the flag and the program, with no command in any one span.
    assert _commands("When I start `vllm` with `--tensor-parallel-size=2` and `serve`, it hangs.") == ""


def test_prose_command_and_cut_check_env_judge_sglang_on_geforce() -> None:
    r = capture("293", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "issue" and "GeForce" in r.message


# --- SGLang check_env cut before its `sglang:` line --------------------------------------------------


def test_check_env_cut_before_its_sglang_line_is_sglang() -> None:
    text = next(CAPTURES.glob("293-*.txt")).read_text()
    report = parse_collect_env(text)
    assert report.tool == "sglang" and set(report.gpu_models) == {"NVIDIA GeForce RTX 4090"}
    assert report.gpu_count == 8 and report.capabilities == {"NVIDIA GeForce RTX 4090": "8.9"}


def test_mmengine_collect_env_stays_openmmlab() -> None:
    # Modelled on mmengine's collect_env: CUDA available and GPU rows, no driver line, sys.platform first.
    report = parse_collect_env("sys.platform: linux\nPython: 3.10.12\nCUDA available: True\n"
                               "GPU 0,1: NVIDIA A100-SXM4-80GB\nCUDA_HOME: /usr/local/cuda\nPyTorch: 2.1.0+cu121\n")
    assert report.tool == "openmmlab"


# --- SGLang check_env's package lines and NVCC --------------------------------------------------------


@pytest.mark.parametrize(("prefix", "package", "version"), [
    ("292", "flashinfer-python", "0.2.7.post1"),  # sglang#7877
    ("212", "flashinfer-python", "0.2.9rc2"),
    ("265", "flashinfer", "0.1.1+cu121torch2.3"),
])
def test_check_env_packages_and_nvcc_reach_python_env(prefix: str, package: str, version: str) -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all as load_facts

    load_facts()
    host = load_pasted([str(next(CAPTURES.glob(prefix + "-*.txt")))])
    env = Collector(host).results(["python_env"])["python_env"].environments[0]
    assert env.version(package) == version and env.cuda_home_version == "12.4"


def test_check_env_older_nvcc_than_torch_is_the_flashinfer_issue() -> None:
    r = capture("292", "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "issue" and "CUDA 12.4" in r.message and "12.6" in r.message


def test_check_env_cut_before_torch_lists_no_package() -> None:
    # 293's check_env ends at 'CUDA Driver Version: 550.': its Python line is no package.
    r = capture("293", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "unknown"


# --- The V100S PCIe row: the cut name and its 250 W default -------------------------------------------

_V100S_HEAD = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 460.91.03    Driver Version: 460.91.03    CUDA Version: 11.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
"""
# The TAFT code's README (Guibon et al., AAAI 2023, a public repository): its `nvidia-smi`, verbatim.
TAFT_ROWS = """\
|   0  Tesla V100S-PCI...  On   | 00000000:25:00.0 Off |                    0 |
| N/A   27C    P0    24W / 250W |      4MiB / 32510MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""
# A Red Hat 6.6 driver set-up guide in a public repository (driver 460.106.00): its GPU row, verbatim.
REDHAT_ROWS = """\
|   0  Tesla V100S-PCI...  Off  | 00000000:00:03.0 Off |                    0 |
| N/A   26C    P0    35W / 250W |      0MiB / 32510MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


@pytest.mark.parametrize("rows", [TAFT_ROWS, REDHAT_ROWS])
def test_v100s_cut_name_at_its_default_cap_is_ok(tmp_path: Path, rows: str) -> None:
    r = pasted(tmp_path, _V100S_HEAD + rows, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "ok" and "250 W" in r.message


def test_v100s_in_the_k8s_device_plugin_paste_is_ok() -> None:
    # k8s-device-plugin#243 (corpus 299): 219W / 250W on GPU 0, the table cut after it.
    assert capture("299", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status == "ok"


def test_v100s_capped_below_its_default_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the TAFT row with a 200 W cap (`nvidia-smi -pl 200`).
    r = pasted(tmp_path, _V100S_HEAD + TAFT_ROWS.replace("24W / 250W", "24W / 200W"),
               "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "issue" and "250 W" in r.message
