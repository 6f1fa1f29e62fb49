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


def test_a_cat_of_the_version_file() -> None:
    path = "/sys/kernel/mm/memory_peers/nv_mem/version"
    # Real (NVIDIA/nccl#1939, shirinebadi): cat's error is the file absent.
    assert path_test(f"cat {path}", f"cat: {path}: No such file or directory") == (path, False)
    # Modelled: a version printed under it is the file there, and counts as the client registered.
    assert path_test(f"cat {path}", "1.3") == (path, True)
    assert fact(pasted(f"$ cat {path}\n1.3\n"), "path_tests").exists(path) == (True, f"cat {path} -> 1.3")
    # Modelled: a file outside /sys, or a line that is neither answer, settles nothing.
    assert path_test("cat /etc/version", "1.3") is None
    assert path_test(f"cat {path}", "Permission denied") is None
