"""A grep of the whole `lspci -vvv` shows every ACSCtl line of the host (facts/shown_commands.ListingGreps).

ACSCtl lines without device addresses are every such line where the command above them greps the whole listing
(not one device's, `-s`/`-d`); elsewhere they are judged over the lines shown (`3 bridges shown`, the coverage rule). ACS on without redirect (`SrcValid+` alone) is
not-an-issue; a redirect on any line is an issue as before.
Real pastes are verbatim, each under the public thread it comes from (a long block cut by the test says so);
modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.shown_commands import ListingGreps

OFF = "ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
SOURCE_VALIDATION = "ACSCtl: SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
REDIRECT = "ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"

# https://github.com/NVIDIA/nccl/issues/1405 (comment of 2025-02-19): the first 14 lines of its block (the test cuts it).
NCCL_1405 = "```\nlspci -vvv | grep ACSCtl\n" + "".join(f"  {OFF}\n" for _ in range(14)) + "```\n"
# https://github.com/NVIDIA/nccl/issues/523 (comment of 2021-06-16): the first 12 lines of its block (the test cuts it).
NCCL_523 = ("# lspci -vvv | grep -i acsctl\n" + "".join(f"                {line}\n" for line in (
    REDIRECT, SOURCE_VALIDATION, SOURCE_VALIDATION, OFF, OFF, OFF, OFF, OFF,
    "ACSCtl: SrcValid- TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-",
    "ACSCtl: SrcValid- TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- DirectTrans-", REDIRECT, REDIRECT)))


def test_the_grep_above_the_lines_is_read_as_a_whole_listing() -> None:
    greps = fact(pasted(body("258")), "listing_greps")
    assert isinstance(greps, ListingGreps)
    assert greps.shown("lspci", OFF) == "sudo lspci -vvv | grep ACSCtl"


def test_source_validation_alone_is_not_an_issue() -> None:
    # Corpus 258 (NVIDIA/nccl#606): four SrcValid+ ports, no redirect on any of the nine.
    result = capture_checks("258", "FW-ACS-P2P")["FW-ACS-P2P"]
    assert result.status == "not-an-issue"
    assert "every one of the host" in result.message and "4 of the 9" in result.message


def test_every_line_off_is_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NCCL_1405, "FW-ACS-P2P")["FW-ACS-P2P"]
    assert result.status == "ok"
    assert "lspci -vvv | grep ACSCtl" in result.message


def test_a_redirect_in_the_listing_stays_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, NCCL_523, "FW-ACS-P2P")["FW-ACS-P2P"]
    assert result.status == "issue" and "5 of 12" in result.message


def test_lines_without_their_whole_listing_grep_are_judged_over_the_lines_shown(tmp_path: Path) -> None:
    # Modelled: 258's lines with no command above them, and under a grep of one device's entry: the coverage rule
    # judges the lines shown (`3 bridges shown`, how many the host has not known), never every line of the host.
    lines = "".join(f"                {line}\n" for line in (SOURCE_VALIDATION, OFF, OFF))
    one_device = "$ sudo lspci -vvv -s 03:00.0 | grep ACSCtl\n" + lines
    for text in (lines, one_device):
        result = paste_checks(tmp_path, text, "FW-ACS-P2P")["FW-ACS-P2P"]
        assert result.status == "not-an-issue" and "every one of the host" not in result.message
        assert result.coverage is not None and result.coverage.text() == "3 bridges shown"
    # Modelled: the user cut lines out of the grep's output (`...`): what is left is not every line.
    cut = "$ sudo lspci -vvv | grep ACSCtl\n" + lines + "...\n" + f"                {OFF}\n"
    result = paste_checks(tmp_path, cut, "FW-ACS-P2P")["FW-ACS-P2P"]
    assert "every one of the host" not in result.message and result.coverage is not None
    assert result.coverage.text() == "4 bridges shown"
