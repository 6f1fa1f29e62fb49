"""Drift: what differs between nodes that should be alike, and what every node shares.

Nodes that should be alike are those with the same GPU model and count (fleet/summary.py's `group`). Within
a group, for every check (its status and priority) and every configuration value (by check ID and subject,
as `compare` flattens them; the host inventory under `host`), the value most nodes have is the majority and
each other value is drift, naming its nodes: "node-07: host driver 570.86.15 vs 580.65.06 on 31 others". Two
values held by equally many nodes are a tie: no majority, every value listed with its nodes. Samples never
reach here (the summaries leave them out): what a host was doing at an instant is not configuration.

Where a check's status differs, the status difference says it: a node whose check reports other subjects
than its peers (an issue names only its bad GPUs) is compared only on the subjects it names. A node that has
the same status and lacks a value its peers have shows `(absent)`.

Shared results are the issues every audited node of the fleet has: listed once ("fix once, in the image").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from stackaudit.fleet.document import DriftEntry, OddEntry, SharedEntry
from stackaudit.fleet.summary import ABSENT, HOST, NodeSummary

_UNRUN = "(not run)"  # a check one node's stackaudit did not have (another version)


@dataclass(frozen=True)
class Odd:
    """A value some nodes of a group hold: a minority, or one side of a tie."""

    value: str
    nodes: tuple[str, ...]

    def to_json(self) -> OddEntry:
        return {"value": self.value, "nodes": list(self.nodes)}


@dataclass(frozen=True)
class Drift:
    group: str
    check: str  # a check ID, or "host" for the inventory
    subject: str  # "" for a check's single value or its status
    kind: str  # "status" or "value"
    majority: str | None  # the value most nodes hold; None on a tie
    majority_nodes: int
    odd: tuple[Odd, ...]

    @property
    def tie(self) -> bool:
        return self.majority is None

    def nodes(self) -> set[str]:
        return {n for o in self.odd for n in o.nodes} if not self.tie else set()

    def to_json(self) -> DriftEntry:
        return {"group": self.group, "check": self.check, "subject": self.subject, "kind": self.kind,
                "tie": self.tie,
                "majority": None if self.majority is None else {"value": self.majority, "nodes": self.majority_nodes},
                "odd": [o.to_json() for o in self.odd]}


@dataclass(frozen=True)
class Shared:
    """An issue every audited node has."""

    check: str
    priority: str | None
    message: str
    waived_on: int  # how many nodes waived it

    def to_json(self) -> SharedEntry:
        return {"check": self.check, "priority": self.priority, "message": self.message, "waived_on": self.waived_on}


@dataclass
class FleetDrift:
    groups: dict[str, list[str]] = field(default_factory=dict)  # group -> its nodes (audited only)
    drift: list[Drift] = field(default_factory=list)
    shared: list[Shared] = field(default_factory=list)

    def drift_on(self, node: str) -> int:
        """How many differences name this node (ties name no one node)."""
        return sum(1 for d in self.drift if node in d.nodes())


def find_drift(summaries: Sequence[NodeSummary]) -> FleetDrift:
    audited = [s for s in summaries if s.ok]
    out = FleetDrift()
    for s in audited:
        out.groups.setdefault(s.group(), []).append(s.node)
    by_node = {s.node: s for s in audited}
    for group, names in sorted(out.groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        members = [by_node[n] for n in names]
        if len(members) > 1:
            out.drift.extend(_group_drift(group, members))
    out.shared = _shared(audited)
    return out


def _group_drift(group: str, members: list[NodeSummary]) -> list[Drift]:
    found: list[Drift] = []
    checks = sorted({c for m in members for c in m.checks})
    for check in checks:
        labels = {m.node: (m.checks[check].label() if check in m.checks else _UNRUN) for m in members}
        entry = _entry(group, check, "", "status", labels)
        if entry is not None:
            found.append(entry)
    keys = sorted({k for m in members for k in m.values}, key=lambda k: (k[0] == HOST, k))
    for check, subject in keys:
        holders = [m for m in members if (check, subject) in m.values]
        statuses = {m.checks[check].status for m in holders if check in m.checks}
        values: dict[str, str] = {}
        shown: dict[str, str] = {}
        for m in members:
            value = m.values.get((check, subject))
            if value is not None:
                values[m.node], shown[value.digest] = value.digest, value.shown
            elif check == HOST or (check in m.checks and m.checks[check].status in statuses):
                values[m.node], shown[ABSENT] = ABSENT, ABSENT
            # else: its status differs from those that name this subject: the status difference says it.
        entry = _entry(group, check, subject, "value", values, shown)
        if entry is not None:
            found.append(entry)
    return found


def _entry(group: str, check: str, subject: str, kind: str, by_node: dict[str, str],
           shown: dict[str, str] | None = None) -> Drift | None:
    counts = Counter(by_node.values())
    if len(counts) < 2:
        return None
    ranked = counts.most_common()
    tie = ranked[0][1] == ranked[1][1]
    show = shown or {}

    def odd(value: str) -> Odd:
        return Odd(show.get(value, value), tuple(n for n, v in by_node.items() if v == value))

    if tie:
        return Drift(group, check, subject, kind, None, 0, tuple(odd(v) for v, _ in ranked))
    majority, count = ranked[0]
    return Drift(group, check, subject, kind, show.get(majority, majority), count,
                 tuple(odd(v) for v, _ in ranked[1:]))


def _shared(audited: list[NodeSummary]) -> list[Shared]:
    if not audited:
        return []
    common = set.intersection(*({c for c, st in s.checks.items() if st.status == "issue"} for s in audited))
    out = []
    for check in sorted(common):
        states = [s.checks[check] for s in audited]
        priority = Counter(st.priority for st in states).most_common(1)[0][0]
        message = Counter(st.message for st in states).most_common(1)[0][0]
        out.append(Shared(check, priority, message, sum(st.waived for st in states)))
    rank = {"P0": 0, "P1": 1, "P2": 2}
    out.sort(key=lambda s: (rank.get(str(s.priority), 3), s.check))
    return out
