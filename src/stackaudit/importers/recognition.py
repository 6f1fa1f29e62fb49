"""The recognition loop: every registered importer (importers/registry.py) over a pasted text, the
longest span kept where claims overlap, a second host's spans set aside, each span recorded with its
provenance.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import os
import pickle
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

from stackaudit.errors import InputError
from stackaudit.facts._parse import LINE_LOOK_CHARS
from stackaudit.facts.shown_commands import listing_command, parse_grep, shows_part
from stackaudit.facts.sources import (
    LISTING_GREPS,
    LOG_LINE_HOSTS,
    LOG_LINE_PROGRAMS,
    PROMPT_ENVS,
    PROMPT_HOSTS,
)
from stackaudit.host.memory import HostRecord, join_provenance
from stackaudit.host.source import Provenance, doc_key
from stackaudit.importers import _hosts, _paste
from stackaudit.importers._paste import looks_like_command
from stackaudit.importers._scan import Candidates
from stackaudit.importers.registry import (
    FALLBACK,
    IMPORTERS,
    Found,
    ImporterSpec,
    document_appended,
    recognised_kinds,
    tracked_record,
    untrack,
)

# The needle gate (`needles=`). Off, every recogniser reads every line as it would without needles: only
# the test that the gate changes nothing (tests/test_importer_needles.py) turns it off.
GATED = True


# Lines per piece of the needle scan: the text is encoded and lowercased a piece at a time, so the scan
# holds a few MB more than the lines, not another copy of a 50 MB paste.
_SCAN_LINES = 20_000


# A piece at most this long (bytes) is searched for each needle whole, not through its distinct words.
_SMALL_PIECE = 16_384


@lru_cache(maxsize=8)
def _encoded(needles: tuple[str, ...]) -> list[tuple[str, bytes, list[bytes]]]:
    """Each needle, its bytes, and its runs between spaces: each run stands inside one word of the text
    where the needle stands. The registry's needles are the same every call: encoded once."""
    return [(n, n.encode(), [p for p in n.encode().split() if p]) for n in needles]


def needle_lines(lines: list[str], needles: Sequence[str]) -> dict[str, array[int] | None]:
    """For each needle (lowercase), the ascending indices of the lines holding it, case ignored as ASCII
    does (bytes.lower on the UTF-8 text: an ASCII needle is found whatever the case of its letters).

    A piece of lines at a time, each needle: ruled out where one of its words is in none of the piece's
    words; else bytes.find from hit to hit (C), the hit's line by bisection in the line ends, then on from
    the next line: a Python step per line holding it, none per line that does not. A needle on many lines
    (a `[` in a kernel log) switches to testing each remaining line, cheaper than a find per hit. A needle
    on more than half the lines maps to None: no recogniser jumps on it, and its lines are not kept. Only a
    line's first LINE_LOOK_CHARS are searched."""
    # Line indices 4 bytes each in an array("i") (a paste is under 2**31 lines), where a list of ints costs
    # 36 a line (a `[` on every line of a 50 MB log).
    out: dict[str, array[int] | None] = {n: array("i") for n in needles}
    half = len(lines) // 2
    encoded = _encoded(tuple(needles))
    for base in range(0, len(lines), _SCAN_LINES):
        chunk = lines[base:base + _SCAN_LINES]
        if max(map(len, chunk)) > LINE_LOOK_CHARS:  # a hostile line: its first part read, not 600 passes of 10 MB
            chunk = [line[:LINE_LOOK_CHARS] for line in chunk]
        piece = "\n".join(chunk).encode("utf-8", "replace").lower()
        # The piece's distinct words: a long log repeats its words, so a needle that is not there (most are
        # not) is ruled out by a search of this, a fraction of the piece, instead of the whole. A short piece
        # is searched whole: as cheap as its words, and a needle not in it is ruled out in one test.
        if len(piece) <= _SMALL_PIECE:
            present = [e for e in encoded if e[1] in piece]
        else:
            words = b" ".join(set(piece.split()))
            present = [e for e in encoded if all(run in words for run in e[2])]
        lengths = map(len, chunk) if len(piece) == sum(map(len, chunk)) + len(chunk) - 1 else (
            len(line.encode("utf-8", "replace")) for line in chunk)
        # ends[k]: where line k's "\n" stands in the piece (the piece's end for its last line).
        ends = list(map(operator.add, itertools.accumulate(lengths), itertools.count()))
        find = piece.find
        # A find, a bisection and an append per hit cost about five tests of a line.
        limit = max(len(chunk) // 5, 64)
        split: list[bytes] | None = None
        for needle, raw, _runs in present:
            hits = out[needle]
            if hits is None:
                continue
            at = find(raw)
            if at < 0:
                continue
            seen = 0
            while at >= 0:
                k = bisect.bisect_left(ends, at)
                hits.append(base + k)
                seen += 1
                if seen > limit:
                    split = piece.split(b"\n") if split is None else split
                    hits.extend([base + j for j in range(k + 1, len(chunk)) if raw in split[j]])
                    break
                at = find(raw, ends[k] + 1)
            if len(hits) > half:
                out[needle] = None
    return out


# Per gated recogniser: its candidate lines, ascending; None where they are most lines (it reads every line).
_Hits = dict[str, "array[int] | None"]


def _candidates(lines: list[str], specs: list[ImporterSpec]) -> _Hits:
    """Each gated recogniser's candidate lines: those holding one of its needles."""
    gated = [s for s in specs if s.needles]
    if not GATED or not gated:
        return {}
    found = needle_lines(lines, sorted({n for s in gated for n in s.needles}))
    out: _Hits = {}
    half = len(lines) // 2
    for spec in gated:
        mine = [found[n] for n in spec.needles]
        hits = [h for h in mine if h]
        if any(h is None for h in mine):
            out[spec.kind] = None  # one of its needles is on most lines
        elif not hits:
            out[spec.kind] = array("i")
        elif max(map(len, hits)) > half:
            out[spec.kind] = None  # candidates on most lines save less than the jump to each costs
        elif len(hits) == 1:
            out[spec.kind] = hits[0]
        else:
            union = array("i", sorted(set().union(*hits)))
            out[spec.kind] = union if len(union) <= half else None
    return out


def _call(spec: ImporterSpec, lines: list[str], candidates: _Hits, offset: int = 0) -> list[Found]:
    """The spec's spans over `lines` (`lines[offset:]` of the text `candidates` were found in)."""
    if spec.kind not in candidates:
        return list(spec.func(lines))  # ungated: every line
    mine = candidates[spec.kind]
    if mine is None:
        return list(spec.func(lines))  # its needles are on most lines
    if not mine or mine[-1] < offset:
        return []  # none of its needles: it could accept nothing
    if spec.per_line and (len(mine) - bisect.bisect_left(mine, offset)) * 2 <= len(lines):
        return list(spec.func(lines, candidates=Candidates(mine, len(lines), offset)))
    return list(spec.func(lines))


def _stamp(record: HostRecord, found: Found, touched: list[str], file_name: str,
           kind_keys: dict[str, list[str]]) -> None:
    """Record where the keys this span wrote came from; a span that only adds to an earlier one's
    recording (scattered log lines) widens that one's lines."""
    changed = list(dict.fromkeys(touched)) or kind_keys.get(found.kind, [])
    known = kind_keys.setdefault(found.kind, [])
    prov = Provenance(found.kind, "pasted", found.whole, file_name, (found.start + 1, found.end))
    for key in changed:
        if key not in known:
            known.append(key)
        old = record.provenance.get(key)
        record.provenance[key] = prov if old is None else join_provenance(old, prov)


@dataclass
class ImportResult:
    record: HostRecord
    recognised: list[tuple[str, int, int]] = field(default_factory=list)
    # Spans of another host in the same paste, left out of the record: "KIND (lines a-b): another host (NAME)".
    set_aside: list[str] = field(default_factory=list)


def strip_header(text: str) -> str:
    """Drop the `# ...` header of the shared captures (ends at `# ----- end of header`)."""
    marker = "# ----- end of header"
    idx = text.find(marker)
    # `\s*#` rather than text.lstrip(): a 50 MB paste that starts with a blank line is not copied to ask.
    if idx >= 0 and re.match(r"\s*#", text):
        nl = text.find("\n", idx)
        return text[nl + 1:] if nl >= 0 else ""
    return text


# A paste this long is read on two cores: a forked helper runs the importers slowest per line.
PARALLEL_MIN_LINES = 100_000
# About half the per-line cost on a long log (perf/paste_size.py, importer by importer).
_HELPER_KINDS = frozenset({"server log", "nvidia-smi topo -m", "nvidia-smi topo -p2p", "nvidia-smi nvlink -s",
                           "lsmod", "/proc/cmdline"})

_Spans = dict[str, tuple[list[Found], list[Found]]]


def _run_specs(lines: list[str], specs: list[ImporterSpec], candidates: _Hits) -> _Spans:
    out: _Spans = {}
    for spec in specs:
        try:
            found = _call(spec, lines, candidates)
        except (ValueError, IndexError, KeyError):
            # An importer that trips on odd input recognises nothing there; the others go on.
            continue
        probes = (_probe(spec, lines, max(f.end for f in found), candidates)
                  if spec.kind in _hosts.PROBED_KINDS and found else [])
        out[spec.kind] = (found, probes)
    return out


class _Pending:
    """A forked child running some importers; `collect` waits for its spans (None if it failed)."""

    def __init__(self, pid: int, read_fd: int) -> None:
        self.pid, self.read_fd = pid, read_fd

    def collect(self) -> _Spans | None:
        with os.fdopen(self.read_fd, "rb") as inp:
            data = inp.read()
        os.waitpid(self.pid, 0)
        try:
            spans = pickle.loads(data) if data else None
        except Exception:
            return None
        return spans if isinstance(spans, dict) else None


def _run_forked(lines: list[str], specs: list[ImporterSpec], candidates: _Hits) -> _Pending | None:
    """Start `specs` in a forked child (the lines are shared copy-on-write); None where there is no fork."""
    if not hasattr(os, "fork"):
        return None
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the spans back pickled, and leave without any cleanup of the parent's
        try:
            os.close(read_fd)
            try:
                data = pickle.dumps(_run_specs(lines, specs, candidates), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:
                data = b""
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        finally:
            os._exit(0)
    os.close(write_fd)
    return _Pending(pid, read_fd)


def _run_importers(lines: list[str]) -> tuple[list[Found], list[Found]]:
    """Every importer's spans over the lines, in the table's order; and, for the kinds that stop at their
    first match, the later matches (probes: compared for a second host, never recorded)."""
    specs = list(IMPORTERS.values())
    hits = _candidates(lines, specs)
    spans: _Spans = {}
    if len(lines) >= PARALLEL_MIN_LINES:
        helper = [s for s in specs if s.kind in _HELPER_KINDS]
        pending = _run_forked(lines, helper, hits)
        if pending is not None:
            spans.update(_run_specs(lines, [s for s in specs if s.kind not in _HELPER_KINDS], hits))
            theirs = pending.collect()
            spans.update(theirs if theirs is not None else _run_specs(lines, helper, hits))
    if not spans:
        spans = _run_specs(lines, specs, hits)
    candidates: list[Found] = []
    probes: list[Found] = []
    for spec in specs:
        found, more = spans.get(spec.kind, ([], []))
        candidates.extend(found)
        probes.extend(more)
    return candidates, probes


def _probe(spec: ImporterSpec, lines: list[str], offset: int, candidates: _Hits) -> list[Found]:
    out: list[Found] = []
    for _ in range(_hosts.MAX_PROBES):
        if offset >= len(lines):
            break
        try:
            more = _call(spec, lines[offset:], candidates, offset)
        except (ValueError, IndexError, KeyError):
            break
        if not more:
            break
        shifted = [replace(f, start=f.start + offset, end=f.end + offset) for f in more]
        out.extend(shifted)
        offset = max(f.end for f in shifted)
    return out


def _select(candidates: list[Found], n_lines: int) -> list[Found]:
    """Overlapping claims go to the longest span (ties: the earliest), a fallback kind's last. Linear in the lines claimed: a
    line map, not a rescan of what was taken, so a log of a million lines is taken in one pass."""
    # Two stable sorts with one int key each: a tuple key per span would cost a tuple per log line.
    candidates.sort(key=lambda f: f.start)
    candidates.sort(key=lambda f: f.start - f.end)
    if FALLBACK:
        candidates.sort(key=lambda f: f.kind in FALLBACK)  # stable: each group stays longest first
    occupied = bytearray(max(n_lines, 1) + 1)
    taken: list[Found] = []
    for cand in candidates:
        s, e = max(cand.start, 0), min(cand.end, n_lines)
        if e <= s:
            continue
        shared = cand.kind == "_shared"
        if occupied.find(1, s, e) >= 0 or (not shared and occupied.find(2, s, e) >= 0):
            continue
        occupied[s:e] = (b"\x02" if shared else b"\x01") * (e - s)
        taken.append(cand)
    taken.sort(key=lambda f: f.start)
    return taken


def _under_part_commands(taken: list[Found], lines: list[str]) -> list[Found]:
    """An output under a shown command that prints part of its source (`dmesg | head`, `lsmod | grep nvidia`,
    `lspci -s 01:00.0`: facts/shown_commands.shows_part) is an excerpt, whatever its own lines look like.

    A command shown (on a prompt, in a fence, or quoted in prose) covers every output after it up to the
    next command: a kernel log is one output however many spans other kinds cut it into. Only the lines
    between spans are read."""
    if not any(f.whole for f in taken):
        return taken
    part = False
    pos = 0
    cut: set[int] = set()  # positions in `taken` of whole spans under such a command
    for n in sorted(range(len(taken)), key=lambda n: taken[n].start):
        f = taken[n]
        for line in lines[pos:f.start]:
            if shows_part(line.strip()):
                part = True
            elif looks_like_command(line):
                part = False
        pos = max(pos, f.end)
        if part and f.whole:
            cut.add(n)
    return [replace(f, whole=False) if n in cut else f for n, f in enumerate(taken)] if cut else taken


def _apply_both(record: HostRecord, first: Callable[[HostRecord], None], then: Callable[[HostRecord], None]) -> None:
    first(record)
    then(record)


# A shown command line is short: a longer line above an output is a log's, not a grep.
_COMMAND_MAX = 512


def _listing_greps(taken: list[Found], lines: list[str]) -> dict[int, str]:
    """The outputs right under a grep of a whole listing of their kind (`sudo lspci -vvv | grep ACSCtl`, only blank
    lines or a fence between): {position in `taken`: the command}. Such an output is every line of that listing the
    pattern matches, unless the user cut lines out of it (a gap: `recognise` leaves those out)."""
    out: dict[int, str] = {}
    for n, f in enumerate(taken):
        above = next((lines[k].strip() for k in range(f.start - 1, -1, -1)
                      if lines[k].strip() and not lines[k].strip().startswith(("```", "~~~"))), "")
        above = listing_command(above)
        grep = parse_grep(above, listing=True) if "grep" in above and len(above) <= _COMMAND_MAX else None
        if grep is not None and grep.source == f.kind:
            out[n] = grep.command
    return out


def _with_listing_grep(f: Found, command: str) -> Found:
    """`f`, recording also the grep it is the whole output of under LISTING_GREPS (facts/shown_commands)."""
    return replace(f, apply=partial(_apply_both, first=f.apply,
                                    then=document_appended(LISTING_GREPS.name, command + "\n")))


def _to_file(taken: list[Found], paste: _paste.PasteView) -> list[Found]:
    """The spans in the user's file's lines (`PasteView.span`, inlined: one per log line adds up)."""
    origin = paste.origin
    if not origin:
        return [Found(f.kind, 0, 0, f.apply, f.whole) for f in taken]
    last = len(origin) - 1
    out: list[Found] = []
    for f in taken:
        start = min(max(f.start, 0), last)
        out.append(Found(f.kind, origin[start], origin[min(max(f.end - 1, start), last)] + 1, f.apply, f.whole))
    return out


def _gapped_kinds(taken: list[Found], gaps: list[int]) -> set[str]:
    """Kinds with a gap line inside one of their spans, or between two of their spans with nothing
    else between: what the user cut out was part of that output, so it is an excerpt."""
    if not gaps:
        return set()
    kinds: set[str] = set()
    for f in taken:
        i = bisect.bisect_left(gaps, f.start)
        if i < len(gaps) and gaps[i] < f.end:
            kinds.add(f.kind)
    gap_set = set(gaps)
    by_end: dict[int, set[str]] = {}
    for f in taken:
        by_end.setdefault(f.end, set()).add(f.kind)
    for f in taken:
        j = f.start - 1
        while j >= 0 and j in gap_set:
            j -= 1
        if j < f.start - 1 and f.kind in by_end.get(j + 1, set()):
            kinds.add(f.kind)
    return kinds


def _cut_at_end(taken: list[Found], paste: _paste.PasteView) -> set[str]:
    """The kind of the output the paste ends in, where that output lies in a fenced block that never closes
    (`PasteView.open_fence`): the block goes on past the paste's end, so the output is cut there, like one with a gap
    line in it (a copy cut off, a comment cut short: `dmesg | grep` output ending in `NVRM: iovas`)."""
    if paste.open_fence < 0 or not taken:
        return set()
    last = max(taken, key=lambda f: f.end)
    tail = next((k for k in range(len(paste.lines) - 1, -1, -1) if paste.lines[k].strip()), -1)
    return {last.kind} if last.start > paste.open_fence and last.end > tail else set()


def _recorded_cut(taken: list[Found], cut: set[str]) -> list[Found]:
    """`taken` with the output the paste cuts at its end (`_cut_at_end`) recorded by its `Found.cut`, where it has
    one: a container spec marked cut, so that its reader concludes nothing from what the cut left out."""
    if not cut:
        return taken
    n = max(range(len(taken)), key=lambda k: taken[k].end)
    last = taken[n]
    if last.kind not in cut or last.cut is None:
        return taken
    return [*taken[:n], replace(last, apply=last.cut), *taken[n + 1:]]


def _split_hosts(taken: list[Found], probes: list[Found], paste: _paste.PasteView,
                 profile: _hosts.HostProfile) -> dict[int, str]:
    """Which taken spans (by index) and probes (by -1 - index) show another host, and its name."""
    occupied = bytearray(len(paste.lines) + 1)
    for f in taken:
        occupied[f.start:f.end] = b"\x01" * (f.end - f.start)
    # Every taken span counts (one without an identity belongs to the host whose part it lies in); the
    # few probes are merged in by position (taken is already in order: no list of every span to sort).
    extra = sorted(((p.start, -1 - n) for n, p in enumerate(probes) if occupied.find(1, p.start, p.end) < 0))

    def in_order() -> Iterator[tuple[int, Found]]:
        j = 0
        for n, f in enumerate(taken):
            while j < len(extra) and extra[j][0] < f.start:
                yield extra[j][1], probes[-1 - extra[j][1]]
                j += 1
            yield n, f
        for _, key in extra[j:]:
            yield key, probes[-1 - key]

    splitter = _hosts.HostSplitter(profile)
    other: dict[int, str] = {}
    for key, f in in_order():
        hosts = paste.hosts
        ident = _hosts.identity(f.kind, paste.lines[f.start:f.end],
                                (hosts[i] for i in range(f.start, f.end) if i in hosts) if hosts else ())
        if key < 0 and not ident:
            continue
        name = splitter.assign(ident)
        if name:
            other[key] = name
    return other


def _set_aside_lines(taken: list[Found], probes: list[Found], other: dict[int, str],
                     paste: _paste.PasteView, line_offset: int) -> list[str]:
    entries: list[tuple[str, int, int, str]] = []
    for key, name in sorted(other.items(), key=lambda kv: (taken[kv[0]] if kv[0] >= 0 else probes[-1 - kv[0]]).start):
        f = taken[key] if key >= 0 else probes[-1 - key]
        a, b = paste.span(f.start, f.end)
        a, b = a + 1 + line_offset, b + line_offset
        last = entries[-1] if entries else None
        if last is not None and last[0] == f.kind and last[3] == name and a - last[2] <= 1:
            entries[-1] = (f.kind, last[1], b, name)
        else:
            entries.append((f.kind, a, b, name))
    return [f"{kind} (lines {a}-{b}): another host ({name})" for kind, a, b, name in entries]


def recognise(text: str, file_name: str = "", profile: _hosts.HostProfile | None = None,
              line_offset: int = 0) -> ImportResult:
    """Run every importer over the text; overlapping claims go to the longest span.

    The text is read through its markup (`_paste.view`: fences, quotes, prompts, gap lines); spans and
    provenance keep the user's line numbers (plus `line_offset`, for a section of a larger file). Spans
    of a second host (`_hosts`) are set aside; `profile` carries the first host across several files.
    """
    return recognise_view(_paste.view(text), file_name, profile, line_offset)


def recognise_view(paste: _paste.PasteView, file_name: str = "", profile: _hosts.HostProfile | None = None,
                   line_offset: int = 0) -> ImportResult:
    """`recognise` on a text already peeled (the caller may drop the text: its lines are all that is read)."""
    from stackaudit import importers

    importers.import_all()
    lines = paste.lines
    candidates, probes = _run_importers(lines)
    taken = _select(candidates, len(lines))
    other = _split_hosts(taken, probes, paste, profile if profile is not None else _hosts.HostProfile())
    set_aside: list[str] = []
    if other:
        set_aside = _set_aside_lines(taken, probes, other, paste, line_offset)
        blanked = list(lines)
        for key in other:
            if key >= 0:
                f = taken[key]
                blanked[f.start:f.end] = [""] * (f.end - f.start)
        lines = blanked
        paste = replace(paste, lines=blanked)
        taken = _select(_run_importers(blanked)[0], len(blanked))
    taken = _under_part_commands(taken, lines)
    listed = _listing_greps(taken, lines)
    cut = _cut_at_end(taken, paste)
    taken = _to_file(_recorded_cut(taken, cut), paste)
    gapped = _gapped_kinds(taken, paste.gaps) | cut
    taken = [_with_listing_grep(f, listed[n]) if n in listed and f.kind not in gapped else f
             for n, f in enumerate(taken)]
    if gapped or line_offset:
        taken = [Found(f.kind, f.start + line_offset, f.end + line_offset, f.apply, f.whole and f.kind not in gapped)
                 for f in taken]
    touched: list[str] = []
    record = tracked_record(touched)
    result = ImportResult(record, set_aside=set_aside)
    kind_keys: dict[str, list[str]] = {}
    # A run of spans that wrote nothing of their own (the later lines of a scattered kernel log) is
    # stamped once, from its first line to its last: what joining each in turn would give.
    run: list[Found] = []

    def stamp_run() -> None:
        if run:
            first = run[0]
            _stamp(record, Found(first.kind, first.start, run[-1].end, first.apply, first.whole), [], file_name,
                   kind_keys)
            run.clear()

    for found in taken:
        touched.clear()
        found.apply(record)
        if touched:
            stamp_run()
            _stamp(record, found, touched, file_name, kind_keys)
        elif run and (run[0].kind != found.kind or run[0].whole != found.whole):
            stamp_run()
            run.append(found)
        else:
            run.append(found)
        last = result.recognised[-1] if result.recognised else None
        if last is not None and last[0] == found.kind and last[2] == found.start:
            result.recognised[-1] = (found.kind, last[1], found.end)  # adjacent lines of one output: one span
        else:
            result.recognised.append((found.kind, found.start + 1, found.end))
    stamp_run()
    _record_prefix_hosts(record, paste, lines, result, file_name, line_offset)
    untrack(record)
    if set_aside:
        record.meta["set_aside"] = list(set_aside)
    return result


def _record_prefix_hosts(record: HostRecord, paste: _paste.PasteView, lines: list[str], result: ImportResult,
                         file_name: str, line_offset: int) -> None:
    """The host names the log prefixes of the lines kept gave (not another host's, set aside), in order, and the
    programs their journal tags named (a tag without a time or host names a program alone); the hosts the shell
    prompts of the lines kept named, each with its command."""
    prompts = [i for i in sorted(paste.prompt_hosts) if lines[i]] if result.recognised else []
    if prompts:
        a, b = paste.span(prompts[0], prompts[-1] + 1)
        record.docs[PROMPT_HOSTS.name] = record.docs.get(PROMPT_HOSTS.name, "") + "".join(
            f"{paste.prompt_hosts[i]}\t{(_paste.strip_prompt_line(lines[i]) or lines[i]).strip()}\n" for i in prompts)
        record.provenance[doc_key(PROMPT_HOSTS.name)] = Provenance("shell prompts", "pasted", False, file_name,
                                                                    (a + 1 + line_offset, b + line_offset))
        if envs := [i for i in prompts if i in paste.prompt_envs]:
            # env, user, the prompt's host, then a home directory's prompt where it is one (`~/tabbyAPI$`).
            record.docs[PROMPT_ENVS.name] = record.docs.get(PROMPT_ENVS.name, "") + "".join(
                "\t".join([*paste.prompt_envs[i].split("\t")[:2], paste.prompt_hosts[i],
                           *paste.prompt_envs[i].split("\t")[2:]]) + "\n" for i in envs)
            record.provenance[doc_key(PROMPT_ENVS.name)] = Provenance("shell prompts' environments", "pasted", False,
                                                                       file_name, (a + 1 + line_offset, b + line_offset))
    kept = [i for i in sorted({*paste.hosts, *paste.programs}) if lines[i]] if result.recognised else []
    if not kept:
        return
    a, b = paste.span(kept[0], kept[-1] + 1)
    prov = Provenance("log line prefixes", "pasted", False, file_name, (a + 1 + line_offset, b + line_offset))
    if hosts := [paste.hosts[i] for i in kept if i in paste.hosts]:
        record.docs[LOG_LINE_HOSTS.name] = "".join(f"{h}\n" for h in dict.fromkeys(hosts))
        record.provenance[doc_key(LOG_LINE_HOSTS.name)] = prov
    programs = [paste.programs[i] for i in kept if i in paste.programs]
    if programs:
        record.docs[LOG_LINE_PROGRAMS.name] = "".join(f"{p}\n" for p in dict.fromkeys(programs))
        record.provenance[doc_key(LOG_LINE_PROGRAMS.name)] = replace(prov, source="journal / syslog program tags")


def nothing_recognisable(name: str) -> InputError:
    """The one-line error for a text in which no importer found anything."""
    return InputError(f"{name}: nothing recognisable; recognised kinds: {', '.join(recognised_kinds())}")
