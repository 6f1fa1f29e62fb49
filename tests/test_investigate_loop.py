"""The investigator loop against a scripted OpenAI-compatible server on 127.0.0.1 (tests/investigate_support.py),
driven through the official `openai` SDK: tool rounds, the concurrency cap, budgets and the forced final
request, the evidence rule, malformed calls, HTTP errors and timeouts, streaming, and the API key.

The snapshot is a modelled fake host (a sysctl, a PCI device's link speed, a kernel log line).
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("openai", reason="the openai SDK is in the test extras (stackaudit[investigate])")

from investigate_support import Call, Reply, ScriptedServer, call, finding, module_server, report
from stackaudit.checks.registry import DOMAINS
from stackaudit.engine.runner import run_audit
from stackaudit.host.memory import MemoryHost, fake_host
from stackaudit.investigate.consolidate import InvestigatedReport, consolidate
from stackaudit.investigate.loop import InvestigationConfig, investigate_async
from stackaudit.investigate.outcome import InvestigatorRun, Outcome
from stackaudit.investigate.session import collect_facts, domain_facts
from stackaudit.report.render import render

# Not of a shape host/redact.py knows: only the investigator's own scrubbing of the key can hide it.
KEY = "local-key-0123-4567-89ab-cdef"
LINE = "\t\tLnkSta: Speed 16GT/s (downgraded), Width x16"


server = pytest.fixture(scope="module", name="server")(module_server)


@pytest.fixture(scope="module")
def host() -> MemoryHost:
    return fake_host(
        files={"/proc/sys/kernel/numa_balancing": "1\n", "/proc/sys/vm/swappiness": "60\n",
               "/sys/bus/pci/devices/0000:01:00.0/current_link_speed": "16.0 GT/s PCIe\n"},
        commands={"lspci -vvv": f"01:00.0 3D controller: NVIDIA Corporation Device 2bb5\n{LINE}\n"},
        strict=True)


@pytest.fixture(scope="module")
def facts(host: MemoryHost) -> dict[str, Any]:
    return collect_facts(host, 10.0)


def investigate(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any], script: Callable[[Call], Reply],
                **options: Any) -> Outcome:
    server.reset(script)
    values: dict[str, Any] = {"url": server.url, "model": "scripted", "domains": ("KERN",), "timeout_s": 30.0,
                              "request_timeout_s": 5.0, "backoff_s": 0.01}
    values.update(options)
    config = InvestigationConfig(**values)
    docs = {"KERN-NUMA-BALANCING": "KERN-NUMA-BALANCING — automatic NUMA balancing\n"}
    return asyncio.run(investigate_async(config, host, facts, [], domain_facts(), docs, list(docs)))


def only(outcome: Outcome) -> InvestigatorRun:
    assert len(outcome.runs) == 1
    return outcome.runs[0]


def reads_then_reports(c: Call) -> Reply:
    """Round 1 reads a file, round 2 a recorded output, round 3 a fact; round 4 quotes what came back."""
    if c.index == 0:
        return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])
    if c.index == 1:
        return Reply(tool_calls=[call("read_output", command="lspci -vvv", match="LnkSta")])
    if c.index == 2:
        return Reply(tool_calls=[call("get_fact", name="kernel")])
    outputs = c.tool_outputs()
    numa = outputs[0]
    return Reply(tool_calls=[report(
        finding("KERN-NUMA-BALANCING", numa, observed="1", subject=""),
        finding("X-KERN-link-downgraded", "LnkSta: Speed 16GT/s (downgraded)", observed="16GT/s",
                subject="0000:01:00.0"))])


@pytest.mark.parametrize("stream", [False, True])
def test_multi_round_tool_use(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any], stream: bool) -> None:
    run = only(investigate(server, host, facts, reads_then_reports, stream=stream))
    assert run.ended == "reported", run.reason
    assert run.rounds == 4 and run.tool_calls == 4 and run.malformed == 0
    assert [f.id for f in run.kept] == ["KERN-NUMA-BALANCING", "X-KERN-link-downgraded"]
    assert run.prompt_tokens == 400 and run.completion_tokens == 80 and not run.tokens_estimated
    requests = server.by_domain("KERN")
    assert all(bool(r.body.get("stream")) == stream for r in requests)
    # Each tool answer follows its assistant message, paired by tool_call_id, before the next request.
    last = requests[-1].body["messages"]
    assert [m["role"] for m in last] == ["system", "user", *["assistant", "tool"] * 3]
    for assistant, tool in zip(last[2::2], last[3::2], strict=True):
        assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert last[3]["content"] == "/proc/sys/kernel/numa_balancing: 1"
    assert requests[0].body["tool_choice"] == "auto"


def test_ten_investigators_in_parallel_under_the_cap(server: ScriptedServer, host: MemoryHost,
                                                     facts: dict[str, Any]) -> None:
    def slow(c: Call) -> Reply:
        if c.index == 0:
            return Reply(tool_calls=[call("read_file", path="/proc/sys/vm/swappiness")], delay_s=0.1)
        return Reply(tool_calls=[report()], delay_s=0.1)

    outcome = investigate(server, host, facts, slow, domains=DOMAINS, parallel=3)
    assert [r.domain for r in outcome.runs] == list(DOMAINS)
    assert all(r.ended == "reported" for r in outcome.runs)
    assert {c.domain for c in server.requests} == set(DOMAINS)
    assert 2 <= server.max_active <= 3


def test_a_model_that_never_reports_is_asked_once_with_report_findings_forced(
        server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    run = only(investigate(server, host, facts, lambda c: Reply(tool_calls=[call("list_dir", path="/proc/sys")]),
                           max_rounds=3))
    assert run.ended == "no-report" and run.rounds == 3
    assert "round budget ran out after 3 round(s)" in run.reason
    requests = server.by_domain("KERN")
    assert len(requests) == 4  # three rounds and the one forced final request
    assert [r.forced for r in requests] == [False, False, False, True]
    assert requests[-1].body["tool_choice"] == {"type": "function", "function": {"name": "report_findings"}}


def test_the_forced_final_report_is_kept(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    def script(c: Call) -> Reply:
        if not c.forced:
            return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])
        return Reply(tool_calls=[report(finding("X-KERN-numa-on", "/proc/sys/kernel/numa_balancing: 1"))])

    run = only(investigate(server, host, facts, script, max_rounds=2))
    assert run.ended == "reported-forced" and [f.id for f in run.kept] == ["X-KERN-numa-on"]
    assert "round budget ran out" in run.reason


def test_token_budgets_per_investigator_and_in_total(server: ScriptedServer, host: MemoryHost,
                                                     facts: dict[str, Any]) -> None:
    looping = lambda c: Reply(tool_calls=[call("list_dir", path="/proc/sys")], usage=(100, 20))  # noqa: E731
    run = only(investigate(server, host, facts, looping, max_tokens_each=300))
    assert run.rounds == 3 and "token budget ran out" in run.reason  # 120 tokens a round: 360 >= 300
    outcome = investigate(server, host, facts, looping, domains=("KERN", "PCIE"), parallel=1, max_tokens_total=250)
    kern, pcie = outcome.runs
    assert "total token budget" in kern.reason
    assert pcie.ended == "not-started" and "total token budget" in pcie.reason


def test_usage_missing_is_estimated(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    run = only(investigate(server, host, facts, lambda c: Reply(tool_calls=[report()], usage=None)))
    assert run.ended == "reported" and run.tokens_estimated and run.tokens > 100


def test_invented_evidence_and_a_quote_of_zero_are_dropped(server: ScriptedServer, host: MemoryHost,
                                                           facts: dict[str, Any]) -> None:
    def script(c: Call) -> Reply:
        if c.index == 0:
            return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])
        return Reply(tool_calls=[report(
            finding("X-KERN-invented", "kernel: BUG: soft lockup - CPU#3 stuck for 22s!", observed="22s"),
            finding("X-KERN-zero", "0", observed="0"),
            finding("X-KERN-real", "/proc/sys/kernel/numa_balancing: 1"))])

    run = only(investigate(server, host, facts, script))
    assert [f.id for f in run.kept] == ["X-KERN-real"]
    assert run.dropped == {"quote not found in any tool output": 1, "quote not found": 1}


def test_malformed_tool_calls_and_arguments_are_answered_and_counted(server: ScriptedServer, host: MemoryHost,
                                                                      facts: dict[str, Any]) -> None:
    def script(c: Call) -> Reply:
        if c.index == 0:
            return Reply(tool_calls=[("read_file", '{"path": "/proc/sys/kernel/numa_balancing"'),  # cut JSON
                                     call("run_shell", command="reboot"),  # no such tool
                                     call("read_file", path="/etc", mode="w"),  # outside the schema
                                     ("report_findings", {"findings": "none"})])  # a report outside its schema
        if c.index == 1:
            return Reply(content="I think NUMA balancing is on.")  # prose, no tool call
        return Reply(tool_calls=[report()])

    run = only(investigate(server, host, facts, script))
    assert run.ended == "reported" and run.malformed == 4 and run.rounds == 3
    answers = server.by_domain("KERN")[1].body["messages"][-4:]
    assert [m["role"] for m in answers] == ["tool"] * 4
    assert "not valid JSON" in answers[0]["content"]
    assert "unknown tool 'run_shell'" in answers[1]["content"]
    assert "unexpected property 'mode'" in answers[2]["content"]
    assert "arguments.findings: expected array" in answers[3]["content"]
    nudged = server.by_domain("KERN")[2].body["messages"][-1]
    assert nudged["role"] == "user" and "report_findings" in nudged["content"]


def test_a_report_written_as_text_is_read(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    def script(c: Call) -> Reply:
        if c.index == 0:
            return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])
        return Reply(content='Here: {"findings": [{"id": "X-KERN-numa", "status": "issue", "severity": "low", '
                             '"confidence": "documented", "title": "t", '
                             '"evidence": ["/proc/sys/kernel/numa_balancing: 1"]}]}')

    run = only(investigate(server, host, facts, script))
    assert run.ended == "reported" and [f.id for f in run.kept] == ["X-KERN-numa"]


def test_http_429_is_retried_then_succeeds(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    script = lambda c: Reply(status=429, message="slow down") if c.index < 2 else Reply(tool_calls=[report()])  # noqa: E731
    run = only(investigate(server, host, facts, script, retries=2))
    assert run.ended == "reported" and run.retries == 2


@pytest.mark.parametrize("stream", [False, True])
def test_http_500_past_the_retries_ends_that_investigator(server: ScriptedServer, host: MemoryHost,
                                                          facts: dict[str, Any], stream: bool) -> None:
    outcome = investigate(server, host, facts, lambda c: Reply(status=500, message="engine crashed"),
                          retries=2, stream=stream, domains=("KERN", "PCIE"))
    for run in outcome.runs:
        assert run.ended == "error" and run.retries == 2
        assert run.reason == "ended: HTTP 500: engine crashed (3 tries)"
    assert len(server.requests) == 6


def test_timeouts_are_retried_then_end_the_investigator(server: ScriptedServer, host: MemoryHost,
                                                        facts: dict[str, Any]) -> None:
    run = only(investigate(server, host, facts, lambda c: Reply(tool_calls=[report()], delay_s=1.0),
                           request_timeout_s=0.2, retries=1))
    assert run.ended == "error" and run.retries == 1
    assert "no answer within 0.2 s (2 tries)" in run.reason


def test_wall_time_budget_forces_the_final_request(server: ScriptedServer, host: MemoryHost,
                                                   facts: dict[str, Any]) -> None:
    def script(c: Call) -> Reply:
        if c.forced:
            return Reply(tool_calls=[report()])
        return Reply(tool_calls=[call("list_dir", path="/proc/sys")], delay_s=0.3)

    run = only(investigate(server, host, facts, script, timeout_s=3.0, max_rounds=50))
    assert run.ended == "reported-forced" and "time budget" in run.reason
    assert 2 <= run.rounds < 50 and run.duration_s < 4.0


def test_other_http_errors_end_at_once(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    run = only(investigate(server, host, facts, lambda c: Reply(status=400, message="tool_choice auto requires "
                                                                "--enable-auto-tool-choice")))
    assert run.ended == "error" and run.retries == 0 and "--enable-auto-tool-choice" in run.reason
    assert "llama.cpp --jinja" in run.reason  # what to enable, for each server


def test_a_full_context_sends_the_final_request_from_what_fitted(server: ScriptedServer, host: MemoryHost,
                                                                  facts: dict[str, Any]) -> None:
    quote = "/proc/sys/kernel/numa_balancing: 1"

    def script(c: Call) -> Reply:
        if len(c.body["messages"]) > 4 and not c.forced:
            return Reply(status=400, message="This model's maximum context length is 8192 tokens. However, you "
                                             "requested 9100 tokens")
        if c.forced:
            return Reply(tool_calls=[report(finding("X-KERN-numa", quote))])
        return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])

    run = only(investigate(server, host, facts, script))
    assert run.ended == "reported-forced" and "context budget" in run.reason
    assert [f.id for f in run.kept] == ["X-KERN-numa"]
    final = server.by_domain("KERN")[-1].body["messages"]
    # system, user, the first round's call and answer (what fitted), then the final prompt.
    assert [m["role"] for m in final] == ["system", "user", "assistant", "tool", "user"]


def test_evidence_counts_only_in_the_investigation_that_read_it(server: ScriptedServer, host: MemoryHost,
                                                                facts: dict[str, Any]) -> None:
    quote = "/proc/sys/kernel/numa_balancing: 1"

    def script(c: Call) -> Reply:
        if c.domain == "KERN" and c.index == 0:
            return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/numa_balancing")])
        return Reply(tool_calls=[report(finding(f"X-{c.domain}-numa", quote))])

    kern, pwr = investigate(server, host, facts, script, domains=("KERN", "PWR")).runs
    assert [f.id for f in kern.kept] == ["X-KERN-numa"]
    assert not pwr.kept and pwr.dropped == {"quote not found in any tool output": 1}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_endpoint_that_is_down_still_yields_the_deterministic_report(host: MemoryHost,
                                                                         facts: dict[str, Any]) -> None:
    config = InvestigationConfig(url=f"http://user:pw@127.0.0.1:{_closed_port()}", model="m", request_timeout_s=2)
    outcome = asyncio.run(investigate_async(config, host, facts, [], {}, {}, []))
    assert not outcome.runs and "cannot connect" in outcome.unreachable
    audit = run_audit(host)
    investigated = InvestigatedReport(**vars(audit), investigation=consolidate(audit, outcome,
                                                                                "http://<redacted>@127.0.0.1", "m"))
    text = " ".join(render(investigated, "text").split())
    assert "The investigators did not run: the LLM endpoint" in text and "This is the deterministic report" in text
    assert text.index("checks in") < text.index("The investigators did not run")
    assert "pw" not in text.split("Investigator findings")[1]


def test_the_api_key_never_reaches_output(server: ScriptedServer, host: MemoryHost, facts: dict[str, Any]) -> None:
    def echo(c: Call) -> Reply:
        # A hostile or careless server echoes the request's Authorization header in its error and its text.
        auth = c.headers.get("Authorization", "")
        if c.domain == "KERN":
            return Reply(status=500, message=f"bad request with {auth}")
        return Reply(content=f"{auth}", tool_calls=[report(finding("X-KERN-key", auth, title=auth))])

    outcome = investigate(server, host, facts, echo, api_key=KEY, domains=("KERN", "PCIE"), retries=0)
    assert server.requests and all(c.headers.get("Authorization") == f"Bearer {KEY}" for c in server.requests)
    audit = run_audit(host)
    investigated = InvestigatedReport(**vars(audit), investigation=consolidate(audit, outcome, server.url, "m"))
    for fmt in ("text", "markdown", "json"):
        assert KEY not in render(investigated, fmt)
    assert all(KEY not in r.reason for r in outcome.runs)
    assert "Bearer <redacted>" in outcome.runs[0].reason
    assert KEY not in repr(InvestigationConfig(url="u", model="m", api_key=KEY))
