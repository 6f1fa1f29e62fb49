"""Compressed pastes built as bombs (review 2026-12, X5): `.gz`, `.xz` and `.bz2` files that inflate to
1 GiB are refused by the snapshot's own streaming rule (past 64 MiB, more than 100:1 is a bomb), with a
peak RSS under 300 MB, measured in a child with os.wait4."""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_support import run_child, stackaudit

GiB = 1024 * 1024 * 1024
_PIECE = 16 * 1024 * 1024


def _gzip(path: Path, piece: bytes, total: int) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        for _ in range(total // len(piece)):
            fh.write(packer.compress(piece))
        fh.write(packer.flush())


def _stream(path: Path, packer: bz2.BZ2Compressor | lzma.LZMACompressor, piece: bytes, total: int) -> None:
    with open(path, "wb") as fh:
        for _ in range(total // len(piece)):
            fh.write(packer.compress(piece))
        fh.write(packer.flush())


WRITERS: dict[str, Callable[[Path, bytes, int], None]] = {
    "nvidia-bug-report.log.gz": _gzip,
    "dmesg.log.xz": lambda p, b, n: _stream(p, lzma.LZMACompressor(preset=1), b, n),
    "dmesg.log.bz2": lambda p, b, n: _stream(p, bz2.BZ2Compressor(9), b, n),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_1_gib_compressed_paste_of_one_line_is_refused_while_small(tmp_path: Path, name: str) -> None:
    """The review's bomb: 1 GiB of spaces, one line (it reached 536 MiB RSS before it was refused)."""
    paste = tmp_path / name
    WRITERS[name](paste, b" " * _PIECE, GiB)
    run = run_child(stackaudit("audit", "--from", str(paste), "-f", "json"), tmp_path, timeout=120)
    assert run.rc == 2, run.err[-2000:]
    assert "decompression bomb" in run.one_line_error()
    run.assert_bounded()
    print(f"{name} (1 GiB in {paste.stat().st_size >> 10} KiB): {run.rss_mb:.0f} MB, {run.wall_s:.1f} s")
