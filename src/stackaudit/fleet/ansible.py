"""Gather snapshots through Ansible: the operator's inventory and SSH set-up, driven with ansible-runner.

A generated playbook, per host: make a temporary directory on the node, copy the zipapp there, run
`python3 stackaudit.pyz capture --output <tmp>/snapshot.tar.gz [--root {{ stackaudit_root }}]` under
`async` (the node-side process is killed at the time limit), `fetch` the snapshot into
dest/<node>.tar.gz, and always remove the temporary directory. Host variables the playbook reads, all
optional: `stackaudit_root` (capture a host root mounted elsewhere, e.g. /host) and `stackaudit_python`
(the node's interpreter, `python3` by default; the zipapp needs the version fleet/zipapp.py states).
Become, users, keys, jump hosts and host-key checking are the inventory's and ssh's own settings.

Every host in the inventory (within `limit`) gets exactly one outcome, in the order they answer:
unreachable (Ansible's message), a failed step (the capture's exit code and last stderr line), a timed-out
capture, a fetched file missing or not a snapshot. Events are read as they come and only a few bounded
fields of each are kept; ansible-runner writes no event or stdout files.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import secrets
import shlex
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TypedDict

from stackaudit.errors import InputError, UsageError
from stackaudit.fleet.outcome import Gatherer, NodeOutcome, Progress, optional_module
from stackaudit.fleet.reasons import node_file_name, reason_line
from stackaudit.render.text import last_line

EXTRA_HINT = "pip install 'stackaudit[fleet]'"
NEEDS_RUNNER = f"gathering through Ansible needs ansible-runner and ansible-core: {EXTRA_HINT}"
# Step names in the playbook: the events say which step a host failed at.
STEP_CAPTURE, STEP_FETCH, STEP_CLEANUP = (
    "stackaudit: capture", "stackaudit: fetch the snapshot", "stackaudit: remove the snapshot from the node")
STEP_WHAT = {STEP_CAPTURE: "capture", STEP_FETCH: "could not fetch the snapshot",
             STEP_CLEANUP: "could not remove the snapshot from the node"}
# Seconds for the steps around the capture (copying the zipapp in, fetching a snapshot, removing it).
STEP_TIMEOUT_S = 120
# coreutils `timeout` sends SIGTERM at the limit, SIGKILL this much later; it exits 124 (or 137 after KILL).
KILL_AFTER_S = 5
TIMED_OUT_CODES = (124, 137)
# ssh's own line at the end of a session with a terminal (the `script` step runs with one).
_SSH_NOTE = re.compile(r"^Shared connection to \S+ closed\.\s*$", re.MULTILINE)
MAX_STDERR_CHARS = 4096


def _search_path() -> str:
    """PATH for ansible-playbook: this interpreter's bin directory first where ansible-playbook sits there
    (a virtualenv that is not activated), else PATH as it is."""
    path = os.environ.get("PATH", os.defpath)
    bindir = os.path.dirname(sys.executable)
    if os.access(os.path.join(bindir, "ansible-playbook"), os.X_OK):
        return bindir + os.pathsep + path
    if shutil.which("ansible-playbook", path=path) is None:
        raise UsageError(f"ansible-playbook is not installed (ansible-core): {EXTRA_HINT}")
    return path


def playbook(zipapp: str, dest: str, timeout_s: float, token: str) -> list[dict[str, object]]:
    """The play, as data (written as JSON, which YAML reads): one capture per host, its file removed always.

    `script` copies the zipapp into Ansible's temporary directory on the node, runs it there with the
    node's Python under coreutils `timeout` (so that a hung capture is killed on the node itself), and
    removes it; the snapshot goes to a file whose name holds `token` (random per run) and is fetched back.
    """
    limit = max(1, round(timeout_s))
    out = "{{ stackaudit_out }}"
    root = "{{ ('--root ' ~ (stackaudit_root | string | quote)) if stackaudit_root is defined else '' }}"
    python = "{{ stackaudit_python | default('python3') | quote }}"
    # The same file name as reasons.node_file_name, so that the fetch cannot leave `dest`.
    name = "{{ inventory_hostname | regex_replace('[^A-Za-z0-9._-]', '_') | regex_replace('^[.]', '_') }}"
    return [{
        "name": "stackaudit capture",
        "hosts": "all",
        "gather_facts": False,
        "vars": {"stackaudit_out": f"{{{{ stackaudit_tmpdir | default('/tmp') }}}}/stackaudit-{token}-{name}.tar.gz"},
        "tasks": [{
            "block": [
                {"name": STEP_CAPTURE,
                 "ansible.builtin.script": {"cmd": f"{shlex.quote(zipapp)} capture --output {{{{ stackaudit_out | quote }}}} {root}",
                                            "executable": f"timeout -k {KILL_AFTER_S} {limit} {python}"},
                 "timeout": limit + KILL_AFTER_S + STEP_TIMEOUT_S},
                {"name": STEP_FETCH, "ansible.builtin.fetch": {"src": out, "dest": os.path.join(dest, name + ".tar.gz"),
                                                               "flat": True, "fail_on_missing": True},
                 "timeout": STEP_TIMEOUT_S},
            ],
            "always": [
                {"name": STEP_CLEANUP, "ansible.builtin.file": {"path": out, "state": "absent"},
                 "timeout": STEP_TIMEOUT_S},
            ],
        }],
    }]


class TaskResult(TypedDict, total=False):
    """The bounded fields of an Ansible task result that a failure's reason reads (`_keep` cuts them)."""

    rc: int
    msg: str
    stderr: str
    stdout: str
    module_stderr: str


class KeptEvent(TypedDict, total=False):
    """What `_keep` keeps of an ansible-runner event: its kind, and for a task its host, task and result;
    for the closing statistics the hosts processed."""

    event: str
    host: str | None
    task: str
    ignore_errors: bool
    res: TaskResult
    processed: list[str]


@dataclass
class _HostState:
    error: str | None = None
    fetched: bool = False
    done: bool = False


def _failure_reason(step: str, res: TaskResult, timeout_s: float) -> str:
    """One line for a failed step, from the few fields of Ansible's result it needs."""
    msg = str(res.get("msg") or "")
    rc = res.get("rc")
    if "expected time frame" in msg or (step == STEP_CAPTURE and rc in TIMED_OUT_CODES):
        limit = timeout_s if step == STEP_CAPTURE else STEP_TIMEOUT_S
        return f"{STEP_WHAT[step]} timed out after {limit:g} s"
    if step == STEP_CAPTURE and rc is not None:
        line = _said(str(res.get("stderr") or "")) or _said(str(res.get("stdout") or "")) or msg
        return reason_line(f"capture failed (exit {rc}): {line}")
    module_stderr = last_line(str(res.get("module_stderr") or ""))
    detail = f"{msg}: {module_stderr}" if module_stderr and module_stderr not in msg else msg
    return reason_line(f"{STEP_WHAT.get(step, step)}: {detail or 'failed'}")


def _said(output: str) -> str:
    """The last line a program printed, without the note ssh adds when its session ends."""
    return last_line(_SSH_NOTE.sub("", output))


class AnsibleGatherer:
    """A Gatherer (fleet/outcome.py) over an Ansible inventory."""

    def __init__(self, inventory: str, limit: str | None, forks: int, zipapp: str | None, timeout_s: float,
                 private_data_dir: str | None) -> None:
        optional_module("ansible_runner", NEEDS_RUNNER)
        if not os.path.exists(inventory):
            raise InputError(f"--inventory {inventory}: no such file or directory")
        if forks < 1:
            raise UsageError(f"--forks {forks}: give at least 1")
        if timeout_s <= 0:
            raise UsageError(f"a capture time limit of {timeout_s:g} s is no time")
        if zipapp is not None and not os.path.isfile(zipapp):
            raise InputError(f"zipapp {zipapp}: no such file")
        self.inventory = os.path.abspath(inventory)
        self.limit = limit
        self.forks = forks
        self.zipapp = None if zipapp is None else os.path.abspath(zipapp)
        self.timeout_s = timeout_s
        self.private_data_dir = private_data_dir

    def __call__(self, dest: str, progress: Progress | None = None) -> Iterator[NodeOutcome]:
        with contextlib.ExitStack() as stack:
            work = self.private_data_dir or stack.enter_context(tempfile.TemporaryDirectory(prefix="stackaudit-ansible-"))
            os.makedirs(work, exist_ok=True)
            yield from self._run(os.path.abspath(dest), work, progress)

    def _run(self, dest: str, work: str, progress: Progress | None) -> Iterator[NodeOutcome]:
        ansible_runner = optional_module("ansible_runner", NEEDS_RUNNER)
        os.makedirs(dest, exist_ok=True)
        zipapp = self.zipapp
        if zipapp is None:
            from stackaudit.fleet.zipapp import build_zipapp

            zipapp = build_zipapp(os.path.join(work, "stackaudit.pyz"))
        book = os.path.join(work, "stackaudit-capture.yml")
        with open(book, "w", encoding="utf-8") as fh:
            json.dump(playbook(zipapp, dest, self.timeout_s, secrets.token_hex(16)), fh, indent=1)

        events: queue.Queue[KeptEvent | None] = queue.Queue()
        stop = threading.Event()

        def on_event(event: Mapping[str, object]) -> bool:
            kept = _keep(event)
            if kept is not None:
                events.put(kept)
            return False  # nothing written to the artifacts directory

        thread, runner = ansible_runner.run_async(
            private_data_dir=work, playbook=book, inventory=self.inventory, limit=self.limit, forks=self.forks,
            envvars={"PATH": _search_path()}, quiet=True, suppress_output_file=True, rotate_artifacts=1,
            event_handler=on_event, cancel_callback=stop.is_set,
            finished_callback=lambda _runner: events.put(None),
        )
        hosts: dict[str, _HostState] = {}
        answered = 0
        try:
            while True:
                try:
                    event = events.get(timeout=1.0)
                except queue.Empty:
                    if not thread.is_alive():
                        break
                    continue
                if event is None:
                    break
                for host in self._apply(event, hosts):
                    answered += 1
                    outcome = self._outcome(host, hosts[host], dest)
                    if progress is not None:
                        progress(outcome, answered)
                    yield outcome
            thread.join(timeout=30)
            for host, state in hosts.items():
                if not state.done:
                    state.done = True
                    answered += 1
                    outcome = self._outcome(host, state, dest)
                    if progress is not None:
                        progress(outcome, answered)
                    yield outcome
        finally:
            stop.set()
            thread.join(timeout=30)
        if not hosts:
            status, rc = getattr(runner, "status", "?"), getattr(runner, "rc", "?")
            where = f" within --limit {self.limit}" if self.limit else ""
            raise InputError(f"Ansible ran on no host of {self.inventory}{where} (ansible-playbook {status}, "
                             f"exit {rc}): check the inventory and the limit")

    def _apply(self, event: KeptEvent, hosts: dict[str, _HostState]) -> list[str]:
        """Fold one event into the hosts' states; the hosts whose outcome it settles."""
        kind, host = event.get("event", ""), event.get("host")
        if kind == "playbook_on_stats":
            for name in event.get("processed", ()):
                hosts.setdefault(name, _HostState())
            return []
        if not host:
            return []
        state = hosts.setdefault(host, _HostState())
        if state.done:
            return []
        step, res = event.get("task", ""), event.get("res", {})
        # Once the snapshot is here, a node that fails to remove its copy (or drops off) still gave it.
        settled = state.fetched and state.error is None
        if kind == "runner_on_unreachable":
            if not settled:
                state.error = reason_line(f"unreachable: {res.get('msg') or 'no message'}")
            state.done = True
            return [host]
        if kind == "runner_on_failed" and not event.get("ignore_errors"):
            if state.error is None and not settled:
                state.error = _failure_reason(step, res, self.timeout_s)
            if step == STEP_CLEANUP:
                state.done = True
                return [host]
            return []
        if kind in ("runner_on_ok", "runner_on_skipped"):
            if step == STEP_FETCH:
                state.fetched = True
            if step == STEP_CLEANUP:
                state.done = True
                return [host]
        return []

    def _outcome(self, host: str, state: _HostState, dest: str) -> NodeOutcome:
        from stackaudit.host.snapshot_reader import is_snapshot

        if state.error is not None:
            return NodeOutcome(host, error=state.error)
        path = os.path.join(dest, node_file_name(host))
        if not state.fetched or not os.path.isfile(path):
            return NodeOutcome(host, error="the fetched snapshot is missing")
        os.chmod(path, 0o600)  # owner-only, as capture writes it (fetch leaves the umask's mode)
        if not is_snapshot(path):
            size = os.path.getsize(path)
            return NodeOutcome(host, error=f"returned a file that is not a snapshot ({size} bytes, no gzip or tar header)")
        return NodeOutcome(host, snapshot=path)


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}


def _keep(event: Mapping[str, object]) -> KeptEvent | None:
    """The few bounded fields of an ansible-runner event that the outcomes need, or None to drop it."""
    kind = str(event.get("event", ""))
    data = _mapping(event.get("event_data"))
    if kind == "playbook_on_stats":
        return {"event": kind, "processed": [str(name) for name in _mapping(data.get("processed"))]}
    if kind not in ("runner_on_ok", "runner_on_failed", "runner_on_unreachable", "runner_on_skipped"):
        return None
    res = _mapping(data.get("res"))
    rc = res.get("rc")
    kept_res: TaskResult = {"rc": rc} if isinstance(rc, int) else {}
    if "msg" in res:
        kept_res["msg"] = str(res["msg"])[:MAX_STDERR_CHARS]
    # Where a program says why it stopped: its last lines.
    if "stderr" in res:
        kept_res["stderr"] = str(res.get("stderr") or "")[-MAX_STDERR_CHARS:]
    if "stdout" in res:
        kept_res["stdout"] = str(res.get("stdout") or "")[-MAX_STDERR_CHARS:]
    if "module_stderr" in res:
        kept_res["module_stderr"] = str(res.get("module_stderr") or "")[-MAX_STDERR_CHARS:]
    host = data.get("host")
    return {"event": kind, "host": None if host is None else str(host), "task": str(data.get("task", "")),
            "ignore_errors": bool(data.get("ignore_errors")), "res": kept_res}


def ansible_gatherer(inventory: str, limit: str | None = None, forks: int = 50, zipapp: str | None = None,
                     timeout_s: float = 300, private_data_dir: str | None = None) -> Gatherer:
    """A gatherer running capture on every host of `inventory` (within `limit`), `forks` at a time.

    zipapp: the archive to copy to the nodes (fleet/zipapp.py builds one into the work directory if None).
    timeout_s: seconds a node's capture may run before it is killed and reported as timed out.
    private_data_dir: ansible-runner's work directory (a temporary one, removed afterwards, if None).
    """
    return AnsibleGatherer(inventory, limit, forks, zipapp, timeout_s, private_data_dir)
