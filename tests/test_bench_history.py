"""History store, the 38 → 66 tok/s story, and the host fingerprint rules."""

from __future__ import annotations

import random
import sys
import types
from typing import Any

import pytest

from stackaudit.bench import server as bench_server
from stackaudit.bench.compare import compare_runs
from stackaudit.bench.history import History, RequestRow
from stackaudit.bench.render import render_compare, render_history
from stackaudit.errors import InputError


def stored_result(tok_s: float, tpot_ms: float, warmup: dict[str, Any], seed: int, host: dict[str, str]) -> dict[str, Any]:
    level = {
        "concurrency": 10, "request_rate": None, "output_tokens_per_s": tok_s, "tpot_ms": {"mean": tpot_ms},
        "token_source": ["usage"], "early_eos": 0, "output_tokens_mean": 256.0, "valid": True, "flags": [],
        "repeats": {"n": 1, "tpot_ms": {"mean": tpot_ms, "ci95_half_width": None}},
    }
    return {
        "schema": 1, "started": "2026-01-01T00:00:00Z", "label": None, "tool": {"version": "0.1.0"},
        "config": {"seed": seed, "temperature": 0.0, "input_tokens": 512, "output_tokens": 256, "endpoint": "completions"},
        "server": {"url": "http://127.0.0.1:8000", "model_used": "m", "server_type": "vllm", "server_version": "0.6.3",
                   "sampling": {"temperature": 0.0, "seed": seed, "ignore_eos": True}, "flags": {}},
        "host": {"fingerprint": host, "source": "test"},
        "warmup": warmup,
        "levels": [level],
    }


def rows(tpot_ms: float, n: int, seed: int) -> list[RequestRow]:
    rng = random.Random(seed)
    return [RequestRow("c=10", 0, True, rng.gauss(tpot_ms, tpot_ms * 0.03), 120.0, 0.0, 256) for _ in range(n)]


def test_38_to_66_tok_s_is_flagged_with_its_likely_causes(tmp_path: Any) -> None:
    cold = {"mode": "off", "requests": 0, "cold": None, "converged": None}
    warm = {"mode": "auto", "requests": 30, "cold": False, "converged": True}
    host_a = {"gpu.0.clocks.sm_mhz": "1410", "kernel.release": "6.8.0"}
    host_b = {"gpu.0.clocks.sm_mhz": "1980", "kernel.release": "6.8.0"}
    with History(str(tmp_path / "h.sqlite3")) as history:
        # Per stream: 3.8 vs 6.6 tok/s, i.e. TPOT 263 vs 152 ms.
        a = history.add_rows(stored_result(38.0, 263.0, cold, 1, host_a), rows(263.0, 40, 1))
        b = history.add_rows(stored_result(66.0, 152.0, warm, 2, host_b), rows(152.0, 40, 2))
        report = compare_runs(history.get(str(a)), history.requests(a), history.get("latest"), history.requests(b))
        listing = render_history(history.list_runs(), "text", history.path)
    level = report["levels"][0]
    assert level["real"]
    assert level["output_tokens_per_s_change"] == pytest.approx(66 / 38 - 1)
    assert "not comparable" in level["verdict"]
    names = [cause["name"] for cause in level["likely_causes"]]
    assert names[0].startswith("warm-up")
    assert "seed" in names and "gpu.0.clocks.sm_mhz" in names  # host knobs by name
    assert "kernel.release" not in names  # only what differed
    text = render_compare(report, "text")
    assert "38.0 → 66.0 tok/s" in text and "likely causes" in text and "[host] gpu.0.clocks.sm_mhz: 1410 → 1980" in text
    assert "c=10: 38.0 tok/s" in listing


def test_run_references(tmp_path: Any) -> None:
    with History(str(tmp_path / "h.sqlite3")) as history:
        first = history.add_rows(stored_result(1.0, 1.0, {}, 0, {}), [])
        second = history.add_rows(stored_result(1.0, 1.0, {}, 0, {}), [])
        assert history.resolve("latest") == second
        assert history.resolve("latest~1") == first
        with pytest.raises(InputError, match="no run 99"):
            history.get("99")
        with pytest.raises(InputError, match="use an id"):
            history.resolve("yesterday")


def test_history_in_an_unwritable_place_is_an_input_error(tmp_path: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot open the history database"):
        History(str(blocker / "sub" / "h.sqlite3"))


def test_remote_server_gets_no_host_fingerprint() -> None:
    fingerprint, source = bench_server.host_fingerprint_for("http://192.0.2.10:8000")  # TEST-NET-1: never local
    assert fingerprint is None and "remote" in source


def test_local_server_uses_the_audit_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("stackaudit.engine.fingerprint")
    fake.host_fingerprint = lambda: {"kernel.numa_balancing": "1"}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "stackaudit.engine.fingerprint", fake)
    fingerprint, source = bench_server.host_fingerprint_for("http://localhost:8000")
    assert fingerprint == {"kernel.numa_balancing": "1"} and source == "stackaudit audit"


def test_fallback_fingerprint_when_the_audit_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "stackaudit.engine.fingerprint", None)  # import raises ImportError
    fingerprint, source = bench_server.host_fingerprint_for("http://127.0.0.1:8000")
    assert fingerprint is not None and source.startswith("minimal")
    assert fingerprint["kernel.release"]
    assert "cpu.count" in fingerprint


def test_failing_audit_fingerprint_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("stackaudit.engine.fingerprint")

    def broken() -> dict[str, str]:
        raise RuntimeError("no")

    fake.host_fingerprint = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "stackaudit.engine.fingerprint", fake)
    fingerprint, source = bench_server.host_fingerprint_for("http://[::1]:8000")
    assert fingerprint and "failed" in source


def test_prometheus_parsing_and_secret_flags() -> None:
    text = (
        "# HELP vllm:generation_tokens_total x\n"
        'vllm:generation_tokens_total{model_name="a"} 10.0\n'
        'vllm:generation_tokens_total{model_name="b"} 5.0\n'
        'vllm:cache_config_info{block_size="16",enable_prefix_caching="True"} 1.0\n'
    )
    totals, info = bench_server.parse_prometheus(text)
    assert totals["vllm:generation_tokens_total"] == 15.0
    assert info["vllm:cache_config_info"]["block_size"] == "16"
    delta = bench_server.counter_delta("vllm", {"vllm:generation_tokens_total": 15.0}, {"vllm:generation_tokens_total": 40.0})
    assert delta is not None and delta["output_tokens"] == 25.0
    assert bench_server._SECRET_NAME.search("api_key") and bench_server._SECRET_NAME.search("hf_token")
    assert not bench_server._SECRET_NAME.search("max_total_num_tokens")


def repeated_rows(tpot_ms: float, seed: int, repeats: int = 3, per_repeat: int = 20) -> list[RequestRow]:
    rng = random.Random(seed)
    return [
        RequestRow("c=10", repeat, True, rng.gauss(tpot_ms, tpot_ms * 0.02), 120.0, 0.0, 256)
        for repeat in range(repeats) for _ in range(per_repeat)
    ]


def test_only_samples_moved_the_runs_stay_comparable_and_samples_are_listed_apart(tmp_path: Any) -> None:
    warm = {"mode": "auto", "requests": 30, "cold": False, "converged": True}
    # PWR-CLOCK-EVENTS and KERN-SWAP are samples by the audit's split; the kernel is configuration.
    host_a = {"host.kernel": "6.8.0", "PWR-CLOCK-EVENTS": '"none"', "KERN-SWAP": "0 kB"}
    host_b = {"host.kernel": "6.8.0", "PWR-CLOCK-EVENTS": '"sw_thermal_slowdown"', "KERN-SWAP": "512 kB"}
    with History(str(tmp_path / "h.sqlite3")) as history:
        a = history.add_rows(stored_result(40.0, 10.0, warm, 1, host_a), repeated_rows(10.0, 1))
        b = history.add_rows(stored_result(33.0, 12.0, warm, 1, host_b), repeated_rows(12.0, 2))
        c = history.add_rows(stored_result(33.0, 12.0, warm, 1, {**host_b, "host.kernel": "6.11.0"}), repeated_rows(12.0, 3))
        same_machine = compare_runs(history.get(str(a)), history.requests(a), history.get(str(b)), history.requests(b))
        new_kernel = compare_runs(history.get(str(a)), history.requests(a), history.get(str(c)), history.requests(c))
    level = same_machine["levels"][0]
    assert level["real"] and level["comparable"] and level["likely_causes"] == []
    assert level["verdict"].startswith("real; same configuration")
    assert {s["name"] for s in level["samples_differing"]} == {"PWR-CLOCK-EVENTS", "KERN-SWAP"}
    assert same_machine["differences"] == []  # no configuration difference at all
    tpot = next(t for t in level["tests"] if t["metric"] == "tpot_ms")
    assert tpot["noise_source"] == "repeat spread" and tpot["threshold"] >= 0.03
    text = render_compare(same_machine, "text")
    assert "samples that differed" in text and "[host] PWR-CLOCK-EVENTS" in text
    level = new_kernel["levels"][0]
    assert not level["comparable"] and "not comparable" in level["verdict"]
    assert [cause["name"] for cause in level["likely_causes"]] == ["host.kernel"]


def test_noise_threshold_is_the_repeat_spread() -> None:
    from stackaudit.bench.compare import repeat_noise

    assert repeat_noise([10.0], [10.0]) is None  # one repeat: no spread to judge by
    # Repeats 9, 10, 11 on each side: s = 1, t(4) = 2.776, half-width = 2.776 × sqrt(1/3 + 1/3) = 2.27 → 22.7 %.
    assert repeat_noise([9.0, 10.0, 11.0], [9.0, 10.0, 11.0]) == pytest.approx(2.776 * (2 / 3) ** 0.5 / 10.0)


def test_compare_fail_on_regression_exit_status(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from stackaudit.cli.main import main

    db = str(tmp_path / "h.sqlite3")
    warm = {"mode": "auto", "requests": 30, "cold": False, "converged": True}
    with History(db) as history:
        history.add_rows(stored_result(40.0, 10.0, warm, 1, {}), repeated_rows(10.0, 1))
        history.add_rows(stored_result(34.0, 11.8, warm, 1, {}), repeated_rows(11.8, 2))  # TPOT +18 %
        history.add_rows(stored_result(40.0, 10.1, warm, 1, {}), repeated_rows(10.1, 3))  # +1 %: noise
    assert main(["bench", "compare", "1", "2", "--db", db, "--fail-on", "regression:5"]) == 1
    assert "FAIL (--fail-on regression:5 %): c=10 tpot_ms +1" in capsys.readouterr().out
    assert main(["bench", "compare", "1", "3", "--db", db, "--fail-on", "regression:5"]) == 0
    assert "pass (--fail-on regression:5 %)" in capsys.readouterr().out
    assert main(["bench", "compare", "2", "1", "--db", db, "--fail-on", "regression:5"]) == 0  # an improvement
    assert main(["bench", "compare", "1", "2", "--db", db, "--fail-on", "regression:30"]) == 0  # under the limit
    capsys.readouterr()
    assert main(["bench", "compare", "1", "2", "--db", db, "--fail-on", "slower"]) == 2
    err = capsys.readouterr().err
    assert "--fail-on takes regression:PCT" in err and len(err.strip().splitlines()) == 1


def test_ttft_of_a_busy_host_is_not_judged_but_tpot_is(tmp_path: Any) -> None:
    warm = {"mode": "auto", "requests": 30, "cold": False, "converged": True}
    busy = stored_result(33.0, 12.0, warm, 1, {})
    busy["levels"][0]["warnings"] = ["host busy: the client waited 300 ms for a CPU during the level (30.0% of it)"]

    def rows_with_ttft(tpot_ms: float, ttft_ms: float, seed: int) -> list[RequestRow]:
        rng = random.Random(seed)
        return [RequestRow("c=10", r, True, rng.gauss(tpot_ms, 0.2), rng.gauss(ttft_ms, 1.0), 0.0, 256)
                for r in range(3) for _ in range(20)]

    with History(str(tmp_path / "h.sqlite3")) as history:
        a = history.add_rows(stored_result(40.0, 10.0, warm, 1, {}), rows_with_ttft(10.0, 60.0, 1))
        b = history.add_rows(busy, rows_with_ttft(12.0, 80.0, 2))
        report = compare_runs(history.get(str(a)), history.requests(a), history.get(str(b)), history.requests(b),
                              fail_on_regression=0.05)
    tests = {t["metric"]: t for t in report["levels"][0]["tests"]}
    assert tests["ttft_ms"]["verdict"].startswith("not judged: host busy in run B") and not tests["ttft_ms"]["real"]
    assert tests["tpot_ms"]["real"]
    assert [r["metric"] for r in report["fail_on"]["regressions"]] == ["tpot_ms"]
