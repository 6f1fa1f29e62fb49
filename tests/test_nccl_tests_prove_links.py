"""What nccl-tests and NCCL's own logs prove about the links (h65f).

- nccl-tests' data check over two or more ranks of one host is ok for IC-P2P-FUNCTIONAL. A run cut inside its table
  (no `# Out of bounds values` summary) counts where every row shown was checked with 0 wrong elements and its bus
  bandwidth tops what a path through host memory gives over the GPUs' PCIe link (half the link's rate): only P2P or
  NVLink carries that (corpus 762). Rows at a lower rate prove nothing (corpus 630).
- A summary pasted without its rank lines takes its ranks from the NCCL log beside it (corpus 628).
- A rank line's host may be words a user wrote (`on NODE A device 0`, corpus 1391); such a label settles no single node.
- NCCL's topology dump cut above its header still shows each GPU's NVLinks to the NVSwitch (corpus 1394).
- A one-rank nccl-tests run lists the GPUs it used, not the host's: IC-NCCL-ENV stays unknown (corpus 1383).

Real text is quoted from the corpus files named; modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.peer_access import data_tests_in_nccl_tests
from stackaudit.facts.serving_logs import parse_serving_log

CHECK = "IC-P2P-FUNCTIONAL"

# Modelled on corpus 762: the same four RTX 4090 and header, the rows at a rate host memory gives (12 GB/s busbw).
SLOW_ROWS_762 = """\
  ./build/all_reduce_perf -b 256M -e 2G -f 2 -g 4
  # nThread 1 nGpus 4 minBytes 268435456 maxBytes 2147483648 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
  #
  # Using devices
  #  Rank  0 Group  0 Pid  19124 on 7773x device  0 [0000:85:00] NVIDIA GeForce RTX 4090
  #  Rank  1 Group  0 Pid  19124 on 7773x device  1 [0000:86:00] NVIDIA GeForce RTX 4090
  #  Rank  2 Group  0 Pid  19124 on 7773x device  2 [0000:89:00] NVIDIA GeForce RTX 4090
  #  Rank  3 Group  0 Pid  19124 on 7773x device  3 [0000:8d:00] NVIDIA GeForce RTX 4090
  #
  #                                                              out-of-place                       in-place
  #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
  #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     268435456      67108864     float     sum      -1    33554    8.00   12.00      0    33554    8.00   12.00      0
"""


def test_corpus_762_rows_checked_above_the_host_path_are_ok() -> None:
    got = capture_checks("762", CHECK)[CHECK]
    assert got.status == "ok"
    assert "25.95 GB/s" in got.message and "15.8 GB/s" in got.message and "PCIe Gen4 x16" in got.message
    assert got.coverage is not None and got.coverage.count == 4


def test_the_rows_verdict_carries_ranks_models_and_busbw() -> None:
    tests = data_tests_in_nccl_tests(body("762")).tests
    assert len(tests) == 1
    run = tests[0]
    assert run.rows_only and run.passed and run.ranks == 4 and run.hosts == ("7773x",)
    assert run.busbw == 25.95 and {m for _, m in run.models} == {"NVIDIA GeForce RTX 4090"}


def test_rows_at_a_rate_host_memory_gives_prove_nothing(tmp_path: Path) -> None:
    """Modelled: the same run at 12 GB/s busbw, below the 15.8 GB/s a host path gives over Gen4 x16."""
    assert paste_checks(tmp_path, SLOW_ROWS_762, CHECK)[CHECK].status == "unknown"


def test_corpus_630_first_small_rows_stay_unknown() -> None:
    assert capture_checks("630", CHECK)[CHECK].status == "unknown"


def test_corpus_628_summary_takes_its_ranks_from_the_nccl_log() -> None:
    got = capture_checks("628", CHECK)[CHECK]
    assert got.status == "ok"
    assert "2 GPUs of deepseek" in got.message and "Destroy COMPLETE" in got.message


def test_corpus_1391_host_in_words_is_read_and_its_rate_named() -> None:
    results = capture_checks("1391", CHECK, "IC-NIC-GPU-AFFINITY")
    assert results[CHECK].status == "ok"
    assert "8 GPUs of NODE A" in results[CHECK].message and "480.14 GB/s" in results[CHECK].message
    # `NODE A` is the user's label for one node of several: it does not settle a job on one node.
    assert results["IC-NIC-GPU-AFFINITY"].status == "unknown"


def test_corpus_1394_cut_topology_dump_shows_ampere_nvlinks_up() -> None:
    tree = parse_serving_log(body("1394")).topo_tree
    assert tree is not None
    assert tree.gpus == ("e000", "13000", "4a000")
    assert [bw for _, _, bw, _ in tree.nvlinks] == [252.0, 252.0, 252.0]
    results = capture_checks("1394", "DRV-NVLINK-HEALTH", "IC-NIC-GPU-AFFINITY")
    assert results["DRV-NVLINK-HEALTH"].status == "ok"
    assert "12 NVLink 3 links of an Ampere GPU" in results["DRV-NVLINK-HEALTH"].message
    # The bold-marked NET line is read: GPU 2 sits beyond PXB of it, and no host name says one node or several.
    assert results["IC-NIC-GPU-AFFINITY"].status == "unknown"


def test_a_lower_nvl_figure_is_not_read_as_every_link_up(tmp_path: Path) -> None:
    """Modelled: the 1394 dump with 8 of the 12 links counted (8 x 21.0)."""
    text = body("1394").replace("NVL[252.0]", "NVL[168.0]")
    tree = parse_serving_log(text).topo_tree
    assert tree is not None and {bw for _, _, bw, _ in tree.nvlinks} == {168.0}
    assert paste_checks(tmp_path, text, "DRV-NVLINK-HEALTH")["DRV-NVLINK-HEALTH"].status != "ok"


def test_corpus_1383_one_rank_test_leaves_nccl_env_unknown() -> None:
    results = capture_checks("1383", "IC-NCCL-ENV", CHECK, "IC-TOPOLOGY-PLACEMENT")
    assert results["IC-NCCL-ENV"].status == "unknown"
    assert results[CHECK].status == "not-applicable"
