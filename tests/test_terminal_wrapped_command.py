"""An engine command a terminal wrapped inside an option's name is read whole (importers/engine_command.py).

Blind 1757 (sgl-project/sglang#9859) pastes SGLang's launch command as the terminal wrapped it, `--node-r` over
`ank 0 --tp-size 8 ...`: read from its first line alone, the command ran TP 1, and the checks said a group of GPUs had
no placement to judge. Corpus 456 and 886 are real counter-examples: a long line ending in a whole option or value, then
a list's next command or another program's command.
"""

from __future__ import annotations

from itertools import pairwise

from corpus import body, capture_checks
from stackaudit.importers._scan import strip_prompt
from stackaudit.importers.engine_command import _terminal_wrapped


def test_the_wrapped_rest_joins_the_command_1757() -> None:
    """Real (corpus 1757): the TP size on the wrapped line is read, so the group's placement stays to be judged."""
    lines = body("1757").splitlines()
    at = next(i for i, line in enumerate(lines) if "sglang.launch_server" in line)
    assert _terminal_wrapped(strip_prompt(lines[at]), lines[at + 1])
    results = capture_checks("1757", "IC-TOPOLOGY-PLACEMENT", "IC-NCCL-ENV")
    assert {cid: r.status for cid, r in results.items()} == {"IC-TOPOLOGY-PLACEMENT": "unknown", "IC-NCCL-ENV": "unknown"}
    assert "TP 1" not in results["IC-TOPOLOGY-PLACEMENT"].message


def test_a_whole_last_word_or_another_command_is_no_wrap() -> None:
    """Real (corpus 456, 886): a long line that ends in a whole value or option, then a numbered list's next command or
    SGLang's benchmark, stays a line of its own; modelled: a short line is no terminal's width."""
    for prefix in ("456", "886"):
        lines = body(prefix).splitlines()
        assert not any(_terminal_wrapped(strip_prompt(a), b) for a, b in pairwise(lines)), prefix
    assert not _terminal_wrapped("vllm serve m --tensor-parallel-s", "ize 2 --port 8000 --max-model-len 4096")
