"""What goes in which section of the report, in which order (shared by text and markdown)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report
from stackaudit.fixes.model import PRIORITIES
from stackaudit.host.source import Provenance


@dataclass(frozen=True)
class RenderOptions:
    """How to render: the command line as run (None: not known, e.g. a report built in a test) and
    whether to show everything (--verbose: the full "could not check" list, not-applicable checks,
    each finding's why and sources)."""

    argv: Sequence[str] | None = None
    verbose: bool = False
    # Columns for the text report's prose (the CLI passes the terminal's); None: COLUMNS, else 80.
    width: int | None = None
    # `audit --gate-samples`: checks of sampled values (CPU pressure, clocks, swap in use) gate --fail-on,
    # JUnit and the Prometheus states like any other; by default they are reported but never gate.
    gate_samples: bool = False


def sampled_ids(report: Report, options: RenderOptions | None = None) -> frozenset[str]:
    """The IDs of this report's checks whose observed value is a sample (`sample=True`), which the machine
    outputs and --fail-on set apart; empty with --gate-samples."""
    if options is not None and options.gate_samples:
        return frozenset()
    from stackaudit.checks.registry import sample_checks

    return frozenset(r.id for r in report.results) & sample_checks()


@dataclass(frozen=True)
class Sections:
    fixes: dict[str, list[Result]]
    waived: list[Result]
    negatives: list[Result]
    good: list[Result]
    unknown: list[Result]
    errors: list[Result]
    not_applicable: list[Result]
    # Verdicts on some of their subjects (`ok` with `1 of 8 GPUs shown`): what to run next would judge the rest.
    partial: list[Result]

    @property
    def to_settle(self) -> list[Result]:
        """The results "run next" works for: the unknown ones, then those judged on some of their subjects."""
        return self.unknown + self.partial

    def run_next_heading(self) -> str:
        partial = f"; {len(self.partial)} judged on part of the host" if self.partial else ""
        return f"To judge more, run next ({len(self.unknown)} checks could not tell{partial})"


def rank(results: list[Result]) -> list[Result]:
    """Within a priority: a lost or faulted GPU first, then more severe, cheaper to fix, better evidenced,
    by ID (Result.rank_key, which the fix plan's order follows too)."""
    return sorted(results, key=lambda r: r.rank_key)


def sections(report: Report) -> Sections:
    issues = report.issues()
    return Sections(
        fixes={p: rank([r for r in issues if r.priority == p]) for p in PRIORITIES},
        waived=[r for r in report.results if r.waived],
        negatives=report.by_status("not-an-issue"),
        good=report.by_status("ok"),
        unknown=[r for r in report.by_status("unknown") if not r.waived],
        errors=[r for r in report.by_status("error") if not r.waived],
        not_applicable=report.by_status("not-applicable"),
        partial=[r for r in report.results if r.partly_shown and r.status != "unknown" and not r.waived],
    )


def top_finding(sec: Sections) -> Result | None:
    """The issue to fix first: the best-ranked of the highest priority. A sampled value (CPU pressure, clocks,
    swap in use: one moment of the host) leads only when nothing else is found, as it gates nothing by default."""
    from stackaudit.checks.registry import sample_checks

    ranked = [r for p in PRIORITIES for r in sec.fixes[p]]
    sampled = sample_checks()
    return next((r for r in ranked if r.id not in sampled), ranked[0] if ranked else None)


def grouped_unknowns(results: list[Result]) -> list[tuple[list[str], str, str]]:
    """Unknown results that say the same thing, together: ([IDs], message, hint), in first-seen order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for r in results:
        groups.setdefault((r.message, r.hint), []).append(r.id)
    return [(ids, message, hint) for (message, hint), ids in groups.items()]


def provenance_entries(r: Result, limit: int = 3) -> list[str]:
    """`pasted lscpu (report.txt, lines 12–38)`, … and `and 2 more`: pasted sources first (they are what
    the reader pasted and can check); at most `limit` are named."""
    ordered = sorted(r.provenance, key=lambda p: (p.origin != "pasted", not p.lines))
    # The quoted line's span leads (engine/quote_lines.py); the span it was cut from is the same source, not one more.
    ordered = [p for i, p in enumerate(ordered) if not any(_within(q, p) for q in ordered[:i])]
    shown = [p.describe() for p in ordered[:limit]]
    more = len(ordered) - limit
    return shown + ([f"and {more} more"] if more > 0 else [])


def _within(inner: Provenance, outer: Provenance) -> bool:
    """Whether `inner` is a part of `outer`'s span: the same source of the same file, its lines inside."""
    if (inner.source, inner.origin, inner.file) != (outer.source, outer.origin, outer.file):
        return False
    return inner.lines is not None and outer.lines is not None and outer.lines[0] <= inner.lines[0] \
        and inner.lines[1] <= outer.lines[1]


def provenance_line(r: Result, limit: int = 3) -> str:
    """`from pasted lscpu (report.txt, lines 12–38), live /proc/cmdline`; empty when nothing was read."""
    if not r.provenance:
        return ""
    entries = provenance_entries(r, limit)
    if len(entries) > 1 and entries[-1].startswith("and "):
        return "from " + ", ".join(entries[:-1]) + " " + entries[-1]
    return "from " + ", ".join(entries)


def headline_lines(report: Report) -> list[str]:
    h = report.host
    gpus = h.get("gpus") or {}
    gpu_text = "unknown" if gpus.get("count") is None else f"{'at least ' * bool(gpus.get('at_least'))}{gpus['count']} NVIDIA"
    if gpus.get("count") is None and gpus.get("bdfs"):
        gpu_text = f"at least {len(gpus['bdfs'])} NVIDIA ({', '.join(gpus['bdfs'][:4])})"
    if gpus.get("names"):
        gpu_text += f" ({', '.join(gpus.get('said') or gpus['names'])})"
    container = h.get("container")
    # "container" is the container fact's kind where the source shows a container but not whose (Docker, LXC...).
    container_text = ("unknown" if container is None else "no" if container == "none"
                      else "yes (kind unknown)" if container == "container" else container)
    if h.get("host_of"):
        container_text += f" — the host of {', '.join(h['host_of'][:3])}"
    summary = report.summary()
    pri = summary["by_priority"]
    st = summary["by_status"]
    numa = h.get("numa_nodes") or (f"at least {h['numa_nodes_at_least']}" if h.get("numa_nodes_at_least") else "?")
    lines = [
        f"Host {h.get('hostname') or '?'} · kernel {h.get('kernel') or '?'} · CPU {h.get('cpu') or '?'}"
        + (f" ×{h['sockets']}" if h.get("sockets") and h["sockets"] > 1 else ""),
        f"Container: {container_text} · GPUs: {gpu_text} · NUMA nodes: {numa}",
        f"P0 {pri['P0']} · P1 {pri['P1']} · P2 {pri['P2']} · not-an-issue {st['not-an-issue']} · ok {st['ok']} · "
        f"unknown {st['unknown']} · n/a {st['not-applicable']} · errors {st['error']}"
        + (f" · timed out {len(report.timed_out)}" if report.timed_out else "")
        + (f" · waived {summary['waived']}" if summary["waived"] else ""),
    ]
    if h.get("ceiling"):
        lines.append(f"Ceiling: {h['ceiling']}")
    if isinstance(h.get("measured"), dict):  # `audit --measured TOKS`, or a rate the source holds
        lines.append(str(h["measured"]["line"]))
        if h["measured"].get("verdict"):  # where the gap lies (engine/gap_verdict.py)
            lines.append(f"Gap: {h['measured']['verdict']}.")
    set_aside = report.source.get("set_aside") or []
    if set_aside:
        lines.append(f"This paste holds another host's outputs too: audited the first; set aside {len(set_aside)} "
                     f"({'; '.join(set_aside[:2])}{' …' if len(set_aside) > 2 else ''}).")
    if h.get("uid") not in (0, None, -1):
        lines.append("Not running as root: some reads are blind and counted as unknown.")
    return lines


def fix_cost_text(result: Result, where: str, pod: bool = False) -> str:
    """`runtime, then restart the engine · on the Proxmox node`: what the fix takes, step by step, and
    where it is applied. `pod`: the engine runs in a Kubernetes pod (a container restart is a redeploy)."""
    fix = result.fix
    if fix is None:
        return ""
    return fix.cost_words(pod=pod) + (f" · {where}" if where else "")
