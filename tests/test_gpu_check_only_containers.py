"""Containers that only run a GPU check are not judged for /dev/shm (facts/docker.DockerContainer.diagnostic_only):
a check piped through a text filter (`nvidia-smi ... | tail -n 1`), a bare OS image started with no command (its
shell, no engine: BASE_OS_IMAGES), and a `docker run` whose flag the user made bold in Markdown (`**--runtime=nvidia**`).

Real pastes: corpus 329 (pytorch#184277: `docker run -it --gpus=all ubuntu:22.04`, then the same with
`**--runtime=nvidia**` and `bash -c "nvidia-smi --query-gpu=compute_cap --format=csv |tail -n 1"`), corpus 264
(NVIDIA/nvidia-container-toolkit: `docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi`), corpus 52
(`docker run --rm -it ubuntu` whose df inside shows 64 MiB: what the container shows of itself still decides).
The counter-example is modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted


def test_329_both_containers_only_check_the_gpu() -> None:
    shells = fact(pasted(body("329")), "docker_containers").containers
    assert [c.image for c in shells] == ["ubuntu:22.04", "ubuntu:22.04"]  # the bold flag is a flag, not the image
    assert shells[1].runtime == "nvidia"
    assert all(c.diagnostic_only for c in shells)
    assert capture_checks("329", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-applicable"


def test_264_nvidia_smi_in_ubuntu_is_not_judged() -> None:
    assert capture_checks("264", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "not-applicable"


def test_52_a_bare_shell_whose_own_df_shows_64m_is_still_an_issue() -> None:
    # The size the container shows from inside decides, whatever its spec runs.
    assert capture_checks("52", "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "issue"


def test_modelled_engine_image_without_command_is_judged(tmp_path: Path) -> None:
    # Modelled: a CUDA runtime image (not a bare OS one) or an engine's image run with no command is judged.
    text = ("$ docker run -d --gpus all nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
            "$ docker run -d --gpus all vllm/vllm-openai:v0.10.0 --model m --tensor-parallel-size 2\n")
    containers = fact(pasted(text), "docker_containers").containers
    assert [c.diagnostic_only for c in containers] == [False, False]
    assert paste_checks(tmp_path, text, "CTR-SHM-SIZE")["CTR-SHM-SIZE"].status == "issue"


def test_a_gpu_check_container_does_not_stand_for_the_engines_nccl_environment() -> None:
    # Corpus 1460 (`docker run --gpus 0 nvidia/cuda:11.0-base nvidia-smi`) and 1461 (`docker run --gpus all
    # hello-world`): a test that exits runs no engine, so its environment says nothing of the engine's NCCL_*.
    for number in ("1460", "1461"):
        assert all(c.diagnostic_only for c in fact(pasted(body(number)), "docker_containers").containers)
        r = capture_checks(number, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "unknown" and "not in this source" in r.message, r.message


def test_modelled_serving_container_environment_still_settles_nccl_env(tmp_path: Path) -> None:
    # Modelled: the same `docker run` form running an engine: its whole command line's environment is read.
    text = "$ docker run -d --gpus all -e NCCL_P2P_DISABLE=1 vllm/vllm-openai:v0.10.0 --model m --tensor-parallel-size 2\n"
    r = paste_checks(tmp_path, text, "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_P2P_DISABLE" in r.message, r.message
