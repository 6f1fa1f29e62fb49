"""MLC LLM's CLI and log, and a host of two GPUs by the user's `dual` (issue 28, h83d: corpus 1824).

`mlc_llm serve|chat|compile ...` (and `python -m mlc_llm ...`, as its JIT logs the compile it runs) is an engine
command of engine `mlc`; `compile` builds the model library the others load. Its tensor-parallel shards are
`tensor_parallel_shards=N` in `--overrides`: a serve command without them runs what its library was compiled with,
which the command does not show (no TP 1 read from it). Its log format (`[date] INFO auto_device.py:79: ...`) is
MLC's, not SGLang's. `dual RTX 3090` in the user's words counts two GPUs of that model.

Real lines name their thread; the others are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import sizes_from_argv
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.gpus import stated_gpus
from stackaudit.importers.recognition import recognise

# mlc-ai/mlc-llm#2838 (AMD W7800 x4), #3016 (its JIT's logged compile, two CUDA devices; its temporary folder is
# written `<tmp>` here), #2498 (the compile of a
# two-shard library under `docker run --gpus all`), #1960 (`mlc_llm chat`).
REAL = [
    ('mlc_llm serve HF://mlc-ai/Llama-3-8B-Instruct-q4f16_1-MLC --overrides "tensor_parallel_shards=3" --mode server',
     False, 3),
    ("/opt/miniconda3/envs/python3.11/bin/python3 -m mlc_llm compile /workspace/models/internlm2_5-20b-q4f32_1-MLC "
     "--opt 'flashinfer=1;cublas_gemm=1;faster_transformer=0;cudagraph=1;cutlass=1;ipc_allreduce_strategy=NONE' "
     "--overrides 'prefill_chunk_size=512;max_batch_size=32;tensor_parallel_shards=2' --device cuda:0 "
     "--output <tmp>/lib.so", True, 2),
    ('mlc_llm compile Midnight-Miqu-70B-v1.5-q4f16_1-MLC/mlc-chat-config.json --device cuda --overrides '
     '"tensor_parallel_shards=2" -o /workspace/Midnight-Miqu-70B-v1.5-q4f16_1-cuda.so', True, 2),
    ("mlc_llm chat HF://mlc-ai/Llama-2-7b-chat-hf-q4f16_1-MLC", False, None),
]


@pytest.mark.parametrize(("line", "builds", "tp"), REAL)
def test_real_mlc_commands(line: str, builds: bool, tp: int | None) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "mlc" and command.builds is builds
    assert sizes_from_argv(command.argv)[0] == tp


@pytest.mark.parametrize("line", ["mlc_llm serve", "pip install mlc_llm", "mlc_llm --help"])
def test_modelled_mentions_are_no_command(line: str) -> None:
    """Modelled: the program alone, its package's install, its help start no engine."""
    assert parse_command_line(line) is None


def test_corpus_1824_commands_log_and_placement() -> None:
    """Real (capture 1824, mlc-ai/mlc-llm#2492): the compile and serve commands, in prose and as numbered steps."""
    spans = [(a, b) for kind, a, b in recognise(body("1824")).recognised if kind == "engine command"]
    assert {(4, 4), (7, 7), (22, 23)} <= set(spans)
    host = pasted(body("1824"))
    engine = fact(host, "serving_engine")
    assert engine.engine == "mlc" and engine.shown_tp is None  # the library holds its shards: not TP 1
    assert fact(host, "serving_log").engine == "mlc"  # not SGLang's, whose prefix the date alone resembles
    assert fact(host, "gpus").whole_count == 2  # `I have dual rtx 3090`
    assert capture_checks("1824", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "not-an-issue"


def test_modelled_serve_with_one_shard_runs_one_gpu(tmp_path: Path) -> None:
    """Modelled: a serve command whose override gives one shard runs on one GPU."""
    text = 'mlc_llm serve HF://mlc-ai/Llama-3-8B-Instruct-q4f16_1-MLC --overrides "tensor_parallel_shards=1"\n'
    assert paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"


@pytest.mark.parametrize(("line", "said"), [
    ("I have dual rtx 3090. Compiled model with command:", [(2, "RTX 3090")]),  # mlc-ai/mlc-llm#2492
    ("OOM on dual rtx 3090 and 128gb ddr4 ram", [(2, "RTX 3090")]),  # DominikBucko/qwen38-flash-next-2x3090#2
    ("It works well on my dual RTX 5060 Ti 16GB too", [(2, "RTX 5060 Ti")]),  # syv-ai/qwen38-27b-rtx3090#22
    ("a dual Xeon server", []),  # modelled: two CPUs, no GPU
    ("dual-socket EPYC with dual NVIDIA A6000", [(2, "RTX A6000")]),  # modelled
])
def test_dual_counts_two(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said
