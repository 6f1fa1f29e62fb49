"""CTR-IPC-ISOLATION ok where a pasted launcher starts every rank itself on the machine where it is typed
(facts/engine_command.LOCAL_RANK_LAUNCHERS): tensorrtllm_backend's `launch_triton_server.py --world_size N` runs
`mpirun` with no host list, so its N Triton ranks are its own child processes, in one IPC namespace.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import paste_checks
from stackaudit.facts.engine_command import EngineCommand, parse_engine_commands

# Real: https://github.com/triton-inference-server/tensorrtllm_backend/issues/377 (corpus 1962), the pod's prompt.
BACKEND_377 = "root@netshoot-xxxxxxxxxx-xxxxx:/app/scripts# python launch_triton_server.py --model_repo /model_repo " \
              "--world_size 2"
# Real: https://github.com/triton-inference-server/tensorrtllm_backend/issues/577 (corpus 2035), a container's prompt.
BACKEND_577 = "root@763cf08503e3:/workspace/dhruv_artificial_agency/inference_service# python3 " \
              "launch_triton_server.py --world_size=2 --model_repo=models_dhruv --log " \
              "--tensorrt_llm_model_name=meta_llama_3_1_8B_instruct_vanilla_trt"
# Real: https://github.com/NVIDIA/TensorRT-LLM/issues/1507 (Phi-2 on an Azure A100 pair, the issue body's step 4).
TRTLLM_1507 = "python3 scripts/launch_triton_server.py --world_size=2 --model_repo=/tensorrtllm_backend/triton_model_repo"
# Real: https://github.com/triton-inference-server/tensorrtllm_backend/issues/129 (corpus 1769).
BACKEND_129 = "python3 scripts/launch_triton_server.py --world_size 2 --model_repo=/tensorrtllm_backend/triton_model_repo"


def _command(line: str) -> EngineCommand:
    """The one engine command a line shows, after its shell prompt (the importer reads the prompt away)."""
    (command,) = parse_engine_commands(line.split("# ", 1)[-1] + "\n").commands
    return command


@pytest.mark.parametrize("line", [BACKEND_377, BACKEND_577, TRTLLM_1507, BACKEND_129])
def test_the_triton_launcher_starts_its_ranks_here(line: str) -> None:
    assert _command(line).ranks_started_here == 2


@pytest.mark.parametrize("line", [
    # Modelled: one rank (the default, or said), and an mpirun that names the program itself, which may take a
    # host list: not the launcher's rule.
    "python3 scripts/launch_triton_server.py --model_repo=/repo",
    "python3 scripts/launch_triton_server.py --world_size 1 --model_repo=/repo",
    "mpirun --allow-run-as-root -n 2 tritonserver --model-repository=/repo",
])
def test_no_local_group_of_ranks(line: str) -> None:
    assert (_command(line).ranks_started_here or 0) <= 1


def test_the_ranks_share_the_shell_s_ipc_namespace(tmp_path: Path) -> None:
    # Both the pod's prompt (unread as a container) and the container's prompt: the launcher's children stay together.
    for line in (BACKEND_377, BACKEND_577):
        checks = paste_checks(tmp_path, line + "\n", "CTR-IPC-ISOLATION")
        assert checks["CTR-IPC-ISOLATION"].status == "ok", checks["CTR-IPC-ISOLATION"].message
        assert "starts its 2 ranks itself" in checks["CTR-IPC-ISOLATION"].message


def test_one_rank_leaves_the_check_where_it_was(tmp_path: Path) -> None:
    # Modelled: the same container prompt with one rank: no group to split, the launcher's rule says nothing.
    checks = paste_checks(tmp_path, BACKEND_577.replace("--world_size=2", "--world_size=1") + "\n", "CTR-IPC-ISOLATION")
    assert checks["CTR-IPC-ISOLATION"].status != "ok", checks["CTR-IPC-ISOLATION"].message


# Real: https://github.com/triton-inference-server/tensorrtllm_backend/issues/396 (corpus 2092), the docker run and the
# launcher typed inside that container, verbatim.
RUN_2092 = ("docker run -it --rm --gpus=all -p28000:8000 -p28001:8001 -p28002:8002 --shm-size=512GB --ulimit "
            "memlock=-1 --ulimit stack=67108864 -v /:/host --name triton-server "
            "nvcr.io/nvidia/tritonserver:24.02-trtllm-python-py3 bash\n")
LAUNCH_2092 = ("python3 ./scripts/launch_triton_server.py --tritonserver /opt/tritonserver/bin/tritonserver "
               "--world_size 4 --model_repo /path-to/model_repository\n")


def test_the_launcher_beside_a_container_that_is_no_rank(tmp_path: Path) -> None:
    checks = paste_checks(tmp_path, RUN_2092 + "\n" + LAUNCH_2092, "CTR-IPC-ISOLATION")
    assert checks["CTR-IPC-ISOLATION"].status == "ok", checks["CTR-IPC-ISOLATION"].message
    assert "starts its 4 ranks itself" in checks["CTR-IPC-ISOLATION"].message
    # Modelled counter-example: the container alone, no launcher shown, keeps the check's earlier reading.
    alone = paste_checks(tmp_path, RUN_2092, "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert "starts its" not in alone.message
