"""The investigators' tools: read-only, over the snapshot only (a MemoryHost), never the live machine.

Each tool has a closed JSON schema (investigate/schema.py); arguments are validated before anything runs.
`read_file` reads an allow-listed tree (/proc, /sys, /etc) or a document the snapshot holds (an engine or
NCCL log, a pasted output: `doc:<name>`); `list_dir` lists a directory of those trees; `read_output` shows a
command's output as the snapshot recorded it (nothing is run); `get_fact` shows a collected fact; and
`explain_check` a check's documentation. `report_findings` ends the investigation. A process's environment
(`/proc/<pid>/environ`) is never read: in a live capture it is root's own, and a secret of no known shape
would reach the endpoint.

Paths are normalised; a `..` component is refused, and every symbolic link on the way is resolved from the
snapshot's own links (MemoryHost.readlink) and must stay inside the allow-list. Every output is capped
(bytes and lines, with a marker saying how to ask for the rest) and read through RedactingHost, so secrets
are redacted as in a snapshot (host/redact.py), whatever the source. Outputs are data for the model, and the
evidence an investigator may quote (investigate/evidence.py): headers and markers are not evidence, nor is a
check's documentation (it says nothing about this host).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackaudit.host.base import Host, NotCaptured
from stackaudit.host.confined import normalise
from stackaudit.host.memory import MemoryHost
from stackaudit.host.recording import RedactingHost
from stackaudit.host.redact import redact_text
from stackaudit.investigate.schema import REPORT_FINDINGS_SCHEMA, validate

ALLOWED_ROOTS = ("/proc", "/sys", "/etc")
DOC_PREFIX = "doc:"
# What one tool call brings back: gcm-sentinel caps a tool's output at 8000 characters
# (docs/investigate.md, "Budgets"); a line cap keeps a listing or a log readable in one answer.
MAX_OUTPUT_BYTES = 8000
DEFAULT_LINES = 200
MAX_LINES = 400
MAX_LINE_CHARS = 2000
MAX_SYMLINK_HOPS = 40  # as the kernel's own limit (path_resolution(7))
MAX_READ_BYTES = 8 * 1024 * 1024

_LINES = {"start_line": {"type": "integer", "minimum": 1, "maximum": 10_000_000,
                         "description": "first line to show (1-based)"},
          "max_lines": {"type": "integer", "minimum": 1, "maximum": MAX_LINES},
          "match": {"type": "string", "minLength": 1, "maxLength": 200,
                    "description": "only lines containing this text (case-insensitive, not a pattern)"}}


# A process's environment (root's own in a live capture): never read by a tool.
_WITHHELD = re.compile(r"/proc/(?:[^/]+/)+environ")


class ToolError(Exception):
    """A call refused or failed; its message goes back to the model as the tool's answer."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass
class ToolResult:
    """What a call returns: the text the model sees, and the lines of it that count as evidence."""

    text: str
    evidence: list[str] = field(default_factory=list)
    error: bool = False  # refused or failed (the answer says why)
    malformed: bool = False  # an unknown tool or arguments outside its schema
    findings: list[dict[str, Any]] | None = None  # set by report_findings


def tool_specs(commands: Sequence[str] = (), facts: Sequence[str] = (), checks: Sequence[str] = ()) -> list[ToolSpec]:
    """The tools, in a fixed order, with enums drawn from what this snapshot holds."""
    command_schema: dict[str, Any] = {"type": "string", "maxLength": 300}
    if commands:
        command_schema["enum"] = list(commands)
    fact_schema: dict[str, Any] = {"type": "string", "maxLength": 100}
    if facts:
        fact_schema["enum"] = list(facts)
    check_schema: dict[str, Any] = {"type": "string", "maxLength": 80, "pattern": r"^[A-Z]+-[A-Z0-9-]+$"}
    if checks:
        check_schema["enum"] = list(checks)
    return [
        ToolSpec("read_file", "Read a file of the snapshot: an absolute path under /proc, /sys or /etc, or "
                 "doc:<name> for an engine log or pasted document the snapshot holds.",
                 {"type": "object", "additionalProperties": False, "required": ["path"],
                  "properties": {"path": {"type": "string", "minLength": 1, "maxLength": 1000}, **_LINES}}),
        ToolSpec("list_dir", "List a directory of the snapshot (under /proc, /sys or /etc); `doc:` lists the "
                 "documents it holds.",
                 {"type": "object", "additionalProperties": False, "required": ["path"],
                  "properties": {"path": {"type": "string", "minLength": 1, "maxLength": 1000},
                                 "max_lines": _LINES["max_lines"]}}),
        ToolSpec("read_output", "Show a command's output as the snapshot recorded it (nothing is run now).",
                 {"type": "object", "additionalProperties": False, "required": ["command"],
                  "properties": {"command": command_schema, **_LINES}}),
        ToolSpec("get_fact", "Show a fact the audit collected from the snapshot, by name, as JSON.",
                 {"type": "object", "additionalProperties": False, "required": ["name"],
                  "properties": {"name": fact_schema, "start_line": _LINES["start_line"]}}),
        ToolSpec("explain_check", "Show a catalogue check's documentation (what it reads, the bad value, why, "
                 "the fix).",
                 {"type": "object", "additionalProperties": False, "required": ["id"],
                  "properties": {"id": check_schema}}),
        ToolSpec("report_findings", "End the investigation with your findings. Every finding quotes, as "
                 "evidence, text copied from outputs of the tools above in this conversation.",
                 REPORT_FINDINGS_SCHEMA),
    ]


def fact_json(value: Any, depth: int = 0) -> Any:
    """A collected fact as plain JSON (dataclasses as objects, sets sorted); deep structures cut."""
    if depth > 12:
        return "…"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value).__name__ == "Missing":
            return {"unknown": getattr(value, "reason", ""), "hint": getattr(value, "hint", "")}
        return {f.name: fact_json(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): fact_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((fact_json(v, depth + 1) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [fact_json(v, depth + 1) for v in value]
    return str(value)


class SnapshotTools:
    """The tools of one investigation, over one snapshot; `evidence` is every quotable line returned so far."""

    def __init__(self, host: MemoryHost, facts: Mapping[str, Any] | None = None,
                 explain: Mapping[str, str] | None = None) -> None:
        self.snapshot = host  # links are resolved from the snapshot's own record
        self.host: Host = RedactingHost(host)
        self.facts = dict(facts or {})
        self.explain = dict(explain or {})
        # A recorded command by the line the model names it with (an argument may hold a space).
        self.argv_of = {" ".join(argv): argv for argv in sorted(host.record.commands)}
        self.commands = sorted(self.argv_of)
        self.specs = tool_specs(self.commands, sorted(self.facts), sorted(self.explain))
        self.by_name = {spec.name: spec for spec in self.specs}
        self.evidence: list[str] = []
        self.calls = 0

    def schemas(self) -> list[dict[str, Any]]:
        return [spec.to_openai() for spec in self.specs]

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one call: the tool's answer, or an error answer (unknown tool, invalid arguments, refused)."""
        self.calls += 1
        spec = self.by_name.get(name)
        if spec is None:
            return ToolResult(f"error: unknown tool {name[:80]!r}; the tools are {', '.join(self.by_name)}",
                              error=True, malformed=True)
        errors = validate(spec.parameters, arguments)
        if errors:
            return ToolResult("error: invalid arguments: " + "; ".join(errors), error=True, malformed=True)
        try:
            result = getattr(self, "_" + name)(**arguments)
        except ToolError as exc:
            return ToolResult(f"error: {exc}", error=True)
        assert isinstance(result, ToolResult)
        self.evidence.extend(result.evidence)
        return result

    # --- paths -----------------------------------------------------------------------------------
    def resolve(self, path: str) -> str:
        """The snapshot path `path` names, every link followed inside the allow-list; ToolError otherwise."""
        if "\x00" in path or not path.startswith("/"):
            raise ToolError(f"{_show(path)}: give an absolute path under {', '.join(ALLOWED_ROOTS)}")
        if ".." in path.split("/"):
            raise ToolError(f"{_show(path)}: a `..` component is refused; give the path itself")
        norm = normalise(path)
        if not _allowed(norm):
            raise ToolError(f"{_show(norm)} is outside the allowed trees ({', '.join(ALLOWED_ROOTS)})")
        done: list[str] = []
        todo = [p for p in norm.split("/") if p]
        hops = 0
        while todo:
            part = todo.pop(0)
            here = "/" + "/".join([*done, part])
            try:
                target = self.snapshot.readlink(here)
            except (OSError, NotCaptured):
                done.append(part)
                continue
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise ToolError(f"{_show(norm)}: more than {MAX_SYMLINK_HOPS} links")
            base = "/" + "/".join(done)
            joined = posixpath.normpath(target if target.startswith("/") else posixpath.join(base, target))
            if not _allowed(joined):
                raise ToolError(f"{_show(here)} is a link to {_show(target)}, outside the allowed trees: refused")
            todo = [p for p in joined.split("/") if p] + todo
            done = []
        return "/" + "/".join(done)

    # --- the tools -----------------------------------------------------------------------------
    def _read_file(self, path: str, start_line: int = 1, max_lines: int = DEFAULT_LINES,
                   match: str | None = None) -> ToolResult:
        if path.startswith(DOC_PREFIX):
            name = path[len(DOC_PREFIX):]
            try:
                text = self.host.doc(name)
            except NotCaptured:
                raise ToolError(f"{_show(path)}: the snapshot holds no such document; list_dir('doc:') lists "
                                "them") from None
            return _lines_result(path, text, start_line, max_lines, match)
        real = self.resolve(path)
        if _WITHHELD.fullmatch(real):
            raise ToolError(f"{_show(real)}: a process's environment is withheld from the investigators "
                            "(it can hold secrets of no known shape)")
        try:
            data = self.host.read_bytes(real, MAX_READ_BYTES)
        except NotCaptured:
            raise ToolError(f"{_show(real)} is not in the snapshot") from None
        except IsADirectoryError:
            raise ToolError(f"{_show(real)} is a directory: use list_dir") from None
        except OSError as exc:
            raise ToolError(f"{_show(real)}: {exc.strerror or exc} (as recorded in the snapshot)") from None
        text = data.replace(b"\x00", b" ").decode("utf-8", errors="replace")
        shown = path if real == normalise(path) else f"{path} (-> {real})"
        return _lines_result(shown, text, start_line, max_lines, match)

    def _list_dir(self, path: str, max_lines: int = DEFAULT_LINES) -> ToolResult:
        if path in (DOC_PREFIX, DOC_PREFIX.rstrip(":")):
            docs = [DOC_PREFIX + n for n in sorted(self.snapshot.record.docs)]
            return _listing("documents the snapshot holds", docs, max_lines)
        real = self.resolve(path)
        names: set[str] = set()
        with contextlib.suppress(OSError, NotCaptured):
            names.update(self.host.list_dir(real))
        prefix = real.rstrip("/") + "/"
        record = self.snapshot.record
        for held in (*record.files, *record.links, *record.dirs):
            if held.startswith(prefix) and len(held) > len(prefix):
                names.add(held[len(prefix):].split("/", 1)[0])
        if not names:
            raise ToolError(f"{_show(real)}: the snapshot holds nothing under this directory")
        entries: list[str] = []
        for name in sorted(names):
            full = prefix + name
            if full in record.links:
                entries.append(f"{full} -> {record.links[full]}")
            elif full in record.files:
                entries.append(full)
            else:
                entries.append(full + "/")
        return _listing(real, entries, max_lines)

    def _read_output(self, command: str, start_line: int = 1, max_lines: int = DEFAULT_LINES,
                     match: str | None = None) -> ToolResult:
        argv = self.argv_of.get(command)
        if argv is None:
            raise ToolError(f"the snapshot holds no output of {_show(command)}")
        try:
            result = self.host.run(argv)
        except NotCaptured:
            raise ToolError(f"the snapshot holds no output of {_show(command)}") from None
        text = result.stdout + (("\n" + result.stderr) if result.stderr.strip() else "")
        return _lines_result(f"$ {command} (exit {result.returncode})", text, start_line, max_lines, match)

    def _get_fact(self, name: str, start_line: int = 1) -> ToolResult:
        if name not in self.facts:
            raise ToolError(f"no fact {_show(name)} was collected")
        text = json.dumps(fact_json(self.facts[name]), indent=1, sort_keys=True, default=str)
        return _lines_result(f"fact {name}", redact_text(text), start_line, DEFAULT_LINES, None)

    def _explain_check(self, id: str) -> ToolResult:
        doc = self.explain.get(id)
        if doc is None:
            raise ToolError(f"no check {_show(id)} in the catalogue")
        result = _lines_result(f"check {id}", doc, 1, MAX_LINES, None)
        return ToolResult(result.text)  # documentation is not evidence about this host

    def _report_findings(self, findings: list[dict[str, Any]]) -> ToolResult:
        return ToolResult(f"received {len(findings)} finding(s)", findings=findings)


def _allowed(path: str) -> bool:
    return any(path == root or path.startswith(root + "/") for root in ALLOWED_ROOTS)


def _show(text: str) -> str:
    """A value the model gave, quoted and cut, for an error message."""
    return repr(text[:200])


def _lines_result(title: str, text: str, start_line: int, max_lines: int, match: str | None) -> ToolResult:
    """Lines start_line.. of `text` (those containing `match`), within max_lines and MAX_OUTPUT_BYTES."""
    all_lines = text.splitlines()
    numbered = list(enumerate(all_lines, 1))
    if match is not None:
        needle = match.lower()
        numbered = [(n, line) for n, line in numbered if needle in line.lower()]
    numbered = [(n, line) for n, line in numbered if n >= start_line]
    if len(all_lines) == 1 and match is None and start_line == 1 and len(all_lines[0]) <= 200:
        # A one-value file (a sysctl, a sysfs attribute): the path and the value on one quotable line.
        line = f"{title}: {all_lines[0]}"
        return ToolResult(line, [line, all_lines[0]])
    shown: list[str] = []
    size = 0
    cut_bytes = False
    for _, line in numbered[:max_lines]:
        line = line[:MAX_LINE_CHARS]
        if size + len(line.encode()) + 1 > MAX_OUTPUT_BYTES:
            cut_bytes = True
            break
        shown.append(line)
        size += len(line.encode()) + 1
    what = f"matching {match!r}, " if match is not None else ""
    if not numbered:
        header = f"== {title}: {len(all_lines)} lines, none {what.rstrip(', ') or 'from line ' + str(start_line)} =="
        return ToolResult(header)
    first, last = numbered[0][0], numbered[len(shown) - 1][0] if shown else numbered[0][0]
    header = f"== {title}: {what}lines {first}-{last} of {len(all_lines)} =="
    out = [header, *shown]
    if len(shown) < len(numbered):
        reason = f"{MAX_OUTPUT_BYTES} bytes" if cut_bytes else f"{max_lines} lines"
        nxt = numbered[len(shown)][0]
        out.append(f"[output cut at {reason}: {len(numbered) - len(shown)} more line(s); ask again with "
                   f"start_line={nxt}, or with match=TEXT]")
    return ToolResult("\n".join(out), shown)


def _listing(title: str, names: list[str], max_lines: int) -> ToolResult:
    shown = names[:max_lines]
    out = [f"== {title}: {len(names)} entries ==", *shown]
    if len(shown) < len(names):
        out.append(f"[listing cut at {max_lines} entries: {len(names) - len(shown)} more; list a narrower path]")
    return ToolResult("\n".join(out), shown)
