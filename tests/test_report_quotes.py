"""A finding's quote and its citation answer what the paste shows (h71b): a long quote keeps the words the finding
names, the citation names the line quoted and the kind of output it lies in, and the reason the message gives shows
under the title where the title lacks it. Corpus pastes (tests/data/captures) and modelled lines, marked so."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from corpus import CAPTURES_DIR
from stackaudit.engine.quote_lines import quote_span
from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report, run_audit
from stackaudit.host.source import Provenance
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.header import evidence_line, quote_cut, reason_line
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions, provenance_line


@cache
def _capture(prefix: str) -> Report:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return run_audit(load_pasted([str(path)]))


def _result(prefix: str, check: str) -> Result:
    return next(r for r in _capture(prefix).results if r.id == check)


# Corpus 1583, line 1: the kubelet's refusal, whose cause stands past the first 160 characters.
KUBELET = ("Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = "
           "Unknown desc = error getting list of preferred allocation devices: unable to retrieve list of available "
           "devices: error creating nvml.Device 0: nvml: Unknown Error, which is unexpected")


def test_a_long_quote_keeps_the_words_the_finding_names() -> None:
    r = _result("1583", "CTR-GPU-ACCESS")
    line = evidence_line(r)
    assert "nvml: Unknown Error" in line and line.startswith("“Pod Allocate failed due to")
    assert " … " in line and len(line) <= 162  # the quote marks aside, within the limit


def test_the_cut_keeps_the_start_and_the_named_end() -> None:
    cut = quote_cut(KUBELET, "an NVML error there", 160)
    assert cut.startswith("Pod Allocate failed due to") and cut.endswith("nvml: Unknown Error, which is unexpected")
    assert len(cut) <= 160 and " … " in cut


def test_a_cut_that_drops_no_named_word_is_cut_at_the_limit() -> None:
    assert quote_cut(KUBELET, "the kubelet refused the pod", 160) == KUBELET[:KUBELET.rindex(" ", 0, 159)] + "…"
    assert quote_cut("short line", "anything", 160) == "short line"


def test_a_cut_that_would_lose_what_the_rule_matched_stays_at_the_limit() -> None:
    # Modelled: the rule matched the line's first 40 characters, the words named stand at its end.
    line = "alpha " * 10 + "beta " * 30 + "gamma delta"
    plain = quote_cut(line, "nothing here", 100)
    assert quote_cut(line, "delta", 100, rule=(0, 80)) == plain
    assert quote_cut(line, "delta", 100, rule=(0, 20)).endswith("gamma delta")


@pytest.mark.parametrize(("prefix", "check", "cited"), [
    ("1567", "CTR-GPU-ACCESS", "pasted server log ({name}, line 4, excerpt)"),
    ("1586", "CTR-GPU-ACCESS", "pasted empty unit journal ({name}, lines 34–35, excerpt)"),
    ("1580", "KVER-DMABUF", "pasted NCCL log ({name}, line 5, excerpt)"),
])
def test_the_citation_names_the_quoted_line_and_its_kind(prefix: str, check: str, cited: str) -> None:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    assert provenance_line(_result(prefix, check), limit=1).startswith("from " + cited.format(name=path.name))


def test_the_span_the_quote_was_cut_from_is_not_one_more_source() -> None:
    r = _result("1580", "KVER-DMABUF")
    assert [p.lines for p in r.provenance] == [(5, 5), (2, 7)]  # the facts were read from the whole span
    assert "more" not in provenance_line(r, limit=1)


def test_a_quote_joined_from_adjacent_lines_is_found_in_them() -> None:
    # Modelled on corpus 1586: a prompt line and the answer under it, quoted as one.
    lines = ["x", "bash-5.1# journalctl -b -u nvidia-k8s-device-plugin", "-- No entries --", "y"]
    assert quote_span("journalctl -b -u nvidia-k8s-device-plugin: -- No entries --", lines, (1, 4)) == (2, 3)
    assert quote_span("-- No entries --", lines, (1, 4)) == (3, 3)
    assert quote_span("not there at all", lines, (1, 4)) is None


def test_an_unnamed_quote_keeps_the_checks_provenance() -> None:
    p = Provenance("server log", "pasted", False, "x.txt", (1, 3))
    r = Result("X", "d", "t", "issue", "m", evidence=("a line",), provenance=(p,))
    assert provenance_line(r) == "from pasted server log (x.txt, lines 1–3, excerpt)"


@pytest.mark.parametrize(("prefix", "check", "words"), [
    ("1580", "KVER-DMABUF", "fell back to TCP sockets (`via NET/Socket`)"),
    ("1586", "CTR-GPU-ACCESS", "the node exposes no nvidia.com/gpu to pods"),
])
def test_the_reason_shows_under_the_title(prefix: str, check: str, words: str) -> None:
    assert words in reason_line(_result(prefix, check))
    text = render(_capture(prefix), "markdown", options=RenderOptions())
    assert " ".join(words.split()) in " ".join(text.split())


def test_a_reason_the_title_and_quote_say_is_not_repeated() -> None:
    r = Result("X", "d", "t", "issue", "open-file limit low: open-file limit low", evidence=("ulimit -n 1024",))
    assert reason_line(r) == ""
    assert reason_line(Result("X", "d", "t", "issue", "a finding: its reason")) == ""  # evidence_line shows it


def test_a_command_continued_over_lines_is_cited_where_it_stands() -> None:
    # Corpus 677: the quote joins lines 3-11 of a `\\`-continued command, its API key redacted.
    [path] = CAPTURES_DIR.glob("677-*.txt")
    r = _result("677", "RT-CUDA-GRAPHS")
    assert provenance_line(r, limit=1).startswith(f"from pasted engine command ({path.name}, lines 3–11, excerpt)")
    assert reason_line(r).startswith("--enforce-eager (fine only while debugging")


def test_a_quote_whose_start_would_lose_the_rule_drops_its_prefix() -> None:
    # Corpus 969, line 13: NCCL's shared-memory failure behind a time, host and pid prefix.
    line = evidence_line(_result("969", "CTR-SHM-SIZE"))
    assert line.startswith("“… failed to extend /dev/shm/nccl-")
    assert "No space left on device (28)”" in line


def test_a_path_a_snapshot_names_is_read_only_as_a_plain_file(tmp_path: Path) -> None:
    """Modelled: a saved paste's meta.json names its file; the runner re-reads it to cite a quote's line. A file of
    the kernel's virtual file systems (/proc/kmsg blocks its reader), a link to one and a FIFO are never read."""
    from stackaudit.engine.quote_lines import _read_lines

    paste = tmp_path / "paste.txt"
    paste.write_bytes(b"NVRM: Xid (PCI:0000:b3:00): 79, GPU has fallen off the bus.\r\r\nnext")
    # Numbered as the importers number them: `\r\r\n` is one line end.
    assert _read_lines(str(paste)) == ["NVRM: Xid (PCI:0000:b3:00): 79, GPU has fallen off the bus.", "next"]
    link = tmp_path / "link.txt"
    link.symlink_to("/proc/self/status")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled", str(link), str(fifo)):
        assert _read_lines(path) is None, path
