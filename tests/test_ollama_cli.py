"""ollama's own client output (importers/ollama_cli.py, facts/ollama_cli.py): `ollama ps` and `ollama -v` read once
into the ollama_shown fact; the engines_shown fact (facts/engines_shown.py) that DRV-CUDA-COMPAT and the
engine-subject applicability both read; ollama's decode on the GPU as CUDA at work (facts/cuda_ran.py).

Real text: corpus 1397 (ollama/ollama#3841), 1378 (ollama/ollama#9704), 1165 (ollama/ollama#8179); counter-examples
are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts._parse import ParseError
from stackaudit.facts.ollama_cli import ollama_shown_from_cli

# Corpus 1397 as pasted: the two `ollama run --verbose` summaries and `ollama ps` (tab-separated).
VERBOSE_1397 = body("1397").split("$ nvidia-smi")[0]


def test_ps_rows_and_release_are_read() -> None:
    shown = fact(pasted(body("1378")), "ollama_shown")
    assert shown.release == "0.6.0"
    assert [(m.name, m.size_gb, m.gpu_percent) for m in shown.models] == [("opencoder:latest", 6.8, 100)]
    # Corpus 1165: rows joined by single spaces, the last one ending in a full-width comma; two models.
    two = fact(pasted(body("1165")), "ollama_shown")
    assert [(m.name, m.size_gb, m.gpu_percent) for m in two.models] == [("deepseek-r1:32b", 126.0, 100),
                                                                         ("bge-m3:latest", 1.7, 100)]
    # Corpus 1397: tab-separated columns.
    assert fact(pasted(VERBOSE_1397), "ollama_shown").on_gpu[0].name == "qwen:1.8b-chat-fp16"


def test_split_and_cpu_rows_and_the_context_column() -> None:
    # Modelled on ollama 0.6's table (a CONTEXT column) with a split and a CPU row.
    shown = ollama_shown_from_cli(
        "NAME              ID              SIZE     PROCESSOR          CONTEXT    UNTIL\n"
        "llama3.1:70b      711a9e8463af    49 GB    48%/52% CPU/GPU    4096       4 minutes from now\n"
        "qwen2:7b          e0d4e1163c58    4.7 GB   100% CPU           4096       Forever\n"
        "Warning: client version is 0.6.2\nollama version is 0.5.7\n")
    assert [(m.gpu_percent, m.size_gb) for m in shown.models] == [(52, 49.0), (0, 4.7)]
    assert shown.release == "0.5.7" and not shown.on_gpu
    with pytest.raises(ParseError):
        ollama_shown_from_cli("ollama is running\n")


def test_decode_on_the_gpu_is_cuda_at_work_1397() -> None:
    ran = fact(pasted(VERBOSE_1397), "cuda_ran")
    assert ran.proof() is not None and ran.proof().program == "ollama"
    assert "477 GB/s" in ran.proof().did
    result = capture_checks("1397", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "ollama decoded at 129.05 tokens/s" in result.message


@pytest.mark.parametrize("change", [
    ("100% GPU", "100% CPU"),  # modelled: the model on the CPU, the decode may be the CPU's
    ("3.7 GB", "1.1 GB"),  # modelled: 1.1 GB at 129 tokens/s is 142 GB/s, within a server CPU's memory
])
def test_a_placement_or_a_pace_a_cpu_can_give_is_not_cuda_at_work(change: tuple[str, str]) -> None:
    text = VERBOSE_1397.replace(*change)
    assert isinstance(fact(pasted(text), "cuda_ran"), Missing)


def test_100_percent_gpu_without_a_decode_is_not_cuda_at_work(tmp_path: Path) -> None:
    # Corpus 1378's `ollama ps` says 100% GPU while the runner failed ('llm server error'): a placement only.
    only_ps = body("1378").split("ollama -v")[0]
    assert isinstance(fact(pasted(only_ps), "cuda_ran"), Missing)
    result = paste_checks(tmp_path, VERBOSE_1397.split("$ ollama ps")[1], "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown", result.message


def test_the_ps_table_alone_shows_ollama(tmp_path: Path) -> None:
    # Modelled: 1397's table without its prompt line (no `$ ollama ps`, no user's words): the table is ollama's own.
    table = VERBOSE_1397.split("$ ollama ps\n")[1]
    engines = fact(pasted(table), "engines_shown")
    assert engines.engines == ("ollama",) and engines.named == "ollama"
    result = paste_checks(tmp_path, table, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "not-applicable", result.message


def test_ollama_v_release_beside_the_driver() -> None:
    # Corpus 1378: `ollama version is 0.6.0` beside a driver for CUDA 12.8.
    result = capture_checks("1378", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok", result.message
    assert "ollama 0.6.0 (`ollama -v`)" in result.message


def test_ollama_v_release_without_v11_runner_under_a_cuda_11_driver(tmp_path: Path) -> None:
    # Modelled: 1378 with ollama 0.9.6 (no CUDA v11 runner from 0.9.3) under driver 470 (CUDA 11.4).
    text = (body("1378").replace("0.6.0", "0.9.6").replace("570.124.04", "470.256.02")
            .replace("CUDA Version: 12.8", "CUDA Version: 11.4"))
    result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "issue", result.message
    assert "ollama 0.9.6" in result.message
