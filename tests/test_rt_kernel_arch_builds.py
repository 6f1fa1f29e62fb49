"""Issue 28 (h83c): RT-KERNEL-ARCH where ollama lists only CPU runners while its discovery found a CUDA GPU, and where
a pasted CMake configure names the CUDA architectures a llama.cpp build carries.

Corpus 1845 is real (ollama 0.1.45's journal); the runner list of the later form is ollama/ollama#10506's quote; the
counter-example is modelled on 1845 and says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.gpus import CMAKE_CUDA_ARCHS, ollama_cuda_from_log, stated_cuda_archs


def test_corpus_1845_cpu_only_runners_beside_a_cuda_gpu_is_an_issue() -> None:
    r = capture_checks("1845", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "issue" and "no CUDA runner" in r.message, r.message


def test_a_cuda_runner_in_the_list_is_not_this_issue(tmp_path: Path) -> None:
    """Modelled on corpus 1845 with a cuda_v12 runner listed."""
    text = body("1845").replace("Dynamic LLM libraries [cpu_avx cpu_avx2 cpu]",
                                "Dynamic LLM libraries [cpu_avx cpu_avx2 cuda_v12 cpu]")
    r = paste_checks(tmp_path, text, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status != "issue", r.message


def test_the_later_runners_form_is_read() -> None:
    # ollama/ollama#10506 quotes this line of ollama 0.4's journal; the discovery line is 1845's.
    text = ('Nov 14 08:53:09 tal-ai-server ollama[1296]: time=2024-11-14T08:53:09.136+09:00 level=INFO '
            'source=common.go:49 msg="Dynamic LLM libraries" runners="[rocm cpu cpu_avx cpu_avx2 cuda_v11 cuda_v12]"\n'
            + next(line for line in body("1845").splitlines() if "inference compute" in line) + "\n")
    fact = ollama_cuda_from_log(text)
    assert fact.runners == ("rocm", "cpu", "cpu_avx", "cpu_avx2", "cuda_v11", "cuda_v12")
    assert fact.shipped == (11, 12) and not fact.cuda_runner_missing


# --- a CMake configure's CUDA architectures (llama.cpp builds) ------------------------------------------------------



@pytest.mark.parametrize(("line", "archs"), [
    ('    -DCMAKE_CUDA_ARCHITECTURES="120" \\', (1200,)),  # corpus 1855
    ("  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=121 \\", (1210,)),  # a DGX Spark build script
    ("cmake flags: `-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=100-real;103-real -DLLAMA_OPENSSL=ON`", (1000, 1030)),
    ('   cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="86"', (860,)),  # a README's build step
])
def test_cmake_cuda_architectures_are_read(line: str, archs: tuple[int, ...]) -> None:
    assert stated_cuda_archs(line).archs == archs


def test_a_variable_or_native_names_no_architecture() -> None:
    assert CMAKE_CUDA_ARCHS.search('CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=${ARCH}"') is None
    assert CMAKE_CUDA_ARCHS.search("cmake -B build -DCMAKE_CUDA_ARCHITECTURES=native") is None


def test_corpus_1855_build_for_120_on_two_12_0_gpus_is_ok() -> None:
    r = capture_checks("1855", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "ok" and "CMAKE_CUDA_ARCHITECTURES" in r.message, r.message


def test_a_build_for_another_architecture_stays_unknown(tmp_path: Path) -> None:
    """Modelled on corpus 1855 built for 8.6 only: no code of the Blackwell GPUs' own architecture."""
    text = body("1855").replace('-DCMAKE_CUDA_ARCHITECTURES="120"', '-DCMAKE_CUDA_ARCHITECTURES="86"')
    r = paste_checks(tmp_path, text, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status != "ok", r.message
