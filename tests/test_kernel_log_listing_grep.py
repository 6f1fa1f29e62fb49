"""Issue 28, a verdict where the text suffices: a grep of this boot's kernel log whose pattern matches an Xid line,
shown with all it printed (`dmesg | grep NVRM`, nvidia-bug-report.sh's `journalctl -b -0:` scan, which greps
`-e NVRM -e nvidia-`), lists every Xid line of this boot: none among its lines proves no Xid, and nothing else
(facts/shown_commands.py `_LISTINGS`, facts/gpu_events.py `gpu_events_listed`)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.shown_commands import BUG_REPORT_SCAN_GREP, listing_command, parse_grep

_CHECK = "DRV-XID"

# Real: https://github.com/void-linux/void-packages/issues/1231 (issue body by codingHahn): `sudo dmesg | grep
# nvidia` and its first lines. "nvidia" is not in an Xid line (`NVRM: Xid (PCI:…)`): the grep cannot list them.
VOID_1231 = """[void@voidmachine ~]$ sudo dmesg | grep nvidia
[   14.521447] nvidia: loading out-of-tree module taints kernel.
[   14.521453] nvidia: module license 'NVIDIA' taints kernel.
[   14.534219] nvidia-nvlink: Nvlink Core is being initialized, major device number 239
[   14.762771] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  390.67  Fri Jun  1 03:15:43 PDT 2018
[   14.863057] [drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver
"""


def test_bug_report_scan_of_this_boot_with_no_xid_is_ok() -> None:
    # Real (corpus 231, a whole nvidia-bug-report.log): the `journalctl -b -0:` block, NVRM banner, no Xid.
    r = capture_checks("231", _CHECK)[_CHECK]
    assert r.status == "ok" and BUG_REPORT_SCAN_GREP in r.message


def test_an_xid_among_the_listed_lines_stays_the_finding() -> None:
    # Real (corpus 216, open-gpu-kernel-modules#876): `sudo dmesg | grep 'NVRM'` lists a GSP boot failure (Xid 120).
    r = capture_checks("216", _CHECK)[_CHECK]
    assert r.status == "issue" and "Xid 120" in r.message


def test_a_grep_that_cannot_match_an_xid_proves_nothing(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, VOID_1231, _CHECK)[_CHECK]
    assert r.status == "unknown"


def test_modelled_nvrm_grep_with_the_banner_only_is_ok_and_an_xid_in_it_is_an_issue(tmp_path: Path) -> None:
    # Modelled on corpus 216's form: the command, then the driver's load banner.
    clean = ("$ sudo dmesg | grep NVRM\n"
             "[    5.499014] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n")
    assert paste_checks(tmp_path, clean, _CHECK)[_CHECK].status == "ok"
    xid = clean + "[ 9001.000001] NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=python, GPU has fallen off the bus.\n"
    assert paste_checks(tmp_path, xid, _CHECK)[_CHECK].status == "issue"


def test_only_this_boot_is_a_listing() -> None:
    # Modelled: an earlier boot's journal says nothing of this one's; the bug report's header maps to its grep.
    assert parse_grep("journalctl -b -1 | grep NVRM", listing=True) is None
    assert parse_grep("sudo journalctl -k | grep -i nvrm", listing=True) is not None
    assert listing_command("  journalctl -b -0:") == BUG_REPORT_SCAN_GREP
    assert listing_command("  journalctl -b -1:") == "journalctl -b -1:"
