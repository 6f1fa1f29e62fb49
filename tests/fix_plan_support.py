"""Helpers for the fix-plan tests: shellcheck (Debian's package; the Makefile's test set-up installs it),
`bash -n`, and running one group of a plan with stub commands that print their arguments."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SHELLCHECK = shutil.which("shellcheck")
BASH = shutil.which("bash")
SKIP_SHELLCHECK = "shellcheck is not installed (make test installs Debian's package as root with apt-get)"


def bash_syntax(script: Path) -> None:
    assert BASH is not None, "bash is needed to test the plans"
    done = subprocess.run([BASH, "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, f"bash -n {script.name}: {done.stderr[:2000]}"


def shellcheck(script: Path) -> None:
    if SHELLCHECK is None:
        pytest.skip(SKIP_SHELLCHECK)
    done = subprocess.run([SHELLCHECK, "--shell=bash", "--format=gcc", str(script)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, f"shellcheck {script.name}:\n{done.stdout[:4000]}{done.stderr[:2000]}"


def stubs(directory: Path, names: list[str]) -> Path:
    """A directory of stub commands: each call records its name and arguments (NUL-separated) in a
    file of its own under `directory/log`, numbered in call order; `calls(directory)` reads them back."""
    (directory / "log").mkdir(parents=True, exist_ok=True)
    for name in names:
        stub = directory / name
        stub.write_text("#!/bin/sh\n"
                        f'log="{directory}/log"; n=$(cat "$log/n" 2>/dev/null || echo 0); echo $((n + 1)) > "$log/n"\n'
                        f"printf '%s\\0' {name} \"$@\" > \"$log/call.$n\"\n")
        stub.chmod(0o755)
    return directory


def calls(directory: Path) -> list[list[str]]:
    """Every stub call, in order: [name, arg1, …], decoded as UTF-8."""
    files = sorted((directory / "log").glob("call.*"), key=lambda p: int(p.suffix[1:]))
    return [p.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1] for p in files]


def run_group(script: Path, group: str | None, stub_dir: Path) -> subprocess.CompletedProcess[bytes]:
    """`bash script GROUP` with only the stubs (and the basic tools) on PATH, in a UTF-8 locale."""
    assert BASH is not None
    env = {"PATH": f"{stub_dir}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(stub_dir)}
    argv = [BASH, str(script), *([group] if group else [])]
    return subprocess.run(argv, capture_output=True, timeout=30, env=env, cwd=os.fspath(stub_dir))
