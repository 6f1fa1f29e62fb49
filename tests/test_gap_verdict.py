"""Issue 29, the gap in the report: ceiling, measured and the percentage in the header, and a verdict that
places the gap on the host or in the engine, from the impact class each check declares (data/impact.toml)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gap_pastes import essay_paste, glm5_config, llama_paste
from stackaudit.checks.registry import load_all
from stackaudit.cli.main import main
from stackaudit.engine.gap_verdict import CLASSES, class_factors, gap_verdict, impacts
from stackaudit.engine.results import Result


def _run(capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> str:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), *extra]) in (0, 1)
    return capsys.readouterr().out


def _json(capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> dict[str, Any]:
    return dict(json.loads(_run(capsys, paste, "--format", "json", *extra))["host"])


# -- the declared impact classes ----------------------------------------------------------------------


def test_every_check_declares_its_impact_with_evidence_or_unproven() -> None:
    table = impacts()
    assert set(table) == set(load_all())
    assert set(class_factors()) == set(CLASSES)
    for impact in table.values():
        assert impact.klass in CLASSES and impact.evidence and impact.applies
        if impact.klass == "unproven":
            assert impact.proof == "unproven"
        else:
            assert impact.proof in ("published", "mechanism", "documentation")
        if impact.proof == "published":
            assert impact.sources and all(s.startswith("https://") for s in impact.sources)
    assert table["DRV-XID"].klass == "multiple" and table["KERN-NUMA-BALANCING"].klass == "unproven"


# -- the arithmetic -----------------------------------------------------------------------------------------


def _issue(check_id: str, status: str = "issue") -> Result:
    return Result(check_id, check_id.split("-")[0].lower(), f"{check_id} found", status, "found")


@pytest.mark.parametrize(("rate", "issues", "explains", "words"), [
    (10.0, ["DRV-XID"], True, "the host explains it: DRV-XID found [DRV-XID] can cost a multiple"),
    # Two `tens` findings bound the loss at x2.25, a x2 gap: explained; a x3 gap: not.
    (50.0, ["IC-NCCL-ENV", "IC-CUSTOM-ALLREDUCE"], True, "can cost up to ×2.25 together"),
    (33.0, ["IC-NCCL-ENV", "IC-CUSTOM-ALLREDUCE"], False, "each worth tens of percent at most (×2.25 together"),
    (50.0, ["PWR-GPU-POWER-LIMIT"], False, "each worth a few percent at most"),
    (50.0, ["KERN-NUMA-BALANCING"], False, "no published figure: KERN-NUMA-BALANCING"),
    (50.0, [], False, "the host shows nothing that costs decode throughput"),
    (95.0, ["IC-NCCL-ENV"], None, "nothing to explain"),
    (120.0, [], None, "differ from what the ceiling priced"),
])
def test_the_verdict_adds_only_declared_classes(rate: float, issues: list[str], explains: bool | None,
                                               words: str) -> None:
    out = gap_verdict({"decode_tok_s": rate, "ceiling_tok_s": 100.0}, [_issue(i) for i in issues])
    assert out["host_explains"] is explains and words in out["verdict"]
    assert [f["id"] for f in out["findings"]] == issues
    if explains is False:
        assert "the gap lies in the engine — next:" in out["verdict"]


def test_waived_and_unknown_results_do_not_explain_and_no_ceiling_gives_no_verdict() -> None:
    unknown = gap_verdict({"decode_tok_s": 10.0, "ceiling_tok_s": 100.0}, [_issue("DRV-XID", "unknown")])
    assert unknown["host_explains"] is False and "1 check(s) that could each cost a multiple could not tell" in (
        unknown["verdict"])
    assert gap_verdict({"decode_tok_s": 10.0, "ceiling_tok_s": None}, [_issue("DRV-XID")]) == {}


# -- the proofs of the issue -------------------------------------------------------------------------------


def test_the_essay_with_model_weights_and_measured_places_the_gap_in_the_engine(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    flags = ("--model", str(glm5_config(tmp_path)), "--weights", "nvfp4", "--measured", "10.36")
    host = _json(capsys, essay_paste(tmp_path, topology=True), *flags)
    assert 30 < host["ceiling_tok_s"] < 400
    measured = host["measured"]
    assert measured["host_explains"] is False and "the gap lies in the engine" in measured["verdict"]
    assert {"id": "KERN-NUMA-BALANCING", "class": "unproven", "proof": "unproven"} in measured["findings"]
    text = _run(capsys, essay_paste(tmp_path, topology=True), *flags)
    first = text.splitlines()[:12]
    percent = f"{measured['percent_of_ceiling']:g} % of the ceiling"
    assert any(percent in line for line in first), first
    head = " ".join(" ".join(text.splitlines()[:14]).split())  # the header, its long lines wrapped
    assert re.search(r"Gap: measured 10\.4 tok/s is 14 % of the \d+ tok/s ceiling; [^.]* the gap lies in the engine",
                     head), head


def test_a_lost_gpu_explains_the_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    measured = _json(capsys, essay_paste(tmp_path, lost=1, with_log=True))["measured"]
    assert measured["decode_tok_s"] == 10.36 and measured["host_explains"] is True
    assert "[DRV-XID] can cost a multiple" in measured["verdict"]


def test_a_clean_host_does_not_explain_the_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    host = _json(capsys, essay_paste(tmp_path, numa_balancing=0, with_log=True))
    assert host["measured"]["host_explains"] is False and host["measured"]["findings"] == []
    assert "the host shows nothing that costs decode throughput" in host["measured"]["verdict"]
    llama = _json(capsys, llama_paste(tmp_path))["measured"]
    assert llama["decode_tok_s"] == 142.7 and llama["host_explains"] is False


def test_the_verdict_leads_with_where_the_gap_lies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The question the user came with (why 10 tok/s?) is the verdict's first clause, before the host's fix."""
    flags = ("--model", str(glm5_config(tmp_path)), "--weights", "nvfp4", "--measured", "10.36")
    essay = json.loads(_run(capsys, essay_paste(tmp_path, topology=True), "--format", "json", *flags))["verdict"]
    assert essay.startswith("the host does not explain the gap (measured 14 % of the ceiling): it lies in the engine;")
    assert "on the host, fix first: " in essay and "KERN-NUMA-BALANCING" in essay
    lost = json.loads(_run(capsys, essay_paste(tmp_path, lost=1, with_log=True), "--format", "json"))["verdict"]
    assert lost.startswith("the host's findings explain the gap") and "; fix first: " in lost
    assert "on the host" not in lost
    clean = json.loads(_run(capsys, essay_paste(tmp_path, numa_balancing=0, with_log=True), "--format", "json"))
    assert clean["verdict"].startswith("the host does not explain the gap") and "fix first" not in clean["verdict"]
    # Without a measured rate the verdict is the host's alone.
    plain = json.loads(_run(capsys, essay_paste(tmp_path, topology=True), "--format", "json"))["verdict"]
    assert plain.startswith("fix first: ")


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_every_format_shows_the_same_gap(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    paste = essay_paste(tmp_path, with_log=True)
    verdict = _json(capsys, paste)["measured"]["verdict"]
    out = _run(capsys, paste, "--format", fmt)
    plain = re.sub(r"\s+", " ", out.replace("\\", "").replace("&#x27;", "'").replace("&#39;", "'"))
    if fmt == "html":  # the page shows a `backticked` span as code
        plain = re.sub(r"</?code>", "`", plain)
    assert (verdict if fmt == "json" else f"Gap: {verdict}") in plain or json.dumps(verdict)[1:-1] in out
