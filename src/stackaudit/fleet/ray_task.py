"""What runs on each Ray node: the zipapp's `capture` under the node's own Python, the snapshot's bytes back.

Standard library only, and sent to the cluster by value (fleet/ray_nodes.py registers this module with
cloudpickle), so a node needs nothing of stackaudit installed: the zipapp travels as the task's argument.

The root the node captures is its `STACKAUDIT_ROOT` environment variable (set it in the Ray node's
environment, e.g. `/host` in a pod that mounts the host's root there), `/` without it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from typing import TypedDict

ROOT_VARIABLE = "STACKAUDIT_ROOT"
STDERR_TAIL_BYTES = 4096


class Answer(TypedDict, total=False):
    """A node's answer: the snapshot's bytes and the root it captured, or why there is none."""

    snapshot: bytes
    root: str
    error: str


def capture_on_node(zipapp: bytes, timeout_s: float, max_bytes: int) -> Answer:
    """{"snapshot": bytes} or {"error": one line}; never raises for a failed capture."""
    root = os.environ.get(ROOT_VARIABLE) or "/"
    with tempfile.TemporaryDirectory(prefix="stackaudit-ray-") as tmp:
        archive = os.path.join(tmp, "stackaudit.pyz")
        with open(archive, "wb") as fh:
            fh.write(zipapp)
        output = os.path.join(tmp, "snapshot.tar.gz")
        errors = os.path.join(tmp, "stderr")
        argv = [sys.executable, "-I", archive, "capture", "--output", output, "--root", root]
        with open(errors, "wb") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                    cwd=tmp, start_new_session=True)
            try:
                rc = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                return {"error": f"capture timed out after {timeout_s:g} s"}
        if rc != 0:
            return {"error": f"capture failed (exit {rc}): {_last_line(errors)}"}
        try:
            size = os.path.getsize(output)
        except OSError:
            return {"error": "capture exited 0 but wrote no snapshot"}
        if size > max_bytes:
            return {"error": f"snapshot of {size} bytes is over the limit of {max_bytes} bytes"}
        with open(output, "rb") as fh:
            return {"snapshot": fh.read(max_bytes + 1), "root": root}


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the capture's process group (its own session), as the host layer's runner kills a command
    (host/live.py); this module cannot import it: a node has only the standard library."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _last_line(path: str) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - STDERR_TAIL_BYTES))
        tail = fh.read().decode("utf-8", "replace")
    lines = [line for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
