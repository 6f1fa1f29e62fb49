"""RT-TORCH-ARCH and RT-VERSION-MATRIX: torch 1.4-1.5 wheels' arch lists, NGC releases' compute-capability floor, and
the versions a hand summary states (issue 28, h81b).

The 1.4 and 1.5 wheels for CUDA 10.1 (and 10.2 from 1.5) carry 3.7+PTX;5.0;6.0;6.1;7.0;7.5 (pytorch/builder
manywheel/build.sh from 2d91d533 to 8d064bfc, windows/cuda101.bat and cuda102.bat); NGC framework releases 19.03 to
23.06 support compute capability 6.0 and higher (their release notes). Real pastes are verbatim (the public thread
beside each) or corpus captures; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.checks.rt import torch_supports, wheel_arch_list
from stackaudit.facts.docker import ngc_capability_floor, ngc_image_release, ngc_torch_cuda
from stackaudit.facts.python_env import python_env_from_stated_versions

# Corpus 1814 unquoted (https://github.com/pytorch/pytorch/issues/40682), up to the library list.
TITAN_RTX_150 = """Collecting environment information...
PyTorch version: 1.5.0+cu101
Is debug build: No
CUDA used to build PyTorch: 10.1

OS: Microsoft Windows Server 2019 Standard
GCC version: (MinGW.org GCC Build-20200227-1) 9.2.0
CMake version: Could not collect

Python version: 3.7
Is CUDA available: Yes
CUDA runtime version: 10.1.243
GPU models and configuration:
GPU 0: TITAN RTX
GPU 1: TITAN RTX

Nvidia driver version: 442.92
cuDNN version: C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.1\\bin\\cudnn64_7.dll

Versions of relevant libraries:
[pip] numpy==1.19.0
[pip] torch==1.5.0+cu101
[pip] torchvision==0.6.0+cu101
"""

# Corpus 1739 (https://github.com/triton-inference-server/server/issues/2311): Triton 20.03.1 on a Tesla M40.
M40_SMI = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 440.64.00    Driver Version: 440.64.00    CUDA Version: 10.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|   0  Tesla M40           On   | 00000000:00:08.0 Off |                  Off |
| N/A   33C    P0    62W / 250W |    109MiB / 12215MiB |      0%      Default |

docker run --gpus all --rm -p8000:8000 -v /data/tritonserver/models:/models nvcr.io/nvidia/tritonserver:20.03.1-py3 tritonserver --model-repository=/models
"""

# A public report's hardware table (NVIDIA Thor in nvcr.io/nvidia/pytorch:25.12-py3), two-column Markdown rows.
THOR_TABLE = """| Component | Specification |
|-----------|---------------|
| CUDA | 13.1 (Minor Compatibility Mode) |
| PyTorch | 2.10.0a0+b4e4ee81d3.nv25.12 |
| Container | nvcr.io/nvidia/pytorch:25.12-py3 |
"""


@pytest.mark.parametrize("version", ["1.4.0+cu101", "1.5.0+cu101", "1.5.1+cu101", "1.5.1+cu102"])
def test_torch_14_15_wheels_carry_the_builders_list_with_ptx(version: str) -> None:
    assert wheel_arch_list(version) == ("sm_37", "compute_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75")


@pytest.mark.parametrize("version", ["1.4.0+cu102", "1.6.0+cu101", "1.6.0+cu102"])
def test_no_wheel_or_a_build_at_the_change_stays_unknown(version: str) -> None:
    # Modelled: 1.4 had no cu102 wheel, and 1.6 was built around 8d064bfc (2020-07-09), which dropped PTX and 6.1.
    assert wheel_arch_list(version) is None


@pytest.mark.parametrize(("capability", "verdict"), [
    ("3.5", False),  # compute_37 PTX does not run on an older sm_35 (torch 1.5 refuses a Tesla K40)
    ("3.7", True), ("5.2", True), ("7.5", True),
    ("8.0", None), ("8.6", None),  # the PTX JIT-compiles there, whether cuDNN 7 runs is not told
])
def test_ptx_runs_from_its_own_capability_up(capability: str, verdict: bool | None) -> None:
    arch = wheel_arch_list("1.5.0+cu101")
    assert torch_supports(capability, "1.5.0+cu101", "10.1", arch) is verdict


def test_corpus_1814_titan_rtx_on_150_cu101_is_ok_and_recorded() -> None:
    results = capture_checks("1814", "RT-TORCH-ARCH", "RT-VERSION-MATRIX")
    assert results["RT-TORCH-ARCH"].status == "ok", results["RT-TORCH-ARCH"].message
    assert "TITAN RTX (compute 7.5)" in results["RT-TORCH-ARCH"].message
    assert results["RT-VERSION-MATRIX"].status == "ok", results["RT-VERSION-MATRIX"].message


def test_a_100_on_150_cu101_is_not_told(tmp_path: Path) -> None:
    # Modelled: sm_80 has only the compute_37 PTX of the 1.5 wheel.
    text = TITAN_RTX_150.replace("TITAN RTX", "NVIDIA A100-SXM4-40GB")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "unknown", result.message


def test_k80_on_150_cu101_is_ok(tmp_path: Path) -> None:
    # Modelled: compute 3.7 is the list's first entry (torch 1.5 refuses only what is older, a Tesla K40's 3.5).
    text = TITAN_RTX_150.replace("TITAN RTX", "Tesla K80")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "ok", result.message
    assert "Tesla K80 (compute 3.7)" in result.message


def test_a_report_without_its_library_list_is_not_recorded(tmp_path: Path) -> None:
    # Modelled: the same report cut before `Versions of relevant libraries`.
    text = TITAN_RTX_150.split("Versions of relevant libraries:")[0]
    result = paste_checks(tmp_path, text, "RT-VERSION-MATRIX")["RT-VERSION-MATRIX"]
    assert result.status == "unknown", result.message


@pytest.mark.parametrize(("image", "release", "floor"), [
    ("nvcr.io/nvidia/tritonserver:20.03.1-py3", "20.03", "6.0"),
    ("nvcr.io/nvidia/tritonserver:21.10-py3", "21.10", "6.0"),
    ("nvcr.io/nvidia/pytorch:23.06-py3", "23.06", "6.0"),
    # Between 25.03 and 25.08, whose notes say 7.5: 25.04 refuses a V100 (triton#8279).
    ("nvcr.io/nvidia/tritonserver:25.04-py3", "25.04", "7.5"),
    ("nvcr.io/nvidia/tritonserver:18.12-py3", "18.12", None),  # before the first release read
])
def test_ngc_releases_floor(image: str, release: str, floor: str | None) -> None:
    assert ngc_image_release(image) == release
    found = ngc_capability_floor(release)
    assert (found[0] if found else None) == floor


def test_corpus_1739_m40_under_triton_2003_is_an_issue() -> None:
    result = capture_checks("1739", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status == "issue", result.message
    assert "Tesla M40 (Maxwell)" in result.message and "20.03" in result.message


def test_a_pascal_gpu_is_at_the_floor(tmp_path: Path) -> None:
    # Modelled: the same run on a Tesla P40 (compute 6.1): the floor holds no issue.
    text = M40_SMI.replace("Tesla M40          ", "Tesla P40          ")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status != "issue", result.message


def test_a_release_outside_the_rows_says_nothing_of_the_floor(tmp_path: Path) -> None:
    # Modelled: the M40 under 18.12, before the first release whose floor this table holds.
    text = M40_SMI.replace("tritonserver:20.03.1-py3", "tritonserver:18.12-py3")
    result = paste_checks(tmp_path, text, "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert result.status != "issue", result.message


def test_ngc_torch_label_names_its_release_cuda() -> None:
    assert ngc_torch_cuda("2.10.0a0+b4e4ee81d3.nv25.12") == "13.1"
    assert ngc_torch_cuda("2.7.0a0+ecf3bae40a.nv25.02") == "12.8"
    assert ngc_torch_cuda("2.10.0a0+b4e4ee81d3.nv25.11") == ""  # a release the table does not hold
    assert ngc_torch_cuda("2.5.1+cu124") == ""


def test_a_table_row_of_an_ngc_torch_is_read_with_its_cuda() -> None:
    env = python_env_from_stated_versions(THOR_TABLE).environments[0]
    assert env.version("torch") == "2.10.0a0+b4e4ee81d3.nv25.12"
    assert env.torch_cuda == "13.1"


def test_corpus_1735_hand_summary_is_recorded() -> None:
    # `pip show` typed as padded columns, `python3 --version`'s `Python 3.12.3`.
    result = capture_checks("1735", "RT-VERSION-MATRIX")["RT-VERSION-MATRIX"]
    assert result.status == "ok", result.message
    assert "python 3.12.3" in result.message and "torch_cuda 13.1" in result.message


def test_a_padded_torch_line_without_python_is_not_recorded(tmp_path: Path) -> None:
    # Modelled: the summary's pip lines alone; Python, the report's header, is not shown.
    text = "tensorrt_llm  1.2.1\ntorch         2.10.0a0+b4e4ee81d3.nv25.12\n"
    result = paste_checks(tmp_path, text, "RT-VERSION-MATRIX")["RT-VERSION-MATRIX"]
    assert result.status == "unknown", result.message
