"""The one output writer (render.write): owner-only from the start, never through a planted link, never
over an existing file without force, and nothing left behind when it fails."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from stackaudit.errors import InputError
from stackaudit.render.write import write_file


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_is_0600_and_holds_the_text(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    write_file(str(out), "ünïcode\n")
    assert out.read_bytes() == "ünïcode\n".encode() and mode(out) == 0o600


def test_an_existing_file_is_kept_without_force_and_replaced_with_it(tmp_path: Path) -> None:
    out = tmp_path / "plan.sh"
    out.write_text("mine")
    with pytest.raises(InputError, match="exists; choose a new path or pass --force"):
        write_file(str(out), "theirs")
    assert out.read_text() == "mine"
    write_file(str(out), b"theirs", force=True)
    assert out.read_text() == "theirs" and mode(out) == 0o600
    assert os.listdir(tmp_path) == ["plan.sh"]  # no temporary file left


def test_a_link_at_the_name_is_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    out = tmp_path / "out.json"
    out.symlink_to(victim)
    with pytest.raises(InputError):
        write_file(str(out), "x")
    write_file(str(out), "x", force=True)  # the link itself is replaced by a file
    assert victim.read_text() == "keep" and not out.is_symlink() and out.read_text() == "x"


def test_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"directory .* does not exist"):
        write_file(str(tmp_path / "no" / "out.txt"), "x", force=True)


def test_a_report_written_with_output_is_readable_by_others(tmp_path: Path) -> None:
    """node_exporter's textfile collector does not run as root: a Prometheus file written with `-o` must be
    readable by it, as the report holds no secret."""
    from stackaudit.cli.output import emit

    out = tmp_path / "stackaudit.prom"
    old = os.umask(0o022)
    try:
        emit("stackaudit_checks 1\n", str(out))
    finally:
        os.umask(old)
    assert out.read_text() == "stackaudit_checks 1\n" and mode(out) == 0o644
