"""The headline's measured decode rate (`audit --measured TOKS`, else one the source holds) and how it compares
with the ceiling (issue 10); the ceiling's keys come from the ceiling product (ceiling/headline.py).

It also says where each engine found answers, for a `bench` run stored against it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def parse_measured(text: str) -> float:
    """`--measured TOKS`: a positive, finite decode rate in tokens/s per stream; ValueError otherwise."""
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"--measured {text!r}: give the measured decode rate in tokens/s per stream, "
                         "a number such as 41.5") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"--measured {text!r}: the decode rate must be a positive number of tokens/s")
    return value


MEASURED_FLAG = "--measured"


def measured_from(facts: Mapping[str, Any], given: float | None) -> tuple[float, str, bool] | None:
    """The measured single-stream rate: `--measured` first, else what the source holds (the `serving_rate` fact:
    the engine's own log lines, a pasted benchmark). (rate, where it was read, speculative decoding seen)."""
    from stackaudit.facts.serving_rate import MeasuredRate

    if given is not None:
        return given, MEASURED_FLAG, False
    rate = facts.get("serving_rate")
    if isinstance(rate, MeasuredRate):
        return rate.tokens_per_s, rate.source, rate.speculative
    return None


# The port each engine listens on without `--port` (vLLM and trtllm-serve 8000, SGLang 30000).
DEFAULT_PORTS = {"vllm": 8000, "trtllm": 8000, "sglang": 30000}
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "localhost.localdomain"})
_ANY_ADDRESS = frozenset({"", "0.0.0.0", "::", "[::]"})


Endpoint = tuple[frozenset[str], int, frozenset[str]]  # (host names, port, model names it serves)


def engine_endpoints(facts: Mapping[str, Any], hostname: str, live: bool) -> list[Endpoint]:
    """Where each engine the audit found answers and what it serves: its `--port` (else the engine's default); its
    `--host`, the audited host's name, and on a live audit the loopback names (a `bench` run from this host); the
    model it was given and its `--served-model-name` (the name a client sends)."""
    from stackaudit.facts.engine_command import EngineCommands
    from stackaudit.facts.processes import ServingProcesses
    from stackaudit.facts.serving_model import ServingModel

    procs = facts.get("serving_processes")
    commands = facts.get("engine_commands")
    served = facts.get("serving_model")
    found = list(procs.roots()) if isinstance(procs, ServingProcesses) else []
    if not found and isinstance(commands, EngineCommands):
        found = [c.as_process() for c in commands.commands]
    out: list[Endpoint] = []
    for proc in found:
        port = proc.flag("--port")
        if proc.engine not in DEFAULT_PORTS or (port is not None and not port.isdecimal()):
            continue
        bind = (proc.flag("--host") or "").lower()
        names = {hostname.lower()} - {""} | ({bind} - _ANY_ADDRESS) | (_LOOPBACK if live else set())
        models = {proc.flag("--served-model-name"), proc.flag("--model", "--model-path"),
                  served.model if isinstance(served, ServingModel) and served.engine == proc.engine else None}
        if names:
            out.append((frozenset(names), int(port) if port else DEFAULT_PORTS[proc.engine],
                        frozenset(m for m in models if m)))
    return out


def measured_vs_ceiling(tokens_per_s: float, host: Mapping[str, Any], source: str = MEASURED_FLAG,
                        speculative: bool = False) -> dict[str, Any]:
    """The report's `host.measured`: the measured rate, where it was read, the ceiling's, the percentage, and the
    line shown."""
    ceiling = host.get("ceiling_tok_s")
    where = "" if source == MEASURED_FLAG else f" (from {source})"
    base = {"decode_tok_s": tokens_per_s, "source": source}
    if not isinstance(ceiling, (int, float)) or ceiling <= 0:
        why = host.get("ceiling_missing") or "not priced (the audit was run without the headline ceiling)"
        line = f"Measured: {tokens_per_s:g} tok/s per stream{where}; no ceiling: {why}"
        return {**base, "ceiling_tok_s": None, "percent_of_ceiling": None, "line": line}
    percent = round(100.0 * tokens_per_s / float(ceiling), 1)
    line = (f"Measured: {tokens_per_s:g} tok/s per stream{where} = {percent:g} % of the ceiling "
            f"(~{float(ceiling):.0f} tok/s)")
    if percent > 100:
        line += ("; above the ceiling: speculative decoding raises it by its acceptance length" if speculative else
                 "; above the ceiling: the model, GPUs or TP measured are not the ones the source shows")
    else:
        line += "; `stackaudit ceiling --measured` lists what would close the gap"
    return {**base, "ceiling_tok_s": float(ceiling), "percent_of_ceiling": percent, "line": line}
