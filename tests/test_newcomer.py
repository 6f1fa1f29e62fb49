"""A newcomer's first run, from a clone: `make run` prints a report with no warning from our set-up, and
the wheel the project builds installs into a fresh virtual environment and runs.

The clone is of the commit the tests run from (HEAD of this checkout), into a temporary folder; `make
run` runs there with an empty HOME and no PIP_* variable of this machine's. Two things are the test's
own, not the newcomer's: PIP_CONFIG_FILE names a pip configuration written here, so that this machine's
pip settings (an index, find-links, an extra-index-url pip warns about) do not change what is judged,
keeping only the certificate bundle the machine's network needs (a TLS proxy) and a download cache kept
between runs (so a second run does not download everything again). Slow (a venv and ~20 packages):
`make test` runs it, `make test-fast` does not. Durations are printed (`pytest -s`), not asserted.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
# A line our Makefile or pip would print when something in the set-up is off.
WARNING = re.compile(r"WARNING|[Ww]arning:|DEPRECATION:")


def _machine_cert() -> str | None:
    """The certificate bundle this machine's pip is told to trust (PIP_CERT, or `cert` in a pip.conf)."""
    if os.environ.get("PIP_CERT"):
        return os.environ["PIP_CERT"]
    parser = configparser.ConfigParser()
    parser.read(["/etc/pip.conf", os.path.expanduser("~/.config/pip/pip.conf"), os.path.expanduser("~/.pip/pip.conf")])
    cert = parser.get("global", "cert", fallback=None)
    return cert if cert and os.path.isfile(cert) else None


def _cache_dir() -> Path:
    """The download cache kept between runs: in this user's cache, never in the clone or the empty HOME."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "stackaudit" / "newcomer-pip"


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def _reachable(host: str, port: int = 443) -> bool:
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError:
        return False
    return True


def test_a_newcomer_clones_runs_and_installs(tmp_path: Path) -> None:
    for tool in ("git", "make", "python3"):
        if shutil.which(tool) is None:
            pytest.skip(f"needs {tool} on PATH")
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    if head.returncode != 0:
        pytest.skip("not a git checkout: nothing to clone")
    if not _reachable("pypi.org"):
        pytest.skip("no network to pypi.org: make run installs the dependencies from it")
    clone, home, wheels = tmp_path / "clone", tmp_path / "home", tmp_path / "wheels"
    home.mkdir()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(clone)], check=True, timeout=120,
                   capture_output=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", "--detach", head.stdout.strip()], check=True,
                   timeout=120, capture_output=True)

    pip_conf = tmp_path / "pip.conf"
    cert = _machine_cert()
    pip_conf.write_text("[global]\n" + (f"cert = {cert}\n" if cert else "") + f"cache-dir = {_cache_dir()}\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
           "PIP_CONFIG_FILE": str(pip_conf)}
    for name in ("PYENV_ROOT", "PYENV_VERSION", "TMPDIR"):  # where the machine's python3 itself lives
        if name in os.environ:
            env[name] = os.environ[name]

    times: dict[str, float] = {}
    start = time.perf_counter()
    run = _run(["make", "run"], clone, env, timeout=900)
    times["make run"] = time.perf_counter() - start
    said = run.stdout + run.stderr
    assert run.returncode == 0, said[-3000:]
    assert re.search(r"^stackaudit \d+\.\d+\.\d+ · .* · live host", run.stdout, re.M), run.stdout[:2000]
    assert "Verdict:" in run.stdout
    warnings = [line for line in said.splitlines() if WARNING.search(line)]
    assert not warnings, warnings

    start = time.perf_counter()
    built = _run([str(clone / ".venv" / "bin" / "python"), "-m", "pip", "wheel", "-q", "-w", str(wheels), "."],
                 clone, env, timeout=600)
    times["pip wheel"] = time.perf_counter() - start
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = wheels.glob("stackaudit-*.whl")
    assert not [line for line in built.stderr.splitlines() if WARNING.search(line)], built.stderr

    start = time.perf_counter()
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable if shutil.which("python3") is None else "python3", "-m", "venv", "--without-pip",
                    str(fresh)], env=env, check=True, timeout=120, capture_output=True)
    # The clone's pip installs into the new environment (pip --python): no pip of its own to bootstrap.
    installed = _run([str(clone / ".venv" / "bin" / "python"), "-m", "pip", "--python", str(fresh / "bin" / "python"),
                      "install", "-q", "--no-index", "--find-links", str(wheels), str(wheel)], clone, env, timeout=600)
    assert installed.returncode == 0, installed.stderr[-3000:]
    version = _run([str(fresh / "bin" / "stackaudit"), "--version"], tmp_path, env, timeout=60)
    times["fresh venv"] = time.perf_counter() - start
    assert version.returncode == 0 and re.fullmatch(r"stackaudit \d+\.\d+\.\d+\n", version.stdout), version
    print("newcomer: " + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in times.items())
          + f"; total {sum(times.values()):.1f} s")
