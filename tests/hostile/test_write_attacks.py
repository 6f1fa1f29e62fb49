"""Writes: capture creates its output itself (0700 directory, or one tarball through an exclusive
temporary file), never follows a planted link, and a failed or interrupted write leaves nothing."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import pytest
from hostile_support import run_child, stackaudit, tree

from stackaudit.capture import capture_host
from stackaudit.errors import InputError
from stackaudit.host.memory import fake_host
from stackaudit.host.snapshot_reader import load_snapshot


def _small_root(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "cmdline").write_text("ro quiet\n")
    return root


@pytest.mark.parametrize("planted", ["file", "link", "empty-dir"])
def test_capture_refuses_an_existing_output_and_follows_no_link(tmp_path: Path, planted: str) -> None:
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    out = tmp_path / "out" / "snap.tar.gz"
    out.parent.mkdir()
    if planted == "file":
        out.write_text("mine\n")
    elif planted == "link":
        out.symlink_to(victim)
    else:
        out = tmp_path / "out" / "snapdir"
        out.mkdir()
    before = tree(tmp_path)
    run = run_child(stackaudit("capture", "--root", str(_small_root(tmp_path)), "-o", str(out)), tmp_path)
    assert run.rc == 2
    assert "exists" in run.one_line_error()
    run.assert_bounded()
    assert victim.read_text() == "untouched\n"
    assert tree(tmp_path) == before | {"host", "host/proc", "host/proc/cmdline"}


def test_a_directory_capture_is_created_0700_with_a_manifest(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    run = run_child(stackaudit("capture", "--root", str(_small_root(tmp_path)), "-o", str(out)), tmp_path)
    assert run.rc == 0, run.err
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert (out / "manifest.json").is_file()
    assert "redacted" in run.err
    assert load_snapshot(str(out)).read_bytes("/proc/cmdline") == b"ro quiet\n"


def test_a_capture_into_a_missing_directory_is_one_line_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "no-such-dir" / "snap.tar.gz"
    run = run_child(stackaudit("capture", "--root", str(_small_root(tmp_path)), "-o", str(out)), tmp_path)
    assert run.rc == 2
    assert "cannot write" in run.one_line_error()
    assert not (tmp_path / "no-such-dir").exists()


@pytest.mark.parametrize("suffix", [".tar.gz", "-dir"])
@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_an_interrupted_or_failed_write_removes_what_it_began(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               suffix: str, failure: BaseException) -> None:
    written = {"n": 0}

    def fail_after_some(*args, **kwargs):  # type: ignore[no-untyped-def]
        written["n"] += 1
        if written["n"] > 3:
            raise failure
        return real_addfile(*args, **kwargs)

    if suffix == ".tar.gz":
        real_addfile = tarfile.TarFile.addfile
        monkeypatch.setattr(tarfile.TarFile, "addfile", fail_after_some)
    else:
        import stackaudit.host.snapshot_writer as snapshot_writer

        real_addfile = snapshot_writer._make_dirs
        monkeypatch.setattr(snapshot_writer, "_make_dirs", fail_after_some)
    out = tmp_path / f"snap{suffix}"
    host = fake_host(files={"/proc/cmdline": "ro\n", "/etc/hostname": "h\n", "/proc/modules": "nvidia 1 0\n"})
    with pytest.raises(InputError, match="nothing was left behind"):
        capture_host(host, str(out))
    assert list(tmp_path.iterdir()) == []


def test_a_link_planted_at_the_old_part_name_is_not_followed(tmp_path: Path) -> None:
    """`audit -o report.json` used report.json.part; a link planted there must not be written through."""
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    (tmp_path / "report.json.part").symlink_to(victim)
    snap = tmp_path / "s.tar.gz"
    capture_host(fake_host(files={"/proc/cmdline": "ro\n"}), str(snap))
    run = run_child(stackaudit("audit", "--from", str(snap), "-f", "json", "-o", str(tmp_path / "report.json")),
                    tmp_path)
    assert run.rc in (0, 1), run.err
    assert victim.read_text() == "untouched\n"
    assert (tmp_path / "report.json").is_file() and not (tmp_path / "report.json").is_symlink()
    assert {p.name for p in tmp_path.iterdir()} == {"victim", "report.json.part", "s.tar.gz", "report.json"}


def test_a_filesystem_without_hard_links_still_gets_its_tarball(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    out = tmp_path / "s.tar.gz"
    capture_host(fake_host(files={"/proc/cmdline": "ro\n"}), str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["s.tar.gz"]
    assert load_snapshot(str(out)).read_bytes("/proc/cmdline") == b"ro\n"
