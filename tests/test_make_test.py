"""`make test` runs the tests marked serial in a second pytest over the files SERIAL_TESTS names: a serial test
in any other file would run in neither part."""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _serial_glob() -> str:
    m = re.search(r"^SERIAL_TESTS := \$\(wildcard (\S+)\)$", (REPO / "Makefile").read_text(), re.M)
    assert m, "the Makefile names no SERIAL_TESTS"
    return m.group(1)


def _marks_serial(path: Path) -> bool:
    """Whether the file applies the `serial` mark anywhere (a decorator, pytestmark, a param's marks)."""
    tree = ast.parse(path.read_text(), str(path))
    return any(isinstance(node, ast.Attribute) and node.attr == "serial"
               and isinstance(node.value, ast.Attribute) and node.value.attr == "mark" for node in ast.walk(tree))


def test_every_file_with_a_serial_test_is_in_the_serial_part() -> None:
    glob = _serial_glob()
    marked = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("*.py") if _marks_serial(p)}
    assert marked, "no test is marked serial: the scan is broken"
    assert sorted(p for p in marked if not fnmatch.fnmatch(p, glob)) == []


def test_the_scan_sees_a_serial_mark_in_every_form(tmp_path: Path) -> None:
    forms = ["@pytest.mark.serial\ndef test_a() -> None: ...\n", "pytestmark = pytest.mark.serial\n",
             "pytestmark = [pytest.mark.slow, pytest.mark.serial]\n",
             "import pytest\nP = [pytest.param(1, marks=pytest.mark.serial)]\n"]
    for i, text in enumerate(forms):
        (tmp_path / f"t{i}.py").write_text(text)
        assert _marks_serial(tmp_path / f"t{i}.py"), text
    (tmp_path / "none.py").write_text("@pytest.mark.slow\ndef test_b() -> None: ...\n# mark.serial in a comment\n")
    assert not _marks_serial(tmp_path / "none.py")
