"""Writing a command's output: stdout or --output FILE (written whole, atomically)."""

from __future__ import annotations

import os
import sys

from stackaudit.errors import InputError


def emit(text: str, output: str | None) -> None:
    if not output or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise InputError(f"cannot write {output}: directory {directory} does not exist")
    tmp = f"{output}.part"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, output)
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from exc


def split_csv(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for value in values or []:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out
