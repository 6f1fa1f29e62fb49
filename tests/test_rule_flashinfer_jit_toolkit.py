"""RT-FLASHINFER: the CUDA toolkit FlashInfer's JIT builds with (CUDA_HOME's nvcc), as a rule for the class.

- FlashInfer's sources include cuda_fp8.h, which CUDA 11.8 introduced: an older nvcc JIT-builds none of its kernels
  (flashinfer-ai/flashinfer#514, closed wontfix by its maintainer; sgl-project/sglang#5389, corpus 1184).
- SGLang's check_env prints `flashinfer: Module Not Found` where `import flashinfer` failed in its shell: the fact
  keeps it (PythonEnvironment.not_importable). With a toolkit FlashInfer cannot be JIT-built with, that is an issue
  (1184); with a usable toolkit, which backend the engine ran is unknown (605, 942).
- A toolkit newer than torch's CUDA within its major stays ok, and the ok says so rather than "matches" (367, 1186).

Real pastes are corpus files (tests/data/captures names each one's public thread); modelled text is said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks


def _env(prefix: str):  # type: ignore[no-untyped-def]
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all as load_facts
    from stackaudit.importers.pasted import load_pasted

    load_facts()
    host = load_pasted([str(next(CAPTURES_DIR.glob(prefix + "-*.txt")))])
    return Collector(host).results(["python_env"])["python_env"].environments[0]


def test_module_not_found_lines_reach_python_env() -> None:
    assert "flashinfer" in _env("1184").not_importable  # `flashinfer: Module Not Found`
    env = _env("1116")  # `flashinfer_jit_cache: Module Not Found` beside flashinfer_python 0.5.3
    assert "flashinfer-jit-cache" in env.not_importable and "flashinfer-python" not in env.not_importable


def test_nvcc_11_7_under_a_cu124_torch_with_flashinfer_not_importable_is_the_issue() -> None:
    # sglang#5389: check_env shows `flashinfer: Module Not Found`, CUDA_HOME NVCC 11.7, torch 2.5.1+cu124.
    r = capture_checks("1184", "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "issue"
    assert "Module Not Found" in r.message and "11.7" in r.message and "cuda_fp8.h" in r.message
    assert "12.4" in r.message


@pytest.mark.parametrize("prefix", ["605", "942"])
def test_flashinfer_not_importable_with_a_usable_toolkit_is_unknown(prefix: str) -> None:
    # NVCC 12.4 / 12.6 under torch cu124: nothing wrong with the toolkit; the backend the engine ran is not shown.
    r = capture_checks(prefix, "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "unknown" and "Module Not Found" in r.message


# Modelled from corpus 1184's check_env: the same shape with torch and NVCC both on CUDA 11.7, and FlashInfer listed.
_MODELLED = """\
Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
GPU 0: NVIDIA A100-SXM4-80GB
GPU 0 Compute Capability: 8.0
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release {nvcc}, V{nvcc}.64
CUDA Driver Version: 535.54.03
PyTorch: 2.0.1+cu{torch}
sglang: 0.2.5
flashinfer: 0.1.0+cu{torch}torch2.0
triton: 2.0.0
"""


def test_modelled_nvcc_older_than_11_8_is_an_issue_even_matching_torch(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, _MODELLED.format(nvcc="11.7", torch="117"), "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "issue" and "cuda_fp8.h" in r.message and "wrong toolkit" not in r.message


def test_modelled_nvcc_11_8_matching_torch_is_ok(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, _MODELLED.format(nvcc="11.8", torch="118"), "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "ok" and "matches torch's CUDA" in r.message


@pytest.mark.parametrize(("prefix", "home", "torch"), [("367", "12.9", "12.8"), ("1186", "12.8", "12.4")])
def test_a_newer_toolkit_within_torchs_major_is_ok_and_not_called_a_match(prefix: str, home: str, torch: str) -> None:
    r = capture_checks(prefix, "RT-FLASHINFER")["RT-FLASHINFER"]
    assert r.status == "ok" and "matches" not in r.message
    assert f"CUDA {home} is newer than torch's {torch}" in r.message
