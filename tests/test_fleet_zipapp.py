"""The zipapp shipped to nodes: what it holds, the Python it needs, and `capture` run from it.

It is built once for the module; the captures run it as a node would, with nothing of this virtualenv:
`-I -S` (no site-packages, no environment variables, no user site) and a bare environment.
"""

from __future__ import annotations

import ast
import glob
import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from fleet_nodes_support import Node, built_zipapp, link_width_path, write_node
from stackaudit.fleet.zipapp import (
    ARCHIVE_INFO,
    OWN_REQUIRES_PYTHON,
    VENDORED,
    minimum_python,
    vendored_distributions,
)
from stackaudit.host.snapshot_reader import load_snapshot

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
# Rules vermin reports in vendored code that is guarded by a version check or has a fallback beside it
# (packaging: `if sys.version_info >= (3, 11): from typing import Self`, its own ExceptionGroup class for
# Python < 3.11, `warnings.deprecated` on >= 3.13 only). Anything else it finds fails the test.
VERMIN_GUARDED = ("typing.Self", "ExceptionGroup", "warnings.deprecated")


@pytest.fixture(scope="module")
def pyz() -> Path:
    return Path(built_zipapp())


@pytest.fixture(scope="module")
def extracted(pyz: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("extracted")
    with zipfile.ZipFile(pyz) as zf:
        zf.extractall(out, [n for n in zf.namelist() if not n.endswith(".pyc")])
    return out


def _version(python: str) -> tuple[int, int] | None:
    try:
        proc = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    major, minor = proc.stdout.strip().split(".")
    return int(major), int(minor)


def _interpreters() -> dict[str, tuple[int, int]]:
    """The venv's Python, /usr/bin/python3, and the interpreters installed beside the venv's base one
    (pyenv, uv and the like keep each version in a sibling directory)."""
    found: dict[str, tuple[int, int]] = {}
    candidates = [sys.executable, "/usr/bin/python3"]
    candidates += sorted(glob.glob(os.path.join(os.path.dirname(sys.base_prefix), "*", "bin", "python3")))
    candidates += sorted(glob.glob(os.path.join(os.path.dirname(sys.base_prefix), "*", "bin", "python2")))
    for python in candidates:
        real = os.path.realpath(python)
        if real in {os.path.realpath(p) for p in found} or not os.access(python, os.X_OK):
            continue
        version = _version(python)
        if version is not None:
            found[python] = version
    return found


INTERPRETERS = _interpreters()


def _run_capture(python: str, pyz: Path, output: Path, root: Path) -> subprocess.CompletedProcess[str]:
    # -I: no PYTHON* variables, no user site, not the script's directory; -S: no site-packages at all.
    return subprocess.run([python, "-I", "-S", str(pyz), "capture", "--output", str(output), "--root", str(root)],
                          capture_output=True, text=True, timeout=120, cwd=output.parent,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"})


def test_minimum_python_is_the_highest_requires_python_of_what_is_bundled() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == OWN_REQUIRES_PYTHON
    bounds = [OWN_REQUIRES_PYTHON] + [metadata.distribution(n).metadata.get("Requires-Python") or "" for n in VENDORED]
    lowest = max(tuple(int(x) for x in b.lstrip(">=~ ").split(",")[0].split(".")[:2]) for b in bounds if b)
    assert minimum_python() == lowest
    assert minimum_python() >= (3, 10)


def test_archive_holds_sources_only_and_nothing_the_node_does_not_run(pyz: Path) -> None:
    with zipfile.ZipFile(pyz) as zf:
        names = zf.namelist()
        info = zf.read(ARCHIVE_INFO).decode()
    # zipimport loads no compiled extension, and one built for this interpreter would be wrong on a node.
    assert not [n for n in names if n.endswith((".so", ".pyd", ".dll"))]
    assert not [n for n in names if n.startswith(("stackaudit/cli/", "stackaudit/bench/"))]
    assert {"__main__.py", "pynvml.py", "packaging/version.py", "tomli/_parser.py", "stackaudit/capture.py",
            "stackaudit/data/gpus.toml", "vendor-licenses/packaging/LICENSE"} <= set(names)
    assert not [n for n in names if n.split("/")[0] in {"rich", "typer", "click", "aiohttp", "yaml", "psutil"}]
    for name in VENDORED:
        assert f'"{name}": "{metadata.version(name)}"' in info


def test_every_file_parses_as_the_minimum_python(extracted: Path) -> None:
    major, minor = minimum_python()
    sources = sorted(extracted.rglob("*.py"))
    assert len(sources) > 150
    for source in sources:
        ast.parse(source.read_text(encoding="utf-8"), str(source), feature_version=(major, minor))
    # The entry point itself parses as very old Python 3 too, to print its one-line refusal there.
    ast.parse((extracted / "__main__.py").read_text(), feature_version=(3, 4))


def test_vermin_finds_nothing_newer_than_the_minimum(extracted: Path) -> None:
    major, minor = minimum_python()
    vermin = os.path.join(os.path.dirname(sys.executable), "vermin")
    if not os.access(vermin, os.X_OK):
        pytest.skip("vermin is not installed (the test extra installs it)")
    excludes = [arg for rule in VERMIN_GUARDED for arg in ("--exclude", rule)]
    proc = subprocess.run([vermin, f"-t={major}.{minor}-", "--violations", "--no-tips", "-q", "-p=2", *excludes,
                           str(extracted)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]


def _capturing_interpreters(interpreters: dict[str, tuple[int, int]]) -> list[str]:
    """The interpreters to capture with: the venv's, /usr/bin/python3 (where it is another), and the
    oldest installed one that meets the minimum (the version the archive claims to run on)."""
    ok = {p: v for p, v in interpreters.items() if v >= minimum_python()}
    chosen = [p for p in (sys.executable, "/usr/bin/python3") if p in ok]
    if ok:
        chosen.append(min(ok, key=lambda p: ok[p]))
    return list(dict.fromkeys(chosen))


@pytest.mark.parametrize("python", _capturing_interpreters(INTERPRETERS))
def test_capture_runs_from_the_zipapp_with_nothing_installed(python: str, pyz: Path, tmp_path: Path) -> None:
    node = Node("gpu-node-17", driver="580.65.06", narrow_gpu="0000:4c:00.0", numa_balancing="1",
                cmdline_extra="iommu=pt")
    root = write_node(node, tmp_path / "root")
    output = tmp_path / "snapshot.tar.gz"
    proc = _run_capture(python, pyz, output, root)
    assert proc.returncode == 0, proc.stderr
    assert "stackaudit: wrote" in proc.stderr
    host = load_snapshot(str(output))
    assert host.meta.hostname == "gpu-node-17"
    assert host.read_bytes("/sys/module/nvidia/version") == b"580.65.06\n"
    assert host.read_bytes(link_width_path("0000:4c:00.0")) == b"8\n"
    assert host.read_bytes(link_width_path("0000:19:00.0")) == b"16\n"
    assert host.read_bytes("/proc/sys/kernel/numa_balancing") == b"1\n"
    assert b"iommu=pt" in host.read_bytes("/proc/cmdline")
    # Captured on this interpreter from the archive's copy of the rules, it is replayed here without being
    # redacted again: the fingerprint is the rules' bytes, the same on every Python (fleet analysis speed).
    from stackaudit.host.redact import rules_fingerprint

    assert host.redacted_with == rules_fingerprint() != ""


def test_capture_errors_are_one_line_and_exit_2(pyz: Path, tmp_path: Path) -> None:
    proc = _run_capture(sys.executable, pyz, tmp_path / "s.tar.gz", tmp_path / "missing")
    assert proc.returncode == 2
    assert proc.stderr == f"stackaudit: error: --root {tmp_path / 'missing'}: not a directory\n"
    (tmp_path / "taken.tar.gz").write_text("")
    proc = _run_capture(sys.executable, pyz, tmp_path / "taken.tar.gz", tmp_path)
    assert proc.returncode == 2 and "exists; choose a new path" in proc.stderr


OLDER = sorted(p for p, v in INTERPRETERS.items() if v < minimum_python())


@pytest.mark.skipif(not OLDER, reason="no interpreter older than the minimum is installed here")
def test_an_older_python_is_refused_with_one_line(pyz: Path) -> None:
    major, minor = minimum_python()
    for python in OLDER:
        proc = subprocess.run([python, str(pyz), "--version"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (python, proc.stderr)
        assert proc.stderr.startswith(f"stackaudit: error: stackaudit.pyz needs Python >= {major}.{minor}; ")
        assert proc.stderr.count("\n") == 1


def test_without_tomli_the_archive_claims_the_python_that_has_tomllib(monkeypatch: pytest.MonkeyPatch) -> None:
    real = metadata.distribution

    def without_tomli(name: str) -> metadata.Distribution:
        if name == "tomli":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", without_tomli)
    assert minimum_python() == (3, 11)  # packaging's 3.10 and stackaudit's 3.10, but no tomli for 3.10
    assert [d.metadata["Name"] for d in vendored_distributions()] == ["packaging", "nvidia-ml-py"]
