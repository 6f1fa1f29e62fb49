"""Snapshot bombs and damaged snapshots: refused with exit 2 and one line, bounded, never exit 3."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from hostile_support import run_child, stackaudit

from stackaudit.host.memory import HostRecord
from stackaudit.host.snapshot_writer import write_snapshot


def _record() -> HostRecord:
    record = HostRecord(meta={"format": 2, "hostname": "snap-host", "uid": 0, "source": "snapshot"})
    record.files["/proc/cmdline"] = b"BOOT_IMAGE=/vmlinuz ro iommu=pt\n"
    record.files["/etc/hostname"] = b"snap-host\n"
    return record


def _tar(members: list[tuple[str, bytes]], path: Path, sizes: dict[str, int] | None = None) -> None:
    """A .tar.gz of members; `sizes` declares a member's size in its header larger than its data."""
    with gzip.open(path, "wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _audit(snapshot: Path, tmp: Path, *extra: str):  # type: ignore[no-untyped-def]
    return run_child(stackaudit("audit", "--from", str(snapshot), "--format", "json", "--select", "KERN",
                                *extra), tmp)


def test_a_bomb_of_many_members_is_refused_while_small(tmp_path: Path) -> None:
    """70 members of 8 MiB of zeros (560 MiB in under 4 MiB compressed): refused by its ratio at 64 MiB."""
    bomb = tmp_path / "bomb.tar.gz"
    zeros = bytes(8 * 1024 * 1024)
    meta = json.dumps({"format": 2, "hostname": "b"}).encode()
    with gzip.open(bomb, "wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        info = tarfile.TarInfo("meta.json")
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
        for n in range(70):
            info = tarfile.TarInfo(f"fs/zero{n}")
            info.size = len(zeros)
            tar.addfile(info, io.BytesIO(zeros))
    assert bomb.stat().st_size < 4 * 1024 * 1024
    run = _audit(bomb, tmp_path)
    assert run.rc == 2
    assert "decompression bomb" in run.one_line_error()
    run.assert_bounded()


def test_the_byte_and_member_bounds_with_small_caps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same bounds, in process with small caps: the sum of members and their count."""
    from stackaudit.errors import InputError
    from stackaudit.host import snapshot_reader

    snap = tmp_path / "s.tar.gz"
    _tar([("meta.json", b'{"format": 1}')] + [(f"fs/f{n}", os.urandom(300_000)) for n in range(4)], snap)
    monkeypatch.setattr(snapshot_reader, "MAX_SNAPSHOT_BYTES", 1_000_000)
    with pytest.raises(InputError, match=r"refused: more than 0 MiB of members \(at fs/f3\)"):
        snapshot_reader.load_snapshot(str(snap))
    monkeypatch.setattr(snapshot_reader, "MAX_SNAPSHOT_BYTES", 512 << 20)
    monkeypatch.setattr(snapshot_reader, "MAX_SNAPSHOT_MEMBERS", 3)
    with pytest.raises(InputError, match="more than 3 members"):
        snapshot_reader.load_snapshot(str(snap))


def test_a_member_declared_past_its_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 2 GiB sparse member (GNU tar --sparse): its declared size is refused, nothing decompressed."""
    if shutil.which("tar") is None:
        pytest.skip("no tar binary")
    tree = tmp_path / "t"
    (tree / "fs").mkdir(parents=True)
    (tree / "meta.json").write_text(json.dumps({"format": 1, "hostname": "s"}))
    with open(tree / "fs" / "sparse", "wb") as fh:
        fh.truncate(2 * 1024 ** 3)
    out = tmp_path / "sparse.tar.gz"
    subprocess.run(["tar", "--sparse", "-czf", str(out), "-C", str(tree), "meta.json", "fs"], check=True, timeout=60)
    run = _audit(out, tmp_path)
    assert run.rc == 2
    assert "fs/sparse" in run.one_line_error() and "over the limit" in run.err
    run.assert_bounded()


def test_a_directory_snapshot_with_sparse_files_is_refused(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    write_snapshot(_record(), str(snap))
    for name in ("big1", "big2"):
        with open(snap / "fs" / name, "wb") as fh:
            fh.truncate(2 * 1024 ** 3)
    run = _audit(snap, tmp_path)
    assert run.rc == 2
    assert "fs/big1" in run.one_line_error()
    run.assert_bounded()


def test_a_fifo_inside_a_directory_snapshot_is_never_opened(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    write_snapshot(_record(), str(snap))
    os.mkfifo(snap / "fs" / "etc" / "motd")
    run = _audit(snap, tmp_path)
    assert run.rc in (0, 1), run.err
    run.assert_bounded()


def test_a_deep_directory_snapshot_is_refused_without_recursion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the working directory is restored after the test (later tests use relative paths)
    snap = tmp_path / "snap"
    write_snapshot(_record(), str(snap))
    deep = snap / "fs"
    os.chdir(deep)  # 1900 levels are past PATH_MAX as one path: build them relative
    try:
        for _ in range(1900):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(tmp_path)
    try:
        run = _audit(snap, tmp_path)
    finally:
        _remove_chain(deep, 1900)
    assert run.rc == 2
    assert "nested deeper than 64" in run.one_line_error()
    run.assert_bounded()


def _remove_chain(top: Path, depth: int) -> None:
    """Remove the d/d/.../d chain bottom-up (shutil.rmtree would recurse 1900 levels)."""
    os.chdir(top)
    try:
        for _ in range(depth):
            os.chdir("d")
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(top.parent)


@pytest.mark.parametrize("member,payload,expected", [
    ("meta.json", "[" * 100_000 + "]" * 100_000, "nests deeper"),
    ("meta.json", '["a list, not an object"]', "not a JSON object"),
    ("meta.json", '{"format": 1, "hostname": "\\ud800"}', "lone surrogate"),
    ("cmd/uname__-a.json", '{"argv": ["uname", "-a"], "returncode": 1e999, "stdout": ""}', "out of range"),
    ("cmd/uname__-a.json", '{"argv": ["uname"], "returncode": Infinity, "stdout": ""}', "not a JSON number"),
    ("dirs.json", '{"/proc": "not a list"}', "not a list"),
])
def test_bad_json_members_are_exit_2_never_3(tmp_path: Path, member: str, payload: str, expected: str) -> None:
    members = [("meta.json", json.dumps({"format": 1, "hostname": "j"}).encode())]
    members = [m for m in members if m[0] != member] + [(member, payload.encode())]
    snap = tmp_path / "bad.tar.gz"
    _tar(members, snap)
    run = _audit(snap, tmp_path)
    assert run.rc == 2, run.err
    assert expected in run.one_line_error()
    run.assert_bounded()


def test_a_gzip_overwritten_mid_file_is_refused_unless_allow_partial(tmp_path: Path) -> None:
    snap = tmp_path / "snap.tar.gz"
    record = _record()
    for n in range(40):  # enough incompressible bytes that the damage lands inside the stream
        record.files[f"/proc/filler{n}"] = os.urandom(4096)
    write_snapshot(record, str(snap))
    data = bytearray(snap.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    snap.write_bytes(bytes(data))
    run = _audit(snap, tmp_path)
    assert run.rc == 2
    assert "snap.tar.gz" in run.one_line_error()
    run.assert_bounded()
    partial = _audit(snap, tmp_path, "--allow-partial")
    assert partial.rc in (0, 1), partial.err
    assert json.loads(partial.out)["source"]["partial"] is True


def test_a_directory_capture_cut_short_is_refused_naming_the_member(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    write_snapshot(_record(), str(snap))
    (snap / "fs" / "proc" / "cmdline").write_bytes(b"tampered\n")
    run = _audit(snap, tmp_path)
    assert run.rc == 2
    assert "fs/proc/cmdline" in run.one_line_error()
    (snap / "manifest.json").unlink()  # as a capture killed before its last member
    run = _audit(snap, tmp_path)
    assert run.rc == 2
    assert "manifest.json" in run.one_line_error()
    partial = _audit(snap, tmp_path, "--allow-partial")
    assert partial.rc in (0, 1), partial.err
    assert json.loads(partial.out)["source"]["partial"] is True


def test_an_intact_snapshot_is_not_partial_and_format_1_still_replays(tmp_path: Path) -> None:
    snap = tmp_path / "snap.tar.gz"
    write_snapshot(_record(), str(snap))
    run = _audit(snap, tmp_path)
    assert run.rc in (0, 1), run.err
    assert "partial" not in json.loads(run.out)["source"]
    old = tmp_path / "old.tar.gz"  # format 1: no manifest, as earlier versions wrote
    _tar([("meta.json", json.dumps({"format": 1, "hostname": "old"}).encode()),
          ("fs/proc/cmdline", b"ro quiet\n")], old)
    run = _audit(old, tmp_path)
    assert run.rc in (0, 1), run.err
    assert json.loads(run.out)["host"]["hostname"] == "old"


@pytest.mark.parametrize("source", ["fifo", "/dev/zero", "/dev/urandom"])
def test_from_takes_only_regular_files_and_directories(tmp_path: Path, source: str) -> None:
    path = source
    if source == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    run = run_child(stackaudit("audit", "--from", path), tmp_path, timeout=20)
    assert run.rc == 2
    assert "not a regular file or directory" in run.one_line_error()
    run.assert_bounded()
    assert run.wall_s < 10


def test_a_member_name_climbing_out_is_refused(tmp_path: Path) -> None:
    snap = tmp_path / "evil.tar.gz"
    _tar([("meta.json", b'{"format": 1}'), ("fs/proc/1/root/../../../../etc/cron.d/x", b"* * * * * root id\n")], snap)
    run = _audit(snap, tmp_path)
    # Normalised inside the snapshot (fs/etc/cron.d/x): data, never a location; the audit still runs.
    assert run.rc in (0, 1, 2)
    assert "Traceback" not in run.err
    assert not os.path.exists("/etc/cron.d/x")
