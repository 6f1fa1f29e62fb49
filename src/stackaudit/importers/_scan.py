"""Helpers for importers: spans of lines, prompts, code fences."""

from __future__ import annotations

import re

PROMPT = re.compile(r"^\s*(?:\(?[\w.-]+\)?\s*)?(?:[\w.@:~/-]*[#$%>]\s+|\$\s*)")
FENCE = re.compile(r"^\s*(```|~~~)")


def strip_prompt(line: str) -> str:
    """`root@host:~# cat /proc/cmdline` -> `cat /proc/cmdline`."""
    return PROMPT.sub("", line, count=1).strip()


def is_command_line(line: str, *commands: str) -> bool:
    """Whether `line` is a shell prompt / bare line running one of `commands`."""
    text = strip_prompt(line)
    return any(text == c or text.startswith(c + " ") for c in commands)


def take_while(lines: list[str], start: int, pred: re.Pattern[str], allow_blank: int = 0) -> int:
    """End index (exclusive) of the run of lines from `start` matching `pred` (blank lines allowed)."""
    end = start
    blanks = 0
    i = start
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            blanks += 1
            if blanks > allow_blank:
                break
            i += 1
            continue
        if FENCE.match(line) or not pred.search(line):
            break
        blanks = 0
        i += 1
        end = i
    return end
