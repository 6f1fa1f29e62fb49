"""Waiver files: accepted results (`--waivers FILE`, or stackaudit.toml in the working directory)."""

from __future__ import annotations

import datetime as _dt
import os
import sys
from collections.abc import Iterable
from typing import Any

from stackaudit.engine.results import Waiver
from stackaudit.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_FILE = "stackaudit.toml"


def _date_text(value: Any, path: str, index: int) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise InputError(f"{path}: waiver {index + 1}: expires must be a date like 2027-01-31, not {value!r}")


def load_waivers(path: str) -> list[Waiver]:
    """Parse `[[waiver]]` tables: id, reason, optional subject and expires."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise InputError(f"cannot read waiver file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from exc
    entries = data.get("waiver", data.get("waivers", []))
    if not isinstance(entries, list):
        raise InputError(f"{path}: expected [[waiver]] tables")
    waivers = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry.get("id") or not entry.get("reason"):
            raise InputError(f"{path}: waiver {i + 1} needs at least `id` and `reason`")
        waivers.append(Waiver(
            id=str(entry["id"]).upper(),
            reason=str(entry["reason"]),
            subject=str(entry.get("subject", "")),
            expires=_date_text(entry.get("expires"), path, i),
            source=path,
        ))
    return waivers


def find_waivers(explicit: str | None, cwd: str | None = None) -> list[Waiver]:
    if explicit:
        return load_waivers(explicit)
    default = os.path.join(cwd or os.getcwd(), DEFAULT_FILE)
    if os.path.isfile(default):
        return load_waivers(default)
    return []


def nearest_check_id(check_id: str, known: Iterable[str]) -> str:
    """The registered check ID closest to a mistyped one (difflib), or "" when none is close."""
    import difflib  # only for a mistyped ID

    close = difflib.get_close_matches(check_id.upper(), sorted(known), n=1, cutoff=0.5)
    return close[0] if close else ""


def unknown_waivers(waivers: Iterable[Waiver], known: Iterable[str] | None = None) -> list[tuple[Waiver, str]]:
    """Waivers naming no check of the catalogue, each with the nearest ID: such a waiver can never apply,
    so it is reported (a typo would otherwise leave the finding it meant to accept silently in place)."""
    if known is None:
        from stackaudit.checks.registry import load_all

        known = load_all()
    ids = set(known)
    return [(w, nearest_check_id(w.id, ids)) for w in waivers if w.id not in ids]
