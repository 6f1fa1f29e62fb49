"""The `parallelism` fact: TP/PP/DP from the engine's argv, its config file, docker inspect and a pasted log.

Real outputs: vLLM engine-config lines from vllm-project/vllm#8691 (v0.6.1, TP 8), vllm-project/vllm
PR #13027 (a V0 engine line, v0.6.4) and rust-lang/www.rust-lang.org#2107 (a vLLM v0.6.6 line with
pipeline_parallel_size=2), each cut after the sizes; the SGLang command line of Agent-RL/ReCall#43.
The SGLang `server_args=ServerArgs(...)` line is modelled on tests/test_logs_parsers.py with the
ServerArgs fields pp_size and dp_size added. Processes, /proc and docker inspect are modelled
(tests/scenario_builder.py, tests/test_ctr_facts.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scenario_builder import build_host, merge, proc_limits, processes, sglang_server, vllm_serve
from stackaudit.engine.collect import Collector, Missing
from stackaudit.facts.parallelism import (
    ARGV,
    CONFIG_FILE,
    DOCKER,
    LOG,
    Parallelism,
    ServingEngine,
    sizes_from_argv,
)
from stackaudit.facts.registry import load_all
from stackaudit.facts.sources import ENGINE_LOG
from stackaudit.host.memory import HostRecord, MemoryHost, fake_host
from test_ctr_facts import CID, docker_object

load_all()

# vllm-project/vllm#8691 (cut after enforce_eager)
VLLM_061 = ("INFO 09-23 10:49:03 llm_engine.py:223] Initializing an LLM engine (v0.6.1.post1) with config: "
            "model='/Qwen/Qwen2.5-72B-Instruct', speculative_config=None, tokenizer='/Qwen/Qwen2.5-72B-Instruct', "
            "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
            "rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=True, "
            "dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, "
            "tensor_parallel_size=8, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, "
            "enforce_eager=False,\n")
# vllm-project/vllm PR #13027 (cut after enforce_eager)
VLLM_V0 = ("INFO 02-10 17:12:31 llm_engine.py:234] Initializing a V0 LLM engine (v0.6.4.post2.dev395+g02222a02."
           "d20241217) with config: model='/home/cmq/.cache/huggingface/hub/models--facebook--opt-125m/snapshots/"
           "27dcfa74d334bc871f3234de431e71c6eeba5dd6', speculative_config=None, tokenizer='/home/cmq/.cache/"
           "huggingface/hub/models--facebook--opt-125m/snapshots/27dcfa74d334bc871f3234de431e71c6eeba5dd6', "
           "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, "
           "tokenizer_revision=None, trust_remote_code=True, dtype=torch.float16, max_seq_len=2048, "
           "download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, "
           "disable_custom_all_reduce=False, quantization=None, enforce_eager=True,\n")
# rust-lang/www.rust-lang.org#2107 (a vLLM log; cut after enforce_eager)
VLLM_066_PP2 = ("INFO 01-14 03:08:50 llm_engine.py:234] Initializing an LLM engine (v0.6.6) with config: "
                "model='/workspace/models/models--Qwen--Qwen2-0.5B', speculative_config=None, "
                "tokenizer='/workspace/models/models--Qwen--Qwen2-0.5B', skip_tokenizer_init=False, "
                "tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, "
                "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, "
                "load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=2, "
                "disable_custom_all_reduce=False, quantization=None, enforce_eager=False,\n")
# modelled
SGLANG_ARGS = ("[2025-03-03 18:40:01] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, "
               "pp_size=2, dp_size=2, attn_tp_size=4, disable_cuda_graph=False, disable_custom_all_reduce=False)\n")
# Agent-RL/ReCall#43
SGLANG_ARGV = ["python3", "-m", "sglang.launch_server", "--served-model-name", "ReSearch", "--model-path",
               "xxx/Models/Qwen/Qwen2.5-1.5B-Instruct", "--tp", "4", "--context-length", "6000", "--enable-metrics",
               "--dtype", "bfloat16", "--host", "127.0.0.1", "--port", "80", "--trust-remote-code",
               "--disable-overlap", "--disable-radix-cache", "--disable-cuda-graph", "--mem-fraction-static", "0.7"]


def _fact(host: Any) -> Parallelism:
    return Collector(host).fact("parallelism", Parallelism)


@pytest.mark.parametrize("argv,sizes", [
    (["--tensor-parallel-size", "8"], (8, None, None)),
    (["--tensor-parallel-size=8"], (8, None, None)),
    (["--tensor_parallel_size", "8"], (8, None, None)),
    (["-tp", "4", "-pp", "2", "-dp", "2"], (4, 2, 2)),
    (["--tp", "2"], (2, None, None)),
    (["--tp-size=2", "--pp-size", "3", "--dp-size=4"], (2, 3, 4)),
    (["--tp_size", "2", "--pp_size=2", "--dp_size", "8"], (2, 2, 8)),
    (["--pipeline-parallel-size", "2", "--data-parallel-size=4"], (None, 2, 4)),
    (["--tp", "2", "--tp", "4"], (4, None, None)),  # the last one wins, as argparse does
    (["--tp", "--enforce-eager"], (None, None, None)),  # no value
    (["--tp", "auto", "--tpx", "3", "--max-num-seqs", "8"], (None, None, None)),
])
def test_every_spelling(argv: list[str], sizes: tuple[int | None, ...]) -> None:
    assert sizes_from_argv(argv) == sizes


def _vllm(argv: list[str], tp: int = 4) -> Any:
    return processes(vllm_serve(4101, 1, ["/opt/venv/bin/python3", "/opt/venv/bin/vllm", "serve", "m", *argv],
                                {"HOME": "/root"}, tp=tp, ncpu=64, limits=proc_limits(), exe="/usr/bin/python3.12"))


def test_running_vllm_argv() -> None:
    par = _fact(build_host(_vllm(["--tensor-parallel-size", "4", "--pipeline-parallel-size=2"]), "box"))
    [engine] = par.running
    assert (engine.engine, engine.tp, engine.pp, engine.dp, engine.source, engine.pid) == ("vllm", 4, 2, None, ARGV, 4101)
    assert par.for_pid(4101) == engine and par.max_world_size == 8


def test_running_engine_without_flags_defaults_to_tp_1() -> None:
    par = _fact(build_host(_vllm([], tp=1), "box"))
    assert par.running[0].tp is None and par.running[0].tp_or_default == 1 and par.max_world_size == 1


def test_running_sglang_argv() -> None:
    procs = processes(sglang_server(7001, 1, SGLANG_ARGV, {"HOME": "/root"}, tp=4, ncpu=64, limits=proc_limits(),
                                    exe="/usr/bin/python3.12", cap_eff="000001ffffffffff", seccomp=0))
    [engine] = _fact(build_host(procs, "box")).running
    assert (engine.engine, engine.tp, engine.pid) == ("sglang", 4, 7001)


def test_config_file_fills_what_argv_lacks() -> None:
    parts = _vllm(["--config", "/etc/vllm/serve.yaml"])
    parts.files["/etc/vllm/serve.yaml"] = "tensor-parallel-size: 2\npipeline_parallel_size: 2\nport: 8000\n"
    [engine] = _fact(build_host(parts, "box")).running
    assert (engine.tp, engine.pp, engine.source) == (2, 2, CONFIG_FILE)
    parts = _vllm(["--config", "/etc/vllm/serve.yaml", "--tensor-parallel-size", "4"])
    parts.files["/etc/vllm/serve.yaml"] = "tensor-parallel-size: 2\npipeline_parallel_size: 2\n"
    [engine] = _fact(build_host(parts, "box")).running
    assert (engine.tp, engine.pp, engine.source) == (4, 2, ARGV)  # argv overrides the file


def test_docker_args() -> None:
    out = json.dumps([docker_object(args=["serve", "m", "--tensor-parallel-size=2", "-pp", "2"])])
    host = fake_host(which={"docker": "/usr/bin/docker"},
                     commands={("docker", "ps", "-q"): CID[:12] + "\n", ("docker", "inspect", CID[:12]): out})
    par = _fact(host)
    engine = par.for_container(CID)
    assert engine is not None and (engine.engine, engine.tp, engine.pp, engine.source) == ("vllm", 2, 2, DOCKER)
    assert par.running == () and par.max_world_size is None  # a container's command is not a running engine


@pytest.mark.parametrize("text,engine,sizes", [
    (VLLM_061, "vllm", (8, 1, None)),
    (VLLM_V0, "vllm", (1, 1, None)),
    (VLLM_066_PP2, "vllm", (1, 2, None)),
    (SGLANG_ARGS, "sglang", (8, 2, 2)),
])
def test_pasted_log(text: str, engine: str, sizes: tuple[int | None, ...]) -> None:
    record = HostRecord(docs={ENGINE_LOG.name: text}, meta={"source": "pasted"})
    logged = _fact(MemoryHost(record)).from_log
    assert logged is not None and logged.source == LOG
    assert (logged.engine, logged.tp, logged.pp, logged.dp) == (engine, *sizes)


def test_process_and_log_both_kept() -> None:
    parts = merge(_vllm(["-tp", "2"], tp=2))
    parts.docs[ENGINE_LOG.name] = VLLM_061
    par = _fact(build_host(parts, "box"))
    assert [e.source for e in par.engines] == [ARGV, LOG]
    assert par.running[0].tp == 2 and par.from_log is not None and par.from_log.tp == 8


def test_no_source_names_each() -> None:
    value = Collector(MemoryHost(HostRecord(meta={"source": "pasted"}))).results(["parallelism"])["parallelism"]
    assert isinstance(value, Missing)
    for title in ("command line", "docker inspect", "server log"):
        assert title in value.reason


# --- the `serving_engine` fact: the engine the runtime checks judge ---------------------------------


def _engine(host: Any) -> ServingEngine:
    return Collector(host).fact("serving_engine", ServingEngine)


def test_the_running_engine_wins_over_its_log() -> None:
    parts = merge(_vllm(["-tp", "2"], tp=2))
    parts.docs[ENGINE_LOG.name] = VLLM_061
    engine = _engine(build_host(parts, "box"))
    assert (engine.engine, engine.tp) == ("vllm", 2)
    assert engine.process is not None and engine.process.pid == 4101 and engine.shown is engine.process


def test_a_log_alone_gives_engine_and_tp_without_a_process() -> None:
    engine = _engine(MemoryHost(HostRecord(docs={ENGINE_LOG.name: SGLANG_ARGS}, meta={"source": "pasted"})))
    assert (engine.engine, engine.tp, engine.process, engine.shown) == ("sglang", 8, None, None)


def test_a_container_shows_the_flags_but_is_no_running_engine() -> None:
    out = json.dumps([docker_object(args=["serve", "m", "--tensor-parallel-size=2"])])
    host = fake_host(which={"docker": "/usr/bin/docker"},
                     commands={("docker", "ps", "-q"): CID[:12] + "\n", ("docker", "inspect", CID[:12]): out})
    engine = _engine(host)
    assert engine.process is None and engine.command is None and engine.container is not None
    assert engine.shown is engine.container and "--tensor-parallel-size=2" in engine.container.argv
    assert (engine.engine, engine.tp) == ("", None)  # the check reads the container's own flags


def test_nothing_shown_is_an_empty_engine() -> None:
    engine = _engine(MemoryHost(HostRecord(meta={"source": "pasted"})))
    assert engine == ServingEngine("", None)
