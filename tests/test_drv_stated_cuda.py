"""DRV-CUDA-COMPAT from a hardware list's bare `CUDA Version: X.Y` line (facts/nvidia.py STATED_CUDA, checks/drv.py
_toolkit_only).

The line is nvidia-smi's figure copied, or the CUDA the user runs. Above the CUDA of the driver's branch it cannot be
this driver's own figure: it is the CUDA in use (or the forward-compatibility package's), and a CUDA of the same major
above the driver floor runs by minor-version compatibility (not an issue). At or below the driver's CUDA, a CUDA the
user's list or a template's field states (`cuda: 12.3`, `CUDA 12.8`) is the CUDA the user runs, which the driver runs
(ok); nvidia-smi's header copied one field a line (the `CUDA Version:` under its `Driver Version:`) is the driver's own
figure and says nothing of the runtime. Real pastes: corpus captures 456 (TensorRT-LLM#1131), 276
(text-generation-inference#2238), 837, 907, 950, 1105, 1262, and TensorRT-LLM#1563's header line below; the others are
modelled where marked.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import stated_line


def test_cuda_above_the_branch_runs_by_minor_version_compatibility() -> None:
    result = capture_checks("456", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-an-issue", result.message
    assert "CUDA 12.3" in result.message and "525.116.03" in result.message


def test_header_figure_copied_line_by_line_says_nothing_of_the_runtime(tmp_path: Path) -> None:
    # 276 copies nvidia-smi's header onto three lines: CUDA 12.4 is driver 550's own figure. The runtime judged is its
    # TGI 2.0.4 image's (CUDA 12.1, docker.TGI_CUDA); modelled with a tag that names no release, none is shown.
    result = capture_checks("276", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "text-generation-inference:2.0.4 (CUDA 12.1)" in result.message
    latest = body("276").replace("text-generation-inference:2.0.4", "text-generation-inference:latest")
    result = paste_checks(tmp_path, latest, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "not in this source" in result.message


# https://github.com/NVIDIA/TensorRT-LLM/issues/1563 (the issue body's System Info): the header on one line.
P40_HEADER = """1,Hardware and CUDA info:
NVidia P40
NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0
"""


def test_header_line_is_not_a_stated_cuda(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, P40_HEADER, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "names CUDA" not in result.message


# Modelled: the 456 list with a CUDA 13.0 the R525 driver cannot run, unless it is the compat package's figure.
MAJOR_ABOVE = """GPU:2xRTX4090
driver:525.116.03
CUDA Version: 13.0
"""


def test_major_above_the_driver_is_left_unknown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MAJOR_ABOVE, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message
    assert "forward-compatibility" in result.message


# Modelled: nvcc's release beside the bare line: the toolkit line is read, the bare one is not.
WITH_NVCC = """driver:525.116.03
CUDA Version: 12.3
Cuda compilation tools, release 12.0, V12.0.140
"""


def test_toolkit_line_wins_over_the_bare_line(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, WITH_NVCC, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "toolkit 12.0" in result.message


# --- At or below the driver's highest CUDA: a CUDA the user's list states (h62e) ---------------------------------


def test_list_item_cuda_at_the_drivers_cuda_is_ok() -> None:
    # 1105: `* cuda: 12.3` beside the RPM `nvidia-driver-latest-dkms-545.23.08-1.el7.x86_64` (R545: CUDA 12.3).
    result = capture_checks("1105", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "CUDA 12.3" in result.message and "545.23.08" in result.message


def test_template_field_in_code_marks_names_driver_and_cuda() -> None:
    # 1262: TensorRT-LLM's issue form, `Driver version: `535.129.03`` and `Cuda version: `12.2``.
    result = capture_checks("1262", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "535.129.03" in result.message and "CUDA 12.2" in result.message


def test_bold_list_item_with_driver_after_a_comma() -> None:
    # 950: `- **CUDA:** 12.8, driver 581.80` (Windows R580: CUDA 13.0) under WSL 2.
    result = capture_checks("950", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "CUDA 12.8" in result.message and "13.0" in result.message


def test_bare_cuda_line_and_toolkit_field() -> None:
    # 837: a bare `CUDA 12.8` under R570; 907: `CUDA tool kit:12.4` (a toolkit) under R550.
    assert capture_checks("837", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"
    result = capture_checks("907", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "toolkit 12.4" in result.message


# Modelled on 1311 (nvidia-container-cli info): its `CUDA version:` under `NVRM version:` is the driver's figure.
CONTAINER_CLI_INFO = """driver: 418.87.00
NVRM version:   418.87.00
CUDA version:   10.1
"""


def test_container_cli_cuda_under_the_driver_is_not_a_runtime(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, CONTAINER_CLI_INFO, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message


# Modelled: `nvidia-smi -q`'s padded field is the driver's CUDA, not a list item.
def test_stated_cuda_forms() -> None:
    from stackaudit.facts._parse import stated_line
    from stackaudit.facts.nvidia import STATED_CUDA

    said = ["* cuda: 12.3", "- Cuda:12.4", "CUDA 12.8", "* cuda version : 12.2", "Cuda version: `12.2`",
            stated_line("- **CUDA:** 12.8, driver 581.80"), "CUDA Version: 12.3"]
    assert [m.group(1) for line in said if (m := STATED_CUDA.search(line))] == \
        ["12.3", "12.4", "12.8", "12.2", "12.2", "12.8", "12.3"]
    for line in ("    CUDA Version                              : 12.2",
                 "| NVIDIA-SMI 535.183.01   Driver Version: 535.183.01   CUDA Version: 12.2     |",
                 "CUDA 12.8 is installed but vLLM fails", "CUDA_VERSION=12.4"):
        assert STATED_CUDA.search(line) is None, line


# nvidia-smi's header, old and new (`KMD Version:` / `CUDA UMD Version:` from R610, corpus 1977).
_HEADER = re.compile(r"(?:Driver|KMD) Version: (\d{3}\.\d+(?:\.\d+)?) +CUDA (?:UMD )?Version: (\d+\.\d+)")


def test_no_corpus_header_shows_less_than_its_branchs_cuda() -> None:
    # The branch table's rows after R580 (and R565) come from the corpus's headers; a row above what a header of its
    # branch prints would be wrong (a header may print more: the forward-compatibility package's CUDA).
    from corpus import CAPTURES_DIR
    from stackaudit.facts.nvidia import cuda_of_branch
    from stackaudit.versions import release

    seen = {(m.group(1), m.group(2)) for path in CAPTURES_DIR.glob("*.txt") for m in _HEADER.finditer(path.read_text())}
    below = [(d, c) for d, c in seen if release(c, 2) < release(cuda_of_branch(release(d)) or "0", 2)]
    assert not below
    assert {cuda_of_branch(release(d)) for d, _ in seen if d.startswith(("610.", "595.", "590.", "565."))} \
        == {"13.3", "13.2", "13.1", "12.7"}


def test_2242_a_list_cuda_at_the_r610_branchs_own_is_ok() -> None:
    # syv-ai/qwen38-27b-rtx3090#98: `Driver     NVIDIA Open Kernel Module 610.43.02, CUDA 13.3` with vLLM 0.28.0; R610's
    # own CUDA is 13.3 (corpus 1977's header), so the list's CUDA is the driver's or one it runs (both readers: ok).
    result = capture_checks("2242", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "13.3" in result.message and "610.43.02" in result.message, result.message


def test_modelled_list_cuda_above_the_r595_branch_runs_by_minor_version_compatibility(tmp_path: Path) -> None:
    # Modelled: 2242's line on an R595 driver, whose own CUDA is 13.2.
    text = body("2242").replace("610.43.02", "595.71.05")
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-an-issue" and "13.2" in result.message, result.message


def test_corpus_2762_a_row_pairing_torch_and_the_driver_states_both() -> None:
    # sgl-project/sglang#34340: the environment table's `| torch / driver | 2.13.0+cu130 / 580.159.04 |` (line 13), in
    # a paste refused before: driver 580 is CUDA 13's branch, which torch's cu130 build needs.
    result = capture_checks("2762", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "580.159.04" in result.message


def test_a_paired_row_of_single_parts_states_each(tmp_path: Path) -> None:
    # Modelled on corpus 2314's `| tp_size / ep_size | 8 / 8 |`: a pairs row with the driver and torch the other way.
    text = "| Item | Value |\n|---|---|\n| driver / torch | 535.104.05 / 2.7.0+cu128 |\n"
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status != "unknown" and "535.104.05" in result.message


def test_a_row_whose_parts_do_not_pair_is_not_split() -> None:
    # Modelled counter-examples: more parts in the value than the key names, and nvidia-smi's power and memory cells.
    assert stated_line("| torch / driver | 2.13.0+cu130 / 580.159.04 / extra |") == \
        "torch / driver: 2.13.0+cu130 / 580.159.04 / extra"
    assert "\n" not in stated_line("| N/A   41C    P0    55W / 400W |      0MiB / 40536MiB |")
