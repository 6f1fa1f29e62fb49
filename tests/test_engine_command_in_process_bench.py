"""Benchmarks that run the engine in their own process are engine commands (facts/processes.classify).

SGLang's `bench_one_batch` (before v0.4 `bench_latency`) and `bench_offline_throughput`, and vLLM's
`vllm bench latency|throughput`, build the engine from the server's own options: their TP size, custom
all-reduce and CUDA-graph flags are the engine's. `sglang.bench_serving` and `vllm bench serve` are clients.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, pasted
from stackaudit.facts.engine_command import parse_command_line

# sgl-project/sglang#1509 (corpus 632), sglang#3124 (yizhang2077's test command), vllm#50505 (mosafariuk's log).
REAL = [
    ("python3 -m sglang.bench_latency --model meta-llama/Meta-Llama-3-8B --batch-size 1 --input 128 --output 8 "
     "--tensor-parallel-size 2", "sglang", 2),
    ("python3 -m sglang.bench_offline_throughput --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random "
     "--num-p 1 --random-input 32 --random-output 512 --random-range 1 --tp 8 --enable-torch-compile "
     "--cuda-graph-max-bs 1", "sglang", 8),
    ("VLLM_BATCH_INVARIANT=1 vllm bench throughput --model Qwen/Qwen2.5-1.5B --tensor-parallel-size 4 "
     "--dataset-name random --input-len 1024 --output-len 128", "vllm", 4),
]


@pytest.mark.parametrize(("line", "engine", "tp"), REAL)
def test_an_in_process_benchmark_is_the_engines_command(line: str, engine: str, tp: int) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == engine
    host = pasted(f"$ {line}\n")
    serving = fact(host, "serving_engine")
    assert (serving.engine, serving.shown_tp) == (engine, tp)


@pytest.mark.parametrize("line", [
    # Modelled: the clients that send requests to a running server hold no GPU and no engine option.
    "python3 -m sglang.bench_serving --backend sglang --dataset-name sharegpt --num-prompts 5000",
    "vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --num-prompts 100",
])
def test_a_benchmark_client_is_no_engine_command(line: str) -> None:
    assert parse_command_line(line) is None


def test_the_custom_allreduce_crash_under_a_benchmark_is_judged_with_its_tp() -> None:
    # Corpus 632: TP 2 under bench_latency died in custom_all_reduce.cuh with peer access not supported.
    results = capture_checks("632", "IC-CUSTOM-ALLREDUCE")
    assert results["IC-CUSTOM-ALLREDUCE"].status == "issue", results["IC-CUSTOM-ALLREDUCE"].message


def test_the_command_line_is_read_from_its_inline_code_span(tmp_path: Path) -> None:
    host = pasted("`" + REAL[0][0] + "`\n\n[19:01:01 TP0] Init nccl begin.\n")
    assert fact(host, "serving_engine").shown_tp == 2
