"""The model an engine serves, and its Hugging Face config, from what the source holds.

Where the model's name comes from, best first: a running engine's argv; a GPU or serving container's
command (`docker inspect`, a pasted docker run / compose / pod spec); a pasted engine command line; a pasted
server log's configuration dump (vLLM `model='…'`, `non-default args: {'model': …}`, SGLang
`server_args=ServerArgs(model_path='…')`).

Where its config comes from: read through the host (not the audit's own filesystem), so that a snapshot
holds the config and the headline ceiling replays: `<model dir>/config.json` for a path, else the engine's
Hugging Face cache (`HF_HUB_CACHE`, `HF_HOME/hub`, `XDG_CACHE_HOME/huggingface/hub`,
`~/.cache/huggingface/hub`, https://huggingface.co/docs/huggingface_hub/guides/manage-cache); else the
catalogue shipped with stackaudit (data/models.toml, models.py). Never a download.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from stackaudit.facts._parse import sizes_from_argv
from stackaudit.facts.parallelism import Parallelism, from_process
from stackaudit.facts.processes import ProcessInfo, ServingProcesses, process_file_path
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, provider
from stackaudit.host.base import Host, NotCaptured, list_or_none, read_text
from stackaudit.host.limits import MAX_MODEL_CONFIG_BYTES, parse_model_config

# Flags naming the model, per engine (their CLI docs); the TP size comes from the `parallelism` fact.
_MODEL_FLAGS = ("--model", "--model-path", "--model_path")
_VALUE_FLAGS_NOT_MODEL = frozenset({"serve", "-m"})
_MAX_REVISIONS = 16  # snapshots of one repo in a Hugging Face cache read, at most


@dataclass(frozen=True)
class ServingModel:
    engine: str
    model: str
    tp: int
    config: dict[str, Any]
    config_path: str
    quantization: str | None = None
    kv_cache_dtype: str | None = None
    # A `--weights` format the model's name gives where the catalogue answered a quantised re-upload.
    weights: str | None = None
    named_in: str = ""  # where the model's name was read ("" : a running engine's argv)
    note: str = ""  # how a catalogue entry was matched


fact("serving_model", ServingModel, first_of,
     hint="paste the engine's command line or its start-up log, or give `audit --model PATH|ID`")


# `lmdeploy serve KIND MODEL` (lmdeploy/cli/serve.py): the server kinds `serve` takes before its model.
_LMDEPLOY_SERVERS = ("api_server", "gradio")


def _positional_model(proc: ProcessInfo) -> str | None:
    """`vllm serve MODEL`, `trtllm-serve MODEL`, `lmdeploy serve api_server MODEL`: the first positional argument
    after the subcommand (lmdeploy's `serve` takes a server kind first: `api_server`, `gradio`; corpus 1403)."""
    argv = list(proc.argv)
    for i, arg in enumerate(argv):
        base = posixpath.basename(arg)
        if (arg == "serve" or base == "trtllm-serve") and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            if argv[i + 1] in _LMDEPLOY_SERVERS and i > 0 and posixpath.basename(argv[i - 1]) == "lmdeploy":
                i += 1
                if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                    return None
            return argv[i + 1]
    return None


def _cache_dirs(proc: ProcessInfo) -> list[str]:
    env = proc.environ or {}
    home = env.get("HOME", "/root")
    dirs = []
    if env.get("HF_HUB_CACHE"):
        dirs.append(env["HF_HUB_CACHE"])
    if env.get("HF_HOME"):
        dirs.append(posixpath.join(env["HF_HOME"], "hub"))
    if env.get("XDG_CACHE_HOME"):
        dirs.append(posixpath.join(env["XDG_CACHE_HOME"], "huggingface", "hub"))
    dirs.append(posixpath.join(home, ".cache", "huggingface", "hub"))
    return dirs


def _read_config(host: Host, proc: ProcessInfo, model: str) -> tuple[dict[str, Any], str]:
    """The model's config.json as the engine sees it: every path (argv, cache variables) is the process's
    data, read through its root with its user's rights (processes.process_file_path), bounded and validated."""
    candidates: list[tuple[str, str]] = []  # (the path as the engine names it, where the host reads it)

    def add(path: str) -> None:
        seen = process_file_path(host, proc.pid, path)
        if seen is not None:
            candidates.append((posixpath.normpath(path), seen))

    if model.startswith(("/", "./", "../")) or model.endswith(".json"):
        add(model if model.endswith(".json") else posixpath.join(model, "config.json"))
    elif "/" in model:
        repo = "models--" + model.replace("/", "--")
        for cache in _cache_dirs(proc):
            snapshots = posixpath.join(cache, repo, "snapshots")
            listed = process_file_path(host, proc.pid, snapshots)
            if listed is None:
                continue
            for rev in (list_or_none(host, listed) or [])[:_MAX_REVISIONS]:
                if rev and "/" not in rev and rev not in (".", ".."):
                    add(posixpath.join(snapshots, rev, "config.json"))
    for shown, path in candidates:
        try:
            data = parse_model_config(read_text(host, path, limit=MAX_MODEL_CONFIG_BYTES))
        except (OSError, NotCaptured):
            continue
        except ValueError as exc:
            raise FactUnavailable(f"the config.json of {model} is not a usable model config: {exc}",
                                  "run `stackaudit ceiling --model <config.json>` on a checked copy") from exc
        return data, shown
    raise FactUnavailable(f"the config.json of {model} is not readable on this host",
                          "run `stackaudit ceiling --model <config.json>` by hand")


@provider("serving_model", ServingModel, title="the engine's argv and the model's config.json")
def serving_model(ctx: FactContext) -> ServingModel:
    """The served model, its tensor-parallel size and config.json (for the headline ceiling)."""
    procs = ctx.fact("serving_processes", ServingProcesses)
    parallelism = ctx.optional("parallelism", Parallelism)
    roots = [p for p in procs.processes if p.role in ("api-server", "launcher", "") and p.engine] or list(procs.processes)
    for proc in roots:
        model = model_argument(proc)
        if not model:
            continue
        sizes = parallelism.for_pid(proc.pid) if parallelism is not None else None
        tp = (sizes if sizes is not None else from_process(proc)).tp_or_default
        try:
            config, path = _read_config(ctx.host, proc, model)
        except FactUnavailable as exc:
            served = _from_catalogue(proc.engine, model, tp, proc, "")
            if served is None:
                raise FactUnavailable(f"{exc.reason}, and stackaudit's catalogue does not hold it",
                                      "give `audit --model <config.json>`") from exc
            return served
        return ServingModel(proc.engine, model, tp, config, path, proc.flag("--quantization"),
                            proc.flag("--kv-cache-dtype"))
    raise FactUnavailable("no serving engine with a model argument is running")


def model_argument(proc: ProcessInfo) -> str | None:
    """The model a command line names (`--model`, `--model-path`, `serve MODEL`), or None."""
    model = proc.flag(*_MODEL_FLAGS) or _positional_model(proc)
    return model if model and model not in _VALUE_FLAGS_NOT_MODEL else None


def _from_catalogue(engine: str, model: str, tp: int, proc: ProcessInfo | None, named_in: str) -> ServingModel | None:
    """The served model from the shipped catalogue (no config in the source), or None when it is not there."""
    from stackaudit.models import lookup

    found = lookup(model)
    if found is None:
        return None
    quant = proc.flag("--quantization") if proc is not None else None
    kv = proc.flag("--kv-cache-dtype") if proc is not None else None
    return ServingModel(engine, model, tp, found.config, f"stackaudit's catalogue ({found.source})", quant, kv,
                        found.weights, named_in, found.note)


def _catalogued(engine: str, model: str, tp: int, proc: ProcessInfo | None, where: str) -> ServingModel:
    """The model a container, a pasted command or a log names, from the catalogue; FactUnavailable saying what
    to give when the catalogue does not list it."""
    served = _from_catalogue(engine, model, tp, proc, where)
    if served is None:
        raise FactUnavailable(f"{where} names {model}, whose config.json is not in the source nor in stackaudit's "
                              "catalogue", "give `audit --model <config.json or id>`")
    return served


@provider("serving_model", ServingModel, rank=10,
          title="serving containers' command (`docker inspect`, a pasted docker run / compose / pod spec)")
def serving_model_from_container(ctx: FactContext) -> ServingModel:
    """The model a GPU or serving container's command names, from the catalogue."""
    from stackaudit.facts.docker import DockerContainers

    for ctr in ctx.fact("docker_containers", DockerContainers).gpu_or_serving:
        engine = ctr.engine
        proc = ProcessInfo(pid=0, ppid=None, comm=ctr.name, argv=ctr.argv, engine=engine, role="api-server")
        model = model_argument(proc) or next((a for a in ctr.argv if "/" in a and not a.startswith(("-", "/"))
                                              and engine == "vllm"), None)
        if not model:
            continue
        where = f"container {ctr.name or ctr.id} ({ctr.origin or 'docker inspect'})"
        return _catalogued(engine, model, sizes_from_argv(ctr.argv)[0] or 1, proc, where)
    raise FactUnavailable("no serving container names a model")


@provider("serving_model", ServingModel, rank=20, title="pasted engine command line")
def serving_model_from_command(ctx: FactContext) -> ServingModel:
    """The model a pasted engine command line names (`vllm serve MODEL`, `--model-path MODEL`), from the catalogue."""
    from stackaudit.facts.engine_command import EngineCommands

    for cmd in ctx.fact("engine_commands", EngineCommands).commands:
        proc = cmd.as_process()
        model = model_argument(proc)
        if not model:
            continue
        where = f"the pasted `{cmd.argv[0]}` command line"
        return _catalogued(cmd.engine, model, from_process(proc).tp_or_default, proc, where)
    raise FactUnavailable("no pasted engine command names a model")


@provider("serving_model", ServingModel, rank=30, title="pasted server log")
def serving_model_from_log(ctx: FactContext) -> ServingModel:
    """The model a pasted server log's configuration dump names, from the catalogue."""
    from stackaudit.facts.serving_logs import ServingLog

    log = ctx.fact("serving_log", ServingLog)
    if not log.model:
        raise FactUnavailable("the server log names no model")
    where = f"the pasted {log.engine or 'server'} log"
    return _catalogued(log.engine, log.model, log.tp_size or 1, None, where)
