"""Paths from the host are data: a process's --config, links out of --root, FIFOs, devices, races."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_support import needs_root, run_child, stackaudit, tree

from stackaudit.host import confined
from stackaudit.host.live import LiveHost

NOBODY = 65534
SYSTEM_PYTHON = "/usr/bin/python3"


def _reachable_by_others(path: Path) -> bool:
    """Whether every folder from / down to `path` lets other users through (o+x)."""
    return all(p.stat().st_mode & 0o001 for p in (path, *path.parents))


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory `nobody` can reach (pytest's tmp_path is root-only). It is made fresh under $TMPDIR, or, where
    $TMPDIR is private (`TMPDIR=$(mktemp -d)` is 0700), under the system's temporary folder, which is 1777."""
    base = Path(tempfile.gettempdir()).resolve()
    if not _reachable_by_others(base):
        base = next(p for p in (Path("/var/tmp"), Path("/tmp")) if p.is_dir() and _reachable_by_others(p))
    path = Path(tempfile.mkdtemp(prefix="stackaudit-hostile-", dir=base))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _fake_engine(workdir: Path, config: str) -> subprocess.Popen[bytes]:
    """`python3 .../vllm serve m --config CONFIG` run as nobody in workdir: a vLLM API server to /proc."""
    script = workdir / "vllm"
    script.write_text("import time\ntime.sleep(120)\n")
    script.chmod(0o755)
    return subprocess.Popen([SYSTEM_PYTHON, str(script), "serve", "m", "--config", config], cwd=workdir,
                            user=NOBODY, group=NOBODY, extra_groups=[], stdin=subprocess.DEVNULL,
                            start_new_session=True)


@needs_root
@pytest.mark.skipif(not os.access(SYSTEM_PYTHON, os.X_OK), reason="no system python for nobody")
@pytest.mark.parametrize("form", ["snap.tar.gz", "snapdir"])
def test_a_config_named_by_nobody_is_read_with_nobodys_rights(shared_dir: Path, form: str) -> None:
    """The Critical and High findings: nobody's engine names root's 0600 file (by `..` and by a link);
    root's capture neither reads it nor writes anything but its own output. A file nobody may read is."""
    secret_dir = shared_dir / "root-only"
    secret_dir.mkdir(mode=0o700)
    secret = secret_dir / "secret.yaml"
    secret.write_text("tensor_parallel_size: 7\napi_key_note: ROOT-ONLY-MARKER\n")
    secret.chmod(0o600)
    work = shared_dir / "engine"
    work.mkdir(mode=0o777)
    work.chmod(0o777)
    (work / "link.yaml").symlink_to(secret)
    readable = work / "mine.yaml"
    readable.write_text("tensor_parallel_size: 3\n")
    readable.chmod(0o644)
    out_dir = shared_dir / "out"
    out_dir.mkdir(mode=0o700)
    # An absolute path with `..` enough to climb out of any snapshot directory if it were joined into one
    # (the earlier build wrote `fs/proc/PID/root/etc/../../..` below the output): it names a readable file.
    climb = "/etc/" + "../" * 12 + str(readable.relative_to("/"))
    engines = [_fake_engine(work, "../root-only/../root-only/secret.yaml"), _fake_engine(work, "link.yaml"),
               _fake_engine(work, "mine.yaml"), _fake_engine(work, climb)]
    try:
        time.sleep(0.5)
        before = tree(shared_dir)
        snap = out_dir / form
        run = run_child(stackaudit("capture", "-o", str(snap), "--deadline", "25"), out_dir, timeout=90)
    finally:
        for proc in engines:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert run.rc == 0, run.err
    run.assert_bounded()
    after = tree(shared_dir)
    assert {p for p in after - before if not p.startswith(f"out/{form}/")} == {f"out/{form}"}
    if form.endswith(".tar.gz"):
        with tarfile.open(snap) as tar:
            names = tar.getnames()
            blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
    else:
        names = sorted(after - before)
        blob = b"".join((shared_dir / p).read_bytes() for p in names if (shared_dir / p).is_file()
                        and not (shared_dir / p).is_symlink())
        names = [p[len(f"out/{form}/"):] for p in names if p.startswith(f"out/{form}/")]
    assert b"ROOT-ONLY-MARKER" not in blob
    assert not any(".." in name.split("/") for name in names)
    mine = [n for n in names if n.endswith("/engine/mine.yaml")]
    assert mine and all(n.startswith("fs/proc/") and "/root/" in n for n in mine), names


def test_a_path_component_swapped_for_a_link_between_checks_is_not_followed(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The race: `a` is a directory when checked, a link to outside when opened. O_NOFOLLOW refuses it."""
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "f").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f").write_text("OUTSIDE\n")
    real_check = confined._link_target

    def check_then_swap(name: str, dir_fd: int) -> str | None:
        answer = real_check(name, dir_fd)
        if name == "a":
            os.rename(root / "a", root / "a.real")
            os.symlink(outside, root / "a")
        return answer

    monkeypatch.setattr(confined, "_link_target", check_then_swap)
    with pytest.raises(OSError) as caught:
        confined.read_file(str(root), "/a/f", 1024)
    assert caught.value.errno in (errno.ELOOP, errno.ENOTDIR)


def _root_tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "host"
    (root / "proc").mkdir(parents=True)
    (root / "etc").mkdir()
    outside = tmp_path / "outside-secret"
    outside.write_text("OUTSIDE-MARKER\n")
    return root, outside


def test_root_links_resolve_inside_root_never_out(tmp_path: Path) -> None:
    root, outside = _root_tree(tmp_path)
    (root / "proc" / "cmdline").symlink_to(outside)  # DIR/proc/cmdline -> /anything
    (root / "etc" / "hostname").symlink_to("../../outside-secret")
    (root / "inside").write_text("ro quiet\n")
    (root / "proc" / "relative").symlink_to("../inside")
    host = LiveHost(root=str(root))
    with pytest.raises(FileNotFoundError):
        host.read_bytes("/proc/cmdline")  # resolved as DIR + outside's path: not there
    with pytest.raises(FileNotFoundError):
        host.read_bytes("/etc/hostname")  # `..` stops at DIR
    assert host.read_bytes("/proc/relative") == b"ro quiet\n"
    (root / "proc" / "cmdline").unlink()
    (root / "proc" / "cmdline").symlink_to("/inside")  # absolute: DIR/inside
    assert host.read_bytes("/proc/cmdline") == b"ro quiet\n"
    assert "OUTSIDE" not in host.meta.hostname


def test_root_capture_with_a_fifo_hostname_and_a_link_out_is_bounded(tmp_path: Path) -> None:
    root, outside = _root_tree(tmp_path)
    os.mkfifo(root / "etc" / "hostname")
    (root / "proc" / "cmdline").symlink_to(outside)
    with open(root / "proc" / "modules", "wb") as fh:  # a 2 GiB sparse file: read to the 8 MiB cap only
        fh.truncate(2 * 1024 ** 3)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    before = tree(tmp_path)
    run = run_child(stackaudit("capture", "--root", str(root), "-o", str(out_dir / "s.tar.gz"), "--deadline", "20"),
                    tmp_path, timeout=60)
    assert run.rc == 0, run.err
    run.assert_bounded()
    assert tree(tmp_path) == before | {"out/s.tar.gz"}
    with tarfile.open(out_dir / "s.tar.gz") as tar:
        blob = b"".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())  # type: ignore[union-attr]
        modules = tar.getmember("fs/proc/modules") if "fs/proc/modules" in tar.getnames() else None
    assert b"OUTSIDE-MARKER" not in blob
    assert modules is None or modules.size <= 8 * 1024 * 1024


@needs_root
def test_root_device_nodes_read_as_empty(tmp_path: Path) -> None:
    root, _ = _root_tree(tmp_path)
    os.mknod(root / "proc" / "cmdline", 0o600 | 0o020000, os.makedev(1, 5))  # a /dev/zero node
    assert LiveHost(root=str(root)).read_bytes("/proc/cmdline") == b""


def test_a_command_flooding_stdout_is_cut_while_reading(tmp_path: Path) -> None:
    code = ("from stackaudit.host.live import LiveHost\n"
            "host = LiveHost(command_timeout=20)\n"
            "r = host.run(['yes', 'flood'])\n"
            "print(len(r.stdout), r.truncated, r.timed_out, host.provenance('cmd:yes flood').whole)\n")
    run = run_child([sys.executable, "-c", code], tmp_path, timeout=60)
    assert run.rc == 0, run.err
    size, truncated, timed_out, whole = run.out.split()
    assert int(size) == 8 * 1024 * 1024 and truncated == "True" and timed_out == "False"
    assert whole == "False"  # cut at the cap: an excerpt, which cannot prove an absence
    run.assert_bounded()


def test_a_file_cut_at_the_cap_is_an_excerpt_and_one_at_the_cap_is_whole(tmp_path: Path) -> None:
    from stackaudit.host.recording import RecordingHost
    from stackaudit.host.snapshot_reader import load_snapshot
    from stackaudit.host.source import file_key

    (tmp_path / "big").write_bytes(b"x" * (8 * 1024 * 1024 + 1))
    (tmp_path / "exact").write_bytes(b"y" * 4096)
    host = LiveHost(root=str(tmp_path))
    assert len(host.read_bytes("/big")) == 8 * 1024 * 1024
    assert host.read_bytes("/exact", 4096) == b"y" * 4096
    assert not host.provenance(file_key("/big")).whole
    assert host.provenance(file_key("/exact")).whole
    recorder = RecordingHost(host)
    recorder.read_bytes("/big")
    assert not recorder.provenance(file_key("/big")).whole
    from stackaudit.host.snapshot_writer import write_snapshot

    recorder.record.meta = {"format": 2}
    write_snapshot(recorder.record, str(tmp_path / "s.tar.gz"))
    assert not load_snapshot(str(tmp_path / "s.tar.gz")).provenance(file_key("/big")).whole


def test_process_paths_are_normalised_and_confined() -> None:
    from stackaudit.facts.processes import process_path
    from stackaudit.host.memory import fake_host

    host = fake_host(dirs={"/proc/7/root": ["etc"]})
    assert process_path(host, 7, "/etc/../../../etc/cron.d/x") == "/proc/7/root/etc/cron.d/x"
    assert process_path(host, 7, "/etc/x\x00y") is None
    assert confined.normalise("//a/./b/../c") == "/a/c"
    with pytest.raises(ValueError):
        confined.normalise("relative/path")


def test_snapshot_member_names_derive_from_normalised_paths(tmp_path: Path) -> None:
    from stackaudit.host.memory import HostRecord
    from stackaudit.host.snapshot_reader import load_snapshot
    from stackaudit.host.snapshot_writer import write_snapshot

    record = HostRecord(meta={"format": 2})
    record.files["/proc/1/root/../../../etc/cron.d/evil"] = b"x"
    record.files["/proc/cmdline"] = b"ro\n"
    record.links["/proc/1/cwd"] = "/etc"  # absolute: into links.json, never a symlink member
    out = tmp_path / "s.tar.gz"
    write_snapshot(record, str(out))
    with tarfile.open(out) as tar:
        names = tar.getnames()
        assert not any(m.issym() and m.linkname.startswith("/") for m in tar.getmembers())
        links = json.loads(tar.extractfile("links.json").read())  # type: ignore[union-attr]
    assert "fs/etc/cron.d/evil" in names and not any(".." in n for n in names)
    assert links["/proc/1/cwd"] == "/etc"
    assert load_snapshot(str(out)).readlink("/proc/1/cwd") == "/etc"


@needs_root
def test_read_as_user_lets_the_kernel_decide(shared_dir: Path) -> None:
    """As nobody: a world-readable file and listing are read, a 0600 file and a 0700 directory are not."""
    (shared_dir / "open").mkdir()
    (shared_dir / "open" / "a.json").write_text("{}")
    (shared_dir / "open" / "b.json").write_text("{}")
    (shared_dir / "closed").mkdir(mode=0o700)
    (shared_dir / "closed" / "x").write_text("secret")
    (shared_dir / "private").write_text("secret")
    (shared_dir / "private").chmod(0o600)
    root = str(shared_dir)
    assert confined.read_as_user(root, "/open/a.json", 100, NOBODY, NOBODY, []) == b"{}"
    assert confined.read_as_user(root, "/open", 0, NOBODY, NOBODY, [], op="list") == ["a.json", "b.json"]
    for path, op in (("/private", "read"), ("/closed/x", "read"), ("/closed", "list")):
        with pytest.raises(PermissionError):
            confined.read_as_user(root, path, 100, NOBODY, NOBODY, [], op=op)
    # As root the same reads succeed: the refusals above are nobody's, not a mode-bit check of ours.
    assert confined.read_file(root, "/private", 100) == b"secret"
