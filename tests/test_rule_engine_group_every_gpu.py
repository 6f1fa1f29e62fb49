"""Issue 28, step 4 (h49c): a container's one-line argument list is the engine's command, and a TP group that holds
every GPU has no placement to choose.

Real pastes: 1050 (vllm-project/vllm#31030: a compose service's `command: ["--served-model-name", ...]`), 1023
(sgl-project/sglang, TP 8 on eight L4 with the matrix cut after GPU4's first cells), 1031 (an H20 board's matrix cut
in GPU0's row after four NV18 cells). The counter-examples are modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import container_args, parse_command_line

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"
GRAPHS = "RT-CUDA-GRAPHS"


def test_a_compose_command_list_is_vllm_s_whole_command() -> None:
    result = capture_checks("1050", GRAPHS)[GRAPHS]
    assert result.status == "ok" and "no flag on the pasted command line turns them off" in result.message


def test_a_pod_args_list_with_the_eager_flag_turns_graphs_off(tmp_path: Path) -> None:
    # Modelled: a Kubernetes container's `args:` of the vLLM image, on one line.
    text = ('    args: ["--model", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2", "--enforce-eager"]\n')
    result = paste_checks(tmp_path, text, GRAPHS)[GRAPHS]
    assert result.status == "issue" and "--enforce-eager" in str(result.actual) + result.message


def test_which_lists_are_an_engine_s() -> None:
    # Options only, one of them vLLM's own: the image's entrypoint, vLLM's API server.
    line = container_args('command: ["--model", "m", "--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "4"]')
    assert line is not None and line.startswith("python3 -m vllm.entrypoints.openai.api_server --model m")
    command = parse_command_line('  - args: ["--model", "m", "--max-num-seqs", "8"]')
    assert command is not None and command.engine == "vllm" and command.line.startswith("- args:")
    # A list that names its program is that program's: SGLang's server.
    command = parse_command_line('command: ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"]')
    assert command is not None and command.engine == "sglang"
    # Counter-examples: options no flag of which is vLLM's own name no engine; nor does a healthcheck's list.
    assert container_args('args: ["--model", "m", "--tp", "2"]') is None
    assert parse_command_line('command: ["--model", "m", "--tp", "2"]') is None
    assert parse_command_line('test: ["CMD", "curl", "-f", "http://localhost:8000/health"]') is None


def test_a_group_of_every_gpu_on_a_cut_matrix_is_not_an_issue() -> None:
    # 1023: `--tp 8` on eight L4; GPU0-3 reach GPU4 over SYS, GPU4's row is cut: the group needs every GPU.
    result = capture_checks("1023", PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue" and "crossing sockets is unavoidable" in result.message
    assert result.coverage is not None and result.coverage.shown == ("GPU0", "GPU1", "GPU2", "GPU3", "GPU4")


_CUT_L4 = """\
$ python -m sglang.launch_server --model-path m --tp {tp}
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    CPU Affinity    NUMA Affinity
GPU0     X      NODE    NODE    NODE    SYS     SYS     SYS     SYS     0-47    0
GPU1    NODE     X      NODE    NODE    SYS     SYS     SYS     SYS     0-47    0
GPU4    SYS     SYS
"""


def test_a_group_short_of_every_gpu_with_pairs_not_shown_stays_unknown(tmp_path: Path) -> None:
    # Modelled counter-example: TP 4 of eight GPUs, GPU2-3's rows not shown: which four it takes decides.
    result = paste_checks(tmp_path, _CUT_L4.format(tp=4), PLACEMENT)[PLACEMENT]
    assert result.status == "unknown"


def test_a_cut_row_bonding_more_nvlinks_than_a_gpu_has_shows_the_switches() -> None:
    # 1031: GPU0's row shows NV18 to four peers on H20 (18 NVLinks a GPU): the board's NVSwitches.
    result = capture_checks("1031", PLACEMENT)[PLACEMENT]
    assert result.status == "ok" and "NVSwitches" in result.message
    assert result.coverage is not None and result.coverage.shown == ("GPU0",) and result.coverage.total == 8


def test_a_cut_row_of_few_nvlinks_shows_no_switch(tmp_path: Path) -> None:
    # Modelled counter-example: NV4 to two peers (8 links) is a bridged or meshed board's, not a switch's.
    text = ("        GPU0    GPU1    GPU2    GPU3\n"
            "GPU0     X      NV4     NV4\n")
    result = paste_checks(tmp_path, text, PLACEMENT)[PLACEMENT]
    assert result.status != "ok"


_DOCKER = ("We have 8x RTX 4090 in the box.\n"
           "docker run --gpus {gpus} --ipc=host vllm/vllm-openai:latest --model m --tensor-parallel-size {tp}\n")


def test_a_container_given_every_gpu_runs_a_group_of_all_of_them(tmp_path: Path) -> None:
    # Modelled: `--gpus all` and TP 8 on a host of eight GPUs (the class of 1052, whose count is in words not read).
    result = paste_checks(tmp_path, _DOCKER.format(gpus="all", tp=8), PLACEMENT)[PLACEMENT]
    assert result.status == "not-an-issue" and "on every GPU it is given" in result.message


def test_a_container_given_some_gpus_has_a_placement(tmp_path: Path) -> None:
    # Modelled counter-examples: four GPUs asked for by id, or TP 4 of the eight.
    for gpus, tp in (("'\"device=0,1,2,3\"'", 8), ("all", 4)):
        result = paste_checks(tmp_path, _DOCKER.format(gpus=gpus, tp=tp), PLACEMENT)[PLACEMENT]
        assert result.status == "unknown", (gpus, tp)


ENV = "RT-ENV-VLLM"


def test_the_env_block_beside_a_command_list_is_the_container_s_env() -> None:
    # 1050: `and environment:` over a fence holding VLLM_USE_FLASHINFER_SAMPLER=1 (the sampler on, not off).
    result = capture_checks("1050", ENV)[ENV]
    assert result.status == "ok" and "VLLM_USE_FLASHINFER_SAMPLER=1" in result.message


_LISTED = """\
```
    command: ["--model", "m", "--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "2"]
```
{label}
```
VLLM_USE_FLASHINFER_SAMPLER={value}
```
"""


def test_an_env_block_judges_its_values_and_needs_its_label(tmp_path: Path) -> None:
    # Modelled: the sampler switched off in the env block is the finding.
    result = paste_checks(tmp_path, _LISTED.format(label="and environment:", value="0"), ENV)[ENV]
    assert result.status == "issue" and "VLLM_USE_FLASHINFER_SAMPLER=0" in result.message
    # Counter-example: a block no line labels as the environment is not the container's: nothing is judged.
    result = paste_checks(tmp_path, _LISTED.format(label="and then:", value="1"), ENV)[ENV]
    assert result.status == "unknown"


def test_a_shell_string_in_a_command_list_is_its_command() -> None:
    # Modelled on vllm-project/vllm#10826's pod (`command: ["/bin/sh", "-c"]` over one args string), on one line.
    command = parse_command_line('command: ["/bin/sh", "-c", "vllm serve Qwen/QwQ-32B-Preview --max_model_len 13680"]')
    assert command is not None and command.engine == "vllm" and command.argv[:2] == ("vllm", "serve")
    command = parse_command_line('args: ["vllm serve Qwen/QwQ-32B-Preview --gpu-memory-utilization 0.9"]')
    assert command is not None and command.engine == "vllm"
    # Counter-example: a shell string that runs no engine.
    assert parse_command_line('command: ["/bin/sh", "-c", "sleep infinity"]') is None
