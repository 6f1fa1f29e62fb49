"""`--from nvidia-bug-report.log.gz` and `--from sosreport-*.tar.xz`, read as capped streams.

Modelled: verbatim archives are rarely public, so each test builds its archive at test time, in the
layout the tools write (nvidia-bug-report.sh's `____` sections; sos's `sos_commands/<plugin>/<cmd>`
members), from real text fragments of tests/data/captures (each naming its public thread).
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import tarfile
from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, parse_header
from stackaudit.errors import InputError
from stackaudit.host.memory import HostRecord
from stackaudit.host.snapshot_writer import write_snapshot
from stackaudit.importers import _archives, _compressed
from stackaudit.importers.pasted import load_pasted


def _lines(prefix: str, kind: str) -> list[str]:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return parse_header(path).lines_of(kind)


UNAME = _lines("33", "uname -a")[0]
CMDLINE = _lines("28", "/proc/cmdline")[0]
LSPCI = _lines("05", "lspci")
DMESG = _lines("40", "dmesg")
NVSMI_Q = _lines("21", "nvidia-smi -q")
SEP = "_" * 44


def _bug_report() -> tuple[str, dict[str, int]]:
    """A modelled nvidia-bug-report.log; and the 1-based line where each section's content starts."""
    lines: list[str] = []
    at: dict[str, int] = {}

    def section(header: str, body: list[str], meta: str | None = None) -> None:
        lines.extend([SEP, "", header])
        if meta:
            lines.append(meta)
        at[header] = len(lines) + 1
        lines.extend(body)
        lines.append("")

    lines.extend([SEP, "", "Start of NVIDIA bug report log file.  Please include this file, along", "",
                  "nvidia-bug-report.sh Version: 34097158", "", "Date: Fri May  3 10:00:00 UTC 2024"])
    at["uname"] = len(lines) + 1
    lines.extend([f"uname: {UNAME}", "command line flags:", ""])
    section("*** /etc/issue", ["Ubuntu 22.04.4 LTS \\n \\l"], "*** ls: -rw-r--r-- 1 root root 26 2024-02-16 /etc/issue")
    # Xorg's own timestamps look like the kernel's: a section the audit has no source for stays unread.
    section("*** /var/log/Xorg.0.log", ["[    12.345] (II) NVIDIA(0): NVIDIA GPU detected", "[    12.346] (II) NVRM: x"])
    section('/usr/bin/lspci -d "10de:*" -v -xxx', LSPCI)
    section("dmesg:", DMESG)
    section("*** /proc/cmdline", [CMDLINE], "*** ls: -r--r--r-- 1 root root 0 2024-05-03 10:00:00 /proc/cmdline")
    section("/usr/bin/nvidia-smi --query", NVSMI_Q)
    lines.extend([SEP, "", "End of NVIDIA bug report log file."])
    return "\n".join(lines) + "\n", at


def test_a_bug_report_maps_its_sections_to_their_sources(tmp_path: Path) -> None:
    text, at = _bug_report()
    path = tmp_path / "nvidia-bug-report.log.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert _compressed.is_archive(str(path))
    rec = load_pasted([str(path)]).record
    assert rec.commands[("uname", "-a")].stdout == UNAME + "\n"
    assert rec.files["/proc/cmdline"] == (CMDLINE + "\n").encode()
    assert "Xorg" not in rec.commands[("dmesg",)].stdout and "NVIDIA GPU detected" not in rec.commands[("dmesg",)].stdout
    assert ("nvidia-smi", "-q") in rec.commands and any(a[0] == "lspci" for a in rec.commands)
    cmdline = rec.provenance["fs:/proc/cmdline"]
    assert cmdline.whole and cmdline.file == "nvidia-bug-report.log.gz:/proc/cmdline"
    assert cmdline.lines == (at["*** /proc/cmdline"], at["*** /proc/cmdline"])
    assert text.split("\n")[cmdline.lines[0] - 1] == CMDLINE  # the line of the decompressed log
    dmesg = rec.provenance["cmd:dmesg"]
    assert dmesg.file == "nvidia-bug-report.log.gz:dmesg:"
    assert dmesg.lines is not None and dmesg.lines[0] >= at["dmesg:"]
    assert rec.provenance["cmd:uname -a"].lines == (at["uname"], at["uname"])
    assert any(r.startswith("nvidia-bug-report.log.gz:/usr/bin/nvidia-smi --query: nvidia-smi -q")
               for r in rec.meta["recognised"])


def test_a_bug_report_audits_through_the_cli(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nvidia-bug-report.log.gz"
    path.write_bytes(gzip.compress(_bug_report()[0].encode()))
    run = cli("audit", "--from", str(path), "--format", "json")
    assert run.rc == 0, run.err
    data = json.loads(run.out)
    assert data["source"]["kind"] == "pasted"
    assert any("/proc/cmdline" in r for r in data["source"]["recognised"])


def _tar_xz(members: dict[str, bytes], top: str = "sosreport-node1-2024-05-03-abcdef") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=0) as tar:
        dir_info = tarfile.TarInfo(top)
        dir_info.type = tarfile.DIRTYPE
        tar.addfile(dir_info)
        for name, data in members.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _sos_members() -> dict[str, bytes]:
    return {
        "etc/hostname": b"node1\n",
        "sos_commands/process/ps_auxwww": b"USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n",
        "proc/cmdline": (CMDLINE + "\n").encode(),
        "sos_commands/kernel/uname_-a": (UNAME + "\n").encode(),
        "sos_commands/kernel/dmesg": ("\n".join(DMESG) + "\n").encode(),
        "sos_commands/pci/lspci_-nnvv": ("\n".join(LSPCI) + "\n").encode(),
        "sos_commands/nvidia/nvidia-smi_-q": ("\n".join(NVSMI_Q) + "\n").encode(),
    }


def test_a_sosreport_maps_its_members_to_their_sources(tmp_path: Path) -> None:
    path = tmp_path / "sosreport-node1-2024-05-03-abcdef.tar.xz"
    path.write_bytes(_tar_xz(_sos_members()))
    assert _compressed.is_archive(str(path))
    rec = load_pasted([str(path)]).record
    assert rec.files["/proc/cmdline"] == (CMDLINE + "\n").encode()
    assert rec.commands[("uname", "-a")].stdout.strip() == UNAME
    assert ("nvidia-smi", "-q") in rec.commands and ("dmesg",) in rec.commands
    assert rec.provenance["fs:/proc/cmdline"].file == f"{path.name}:proc/cmdline"
    assert rec.provenance["fs:/proc/cmdline"].whole
    assert rec.provenance["cmd:dmesg"].file == f"{path.name}:sos_commands/kernel/dmesg"
    assert "/etc/hostname" not in rec.files  # no source reads it


def test_a_member_over_8_mib_is_cut_and_an_excerpt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _archives.MAX_MEMBER == 8 * 2**20
    # The cut at a smaller cap: 9 MiB of dmesg would cost seconds of recognising, which is not what is tested.
    monkeypatch.setattr(_archives, "MAX_MEMBER", 64 * 2**10)
    members = _sos_members()
    line = (DMESG[0] + "\n").encode()
    members["sos_commands/kernel/dmesg"] = line * (72 * 2**10 // len(line))
    path = tmp_path / "sosreport-big.tar.xz"
    path.write_bytes(_tar_xz(members))
    rec = load_pasted([str(path)]).record
    log = rec.commands[("dmesg",)].stdout
    assert len(log.encode()) <= _archives.MAX_MEMBER and log.endswith("\n")
    assert not rec.provenance["cmd:dmesg"].whole
    assert rec.provenance["fs:/proc/cmdline"].whole  # the other members are not cut


def test_too_many_members_is_one_line_and_exit_2(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(_archives, "MAX_MEMBERS", 5)
    path = tmp_path / "sosreport-many.tar.xz"
    path.write_bytes(_tar_xz({f"etc/f{n}": b"x\n" for n in range(10)}))
    run = cli("audit", "--from", str(path))
    assert run.rc == 2 and "more than 5 members" in run.err and run.err.strip().count("\n") == 0


def test_a_decompression_bomb_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_compressed, "MAX_UNCOMPRESSED", 2**20)
    path = tmp_path / "nvidia-bug-report.log.gz"
    path.write_bytes(gzip.compress(b"\n" * (4 * 2**20)))
    with pytest.raises(InputError, match="more than 1 MiB once decompressed"):
        load_pasted([str(path)])


def test_a_damaged_archive_is_one_line_and_exit_2(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sosreport-cut.tar.xz"
    path.write_bytes(_tar_xz(_sos_members())[:200])
    run = cli("audit", "--from", str(path))
    assert run.rc == 2 and run.err.startswith("stackaudit: error:") and run.err.strip().count("\n") == 0


def test_a_snapshot_is_not_an_archive_of_outputs(tmp_path: Path) -> None:
    out = tmp_path / "host.tar.gz"
    write_snapshot(HostRecord(meta={"source": "live", "hostname": "h"}), str(out))
    assert not _compressed.is_archive(str(out))
    plain = tmp_path / "paste.txt"
    plain.write_text(UNAME + "\n")
    assert not _compressed.is_archive(str(plain))
    xz_text = tmp_path / "dmesg.log.xz"
    xz_text.write_bytes(lzma.compress(("\n".join(DMESG) + "\n").encode()))
    assert _compressed.is_archive(str(xz_text))
    assert ("dmesg",) in load_pasted([str(xz_text)]).record.commands
