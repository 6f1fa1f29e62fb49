"""Serving processes (vLLM, SGLang, TensorRT-LLM) and what the kernel says about them.

The runtime checks read the environment, command line and limits of the engine's own
processes (/proc/<pid>/environ, cmdline, limits, status), not the audit's (knowledge base,
general rule 3). Where no engine runs, `current` describes the audit's own process instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    ppid: int | None
    comm: str
    argv: tuple[str, ...]
    # None: not readable (another user's process without root), as opposed to empty.
    environ: dict[str, str] | None = None
    # "Max open files" -> (soft, hard), values as /proc/<pid>/limits prints them ("unlimited" kept).
    limits: dict[str, tuple[str, str]] | None = None
    # /proc/<pid>/status fields (VmSwap, Cpus_allowed_list, Threads, ...).
    status: dict[str, str] = field(default_factory=dict)
    engine: str = ""  # "vllm" | "sglang" | "trtllm" | ""
    role: str = ""  # "api-server" | "engine-core" | "worker" | "scheduler" | "detokenizer" | "launcher" | ""

    def env(self, name: str) -> str | None:
        return None if self.environ is None else self.environ.get(name)

    def flag(self, *names: str) -> str | None:
        """Value of the last `--name value` / `--name=value` in argv; "" for a bare flag."""
        value: str | None = None
        for i, arg in enumerate(self.argv):
            for name in names:
                if arg == name:
                    nxt = self.argv[i + 1] if i + 1 < len(self.argv) else ""
                    value = "" if nxt.startswith("--") else nxt
                elif arg.startswith(name + "="):
                    value = arg[len(name) + 1:]
        return value

    def has_flag(self, *names: str) -> bool:
        return self.flag(*names) is not None


@dataclass(frozen=True)
class ServingProcesses:
    processes: tuple[ProcessInfo, ...]
    # The audit's own process: what the runtime checks read where no engine runs (and say so).
    current: ProcessInfo | None = None
    unreadable_pids: tuple[int, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.processes)

    def engines(self) -> set[str]:
        return {p.engine for p in self.processes if p.engine}

    def by_engine(self, engine: str) -> list[ProcessInfo]:
        return [p for p in self.processes if p.engine == engine]
