"""Telling commands from prose in the unknown results' hints, for the "run next" list.

Fixes are data (stackaudit.fixes: their commands are given, not found). Hints are still prose, with
the commands in backticks (`paste `sudo lspci -vvv``) or, for a hint that is one command, the whole
text. A span is a command when its first word is a program (or `sudo` and one); flags and config
lines in backticks stay inline code in the prose.
"""

from __future__ import annotations

import re

# The programs fix texts and hints name. A span whose first word is one of these is a command line.
PROGRAMS = frozenset({
    "apt", "apt-get", "cat", "command", "cpupower", "df", "dmesg", "dnf", "docker", "echo", "env", "for", "grep",
    "grubby", "ibv_devinfo", "ip", "journalctl", "kubectl", "ls", "lsmod", "lscpu", "lspci", "lxc-attach",
    "modinfo", "modprobe", "mount", "numactl", "nvbandwidth", "nvidia-ctk", "nvidia-smi", "p2pBandwidthLatencyTest",
    "pct", "pip", "powerprofilesctl", "prlimit", "python", "python3", "rm", "setpci", "stackaudit", "swapoff",
    "sysctl", "systemctl", "systemd-detect-virt", "taskset", "tee", "tuned-adm", "ulimit", "uname",
    "update-grub", "update-initramfs", "yum",
})
# stackaudit's own subcommands, named bare in some source titles (`audit --sample`).
_OWN_SUBCOMMANDS = frozenset({"audit", "capture", "ceiling", "bench"})


def as_command(span: str) -> str | None:
    """The command line a backticked span (or a whole fix text) is, or None when it is not one."""
    text = span.strip()
    words = text.split()
    if not words:
        return None
    first = words[1] if words[0] == "sudo" and len(words) > 1 else words[0]
    if first in _OWN_SUBCOMMANDS and words[0] != "sudo":
        return f"stackaudit {text}"
    if first in PROGRAMS or (first.startswith("/") and first.rsplit("/", 1)[-1] in PROGRAMS):
        return text
    return None


def backtick_spans(text: str) -> list[str]:
    """The `backticked` spans of a text, in order (none when the backticks are unbalanced)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return []
    return [p for i, p in enumerate(parts) if i % 2 and p.strip()]


def commands_in(text: str) -> list[str]:
    """The command lines a text names: its command spans, or the whole text when it is one command."""
    spans = backtick_spans(text)
    if spans:
        return [c for c in (as_command(s) for s in spans) if c]
    if "`" in text:
        return []
    whole = as_command(_without_trailing_remark(text))
    return [whole] if whole and not _clauses(text)[1:] else []


def _clauses(text: str) -> list[str]:
    """Split on `; ` outside parentheses and quotes."""
    out: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"" and (i == 0 or not text[i - 1].isalnum()):
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and (sep := _separator_at(text, i)):
            out.append(text[start:i].strip())
            start = i + len(sep)
            i = start
            continue
        i += 1
    out.append(text[start:].strip())
    return [c for c in out if c]


_SEPARATORS = ("; ", ", then ", ", or ")


def _separator_at(text: str, i: int) -> str:
    return next((sep for sep in _SEPARATORS if text.startswith(sep, i)), "")


# Words after which a clause that starts with a program goes on in prose (`swapoff -a if RAM allows`).
_PROSE_TAIL = re.compile(r"\s+(?:if|on each|only|unless|when|in the)\s.*$")

_TRAILING_REMARK = re.compile(r"\s+\((?:[^()]|\([^()]*\))*\)\s*$")


def _without_trailing_remark(text: str) -> str:
    """`cpupower idle-set -D 100 (disables …)` -> `cpupower idle-set -D 100`; `swapoff -a if …` -> `swapoff -a`."""
    return _PROSE_TAIL.sub("", _TRAILING_REMARK.sub("", text)).strip()
