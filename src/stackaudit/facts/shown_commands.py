"""Commands a paste shows above their output: what part of its source an output is.

People paste the command with its output (`$ lsmod | grep nvidia`, `dmesg | head`). The command says
what the text cannot: a filter in a pipe (`grep`, `head`, `tail`, `sed`, `awk`), a `grep` of a file,
or `lspci -s`/`-d` (one device) prints part of its source, so the output under it is an excerpt
whatever it looks like (`shows_part`). An excerpt never proves that something is absent.

A `grep` of a whole listing (`sudo lspci -vvv | grep ACSCtl`) prints every line of it that matches: the
output under it is every such line of the host, and proves nothing of the lines it filtered out
(`ListingGreps.lists`).

The one exception is a `grep` of a whole source with nothing under it (`lsmod | grep nvidia_peermem`,
then the next command or the end of the block): it proves that no line of that source matches the
pattern, and nothing else (`EmptyGreps.absent`). The whole sources are the loaded-module list
(`lsmod`, /proc/modules), the kernel ring buffer (`dmesg`, `journalctl -k`) and one module's information
(`modinfo nvidia`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeVar

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import Sourced, fact, parser, union
from stackaudit.facts.sources import EMPTY_GREPS, LISTING_GREPS, PATH_TESTS

# A filter in a pipe: what it prints is a part of what it reads.
_FILTER_PIPE = re.compile(r"\|\s*(?:sudo\s+)?(?:grep|egrep|fgrep|zgrep|rg|head|tail|sed|awk|cut)\b")
# A command that reads part of its source on its own: grep of a file, head/tail, lspci of one device.
_PART_COMMAND = re.compile(r"^(?:sudo\s+)?(?:(?:grep|egrep|fgrep|zgrep|rg|head|tail)\s|lspci\b.*\s-[sd]\s*\S)")


def shows_part(command: str) -> bool:
    """Whether a shown command prints only part of its source (a grep, a head, one lspci device)."""
    return bool(_FILTER_PIPE.search(command) or _PART_COMMAND.match(command))


# The whole sources a grep's empty output speaks for: the command before the pipe, by its name, with or without
# its directory (nvidia-bug-report.sh runs `/sbin/modinfo nvidia | grep vermagic`). `modinfo M` prints nothing
# when no module answers to the name M: its empty grep says only that.
_WHOLE_SOURCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("lsmod", re.compile(r"^(?:sudo\s+)?(?:(?:/\S*/)?lsmod|cat\s+/proc/modules)\s*$")),
    ("dmesg", re.compile(r"^(?:sudo\s+)?(?:(?:/\S*/)?dmesg(?:\s+-[-\w]+)*|journalctl\s+(?:-k|--dmesg)(?:\s+-[-\w=]+)*)"
                         r"\s*$")),
    ("modinfo", re.compile(r"^(?:sudo\s+)?(?:/\S*/)?modinfo\s+[\w-]+\s*$")),
)
# Listings whose grep prints every matching line of the host: `lspci -vv`/`-vvv` of every device (a device or
# vendor selected by `-s`/`-d` takes an argument, so it does not match). Its capability lines print only as root, so
# an output that holds them was read as root.
# The kernel log of this boot is one too: `dmesg`, `journalctl -k`, `journalctl -b` (or `-b 0`, `-b -0`; an
# earlier boot's journal says nothing of this one's), whose grep prints every line of this boot it matches.
# `lsmod` (or /proc/modules) is one as well: its grep prints the row of every loaded module the pattern matches.
_LISTINGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("lsmod", _WHOLE_SOURCES[0][1]),
    ("lspci", re.compile(r"^(?:sudo\s+)?(?:/\S*/)?lspci(?:\s+-[-\w]+)*\s+-[nDk]*vv[vnDk]*(?:\s+-[-\w]+)*\s*$")),
    ("dmesg", re.compile(r"^(?:sudo\s+)?(?:(?:/\S*/)?dmesg(?:\s+-[-\w]+)*|journalctl(?:\s+(?:-k|--dmesg|-b(?:\s+-?0)?|"
                         r"--no-pager|-[oa]\s*\w*))+)\s*$")),
)
# nvidia-bug-report.sh's scan of this boot's journal: under "Scanning kernel log files for NVIDIA kernel messages:"
# it prints `  journalctl -b -0:`, then what `journalctl -b -0 | grep -e NVRM -e nvidia- ...` printed (every
# release greps at least `-e NVRM -e nvidia-`: an NVRM line of this boot is there). The grep it stands for.
_BUG_REPORT_SCAN = re.compile(r"^\s*journalctl -b -0:\s*$")
BUG_REPORT_SCAN_GREP = "journalctl -b -0 | grep -E 'NVRM|nvidia-'"


def listing_command(line: str) -> str:
    """The command a line above an output stands for: the bug report's `journalctl -b -0:` header is the grep it
    ran (BUG_REPORT_SCAN_GREP); any other line is itself."""
    return BUG_REPORT_SCAN_GREP if _BUG_REPORT_SCAN.match(line) else line.strip()
# `SOURCE | grep [-i] [-E] [-w] PATTERN` at the end of the command line; -v, -c, -o, -l print lines for no match.
_GREP_TAIL = re.compile(r"^(?P<base>[^|]+?)\s*\|\s*(?:sudo\s+)?(?P<tool>e?grep)(?P<opts>(?:\s+-[iEFw]+)*)\s+"
                        r"(?P<pattern>'[^']+'|\"[^\"]+\"|[^\s'\"|;&<>]+)\s*$")


@dataclass(frozen=True)
class Grep:
    """`lsmod | grep nvidia_peermem` as shown: the whole source it reads and its pattern as Python reads it."""

    source: str  # "lsmod" | "dmesg"
    pattern: str
    ignore_case: bool
    command: str  # as the paste shows it

    def matches(self, line: str) -> bool:
        return re.search(self.pattern, line, re.IGNORECASE if self.ignore_case else 0) is not None


def _python_pattern(pattern: str, extended: bool, fixed: bool) -> str | None:
    """A grep pattern as a Python one: basic regexps take `\\|`, `\\(`, `\\)` for their operators."""
    if fixed:
        return re.escape(pattern)
    if not extended:
        out, i = [], 0
        while i < len(pattern):
            c = pattern[i]
            if c == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "|()+?{}":
                out.append(pattern[i + 1])
                i += 2
                continue
            out.append("\\" + c if c in "|()+?{}" else c)
            i += 1
        pattern = "".join(out)
    try:
        re.compile(pattern)
    except re.error:
        return None
    return pattern


def parse_grep(command: str, listing: bool = False) -> Grep | None:
    """The grep of a whole source a command line is, or None (another command, or a source not whole).
    `listing`: of a whole listing whose output is shown (`_LISTINGS`) instead."""
    m = _GREP_TAIL.match(command.strip())
    if not m:
        return None
    sources = _LISTINGS if listing else _WHOLE_SOURCES
    source = next((name for name, rx in sources if rx.match(m.group("base").strip())), None)
    if source is None:
        return None
    opts = "".join(m.group("opts").split()).replace("-", "")
    pattern = _python_pattern(m.group("pattern").strip("'\""), m.group("tool") == "egrep" or "E" in opts, "F" in opts)
    if pattern is None:
        return None
    if "w" in opts:
        pattern = rf"\b(?:{pattern})\b"
    return Grep(source, pattern, "i" in opts, command.strip())


_G = TypeVar("_G", bound="_ShownGreps")


@dataclass(frozen=True)
class _ShownGreps(Sourced):
    """Greps of whole sources, each shown with all it printed."""

    greps: tuple[Grep, ...] = ()

    def shown(self, source: str, line: str) -> str | None:
        """The shown command that greps `source` for lines like `line`, or None."""
        return next((g.command for g in self.greps if g.source == source and g.matches(line)), None)

    @classmethod
    def union(cls: type[_G], parts: Sequence[_G]) -> _G:
        return cls(tuple(dict.fromkeys(g for p in parts for g in p.greps)))


@dataclass(frozen=True)
class EmptyGreps(_ShownGreps):
    """Greps of whole sources shown with no output under them: `shown` proves `source` holds no line like `line`."""


@dataclass(frozen=True)
class ListingGreps(_ShownGreps):
    """Greps of a whole listing shown with their output (`sudo lspci -vvv | grep ACSCtl`): `shown` names the command
    whose output holds every line of `source` like `line`."""


fact("listing_greps", ListingGreps, union, hint="paste `sudo lspci -vvv | grep ACSCtl` with all it printed")


@parser(LISTING_GREPS, feeds="listing_greps", kind=ListingGreps, rank=10)
def listing_greps(text: str) -> ListingGreps:
    """Greps of a whole listing whose output the paste shows under them, one command a line.

    Input (tests/data/captures/258, the command above its nine ACSCtl lines)::

        sudo lspci -vvv | grep ACSCtl
    """
    greps = tuple(g for line in text.splitlines() if (g := parse_grep(line, listing=True)) is not None)
    if not greps:
        raise ParseError("no grep of a whole listing")
    return ListingGreps(greps)


fact("empty_greps", EmptyGreps, union, hint="paste `lsmod | grep <module>` or `dmesg | grep -i xid` with its output")


@parser(EMPTY_GREPS, feeds="empty_greps", kind=EmptyGreps, rank=10)
def empty_greps(text: str) -> EmptyGreps:
    """Greps shown with nothing under them, one command a line.

    Input (tests/data/captures/231, a grep that printed nothing)::

        ____________________________________________

        /sbin/modinfo nvidia | grep vermagic


        ____________________________________________
    """
    greps = tuple(g for line in text.splitlines() if (g := parse_grep(line)) is not None)
    if not greps:
        raise ParseError("no grep of a whole source")
    return EmptyGreps(greps)


# `test -e PATH && echo YES || echo NO` (`[ -e PATH ]`, `-f`, `-d`), the words in quotes or bare: YES is printed where
# the path exists, NO where it does not (test(1)).
PATH_TEST = re.compile(r"^(?:test\s+-[efd]\s+(?P<path>/\S+)|\[\s+-[efd]\s+(?P<path2>/\S+)\s+\])\s*&&\s*echo\s+"
                       r"(?P<yes>\"[^\"]*\"|'[^']*'|[^|&;\"']+?)\s*\|\|\s*echo\s+(?P<no>\"[^\"]*\"|'[^']*'|[^|&;\"']+?)\s*$")


# `cat` of a module's or a peer-memory client's version file under /sys (`cat /sys/kernel/mm/memory_peers/nv_mem/version`):
# a version number under it is the file there; cat's `No such file or directory` is the file absent (NVIDIA/nccl#1939).
_CAT_VERSION = re.compile(r"^(?:sudo\s+)?cat\s+(?P<path>/sys/\S+/version)\s*$")
_VERSION_PRINTED = re.compile(r"^\d+(?:\.\d+)+\S*$")


def path_test(command: str, printed: str) -> tuple[str, bool] | None:
    """(the path, whether it exists) that a shown `test -e PATH && echo YES || echo NO` and the line it printed say,
    or a `cat` of a /sys version file and the version (or cat's error) under it; None where the command is no such
    test or the line is neither answer."""
    cat = _CAT_VERSION.match(command.strip())
    if cat is not None:
        path, said = cat.group("path"), printed.strip()
        if _VERSION_PRINTED.match(said):
            return path, True
        return (path, False) if said == f"cat: {path}: No such file or directory" else None
    m = PATH_TEST.match(command.strip())
    if m is None:
        return None
    yes, no = (m.group(k).strip().strip("\"'") for k in ("yes", "no"))
    said = printed.strip()
    return (m.group("path") or m.group("path2"), said == yes) if said in (yes, no) and yes != no else None


@dataclass(frozen=True)
class PathTests(Sourced):
    """Paths whose existence a shown shell test settles: (path, exists, the command and its output)."""

    paths: tuple[tuple[str, bool, str], ...] = ()

    def exists(self, path: str) -> tuple[bool, str] | None:
        """Whether `path` exists, with the lines that say so; None where no test shown names it."""
        return next(((there, said) for p, there, said in self.paths if p.rstrip("/") == path.rstrip("/")), None)

    @classmethod
    def union(cls, parts: Sequence[PathTests]) -> PathTests:
        return cls(tuple(dict.fromkeys(t for p in parts for t in p.paths)))


fact("path_tests", PathTests, union, hint=PATH_TESTS.hint)


@parser(PATH_TESTS, feeds="path_tests", kind=PathTests, rank=10)
def path_tests(text: str) -> PathTests:
    """Shell tests of a path, each followed by the line it printed.

    Input (tests/data/captures/963, NVIDIA/nccl-tests#252)::

        test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo "GDR is enabled" || echo "GDR is not enabled"
        GDR is enabled
    """
    lines = text.splitlines()
    found = tuple((t[0], t[1], f"{a.strip()} -> {b.strip()}") for a, b in pairwise(lines)
                  if (t := path_test(a, b)) is not None)
    if not found:
        raise ParseError("no shell test of a path with its output")
    return PathTests(found)


# `journalctl -u UNIT` of this boot (`-b`, `-b 0`, `-b -0`) or of every boot (no `-b`), shown with journalctl's own
# answer for no line: `-- No entries --` (journalctl(1)). The unit wrote nothing to the journal there: it never ran
# (a service logs at least systemd's `Started` line). Another boot's journal (`-b -1`, a boot id) or a time window
# (`--since`) speaks of that part only.
_UNIT_JOURNAL = re.compile(r"^(?:sudo\s+)?journalctl(?P<opts>(?:\s+(?:-b(?:\s+-?0)?|--boot(?:[=\s]+-?0)?|--no-pager|-[exal]+|"
                           r"(?:-u\s*|--unit[=\s]+)(?P<unit>[\w@.-]+)))+)\s*$")
NO_ENTRIES = "-- No entries --"


def empty_unit_journal(command: str, printed: str) -> str | None:
    """The unit whose journal a shown `journalctl -u UNIT` (this boot's or every boot's) answered with `-- No entries
    --`, or None (another command, another boot or window, or lines printed).

    >>> empty_unit_journal("journalctl -b -u nvidia-k8s-device-plugin", "-- No entries --")
    'nvidia-k8s-device-plugin'
    >>> empty_unit_journal("journalctl -b -1 -u nvidia-k8s-device-plugin", "-- No entries --") is None
    True
    """
    m = _UNIT_JOURNAL.match(command.strip())
    if m is None or m.group("unit") is None or printed.strip() != NO_ENTRIES:
        return None
    return m.group("unit")

