"""Engines that run on one GPU, or straight on the machine, read as an expert reads them.

IC-NCCL-ENV: an engine shown on one GPU (TP 1, one stage) builds no NCCL communicator between GPUs: not applicable
(corpus 1276, 1285). CTR-GPU-ACCESS: an engine run from a conda env's python in the user's home, or built on its own
line before it runs (`make -j && ./llama-server`), runs on the machine: not applicable (corpus 1276, 1280).
The engine command reader takes the command ssh runs on its host (`ssh HOST '<python> -m sglang.launch_server ...'`).
"""

from __future__ import annotations

from corpus import body, capture_checks, fact, pasted
from stackaudit.facts.container import _BUILT_THEN_RUN, ContainerInfo
from stackaudit.facts.engine_command import parse_command_line

# sgl-project/sglang#4270 (corpus 1276), the command as pasted.
SSH_LINE = ("ssh 10.82.113.81 '/home/my/.opt/anaconda3/envs/sglang-source/bin/python -m sglang.launch_server --host "
            "0.0.0.0 --port 9888 --tensor-parallel-size 1 --data-parallel-size 1 --base-gpu-id 7'")


def test_ssh_remote_command_is_the_engine() -> None:
    command = parse_command_line(SSH_LINE)
    assert command is not None and command.engine == "sglang"
    assert command.argv[0] == "/home/my/.opt/anaconda3/envs/sglang-source/bin/python"
    assert command.as_process().flag("--tensor-parallel-size") == "1"
    # Modelled: ssh's own options before the host, and the remote command unquoted (ssh joins its words).
    command = parse_command_line("ssh -p 2222 -i ~/.ssh/id node7 vllm serve m --tensor-parallel-size 2")
    assert command is not None and command.engine == "vllm" and command.argv[:2] == ("vllm", "serve")
    # Modelled: ssh with no remote command starts no engine.
    assert parse_command_line("ssh -p 2222 node7") is None


def test_one_gpu_engine_has_no_nccl_communicator() -> None:
    for prefix in ("1276", "1285"):
        r = capture_checks(prefix, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "not-applicable" and "TP 1" in r.message, prefix


def test_modelled_tp2_engine_stays_unknown() -> None:
    # Modelled: the same launch at TP 2 may run NCCL with settings the source does not show.
    from stackaudit.engine.testing import run_checks

    text = SSH_LINE.replace("--tensor-parallel-size 1", "--tensor-parallel-size 2") + "\n"
    r = run_checks(pasted(text), ["IC-NCCL-ENV"])["IC-NCCL-ENV"]
    assert r.status == "unknown"


def test_home_conda_python_runs_on_the_host() -> None:
    info = fact(pasted(body("1276")), "container")
    assert isinstance(info, ContainerInfo) and not info.in_container
    assert "anaconda3/envs/sglang-source/bin/python" in info.evidence[0]
    assert capture_checks("1276", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"


def test_built_then_run_on_one_line_runs_on_the_host() -> None:
    assert capture_checks("1280", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-applicable"
    # Modelled: the same binary run without a build on its line, and an image's python, say nothing.
    for text in ("./llama-server -m /models/x.gguf -ngl 99 --port 8080\n",
                 "/opt/conda/bin/python -m sglang.launch_server --model-path m --port 30000\n"):
        assert not isinstance(fact(pasted(text), "container"), ContainerInfo), text


def test_words_with_many_assignments_split_one_way() -> None:
    # Modelled hostile line: `\S+=\S*` words before the program backtracked through every `=` (exponential).
    assert _BUILT_THEN_RUN.search("make && " + "a=b=c=d " * 40 + "x") is None
    assert _BUILT_THEN_RUN.search("GGML_CUDA=1 make -j && CUDA_VISIBLE_DEVICES=0 ./llama-server -m m.gguf")


def test_vllm_world_of_one_rank_has_no_nccl_communicator() -> None:
    # Real: corpus 2616 (runpod-workers/worker-vllm#276): `world_size=1 rank=0` in vLLM's parallel_state line.
    r = capture_checks("2616", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "not-applicable" and "TP 1" in r.message, r.message
    log = fact(pasted(body("2616")), "serving_log")
    assert (log.tp_size, log.pp_size, log.world_size) == (1, 1, 1)


def test_modelled_vllm_world_of_two_ranks_stays_unknown() -> None:
    # Modelled: the same line at world_size=2 (TP 2 or PP 2, not said) leaves the NCCL settings open.
    from stackaudit.engine.testing import run_checks

    text = ("(EngineCore_DP0 pid=469) INFO 03-11 17:57:10 [parallel_state.py:1234] world_size=2 rank=0 local_rank=0 "
            "distributed_init_method=tcp://127.0.0.1:54953 backend=nccl\n")
    r = run_checks(pasted(text), ["IC-NCCL-ENV"])["IC-NCCL-ENV"]
    assert r.status == "unknown", r.message
    assert fact(pasted(text), "serving_log").tp_size is None
