"""UCX's own line naming the locked-memory limit proves CTR-MEMLOCK on its own, quoted.

UCX (under NCCL's and MPI's RDMA transports) appends "Please set max locked memory (ulimit -l) to 'unlimited'"
to a failed registration or to the notice that disables its RDMA transports (src/uct/ib/base/ib_md.c).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Real: openucx/ucx#7930, a review comment quoting the CI log (2022-03-01), one line of it.
UCX_7930 = ("2022-03-01T08:52:58.1403598Z [     INFO ] < /__w/1/s/contrib/../src/uct/ib/base/ib_md.c:1193 RDMA "
            "transports are disabled because max locked memory limit (64 kbytes) is too low. Please set max locked "
            "memory (ulimit -l) to 'unlimited' >\n")


def test_corpus_419_ucx_names_the_8_mib_limit() -> None:
    # Corpus 419: https://github.com/mlcommons/mlperf-automations/issues/664 (a TensorRT-LLM harness in Docker).
    result = capture_checks("419", "CTR-MEMLOCK")["CTR-MEMLOCK"]
    assert result.status == "issue", result.message
    assert "current: 8192 kbytes" in " ".join(result.evidence) + result.message


def test_ucx_disabling_its_rdma_transports(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, UCX_7930, "CTR-MEMLOCK")["CTR-MEMLOCK"]
    assert result.status == "issue", result.message


def test_modelled_allocation_failure_without_the_limit_proves_nothing(tmp_path: Path) -> None:
    # Modelled: the same failure where memlock was already unlimited (UCX then adds no advice).
    text = ("[1744644100.553280] [node:188662:0]        ib_iface.c:1230 UCX  ERROR mlx5_0: ibv_create_cq(cqe=4096) "
            "failed: Cannot allocate memory\n")
    assert paste_checks(tmp_path, text, "CTR-MEMLOCK")["CTR-MEMLOCK"].status != "issue"
