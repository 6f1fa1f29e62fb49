"""What a paste looks like once the markup around its outputs is peeled off, line for line.

People paste outputs inside markdown fences (``` or ~~~, with or without a language), GitHub quote
blocks (`> `, nested `> > `), after shell prompts (`$ `, `user@host:~$ `, `(venv) root@box:/# `, `user@host ~ » `),
with gap lines where they cut something (`[...]`, `...`, `<snip>`, grep's `--`), and with Windows
line ends (`\\r\\n`, `\\r\\r\\n` after a copy through two editors). `view()` turns such a text into the
lines the recognisers read, and keeps for each of them its line number in the user's file, so that
a provenance line points at what the user pasted. Gap lines are left out of the view (an output cut
in the middle is still one output) and remembered: a span across a gap is an excerpt.

One pass over the text, constant work per line: a 50 MB paste costs what reading it costs.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import _GAP_LAST, is_gap_line

# `\r\r\n` is one line end (a CRLF file saved again on Windows), not an empty line between two.
_LINE_END = re.compile(r"\r*\n|\r")
# GitHub / CommonMark block quotes: up to three spaces, then `>` markers, each with one optional space.
_QUOTE = re.compile(r"^ {0,3}(?:> ?)+")
_FENCE_ONLY = re.compile(r"^(?P<indent> *)(?P<mark>`{3,}|~{3,})\s*[\w+.#-]*\s*(?:\{[^}]*\})?\s*$")
_FENCE_OPEN_GLUED = re.compile(r"^ *(?:`{3,}|~{3,})(?=\S)(?![\w+.#-]+\s*$)")
_FENCE_CLOSE_GLUED = re.compile(r"(?<=\S)\s*(?:`{3,}|~{3,})\s*$")
# Prompts: `user@host:~$ cmd`, `(venv) root@box:/# cmd`, `[root@host ~]# cmd`, `$ cmd`, `PS> cmd`.
_USER_PROMPT = re.compile(
    r"^(?:\([\w.-]+\)\s+)?(?:[\w.<>-]+@[\w.<>-]+(?::\S*?)?|\[[\w.<>-]+@[\w.<>-]+[^\]]*\])\s?[$#%]\s*(?P<cmd>.*)$")
# zsh themes: `user@host /etc/modprobe.d » cmd`, `user@host ~ ❯ cmd`.
_ARROW_PROMPT = re.compile(r"^[\w.<>-]+@[\w.<>-]+\s+\S+\s+[»❯➜]\s+(?P<cmd>\S.*)$")
_DOLLAR_PROMPT = re.compile(r"^(?:\([\w.-]+\)\s+)?\$\s+(?P<cmd>\S.*)$|^\$$")
# `# cmd` is a root prompt only before a command that prints what people paste; anything else after
# a `#` is a comment (an LXC config, a sysctl.conf) and stays as it is.
_ROOT_COMMANDS = (
    "cat", "dmesg", "journalctl", "lspci", "lscpu", "lsmod", "uname", "numactl", "nvidia-smi", "sysctl",
    "docker", "podman", "kubectl", "df", "ulimit", "cpupower", "grep", "egrep", "ls", "python", "python3",
    "pct", "lxc-info", "modinfo", "sudo", "nvcc", "ibstat", "ibv_devinfo", "free", "mount", "ip",
)
_COMMAND_START = re.compile(r"^(?:sudo\s+)?(?:" + "|".join(re.escape(c) for c in _ROOT_COMMANDS) + r")(?:\s|$)")
_HASH_PROMPT = re.compile(r"^#\s+(?P<cmd>(?:" + "|".join(re.escape(c) for c in _ROOT_COMMANDS) + r")(?:\s.*)?)$")
@dataclass(frozen=True)
class PasteView:
    """The lines the recognisers read, each with its index in the user's file."""

    lines: list[str]
    origin: Sequence[int]  # origin[i]: 0-based index in the user's file of lines[i] (an array: 8 bytes a line)
    gaps: list[int]  # 0-based indices in the user's file of the gap lines left out, ascending
    total: int  # how many lines the user's file has

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Lines [start, end) of the view as lines [a, b) of the user's file."""
        if not self.origin:
            return 0, 0
        start = min(max(start, 0), len(self.origin) - 1)
        last = min(max(end - 1, start), len(self.origin) - 1)
        return self.origin[start], self.origin[last] + 1


def split_lines(text: str) -> list[str]:
    return _LINE_END.split(text) if "\r" in text else text.split("\n")


def looks_like_command(line: str) -> bool:
    """Whether a line of the view starts with a command people paste the output of (`lsmod`, `sudo dmesg`)."""
    return _COMMAND_START.match(line.strip()) is not None


def strip_prompt_line(line: str) -> str | None:
    """The command of a prompt line (`root@box:~# lspci -vvv` -> `lspci -vvv`); None when not a prompt."""
    for pattern in (_USER_PROMPT, _DOLLAR_PROMPT, _HASH_PROMPT, _ARROW_PROMPT):
        m = pattern.match(line)
        if m:
            return (m.group("cmd") or "").strip()
    return None


def view(text: str) -> PasteView:
    """Peel fences, quotes, prompts, gap lines and line-end noise off a paste, line for line."""
    raw = split_lines(text)
    lines: list[str] = []
    origin = array("q")
    gaps: list[int] = []
    fence_indent = -1  # the indentation of the open fence, -1 outside one
    for n, line in enumerate(raw):
        line = line.rstrip()
        first = line[:1]
        if first == ">" or (first == " " and line.lstrip(" ")[:1] == ">"):
            line = _QUOTE.sub("", line, count=1).rstrip()
            first = line[:1]
        # Cheap tests first: most lines of a long log carry no markup at all.
        if "`" in line or "~" in line:
            fence = _FENCE_ONLY.match(line)
            if fence:
                # A fence line stays, bare: recognisers end a run at it.
                fence_indent = len(fence.group("indent")) if fence_indent < 0 else -1
                lines.append(fence.group("mark")[:3])
                origin.append(n)
                continue
            line = _FENCE_OPEN_GLUED.sub("", line, count=1)
            line = _FENCE_CLOSE_GLUED.sub("", line, count=1)
            first = line[:1]
        if fence_indent > 0 and first == " ":
            # CommonMark: a fenced block's lines lose up to the fence's own indentation (a list item's).
            drop = len(line) - len(line.lstrip(" "))
            line = line[min(drop, fence_indent):]
            first = line[:1]
        if line[-1:] in _GAP_LAST and is_gap_line(line):  # its own first test, without the call (a line a log)
            gaps.append(n)
            continue
        if first in ("$", "#") or line.find("@", 0, 64) >= 0:
            cmd = strip_prompt_line(line)
            if cmd is not None:
                line = cmd
        lines.append(line)
        origin.append(n)
    return PasteView(lines, origin, gaps, len(raw))
