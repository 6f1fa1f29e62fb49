"""`bench history` and `bench compare` read: they create no database and no directory, open an existing one
read-only, and `compare` refuses runs of different workloads unless --force."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from stackaudit.bench.history import History, RequestRow
from stackaudit.cli.main import main


def _result(model: str = "m", **config: Any) -> dict[str, Any]:
    """A stored run as `stackaudit bench` writes it (the keys compare reads), modelled."""
    level = {
        "concurrency": 4, "request_rate": None, "output_tokens_per_s": 100.0, "tpot_ms": {"mean": 10.0},
        "token_source": ["usage"], "early_eos": 0, "output_tokens_mean": 256.0, "valid": True, "flags": [],
        "repeats": {"n": 1, "tpot_ms": {"mean": 10.0, "ci95_half_width": None}},
    }
    return {
        "schema": 1, "started": "2026-01-01T00:00:00Z", "label": None, "tool": {"version": "0.1.0"},
        "config": {"seed": 0, "temperature": 0.0, "input_tokens": 512, "output_tokens": 256, "endpoint": "completions",
                   "dataset": None, "prefix_tokens": 0, "turns": 1, "ignore_eos": True, **config},
        "server": {"url": "http://127.0.0.1:8000", "model_used": model, "server_type": "vllm", "server_version": "0.6.3",
                   "sampling": {"temperature": 0.0}, "flags": {}},
        "host": {"fingerprint": {}, "source": "test"},
        "warmup": {"mode": "off", "requests": 0, "cold": None, "converged": None},
        "levels": [level],
    }


def _rows() -> list[RequestRow]:
    return [RequestRow("c=4", 0, True, 10.0 + i / 100, 100.0, 2600.0, 256) for i in range(20)]


def _store(db: Path, *results: dict[str, Any]) -> None:
    with History(str(db)) as history:
        for result in results:
            history.add_rows(result, _rows())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_history_without_a_database_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "not-yet" / "runs.sqlite3"
    assert main(["bench", "history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out == f"bench history: no runs stored yet (no database at {db})\n"
    assert main(["bench", "history", "--db", str(db), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []
    assert list(tmp_path.iterdir()) == []


def test_default_database_is_not_created_by_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["bench", "history"]) == 0
    assert "no runs stored yet" in capsys.readouterr().out
    assert main(["bench", "compare", "1", "2"]) == 2
    err = capsys.readouterr().err
    assert "no history database at" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_reads_leave_an_existing_database_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.sqlite3"
    _store(db, _result("my_model"), _result("my_model"))
    before = _digest(db)
    assert main(["bench", "history", "--db", str(db), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| my\\_model |" in out  # a model name with _ is not emphasis in a Markdown table
    assert main(["bench", "compare", "1", "2", "--db", str(db)]) == 0
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.sqlite3"]  # no journal or WAL left


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("not sqlite\n" * 100)
    assert main(["bench", "history", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "cannot read the history database" in err and len(err.strip().splitlines()) == 1
    assert db.read_text() == "not sqlite\n" * 100


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"output_tokens": 128}, "output tokens 256 vs 128"),
        ({"input_tokens": 1024}, "input tokens 512 vs 1024"),
        ({"dataset": "sharegpt.json"}, "dataset none vs sharegpt.json"),
        ({"endpoint": "chat"}, "endpoint completions vs chat"),
        ({"prefix_tokens": 256, "turns": 3}, "prefix tokens 0 vs 256, turns 1 vs 3"),
        ({"ignore_eos": False}, "ignore EOS True vs False"),
    ],
)
def test_compare_refuses_different_workloads_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changed: dict[str, Any], named: str
) -> None:
    db = tmp_path / "runs.sqlite3"
    _store(db, _result(), _result(**changed))
    assert main(["bench", "compare", "1", "2", "--db", str(db)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines() == [
        f"stackaudit: error: runs 1 and 2 ran different workloads ({named}): not compared (--force compares them anyway)"
    ]
    assert main(["bench", "compare", "1", "2", "--db", str(db), "--force", "--format", "json"]) == 0
    assert [level["level"] for level in json.loads(capsys.readouterr().out)["levels"]] == ["c=4"]


def test_runs_stored_before_the_workload_keys_compare_as_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _result()
    for key in ("dataset", "prefix_tokens", "turns", "ignore_eos"):
        del old["config"][key]
    db = tmp_path / "runs.sqlite3"
    _store(db, old, _result())
    assert main(["bench", "compare", "1", "2", "--db", str(db)]) == 0, capsys.readouterr().err
