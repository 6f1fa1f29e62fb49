"""A fast reader for the tar archives `capture` writes: POSIX ustar headers, with pax `path` / `linkpath`
records for long or non-ASCII names.

tarfile parses each header in Python, about 50 µs a member: 30 ms for an 8-GPU node's 600 members, which
`stackaudit fleet` pays once per node (perf/fleet_scale.py). This reads the same members from the
decompressed bytes in a few µs each. Anything it does not know — a GNU or v7 header, a pax record other
than the ones tarfile writes for names, ids and times, a base-256 number, a checksum that does not add up, a
hard link or a device, a name that is not UTF-8, an archive cut short — makes it give up (None), and
tarfile reads the archive as before, with the bounds host/snapshot_reader.py puts on it. Header layout:
https://pubs.opengroup.org/onlinepubs/9799919799/utilities/pax.html (ustar Interchange Format).
"""

from __future__ import annotations

import re
from typing import NamedTuple

BLOCK = 512
_ZERO_BLOCK = bytes(BLOCK)
# mode, uid, gid (7 octal digits + NUL), size, mtime (11 + NUL), checksum (6 + NUL + space): tarfile's own
# output, whose fields need no further checking; any other form goes through _check_header / _number.
_CANONICAL_NUMBERS = re.compile(rb"(?:[0-7]{7}\x00){3}(?:[0-7]{11}\x00){2}[0-7]{6}\x00 ")
_MAGIC = b"ustar\x0000"  # POSIX ustar, as tarfile's PAX_FORMAT writes it
_FILE_TYPES = (b"0", b"\x00")
_LINK_TYPE = b"2"
_DIR_TYPE = b"5"
_PAX_TYPE = b"x"
# The pax records tarfile writes besides names (uid/gid/uname/gname/times): carried, not used.
_PAX_IGNORED = frozenset({"mtime", "atime", "ctime", "uid", "gid", "uname", "gname"})


class Member(NamedTuple):  # a tuple: 600 of them a snapshot, made in a loop that should cost little
    """One member: kind "file" (with its bytes), "link" (with its target) or "dir"."""

    name: str
    kind: str
    size: int = 0
    data: bytes = b""
    target: str = ""


class _NotPlain(Exception):
    """Something this reader leaves to tarfile."""


def read_members(data: bytes, max_header_bytes: int) -> list[Member] | None:
    """The members of an uncompressed tar, or None where tarfile must read it (see the module's docstring).
    A pax header larger than `max_header_bytes` is left to tarfile too, which refuses it."""
    try:
        return _members(data, max_header_bytes)
    except (_NotPlain, ValueError, UnicodeDecodeError):
        return None


def _members(data: bytes, max_header_bytes: int) -> list[Member]:
    out: list[Member] = []
    pos, end = 0, len(data)
    pax: dict[str, str] = {}
    while True:
        if pos + BLOCK > end:
            raise _NotPlain("cut short")
        block = data[pos:pos + BLOCK]
        if block == _ZERO_BLOCK:
            if pax:
                raise _NotPlain("a pax header with no member")
            return out  # the end-of-archive marker
        if _CANONICAL_NUMBERS.fullmatch(block, 100, 156) is not None and block[257:265] == _MAGIC:
            # The fields as tarfile writes them: valid octal by their shape, so read directly.
            size = int(block[124:135], 8)
            if int(block[148:154], 8) != sum(block) - sum(block[148:156]) + 8 * 32:
                raise _NotPlain("checksum")
        else:
            _check_header(block)
            size = _number(block[124:136])
        kind = block[156:157]
        body = pos + BLOCK
        if body + size > end:
            raise _NotPlain("a member cut short")
        pos = body + -(-size // BLOCK) * BLOCK
        if kind == _PAX_TYPE:
            if pax or size > max_header_bytes:
                raise _NotPlain("pax headers in a row, or too large")
            pax = _pax_records(data[body:body + size])
            continue
        name = pax.get("path") or _name(block)
        if kind == b"\x00" and name.endswith("/"):
            kind = _DIR_TYPE  # a v7-style directory, as tarfile reads it
        if kind in _FILE_TYPES:
            out.append(Member(name, "file", size, data[body:body + size]))
        elif kind == _LINK_TYPE:
            out.append(Member(name, "link", target=pax.get("linkpath") or _text(block[157:257])))
        elif kind == _DIR_TYPE:
            out.append(Member(name.rstrip("/"), "dir"))
        else:
            raise _NotPlain(f"member type {kind!r}")
        pax = {}


def _check_header(block: bytes) -> None:
    if block[257:265] != _MAGIC:
        raise _NotPlain("not a POSIX ustar header")
    for start, stop in ((100, 108), (108, 116), (116, 124), (136, 148)):  # mode, uid, gid, mtime: as tarfile
        _number(block[start:stop])                                      # reads them, or give up
    # The checksum: every byte of the header, its own field counted as eight spaces (tarfile's calc_chksums).
    if _number(block[148:156]) != sum(block) - sum(block[148:156]) + 8 * 32:
        raise _NotPlain("checksum")


def _number(field: bytes) -> int:
    """An octal field, NUL- or space-terminated, read as tarfile's nti reads it (int() raising ValueError
    where it does not parse); a base-256 one (first byte 0x80 or 0xff) or a negative one is left to tarfile."""
    if field[0] in (0x80, 0xFF):
        raise _NotPlain("base-256 number")
    value = int(field.split(b"\x00", 1)[0].strip() or b"0", 8)
    if value < 0:
        raise _NotPlain("a negative number")
    return value


def _text(field: bytes) -> str:
    return field.split(b"\x00", 1)[0].decode("ascii")  # non-ASCII names come in pax records from tarfile


def _name(block: bytes) -> str:
    name = _text(block[0:100])
    if not block[345]:  # no ustar prefix (tarfile's PAX format never writes one)
        return name
    prefix = _text(block[345:500])
    return f"{prefix}/{name}" if prefix else name


def _pax_records(raw: bytes) -> dict[str, str]:
    """`%d key=value\\n` records, the length counting the whole record (pax's extended header format)."""
    records: dict[str, str] = {}
    pos = 0
    while pos < len(raw):
        space = raw.index(b" ", pos)
        length = int(raw[pos:space])
        record = raw[space + 1:pos + length]
        if length <= space - pos or not record.endswith(b"\n") or b"=" not in record:
            raise _NotPlain("a malformed pax record")
        key, _, value = record[:-1].partition(b"=")
        name = key.decode("ascii")
        if name in ("path", "linkpath"):
            records[name] = value.decode("utf-8")
        elif name not in _PAX_IGNORED:
            raise _NotPlain(f"pax record {name!r}")
        pos += length
    return records
