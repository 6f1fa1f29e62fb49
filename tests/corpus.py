"""The corpus of real pasted outputs under tests/data/captures/: its header format and a strict parser.

Each file is a verbatim paste from a public GitHub thread, preceded by a header of `# field: value`
lines, in this order (a field may continue on following lines that start with `#` and two spaces):

    # source: https://github.com/OWNER/REPO/issues/N  ("title", where in the thread: body / comment by USER, date)
    # kinds: KIND LINES; KIND LINES; ...        e.g. "nvidia-smi 3-24; topo -m 26-38; dmesg 40-41,47-52"
    # whole: KIND, KIND                          kinds that are complete outputs ("none" if none)
    # machine: one line of what the paste shows (GPUs, CPU, host/container)
    # expect: CHECK-ID STATUS — reason; CHECK-ID STATUS — reason; ...
    # redacted: what was replaced (or "nothing")
    # notes: anything else (cut points)
    # ----- end of header; everything below this line is the capture, verbatim -----

LINES are 1-based line numbers counted from the first line after the end-of-header line, as ranges
`a-b` joined by commas. Expected statuses are written from what the thread shows, before running
the tool. A malformed header raises ValueError naming the file.

An expectation whose reason starts with `[thread]` rests on the thread's prose (its title, the user's
words, a maintainer's answer) rather than on the capture. The tool reads only the capture, so the
paste-only score of a blind batch leaves such expectations out. The tag may stand nowhere else in a reason.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stackaudit.engine.runner import Report
    from stackaudit.host.base import Host
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import ImportResult

CAPTURES_DIR = Path(__file__).resolve().parent / "data" / "captures"

END_OF_HEADER = "# ----- end of header; everything below this line is the capture, verbatim -----"

FIELDS = ("source", "kinds", "whole", "machine", "expect", "redacted", "notes")

# The kinds of pasted output the corpus labels; the names a header may use.
KINDS = (
    "lscpu",
    "collect_env",
    "check_env",
    "sysctl",
    "dmesg",
    "journal",
    "nvidia-smi",
    "nvidia-smi -q",
    "nvidia-smi -q -x",
    "topo -m",
    "topo -p2p",
    "nvlink -s",
    "lspci",
    "lspci -tv",
    "lsmod",
    "nccl-log",
    "vllm-log",
    "sglang-log",
    "ray-log",
    "nccl-tests",
    "docker inspect",
    "docker run",
    "compose",
    "k8s pod",
    # A node's description: `kubectl describe node` (Capacity, Allocatable, Labels), or `kubectl get node -o yaml`.
    "k8s node",
    "lxc config",
    "df",
    "ulimit",
    "/proc/cmdline",
    "numactl -H",
    "uname -a",
    "cpupower",
    "nvidia-bug-report",
    "engine command",
    "systemctl",
    # A service's own log: `journalctl -u ollama`, `ollama serve`, llama-server's or llama.cpp's ggml start-up lines,
    # LocalAI's or KoboldCpp's console.
    "service journal",
    "driver container log",
    "nvidia-smi -q section",
    "dcgmi discovery",
    "dcgmi nvlink",
    "dcgmi diag",
    "hardware summary",
    "benchmark output",
    "empty grep",
    "nvidia-smi --version",
    "nvidia-smi -L",
)

# A check over subjects judged on those an excerpt shows: `K of N GPUs shown`, `K GPU(s) shown` (Coverage.text).
COVERAGE = re.compile(r"\b\d+ (?:of \d+ )?(?:GPU|bridge)s? shown\b")

# Checks that judge one fact of the host, a container or the engine, not a set of subjects (GPUs, links,
# devices): an ok of theirs states no coverage (the blind brief's rule: the one driver against a runtime, a
# kernel setting, a container's setting), and a count of GPUs in their reason describes the host, not a coverage.
HOST_WIDE = frozenset({
    "DRV-CUDA-COMPAT", "DRV-OPEN-MODULE", "DRV-FABRIC-MANAGER", "RT-VERSION-MATRIX", "RT-FLASHINFER",
    "RT-CUDA-GRAPHS", "RT-OMP", "CTR-GPU-ACCESS", "CTR-IPC-ISOLATION", "CTR-SHM-SIZE", "CTR-SECCOMP-NUMA",
    "IC-NCCL-ENV", "IC-NVIDIA-PEERMEM", "KVER-DMABUF", "FW-VM", "FW-IOMMU-MODE", "FW-NUMA-NPS",
})

# Statuses an expectation may name (a check's "error" is a tool failure, never an expectation).
EXPECT_STATUSES = ("issue", "ok", "not-an-issue", "unknown", "not-applicable")

_SOURCE = re.compile(
    r"^(?P<url>https://github\.com/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/"
    r"(?:(?P<kind>issues|discussions|pull)/(?P<number>\d+)(?:#[\w-]+)?"
    r"|blob/[0-9a-f]{7,40}/\S+))"
    r"(?:\s+\((?P<where>.+)\))?$"
)
_FIELD = re.compile(r"^# (?P<name>[a-z]+): ?(?P<value>.*)$")
_CONTINUATION = re.compile(r"^#  +(?P<value>\S.*)$")
_RANGES = re.compile(r"^\d+-\d+(?:,\d+-\d+)*$")
_EXPECT = re.compile(r"^(?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+) (?P<status>[a-z-]+) — (?P<reason>\S.*)$")
THREAD_TAG = "[thread]"


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus file: where it comes from, what it holds (by line range) and what the audit should say."""

    path: Path
    source: str  # the URL as written (may carry a #issuecomment-… anchor)
    thread: str  # OWNER/REPO/issues/N (or the blob path): one thread, whatever comment
    where: str  # title and place in the thread, as the header says
    kinds: dict[str, list[tuple[int, int]]]
    whole: frozenset[str]
    machine: str
    expect: dict[str, tuple[str, str]]
    redacted: str
    notes: str
    body: str
    body_lines: list[str] = field(repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    def coverage(self, check_id: str) -> str:
        """The coverage an expectation's reason states (`1 of 4 GPUs shown`, `2 GPUs shown`), or "": a verdict
        over the subjects an excerpt shows (the coverage rule of issue 28) names it."""
        if check_id in HOST_WIDE:
            return ""
        m = COVERAGE.search(self.expect[check_id][1]) if check_id in self.expect else None
        return m.group(0) if m else ""

    def from_thread(self, check_id: str) -> bool:
        """Whether the expectation rests on the thread's prose, not on the capture (its reason starts `[thread]`)."""
        return self.expect[check_id][1].startswith(THREAD_TAG)

    def lines_of(self, kind: str) -> list[str]:
        """The body lines a kind was labelled with, in order."""
        return [self.body_lines[i - 1] for a, b in self.kinds[kind] for i in range(a, b + 1)]


def _fail(path: Path, why: str) -> ValueError:
    return ValueError(f"{path.name}: malformed corpus header: {why}")


def _split_header(path: Path, text: str) -> tuple[dict[str, str], str]:
    marker_at = text.find("\n" + END_OF_HEADER + "\n")
    if marker_at < 0:
        raise _fail(path, f"no end-of-header line {END_OF_HEADER!r}")
    head, body = text[:marker_at], text[marker_at + len(END_OF_HEADER) + 2:]
    values: dict[str, str] = {}
    order: list[str] = []
    for n, line in enumerate(head.split("\n"), start=1):
        cont = _CONTINUATION.match(line)
        if cont and order:
            values[order[-1]] += " " + cont.group("value").strip()
            continue
        m = _FIELD.match(line)
        if not m:
            raise _fail(path, f"header line {n} is neither '# field: value' nor a '#  ' continuation: {line!r}")
        name = m.group("name")
        if name not in FIELDS:
            raise _fail(path, f"unknown field {name!r} on header line {n}")
        if name in values:
            raise _fail(path, f"field {name!r} given twice")
        order.append(name)
        values[name] = m.group("value").strip()
    if tuple(order) != FIELDS:
        raise _fail(path, f"fields must be exactly {', '.join(FIELDS)} in this order, got {', '.join(order)}")
    for name in FIELDS:
        if not values[name]:
            raise _fail(path, f"field {name!r} is empty")
    return values, body


def _parse_kinds(path: Path, value: str) -> dict[str, list[tuple[int, int]]]:
    kinds: dict[str, list[tuple[int, int]]] = {}
    for item in value.split(";"):
        item = item.strip()
        kind, _, ranges = item.rpartition(" ")
        if not kind or not _RANGES.match(ranges):
            raise _fail(path, f"kinds entry {item!r} is not 'KIND a-b[,c-d...]'")
        if kind not in KINDS:
            raise _fail(path, f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
        if kind in kinds:
            raise _fail(path, f"kind {kind!r} listed twice (join its ranges with commas)")
        spans: list[tuple[int, int]] = []
        for part in ranges.split(","):
            a, b = (int(x) for x in part.split("-"))
            if not 1 <= a <= b:
                raise _fail(path, f"range {part!r} of {kind!r} is not 1 <= a <= b")
            if spans and a <= spans[-1][1]:
                raise _fail(path, f"ranges of {kind!r} must be ascending and disjoint: {ranges!r}")
            spans.append((a, b))
        kinds[kind] = spans
    return kinds


def _parse_whole(path: Path, value: str, kinds: dict[str, list[tuple[int, int]]]) -> frozenset[str]:
    if value == "none":
        return frozenset()
    whole = [w.strip() for w in value.split(",")]
    for kind in whole:
        if kind not in kinds:
            raise _fail(path, f"whole kind {kind!r} is not among the kinds listed")
    return frozenset(whole)


def _parse_expect(path: Path, value: str) -> dict[str, tuple[str, str]]:
    expect: dict[str, tuple[str, str]] = {}
    for item in value.split(";"):
        item = item.strip()
        m = _EXPECT.match(item)
        if not m:
            raise _fail(path, f"expect entry {item!r} is not 'CHECK-ID STATUS — reason'")
        check_id, status = m.group("id"), m.group("status")
        if status not in EXPECT_STATUSES:
            raise _fail(path, f"status {status!r} of {check_id} is not one of {', '.join(EXPECT_STATUSES)}")
        if check_id in expect:
            raise _fail(path, f"{check_id} expected twice")
        if m.group("reason").rfind(THREAD_TAG) > 0:
            raise _fail(path, f"{check_id}: {THREAD_TAG} may only start a reason")
        expect[check_id] = (status, m.group("reason").strip())
    return expect


def parse_header(path: Path) -> CorpusEntry:
    """Parse one corpus file; ValueError (naming the file) when its header breaks the format."""
    text = path.read_text(encoding="utf-8")
    values, body = _split_header(path, text)
    src = _SOURCE.match(values["source"])
    if not src:
        raise _fail(path, f"source {values['source']!r} is not a GitHub thread or blob URL with '(where)'")
    if src.group("where") is None:
        raise _fail(path, "source must say where in the thread, in parentheses after the URL")
    url = src.group("url")
    if src.group("kind"):
        thread = f"{src.group('owner')}/{src.group('repo')}/{src.group('kind')}/{src.group('number')}".lower()
    else:
        thread = url.split("#", 1)[0].lower()
    kinds = _parse_kinds(path, values["kinds"])
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends the last line; it is not one more line
    return CorpusEntry(
        path=path,
        source=url,
        thread=thread,
        where=src.group("where"),
        kinds=kinds,
        whole=_parse_whole(path, values["whole"], kinds),
        machine=values["machine"],
        expect=_parse_expect(path, values["expect"]),
        redacted=values["redacted"],
        notes=values["notes"],
        body=body,
        body_lines=lines,
    )


def corpus_files(directory: Path = CAPTURES_DIR) -> list[Path]:
    return sorted(directory.glob("*.txt"))


def load_corpus(directory: Path = CAPTURES_DIR) -> list[CorpusEntry]:
    """Every corpus file, parsed; the first malformed header raises. A list of its own for each caller; the
    entries (frozen) are parsed once per process, for the dozen test modules that read the corpus at import."""
    return list(_parsed_corpus(directory))


@cache
def _parsed_corpus(directory: Path) -> tuple[CorpusEntry, ...]:
    return tuple(parse_header(p) for p in corpus_files(directory))


# --- helpers the tests share: a corpus file's body, a paste as a host, one fact of a host ----------


def corpus_path(prefix: str, directory: Path = CAPTURES_DIR) -> Path:
    """The corpus file whose name starts with `prefix-` (its number)."""
    return next(directory.glob(f"{prefix}-*.txt"))


def body(prefix: str) -> str:
    """The verbatim capture of a corpus file, without its header."""
    from stackaudit.importers.recognition import strip_header

    return strip_header(corpus_path(prefix).read_text())


def symptom_names(text: str) -> list[str]:
    """The names of the symptoms (facts/symptoms.py) the lines of `text` show, in order."""
    from stackaudit.facts.symptoms import find_symptoms

    return [h.symptom.name for h in find_symptoms(text.splitlines())]


def pasted(text: str) -> MemoryHost:
    """A host from pasted text, as `audit --from` reads it."""
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    return MemoryHost(recognise(text).record)


def fact(host: Host, name: str) -> Any:
    """One fact of a host, collected by the real engine (a value or a Missing)."""
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all

    load_all()
    return Collector(host).results([name])[name]


def audit_capture(path: Path) -> Report | None:
    """A corpus file's report as `audit --from FILE` gives it; None for a paste the tool refuses."""
    return read_capture(path)[0]


def read_capture(path: Path) -> tuple[Report | None, ImportResult]:
    """A corpus file's report as `audit --from FILE` gives it (None: refused), and what was recognised in it, which
    is what `recognise(entry.body, entry.name)` gives (tests/test_paste_transforms.py asserts it)."""
    from stackaudit.engine.runner import run_audit
    from stackaudit.errors import InputError
    from stackaudit.importers._hosts import HostProfile
    from stackaudit.importers.pasted import pasted_host, read_pasted

    [(_, result)] = read = read_pasted(str(path), HostProfile())
    try:
        return run_audit(pasted_host([str(path)], [read])), result
    except InputError:
        return None, result


@cache
def capture_report(prefix: str) -> Report:
    """The report of the corpus file whose name starts with `prefix-`, with the ceiling headline `audit --from FILE`
    prints (cached: several tests read one report)."""
    from stackaudit.cli.audit import headline_ceiling
    from stackaudit.engine.runner import AuditOptions, run_audit
    from stackaudit.importers.pasted import load_pasted

    return run_audit(load_pasted([str(corpus_path(prefix))]), AuditOptions(ceiling=headline_ceiling()))


def capture_result(prefix: str, check: str) -> Any:
    """One check's result in `capture_report(prefix)`."""
    return next(r for r in capture_report(prefix).results if r.id == check)


# How a report lists what was read in its source: `KIND (lines A-B)` (importers/pasted.py).
_RECOGNISED_SPAN = re.compile(r"^(?P<kind>.+) \(lines (?P<a>\d+)-(?P<b>\d+)\)$")


def report_spans(report: Report) -> list[tuple[str, int, int]]:
    """The kinds and lines a corpus file's report says were read, in order: what `recognise(entry.body)` gives
    for that file (the paste reader strips the same header), without reading the file again."""
    spans = []
    for line in report.source.get("recognised") or ():
        m = _RECOGNISED_SPAN.match(line)
        if m is None:
            raise ValueError(f"not a recognised span: {line!r}")
        spans.append((m.group("kind"), int(m.group("a")), int(m.group("b"))))
    return spans


def corpus_reports(shared: Path, wait_s: float = 300.0) -> dict[str, Report | None]:
    """Every corpus file's report (audit_capture) by file name, each audited once per test run (corpus_read)."""
    return {name: report for name, (report, _) in corpus_read(shared, wait_s).items()}


def corpus_recognised(shared: Path, wait_s: float = 300.0) -> dict[str, ImportResult]:
    """What was recognised in every corpus file, by file name, read once per test run (corpus_read)."""
    return {name: result for name, (_, result) in corpus_read(shared, wait_s).items()}


@cache
def corpus_read(shared: Path, wait_s: float = 300.0) -> dict[str, tuple[Report | None, ImportResult]]:
    """Every corpus file's read_capture by file name, each read once per test run: the workers of a run share
    `shared`, where each reads the files no other has claimed and pickles what it read, then loads the others'
    (a worker that stopped with a file claimed and not written leaves it to be read here)."""
    import os
    import pickle
    import time

    shared.mkdir(parents=True, exist_ok=True)
    out: dict[str, tuple[Report | None, ImportResult]] = {}
    others: list[Path] = []
    for path in corpus_files():
        claim, done = shared / f"{path.name}.claim", shared / f"{path.name}.pickle"
        try:
            os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            others.append(path)
            continue
        try:
            out[path.name] = read_capture(path)
        except BaseException:
            claim.unlink()
            raise
        part = done.with_suffix(".part")
        part.write_bytes(pickle.dumps(out[path.name]))
        os.replace(part, done)
    for path in others:
        claim, done = shared / f"{path.name}.claim", shared / f"{path.name}.pickle"
        deadline = time.monotonic() + wait_s
        while not done.exists() and claim.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        out[path.name] = pickle.loads(done.read_bytes()) if done.exists() else read_capture(path)
    return out


GAPS_FILE = Path(__file__).resolve().parent / "data" / "corpus_gaps.toml"


def corpus_gaps(table: str) -> dict[str, dict[str, str]]:
    """One table of tests/data/corpus_gaps.toml (`gap`, `kind_gap`, `whole_gap`): file -> key -> why."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    data: dict[str, dict[str, dict[str, str]]] = tomllib.loads(GAPS_FILE.read_text()) if GAPS_FILE.exists() else {}
    return data.get(table, {})


SECOND_FILE = Path(__file__).resolve().parent / "data" / "second_readings.toml"


def second_readings() -> dict[str, dict[str, tuple[str, str]]]:
    """tests/data/second_readings.toml: a second reviewer's reading of blind pastes, file -> check ID -> (status,
    reason), each written from the capture alone (perf/corpus_agreement.py compares it with the first reader's)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    data: dict[str, dict[str, str]] = tomllib.loads(SECOND_FILE.read_text(encoding="utf-8"))
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for name, checks in data.items():
        for cid, value in checks.items():
            status, _, reason = value.partition(" — ")
            out.setdefault(name, {})[cid] = (status, reason)
    return out


def paste_checks(tmp_path: Path, text: str, *checks: str) -> dict[str, Any]:
    """The results of `checks` on `text` pasted as a file, as `audit --from FILE` reads it."""
    from stackaudit.engine.testing import run_checks
    from stackaudit.importers.pasted import load_pasted

    path = tmp_path / "paste.txt"
    path.write_text(text)
    return run_checks(load_pasted([str(path)]), list(checks))


def capture_checks(prefix: str, *checks: str) -> dict[str, Any]:
    """The results of `checks` on the corpus file whose name starts with `prefix-`."""
    from stackaudit.engine.testing import run_checks
    from stackaudit.importers.pasted import load_pasted

    path = next(CAPTURES_DIR.glob(prefix + "-*.txt"))
    return run_checks(load_pasted([str(path)]), list(checks))
