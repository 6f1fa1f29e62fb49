"""NCCL's P2P transport failing to open the peer's CUDA IPC handle proves IC-P2P-FUNCTIONAL on its own, quoted.

NCCL chose P2P/IPC for the pair, then `cudaIpcOpenMemHandle` failed (transport/p2p.cc|cu, `failed to open CUDA IPC
handle : %d %s`): the peer path it chose does not work, whatever the CUDA error (facts/symptoms.py nccl-p2p-ipc-open).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks, symptom_names

# Real: horovod/horovod#610 (darchonyzx), NCCL 2.2's line, no `NCCL` before WARN.
HOROVOD_610 = ("localhost:95772:95782 [0] transport/p2p.cu:526 WARN failed to open CUDA IPC handle : 11 invalid "
               "argument\n")
# Real: horovod/horovod#148 (Sampson1107), in its title.
HOROVOD_148 = "node1:22671:22795 [1] transport/p2p.cu:431 WARN failed to open CUDA IPC handle : 30 unknown error\n"
# Real: horovod/horovod#785 (vangogh0318), the second rank's line (corpus 1250 holds the thread).
HOROVOD_785 = ("HOSTNAME:4974:4981 [0] NCCL INFO Ring 00 : 0[0] -> 1[0] via P2P/IPC\n\n"
               "HOSTNAME:4974:4981 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle : 11 invalid "
               "argument\n")
# Real: ray-project/ray#17909 (corpus 2173), the line cut inside its words as the issue stores it.
RAY_17909_CUT = "(pid=2918546) molgpu01:2918546:2958981 [0] transport/p2p.cc:238 NCCL WARN failed to ope\n"


def test_each_error_of_the_open_is_the_symptom() -> None:
    for text in (HOROVOD_610, HOROVOD_148, HOROVOD_785, RAY_17909_CUT):
        assert symptom_names(text) == ["nccl-p2p-ipc-open"], text


def test_error_217_stays_the_peer_access_symptom() -> None:
    # Real: corpus 916 (Ray Lightning): CUDA's own words of 217 are p2p-unsupported's line, not counted twice.
    line = ("(pid=909608) z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 "
            "peer access is not supported between these two devices\n")
    assert symptom_names(line) == ["p2p-unsupported"]


def test_modelled_other_open_failures_are_not_it() -> None:
    # Modelled: other `failed to open` warnings of NCCL name no peer path (its verbs library, a cut line elsewhere).
    for text in ("x:1:2 [1] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]\n",
                 "x:1:2 [0] misc/ibvwrap.cc:72 NCCL WARN failed to open libibverbs.so\n",
                 "x:1:2 [0] transport/net.cc:291 NCCL WARN failed to ope\n"):
        assert symptom_names(text) == [], text


def test_corpus_2173_cut_warning_after_a_p2p_channel_is_an_issue() -> None:
    result = capture_checks("2173", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "issue", result.message
    assert any("failed to ope" in e for e in result.evidence), result.evidence


def test_horovod_785_second_rank_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, HOROVOD_785, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "issue", result.message


def test_corpus_2618_cuda_failure_in_the_p2p_transport_is_an_issue() -> None:
    # Real: corpus 2618 (verifiers#181): CUDACHECK's warning at transport/p2p.cc, a vf-vllm server on one GPU whose
    # weight-sync communicator connects to the trainer's GPU.
    result = capture_checks("2618", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert result.status == "issue", result.message
    assert any("p2p.cc:298" in e for e in result.evidence), result.evidence
    assert symptom_names("x:1:1 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'\n") \
        == ["nccl-p2p-ipc-open"]


def test_modelled_other_cuda_failures_are_not_it() -> None:
    # Modelled: a lack of memory in the P2P transport, 217's words (p2p-unsupported's), and a CUDA failure elsewhere.
    assert symptom_names("x:1:1 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'out of memory'\n") == []
    assert symptom_names("x:1:1 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'peer access is not supported "
                         "between these two devices'\n") == ["p2p-unsupported"]
    assert symptom_names("x:1:1 [0] enqueue.cc:1400 NCCL WARN Cuda failure 'invalid argument'\n") == []
