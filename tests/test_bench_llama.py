"""bench against a real inference server: llama-cpp-python's OpenAI-compatible server (llama.cpp engine)
serving a tiny random-weight Llama model this test writes with the `gguf` writer (no download).

llama-cpp-python streams no `usage`, takes no `ignore_eos`, and has a tokenize endpoint at
`/extras/tokenize`: bench must say its counts are approximate, suppress EOS with `logit_bias`,
and its counts must match the `usage` of the same requests sent non-streamed.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is in the test extras")
pytest.importorskip("gguf")

from bench_support.servers import llama_cpp_server
from bench_support.tiny_llama import EOS_ID, write_tiny_llama
from stackaudit.bench.runner import BenchConfig, BenchOutcome, run_bench

# Timing against real servers: `make test` runs these alone, after the parallel part.
pytestmark = [pytest.mark.slow, pytest.mark.serial]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = str(tmp_path_factory.mktemp("model") / "tiny-llama.gguf")
    write_tiny_llama(model)
    # By default a new request interrupts the one streaming: a benchmark must not be cut short.
    with llama_cpp_server(model, 2048, "--interrupt_requests", "False") as url:
        yield url


def bench(url: str, **options: Any) -> BenchOutcome:
    values: dict[str, Any] = {"input_tokens": 32, "output_tokens": 24, "warmup": "4"}
    values.update(options)
    return asyncio.run(run_bench(BenchConfig(url=url, **values), progress=None))


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return dict(json.loads(response.read()))


def test_bench_at_concurrency_1_and_4_with_approximate_counts_checked_against_usage(llama_server: str) -> None:
    outcome = bench(llama_server, concurrency=[1, 4], requests=8)
    result = outcome.result
    assert result["server"]["server_type"] == "llama-cpp-python"
    assert result["config"]["prompt_tokens_source"] == "server /extras/tokenize"
    assert result["config"]["eos_suppression"] == f"logit_bias on EOS token {EOS_ID}"
    assert result["server"]["sampling"]["logit_bias"] == {str(EOS_ID): -100}
    for level in result["levels"]:
        assert level["errors"] == 0, level["error_reasons"]
        assert level["valid"], level["invalid_reasons"]
        assert level["approximate_tokens"] and any("approximate" in f for f in level["flags"])
        assert level["early_eos"] == 0 and level["output_tokens_mean"] == 24
        assert level["tpot_ms"]["mean"] > 0 and level["output_tokens_per_s"] > 0
    # Cross-check: the same requests, non-streamed, report usage; bench's counts must match it.
    for key in ("c=1", "c=4"):
        for _, record in outcome.records[key][:4]:
            assert record.body is not None
            body = json.loads(record.body)
            body["stream"] = False
            body.pop("stream_options", None)
            usage = post(llama_server + "/v1/completions", body)["usage"]
            assert record.output_tokens == usage["completion_tokens"]
            assert record.prompt_tokens_target is not None
            assert abs(usage["prompt_tokens"] - record.prompt_tokens_target) <= 1


def test_without_eos_suppression_random_weights_stop_early_and_are_flagged(llama_server: str) -> None:
    outcome = bench(llama_server, concurrency=[4], requests=12, ignore_eos=False)
    level = outcome.result["levels"][0]
    assert outcome.result["config"]["eos_suppression"] == "none"
    assert level["early_eos"] >= 1
    assert any("early EOS" in flag for flag in level["flags"])
    assert level["output_tokens_mean"] < 24  # counted, never assumed to be the requested length
