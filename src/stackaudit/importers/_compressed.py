"""Compressed files as bounded streams (gzip, xz, bz2), and which of them is an archive of outputs rather
than a stackaudit snapshot (importers/_archives.py reads the archives).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import tarfile
from collections.abc import Iterator
from typing import IO, Any

from stackaudit.errors import InputError
from stackaudit.host.snapshot_reader import BoundedDecompression, SnapshotError

MAGIC_BYTES = 6
_GZIP, _XZ, _BZ2 = b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh"
MAX_UNCOMPRESSED = 512 * 1024 * 1024
MAX_MEMBERS = 50_000
TAR_MAGIC_AT = 257


def is_compressed(head: bytes) -> bool:
    return head.startswith((_GZIP, _XZ, _BZ2))


def is_archive(path: str) -> bool:
    """A compressed file that is not a stackaudit snapshot. A snapshot is recognised by its content: a
    meta.json member at its root or under one top directory, whatever the member names' prefix
    (`./meta.json` from `tar -czf x.tar.gz .`) and wherever it comes in the member order. Only the
    member headers are read, within the archive bounds (MAX_UNCOMPRESSED, MAX_MEMBERS)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(MAGIC_BYTES)
        if not is_compressed(head):
            return False
        with decompressed(path, head) as stream:
            if stream.peek(512)[TAR_MAGIC_AT:TAR_MAGIC_AT + 5] != b"ustar":
                return True  # a compressed text log
            return not _holds_snapshot_meta(stream)
    except (OSError, EOFError, lzma.LZMAError, ValueError, InputError, SnapshotError, tarfile.TarError, zlib_error()):
        return False  # damaged: load_snapshot says how


def _holds_snapshot_meta(stream: IO[bytes]) -> bool:
    """Whether a tar stream has meta.json at its root or one directory down (`./meta.json`, `snap/meta.json`)."""
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        for count, member in enumerate(tar):
            if count >= MAX_MEMBERS:
                return False
            parts = [p for p in member.name.replace("\\", "/").split("/") if p not in ("", ".")]
            if member.isfile() and parts[-1:] == ["meta.json"] and len(parts) <= 2:
                return True
    return False


def _open(raw: IO[bytes], head: bytes) -> Any:
    if head.startswith(_GZIP):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if head.startswith(_XZ):
        return lzma.LZMAFile(raw, "rb")
    return bz2.BZ2File(raw, "rb")


@contextlib.contextmanager
def decompressed(path: str, head: bytes) -> Iterator[io.BufferedReader]:
    """The decompressed stream, bounded as a snapshot's is (SnapshotError past a bound)."""
    with open(path, "rb") as raw, contextlib.closing(_open(raw, head)) as inner:
        yield io.BufferedReader(BoundedDecompression(inner, MAX_UNCOMPRESSED, raw), buffer_size=1 << 16)


def zlib_error() -> type[Exception]:
    import zlib

    return zlib.error
