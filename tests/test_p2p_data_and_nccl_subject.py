"""IC-P2P-FUNCTIONAL from what a user's own copy test shows, and IC-NCCL-ENV's subject and unread P2P levels.

- A tensor moved straight from one GPU to another (a CUDA peer copy) whose shown result is zeros is a failed data
  test (facts/peer_access.peer_copy_zeros): corpus 912, 1043, 1078.
- vLLM's "lacks GPU P2P capability" after it trusted the driver's report is the driver's refusal: not applicable
  (corpus 1032).
- IC-NCCL-ENV is not applicable on Ascend NPUs (HCCL, corpus 1079) and unknown for an NCCL_P2P_LEVEL value NCCL's
  reader does not know (corpus 1136).

Real pastes are the corpus files named; modelled counter-examples say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.peer_access import peer_copy_zeros


def test_a_peer_copy_shown_as_zeros_proves_p2p_broken() -> None:
    # pytorch/pytorch#157398: `print(torch.min(b))  ### 0` for b copied cuda:0 -> cuda:1.
    r = capture_checks("1043", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue"
    assert "b=a.to('cuda:0').to('cuda:1') -> print(torch.min(b))  ### 0" in r.message


def test_the_comment_above_the_copy_and_the_printed_tensor_are_results_too() -> None:
    # pytorch/pytorch#132397: the result is the comment right above `new_tensor = test_tensor.to(1)`.
    r = capture_checks("1078", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue" and "becomes [0, 0, 0] instead of [1, 2, 3]" in r.message
    # Corpus 912: the program's output `tensor([0., 0.], device='cuda:1')` after `print(b.to("cuda:1"))`.
    r = capture_checks("912", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "issue" and "tensor([0., 0.], device='cuda:1')" in r.message


def test_modelled_copies_that_prove_nothing() -> None:
    # Modelled: a source of zeros, a copy through the host, a copy onto the same GPU, a result that is not zeros.
    assert peer_copy_zeros(["a = torch.zeros(3, device=0)", "print(a.to(1))", "tensor([0., 0., 0.], device='cuda:1')"]) == ()
    assert peer_copy_zeros(["a = torch.ones(3, device=0)", "b = a.cpu().to(1)", "print(b)  # 0"]) == ()
    assert peer_copy_zeros(["a = torch.ones(3, device=0)", "b = a.to('cuda:0')", "print(b)  # 0"]) == ()
    assert peer_copy_zeros(["a = torch.ones(3, device=0)", "b = a.to(1)", "print(b)  # [1, 1, 1]"]) == ()
    found = peer_copy_zeros(["a = torch.ones(3, device=0)", "b = a.to(1)", "print(b)  # [0, 0, 0]"])
    assert [(f[0], f[1]) for f in found] == [(0, 1)]


def test_modelled_a_snippet_without_zeros_leaves_p2p_unknown(tmp_path: Path) -> None:
    # Modelled: the same snippet as corpus 1043 with the copies agreeing.
    text = ("```\nb=a.to('cuda:0').to('cuda:1')\nprint(torch.min(b))  ### 1\n```\n"
            "GPU 0: NVIDIA RTX A6000 (UUID: GPU-1)\nGPU 1: NVIDIA RTX A6000 (UUID: GPU-2)\n")
    r = paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status != "issue"


def test_vllm_trusting_the_drivers_refusal_is_not_applicable() -> None:
    r = capture_checks("1032", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "not-applicable"
    assert "Skipping P2P check and trusting the driver's P2P report" in r.message


def test_nccl_env_is_not_applicable_on_ascend_npus() -> None:
    r = capture_checks("1079", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-applicable" and "HCCL" in r.message


def test_an_unknown_p2p_level_is_unknown() -> None:
    r = capture_checks("1136", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "unknown" and "NCCL_P2P_LEVEL=PCI" in r.message and "not a level NCCL's reader knows" in r.message


def test_modelled_a_known_level_is_not_read_as_unknown(tmp_path: Path) -> None:
    # Modelled: the same compose lines as corpus 1136 with a level NCCL knows (SYS allows P2P everywhere).
    text = ("services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    environment:\n      - NCCL_P2P_LEVEL=SYS\n"
            "    command: --tensor-parallel-size 2\n")
    r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert "not a level NCCL's reader knows" not in r.message


def test_the_legacy_level_1_is_pix_not_nvlink_only() -> None:
    # NCCL's ncclGetLevel maps the legacy numbers 0-5 to LOC, PIX, PXB, PHB, SYS, SYS (src/graph/paths.cc).
    from stackaudit.facts.serving_logs import NcclSetting

    assert NcclSetting("NCCL_P2P_LEVEL", "NVL", "NCCL log").p2p_nvlink_only
    assert not NcclSetting("NCCL_P2P_LEVEL", "1", "NCCL log").p2p_nvlink_only
    assert NcclSetting("NCCL_P2P_LEVEL", "0", "NCCL log").p2p_off
