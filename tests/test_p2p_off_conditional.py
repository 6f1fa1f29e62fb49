"""NCCL_P2P_DISABLE=1 costs something only on GPUs that have P2P to lose (NVLink, or PCIe where the driver allows
P2P). Where neither the GPUs nor their links are shown, the hand-set override that turns NCCL's default fast path off
is a medium issue that names its one exception (GeForce on the stock driver), as the majority of blind expectations
read it (corpus 350, 830, 1022, 1135; 91 contested); where the paste shows NVLink it is a high issue. A test run's own
setting with no engine shown stays conditional (tests/test_nccl_test_command_env.py).

Real pastes are quoted from the thread named beside each (trimmed to the lines the check reads); the
counter-example is modelled and says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/vllm-project/vllm/issues/14517 (ubergarm's comment, 2025-03-12): the variable on its own line
# above `vllm serve`, continued with a backslash (the line joins the command it is set for).
VLLM_14517 = """\
NCCL_P2P_DISABLE=1 \\
vllm serve \\
    OPEA/QwQ-32B-int4-AutoRound-gptq-sym \\
    --download-dir /mnt/raid/models/ \\
    --dtype half \\
    --served-model-name "QwQ-32B-GPTQ-INT4" \\
    --tensor-parallel-size 2 \\
    --enforce-eager \\
    --disable-custom-all-reduce \\
    --host 127.0.0.1 \\
    --port 8080
"""
# https://github.com/kyuz0/amd-r9700-vllm-toolboxes/issues/19 (apohllo, the compose service's environment): P2P off
# beside NCCL_PROTO forced, which is a finding of its own (low) whatever the GPUs are.
COMPOSE_19 = """\
services:
   vllm-r9700:
     image: vllm/vllm-openai-rocm:v0.28.0
     ipc: host
     environment:
       - HIP_VISIBLE_DEVICES=0,1
       - NCCL_PROTO=Simple
       - NCCL_P2P_DISABLE=1
       - NCCL_DEBUG=INFO
     command:
       - --tensor-parallel-size
       - "2"
"""
# Modelled: the same docker run as corpus 91 with a two-GPU `nvidia-smi topo -m` that shows NVLink (NV4).
NVLINK_TOPO = """\
\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV4\t0-31\t0
GPU1\tNV4\t X \t0-31\t0
"""


def test_p2p_off_in_a_docker_run_without_the_gpus_is_an_issue_naming_the_exception() -> None:
    # Corpus 1135 (sgl-project/sglang#3358): two L20s in the user's words, only the docker run in the paste.
    r = capture_checks("1135", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and r.severity == "medium"
    assert "NCCL_P2P_DISABLE=1" in r.message and "GeForce cards on the stock driver" in r.message


def test_p2p_off_set_above_the_engine_command_is_read(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, VLLM_14517, "IC-NCCL-ENV", "RT-CUDA-GRAPHS")
    assert r["IC-NCCL-ENV"].status == "issue"
    assert "NCCL_P2P_DISABLE=1 (the pasted `vllm` command line)" in r["IC-NCCL-ENV"].message
    assert r["RT-CUDA-GRAPHS"].status == "issue"  # the same joined command: --enforce-eager


def test_a_definite_finding_beside_it_keeps_the_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, COMPOSE_19, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue"
    assert "NCCL_PROTO=Simple" in r.message


def test_modelled_nvlink_shown_makes_it_a_high_issue(tmp_path: Path) -> None:
    run = "docker run --runtime nvidia --gpus all -e NCCL_P2P_DISABLE=1 vllm/vllm-openai:latest --tensor-parallel-size 2\n"
    r = paste_checks(tmp_path, run + "\n" + NVLINK_TOPO, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and r.severity == "high"
    assert "on NVLink" in r.message
