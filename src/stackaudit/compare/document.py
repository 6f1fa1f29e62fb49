"""The shapes compare reads and writes: a result as the JSON report holds it, and the comparison.

They are TypedDicts, so the JSON output is the dict itself, and mypy checks every key a renderer reads.
An observed value is any JSON value (`object`): the renderers show it, they never look inside it.
"""

from __future__ import annotations

from typing import TypedDict


class ReportResult(TypedDict, total=False):
    """One entry of the JSON report's `results` (docs/report.schema.json); compare reads these keys."""

    id: str
    title: str
    status: str
    priority: str | None
    waived: bool
    message: str
    subjects: list[str]
    actual: object


class State(TypedDict):
    status: str
    priority: str | None
    waived: bool


class StatusEntry(TypedDict):
    """A check whose status moved from A to B."""

    id: str
    title: str
    a: State
    b: State
    message: str


class _ValueKey(TypedDict):
    id: str
    subject: str


class ValueEntry(_ValueKey, total=False):
    """A value that differs: `a` or `b` is absent where that side does not name the subject."""

    a: object
    b: object


class OnlyEntry(TypedDict):
    id: str
    status: str


class Samples(TypedDict):
    status: list[StatusEntry]
    values: list[ValueEntry]


class _ComparisonKeys(TypedDict):
    verdict: str
    difference: bool
    summary: dict[str, int]
    regressed: list[StatusEntry]
    fixed: list[StatusEntry]
    still_wrong: list[StatusEntry]
    newly_unknown: list[StatusEntry]
    newly_known: list[StatusEntry]
    other: list[StatusEntry]
    configuration: list[ValueEntry]
    only_in_a: list[OnlyEntry]
    only_in_b: list[OnlyEntry]
    samples: Samples


class Comparison(_ComparisonKeys, total=False):
    note: str


class SideInfo(TypedDict, total=False):
    """`source.a` / `source.b`: what was compared."""

    file: str
    kind: str
    hostname: str | None
    origin: str | None
    tool_version: str | None
    captured_at: str
    generated_at: str


class Tool(TypedDict):
    name: str
    version: str


class Source(TypedDict):
    files: list[str]
    a: SideInfo
    b: SideInfo


class Gate(TypedDict):
    on: str
    failed: bool
    regressed: list[str]


class _DocumentKeys(Comparison):
    tool: Tool
    source: Source
    generated_at: str


class CompareDocument(_DocumentKeys, total=False):
    """The JSON output (docs/compare.md): the envelope, then the comparison."""

    command: str
    fail_on: Gate
