"""The driver's refusals of peer access that programs log (facts/peer_access.py) and how IC-P2P-FUNCTIONAL judges them.

Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

import pytest

from corpus import body, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.peer_access import CUDA, NCCL, PeerRefusals


def _status(text: str, check: str = "IC-P2P-FUNCTIONAL") -> tuple[str, str]:
    r = run_checks(pasted(text), [check])[check]
    return r.status, r.message


# --- NCCL: "Could not enable P2P between dev A(=bus) and dev B(=bus)" --------------------------------------------
# NCCL asks cudaDeviceCanAccessPeer only for a pair its topology allows P2P on (src/transport/p2p.cc): the
# driver refused peer access where the PCI path allows it, and NCCL carries the pair through host memory.

NCCL_PASTES = [
    # https://github.com/NVIDIA/nccl/issues/1516
    ("ault43:1696335:1696335 [1] NCCL INFO Could not enable P2P between dev 1(=81000) and dev 0(=41000)\n"
     "ault43:1696335:1696335 [1] NCCL INFO Channel 00 : 1[81000] -> 0[41000] via SHM/direct/direct\n", {(0, 1)}),
    # https://github.com/NVIDIA/nccl/issues/833
    ("lab:14075:14865 [3] NCCL INFO Could not enable P2P between dev 2(=300000) and dev 1(=200000)\n"
     "lab:14075:14865 [3] NCCL INFO Could not enable P2P between dev 3(=400000) and dev 1(=200000)\n"
     "lab:14075:14865 [3] NCCL INFO Could not enable P2P between dev 0(=100000) and dev 2(=300000)\n",
     {(1, 2), (1, 3), (0, 2)}),
    # https://github.com/ultralytics/ultralytics/issues/12905
    ("aetech:1312:1370 [1] NCCL INFO misc/utils.cc:30 Mem Alloc Size 12 pointer 0x7f47e80ed4f0\n"
     "aetech:1312:1370 [1] NCCL INFO Could not enable P2P between dev 1(=1a000) and dev 0(=19000)\n"
     "aetech:1312:1370 [1] NCCL INFO transport/shm.cc:85 Mem Alloc Size 48 pointer 0x7f47e80ed510\n", {(0, 1)}),
    # https://github.com/deepspeedai/DeepSpeed/issues/1283 (corpus 283)
    (body("283"), {(2, 3)}),
]


@pytest.mark.parametrize(("text", "pairs"), NCCL_PASTES)
def test_nccl_refusal_is_p2p_lost_where_the_path_allows_it(text: str, pairs: set[tuple[int, int]]) -> None:
    refusals = fact(pasted(text), "peer_refusals")
    assert isinstance(refusals, PeerRefusals) and refusals.said_by == {NCCL}
    assert {tuple(sorted(p)) for p in refusals.pairs} == pairs
    status, message = _status(text)
    assert status == "issue" and "Could not enable P2P between dev" in message
    # The model is not shown: GeForce is named as a possible cause, not assumed away.
    assert "GeForce" in message


def test_nccl_refusal_on_geforce_is_the_drivers_policy() -> None:
    # Modelled: the NCCL lines beside corpus 15's nvidia-smi of two RTX 3090s: NVIDIA's policy, not a fault.
    status, message = _status(body("15") + "\n" + NCCL_PASTES[0][0])
    assert status == "not-an-issue" and "GeForce" in message


# --- Other programs' words for the same answer --------------------------------------------------------------------

CUDA_PASTES = [
    # https://github.com/tensorflow/tensorflow/issues/2145 (CUDA's simpleP2P)
    ("> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU1) : Yes\n"
     "> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU2) : No\n", {(0, 2)}),
    # https://github.com/shaohua0116/Multiview2Novelview/issues/5 (TensorFlow's device setup)
    ("2019-03-12 21:25:07.499532: I tensorflow/core/common_runtime/gpu/gpu_device.cc:847] Peer access not supported "
     "between device ordinals 0 and 4\n", {(0, 4)}),
    # https://github.com/aikitoria/open-gpu-kernel-modules/pull/29 (CUDA's p2pBandwidthLatencyTest)
    ("Device=0 CAN Access Peer Device=4\nDevice=0 CANNOT Access Peer Device=5\n", {(0, 5)}),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1670
    ("[TensorRT-LLM][WARNING] Device 4 peer access Device 1 is not available.\n"
     "[TensorRT-LLM][INFO] Loaded engine size: 16321 MiB\n", {(1, 4)}),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/2225
    ("[TensorRT-LLM][WARNING] Device 1 peer access Device 3 is not available.\n"
     "[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 256\n", {(1, 3)}),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/1374 (corpus 278: a Python session, the answer two lines on)
    (body("278"), {(0, 1)}),
]


@pytest.mark.parametrize(("text", "pairs"), CUDA_PASTES)
def test_a_programs_record_of_the_drivers_no_is_a_refusal(text: str, pairs: set[tuple[int, int]]) -> None:
    refusals = fact(pasted(text), "peer_refusals")
    assert isinstance(refusals, PeerRefusals) and refusals.said_by == {CUDA}
    assert {tuple(sorted(p)) for p in refusals.pairs} == pairs


def test_the_drivers_no_without_the_path_is_not_judged() -> None:
    # simpleP2P's "No" with no topology: a host bridge between the GPUs or a switch are both possible.
    r = run_checks(pasted(CUDA_PASTES[0][0]), ["IC-P2P-FUNCTIONAL"])["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and "topo -m" in r.hint


def test_the_drivers_no_through_the_host_bridge_is_said_and_true() -> None:
    # Corpus 278: two A10s under PHB, cudaDeviceCanAccessPeer(0, 1) answering 0.
    status, message = _status(body("278"))
    assert status == "not-an-issue" and "PHB" in message and "cudaDeviceCanAccessPeer(0, 1) -> 0" in message


# Modelled: the same answer for two GPUs behind one PCIe switch (PIX): P2P lost where the path allows it.
PIX_TOPO = ("$ nvidia-smi topo -m\n\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tPIX\t0-31\t0\nGPU1\tPIX\t X \t0-31\t0\n")


def test_the_drivers_no_behind_one_switch_is_an_issue() -> None:
    session = ">>> torch.cuda.can_device_access_peer(0, 1)\nFalse\n"
    refusals = fact(pasted(PIX_TOPO + "\n" + session), "peer_refusals")
    assert isinstance(refusals, PeerRefusals) and refusals.pairs == (frozenset((0, 1)),)
    status, message = _status(PIX_TOPO + "\n" + session)
    assert status == "issue" and "PIX" in message


def test_a_session_that_answers_yes_refuses_nothing() -> None:
    # Modelled: the counter-example of corpus 278's session, answering 1.
    text = body("278").replace("print(result)\n0\n", "print(result)\n1\n")
    assert "print(result)\n1\n" in text
    refusals = fact(pasted(text), "peer_refusals")
    assert not isinstance(refusals, PeerRefusals) or not refusals.refusals
    assert _status(text)[0] != "not-an-issue"
