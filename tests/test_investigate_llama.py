"""`investigate` against a real OpenAI-compatible server: llama-cpp-python's server (llama.cpp engine) serving
the tiny random-weight Llama model of tests/test_bench_llama.py (written with the `gguf` writer, no download).

A random model answers with noise, or with tool calls whose arguments break their schema: the investigation
must run end to end through the real server's tool-call handling, end every investigator, and say that the
model produced nothing usable, with the rule engine's report intact. Skips as tests/test_bench_llama.py does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is in the test extras")
pytest.importorskip("gguf")
pytest.importorskip("openai", reason="the openai SDK is in the test extras (stackaudit[investigate])")

from bench_support.servers import llama_cpp_server
from bench_support.tiny_llama import write_tiny_llama
from stackaudit.engine.runner import run_audit
from stackaudit.host.memory import fake_host
from stackaudit.investigate.consolidate import InvestigatedReport, consolidate
from stackaudit.investigate.loop import InvestigationConfig, investigate_async
from stackaudit.investigate.session import collect_facts, domain_facts
from stackaudit.report.render import render

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bench tests' server, with a context that holds the tool schemas (the tiny model's tokens are bytes)."""
    model = str(tmp_path_factory.mktemp("model") / "tiny-llama.gguf")
    write_tiny_llama(model)
    with llama_cpp_server(model, 16384) as url:
        yield url


def test_a_random_model_produces_nothing_usable_and_the_report_stands(llama_tools_server: str) -> None:
    host = fake_host(files={"/proc/sys/kernel/numa_balancing": "1\n",
                            "/proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/sda1 ro quiet\n"}, strict=True)
    audit = run_audit(host)
    config = InvestigationConfig(url=llama_tools_server, model="tiny", domains=("KERN",), max_rounds=1,
                                 max_tokens_per_turn=32, timeout_s=120, request_timeout_s=60, stream=True)
    # The tiny model reads one byte a token: the prompt is kept short (two facts, one check's documentation).
    facts = {k: v for k, v in collect_facts(host).items() if k in ("kernel", "cmdline")}
    docs = {"KERN-NUMA-BALANCING": "KERN-NUMA-BALANCING — automatic NUMA balancing\n"}
    outcome = asyncio.run(investigate_async(config, host, facts, [r.to_json() for r in audit.results],
                                            domain_facts(), docs, list(docs)))
    investigated = InvestigatedReport(**vars(audit), investigation=consolidate(audit, outcome, config.url, "tiny"))
    inv = investigated.investigation
    assert inv is not None and not inv.unreachable
    (run,) = inv.runs
    assert run.ended in ("no-report", "reported", "reported-forced", "error"), run
    assert run.rounds >= 1 and run.tokens > 0
    assert not inv.findings and not inv.usable
    text = " ".join(render(investigated, "text").split())
    assert "The model produced nothing usable" in text
    assert investigated.results == audit.results  # the rule engine's results, as the audit has them
