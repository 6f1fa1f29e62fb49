"""Workloads: dataset files, a shared prefix against a server with a prefix cache, conversations.

The ShareGPT records below follow the layout of ShareGPT_V3_unfiltered_cleaned_split.json (the
file `vllm bench serve --dataset-name sharegpt` reads): a list of {"id", "conversations": [{"from":
"human" | "gpt", "value"}]}. Modelled (written here), not copied from the dataset.

Runs are small (a few requests, no warm-up) and assert on counts and values the server logged,
not on timings, except where the difference is tens of milliseconds by construction.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest

from bench_support.servers import calibrated_server
from stackaudit.bench.prompts import PromptFactory, words_counter
from stackaudit.bench.runner import BenchConfig, run_bench
from stackaudit.bench.workload import conversation_position, load_dataset
from stackaudit.cli.main import main
from stackaudit.errors import InputError

SHAREGPT = [
    {"id": "QWJhYvA_0", "conversations": [
        {"from": "human", "value": "Summarize the causes of the French revolution in three points"},
        {"from": "gpt", "value": "Debt from wars, a rigid estate system and bread prices that rose fast"},
        {"from": "human", "value": "Which of those mattered most"},
        {"from": "gpt", "value": "Most historians point to the fiscal crisis"},
    ]},
    {"id": "i6IyJda_0", "conversations": [
        {"from": "human", "value": "Write a haiku about rain"},
        {"from": "gpt", "value": "Soft rain on the roof"},
    ]},
    {"id": "A5AbcES_0", "conversations": [{"from": "gpt", "value": "a reply with no question before it"}]},
    {"id": "hRPPgZT_0", "conversations": [
        {"from": "system", "value": "You are terse."},
        {"from": "human", "value": "Name two prime numbers above ten"},
        {"from": "gpt", "value": "Eleven and thirteen"},
    ]},
]
FAST = ["--warmup", "0", "--quiet", "--no-history"]


def write_sharegpt(path: Any) -> str:
    path.write_text(json.dumps(SHAREGPT, indent=1), encoding="utf-8")
    return str(path)


def test_sharegpt_json_is_parsed_and_sampled_reproducibly(tmp_path: Any) -> None:
    dataset = load_dataset(write_sharegpt(tmp_path / "sharegpt.json"), seed=3)
    assert dataset.format == "sharegpt-json" and dataset.records == 4 and dataset.skipped == 1
    first = dataset.entries[0]
    assert first.prompts == ["Summarize the causes of the French revolution in three points", "Which of those mattered most"]
    assert first.replies[1] == "Most historians point to the fiscal crisis"
    assert dataset.entries[2].prompts == ["Name two prime numbers above ten"]  # the system turn is not a prompt
    again = load_dataset(str(tmp_path / "sharegpt.json"), seed=3)
    assert again.order == dataset.order and sorted(dataset.order) == [0, 1, 2]
    orders = {tuple(load_dataset(str(tmp_path / "sharegpt.json"), seed=s).order) for s in range(12)}
    assert len(orders) > 1  # the seed chooses the order


def test_jsonl_prompts_with_output_lengths_and_bad_files(tmp_path: Any) -> None:
    lines = [
        {"prompt": "Explain TCP slow start", "output_tokens": 64},
        {"prompt": "Explain QUIC", "max_tokens": 16},
        {"prompt": "No length here"},
        SHAREGPT[1],
    ]
    path = tmp_path / "prompts.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    dataset = load_dataset(str(path), seed=0)
    assert dataset.format == "jsonl" and len(dataset.entries) == 4
    assert [e.output_tokens for e in dataset.entries] == [64, 16, None, None]
    assert dataset.entries[3].replies == ["Soft rain on the roof"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "ok"}\n{"prompt": \n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2 is not JSON"):
        load_dataset(str(bad), seed=0)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps([{"conversations": []}]), encoding="utf-8")
    with pytest.raises(InputError, match="no usable prompt"):
        load_dataset(str(empty), seed=0)


def test_bad_dataset_exits_2_with_one_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--url", "http://127.0.0.1:9", "--dataset", str(tmp_path / "missing.json"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "--dataset" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_rerun_with_the_same_seed_gets_new_prompt_tags() -> None:
    counter = words_counter()
    first, second = PromptFactory(counter, 64, seed=5), PromptFactory(counter, 64, seed=5)
    assert first.body(40) == second.body(40)  # the seed still chooses the words
    assert first.tag(0) != second.tag(0)  # a prefix cache holding the first run's prompts cannot serve the second's
    assert len(first.tag(0).split()) == len(second.tag(0).split()) == 5


def test_conversations_interleave_by_width() -> None:
    # Width 2, 3 turns: conversations 0 and 1 take turns, then 6 and 7.
    assert [conversation_position(i, 2, 3) for i in range(8)] == [
        (0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (6, 0), (7, 0),
    ]


def test_dataset_run_reports_lengths_and_exports(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_sharegpt(tmp_path / "sharegpt.json")
    export = tmp_path / "requests.jsonl"
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--tokenize") as url:
        assert main(["bench", "--url", url, "-c", "2", "-n", "6", *FAST, "--dataset", data,
                     "--requests-jsonl", str(export), "-f", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert main(["bench", "--url", url, "-c", "2", "-n", "4", *FAST, "--dataset", data, "-f", "vllm-json"]) == 0
        vllm = json.loads(capsys.readouterr().out)
    workload = report["workload"]
    assert workload["dataset"] == {"path": "sharegpt.json", "format": "sharegpt-json", "records": 4, "usable": 3, "skipped": 1}
    assert workload["cache_busting"] is True and "cache-busting" in workload["mode"]
    # The server counts words: the replies are 13, 5 and 3 words; a first turn is the tag (5 words) + the prompt.
    assert (workload["output_tokens_asked"]["min"], workload["output_tokens_asked"]["max"]) == (3.0, 13.0)
    assert workload["output_tokens"]["max"] <= 13.0
    assert workload["input_tokens"]["min"] == 5 + 5  # "Write a haiku about rain"
    lines = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 6 and {line["level"] for line in lines} == {"c=2"}
    for line in lines:
        assert line["status"] == 200 and line["error"] is None and line["token_source"] == "usage"
        # Chunks that arrived in one read share a time: the counts say how many.
        assert len(line["chunk_times_s"]) == len(line["chunk_counts"])
        assert sum(line["chunk_counts"]) == line["n_chunks"] == line["output_tokens"]
        assert line["intended_s"] <= line["sent_s"] <= line["first_chunk_s"] <= line["last_chunk_s"] <= line["ended_s"]
        entry = [SHAREGPT[0], SHAREGPT[1], SHAREGPT[3]][line["dataset_entry"]]
        reply = next(t["value"] for t in entry["conversations"] if t["from"] == "gpt")
        assert line["max_tokens"] == len(reply.split())
    assert vllm["completed"] == 4 and vllm["failed"] == 0 and vllm["max_concurrency"] == 2 and vllm["request_rate"] == "inf"


def _run(url: str, **overrides: Any) -> Any:
    config = BenchConfig(url=url, **{"requests": 4, "warmup": "0", "shuffle": False, **overrides})
    return asyncio.run(run_bench(config, progress=None))


def test_shared_prefix_is_served_from_the_prefix_cache(tmp_path: Any) -> None:
    log = tmp_path / "chunks.jsonl"
    # 0.5 ms per prompt token not in the cache: 200 uncached tokens cost 100 ms, 40 cost 20 ms.
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--tokenize", "--prefix-cache",
                           "--prefill-ms-per-token", "0.5", "--chunk-log", str(log)) as url:
        busting = _run(url, concurrency=[1], input_tokens=200, output_tokens=4)
        served = len(log.read_text(encoding="utf-8").splitlines())
        shared = _run(url, concurrency=[1], input_tokens=200, output_tokens=4, prefix_tokens=160)
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert max(e["cached_tokens"] for e in entries[:served]) <= 1  # unique prefixes: only "Request" in common
    assert [e["cached_tokens"] >= 160 for e in entries[served:]].count(True) >= 3  # all but the first at most
    assert busting.result["workload"]["cache_busting"] is True
    assert shared.result["workload"]["prefix_tokens_counted"] == 160
    assert "shared prefix of 160 tokens" in shared.result["config"]["workload_mode"]
    # 80 ms of prefill saved per request, by construction: the report shows it.
    ttft_busting = busting.result["levels"][0]["ttft_ms"]["p50"]
    ttft_shared = shared.result["levels"][0]["ttft_ms"]["p50"]
    assert ttft_busting - ttft_shared > 40.0, (ttft_busting, ttft_shared)


def test_turns_carry_the_previous_turns(tmp_path: Any) -> None:
    log = tmp_path / "chunks.jsonl"
    with calibrated_server("--ttft-ms", "5", "--gap-ms", "1", "--tokenize", "--prefix-cache",
                           "--chunk-log", str(log)) as url:
        outcome = _run(url, concurrency=[2], endpoint="chat", input_tokens=20, output_tokens=4, turns=3, requests=6)
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    measured = entries[-6:]
    roles = sorted(len(e["messages"]) for e in measured)
    assert roles == [1, 1, 3, 3, 5, 5]
    by_first = {}
    for entry in measured:
        assert [role for role, _ in entry["messages"]] == ["user", "assistant"] * (len(entry["messages"]) // 2) + ["user"]
        by_first.setdefault(entry["messages"][0][1], []).append(entry)
    assert len(by_first) == 2  # two conversations, each opened by its own first message
    for conversation in by_first.values():
        ordered = sorted(conversation, key=lambda e: len(e["messages"]))
        for earlier, later in itertools.pairwise(ordered):
            assert later["messages"][: len(earlier["messages"])] == earlier["messages"]  # the earlier turns, verbatim
            assert later["cached_tokens"] >= earlier["prompt_tokens"]  # the server could reuse the whole earlier prompt
    turns = sorted(m["turn"] for m in outcome.workload.values())
    assert turns == [1, 1, 2, 2, 3, 3]
    assert "conversations of 3 turns" in outcome.result["workload"]["mode"]
