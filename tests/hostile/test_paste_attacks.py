"""Pastes built to hurt: `\\r\\r\\n` line ends (recognition must not halve) and one 10 MB line (the
report stays bounded, long values cut with a marker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_support import REPO, run_child, stackaudit

# Real pastes from the project's corpus (each file's header names its public thread).
CAPTURES = REPO / "tests" / "data" / "captures"
PASTES = ["11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt", "05-a100-sxm4-lspci-maxreadreq-512.txt"]
TEN_MB = 10 * 1024 * 1024


@pytest.mark.parametrize("name", PASTES)
def test_cr_cr_lf_line_ends_recognise_as_much_as_lf(tmp_path: Path, name: str) -> None:
    text = (CAPTURES / name).read_text(encoding="utf-8").replace("\r\n", "\n")
    runs = {}
    for end in ("\n", "\r\r\n"):
        paste = tmp_path / ("crcrlf.txt" if end != "\n" else "lf.txt")
        paste.write_bytes(text.replace("\n", end).encode())
        run = run_child(stackaudit("audit", "--from", str(paste), "-f", "json"), tmp_path)
        assert run.rc in (0, 1), run.err
        run.assert_bounded()
        report = json.loads(run.out)
        runs[end] = ([(r["id"], r["status"], r["message"]) for r in report["results"]],
                     sorted(p["source"] for r in report["results"] for p in r["provenance"]))
    assert runs["\r\r\n"] == runs["\n"]
    assert sum(status != "unknown" for _, status, _ in runs["\n"][0]) >= 2  # something was recognised at all


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_a_10_mb_line_keeps_the_report_bounded(tmp_path: Path, fmt: str) -> None:
    paste = tmp_path / "dmesg.txt"
    # The long line is an Xid line, so the evidence quoting it must be cut; the line after it still counts.
    paste.write_text("$ dmesg\n[    1.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Tue\n"
                     "[    1.500000] NVRM: Xid (PCI:0000:02:00): 13, Graphics Exception " + "a" * TEN_MB
                     + "\n[    2.000000] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n")
    run = run_child(stackaudit("audit", "--from", str(paste), "-f", fmt), tmp_path, timeout=90)
    assert run.rc in (0, 1), run.err
    run.assert_bounded()
    assert len(run.out) < 200_000  # was 10.5 MB in JSON
    if fmt == "json":
        assert "[cut: 4096 of " in run.out  # the evidence quoting the long line ends in the marker
        assert "fallen off the bus" in run.out  # the line after the long one still counts


def test_a_1_mb_table_row_is_read_in_one_pass(tmp_path: Path) -> None:
    """A hardware summary's Markdown row cut before its closing bar, its value 1 MB long: the row reader splits on
    bars (facts/_parse.stated_line); a pattern with a run to retry before the bar took minutes on 200 kB."""
    paste = tmp_path / "summary.txt"
    paste.write_text("## Environment\n| **Driver** | " + "a" * 1024 * 1024 + " 580.95\n| **PyTorch** | 2.8.0+cu128 |\n")
    run = run_child(stackaudit("audit", "--from", str(paste), "-f", "json"), tmp_path, timeout=90)
    assert run.rc in (0, 1), run.err
    run.assert_bounded()
    assert "2.8.0+cu128" in run.out  # the row after the long one is still read


def test_a_1_mb_process_row_is_no_row(tmp_path: Path) -> None:
    """An nvidia-smi table whose process row runs on for 1 MB of spaces: no row nvidia-smi draws is that wide
    (facts/nvidia_smi._MAX_ROW), so the row patterns never retry over it; the GPU row above still counts."""
    paste = tmp_path / "smi.txt"
    paste.write_text(
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
        "|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0 Off |                  Off |\n"
        "| 30%   38C    P8             21W /  450W |   21970MiB /  24564MiB |      0%      Default |\n"
        "| Processes:                                                                              |\n"
        "|    0   N/A  N/A      2211      C   x" + " " * 1024 * 1024 + "y\n")
    run = run_child(stackaudit("audit", "--from", str(paste), "-f", "json"), tmp_path, timeout=90)
    assert run.rc in (0, 1), run.err
    run.assert_bounded()
    assert "RTX 4090" in run.out
