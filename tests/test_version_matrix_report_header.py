"""RT-VERSION-MATRIX on a pasted report (checks/rt.py MATRIX_HEADER): the inventory is recorded (ok) only where the
report shows both its header (Python, torch and torch's CUDA) and its library versions; an excerpt that starts
after the header, or stops before the library versions, is unknown.
Real pastes are corpus captures (their threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks

CHECK = "RT-VERSION-MATRIX"


@pytest.mark.parametrize("prefix", ["392", "426"])  # sglang check_env: header and package lines both shown
def test_header_and_libraries_are_recorded(prefix: str) -> None:
    result = capture_checks(prefix, CHECK)[CHECK]
    assert result.status == "ok", result.message


def test_libraries_without_the_header_are_unknown() -> None:
    # 460 (vllm#6913's collect_env): the excerpt starts at "Versions of relevant libraries".
    result = capture_checks("460", CHECK)[CHECK]
    assert result.status == "unknown", result.message
    assert "Python (the report's header)" in result.message


def test_header_without_libraries_is_unknown() -> None:
    # 306: the collect_env stops inside its cuDNN list, before the library and vLLM sections.
    result = capture_checks("306", CHECK)[CHECK]
    assert result.status == "unknown", result.message
    assert "the engine and library versions are not in this excerpt" in result.message


def test_the_header_line_completes_it(tmp_path: Path) -> None:
    # Modelled: 460's excerpt with collect_env's header above its library section.
    text = next(CAPTURES_DIR.glob("460-*.txt")).read_text().split("-----\n", 1)[1]
    head = ("PyTorch version: 2.3.1+cu118\nIs debug build: False\nCUDA used to build PyTorch: 11.8\n"
            "ROCM used to build PyTorch: N/A\n\n"
            "Python version: 3.10.14 (main, May  6 2024, 19:42:50) [GCC 11.2.0] (64-bit runtime)\n\n")
    result = paste_checks(tmp_path, head + text, CHECK)[CHECK]
    assert result.status == "ok", result.message
    assert "python 3.10.14" in result.message and "vllm 0.5.3.post1" in result.message
