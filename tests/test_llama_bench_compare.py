"""A llama-bench comparison table (scripts/compare-llama-bench.py's `| Model | Test | t/s A | t/s B | Speedup |`, or one
written after it) is read as llama-bench output (importers/bench_output.py), and a GPU count and model inside a GitHub
folded section's `<summary>` is the user's statement of the machine (facts/gpus.stated_gpus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import stated_gpus
from stackaudit.facts.serving_rate import parse_bench_rate
from stackaudit.importers.bench_output import bench_output

# Modelled on corpus 2902 (ggml-org/llama.cpp#19378): compare-llama-bench.py's header, another GPU, a cut last row.
COMPARE = """\
| Model                 | Test   | t/s master | t/s branch | Speedup |
| --------------------- | -----: | ---------: | ---------: | ------: |
| llama 8B Q4_0         | pp512  |    9120.53 |    9254.11 |    1.01 |
| llama 8B Q4_0         | tg128  |     151.40 |     158.02 |    1.04 |
| llama 8B Q4_0
"""


def test_corpus_2902_table_is_read_and_the_4090s_decide_topo_read() -> None:
    checks = capture_checks("2902", "IC-TOPO-READ", "IC-P2P-FUNCTIONAL", "PCIE-LINK-DOWNTRAIN")
    assert checks["IC-TOPO-READ"].status == "not-an-issue" and "RTX 4090" in checks["IC-TOPO-READ"].message
    # Speed-ups are a workload's: no peer test and no link reading.
    assert checks["IC-P2P-FUNCTIONAL"].status == "unknown" and checks["PCIE-LINK-DOWNTRAIN"].status == "unknown"


def test_compare_table_is_llama_bench_output_without_a_rate() -> None:
    found = list(bench_output(COMPARE.splitlines()))
    assert [(f.kind, f.start, f.end) for f in found] == [("benchmark output", 0, 4)]
    # Two rates and their ratio: no single-stream rate of one run is read from it.
    with pytest.raises(ParseError):
        parse_bench_rate(COMPARE)


def test_other_tables_are_not_llama_bench() -> None:
    assert list(bench_output(["| model | test | speedup |", "| --- | --- | --- |"])) == []
    assert list(bench_output(["| model | test | t/s A | accuracy |", "| --- | --- | --- | --- |"])) == []


def test_summary_markup_is_read_as_space(tmp_path: Path) -> None:
    assert stated_gpus("<summary>Performance on 4x RTX 4090</summary>") == [(4, "RTX 4090")]
    assert stated_gpus("<details><summary><b>2x RTX 3090</b></summary>") == [(2, "RTX 3090")]
    # Modelled: the comparison table under a summary that names another GeForce pair.
    text = "<details>\n<summary>Results on 2x RTX 3090</summary>\n\n" + COMPARE
    assert paste_checks(tmp_path, text, "IC-TOPO-READ")["IC-TOPO-READ"].status == "not-an-issue"
