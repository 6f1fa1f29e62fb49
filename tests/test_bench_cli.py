"""`stackaudit bench` through the real entry point, and once as a subprocess."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from typing import Any

import pytest

from bench_support.servers import calibrated_server
from stackaudit.cli.main import main

SECRET = "sk-test-Zq8uV3secretvalue"
FAST = ["--input-tokens", "8", "--output-tokens", "8", "--warmup", "0", "--no-self-check", "--quiet"]


def db_text(path: str) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(str(row) for table in ("runs", "requests", "meta") for row in db.execute(f"SELECT * FROM {table}"))


def test_json_report_shape_history_and_compare(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_TEST_KEY", SECRET)
    db = str(tmp_path / "runs.sqlite3")
    out = str(tmp_path / "report.json")
    plots = str(tmp_path / "charts.png")
    with calibrated_server("--ttft-ms", "20", "--gap-ms", "2", "--tokenize", "--metrics", "--version", "cal-1",
                           "--require-key", SECRET) as url:
        rc = main(["bench", "--url", url, "-c", "1,4", "--requests", "8", "--repeats", "2", *FAST,
                   "--api-key-env", "BENCH_TEST_KEY", "--db", db, "--format", "json", "--output", out, "--plot", plots])
        assert rc == 0, capsys.readouterr().err
        rc = main(["bench", "--url", url + "/v1", "-c", "4", "--requests", "8", *FAST, "--api-key-env", "BENCH_TEST_KEY",
                   "--db", db, "--format", "markdown", "--label", "second"])
        assert rc == 0
    captured = capsys.readouterr()
    assert "| c=4 |" in captured.out
    with open(out, encoding="utf-8") as handle:
        report = json.load(handle)
    assert report["schema"] == 1 and report["run_id"] == 1
    assert [level["concurrency"] for level in report["levels"]] == [1, 4]
    for level in report["levels"]:
        for metric in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
            assert set(level[metric]) == {"mean", "p50", "p90", "p99"}
            assert all(isinstance(v, float) for v in level[metric].values())
        for key in ("output_tokens_per_s", "output_tokens_per_s_per_stream"):
            assert isinstance(level[key], float) and level[key] > 0
        assert level["requests"] == 16 and level["errors"] == 0
        assert level["valid"] is True, level["invalid_reasons"]
        assert level["repeats"]["n"] == 2 and level["repeats"]["output_tokens_per_s"]["ci95_half_width"] is not None
    assert report["server"]["server_type"] == "vllm" and report["server"]["server_version"] == "cal-1"
    assert report["server"]["flags"]["vllm:cache_config_info.block_size"] == "16"
    assert report["token_cross_check"]["agree"] is True
    with open(plots, "rb") as chart:  # --plot PATH is the PNG file itself
        assert chart.read(8) == b"\x89PNG\r\n\x1a\n"
    # The API key was needed (the server refuses without it) and appears nowhere.
    assert SECRET not in captured.out + captured.err + json.dumps(report) + db_text(db)

    assert main(["bench", "history", "--db", db]) == 0
    listing = capsys.readouterr().out
    assert "second" in listing and "c=4:" in listing
    assert main(["bench", "compare", "1", "latest", "--db", db, "--format", "json"]) == 0
    comparison = json.loads(capsys.readouterr().out)
    assert comparison["schema"] == 1 and comparison["levels"][0]["level"] == "c=4"
    assert comparison["levels_only_in_a"] == ["c=1"]
    assert main(["bench", "compare", "1", "2", "--db", db]) == 0
    assert "c=4: output" in capsys.readouterr().out


def test_token_disagreement_with_server_counters_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    # This server's counter says 10 more tokens per response than it streamed.
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--metrics", "--metrics-overcount", "10") as url:
        assert main(["bench", "--url", url, "-c", "2", "--requests", "4", *FAST, "--no-history", "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    check = report["token_cross_check"]
    assert check["agree"] is False
    assert check["server_output_tokens"] - check["client_output_tokens"] == 40
    assert any("token totals disagree" in a for a in report["anomalies"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bench"], "--url is required"),
        (["bench", "--url", "http://127.0.0.1:9", "-c", "x"], "--concurrency takes"),
        (["bench", "--url", "ftp://h", "-c", "1"], "--url must be an http(s) URL"),
        (["bench", "--url", "http://127.0.0.1:9", "--format", "yaml"], "--format: choose one of"),
        (["bench", "--url", "http://127.0.0.1:9", "--requests", "4", "--duration", "3"], "not both"),
        (["bench", "--url", "http://127.0.0.1:9", "--no-self-check", "-q"], "cannot reach the server"),
    ],
)
def test_usage_and_input_errors_exit_2_with_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_compare_unknown_run_exits_2(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.bench.history import History

    db = str(tmp_path / "empty.sqlite3")
    History(db).close()  # a database with no runs
    assert main(["bench", "compare", "1", "2", "--db", db]) == 2
    assert "no run 1" in capsys.readouterr().err


def test_wrong_api_key_is_a_clear_error(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "wrong")
    with calibrated_server("--require-key", SECRET) as url:
        assert main(["bench", "--url", url, "--no-history", *FAST]) == 2
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "--api-key" in err and "wrong" not in err.replace("wrong API key", "")


def test_subprocess_with_openai_api_key_env(tmp_path: Any) -> None:
    db = str(tmp_path / "sub.sqlite3")
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    with calibrated_server("--ttft-ms", "10", "--gap-ms", "1", "--require-key", SECRET) as url:
        done = subprocess.run(
            [sys.executable, "-m", "stackaudit", "bench", "--url", url, "-c", "2", "--requests", "4", *FAST[:-1], "--db", db],
            capture_output=True, text=True, timeout=120, env=env,
        )
    assert done.returncode == 0, done.stderr
    assert "c=2" in done.stdout and "TPOT = " in done.stdout
    assert SECRET not in done.stdout + done.stderr + db_text(db)


def test_cli_module_import_stays_light() -> None:
    code = "import sys, stackaudit.cli.bench; print(sorted(m for m in ('aiohttp', 'stackaudit.bench.runner') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]"
