"""The model a running engine serves, and its Hugging Face config, read through the host.

Read through the host (not the audit's own filesystem), so that a snapshot holds the config and
the headline ceiling replays: `<model dir>/config.json` for a path, else the engine's Hugging Face
cache (`HF_HUB_CACHE`, `HF_HOME/hub`, `XDG_CACHE_HOME/huggingface/hub`, `~/.cache/huggingface/hub`,
https://huggingface.co/docs/huggingface_hub/guides/manage-cache). Never a download.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from stackaudit.facts.parallelism import Parallelism, from_process
from stackaudit.facts.processes import ProcessInfo, ServingProcesses, process_file_path
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import Host, NotCaptured, read_text
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


def _positional_model(proc: ProcessInfo) -> str | None:
    """`vllm serve MODEL`, `trtllm-serve MODEL`: the first positional argument after the subcommand."""
    argv = list(proc.argv)
    for i, arg in enumerate(argv):
        base = posixpath.basename(arg)
        if (arg == "serve" or base == "trtllm-serve") and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
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
            try:
                revisions = host.list_dir(listed)
            except (OSError, NotCaptured):
                continue
            for rev in revisions[:_MAX_REVISIONS]:
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
        model = proc.flag(*_MODEL_FLAGS) or _positional_model(proc)
        if not model or model in _VALUE_FLAGS_NOT_MODEL:
            continue
        sizes = parallelism.for_pid(proc.pid) if parallelism is not None else None
        tp = (sizes if sizes is not None else from_process(proc)).tp_or_default
        config, path = _read_config(ctx.host, proc, model)
        return ServingModel(proc.engine, model, tp, config, path, proc.flag("--quantization"),
                            proc.flag("--kv-cache-dtype"))
    raise FactUnavailable("no serving engine with a model argument is running")
