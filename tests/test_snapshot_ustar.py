"""host/ustar.py reads the tarballs `capture` writes without tarfile, and reads any tarball to exactly what
the tarfile path reads, or gives way to it: archives written by tarfile in every format, with long and
non-ASCII names, links, directories, hard links, FIFOs and names that climb out, damaged and cut short."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stackaudit.capture import capture_host
from stackaudit.host import snapshot_reader, snapshot_writer
from stackaudit.host.memory import fake_host
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.host.ustar import read_members

_NAME_PART = st.sampled_from(["fs", "sys", "cmd", "a" * 60, "b" * 99, "é", "..", ".", "", "x.json", "dir/",
                              "0000:41:00.0", "current_link_width"])
_NAMES = st.lists(_NAME_PART, min_size=1, max_size=5).map("/".join)
_MEMBER = st.tuples(_NAMES, st.sampled_from(["file", "link", "dir", "hard", "fifo"]), st.binary(max_size=700))


def _archive(members: list[tuple[str, str, bytes]], fmt: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.mtime = 1_700_000_000
            if kind == "file":
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            info.type = {"link": tarfile.SYMTYPE, "dir": tarfile.DIRTYPE, "hard": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE}[kind]
            info.linkname = "../target/é" if kind in ("link", "hard") else ""
            tar.addfile(info)
    return buffer.getvalue()


def _read(path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> object:
    """What _read_tarball makes of the file (entries, or the error's type and text): through host/ustar.py
    ("plain"), through tarfile from the bytes ustar gave way on ("memory"), or streamed by tarfile from the
    file, as a snapshot over the in-memory size is ("stream")."""
    with monkeypatch.context() as patch:
        if how == "memory":
            patch.setattr(snapshot_reader, "read_members", lambda *args: None)
        elif how == "stream":
            patch.setattr(snapshot_reader, "_whole_tar", lambda *args: None)
        try:
            return snapshot_reader._read_tarball(str(path), snapshot_reader._Budget())
        except Exception as exc:  # compared, not raised: both paths must fail alike
            return (type(exc).__name__, str(exc))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_MEMBER, max_size=6), st.sampled_from([tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT]),
       st.sampled_from(["whole", "gzip", "cut", "flipped"]), st.integers(min_value=0, max_value=10_000))
def test_the_fast_reader_reads_what_tarfile_reads(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                                                  members: list[tuple[str, str, bytes]], fmt: int, damage: str,
                                                  where: int) -> None:
    try:
        data = _archive(members, fmt)
    except ValueError:  # a name this format cannot hold: tarfile refuses to write it
        return
    if damage == "cut":
        data = data[: where % (len(data) + 1)]
    elif damage == "flipped" and data:
        i = where % len(data)
        data = data[:i] + bytes([data[i] ^ 0x41]) + data[i + 1:]
    path = tmp_path_factory.mktemp("tar") / "snap.tar.gz"
    path.write_bytes(gzip.compress(data, mtime=0) if damage == "gzip" else data)
    plain = _read(path, "plain", monkeypatch)
    assert plain == _read(path, "memory", monkeypatch) == _read(path, "stream", monkeypatch)


def test_what_capture_writes_is_read_without_tarfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    captured = tmp_path / "node.tar.gz"
    capture_host(fake_host(files={"/proc/cmdline": "ro\n"}, commands={"dmesg": "[    0.0] Linux version 6.8\n"}),
                 str(captured))
    # The same record with a member name past ustar's 100 characters (a deep PCIe path): a pax record.
    long_path = "/sys/devices/pci0000:00/" + "0000:00:01.0/" * 12 + "current_link_width"
    record = load_snapshot(str(captured)).record
    record.files[long_path] = b"16\n"
    record.meta.pop("path", None)
    rewritten = tmp_path / "long.tar.gz"
    snapshot_writer.write_snapshot(record, str(rewritten))
    for path in (captured, rewritten):
        with gzip.open(path) as fh:
            assert read_members(fh.read(), 1 << 20) is not None

    def no_tarfile(*args: object, **kwargs: object) -> None:
        raise AssertionError("tarfile used")

    monkeypatch.setattr(snapshot_reader.tarfile, "open", no_tarfile)
    assert load_snapshot(str(captured)).run(["dmesg"]).stdout.startswith("[    0.0] Linux")
    assert load_snapshot(str(rewritten)).read_bytes(long_path) == b"16\n"


@pytest.mark.parametrize("header", [
    b"x" * 512 + b"\0" * 1024,                                    # not a ustar header
    tarfile.TarInfo("a").tobuf(tarfile.GNU_FORMAT) + b"\0" * 1024,  # GNU magic
    tarfile.TarInfo("a").tobuf(tarfile.USTAR_FORMAT)[:300],         # a header cut short
    tarfile.TarInfo("a").tobuf(tarfile.USTAR_FORMAT),               # no end-of-archive marker
])
def test_the_fast_reader_gives_way_on_what_it_does_not_know(header: bytes) -> None:
    assert read_members(header, 1 << 20) is None


def test_a_pax_header_over_the_bound_is_left_to_tarfile_which_refuses_it(tmp_path: Path) -> None:
    info = tarfile.TarInfo("a")
    info.pax_headers = {"comment": "x" * 5000}
    raw = info.tobuf(tarfile.PAX_FORMAT) + b"\0" * 1024
    assert read_members(raw, 4096) is None
