"""IC-P2P-FUNCTIONAL from tests that move data between GPUs and check it (facts/peer_access.py DATA_TESTS).

A peer-access "Yes" or an NCCL P2P channel line is set-up; simpleP2P's verification and nccl-tests' count of wrong
values say whether data crossed intact. A failed check is an issue; a passed nccl-tests run over two or more ranks of
one host, with P2P not turned off on its command, is ok; a run across hosts or with P2P off says nothing of P2P.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "IC-P2P-FUNCTIONAL"

# https://github.com/aikitoria/open-gpu-kernel-modules/issues/8 (two RTX 4090, simpleP2P after the P2P patch)
SIMPLEP2P_VERIFICATION_ERROR = """\
Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...
Copy data back to host from GPU0 and verify results...
Verification error @ element 0: val = nan, ref = 0.000000
Verification error @ element 1: val = nan, ref = 4.000000
Verification error @ element 2: val = nan, ref = 8.000000
Verification error @ element 3: val = nan, ref = 12.000000
"""

# https://github.com/coreweave/nccl-tests/pull/43 (a GB200 NVL72 rack: one rank line of 72 shown, ranks on many hosts)
NVL72_RACK_RUN = """\
#  Rank 71 Group  0 Pid  14840 on slurm-gb200-207-171 device  3 [0x01] NVIDIA Graphics Device
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   536870912     134217728     float     sum      -1   1806.7  297.16  586.06      0   1835.9  292.43  576.74      0
  1073741824     268435456     float     sum      -1   3108.8  345.38  681.17      0   2924.7  367.13  724.06      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 745.53
"""

# Modelled: one host, two ranks, NCCL's P2P turned off on the command; the check passes over host memory.
P2P_OFF_RUN = """\
$ NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4100 on     box device  0 [0x01] NVIDIA RTX A6000
#  Rank  1 Group  0 Pid   4100 on     box device  1 [0x02] NVIDIA RTX A6000
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   134217728      33554432     float     sum      -1    14001    9.59    9.59      0    13990    9.59    9.59      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 9.59
"""


def test_nccl_tests_checked_on_two_local_gpus_is_ok() -> None:
    """nccl-tests#44: all_reduce_perf -g 2 on two bridged 2080 Ti, '# Out of bounds values : 0 OK'."""
    got = capture_checks("383", CHECK)[CHECK]
    assert got.status == "ok"
    assert "Out of bounds values : 0 OK" in got.message
    assert got.coverage is not None and got.coverage.text() == "2 of 2 GPUs shown"


def test_samples_summary_failing_simplep2p_after_yes_is_an_issue() -> None:
    """cuda-samples#390: simpleP2P answers 'Yes' both ways, then the samples' summary says it failed."""
    got = capture_checks("390", CHECK)[CHECK]
    assert got.status == "issue"
    assert "simpleP2P : Failed (code 1)" in got.message
    assert got.coverage is not None and got.coverage.shown == ("GPU 0", "GPU 1")


def test_simplep2p_verification_error_is_an_issue(tmp_path: Path) -> None:
    got = paste_checks(tmp_path, SIMPLEP2P_VERIFICATION_ERROR, CHECK)[CHECK]
    assert got.status == "issue"
    assert "Verification error @ element 0" in got.message


# Modelled: two hosts, one rank each, checked at the rate of a 400G network: data crossed between hosts, no GPU pair.
TWO_HOST_RUN = """\
#  Rank  0 Group  0 Pid   4100 on  node-a device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid   4200 on  node-b device  0 [0x18] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
  1073741824     268435456     float     sum      -1    23010   46.66   46.66      0    23001   46.68   46.68      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 46.67
"""


def test_a_run_across_hosts_at_network_rate_says_nothing_of_p2p(tmp_path: Path) -> None:
    """Modelled: a passing run of one rank on each of two hosts is data crossing the network, no GPU pair of a host."""
    got = paste_checks(tmp_path, TWO_HOST_RUN, CHECK)[CHECK]
    assert got.status != "ok"
    assert "Out of bounds" not in got.message


def test_a_rack_run_faster_than_any_pcie_link_is_nvlink_carrying_data(tmp_path: Path) -> None:
    """Corpus 1407's run, cut to its last rank line: 72 ranks checked with 0 wrong at up to 724 GB/s bus bandwidth (847 in the whole table),
    above twice the fastest PCIe link of any GPU (242 GB/s): no host-memory or network path shows that, only NVLink
    between the GPUs, so the peer path carries data intact, over the one rank line of 72 shown."""
    got = paste_checks(tmp_path, NVL72_RACK_RUN, CHECK)[CHECK]
    assert got.status == "ok", got.message
    assert "72 ranks" in got.message and "NVLink" in got.message
    assert got.coverage is not None and got.coverage.text() == "1 of 72 GPUs shown"


def test_a_cut_rank_list_counts_the_highest_rank_named() -> None:
    """`Rank 71` as the only rank line shown: the run had 72 ranks at least (DataTest.run_ranks)."""
    from stackaudit.facts.peer_access import data_tests_in_nccl_tests

    run = next(t for t in data_tests_in_nccl_tests(NVL72_RACK_RUN).tests if t.program == "nccl-tests")
    assert (run.ranks, run.numbers, run.run_ranks) == (1, (71,), 72)
    assert run.busbw == 724.06


def test_a_run_with_p2p_turned_off_says_nothing_of_p2p(tmp_path: Path) -> None:
    """Modelled: NCCL_P2P_DISABLE=1 on the command moves the data through host memory, so its pass is not P2P's."""
    got = paste_checks(tmp_path, P2P_OFF_RUN, CHECK)[CHECK]
    assert got.status == "unknown"


def test_the_nccl_tests_recogniser_keeps_the_table_under_its_out_of_place_line(tmp_path: Path) -> None:
    """The table's 'out-of-place  in-place' title line does not end the run: its verdict stays with its ranks."""
    from stackaudit.facts.peer_access import data_tests_in_nccl_tests

    got = data_tests_in_nccl_tests(P2P_OFF_RUN)
    assert [(t.passed, t.ranks, t.hosts, t.p2p_off) for t in got.tests] == [(True, 2, ("box",), True)]


# Modelled on simpleP2P's source (cuda-samples Samples/0_Introduction/simpleP2P): a run on GPUs 2 and 3 that passed.
SIMPLEP2P_PASSED = """\
Enabling peer access between GPU2 and GPU3...
cudaMemcpyPeer / cudaMemcpy between GPU2 and GPU3: 24.80GB/s
Run kernel on GPU3, taking source data from GPU2 and writing to GPU3...
Run kernel on GPU2, taking source data from GPU3 and writing to GPU2...
Copy data back to host from GPU2 and verify results...
Disabling peer access...
Shutting down...
Test passed
"""
# Modelled: another program's `Test passed`, with no simpleP2P verification above it.
OTHER_TEST_PASSED = """\
[Vector addition of 50000 elements]
Copy output data from the CUDA device to the host memory
Test passed
"""


def test_simplep2p_test_passed_after_its_verification_is_ok(tmp_path: Path) -> None:
    """Corpus 2313 (tinygrad/open-gpu-kernel-modules#30): simpleP2P's run between GPU0 and GPU1 ends `Test passed`."""
    got = capture_checks("2313", CHECK)[CHECK]
    assert got.status == "ok" and "simpleP2P" in got.message and "Test passed" in got.message
    assert "2 GPUs shown" in got.message or got.coverage is not None
    modelled = paste_checks(tmp_path, SIMPLEP2P_PASSED, CHECK)[CHECK]
    assert modelled.status == "ok" and "GPU 2 and GPU 3" in modelled.message
    assert paste_checks(tmp_path, OTHER_TEST_PASSED, CHECK)[CHECK].status == "unknown"
    # A failed run keeps its issue: the verification errors decide, whatever follows.
    failed = SIMPLEP2P_VERIFICATION_ERROR + "Test passed\n"
    assert paste_checks(tmp_path, failed, CHECK)[CHECK].status == "issue"
