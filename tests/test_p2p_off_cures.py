"""IC-P2P-FUNCTIONAL from the user's own A/B: the workload fails with GPU P2P on and runs with it off.

The sentence is read once (importers/prose_ab_p2p.py -> the `p2p_off_cures` fact, facts/peer_access.says_p2p_off_cures)
and judged by the check where nothing the programs printed settles it. Sentences that deny or only weigh turning P2P
off, or that report a P2P-off run working with no failure to cure, are no A/B.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.peer_access import says_p2p_off_cures

CHECK = "IC-P2P-FUNCTIONAL"


@pytest.mark.parametrize("line", [
    # corpus 266 (NVIDIA/nccl#667), after `The rest will result in hanging.`
    "Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.",
    # corpus 974 (ROCm/vllm#390, a comment)
    "@schung-amd I am experiencing exactly the same issue. It works with disabled P2P, but crashes when enabled. "
    "IOMMU is disabled, ReBAR is enabled, ROCm 6.4 with dual gfx1100 with EPYC Siena.",
    # corpus 2316 (NVIDIA/nccl#203): the failure undone after P2P is turned off, a backtick for the apostrophe
    "and then hang all the time. But when I disable P2P via `export NCCL_P2P_DISABLE=1`, train doesn`t hang any more, "
    "but lead loss to Nan, see below:",
    # modelled: the same in other words
    "With NCCL_P2P_DISABLE=1 the job no longer hangs at the first all-reduce.",
])
def test_the_users_a_b_is_read(line: str) -> None:
    assert says_p2p_off_cures(line)


@pytest.mark.parametrize("line", [
    # corpus 905: the cure is another setting, P2P stays on
    "Just to add a little bit more information, setting `iommu=soft` in the kernel parameter resolves the issue without "
    "disabling P2P, though it doesn't lead to any speedup; so I'm not sure if it actually uses the NVLink efficiently.",
    # corpus 420: P2P back on after the IOMMU was turned off
    "@sjeaugey @cliffwoolley Booting the kernel with `intel_iommu=off` resolved all our problems. No need for "
    "`NCCL_P2P_DISABLE` now. Worked like a charm! This is the new output from `p2pBandwidthLatencyTest`:",
    # corpus 56: weighed, and it fails anyway
    "Hello @kiskra-nvidia, thank you for the information. I was just thinking if disabling P2P with the environment "
    "variable `NCCL_P2P_DISABLE=1 `would allow communication to occur via shared memory. But it fails.",
    # modelled: the failure undone is P2P on, before it is turned off
    "It doesn't hang with P2P on, but when I disable P2P it crashes at start.",
    # corpus 351: a P2P-off run working after a reboot, no failure with P2P on said
    "But after restarting my machine,  `NCCL_P2P_DISABLE=1 ./build/all_reduce_perf `  seems to be working properly.",
    # modelled: the remedy denied, and a question
    "Setting NCCL_P2P_DISABLE=1 did not fix the hang.",
    "Does NCCL_P2P_DISABLE=1 work around the hang?",
])
def test_no_a_b_is_read_where_the_words_deny_or_weigh_it(line: str) -> None:
    assert not says_p2p_off_cures(line)


def test_the_topology_and_the_users_workaround_are_an_issue() -> None:
    """Corpus 266: a PXB/PIX topology matrix and the body's `The rest will result in hanging. Setting
    NCCL_P2P_DISABLE=1 did workaround but got really low speed.`: the peer path hangs, P2P off cures it."""
    got = capture_checks("266", CHECK)[CHECK]
    assert got.status == "issue", got.message
    assert "did workaround" in got.message


def test_the_a_b_and_the_machine_are_both_read_from_one_sentence() -> None:
    """Corpus 974: one sentence holds the A/B and the machine (`IOMMU is disabled`): the check reads the A/B and
    FW-IOMMU-MODE still reads the IOMMU off (importers/prose_ab_p2p.py records prose_machine's words of the line)."""
    got = capture_checks("974", CHECK, "FW-IOMMU-MODE")
    assert got[CHECK].status == "issue", got[CHECK].message
    assert got["FW-IOMMU-MODE"].status == "not-an-issue", got["FW-IOMMU-MODE"].message


def test_a_data_test_outranks_the_users_words(tmp_path: Path) -> None:
    """Modelled: a passing nccl-tests run over two local GPUs settles it; the sentence beside it is not read over it."""
    text = """\
Setting NCCL_P2P_DISABLE=1 did workaround for the hang we saw last week.
#  Rank  0 Group  0 Pid   4100 on     box device  0 [0x01] NVIDIA RTX A6000
#  Rank  1 Group  0 Pid   4100 on     box device  1 [0x02] NVIDIA RTX A6000
#
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
   134217728      33554432     float     sum      -1     6001   22.37   22.37      0     5990   22.41   22.41      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 22.39
"""
    got = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert got.status == "ok", got.message


def test_a_hang_gone_with_p2p_off_is_an_issue_2316() -> None:
    # Corpus 2316 (NVIDIA/nccl#203): two GPUs in one TensorFlow process hang with P2P on and stop hanging with
    # NCCL_P2P_DISABLE=1 (the NCCL log shows it set): the peer path does not deliver.
    got = capture_checks("2316", CHECK)[CHECK]
    assert got.status == "issue" and "doesn`t hang any more" in got.message
