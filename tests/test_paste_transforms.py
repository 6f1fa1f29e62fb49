"""The property of the whole corpus (issue 27): how a paste was pasted changes nothing that is read.

Every real paste of tests/data/captures, quoted (`> `), double-quoted (`> > `), with Windows line ends
(`\\r\\n` and `\\r\\r\\n`), inside a code fence or after a shell prompt line, gives the same record as
the paste itself: the same outputs, read as the same kinds, on the lines the user's file has them.
Cut at a line (a deterministic pseudo-random one per file), it never gives an `ok` the whole paste
does not give: what was cut away can only take evidence away.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from corpus import CorpusEntry, load_corpus
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import HostRecord, MemoryHost
from stackaudit.importers.recognition import ImportResult, recognise

ENTRIES = load_corpus()

# Cuts that do give a new `ok` today: an excerpt judged as if whole (issue 28, rule 4). Each must still give
# it (the test fails when one stops: remove it), so the list only shrinks.
KNOWN_NEW_OK = {
    ("07-nccl-illegal-memory-access-acsctl-redirect-enabled.txt", "FW-ACS-P2P"):
        "issue 28: two ACSCtl lines without redirect, cut before the lines with ReqRedir+: 'no ACS redirect on the "
        "2 bridge(s) between the GPUs' is concluded from an excerpt",
}


def _lines(text: str) -> list[str]:
    return text.split("\n")


def quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in _lines(text))


def double_quoted(text: str) -> str:
    return quoted(quoted(text))


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def crlf_twice(text: str) -> str:
    return text.replace("\n", "\r\r\n")


def fenced(text: str) -> str:
    return "```text\n" + text + "\n```"


def prompted(text: str) -> str:
    return "user@gpu-host:~$ cat paste.txt\n" + text


# Each transform, and how many lines it adds above the paste's first line.
TRANSFORMS: dict[str, tuple[Callable[[str], str], int]] = {
    "quoted": (quoted, 0), "double-quoted": (double_quoted, 0), "crlf": (crlf, 0), "crlf-twice": (crlf_twice, 0),
    "fenced": (fenced, 1), "prompted": (prompted, 1),
}


def _content(record: HostRecord) -> dict[str, Any]:
    """What the facts read: every recorded command's output, file and pasted document."""
    return {"commands": {argv: r.stdout for argv, r in record.commands.items()},
            "files": dict(record.files), "docs": dict(record.docs)}


def _spans(result: ImportResult, shift: int) -> list[tuple[str, int, int]]:
    return [(kind, a - shift, b - shift) for kind, a, b in result.recognised]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_how_it_was_pasted_changes_nothing_read(entry: CorpusEntry) -> None:
    base = recognise(entry.body, entry.name)
    for name, (transform, shift) in TRANSFORMS.items():
        got = recognise(transform(entry.body), entry.name)
        assert _content(got.record) == _content(base.record), f"{entry.name}, {name}: another record"
        assert _spans(got, shift) == _spans(base, 0), f"{entry.name}, {name}: other kinds or lines"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_a_cut_paste_never_gives_a_new_ok(entry: CorpusEntry) -> None:
    lines = _lines(entry.body)
    cut = random.Random(entry.name).randrange(1, max(len(lines), 2))
    checks = list(entry.expect)
    whole = run_checks(MemoryHost(recognise(entry.body, entry.name).record), checks)
    part = recognise("\n".join(lines[:cut]), entry.name)
    if not part.recognised:
        assert not any((entry.name, cid) in KNOWN_NEW_OK for cid in checks)
        return  # nothing left to read: the paste would be refused, no verdict at all
    got = run_checks(MemoryHost(part.record), checks)
    new_ok = [cid for cid in checks if got[cid].status == "ok" and whole[cid].status != "ok"]
    known = [cid for cid in checks if (entry.name, cid) in KNOWN_NEW_OK]
    assert [c for c in new_ok if c not in known] == [], \
        f"{entry.name} cut after line {cut}: {new_ok} ok where the whole paste is not"
    assert [c for c in known if c not in new_ok] == [], f"{entry.name}: {known} no longer ok: remove from KNOWN_NEW_OK"
