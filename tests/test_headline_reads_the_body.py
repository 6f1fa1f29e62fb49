"""The headline reads the facts the body reads: a count the body judges on ("4 GPUs shown", "GPUs sit on NUMA
nodes 0, 1") is never `unknown` or `?` above it; a count from an excerpt or a log's ranks is a lower bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, corpus_path
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.importers.pasted import load_pasted
from stackaudit.report.sections import headline_lines


def _headline(path: Path) -> str:
    return headline_lines(run_audit(load_pasted([str(path)]), AuditOptions()))[1]


@pytest.mark.parametrize(("prefix", "gpus", "numa"), [
    # Real: vLLM issue 6636, four TP ranks of one host joined over P2P/IPC (IC-P2P-FUNCTIONAL: 4 GPUs shown).
    ("326", "GPUs: at least 4 NVIDIA", "NUMA nodes: ?"),
    # Real: SGLang check_env, 8x H100 with `topo -m` cut after GPU2 (FW-NUMA-NPS: nodes 0, 1).
    ("322", "GPUs: 8 NVIDIA (NVIDIA H100 80GB HBM3)", "NUMA nodes: at least 2"),
    # Real: club-3090 `topo -m`, five GPUs, GPU0 on the other socket.
    ("325", "GPUs: 5 NVIDIA", "NUMA nodes: at least 2"),
    # Real: 8x B200 `topo -m` with GPU2's NVLink missing.
    ("09", "GPUs: 8 NVIDIA", "NUMA nodes: at least 2"),
    # Real: an nvidia-smi table of two RTX 3090 that ends after GPU 1's rows, before its Processes box: read as the
    # host's two where no source shows more (NvidiaGpus.cut_at_border).
    ("15", "GPUs: 2 NVIDIA", "NUMA nodes: ?"),
    # Real counter-example: lscpu lists every NUMA node, so the count is exact.
    ("48", "GPUs: unknown", "NUMA nodes: 8"),
])
def test_the_headline_counts_what_the_body_judges(prefix: str, gpus: str, numa: str) -> None:
    line = _headline(corpus_path(prefix))
    assert gpus in line and line.endswith(numa), line


def test_ranks_on_two_hosts_prove_no_gpu_count(tmp_path: Path) -> None:
    # Modelled: capture 326's channel lines with rank 3 on a second host: its ranks no longer share one host, so
    # they count no GPU of this one.
    text = body("326").replace("gpuhost:154785:154785 [3]", "otherhost:154785:154785 [3]")
    paste = tmp_path / "paste.txt"
    paste.write_text(text)
    assert "GPUs: unknown" in _headline(paste)
