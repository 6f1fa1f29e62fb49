"""Control characters from a host never reach a terminal: a hostile hostname on a pty stays visible text."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from stackaudit.capture import capture_host
from stackaudit.host.memory import fake_host
from stackaudit.terminal import escape_terminal

REPO = Path(__file__).resolve().parents[1]
# Clear the screen, home the cursor, set the window title, print a fake green banner, and return.
HOSTILE = "gpu1\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[32mALL CHECKS PASSED\x1b[0m\r\x9b2J"


def test_escape_terminal_shows_every_control_character() -> None:
    out = escape_terminal(HOSTILE)
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\x9b" not in out
    assert out.startswith("gpu1\\x1b[2J\\x1b[H\\x1b]0;owned\\x07")
    assert escape_terminal("a\tb\nc") == "a\tb\nc"
    assert escape_terminal("x\u202ey") == "x\\u202ey"


def test_escape_terminal_keeps_only_the_renderers_colours() -> None:
    text = "\x1b[1;31mP0\x1b[0m host \x1b[2J\x1b]52;c;ZXZpbA==\x07"
    out = escape_terminal(text, keep_colour=True)
    assert out.startswith("\x1b[1;31mP0\x1b[0m host ")
    assert "\x1b[2J" not in out and "\x1b]52" not in out


def test_a_hostile_hostname_reaches_a_pty_escaped(tmp_path: Path) -> None:
    snap = tmp_path / "s.tar.gz"
    capture_host(fake_host(files={"/proc/cmdline": "ro\n"}, hostname=HOSTILE), str(snap))
    pid, fd = pty.fork()
    if pid == 0:  # the child: stackaudit on a terminal
        os.environ["PYTHONPATH"] = str(REPO / "src")
        os.execv(sys.executable, [sys.executable, "-m", "stackaudit", "audit", "--from", str(snap), "--no-color"])
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    shown = b"".join(chunks)
    assert os.waitstatus_to_exitcode(status) in (0, 1), shown[-2000:]
    assert b"gpu1" in shown
    assert b"\x1b[2J" not in shown and b"\x1b]0;" not in shown and b"\x9b" not in shown
    assert b"\\x1b[2J" in shown  # shown, as text


def test_json_keeps_the_value_exact_for_machines(tmp_path: Path) -> None:
    snap = tmp_path / "s.tar.gz"
    capture_host(fake_host(files={"/proc/cmdline": "ro\n"}, hostname="gpu\x1b[2J"), str(snap))
    out = subprocess.run([sys.executable, "-m", "stackaudit", "audit", "--from", str(snap), "-f", "json"],
                         capture_output=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
    assert b"\x1b" not in out.stdout  # JSON escapes it (\u001b) and the terminal path escapes the rest
    assert b"gpu\\u001b[2J" in out.stdout
