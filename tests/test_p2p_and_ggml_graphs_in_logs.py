"""What NCCL and engine logs show about P2P (IC-P2P-FUNCTIONAL) and CUDA graphs (RT-CUDA-GRAPHS), rule helper h54c.

Real pastes are corpus captures (their public threads are in their headers); modelled inputs are marked so.
"""

from __future__ import annotations

from corpus import body, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.peer_access import PeerRefusals, find_already_enabled, find_refusals
from stackaudit.facts.serving_logs import parse_serving_log


def _result(text: str, check: str) -> tuple[str, str]:
    r = run_checks(pasted(text), [check])[check]
    return r.status, r.message


# --- CUDA's 704 (0x2c0): peer access already enabled, not refused ----------------------------------------------

def test_peer_access_already_enabled_is_not_a_refusal() -> None:
    # Corpus 1197 (NVIDIA/nccl#258): cuda-gdb prints CUDA's 704 to cudaDeviceEnablePeerAccess as an API error.
    refusals = fact(pasted(body("1197")), "peer_refusals")
    assert isinstance(refusals, PeerRefusals) and not refusals.refusals
    assert any("cudaDeviceEnablePeerAccess returned (0x2c0)" in line for line in refusals.already_enabled)
    status, message = _result(body("1197"), "IC-P2P-FUNCTIONAL")
    assert status == "not-an-issue" and "704" in message and "already" in message


def test_modelled_already_enabled_words_are_read_and_a_refusal_still_wins() -> None:
    # Modelled: cudaGetErrorString(704) and the driver API's name of the same answer.
    lines = ["RuntimeError: CUDA error: peer access is already enabled",
             "cuCtxEnablePeerAccess failed: CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"]
    assert find_already_enabled(lines) == tuple(lines) and not find_refusals(lines)
    # Modelled: another API error code under cuda-gdb is not this answer.
    assert not find_already_enabled(["warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2d9)"])
    # Modelled: a refusal beside it is judged as a refusal (GeForce: the driver's policy), not as access granted.
    refused = body("15") + "\nault43:1:1 [1] NCCL INFO Could not enable P2P between dev 1(=81000) and dev 0(=41000)\n"
    status, message = _result(refused + "warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned "
                              "(0x2c0)\n", "IC-P2P-FUNCTIONAL")
    assert status == "not-an-issue" and "Could not enable P2P" in message


# --- GeForce cards that NCCL connects over SHM only --------------------------------------------------------------

def test_geforce_over_nccl_shm_only_is_the_drivers_policy() -> None:
    # Corpus 1199 (vllm-project/vllm#6650): four RTX 3090s, every channel via SHM/direct/direct.
    status, message = _result(body("1199"), "IC-P2P-FUNCTIONAL")
    assert status == "not-an-issue" and "GeForce" in message and "SHM/direct/direct" in message


def test_shm_only_on_cards_with_p2p_stays_open() -> None:
    # Corpus 349: two RTX 6000 Ada (workstation cards, P2P by the driver) over SHM: why is not shown.
    assert _result(body("349"), "IC-P2P-FUNCTIONAL")[0] == "unknown"
    # Modelled: corpus 1199's collect_env with a P2P channel added: a patched driver, its own case (corpus 762).
    mixed = body("1199") + "10-1-16-226:1024:1052 [0] NCCL INFO Channel 02 : 0[0] -> 1[1] via P2P/IPC/read\n"
    assert _result(mixed, "IC-P2P-FUNCTIONAL")[0] != "not-an-issue"


# --- ggml's own CUDA graphs: USE_GRAPHS in the build's feature line ----------------------------------------------

def test_ollama_use_graphs_on_every_device_is_ok() -> None:
    # Corpus 1166: ollama's msg=system line, USE_GRAPHS=1 for CUDA.0 to CUDA.4.
    log = parse_serving_log(body("1166"))
    assert log.ggml_use_graphs == tuple((str(d), True) for d in range(5))
    status, message = _result(body("1166"), "RT-CUDA-GRAPHS")
    assert status == "ok" and "USE_GRAPHS=1" in message
    # Corpus 1155: one device, a Windows desktop ollama.
    assert _result(body("1155"), "RT-CUDA-GRAPHS")[0] == "ok"


def test_llama_cpp_system_info_use_graphs_is_read() -> None:
    # Modelled on llama.cpp's system_info line (corpus 1093's form).
    line = ("system_info: n_threads = 8 (n_threads_batch = 8) / 16 | CUDA : ARCHS = 860,890 | USE_GRAPHS = 1 | "
            "PEER_MAX_BATCH_SIZE = 128 | CPU : SSE3 = 1 | AVX = 1 |\n")
    assert parse_serving_log(line).ggml_use_graphs == (("", True),)


def test_modelled_use_graphs_off_or_an_old_gpu_is_not_ok() -> None:
    # Modelled: corpus 1155's system line with the feature off: a build without graphs, its cost not shown.
    off = body("1155").replace("CUDA.0.USE_GRAPHS=1", "CUDA.0.USE_GRAPHS=0")
    assert parse_serving_log(off).ggml_use_graphs == (("0", False),)
    status, message = _result(off, "RT-CUDA-GRAPHS")
    assert status == "unknown" and "USE_GRAPHS=0" in message
    # Modelled: the same line beside a Turing card, where ggml turns its graphs off itself.
    old = body("1155").replace("NVIDIA GeForce RTX 5090, compute capability 12.0",
                               "NVIDIA GeForce RTX 2080 Ti, compute capability 7.5")
    assert "2080 Ti" in old
    status, message = _result(old, "RT-CUDA-GRAPHS")
    assert status == "unknown" and "older than Ampere" in message


def test_ggml_log_without_the_feature_line_stays_not_applicable() -> None:
    # Corpus 883: ollama's load lines without a system line: the majority reading (not applicable) stands.
    assert _result(body("883"), "RT-CUDA-GRAPHS")[0] == "not-applicable"
