"""Engine log lines quoted in Markdown (issue 28, step 2): a line that is one inline code span, a span wrapped onto
the next line, a log line inside a sentence's span, and a log line behind a stray table bar are still log lines
(importers/_paste.py `peel_markup`). vLLM's metrics line without its prefix is a log line
(facts/serving_logs.py KEY_PHRASES); single-stream lines that disagree are several runs (facts/serving_rate.py).

Real pastes are verbatim under the thread they come from; modelled ones say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.engine.collect import Missing
from stackaudit.importers._paste import view
from stackaudit.importers.recognition import recognise


def _spans(text: str) -> list[tuple[str, int, int]]:
    return list(recognise(text, "paste.txt").recognised)


def test_metrics_lines_in_inline_code_are_log_lines() -> None:
    # Corpus 213 (vllm#4760): the metrics line as one span, the Namespace line behind a stray `| ` in a fence.
    assert ("server log", 16, 16) in _spans(body("213")) and ("server log", 20, 20) in _spans(body("213"))
    # Corpus 684 (vllm#2971): two metrics lines, each one span, cut after the generation figure.
    assert [s for s in _spans(body("684")) if s[0] == "server log"] == [("server log", 4, 4), ("server log", 7, 7)]


def test_a_span_wrapped_onto_the_next_line_is_one_line() -> None:
    # Corpus 689 (dphnAI/sonar#1114): Aphrodite's metrics line and its second command, each wrapped inside a value.
    lines = view(body("689")).lines
    assert any(line.startswith("INFO:     Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 31.4")
               and line.endswith("CPU KV cache usage: 0.0%.") for line in lines)
    assert any(line.endswith("--served-model-name mo del -tp 2") for line in lines)
    spans = _spans(body("689"))
    assert ("server log", 10, 10) in spans and ("server log", 17, 17) in spans and ("engine command", 14, 14) in spans


def test_a_log_line_quoted_inside_a_sentence_is_read() -> None:
    # https://github.com/vllm-project/vllm/issues/700 (the issue body by Zhuqln)
    text = "using 1 req: `Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 27.8 tokens/s`\n"
    assert _spans(text) == [("server log", 1, 1)]


def test_a_command_in_inline_code_is_a_mention_not_a_command_shown_empty() -> None:
    # Corpus 216 (NVIDIA/open-gpu-kernel-modules#876), cut after its command: the span names the command the fence
    # below shows; alone it is no grep that printed nothing.
    text = "I'm experiencing the same issue on Fedora 42:\n\n`$ sudo dmesg | grep 'NVRM'`\n"
    assert "empty grep" not in [k for k, _, _ in _spans(text)]
    assert "`$ sudo dmesg | grep 'NVRM'`" in view(text).lines


def test_a_table_bar_is_peeled_only_before_a_log_line() -> None:
    # Modelled: a cut nvidia-smi row keeps its bar (corpus 128 shows `| N/A   30C    P0    42W`); a Markdown table
    # row is a table row.
    text = "| N/A   30C    P0    42W\n| engine | version |\n| INFO 05-11 08:17:48 server_vllm.py:473] args: x\n"
    assert view(text).lines[:3] == ["| N/A   30C    P0    42W", "| engine | version |",
                                    "INFO 05-11 08:17:48 server_vllm.py:473] args: x"]


def test_single_stream_lines_of_two_runs_give_no_rate(tmp_path: Path) -> None:
    # Corpus 689: 31.4 tok/s with --enforce-eager and 57.8 without, one line each: no one figure is the engine's.
    assert isinstance(fact(pasted(body("689")), "serving_rate"), Missing)
    # Modelled counter-example: the first run alone gives its rate.
    one = body("689").split("tp 2 + no eager")[0]
    assert fact(pasted(one), "serving_rate").tokens_per_s == 31.4
    # The verdicts still come from the commands (corpus 689's expectation).
    assert capture_checks("689", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"
    assert paste_checks(tmp_path, one, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


def test_a_uname_line_in_inline_code_is_unames_output() -> None:
    # Corpus 1065 (ollama#10434): `uname -a`'s line quoted as one span under the user's prose.
    assert ("uname -a", 38, 38) in _spans(body("1065"))
    assert fact(pasted(body("1065")), "kernel").release == "5.10.0-28-amd64"


def test_a_command_mentioned_in_inline_code_stays_prose() -> None:
    """Modelled: a span naming a command, alone on its line, is not that command's output."""
    assert not [s for s in _spans("Then I ran\n`uname -a`\nand got nothing useful\n") if s[0] == "uname -a"]
