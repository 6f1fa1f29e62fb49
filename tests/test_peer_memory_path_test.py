"""IC-NVIDIA-PEERMEM from a shown shell test of the peer-memory client's /sys file (`test -e
/sys/kernel/mm/memory_peers/nv_mem/version && echo "GDR is enabled" || echo "GDR is not enabled"`, then the word it
printed): the file NCCL tests before it offers GPU Direct RDMA (importers/shown_commands.py, facts/shown_commands.py
PathTests, facts/system.py peer_memory_loaded).

The real test is corpus 963 (NVIDIA/nccl-tests#252); the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.shown_commands import path_test

NV_MEM = '$ test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo "GDR is enabled" || echo "GDR is not enabled"\n'


def test_the_word_printed_settles_the_path() -> None:
    command = NV_MEM[2:].strip()
    assert path_test(command, "GDR is enabled") == ("/sys/kernel/mm/memory_peers/nv_mem/version", True)
    assert path_test(command, "GDR is not enabled") == ("/sys/kernel/mm/memory_peers/nv_mem/version", False)
    # Modelled: a line that is neither word, and a test without its two echoes, settle nothing.
    assert path_test(command, "Segmentation fault") is None
    assert path_test("test -e /sys/kernel/mm/memory_peers/nv_mem/version", "GDR is enabled") is None


def test_corpus_963_registered_client_is_ok() -> None:
    r = capture_checks("963", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert r.status == "ok" and "GDR is enabled" in r.message


def test_modelled_absent_file_proves_no_load(tmp_path: Path) -> None:
    # Modelled: the same test printing its second word: the file is absent, which is no ok.
    text = NV_MEM + "GDR is not enabled\n"
    assert fact(pasted(text), "path_tests").exists("/sys/kernel/mm/memory_peers/nv_mem/version")[0] is False
    assert paste_checks(tmp_path, text, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"].status != "ok"
