"""MEM-GPU-SHARED for llama.cpp on native Windows (corpus 1825).

llama.cpp's `using device CUDA0 (<name>) - N MiB free` gives the free memory; the GPU table's nominal memory for the
name gives the total (gputable.nominal_memory_gib: the RTX 40 and 50 series' one memory size each). Its build line
of a Windows binary (`with MSVC ... for x64`, `for x86_64-pc-windows-msvc`) shows native Windows, where WDDM keeps the
desktop's share of the GPU's memory: up to a desktop's share held at start is not an issue.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks

SHARED = "MEM-GPU-SHARED"

# Build lines of real pastes: ggml-org/llama.cpp#14363 (corpus 1825), ROCm/legacy-rocm-build#5901 (AMD's Windows
# build, clang); ikawrakow/ik_llama.cpp#1162, a Linux build (GNU).
WINDOWS_BUILDS = (
    "build: 0 (unknown) with MSVC 19.44.35207.1 for x64",
    "build: 1239 (b8372ee) with clang version 21.0.0git (git@github.com:Compute-Mirrors/llvm-project "
    "5dcc622b51ecd499912c1062ce2b0ecda60d8e93) for x86_64-pc-windows-msvc",
)
LINUX_BUILD = "build: 7771 (293a1565d) with GNU 13.3.0 for Linux x86_64"
_INIT = "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4070 SUPER, compute capability 8.9, VMM: yes\n"
_LOAD = "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4070 SUPER) - 11053 MiB free\n"


def test_capture_1825_desktop_share_on_windows() -> None:
    """Real (capture 1825): 11053 MiB free of the RTX 4070 SUPER's 12 GiB, llama-server.exe built with MSVC."""
    r = capture_checks("1825", SHARED)[SHARED]
    assert r.status == "not-an-issue" and "native Windows" in r.message and "of 12.0 GiB" in r.message


@pytest.mark.parametrize("build", WINDOWS_BUILDS)
def test_windows_build_lines(build: str) -> None:
    from stackaudit.facts.serving_logs import parse_serving_log

    assert parse_serving_log(_INIT + build + "\n" + _LOAD).ollama_windows_line == build


def test_linux_build_line_is_not_windows() -> None:
    from stackaudit.facts.serving_logs import parse_serving_log

    assert parse_serving_log(_INIT + LINUX_BUILD + "\n" + _LOAD).ollama_windows_line == ""


def test_rtx_40_memory_sizes() -> None:
    from stackaudit.gputable import nominal_memory_gib

    assert nominal_memory_gib("NVIDIA GeForce RTX 4070 SUPER") == 12
    assert nominal_memory_gib("NVIDIA GeForce RTX 4080") == 16
    # Modelled: a name NVIDIA sells in two memory sizes (the RTX 4060 Ti, 8 or 16 GB) pins none.
    assert nominal_memory_gib("NVIDIA GeForce RTX 4060 Ti") is None


# --- a native Windows host the sources show, without a Windows-only engine line (h103c) -----------------------------

def test_capture_2319_a_model_on_a_windows_drive() -> None:
    """Real (capture 2319, ollama/ollama#8310): 11053 MiB free of the RTX 4070 SUPER's 12 GiB, the model loaded from
    `C:\\Users\\...\\.ollama\\models\\blobs\\sha256-...`: the runner is Windows' own."""
    r = capture_checks("2319", SHARED)[SHARED]
    assert r.status == "not-an-issue" and "native Windows" in r.message and "Windows path" in r.message


def test_capture_2321_powershell_sets_the_engines_variable(tmp_path: Path) -> None:
    """Real (capture 2321, ollama/ollama#16536): 10.8 of 12.0 GiB available, the user's words name Windows and ollama
    is served from PowerShell. Without the words (modelled: `on Windows` struck from the first line), the PowerShell
    line alone shows native Windows."""
    r = capture_checks("2321", SHARED)[SHARED]
    assert r.status == "not-an-issue" and "native Windows" in r.message
    text = body("2321").replace("+ Intel UHD on Windows,", "+ Intel UHD,", 1)
    assert "Windows," not in text.splitlines()[0]
    r = paste_checks(tmp_path, text, SHARED)[SHARED]
    assert r.status == "not-an-issue" and "PowerShell" in r.message


def test_modelled_2319_under_wsl_is_not_the_desktop_share(tmp_path: Path) -> None:
    """Modelled: capture 2319 with the model under WSL 2's /mnt/c and a Linux home: nothing shows native Windows, and
    1.2 GiB is over a tenth of 12 GiB."""
    text = body("2319").replace("C:\\Users\\avish\\.ollama", "/mnt/c/Users/avish/.ollama").replace("\\", "/")
    r = paste_checks(tmp_path, text, SHARED)[SHARED]
    assert r.status == "unknown" and "native Windows" not in r.message


def test_modelled_2321_from_a_linux_shell_is_not_windows(tmp_path: Path) -> None:
    """Modelled: capture 2321 with the variable exported by a Linux shell and no word of Windows."""
    text = body("2321").replace('$env:OLLAMA_LLM_LIBRARY = "cuda_v13"', "export OLLAMA_LLM_LIBRARY=cuda_v13") \
        .replace(" on Windows,", ",").replace("```powershell", "```sh")
    r = paste_checks(tmp_path, text, SHARED)[SHARED]
    assert r.status == "unknown" and "native Windows" not in r.message
