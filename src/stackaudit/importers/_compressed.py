"""Compressed files as streams with a cap (gzip, xz, bz2), and which of them is an archive of outputs
rather than a stackaudit snapshot (importers/_archives.py reads the archives).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from typing import IO, cast

from stackaudit.errors import InputError

MAGIC_BYTES = 6
_GZIP, _XZ, _BZ2 = b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh"
MAX_UNCOMPRESSED = 512 * 1024 * 1024
TAR_MAGIC_AT = 257



def is_compressed(head: bytes) -> bool:
    return head.startswith((_GZIP, _XZ, _BZ2))


def is_archive(path: str) -> bool:
    """A compressed file that is not a stackaudit snapshot (a snapshot's first member is meta.json)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(MAGIC_BYTES)
        if not is_compressed(head):
            return False
        with decompressed(path, head) as stream:
            block = stream.read(512)
    except (OSError, EOFError, lzma.LZMAError, InputError):
        return False
    if block[TAR_MAGIC_AT:TAR_MAGIC_AT + 5] != b"ustar":
        return True  # a compressed text log
    name = block[:100].split(b"\0", 1)[0].decode("utf-8", "replace").lstrip("./")
    return name != "meta.json"


class _Capped(io.RawIOBase):
    """A stream that stops the read when more than MAX_UNCOMPRESSED bytes came out of it."""

    def __init__(self, inner: IO[bytes], label: str) -> None:
        self.inner, self.label, self.count = inner, label, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.count += len(data)
        if self.count > MAX_UNCOMPRESSED:
            raise InputError(f"{self.label}: more than {MAX_UNCOMPRESSED // 2**20} MiB uncompressed; not read")
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self.inner.close()
        super().close()


def _open(path: str, head: bytes) -> IO[bytes]:
    if head.startswith(_GZIP):
        return cast(IO[bytes], gzip.open(path, "rb"))
    if head.startswith(_XZ):
        return lzma.open(path, "rb")
    return bz2.open(path, "rb")


def decompressed(path: str, head: bytes) -> io.BufferedReader:
    return io.BufferedReader(_Capped(_open(path, head), os.path.basename(path)), buffer_size=1 << 16)
