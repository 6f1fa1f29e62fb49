"""The fleet report's JSON document (docs/fleet.md, docs/fleet.schema.json), as TypedDicts.

Every renderer reads only this document; mypy checks each key it reads, and the JSON output is the dict.
"""

from __future__ import annotations

from typing import TypedDict

from stackaudit.compare.document import Tool


class _SourceKeys(TypedDict):
    gatherer: str
    nodes: int


class Source(_SourceKeys, total=False):
    hidden_entries: int


class _NodeKeys(TypedDict):
    node: str
    status: str  # "audited" or "failed"


class NodeEntry(_NodeKeys, total=False):
    """A failed node has `error`; an audited one has the rest."""

    error: str
    hostname: str | None
    captured_at: str | None
    tool_version: str | None
    group: str
    inventory: dict[str, str]
    issues: dict[str, int]
    by_status: dict[str, int]
    partial: bool
    drift: int


class GroupEntry(TypedDict):
    group: str
    nodes: list[str]


class OddEntry(TypedDict):
    value: str
    nodes: list[str]


class Majority(TypedDict):
    value: str
    nodes: int


class DriftEntry(TypedDict):
    group: str
    check: str
    subject: str
    kind: str
    tie: bool
    majority: Majority | None
    odd: list[OddEntry]


class _SharedKeys(TypedDict):
    check: str
    priority: str | None
    message: str
    waived_on: int


class SharedEntry(_SharedKeys, total=False):
    title: str


class FailedEntry(TypedDict):
    node: str
    error: str


class Summary(TypedDict):
    nodes: int
    audited: int
    failed: int
    groups: int
    drift: int
    shared: int
    nodes_with: dict[str, int]


class Gate(TypedDict):
    on: str
    failed: bool
    nodes: list[str]


class _DocumentKeys(TypedDict):
    tool: Tool
    source: Source
    generated_at: str
    verdict: str
    summary: Summary
    groups: list[GroupEntry]
    nodes: list[NodeEntry]
    drift: list[DriftEntry]
    shared: list[SharedEntry]
    failed: list[FailedEntry]


class FleetDocument(_DocumentKeys, total=False):
    command: str
    fail_on: Gate
