"""The investigators against a hostile endpoint (review 2026-12, X4, X7, L4, L5, L6): each investigation runs
in a child measured with os.wait4 (peak RSS, wall time) against tests/hostile/hostile_llm_server.py on
127.0.0.1. The snapshot is a modelled fake host."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai", reason="the openai SDK is in the test extras (stackaudit[investigate])")

from hostile_llm_server import HostileLLM, serve
from hostile_support import run_child

from investigate_support import Call, Reply, call, report, start_server
from stackaudit.host.memory import fake_host
from stackaudit.investigate.loop import InvestigationConfig, investigate_async
from stackaudit.investigate.session import collect_facts, domain_facts
from stackaudit.investigate.tools import SnapshotTools

_DRIVER = r"""
import asyncio, json, sys
from stackaudit.host.memory import fake_host
from stackaudit.investigate.loop import InvestigationConfig, investigate_async
from stackaudit.investigate.session import collect_facts, domain_facts

host = fake_host(files={"/proc/sys/vm/swappiness": "60\n", "/proc/sys/kernel/numa_balancing": "1\n"}, strict=True)
config = InvestigationConfig(url=sys.argv[1], model="m", api_key="zq-plain-lowercase-key-value-for-llm-7781",
                             domains=("KERN",), timeout_s=float(sys.argv[2]), request_timeout_s=10.0,
                             backoff_s=0.01, stream=sys.argv[3] == "stream")
outcome = asyncio.run(investigate_async(config, host, collect_facts(host, 10.0), [], domain_facts(), {}, []))
runs = [{"ended": r.ended, "reason": r.reason, "tool_calls": r.tool_calls, "malformed": r.malformed,
         "rounds": r.rounds} for r in outcome.runs]
print("RESULT " + json.dumps({"unreachable": outcome.unreachable, "runs": runs}))
"""


def _investigate(tmp: Path, url: str, timeout_s: float = 40.0, stream: bool = False) -> tuple[dict[str, Any], Any]:
    import sys

    child = run_child([sys.executable, "-c", _DRIVER, url, str(timeout_s), "stream" if stream else "plain"], tmp,
                      timeout=timeout_s + 30)
    assert child.rc == 0 and "Traceback" not in child.err, child.err[-2000:]
    line = next(x for x in child.out.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):]), child


@pytest.mark.parametrize("stream", [False, True])
def test_a_200_mb_reply_is_cut_at_1_mib_and_never_sent_back(tmp_path: Path, stream: bool) -> None:
    with serve(HostileLLM(mode="huge", size=200 * 1024 * 1024)) as llm:
        out, child = _investigate(tmp_path, llm.url, stream=stream)
        sizes = [r["bytes"] for r in llm.requests if r["path"].endswith("/completions")]
    child.assert_bounded()
    run = out["runs"][0]
    assert run["ended"] == "error" and f"over {1024 * 1024} bytes" in run["reason"], run
    assert len(sizes) == 1 and max(sizes) < 64 * 1024  # not retried, and nothing of the reply went back
    print(f"huge reply: {child.rss_mb:.0f} MB, {child.wall_s:.1f} s")


def test_thousands_of_tool_calls_in_one_turn_run_16(tmp_path: Path) -> None:
    with serve(HostileLLM(mode="manycalls", calls=2000)) as llm:
        out, child = _investigate(tmp_path, llm.url, timeout_s=40)
        second = [r for r in llm.requests if r["path"].endswith("/completions")][1]
    child.assert_bounded()
    run = out["runs"][0]
    assert run["ended"] == "reported" and run["tool_calls"] == 2001 and run["malformed"] == 1984, run
    assert second["tool_messages"] == 16 and second["bytes"] < 256 * 1024
    print(f"2000 tool calls: {child.rss_mb:.0f} MB, {child.wall_s:.1f} s")


def test_deeply_nested_arguments_and_content_are_malformed_not_a_crash(tmp_path: Path) -> None:
    with serve(HostileLLM(mode="deep", depth=5000)) as llm:
        out, child = _investigate(tmp_path, llm.url)
    run = out["runs"][0]
    assert "RecursionError" not in run["reason"] and run["ended"] == "reported", run
    assert run["malformed"] == 2  # one too deep, one too long
    child.assert_bounded()


def test_a_redirect_to_another_origin_is_refused_and_the_other_server_never_asked(tmp_path: Path) -> None:
    with serve(HostileLLM(mode="manycalls", calls=1)) as other, \
            serve(HostileLLM(mode="redirect", target="")) as llm:
        llm.target = other.url
        out, _ = _investigate(tmp_path, llm.url)
        assert other.requests == []
    assert "redirect" in (out["unreachable"] or out["runs"][0]["reason"]), out
    assert "zq-plain" not in json.dumps(out)


@pytest.mark.parametrize("mode", ["gzip", "badjson"])
def test_a_compressed_or_undecodable_reply_ends_with_one_reason(tmp_path: Path, mode: str) -> None:
    with serve(HostileLLM(mode=mode, size=1024 * 1024 * 1024)) as llm:
        out, child = _investigate(tmp_path, llm.url)
    run = out["runs"][0]
    assert run["ended"] == "error" and "internal error" not in run["reason"], run
    child.assert_bounded()
    print(f"{mode}: {child.rss_mb:.0f} MB, {child.wall_s:.1f} s")


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/1/environ", "/proc/1/task/1/environ"])
def test_a_process_environment_is_withheld_from_the_tools(path: str) -> None:
    secret = "LLMCRED=zq-plain-lowercase-key-value-for-llm-7781"
    host = fake_host(files={"/proc/1/environ": f"{secret}\0HOME=/root\0", "/proc/1/task/1/environ": f"{secret}\0"},
                     links={"/proc/self": "1"}, strict=True)
    result = SnapshotTools(host).call("read_file", {"path": path})
    assert result.error and "withheld" in result.text and "zq-plain" not in result.text


def test_the_wall_deadline_is_checked_between_tool_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 calls of a tool that takes 0.5 s each, in an investigation of 4 s: the calls past the deadline
    are answered as not run, and the investigation ends within its time."""
    slow = SnapshotTools.call

    def slow_call(self: SnapshotTools, name: str, arguments: Any) -> Any:
        time.sleep(0.5)
        return slow(self, name, arguments)

    monkeypatch.setattr(SnapshotTools, "call", slow_call)
    host = fake_host(files={"/proc/sys/vm/swappiness": "60\n"}, strict=True)
    server, stop = start_server()
    try:
        def script(c: Call) -> Reply:
            if c.index == 0:
                return Reply(tool_calls=[call("read_file", path="/proc/sys/vm/swappiness")] * 16)
            return Reply(tool_calls=[report()])

        server.reset(script)
        config = InvestigationConfig(url=server.url, model="m", domains=("KERN",), timeout_s=4.0,
                                     request_timeout_s=5.0, backoff_s=0.01)
        started = time.monotonic()
        outcome = asyncio.run(investigate_async(config, host, collect_facts(host, 10.0), [], domain_facts(), {}, []))
        took = time.monotonic() - started
        answers = server.requests[-1].tool_outputs()
    finally:
        stop()
    assert sum("time budget ran out before this call" in a for a in answers) >= 8, answers
    assert took < 7.5, f"{took:.1f} s"  # 16 calls of 0.5 s alone are 8 s
    assert outcome.runs[0].ended.startswith("reported")
