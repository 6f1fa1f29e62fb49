"""Where in a pasted file the line a finding quotes stands, so that its citation names that line and the kind of
output it lies in, not the first source the check read (corpus 1567: the quote is line 2, an evidence line, while the
check read the engine command on line 1 first).

A quote is found in the spans the result's own pasted provenance names: the line that holds it, or the run of
adjacent lines it joins (`journalctl -b -u UNIT: -- No entries --` from a prompt line and the answer under it, corpus
1586). The result's provenance then starts with the span that holds it narrowed to those lines; the span it came from
stays after it (the facts were read from all of it).

A "server log" span whose lines are NCCL's (an nccl-tests or training job's `NCCL INFO` lines, under mpirun's
`[1,9]<stdout>:` tags; corpus 1580) is cited as the NCCL log it is: no serving engine wrote it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import replace

from stackaudit.engine.results import Result
from stackaudit.host.source import Provenance

# A line shorter than this, stripped, is no evidence that a joined quote holds it (`--`, `}`).
_MIN_PIECE = 6

# The longest span searched for a quote joined from adjacent lines (a command continued over lines, a prompt and
# its answer); a log longer than this is searched for whole lines only.
_MAX_JOINED_SPAN = 5000

# The kernel's virtual file systems: no pasted file lives there.
_VIRTUAL_FS = ("/proc", "/sys", "/dev")

SERVER_LOG = "server log"
NCCL_LOG = "NCCL log"


def cite_quoted_lines(results: list[Result], paths: list[str]) -> list[Result]:
    """`results` with each quoted line's span first in its provenance, where a pasted file of `paths` shows it."""
    files: dict[str, list[str] | None] = {}
    by_name = {os.path.basename(p.strip().rstrip("/")): p.strip() for p in paths if p.strip()}

    def lines_of(name: str) -> list[str] | None:
        if name not in files:
            files[name] = _read_lines(by_name[name]) if name in by_name else None
        return files[name]

    runs: dict[tuple[str, tuple[int, int]], bool] = {}  # each span read once, however many results cite it

    def nccl(p: Provenance) -> bool:
        if p.source != SERVER_LOG or p.origin != "pasted" or p.lines is None:
            return False
        if (p.file, p.lines) not in runs:
            runs[(p.file, p.lines)] = _nccl_run(lines_of(p.file), p.lines)
        return runs[(p.file, p.lines)]

    return [_cited(_nccl_named(r, nccl), lines_of) for r in results]


def _nccl_named(r: Result, nccl: Callable[[Provenance], bool]) -> Result:
    """`r` with each pasted server-log span that is an NCCL log named so."""
    named = tuple(replace(p, source=NCCL_LOG) if nccl(p) else p for p in r.provenance)
    return r if named == r.provenance else replace(r, provenance=tuple(dict.fromkeys(named)))


def _nccl_run(lines: list[str] | None, span: tuple[int, int]) -> bool:
    """Whether the lines of `span` are an NCCL log: each an NCCL line or an MPI rank's (an elision `...` aside),
    at least half of them NCCL's."""
    from stackaudit.facts.serving_logs import MPI_TAG, NCCL_LINE

    # Open MPI's `--tag-output` prefix on a line (`[1,9]<stdout>:`): a rank of an MPI job wrote it.
    mpi = re.compile(rf"^\s*{MPI_TAG}")
    shown = [x for x in (lines or [])[span[0] - 1:span[1]] if x.strip() and x.strip().strip(".…")]
    nccl = [x for x in shown if NCCL_LINE.search(x)]
    return bool(shown) and 2 * len(nccl) >= len(shown) and all(NCCL_LINE.search(x) or mpi.match(x) for x in shown)


def _read_lines(path: str) -> list[str] | None:
    """The pasted file's lines as the importers numbered them (the corpus header dropped); None for an archive,
    a compressed file or one that cannot be read.

    The path is data where a snapshot's meta.json names it (a paste saved on another machine): only a regular file
    outside the kernel's virtual file systems is read, never followed through a link at its last component, and
    opened without blocking (a /proc or /sys file reports no size and may block a reader: /proc/kmsg)."""
    from stackaudit.importers import _compressed
    from stackaudit.importers._paste import split_lines
    from stackaudit.importers.recognition import strip_header
    from stackaudit.importers.registry import MAX_PASTE_BYTES

    real = os.path.realpath(path)
    if any(real == top or real.startswith(top + "/") for top in _VIRTUAL_FS):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_PASTE_BYTES:
                return None
            data = fh.read(MAX_PASTE_BYTES + 1)
    except OSError:
        return None
    if _compressed.is_compressed(data[:_compressed.MAGIC_BYTES]):
        return None
    # Split as the importers numbered the lines (`\r\r\n` is one line end, `\r` alone one too: _paste.split_lines).
    return split_lines(strip_header(data.decode("utf-8", errors="replace")))


def _cited(r: Result, lines_of: Callable[[str], list[str] | None]) -> Result:
    quote = r.quoted.strip()
    pasted = [p for p in r.provenance if p.origin == "pasted" and p.file and p.lines]
    if not quote or not pasted:
        return r
    # The narrowest span first: the line a block of its own holds (an evidence line) before a log around it.
    for p in sorted(pasted, key=lambda p: (p.lines[1] - p.lines[0]) if p.lines else 0):
        lines = lines_of(p.file)
        if not lines or p.lines is None:
            continue
        at = quote_span(quote, lines, p.lines)
        if at is None:
            continue
        narrowed = replace(p, lines=at)
        if r.provenance and r.provenance[0] == narrowed:
            return r
        return replace(r, provenance=(narrowed, *(q for q in r.provenance if q != narrowed)))
    return r


def quote_span(quote: str, lines: list[str], span: tuple[int, int]) -> tuple[int, int] | None:
    """The 1-based lines within `span` (inclusive) that hold `quote`: one line holding it whole, else the first
    longest run of adjacent lines (each without its shell prompt and a `\\` that continues it) that the quote joins
    (a command continued over lines, corpus 677); None where none does."""
    from stackaudit.importers._scan import strip_prompt

    a, b = max(1, span[0]), min(len(lines), span[1])
    for n in range(a, b + 1):
        if quote in lines[n - 1]:
            return n, n
    best: tuple[int, int] | None = None
    start: int | None = None
    if b - a >= _MAX_JOINED_SPAN:  # a long log's lines are quoted one by one
        return None
    for n in range(a, b + 2):
        piece = strip_prompt(lines[n - 1]).rstrip("\\").strip() if n <= b else ""
        if len(piece) >= _MIN_PIECE and _holds(quote, piece):
            start = n if start is None else start
            continue
        if start is not None and n - 1 > start and (best is None or n - 1 - start > best[1] - best[0]):
            best = (start, n - 1)
        start = None
    return best


def _holds(quote: str, piece: str) -> bool:
    """Whether the quote holds a line's text, its last value hidden as the report hides a secret
    (`--api-key xxx` as `--api-key <redacted>`, host/redact.py) or not."""
    from stackaudit.host.redact import REDACTED

    if piece in quote:
        return True
    if REDACTED not in quote:
        return False
    name, sep, _ = piece.rpartition("=") if "=" in piece else piece.rpartition(" ")
    return bool(sep) and f"{name}{sep}{REDACTED}" in quote
