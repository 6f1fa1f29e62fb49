"""The one writer of an output file (--output, a fix plan, a node's snapshot).

A file is written whole, with its mode from the start (0600 unless the caller says otherwise), and never
through a symbolic link planted at its name.
Without `force` it is created at its name exclusively, so an existing file is never overwritten.
With `force` it is written to a new temporary name beside it and renamed over the old one.
"""

from __future__ import annotations

import os

from stackaudit.errors import InputError

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_file(path: str, data: str | bytes, *, force: bool = False, mode: int = 0o600) -> None:
    """`data` (text as UTF-8) into the file `path`; a one-line InputError (exit 2) when it cannot be."""
    import secrets

    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise InputError(f"cannot write {path}: directory {directory} does not exist")
    target = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(8)}.part") if force else path
    try:
        fd = os.open(target, _FLAGS, mode)
    except FileExistsError:
        raise InputError(f"{path} exists; choose a new path or pass --force (nothing was overwritten)") from None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        if force:
            os.replace(target, path)
    except BaseException as exc:
        if os.path.lexists(target):
            os.unlink(target)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
