"""The run history: an SQLite database in the user's data directory (`--db` to choose).

One row per run (its report as JSON, which holds no secret) and one row per measured request
(TPOT, TTFT, E2E, output tokens), so that `bench compare` can test per-request distributions
rather than two means.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import urllib.parse
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    label TEXT,
    url TEXT,
    model TEXT,
    server_type TEXT,
    server_version TEXT,
    result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    level TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    tpot_ms REAL,
    ttft_ms REAL,
    e2e_ms REAL,
    output_tokens INTEGER
);
CREATE INDEX IF NOT EXISTS requests_by_run ON requests(run_id, level);
"""
STORE_VERSION = "1"


def user_data_dir(app: str = "stackaudit") -> str:
    """The user data directory, as the XDG Base Directory rules name it: $XDG_DATA_HOME/APP, else
    ~/.local/share/APP (https://specifications.freedesktop.org/basedir-spec/latest/); on macOS
    ~/Library/Application Support/APP; on Windows %LOCALAPPDATA%\\APP."""
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~/Library/Application Support"), app)
    if sys.platform == "win32":
        return os.path.join(os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local"), app)
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    # The spec: a relative path in $XDG_DATA_HOME is invalid and is ignored.
    if not base or not os.path.isabs(base):
        base = os.path.expanduser("~/.local/share")
    return os.path.join(base, app)


def default_db_path() -> str:
    return os.path.join(user_data_dir(), "bench.sqlite3")


class NoHistory(InputError):
    """A read of the history found no database (nothing was created)."""


@dataclass
class StoredRun:
    id: int
    started: str
    label: str | None
    result: dict[str, Any]


@dataclass
class RequestRow:
    level: str
    repeat: int
    ok: bool
    tpot_ms: float | None
    ttft_ms: float | None
    e2e_ms: float | None
    output_tokens: int


class History:
    """The run store. `create=False` (history, compare): an existing database opened read-only;
    NoHistory when there is none, so that a read creates no file and no directory."""

    def __init__(self, path: str | None = None, create: bool = True) -> None:
        self.path = path or default_db_path()
        if not create:
            self._db = self._open_read_only()
            return
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(directory, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('store_version', ?)", (STORE_VERSION,))
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise InputError(f"cannot open the history database {self.path}: {exc}") from None

    def _open_read_only(self) -> sqlite3.Connection:
        if not os.path.isfile(self.path):
            raise NoHistory(f"no history database at {self.path}: `stackaudit bench` stores runs there")
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True)
            db.execute("SELECT id, started, label, result FROM runs LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise InputError(f"cannot read the history database {self.path}: {exc}") from None
        return db

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, result: dict[str, Any], requests: dict[str, list[tuple[int, Any]]]) -> int:
        """Store a run; `requests` maps a level key to (repeat, RequestRecord) pairs. Returns the run id."""
        from stackaudit.bench.metrics import per_request_rows

        return self.add_rows(result, [
            RequestRow(level, repeat, bool(ok), tpot, ttft, e2e, n)
            for level, pairs in requests.items()
            for (repeat, _), (tpot, ttft, e2e, n, ok) in zip(pairs, per_request_rows([r for _, r in pairs]), strict=True)
        ])

    def add_rows(self, result: dict[str, Any], rows: list[RequestRow]) -> int:
        """Store a run from ready-made per-request rows (imports, tests)."""
        server = result.get("server", {})
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO runs(started, label, url, model, server_type, server_version, result) VALUES (?,?,?,?,?,?,?)",
                (result.get("started", ""), result.get("label"), server.get("url"), server.get("model_used"),
                 server.get("server_type"), server.get("server_version"), "{}"),
            )
            run_id = int(cursor.lastrowid or 0)
            result["run_id"] = run_id
            self._db.execute("UPDATE runs SET result = ? WHERE id = ?", (json.dumps(result), run_id))
            self._db.executemany(
                "INSERT INTO requests(run_id, level, repeat, ok, tpot_ms, ttft_ms, e2e_ms, output_tokens) VALUES (?,?,?,?,?,?,?,?)",
                [(run_id, r.level, r.repeat, int(r.ok), r.tpot_ms, r.ttft_ms, r.e2e_ms, r.output_tokens) for r in rows],
            )
        return run_id

    def list_runs(self, limit: int = 50) -> list[StoredRun]:
        rows = self._db.execute(
            "SELECT id, started, label, result FROM runs ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [StoredRun(int(r[0]), r[1], r[2], json.loads(r[3])) for r in rows]

    def resolve(self, ref: str) -> int:
        """A run reference: an id, `latest`, or `latest~N` (N runs before the latest)."""
        text = ref.strip().lower()
        if text.isdecimal():
            return int(text)
        if text.startswith("latest"):
            back = 0
            if text != "latest":
                if not text.startswith("latest~") or not text[7:].isdecimal():
                    raise InputError(f"run reference {ref!r}: use an id, 'latest' or 'latest~N'")
                back = int(text[7:])
            row = self._db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?", (back,)).fetchone()
            if row is None:
                raise InputError(f"no run {ref!r} in {self.path}")
            return int(row[0])
        raise InputError(f"run reference {ref!r}: use an id, 'latest' or 'latest~N'")

    def get(self, ref: str) -> StoredRun:
        run_id = self.resolve(ref)
        row = self._db.execute("SELECT id, started, label, result FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise InputError(f"no run {run_id} in {self.path} (see `stackaudit bench history`)")
        return StoredRun(int(row[0]), row[1], row[2], json.loads(row[3]))

    def requests(self, run_id: int) -> list[RequestRow]:
        rows = self._db.execute(
            "SELECT level, repeat, ok, tpot_ms, ttft_ms, e2e_ms, output_tokens FROM requests WHERE run_id = ?",
            (run_id,),
        ).fetchall()
        return [RequestRow(r[0], int(r[1]), bool(r[2]), r[3], r[4], r[5], int(r[6] or 0)) for r in rows]


# How many of the latest runs a look-up for an endpoint reads, at most.
_ENDPOINT_RUNS = 500


def _port(url: str) -> int | None:
    try:
        parts = urllib.parse.urlsplit(url)
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None


def single_stream_rate(endpoints: Sequence[tuple[Collection[str], int, Collection[str]]],
                       path: str | None = None) -> tuple[float, str] | None:
    """The latest single-stream rate `bench` stored for a server at one of `endpoints` ((host names, port, model
    names)), the same model where the run and the endpoint both name one: 1000 / the mean TPOT of its
    concurrency-1 requests, with where it was read ("bench history: run 7 of 2026-11-30, 1 stream"). None
    without a database (none is created) or such a run."""
    try:
        store = History(path, create=False)
    except InputError:
        return None
    with store:
        try:
            runs = store._db.execute("SELECT id, started, url, model FROM runs ORDER BY id DESC LIMIT ?",
                                     (_ENDPOINT_RUNS,)).fetchall()
            for run_id, started, url, run_model in runs:
                host = (urllib.parse.urlsplit(str(url or "")).hostname or "").lower()
                if not any(host in hosts and _port(str(url)) == port and (not run_model or not models
                                                                           or str(run_model) in models)
                           for hosts, port, models in endpoints):
                    continue
                tpots = [float(r[0]) for r in store._db.execute(
                    "SELECT tpot_ms FROM requests WHERE run_id = ? AND level = 'c=1' AND ok = 1 AND tpot_ms > 0",
                    (run_id,))]
                if tpots:
                    import statistics  # here, not at the top: `audit` looks a rate up on every run (perf/audit_speed.py)

                    return (round(1000.0 / statistics.mean(tpots), 2),
                            f"bench history: run {run_id} of {str(started)[:10]}, 1 stream")
        except sqlite3.Error:
            return None
    return None
