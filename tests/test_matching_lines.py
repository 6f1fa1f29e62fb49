"""Kernel-log greps with needles: one scan of the lowercased log for plain strings, then the pattern
on the lines that hold one, gives the same lines as a search of every line."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.facts._parse import lines_holding
from stackaudit.facts.system import KernelLog

# (pattern, needles one of which each match holds), as the facts and checks grep kernel logs.
GREPS = (
    (r"\bAER:|PCIe Bus Error", ("aer:", "pcie bus error")),
    (r"DMAR:.*fault|AMD-Vi:.*IO_PAGE_FAULT", ("dmar:", "amd-vi:")),
    (r"DMAR:.*fault|AMD-Vi:.*IO_PAGE_FAULT|IOMMU.*fault", ("fault",)),  # KernelLog.iommu_faults
    (r"aer|replay|aer: x", ("aer", "replay", "aer: x", "AER")),  # overlapping and repeated needles
    (r"\bGHES\b|APEI", ("ghes", "apei")),
    (r"nvidia_uvm.*(hmm|fail)|hmm.*nvidia", ("nvidia_uvm", "hmm")),
)
# Mixed case, the needles' letters, and characters whose lowercase is longer (İ) or which
# str.splitlines() would split at but "\n" joins do not carry.
LINE = st.text(alphabet="aerAER:dmfultDMAR-vihVIHnpcPCIbusBUS _İßoOMGFxy\t", max_size=24)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, max_size=14), st.sampled_from(GREPS))
def test_needles_give_the_lines_a_search_per_line_gives(lines: list[str], grep: tuple[str, tuple[str, ...]]) -> None:
    pattern, needles = grep
    log = KernelLog(tuple(lines))
    expected = [line for line in lines if re.search(pattern, line, re.IGNORECASE)]
    assert log.grep(pattern, needles=needles) == expected
    assert log.grep(pattern) == expected


def test_line_numbers_survive_lowercasing_that_changes_lengths() -> None:
    lines = ["İİİİ AER: x", "nothing", "İ", "dmar: y"]
    assert lines_holding("\n".join(lines), lines, ("aer:", "dmar:")) == [0, 3]


def test_a_line_is_listed_once_however_many_needles_it_holds() -> None:
    lines = ["AER: PCIe Bus Error aer:", "x"]
    assert lines_holding("\n".join(lines), lines, ("aer:", "pcie bus error")) == [0]


@pytest.mark.parametrize("stdout", [
    "[ 0.0] Linux version 6.8\n[ 1.0] AER: x\n\n[ 2.0] dmar: fault\n",  # a trailing newline, an empty line
    "[ 0.0] Linux version 6.8\r\n[ 1.0] AER: x\r\n[ 2.0] dmar: fault",  # CRLF: the lines are joined again
    "[ 0.0] a\x85[ 1.0] AER: x\u2028[ 2.0] dmar: fault",  # breaks only str.splitlines() knows
])
def test_the_kernel_log_text_keeps_the_lines_numbered_as_its_lines(stdout: str) -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.host.memory import fake_host

    log = Collector(fake_host(commands={"dmesg": stdout})).results(["kernel_log"])["kernel_log"]
    assert isinstance(log, KernelLog)
    assert log.raw in ("", stdout) and (log.raw == stdout) == ("\n" in stdout and "\r" not in stdout)
    assert [log.lines[i] for i in lines_holding(log.text, log.lines, ("aer:", "dmar:"))] == \
        [line for line in log.lines if "AER:" in line or "dmar:" in line]
