"""Host layer: missing vs not captured, snapshots round-trip, live commands bounded."""

from __future__ import annotations

import os
import tarfile

import pytest

from stackaudit.errors import InputError
from stackaudit.host.base import NotCaptured
from stackaudit.host.live import LiveHost
from stackaudit.host.memory import HostRecord, MemoryHost, fake_host
from stackaudit.host.recording import RecordingHost
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.host.snapshot_writer import write_snapshot


def test_fake_host_absent_is_file_not_found_and_strict_is_not_captured() -> None:
    loose = fake_host(files={"/proc/cmdline": "ro quiet"})
    assert loose.read_bytes("/proc/cmdline") == b"ro quiet"
    with pytest.raises(FileNotFoundError):
        loose.read_bytes("/proc/nothing")
    strict = fake_host(files={"/proc/cmdline": "ro"}, strict=True)
    with pytest.raises(NotCaptured):
        strict.read_bytes("/proc/nothing")
    with pytest.raises(NotCaptured):
        strict.run(["lscpu"])


def test_fake_host_records_permission_errors_and_derives_listings() -> None:
    host = fake_host(files={"/proc/1/environ": PermissionError(13, "denied"), "/sys/a/b/c": "1", "/sys/a/d": "2"})
    with pytest.raises(PermissionError):
        host.read_bytes("/proc/1/environ")
    assert host.list_dir("/sys/a") == ["b", "d"]
    with pytest.raises(IsADirectoryError):
        host.read_bytes("/sys/a/b")


def _sample_record() -> HostRecord:
    host = fake_host(
        files={"/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro iommu=pt\n", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor": "0x10de\n",
               "/proc/1/environ": PermissionError(13, "denied")},
        links={"/sys/bus/pci/devices/0000:01:00.0": "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0"},
        commands={"uname -a": "Linux h 6.8.0-45-generic #45-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n"},
    )
    recorder = RecordingHost(host)
    recorder.read_bytes("/proc/cmdline")
    recorder.read_bytes("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor")
    recorder.readlink("/sys/bus/pci/devices/0000:01:00.0")
    with pytest.raises(PermissionError):
        recorder.read_bytes("/proc/1/environ")
    with pytest.raises(FileNotFoundError):
        recorder.read_bytes("/proc/missing")
    recorder.list_dir("/sys/devices/pci0000:00")
    recorder.run(["uname", "-a"])
    recorder.record.meta = {"format": 1, "hostname": "h", "uid": 0}
    return recorder.record


@pytest.mark.parametrize("suffix", [".tar.gz", "-dir"])
def test_snapshot_round_trip_replays_every_answer(tmp_path, suffix: str) -> None:
    record = _sample_record()
    out = str(tmp_path / f"snap{suffix}")
    write_snapshot(record, out)
    host = load_snapshot(out)
    assert host.read_bytes("/proc/cmdline") == b"BOOT_IMAGE=/vmlinuz ro iommu=pt\n"
    assert host.readlink("/sys/bus/pci/devices/0000:01:00.0").startswith("../../../devices/")
    with pytest.raises(PermissionError):
        host.read_bytes("/proc/1/environ")
    with pytest.raises(FileNotFoundError):
        host.read_bytes("/proc/missing")
    with pytest.raises(NotCaptured):
        host.read_bytes("/proc/never-read")
    assert host.list_dir("/sys/devices/pci0000:00") == ["0000:00:01.0"]
    assert host.run(["uname", "-a"]).stdout.startswith("Linux h 6.8.0")
    assert host.meta.hostname == "h"


def test_snapshot_tar_layout_follows_design(tmp_path) -> None:
    out = tmp_path / "snap.tar.gz"
    write_snapshot(_sample_record(), str(out))
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
        link = tar.getmember("fs/sys/bus/pci/devices/0000:01:00.0")
    assert {"meta.json", "fs/proc/cmdline", "cmd/uname__-a.json"} <= names
    assert link.issym() and not link.linkname.startswith("/")


def test_bad_snapshot_is_an_input_error(tmp_path) -> None:
    bad = tmp_path / "x.tar.gz"
    bad.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(InputError):
        load_snapshot(str(bad))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="not a stackaudit snapshot"):
        load_snapshot(str(empty))


def test_live_host_missing_command_is_127_and_slow_command_times_out(tmp_path) -> None:
    host = LiveHost(command_timeout=0.5)
    assert host.run(["definitely-not-a-command-xyz"]).returncode == 127
    result = host.run(["sleep", "5"])
    assert result.timed_out and result.returncode == 124
    assert result.duration_s < 3


def test_live_host_root_prefix_and_fifo_does_not_hang(tmp_path) -> None:
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cmdline").write_text("ro quiet\n")
    os.mkfifo(tmp_path / "proc" / "fifo")
    host = LiveHost(root=str(tmp_path))
    assert host.read_bytes("/proc/cmdline") == b"ro quiet\n"
    assert host.read_bytes("/proc/fifo") == b""


def test_memory_host_from_record_without_meta_defaults() -> None:
    host = MemoryHost(HostRecord())
    assert host.meta.source == "snapshot"


def test_directory_snapshot_keeps_a_link_whose_path_also_holds_files(tmp_path) -> None:
    """A provider that read beneath a symlinked path must not lose the link in a directory snapshot."""
    record = HostRecord(meta={"format": 1})
    record.links["/sys/bus/pci/devices/0000:3b:00.0"] = "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
    record.files["/sys/bus/pci/devices/0000:3b:00.0/numa_node"] = b"1\n"
    out = str(tmp_path / "snapdir")
    write_snapshot(record, out)
    host = load_snapshot(out)
    assert host.readlink("/sys/bus/pci/devices/0000:3b:00.0").endswith("0000:3b:00.0")
    assert host.read_bytes("/sys/bus/pci/devices/0000:3b:00.0/numa_node") == b"1\n"
