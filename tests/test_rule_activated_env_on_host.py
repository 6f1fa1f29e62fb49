"""Where the program ran: a Python environment activated at the machine's own shell prompt (issue 28, h81a).

`conda activate ENV` (`mamba activate`, `source ENV/bin/activate`) typed at a prompt whose host is not a container's,
where no command typed at the paste's prompts names a container, shows the user's own environment on the machine whose
shell it is (facts/container._activated_env), as a Python environment under their home directory does: the container
checks do not apply (corpus 1803: collect_env on a Leonardo node after `conda activate conda_venv/`).
Real pastes are cited by their public threads; counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

ACCESS = "CTR-GPU-ACCESS"
REPORT = ("Collecting environment information...\nPyTorch version: 2.4.0+cu121\nIs debug build: False\n"
          "CUDA used to build PyTorch: 12.1\nROCM used to build PyTorch: N/A\n\n"
          "OS: Ubuntu 22.04.4 LTS (x86_64)\nIs CUDA available: True\nGPU models and configuration: \n"
          "GPU 0: NVIDIA A100-SXM4-80GB\nNvidia driver version: 550.54.15\n")


def test_conda_env_at_the_nodes_prompt_is_the_host() -> None:
    # Corpus 1803 (vllm-project/vllm#8908): `conda activate conda_venv/` at the node's login prompt, then collect_env.
    result = capture_checks("1803", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message


def test_conda_env_at_a_root_prompt_of_a_node_is_the_host() -> None:
    # Corpus 641 (sgl-project/sglang#3765): `conda activate sglang` at `root@node1`, then SGLang's check_env.
    result = capture_checks("641", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message


def test_venv_at_a_named_prompt_is_the_host(tmp_path: Path) -> None:
    # Modelled: a venv activated at a user's prompt, then collect_env.
    text = ("[alice@gpu-node01 ~]$ source ~/envs/vllm/bin/activate\n"
            "(vllm) [alice@gpu-node01 ~]$ python collect_env.py\n" + REPORT)
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "not-applicable"


def test_activation_in_a_container_is_not_the_host(tmp_path: Path) -> None:
    # Modelled: the same activation at a container's prompt (its id as the host), or after a `docker exec`.
    inside = "root@3f2a1b4c5d6e:/workspace# conda activate vllm\n(vllm) root@3f2a1b4c5d6e:/workspace# python collect_env.py\n"
    assert paste_checks(tmp_path, inside + REPORT, ACCESS)[ACCESS].status != "not-applicable"
    execed = ("alice@gpu-node01:~$ docker exec -it vllm bash\nalice@gpu-node01:~$ conda activate vllm\n"
              "alice@gpu-node01:~$ python collect_env.py\n")
    assert paste_checks(tmp_path, execed + REPORT, ACCESS)[ACCESS].status != "not-applicable"


# A launch script that activates a venv before its engine command (h108b): the script's line is recorded before the
# command (importers/engine_command._activated_above) and read as the same activation typed at the machine's prompt.
SCRIPT = ("```bash\n#!/bin/bash\nGPU_NUM=4\n\n# Active Python virtual environment\nsource /srv/lab/vllm_env/bin/activate\n\n"
          "vllm serve /models/Qwen3-4B --tensor-parallel-size $GPU_NUM --port 30000\n```\n")


def test_venv_activated_in_a_launch_script_is_the_host() -> None:
    # Corpus 2455 (LMCache/LMCache#1889): `source .../vllm_env/bin/activate` in the script above `vllm serve`; both
    # readers: not-applicable for CTR-GPU-ACCESS and CTR-SHM-SIZE.
    results = capture_checks("2455", ACCESS, "CTR-SHM-SIZE")
    assert results[ACCESS].status == "not-applicable", results[ACCESS].message
    assert results["CTR-SHM-SIZE"].status == "not-applicable", results["CTR-SHM-SIZE"].message
    assert "vllm_env/bin/activate" in results["CTR-SHM-SIZE"].message


def test_venv_activated_in_another_threads_script_is_the_host() -> None:
    # Corpus 680 (another thread's SGLang launch script): `source sglang_env/bin/activate` above its launch_server.
    result = capture_checks("680", "CTR-SHM-SIZE")["CTR-SHM-SIZE"]
    assert result.status == "not-applicable", result.message


def test_modelled_launch_script_with_a_venv_is_the_host(tmp_path: Path) -> None:
    # Modelled: the same script shape, and a script that also runs docker: the latter names a container.
    assert paste_checks(tmp_path, SCRIPT, ACCESS)[ACCESS].status == "not-applicable"
    docker = SCRIPT.replace("vllm serve", "docker exec vllm true\nvllm serve")
    assert paste_checks(tmp_path, docker, ACCESS)[ACCESS].status != "not-applicable"


def test_activation_in_another_block_is_not_the_scripts() -> None:
    # Modelled: an activation in a block above the command's own fence is not recorded with the command.
    from stackaudit.importers.engine_command import _activated_above

    lines = ["```", "source venv/bin/activate", "```", "```", "vllm serve m"]
    assert _activated_above(lines, 4) == ""
    assert _activated_above(["source venv/bin/activate", "vllm serve m"], 1) == "source venv/bin/activate\n"


def test_uv_project_environment_at_the_prompt_is_the_host(tmp_path: Path) -> None:
    # Corpus 2673: `uv init`, `uv add onnxruntime-gpu`, then `uv run python3` at `root@ubuntu:~/proj#` (uv creates and
    # runs in the project's .venv), nvidia-smi after it.
    result = capture_checks("2673", ACCESS)[ACCESS]
    assert result.status == "not-applicable", result.message
    # Modelled: the same at a user's prompt is the host; at a container's prompt (its id as the host) it is not.
    text = "alice@gpu-node01:~/proj$ uv run python collect_env.py\n" + REPORT
    assert paste_checks(tmp_path, text, ACCESS)[ACCESS].status == "not-applicable"
    inside = "root@3f2a1b4c5d6e:/app# uv run python collect_env.py\n" + REPORT
    assert paste_checks(tmp_path, inside, ACCESS)[ACCESS].status != "not-applicable"
