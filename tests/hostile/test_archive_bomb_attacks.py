"""Compressed pastes built as bombs (review 2026-12, X5): `.gz`, `.xz` and `.bz2` files that inflate to
1 GiB are refused by the snapshot's own streaming rule (past 64 MiB, more than 100:1 is a bomb), with a
peak RSS under 300 MB, measured in a child with os.wait4."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_support import run_child, stackaudit

GiB = 1024 * 1024 * 1024
_PIECE = 16 * 1024 * 1024


# Each format's whole stream of one piece. The readers (GzipFile, LZMAFile, BZ2File) read concatenated
# streams as one text, so a bomb is one piece compressed once and written 64 times: the same 1 GiB inflated,
# built in a fraction of a second instead of compressing 1 GiB (20 s for bz2 on 2 cores).
WRITERS: dict[str, Callable[[bytes], bytes]] = {
    "nvidia-bug-report.log.gz": lambda b: gzip.compress(b, 9, mtime=0),
    "dmesg.log.xz": lambda b: lzma.compress(b, preset=1),
    "dmesg.log.bz2": lambda b: bz2.compress(b, 9),
}


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_1_gib_compressed_paste_of_one_line_is_refused_while_small(tmp_path: Path, name: str) -> None:
    """The review's bomb: 1 GiB of spaces, one line (it reached 536 MiB RSS before it was refused)."""
    paste = tmp_path / name
    stream = WRITERS[name](b" " * _PIECE)
    with open(paste, "wb") as fh:
        for _ in range(GiB // _PIECE):
            fh.write(stream)
    run = run_child(stackaudit("audit", "--from", str(paste), "-f", "json"), tmp_path, timeout=120)
    assert run.rc == 2, run.err[-2000:]
    assert "decompression bomb" in run.one_line_error()
    run.assert_bounded()
    print(f"{name} (1 GiB in {paste.stat().st_size >> 10} KiB): {run.rss_mb:.0f} MB, {run.wall_s:.1f} s")
