"""Wrappers: RedactingHost (secrets out at the boundary) and RecordingHost (for `capture`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from stackaudit.host.base import (
    DEFAULT_COMMAND_TIMEOUT_S,
    MAX_FILE_BYTES,
    CommandResult,
    Host,
    HostWrapper,
)
from stackaudit.host.memory import HostRecord, error_name
from stackaudit.host.nvml import NvmlError
from stackaudit.host.redact import redact_argv, redact_command_output, redact_file, redact_text
from stackaudit.host.source import Provenance


class RedactingHost(HostWrapper):
    """Every byte that leaves the host layer has its secrets redacted (DESIGN.md, "Snapshots").

    NVML answers hold device data (names, UUIDs, clocks, processes' PIDs), no secrets: passed as they are.
    """

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        return redact_file(path, self.inner.read_bytes(path, limit))

    def doc(self, name: str) -> str:
        return redact_text(self.inner.doc(name))

    def run(self, argv: Sequence[str], timeout: float = DEFAULT_COMMAND_TIMEOUT_S) -> CommandResult:
        result = self.inner.run(argv, timeout)
        return replace(
            result,
            argv=tuple(redact_argv(list(result.argv))),
            stdout=redact_command_output(result.argv, result.stdout),
            stderr=redact_text(result.stderr),
        )


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
        if prov.origin == "pasted":
            with self._lock:
                self.record.provenance[key] = prov
        return prov

    def read_bytes(self, path: str, limit: int = MAX_FILE_BYTES) -> bytes:
        try:
            data = self.inner.read_bytes(path, limit)
        except OSError as exc:
            with self._lock:
                self.record.errors["read"][path] = error_name(exc)
            raise
        with self._lock:
            self.record.files[path] = data
        return data

    def list_dir(self, path: str) -> list[str]:
        try:
            entries = self.inner.list_dir(path)
        except OSError as exc:
            with self._lock:
                self.record.errors["list"][path] = error_name(exc)
            raise
        with self._lock:
            self.record.dirs[path] = list(entries)
        return entries

    def readlink(self, path: str) -> str:
        try:
            target = self.inner.readlink(path)
        except OSError as exc:
            with self._lock:
                self.record.errors["link"][path] = error_name(exc)
            raise
        with self._lock:
            self.record.links[path] = target
        return target

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
