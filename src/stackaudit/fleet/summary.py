"""What one node's audit leaves for the fleet report: a compact summary, never the raw snapshot.

A worker process audits a snapshot and returns a `NodeSummary`: the counts per priority and status, each
check's status and priority (and, for an issue, its one-line message), each configuration value the audit
observed, by check ID and subject (compare/diff.py's flattening: a value keyed by GPU, sysctl or process is
one entry per key), and the host inventory (GPU model and count, driver, kernel, CPU, the kernel command line
by parameter). A value is kept as a short text to show and a fingerprint to compare (the text itself when
short, a SHA-256 prefix when long), so that 1000 nodes' summaries fit in a few tens of MB. Values of checks
declared `sample=True` are not kept: what a host was doing at that instant never makes two nodes differ.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from stackaudit.fixes.model import PRIORITIES
from stackaudit.fleet.document import DriftEntry, FleetDocument, NodeEntry
from stackaudit.render.text import cut, plural

# A value shown in the report is cut to this many characters; longer values compare by their SHA-256.
SHOWN_CHARS = 96
HOST = "host"  # the check ID under which inventory values are listed
ABSENT = "(absent)"
# Nodes named on one drift line before "and N more" (the JSON names them all; the HTML in a <details>).
NAMED = 6
GATHERERS = {"directory": "a directory of snapshots", "ansible": "Ansible", "ray": "a Ray cluster"}


@dataclass(frozen=True)
class CheckState:
    """One check's verdict on one node."""

    status: str
    priority: str | None = None
    waived: bool = False
    message: str = ""  # issues only: the one line the audit printed

    def label(self) -> str:
        """`issue P1`, `ok`, `issue P2 (waived)`."""
        text = self.status + (f" {self.priority}" if self.priority else "")
        return text + (" (waived)" if self.waived else "")


@dataclass(frozen=True)
class Value:
    """An observed value: `shown` to print, `digest` to compare (equal digests, equal values)."""

    shown: str
    digest: str

    @classmethod
    def of(cls, comparable: str, shown: str) -> Value:
        if len(comparable) <= SHOWN_CHARS and comparable == shown:
            return cls(shown, shown)
        digest = hashlib.sha256(comparable.encode("utf-8", "surrogateescape")).hexdigest()[:20]
        return cls(cut(shown, SHOWN_CHARS), "sha256:" + digest)


@dataclass
class NodeSummary:
    """One node: audited (`error` empty) or failed (`error` says why, in one line)."""

    node: str
    error: str = ""
    hostname: str = ""
    captured_at: str = ""
    tool_version: str = ""
    partial: bool = False
    inventory: dict[str, str] = field(default_factory=dict)  # gpu_model, gpu_count, driver, kernel, cpu
    counts: dict[str, int] = field(default_factory=dict)  # P0, P1, P2 (unwaived issues) and per status
    checks: dict[str, CheckState] = field(default_factory=dict)  # check ID -> verdict (samples excluded)
    values: dict[tuple[str, str], Value] = field(default_factory=dict)  # (check ID or "host", subject) -> value
    samples: int = 0  # how many sample checks had a value (listed apart, never drift)

    @property
    def ok(self) -> bool:
        return not self.error

    def group(self) -> str:
        """The nodes that should be alike share this: GPU model and count (`8× NVIDIA H100 80GB HBM3`)."""
        if not self.ok:
            return ""
        count = self.inventory.get("gpu_count") or "0"
        model = self.inventory.get("gpu_model") or ""
        if count in ("0", "") and not model:
            return "no GPU seen"
        return f"{count}× {model or 'unknown GPU model'}"

    def to_json(self) -> NodeEntry:
        out: NodeEntry = {"node": self.node, "status": "failed" if self.error else "audited"}
        if self.error:
            out["error"] = self.error
            return out
        out.update({"hostname": self.hostname or None, "captured_at": self.captured_at or None,
                    "tool_version": self.tool_version or None, "group": self.group(),
                    "inventory": dict(self.inventory),
                    "issues": {p: self.counts.get(p, 0) for p in PRIORITIES},
                    "by_status": {k: v for k, v in self.counts.items() if k not in PRIORITIES}})
        if self.partial:
            out["partial"] = True
        return out


def source_line(doc: FleetDocument) -> str:
    """`stackaudit 0.1.0 · TIME · 6 nodes from Ansible`: the line under every form's title."""
    source = doc["source"]
    return (f"stackaudit {doc['tool']['version']} · {doc['generated_at']} · {plural(source['nodes'], 'node')} from "
            f"{GATHERERS.get(source['gatherer'], source['gatherer'])}"
            + (f" ({source['hidden_entries']} hidden entries left out)" if source.get("hidden_entries") else ""))


def comparable(value: object) -> str:
    """A value as compare/diff.py compares it: JSON text with process IDs masked."""
    from stackaudit.engine.fingerprint import mask_pids

    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return mask_pids(text)


def shown(value: object) -> str:
    from stackaudit.compare.render import show

    return show(value)


def observed(value: object) -> Value:
    return Value.of(comparable(value), shown(value))


def where(entry: DriftEntry) -> str:
    """`DRV-GSP-FIRMWARE`, `PCIE-LINK-DOWNTRAIN 0000:61:00.0`, `driver`, `kernel command line pci`."""
    subject = str(entry["subject"])
    if entry["check"] == HOST:
        if subject.startswith("cmdline/"):
            return f"kernel command line {subject[len('cmdline/'):]}"
        return subject.replace("/", " ")
    return f"{entry['check']} {subject}".rstrip()


def others(n: int) -> str:
    return f"on {n} other{'s' if n != 1 else ''}"
