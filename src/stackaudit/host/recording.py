"""Wrappers: RedactingHost (secrets out at the boundary) and RecordingHost (for `capture`)."""

from __future__ import annotations

import errno
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    CommandResult,
    Host,
    HostWrapper,
)
from stackaudit.host.memory import HostRecord, error_name, path_key
from stackaudit.host.nvml import NvmlError
from stackaudit.host.redact import (
    REDACTED,
    redact_argv,
    redact_command_output,
    redact_file,
    redact_text,
    rules_fingerprint,
)
from stackaudit.host.source import Provenance

T = TypeVar("T")
_PROC_ARGS = re.compile(r"^/proc/(\d+|self)/(cmdline|environ)$")


class RedactingHost(HostWrapper):
    """Every byte that leaves the host layer has its secrets redacted (docs/design.md).

    NVML answers hold device data (names, UUIDs, clocks, processes' PIDs), no secrets: passed as they are.
    With `keep_process` (capture), a process's command line and environment pass only when the predicate
    accepts its argv; any other process shows no command line and an unreadable environment.
    `redactions` counts the values redacted per source key, for capture's summary.
    """

    def __init__(self, inner: Host, keep_process: Callable[[Sequence[str]], bool] | None = None) -> None:
        super().__init__(inner)
        self.keep_process = keep_process
        self.redactions: dict[str, int] = {}
        self.withheld = 0
        self._lock = threading.Lock()
        # Facts read the same source many times (a 300 000-line pasted dmesg feeds a dozen facts):
        # each answer is redacted once and counted once. Keyed by source; the answer it was made
        # from is kept to check it is still the same text.
        self._redacted: dict[str, tuple[Any, Any]] = {}
        # A snapshot captured and redacted under these very rules (host/snapshot_reader.py load_snapshot): redacting
        # again would change nothing (redaction is idempotent) and costs most of a replay's time.
        redacted_with = getattr(inner, "redacted_with", "")
        self.passthrough = keep_process is None and bool(redacted_with) and redacted_with == rules_fingerprint()

    def _once(self, key: str, answer: Any, redact: Callable[[Any], Any]) -> Any:
        if self.passthrough:
            return answer
        with self._lock:
            cached = self._redacted.get(key)
        if cached is not None and (cached[0] is answer or cached[0] == answer):
            return cached[1]
        out = redact(answer)
        with self._lock:
            self._redacted[key] = (answer, out)
        return out

    def _count(self, key: str, before: str | bytes, after: str | bytes) -> None:
        marker: str | bytes = REDACTED if isinstance(after, str) else REDACTED.encode()
        added = after.count(marker) - before.count(marker)  # type: ignore[arg-type]
        if added > 0:
            with self._lock:
                self.redactions[key] = self.redactions.get(key, 0) + added

    def _withheld(self, path: str) -> bool:
        match = _PROC_ARGS.match(path)
        if self.keep_process is None or match is None or match.group(1) == "self":
            return False
        try:
            raw = self.inner.read_bytes(f"/proc/{match.group(1)}/cmdline")
        except (OSError, LookupError):
            return True
        argv = [a.decode("utf-8", "replace") for a in raw.split(b"\x00") if a]
        keep = self.keep_process(argv)
        if not keep:
            with self._lock:
                self.withheld += 1
        return not keep

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        if self._withheld(path):
            if path.endswith("/environ"):
                raise PermissionError(errno.EACCES, "withheld: not a serving engine or an audited daemon", path)
            return b""
        data = self.inner.read_bytes(path, limit)

        def redact(data: bytes) -> bytes:
            out = redact_file(path, data)
            self._count("fs:" + path, data, out)
            return out

        result: bytes = self._once("fs:" + path, data, redact)
        return result

    def doc(self, name: str) -> str:
        def redact(text: str) -> str:
            out = redact_text(text)
            self._count("doc:" + name, text, out)
            return out

        result: str = self._once("doc:" + name, self.inner.doc(name), redact)
        return result

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        key = "cmd:" + " ".join(argv)

        def redact(result: CommandResult) -> CommandResult:
            out = replace(
                result,
                argv=tuple(redact_argv(list(result.argv))),
                stdout=redact_command_output(result.argv, result.stdout),
                stderr=redact_text(result.stderr),
            )
            self._count(key, result.stdout + result.stderr, out.stdout + out.stderr)
            return out

        answer: CommandResult = self._once(key, self.inner.run(argv, timeout), redact)
        return answer

    def summary(self) -> str:
        """`redacted 7 values in 3 sources: fs:/proc/4242/environ (4), ...; withheld 12 processes' ...`."""
        with self._lock:
            items = sorted(self.redactions.items(), key=lambda kv: (-kv[1], kv[0]))
            withheld = self.withheld
        total = sum(n for _, n in items)
        text = f"redacted {total} value{'s' if total != 1 else ''} in {len(items)} source{'s' if len(items) != 1 else ''}"
        if items:
            shown = ", ".join(f"{key} ({n})" for key, n in items[:20])
            text += ": " + shown + (f", and {len(items) - 20} more" if len(items) > 20 else "")
        if withheld:
            text += f"; withheld the command line and environment of {withheld} reads of other processes"
        return text


class RecordingHost(HostWrapper):
    """Passes every call through and remembers question and answer, to write a snapshot."""

    def __init__(self, inner: Host) -> None:
        super().__init__(inner)
        self.record = HostRecord()
        self._lock = threading.Lock()

    def doc(self, name: str) -> str:
        text = self.inner.doc(name)
        with self._lock:
            self.record.docs[name] = text
        return text

    def provenance(self, key: str) -> Provenance:
        prov = self.inner.provenance(key)
        if prov.origin == "pasted" or not prov.whole:  # a paste, or a live read cut at its cap
            with self._lock:
                self.record.provenance[key] = prov
        return prov

    def _kept(self, kind: str, store: dict[str, T], path: str, read: Callable[[], T]) -> T:
        """`read()`'s answer, kept in `store` under `path`; its error, kept under `kind`, raised again."""
        try:
            answer = read()
        except OSError as exc:
            with self._lock:
                self.record.errors[kind][path] = error_name(exc)
            raise
        with self._lock:
            store[path] = answer
        return answer

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        path = path_key(path) if path.startswith("/") else path
        return self._kept("read", self.record.files, path, lambda: self.inner.read_bytes(path, limit))

    def list_dir(self, path: str) -> list[str]:
        return self._kept("list", self.record.dirs, path, lambda: self.inner.list_dir(path))[:]

    def readlink(self, path: str) -> str:
        return self._kept("link", self.record.links, path, lambda: self.inner.readlink(path))

    def which(self, name: str) -> str | None:
        found = self.inner.which(name)
        with self._lock:
            self.record.which[name] = found
        return found

    def nvml(self, query: str) -> Any:
        try:
            answer = self.inner.nvml(query)
        except NvmlError as exc:
            with self._lock:
                self.record.nvml[query] = exc.to_json()
            raise
        with self._lock:
            self.record.nvml[query] = answer
        return answer

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.inner.run(argv, timeout)
        with self._lock:
            self.record.commands[tuple(argv)] = result
        return result
