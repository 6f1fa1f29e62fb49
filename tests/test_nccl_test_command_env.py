"""IC-NCCL-ENV reads the NCCL_* variables set on a pasted nccl-tests command line: they are the run's settings,
judged by the same rules as the engine's (P2P off costs nothing on GeForce cards, much on NVLink)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "IC-NCCL-ENV"

# https://github.com/tinygrad/open-gpu-kernel-modules/issues/45 (issue body by cunfate): the command line sits
# above the fence that opens the output, the variable in Markdown bold.
TINYGRAD_45 = """If p2p disabled, things all going well.
**NCCL_P2P_DISABLE=1** NCCL_DEBUG=TRACE  ./all_reduce_perf -b 8 -e 2G -w 2 -n 10 -f 2 -g 2
```
# nThread 1 nGpus 2 minBytes 8 maxBytes 2147483648 step: 2(factor) warmup iters: 2 iters: 10 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   9822 on i-56butc28zq2jtjaluzq7va7p6 device  0 [0000:2c:00] NVIDIA GeForce RTX 4090
#  Rank  1 Group  0 Pid   9822 on i-56butc28zq2jtjaluzq7va7p6 device  1 [0000:2d:00] NVIDIA GeForce RTX 4090
```
"""

# https://github.com/tinygrad/open-gpu-kernel-modules/pull/22 (comment by mylesgoose, 2024-11-15), cut after the
# rank lines: a P2P level that disables nothing.
TINYGRAD_PR_22 = """```shell
NCCL_P2P_LEVEL=SYS NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4
# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   6742 on myles-MC62-G40-00 device  0 [0x02] NVIDIA GeForce RTX 4090
#  Rank  1 Group  0 Pid   6742 on myles-MC62-G40-00 device  1 [0x41] NVIDIA GeForce RTX 4090
#  Rank  2 Group  0 Pid   6742 on myles-MC62-G40-00 device  2 [0x42] NVIDIA GeForce RTX 4090
#  Rank  3 Group  0 Pid   6742 on myles-MC62-G40-00 device  3 [0x61] NVIDIA GeForce RTX 4090
```
"""

# https://github.com/NVIDIA/nccl/issues/428 (comment by woodlgz), cut after the rank lines: a root prompt (`# `)
# before the variables, two Tesla T4 (PCIe, P2P-capable) and no topology.
NCCL_428 = """```
# NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO LD_LIBRARY_PATH=/usr/local/lib:/usr/local/cuda/lib64 CUDA_VISIBLE_DEVICES=1,2  ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2
# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n#
# Using devices
#   Rank  0 Pid  96540 on ai-vtraining-prd-10-193-84-3 device  0 [0x86] Tesla T4
#   Rank  1 Pid  96540 on ai-vtraining-prd-10-193-84-3 device  1 [0xaf] Tesla T4
```
"""


def test_two_runs_of_one_paste_both_read() -> None:
    # NVIDIA/nccl-tests#117 (corpus 351): the first run stops at `# Using devices` (it hung), the second lists four
    # RTX 4090s; both set NCCL_P2P_DISABLE=1, which costs nothing on GeForce cards.
    r = capture_checks("351", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "`all_reduce_perf` command line (a test run)" in r.message
    assert "no loss" in r.message


def test_command_above_the_fence_in_markdown_bold(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TINYGRAD_45, CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "NCCL_P2P_DISABLE=1" in r.message


def test_a_level_that_disables_nothing(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, TINYGRAD_PR_22, CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "NCCL_P2P_LEVEL=SYS" in r.message


def test_p2p_off_on_datacenter_pcie_gpus_is_conditional(tmp_path: Path) -> None:
    # Two T4s with no topology shown: a loss only if they have P2P to lose, a note that names that condition.
    r = paste_checks(tmp_path, NCCL_428, CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "matters only if these GPUs have NVLink or working P2P" in r.message


def test_modelled_p2p_off_on_nvswitch_h100s_is_an_issue(tmp_path: Path) -> None:
    # Modelled: the same variable on eight H100 SXM GPUs, whose NVLink it takes out of the test.
    ranks = "".join(f"#  Rank  {i} Group  0 Pid   4242 on node01 device  {i} [0x{0x18 + i * 16:02x}] "
                    "NVIDIA H100 80GB HBM3\n" for i in range(8))
    text = ("$ NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8\n"
            "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
            "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n" + ranks)
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "NVLink" in r.message


# NVIDIA/nccl#1530 (issue body by guyan364), cut after the column header: NCCL_ALGO=TREE forced on eight RTX 4090
# of one host, an algorithm NCCL does not pick for large all-reduces there.
NCCL_1530_TREE = """```bash
NCCL_ALGO=TREE ./all_reduce_perf -g 8 -b 8 -e 128M -f 2
# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  28307 on      gpu59 device  0 [0x16] NVIDIA GeForce RTX 4090
#  Rank  1 Group  0 Pid  28307 on      gpu59 device  1 [0x27] NVIDIA GeForce RTX 4090
#  Rank  2 Group  0 Pid  28307 on      gpu59 device  2 [0x38] NVIDIA GeForce RTX 4090
#  Rank  3 Group  0 Pid  28307 on      gpu59 device  3 [0x5a] NVIDIA GeForce RTX 4090
```
"""


def test_ring_forced_by_a_one_host_pcie_benchmark_is_its_own_choice(tmp_path: Path) -> None:
    # nccl-tests#269 (corpus 758): NCCL_ALGO=RING on all_reduce_perf over eight RTX 4090 of one host.
    r = capture_checks("758", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "the benchmark's own choice on one host without NVLink" in r.message
    # Modelled: tinygrad PR 22's real header (four RTX 4090 of one host) with NCCL_ALGO=Ring in place of its
    # NCCL_P2P_LEVEL=SYS.
    paste = TINYGRAD_PR_22.replace("NCCL_P2P_LEVEL=SYS", "NCCL_ALGO=Ring")
    r = paste_checks(tmp_path, paste, CHECK)[CHECK]
    assert r.status == "not-an-issue" and "the benchmark's own choice" in r.message, r.message


def test_forced_algorithms_that_nccl_would_not_pick_stay_issues(tmp_path: Path) -> None:
    # nccl-tests on 8 NVSwitch H100 (corpus 478): Ring rules out NVLS and Tree there.
    r = capture_checks("478", CHECK)[CHECK]
    assert r.status == "issue" and "forces NCCL's choice" in r.message
    # Two nodes (corpus 587): Tree pays off across nodes, so Ring forced there is not NCCL's own pick.
    r = capture_checks("587", CHECK)[CHECK]
    assert r.status == "issue" and "NCCL_ALGO=Ring" in r.message and "own choice" not in r.message
    # Tree forced on one PCIe host (NVIDIA/nccl#1530): not what NCCL picks for large all-reduces there.
    r = paste_checks(tmp_path, NCCL_1530_TREE, CHECK)[CHECK]
    assert r.status == "issue" and "NCCL_ALGO=TREE" in r.message and "own choice" not in r.message
