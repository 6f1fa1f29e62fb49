"""The property of the whole corpus (issue 27): how a paste was pasted changes nothing that is read.

Every real paste of tests/data/captures, quoted (`> `), double-quoted (`> > `), with Windows line ends
(`\\r\\n` and `\\r\\r\\n`), inside a code fence or after a shell prompt line, gives the same record as
the paste itself: the same outputs, read as the same kinds, on the lines the user's file has them.
Cut at a line (a deterministic pseudo-random one per file), it never gives an `ok` the whole paste
does not give: what was cut away can only take evidence away. With old Mac line ends (`\\r` alone) it
gives the same record too. Its `nvidia-smi -q` output flattened onto one line (a chat or a forum joins
the `Key : value` fields with spaces), it gives the same GPU facts, read from that one line, and no new `ok`.
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
    ("05-a100-sxm4-lspci-maxreadreq-512.txt", "PCIE-MRRS"):
        "issue 28: lspci cut inside the GPU's entry, before DevCtl's MaxReadReq: ok over no device "
        "('MaxReadReq : 256-4096 B is within the normal range') where the whole entry gives not-an-issue",
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


def cr_only(text: str) -> str:
    return text.replace("\n", "\r")


def fenced(text: str) -> str:
    return "```text\n" + text + "\n```"


def prompted(text: str) -> str:
    return "user@gpu-host:~$ cat paste.txt\n" + text


# Each transform, and how many lines it adds above the paste's first line.
TRANSFORMS: dict[str, tuple[Callable[[str], str], int]] = {
    "quoted": (quoted, 0), "double-quoted": (double_quoted, 0), "crlf": (crlf, 0), "crlf-twice": (crlf_twice, 0),
    "cr-only": (cr_only, 0), "fenced": (fenced, 1), "prompted": (prompted, 1),
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


# --- flattened `Key : value` runs ----------------------------------------------------------------------

QUERY_KINDS = ("nvidia-smi -q", "nvidia-smi -q section")
QUERY_ENTRIES = [(e, kind) for e in ENTRIES for kind in QUERY_KINDS if kind in e.kinds]


def flattened(entry: CorpusEntry, kind: str) -> tuple[str, list[int]]:
    """The paste with each range of `kind` joined onto one line, whitespace collapsed; the 1-based line
    numbers of those joined lines in the new text."""
    lines = list(entry.body_lines)
    joined = []
    for a, b in reversed(entry.kinds[kind]):
        lines[a - 1:b] = [" ".join(" ".join(lines[a - 1:b]).split())]
        joined = [a] + [n - (b - a) for n in joined]
    return "\n".join(lines), joined


def test_the_corpus_has_query_pastes_to_flatten() -> None:
    assert len(QUERY_ENTRIES) >= 8


@pytest.mark.parametrize(("entry", "kind"), QUERY_ENTRIES, ids=lambda x: x.path.name[:48] if hasattr(x, "path") else x)
def test_flattened_query_fields_give_the_same_facts(entry: CorpusEntry, kind: str) -> None:
    from corpus import fact

    text, joined = flattened(entry, kind)
    base = recognise(entry.body, entry.name)
    flat = recognise(text, entry.name)
    assert fact(MemoryHost(flat.record), "nvidia") == fact(MemoryHost(base.record), "nvidia"), entry.name
    # Read as `-q` on the joined line itself: a provenance line points at what the user pasted.
    spans = [(a, b) for k, a, b in flat.recognised if k == "nvidia-smi -q"]
    assert any(a <= n <= b for n in joined for a, b in spans), (entry.name, joined, flat.recognised)
    checks = list(entry.expect)
    whole = run_checks(MemoryHost(base.record), checks)
    got = run_checks(MemoryHost(flat.record), checks)
    assert [c for c in checks if got[c].status == "ok" and whole[c].status != "ok"] == [], entry.name


# Modelled (no real paste of a joined run was found in public threads): the fields of a GPU section as a chat
# joins them, around a line of prose, with old Mac line ends between the lines.
MODELLED_FLAT = ("my GPU:\r"
                 "GPU 00000000:3B:00.0 Product Name : NVIDIA A100-SXM4-80GB Persistence Mode : Disabled "
                 "MIG Mode Current : Disabled Pending : Disabled Compute Mode : Default "
                 "Clocks Event Reasons Idle : Not Active SW Power Cap : Active HW Slowdown : Not Active "
                 "GPU Power Readings Current Power Limit : 300.00 W Requested Power Limit : 300.00 W "
                 "Default Power Limit : 400.00 W Max Clocks Graphics : 1410 MHz SM : 1410 MHz Memory : 1593 MHz\r"
                 "thanks")


def test_a_modelled_flattened_gpu_section_is_read_field_by_field() -> None:
    from corpus import fact

    result = recognise(MODELLED_FLAT, "modelled")
    assert [k for k, _, _ in result.recognised] == ["nvidia-smi -q"]
    assert {(a, b) for _, a, b in result.recognised} == {(2, 2)}  # the user's second line
    gpus = fact(MemoryHost(result.record), "nvidia").gpus
    assert len(gpus) == 1
    g = gpus[0]
    assert (g.name, g.bdf, g.persistence, g.compute_mode, g.mig_current) == (
        "NVIDIA A100-SXM4-80GB", "0000:3b:00.0", False, "Default", False)
    assert (g.power_limit_w, g.power_enforced_w, g.power_default_w) == (300.0, 300.0, 400.0)
    assert g.clock_events == ("sw_power_cap",)
    assert (g.max_sm_clock_mhz, g.max_mem_clock_mhz) == (1410, 1593)


def test_the_brief_run_and_what_is_not_a_run() -> None:
    from stackaudit.importers._paste import unflatten, view

    assert unflatten("Persistence Mode : Enabled Power Limit : 300.00 W") == [
        "    Persistence Mode : Enabled", "    Power Limit : 300.00 W"]
    # Two ` : ` without two names nvidia-smi prints: not a run, left as it is.
    assert unflatten("Model : llama-3 Backend : cuda") is None
    paste = view("a\nDriver Version : 550.54.15 CUDA Version : 12.4\nb")
    assert paste.lines == ["a", "Driver Version : 550.54.15", "CUDA Version : 12.4", "b"]
    assert list(paste.origin) == [0, 1, 1, 2]
