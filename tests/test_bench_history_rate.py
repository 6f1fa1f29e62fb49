"""Issue 29: `bench` history as a measured rate. Where the source holds no measured rate, the audit reads the
latest single-stream (concurrency 1) run `bench` stored against the endpoint of the engine it found (same host
and port, same model where recorded), names it in the gap's line and JSON, and never creates the database.

Modelled: the paste's command lines (gap_pastes.llama_paste's H100 table) and the stored runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gap_pastes import llama_paste
from stackaudit.bench.history import History, RequestRow, default_db_path
from stackaudit.cli.main import main

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
COMMAND = f"vllm serve {MODEL} --host 10.0.0.5 --port 8000"


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME and XDG_DATA_HOME of this test's own: the history database lives (or not) under them."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def store(url: str, started: str, levels: dict[str, float], model: str = MODEL) -> int:
    """A run against `url` with five requests per level at the given TPOT (ms)."""
    rows = [RequestRow(level, i, True, tpot, 40.0, tpot * 100, 100) for level, tpot in levels.items()
            for i in range(5)]
    with History(default_db_path()) as history:
        return history.add_rows({"started": started, "server": {"url": url, "model_used": model}}, rows)


def measured(capsys: pytest.CaptureFixture[str], paste: Path, *extra: str) -> dict[str, Any] | None:
    capsys.readouterr()
    assert main(["audit", "--from", str(paste), "--format", "json", *extra]) in (0, 1)
    host = json.loads(capsys.readouterr().out)["host"]
    return host.get("measured")


def test_the_gap_uses_the_latest_single_stream_run_of_the_engines_endpoint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store("http://10.0.0.5:8000", "2026-11-28T09:00:00Z", {"c=1": 20.0})
    latest = store("http://10.0.0.5:8000/v1", "2026-11-30T10:00:00Z", {"c=1": 8.0, "c=8": 25.0})
    store("http://10.0.0.5:8000", "2026-12-01T08:00:00Z", {"c=8": 30.0})  # newer, but 8 streams only
    got = measured(capsys, llama_paste(tmp_path, log="", command=COMMAND))
    assert got is not None and got["decode_tok_s"] == 125.0
    assert got["source"] == f"bench history: run {latest} of 2026-11-30, 1 stream"
    assert "(from bench history: run 2 of 2026-11-30, 1 stream)" in got["line"] and got["percent_of_ceiling"]


def test_only_eight_stream_runs_give_no_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store("http://10.0.0.5:8000", "2026-11-30T10:00:00Z", {"c=8": 25.0})
    assert measured(capsys, llama_paste(tmp_path, log="", command=COMMAND)) is None


@pytest.mark.parametrize(("url", "model"), [
    ("http://10.0.0.5:8001", MODEL),  # another port
    ("http://10.0.0.6:8000", MODEL),  # another host
    ("http://10.0.0.5:8000", "Qwen/Qwen2.5-7B-Instruct"),  # another model on that endpoint
])
def test_another_endpoint_or_model_is_not_used(tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str,
                                               model: str) -> None:
    store(url, "2026-11-30T10:00:00Z", {"c=1": 8.0}, model=model)
    assert measured(capsys, llama_paste(tmp_path, log="", command=COMMAND)) is None


def test_the_served_model_name_is_the_name_a_run_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `bench` records the name the server answers to: vLLM's --served-model-name where one is given.
    store("http://10.0.0.5:8000", "2026-11-30T10:00:00Z", {"c=1": 10.0}, model="llama")
    assert measured(capsys, llama_paste(tmp_path, log="", command=COMMAND)) is None
    got = measured(capsys, llama_paste(tmp_path, log="", command=COMMAND + " --served-model-name llama"))
    assert got is not None and got["decode_tok_s"] == 100.0


def test_no_database_is_created_and_a_measured_rate_comes_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], data_home: Path) -> None:
    assert measured(capsys, llama_paste(tmp_path, log="", command=COMMAND)) is None
    assert not data_home.exists() and not (tmp_path / "home").exists()
    store("http://10.0.0.5:8000", "2026-11-30T10:00:00Z", {"c=1": 8.0})
    got = measured(capsys, llama_paste(tmp_path, log="", command=COMMAND), "--measured", "42")
    assert got is not None and got["decode_tok_s"] == 42.0 and got["source"] == "--measured"
    # The engine's own throughput line (gap_pastes' default log) comes before the history too.
    got = measured(capsys, llama_paste(tmp_path, command=COMMAND))
    assert got is not None and got["decode_tok_s"] == 142.7
    # A rate in the user's own words comes after it (the last source of all).
    got = measured(capsys, llama_paste(tmp_path, log="I get around 10 t/s\n", command=COMMAND))
    assert got is not None and got["decode_tok_s"] == 125.0 and got["source"].startswith("bench history")


def test_a_live_audit_matches_a_loopback_run_a_snapshot_does_not() -> None:
    """A run from this host against 127.0.0.1 measured the engine only when the audit reads this host."""
    from stackaudit.cli.audit import _history_rate
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.host.base import HostMeta
    from test_rt_runtime import host, unrelated, vllm_site, vllm_v1

    store("http://127.0.0.1:8000", "2026-11-30T10:00:00Z", {"c=1": 20.0}, model="meta-llama/Llama-3.1-70B-Instruct")
    options = AuditOptions(select=["RT-OMP"], history_rate=_history_rate)
    machine = host(unrelated(), vllm_v1(), vllm_site())  # vllm serve …-70B-Instruct --port 8000
    assert "measured" not in run_audit(machine, options).host  # a fake source: not this host
    machine.meta = HostMeta(hostname="testhost", source="live")
    got = run_audit(machine, options).host["measured"]
    assert got["decode_tok_s"] == 50.0 and got["source"].startswith("bench history: run 1 of 2026-11-30")
