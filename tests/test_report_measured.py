"""`audit --measured TOKS` (issue 10, The report): a measured decode rate against the header's ceiling, in the
text and Markdown headers and in JSON (`host.measured`, docs/report.md); bad input is one line and exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from report_scenarios import snapshot
from stackaudit.cli.main import main

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "report.schema.json").read_text())
WITH_CEILING = "rtx-pro-6000-lxc"  # SGLang TP8 serving Qwen3-235B-A22B FP8, its config.json in the HF cache
# vLLM serving Mistral-Small-24B-Instruct-2501 (config not in the source; stackaudit's catalogue holds it) with
# no NVIDIA GPU in the source (the LXC container's GPUs are not shown through NVML).
WITHOUT_CEILING = "proxmox-lxc"


def _audit(scenario: str, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    snap = snapshot(scenario)
    capsys.readouterr()
    rc = main(["audit", "--from", str(snap), *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def test_json_compares_the_measured_rate_with_the_ceiling(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _audit(WITH_CEILING, "--format", "json", "--measured", "41.5", capsys=capsys)
    assert rc == 0
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    host = data["host"]
    ceiling = host["ceiling_tok_s"]
    # The figure is the one the ceiling line prints.
    assert f"~{ceiling:.0f} tok/s per stream" in host["ceiling"]
    measured = host["measured"]
    assert measured["decode_tok_s"] == 41.5 and measured["ceiling_tok_s"] == ceiling
    assert measured["percent_of_ceiling"] == round(100 * 41.5 / ceiling, 1)
    assert f"= {measured['percent_of_ceiling']:g} % of the ceiling (~{ceiling:.0f} tok/s)" in measured["line"]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_header_shows_measured_under_the_ceiling(fmt: str, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    rc, out, _ = _audit(WITH_CEILING, "--format", fmt, "--measured", "41.5", capsys=capsys)
    assert rc == 0
    plain = out.replace("\\", "")
    lines = [line for line in plain.splitlines() if line]  # Markdown sets each headline line apart
    ceiling_at = next(i for i, line in enumerate(lines) if line.startswith("Ceiling: ~"))
    assert re.match(r"Measured: 41\.5 tok/s per stream = [\d.]+ % of the ceiling \(~\d+ tok/s\)",
                    lines[ceiling_at + 1])
    assert plain.index("Measured: ") < plain.index("Actionable fixes")  # in the header, before the findings
    assert "--measured 41.5" in plain[:plain.index("Ceiling:")]  # the command line shows it


def test_a_rate_above_the_ceiling_says_the_inputs_differ(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _audit(WITH_CEILING, "--format", "json", "--measured", "5000", capsys=capsys)
    measured = json.loads(out)["host"]["measured"]
    assert measured["percent_of_ceiling"] > 100 and "above the ceiling" in measured["line"]


def test_no_ceiling_gives_a_clear_line_and_nulls(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _audit(WITHOUT_CEILING, "--format", "json", "--measured", "20", capsys=capsys)
    assert rc == 0
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    host = data["host"]
    # The snapshot's lspci holds two NVIDIA GPUs that no nvidia-smi names: not read, never "no NVIDIA GPU" (r66).
    assert host["ceiling"] is None and "does not name the GPU" in host["ceiling_missing"] and "ceiling_tok_s" not in host
    assert "no NVIDIA GPU" not in host["ceiling_missing"]
    assert host["measured"]["ceiling_tok_s"] is None and host["measured"]["percent_of_ceiling"] is None
    assert host["measured"]["line"] == f"Measured: 20 tok/s per stream; no ceiling: {host['ceiling_missing']}"
    _, text, _ = _audit(WITHOUT_CEILING, "--measured", "20", capsys=capsys)
    assert "no ceiling: the source does not name the GPU (give `stackaudit ceiling --gpu GPU`)" in " ".join(text.split())


def test_without_measured_there_is_no_measured_line_or_key(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _audit(WITH_CEILING, "--format", "json", capsys=capsys)
    assert "measured" not in json.loads(out)["host"]
    _, text, _ = _audit(WITH_CEILING, capsys=capsys)
    assert "Measured:" not in text and "Ceiling: ~" in text


@pytest.mark.parametrize("value", ["-3", "0", "abc", "nan", "inf", "", "12 tok/s", "1e400"])
def test_bad_values_are_one_line_and_exit_2(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _audit(WITH_CEILING, f"--measured={value}", capsys=capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("stackaudit: error: --measured")
    assert "Traceback" not in err


def test_a_missing_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _audit(WITH_CEILING, "--measured", capsys=capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
