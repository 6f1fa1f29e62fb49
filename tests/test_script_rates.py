"""An inference script's one-request summary line (importers/bench_output.SCRIPT_RATE_LINES, facts/serving_rate.
SCRIPT_RATES): exllamav2's example and test script, MLC-LLM's benchmark.py and chat stats, a script's own
`tokens/second:` summary. The paste is read (not refused), its rate is the measured rate, and the line is CUDA at
work only where the engine has no other backend and the source shows an NVIDIA GPU and no other vendor's.

Real lines are corpus captures (1448, 1449, 1452) or quoted verbatim from the public pages named beside them;
counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import ParseError
from stackaudit.facts.serving_rate import parse_script_rate

COMPAT = "DRV-CUDA-COMPAT"

# https://github.com/dusty-nv/jetson-containers/issues/412 (the issue body by whk6688, quoting the maintainer's
# published result): MLC's benchmark.py before it printed input=/output=.
MLC_BENCH_412 = ("/data/models/mlc/dist/Llama-2-7b-chat-hf-q4f16_ft/params:  prefill_time 0.027 sec, prefill_rate "
                 "582.8 tokens/sec, decode_time 2.986 sec, decode_rate 42.9 tokens/sec\n")
# https://github.com/mlc-ai/mlc-llm/issues/15 (comment by robertswiecki, 2023-08-11, an AMD RX6800XT on Vulkan).
MLC_STATS_15 = "Statistics: prefill: 48.7 tok/s, decode: 52.8 tok/s\n"
# https://github.com/mlc-ai/mlc-llm/issues/15 (comment by Hzfengsy, 2023-05-01, an RTX 3080 on Windows 11): the first
# releases' `encode:`.
MLC_ENCODE_15 = "`encode: 39.5 tok/s, decode: 26.0 tok/s` on Windows 11 with RTX-3080\n"
# https://github.com/mlc-ai/mlc-llm/pull/1007 (the description by varshith15, its `previous output`).
MLC_STATS_1007 = "prefill: 216 tok/s, decode: 107.5 tok/s\n"
# Maxime Labonne, "ExLlamaV2: The Fastest Library to Run LLMs"
# (https://towardsdatascience.com/exllamav2-the-fastest-library-to-run-llms-32aeda294d26), exllamav2's
# test_inference.py on zephyr-7b-beta at 5.0 bpw.
EXL2_TEST_LABONNE = (" -- Response generated in 3.40 seconds, 128 tokens, 37.66 tokens/second (includes prompt "
                     "eval.)\n")


# https://github.com/oobabooga/text-generation-webui/pull/4814 (the description by oobabooga, 2023-12-05: ExLlama_HF,
# a 13b model, "After").
TEXTGEN_4814 = ("Output generated in 9.69 seconds (51.50 tokens/s, 499 tokens, context 3550, seed 909082919)\n"
                "Output generated in 9.71 seconds (51.41 tokens/s, 499 tokens, context 3550, seed 221584078)\n"
                "Output generated in 9.72 seconds (51.36 tokens/s, 499 tokens, context 3550, seed 105310110)\n")
# https://github.com/oobabooga/text-generation-webui/issues/2602 (comment by Ph0rk0z, 2023-06-10).
TEXTGEN_2602 = ("Output generated in 1.83 seconds (5.46 tokens/s, 10 tokens, context 66, seed 162381042)\n"
                "Output generated in 2.22 seconds (6.32 tokens/s, 14 tokens, context 77, seed 38906774)\n")
# text-generation-webui's docs/llama.cpp.md (early 2023, before the seed was printed), quoted as Markdown.
TEXTGEN_NO_SEED = "> Output generated in 33.07 seconds (6.05 tokens/s, 200 tokens, context 17)\n"


@pytest.mark.parametrize(("text", "rate", "source"), [
    (body("1448"), 119.64, "exllamav2's examples/inference.py"),
    (EXL2_TEST_LABONNE, 37.66, "exllamav2's examples/inference.py"),
    (body("1449"), 19.3, "MLC-LLM's benchmark.py: decode_rate"),
    (MLC_BENCH_412, 42.9, "MLC-LLM's benchmark.py: decode_rate"),
    (MLC_STATS_15, 52.8, "MLC-LLM's chat stats: decode"),
    (MLC_STATS_1007, 107.5, "MLC-LLM's chat stats: decode"),
    (body("1452"), 81.12, "a script's tokens/second summary"),
    (TEXTGEN_4814, 51.41, "text-generation-webui's reply line"),
    (TEXTGEN_2602, 5.89, "text-generation-webui's reply line"),
    (TEXTGEN_NO_SEED, 6.05, "text-generation-webui's reply line"),
])
def test_the_summary_line_is_the_measured_rate(text: str, rate: float, source: str) -> None:
    """Each shape is read (the paste is not refused) and its rate is the serving rate: MLC's decode alone (not its
    prefill_rate of 197.0 in 1449), exllamav2's tokens over the response's time."""
    host = pasted(text)
    assert "bench_output" in host.record.docs
    found = fact(host, "serving_rate")
    assert found.tokens_per_s == rate and found.source.startswith(source), found


def test_mlc_encode_stats_of_the_first_releases() -> None:
    """mlc-ai/mlc-llm#15: the first releases' `encode:` spelling is read as the parser reads it (the quoted line sits
    in backticks inside the user's words, so only the parser is asked)."""
    assert parse_script_rate(MLC_ENCODE_15.strip("`\n").split("`")[0]).tokens_per_s == 26.0


def test_tokens_per_second_alone_is_no_script_summary() -> None:
    """Modelled: `tokens/second: 81.12` alone (without `Time taken for Response:` and `tokens total:` above it) could be
    any program's line, so it is not benchmark output; nor is prefill alone a decode rate."""
    assert "bench_output" not in pasted("tokens/second: 81.12\n").record.docs
    with pytest.raises(ParseError):
        parse_script_rate("prefill_time 0.081 sec, prefill_rate 197.0 tokens/sec\n")


def test_runs_far_apart_give_no_rate() -> None:
    """Modelled: two exllamav2 runs at 119.64 and 60.1 tokens/s are two runs, not one engine's rate."""
    with pytest.raises(ParseError):
        parse_script_rate("Response generated in 8.56 seconds, 1024 tokens, 119.64 tokens/second\n"
                          "Response generated in 17.04 seconds, 1024 tokens, 60.10 tokens/second\n")


@pytest.mark.parametrize("prefix", ["1448", "1449", "1452"])
def test_a_rate_alone_does_not_show_cuda(prefix: str) -> None:
    """Corpus 1448, 1449, 1452: the line shows a decode, but not its GPU's vendor (exllamav2 also runs on ROCm, MLC on
    Vulkan, ROCm and Metal, 1452's script is unnamed), so DRV-CUDA-COMPAT stays unknown."""
    assert capture_checks(prefix, COMPAT)[COMPAT].status == "unknown"


NVIDIA_SMI = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |
| N/A   31C    P0    60W / 400W |      0MiB / 81920MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
"""


def test_exllamav2_beside_an_nvidia_gpu_is_cuda_at_work(tmp_path: Path) -> None:
    """Modelled on corpus 1448 with an nvidia-smi table above it: exllamav2 has no CPU path, and the source shows only
    an NVIDIA GPU, so its CUDA build ran on this driver. MLC's line beside the same table does not say so (MLC runs
    on Vulkan on NVIDIA GPUs too)."""
    r = paste_checks(tmp_path, NVIDIA_SMI + body("1448"), COMPAT)[COMPAT]
    assert r.status == "ok" and "exllamav2 generated at 119.64 tokens/s" in r.message, r.message
    assert paste_checks(tmp_path, NVIDIA_SMI + MLC_BENCH_412, COMPAT)[COMPAT].status != "ok"


def test_exllamav2_line_shows_its_engine() -> None:
    """Corpus 1448: exllamav2's summary line shows its engine, ExLlama ("exllama", as the user's words name it: an
    engine of its own, not a plain PyTorch program); MLC's line (1449) names no engine the tool knows, and 1452's
    script is unnamed."""
    assert fact(pasted(body("1448")), "engines_shown").shown == ("exllama",)
    assert not hasattr(fact(pasted(body("1452")), "engines_shown"), "shown")


def test_textgen_runs_with_and_without_tensor_parallelism_give_no_rate() -> None:
    """Corpus 1477: two runs with TP (2.26, 2.75 tokens/s) and two without (8.87, 9.93) are read as text-generation-webui's
    lines, and being two settings they give no one rate."""
    host = pasted(body("1477"))
    assert "bench_output" in host.record.docs
    with pytest.raises(ParseError):
        parse_script_rate(body("1477"))


# exllama's (v1) test_benchmark_inference.py -p (facts/serving_rate.EXLLAMA_BENCHMARK). turboderp/exllama#6 (comment by
# 1aienthusiast, 2023-05-23, an RTX 3060), from its load lines to the generation rate.
EXLLAMA_6 = """ -- Sequence length: 2048
 -- Options: ['attention: pytorch_scaled_dp', 'matmul: switched', 'perf']
 ** Time, Load model: 1.20 seconds
 -- Groupsize (inferred): None
 -- Act-order (inferred): no
 ** VRAM, Model: [cuda:0] 3,390.76 MB
 -- Inference, first pass.
 ** Time, Inference: 1.35 seconds
 ** Speed: 1423.20 tokens/second
 -- Generating 128 tokens...
 ** Speed: 36.62 tokens/second
 ** VRAM, Inference: [cuda:0] 1,585.17 MB
 ** VRAM, Total: [cuda:0] 4,975.93 MB
"""
# turboderp/exllama#29 (comment by Ph0rk0z, 2023-06-05, a 3090): two generations, after a long prompt and a short one.
EXLLAMA_29 = """ -- Inference, first pass.
 ** Time, Inference: 0.35 seconds
 ** Speed: 5469.47 tokens/second
 -- Generating 128 tokens, 1920 token prompt...
 ** Speed: 44.28 tokens/second
 -- Generating 128 tokens, 4 token prompt...
 ** Speed: 44.48 tokens/second
 ** VRAM, Inference: [cuda:0] 1,555.17 MB
"""


@pytest.mark.parametrize(("text", "rate"), [(EXLLAMA_6, 36.62), (EXLLAMA_29, 44.38), (body("1869"), 15.56)])
def test_exllama_benchmark_generation_rate_is_read(text: str, rate: float) -> None:
    """The rate under `-- Generating N tokens` is read, never the first pass's (the whole prompt at once)."""
    read = fact(pasted(text), "serving_rate")
    assert read.tokens_per_s == pytest.approx(rate)
    assert read.source.startswith("exllama's test_benchmark_inference.py")


def test_exllama_benchmark_lines_without_a_generation_are_not_read() -> None:
    """Modelled: the load and first-pass lines alone hold no generation rate: nothing is read."""
    head = EXLLAMA_6.split(" -- Generating")[0]
    with pytest.raises(ParseError):
        parse_script_rate(head)
    assert fact(pasted(head), "serving_rate").__class__.__name__ != "MeasuredRate"
