"""Issue 28 (h83c): RT-KERNEL-ARCH where ollama lists only CPU runners while its discovery found a CUDA GPU.

Corpus 1845 is real (ollama 0.1.45's journal); the runner list of the later form is ollama/ollama#10506's quote; the
counter-example is modelled on 1845 and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.gpus import ollama_cuda_from_log


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
