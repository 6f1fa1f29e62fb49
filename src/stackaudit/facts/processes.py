"""Serving processes (vLLM, SGLang, TensorRT-LLM) and what the kernel says about them.

The runtime checks read the environment, command line and limits of the engine's own
processes (/proc/<pid>/environ, cmdline, limits, status), not the audit's (docs/design.md,
"Status rules"). Where no engine runs, `current` describes the audit's own process instead.

How the engines look in /proc:
- vLLM: `vllm serve …` or `python -m vllm.entrypoints.openai.api_server …` (the API server, the
  only process whose argv holds the flags); V1 children set titles with setproctitle,
  `VLLM::EngineCore`, `VLLM::Worker_TP0`, `VLLM::APIServer_0`, `VLLM::DPCoordinator` (prefix from
  VLLM_PROCESS_NAME_PREFIX); older ones `VllmWorker…`; Ray workers `ray::RayWorkerWrapper…`.
- SGLang: `python -m sglang.launch_server …` / `sglang serve …`; children `sglang::scheduler_TP0`,
  `sglang::detokenizer`, `sglang::data_parallel_controller`.
- LMDeploy: `lmdeploy serve api_server …` (the TurboMind or PyTorch engine in the same process tree), `lmdeploy chat …`.
- TensorRT-LLM: `trtllm-serve …` (maybe under `mpirun` / `trtllm-llmapi-launch`), MPI workers
  `python -m mpi4py.futures.server`; its examples' `python run.py --engine_dir DIR` (maybe under `mpirun`).
- Children without a title (multiprocessing `spawn_main`, forked copies) belong to the engine
  whose process they descend from.

setproctitle writes the title over argv *and* the environment block, so the titled children's
/proc/<pid>/environ reads as NULs (py-setproctitle README, SPT_NOENV). Their environment is
then taken from the nearest engine ancestor whose block is intact (`environ_from` says which):
a spawned child starts with its parent's environment.
"""

from __future__ import annotations

import posixpath
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from stackaudit.facts._parse import ParseError, argv_value, cuda_visible_entries, parse_cpulist
from stackaudit.facts.limits import ResourceLimits, parse_limits
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.host.base import Host, NotCaptured, read_text
from stackaudit.host.confined import normalise

# The engines' keys (processes, ServingLog.engine, facts/engine_command.STATED_ENGINE_WORDS) in a message's words.
ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "lmdeploy": "LMDeploy", "tgi": "TGI",
                "llamacpp": "llama.cpp", "ollama": "ollama", "triton": "Triton", "textgen": "text-generation-webui",
                "ktransformers": "KTransformers", "lightllm": "LightLLM", "fastchat": "FastChat's model_worker",
                "exllama": "ExLlama"}
# A worker's rank in its process title (`VLLM::Worker_TP1`, `sglang::scheduler_TP3`).
_RANK_IN_TITLE = re.compile(r"(?:TP|_TP|Worker_TP|rank)(\d+)", re.I)
# Roles: api-server (HTTP front end, holds the flags), engine-core, worker, scheduler,
# detokenizer, launcher (mpirun / trtllm-llmapi-launch), coordinator, helper, "" (unknown child).

# Flags that name a config file whose keys stand for command-line flags.
CONFIG_FLAGS = {
    "vllm": ("--config",),
    "sglang": ("--config",),
    "trtllm": ("--extra_llm_api_options", "--extra-llm-api-options", "--config"),
}
_MAX_ANCESTRY = 6  # how far up the tree an untitled child is followed to find its engine


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
    # The CPUs it may run on (`Cpus_allowed_list` of its status, parsed once); None: not in the source.
    cpus_allowed: tuple[int, ...] | None = None
    engine: str = ""  # "vllm" | "sglang" | "trtllm" | ""
    role: str = ""  # one of the roles above
    # Where `environ` comes from when not from this process itself: the pid of the ancestor whose
    # environment block was read because this one's was overwritten by its process title.
    environ_from: int | None = None
    # The top process of this engine instance (API server or launcher); itself for the top one.
    root_pid: int | None = None
    # The config file named by --config / --extra_llm_api_options, and its top-level keys.
    config_path: str = ""
    config: dict[str, str] = field(default_factory=dict)
    # Why `environ` is None: "permission denied" (run as root) or "overwritten by the process title".
    environ_note: str = ""
    # The real user ID (`Uid:` of its status); None when the source does not show it.
    uid: int | None = None
    # True when it runs as another user than the audit's (named as such in its label).
    other_user: bool = False
    # True for the audit's own process (ServingProcesses.current): what an engine started here would inherit.
    own: bool = False

    def env(self, name: str) -> str | None:
        return None if self.environ is None else self.environ.get(name)

    @property
    def visible_devices(self) -> list[str] | None:
        """CUDA_VISIBLE_DEVICES as a list (`0, 1` -> ["0", "1"]); None where it is not set or empty."""
        return cuda_visible_entries(self.env("CUDA_VISIBLE_DEVICES")) or None

    @property
    def rank_gpu(self) -> int:
        """The GPU index a worker drives: the rank in its title (`VLLM::Worker_TP1`) through visible_devices."""
        m = _RANK_IN_TITLE.search(self.argv[0] if self.argv else "")
        rank, cvd = int(m.group(1)) if m else 0, self.visible_devices
        return int(cvd[rank]) if cvd and rank < len(cvd) and cvd[rank].isdecimal() else rank

    @property
    def flag_argv(self) -> tuple[str, ...]:
        """argv as the engine's parser reads it: vLLM's FlexibleArgumentParser turns `--a_b[=v]` into
        `--a-b[=v]` (so `--enforce_eager` is `--enforce-eager`); other engines' argv as it is."""
        if self.engine != "vllm":
            return self.argv
        out = []
        for arg in self.argv:
            if arg.startswith("--") and "_" in arg.partition("=")[0]:
                key, eq, value = arg.partition("=")
                arg = "--" + key[2:].replace("_", "-") + eq + value
            out.append(arg)
        return tuple(out)

    def flag(self, *names: str) -> str | None:
        """Value of the last `--name value` / `--name=value` in argv; "" for a bare flag."""
        value: str | None = None
        argv = self.flag_argv
        for i, arg in enumerate(argv):
            for name in names:
                if arg == name:
                    nxt = argv[i + 1] if i + 1 < len(argv) else ""
                    value = "" if nxt.startswith("--") else nxt
                elif arg.startswith(name + "="):
                    value = arg[len(name) + 1:]
        return value

    def has_flag(self, *names: str) -> bool:
        return self.flag(*names) is not None

    def option(self, *names: str) -> str | None:
        """A setting from argv, else from the config file (keys with `_` or `-`, no leading dashes)."""
        value = self.flag(*names)
        if value is not None:
            return value
        for name in names:
            key = name.lstrip("-").replace("-", "_")
            if key in self.config:
                return self.config[key]
        return None

    @property
    def label(self) -> str:
        """`pid 4101 (vLLM api-server)` for messages; `this shell` for the audit's own process, which is
        gone before anyone reads the report (no PID of it is ever shown)."""
        if self.own:
            return "this shell"
        what = " ".join(x for x in (ENGINE_NAMES.get(self.engine, self.engine), self.role) if x)
        owner = f"; user {self.uid}, not the audit's" if self.other_user else ""
        return f"pid {self.pid} ({what or self.comm or 'process'}{owner})"


@dataclass(frozen=True)
class ServingProcesses:
    processes: tuple[ProcessInfo, ...]
    # The audit's own process: what the runtime checks read where no engine runs (and say so).
    current: ProcessInfo | None = None
    unreadable_pids: tuple[int, ...] = ()
    # False: the source (a pasted `ulimit -a` ...) shows no process list, only `current` (its shell).
    listed: bool = True
    # `audit --pid PID`: the engine instance the user chose (0: none chosen, every engine found is read).
    chosen_pid: int = 0

    @property
    def found(self) -> bool:
        return bool(self.processes)

    def engines(self) -> set[str]:
        return {p.engine for p in self.processes if p.engine}

    def by_engine(self, engine: str) -> list[ProcessInfo]:
        return [p for p in self.processes if p.engine == engine]

    def roots(self, engine: str = "") -> list[ProcessInfo]:
        """The top process of each engine instance (where the flags are)."""
        return [p for p in self.processes if p.root_pid == p.pid and (not engine or p.engine == engine)]

    def instance(self, root: ProcessInfo) -> list[ProcessInfo]:
        """Every process of the engine instance `root` heads."""
        return [p for p in self.processes if p.root_pid == root.pid]


# --- parsers ---------------------------------------------------------------------------------


def parse_cmdline_bytes(data: bytes) -> tuple[str, ...]:
    """/proc/<pid>/cmdline: NUL-separated argv; a process title may be padded with NULs or spaces."""
    text = data.decode("utf-8", errors="replace")
    items = text.split("\x00")
    while items and not items[-1].strip():
        items.pop()
    if len(items) == 1:
        # A setproctitle title ("VLLM::EngineCore") may be followed by space padding.
        items = [items[0].rstrip()]
    return tuple(items)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")


def parse_environ(data: bytes | str) -> dict[str, str]:
    """/proc/<pid>/environ: NUL-separated NAME=value entries; anything else is skipped."""
    out: dict[str, str] = {}
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    for entry in text.split("\x00"):
        name, eq, value = entry.partition("=")
        if eq and _ENV_NAME.match(name):
            out[name] = value
    return out


def parse_stat_ppid(text: str) -> tuple[str, int]:
    """(comm, ppid) from /proc/<pid>/stat; comm may hold spaces and parentheses."""
    open_, close = text.find("("), text.rfind(")")
    if open_ < 0 or close < open_:
        raise ParseError("not a /proc/<pid>/stat line")
    rest = text[close + 1:].split()
    if len(rest) < 2 or not rest[1].isdecimal():
        raise ParseError("not a /proc/<pid>/stat line")
    return text[open_ + 1:close], int(rest[1])


def cpus_allowed(status: dict[str, str]) -> tuple[int, ...] | None:
    """`Cpus_allowed_list` of a parsed /proc/<pid>/status (`0-15,32-47`) as CPU numbers; None when
    the status lacks it or it is malformed (proc(5): the list form of the Cpus_allowed mask)."""
    text = status.get("Cpus_allowed_list")
    if text is None:
        return None
    try:
        return parse_cpulist(text) or None
    except ParseError:
        return None


def status_uid(status: dict[str, str]) -> int | None:
    """The real user ID, the first field of `Uid:` in a parsed /proc/<pid>/status; None when absent."""
    first = status.get("Uid", "").split()[:1]
    return int(first[0]) if first and first[0].isdecimal() else None


def parse_status(text: str) -> dict[str, str]:
    """/proc/<pid>/status `Key:\tvalue` lines."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key and " " not in key:
            out[key] = value.strip()
    return out


def parse_flat_yaml(text: str) -> dict[str, str]:
    """Top-level `key: value` pairs of a YAML config (nested blocks give their key the value "{...}";
    `key:` followed by nothing is "null"). Keys normalised to underscores. Enough for the flags the
    checks read; not a YAML parser."""
    out: dict[str, str] = {}
    lines = textwrap.dedent(text).splitlines()  # a file pasted indented as a whole (corpus 837)
    for i, line in enumerate(lines):
        if not line or line[0] in " \t#-" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        key = key.strip().strip("'\"").replace("-", "_")
        value = value.split(" #", 1)[0].strip().strip("'\"")
        if not value:
            nxt = next((ln for ln in lines[i + 1:] if ln.strip() and not ln.lstrip().startswith("#")), "")
            value = "{...}" if nxt[:1] in (" ", "\t", "-") else "null"
        if key:
            out[key] = value
    return out


# --- recognising engines from argv -----------------------------------------------------------

_PY = re.compile(r"python(\d+(\.\d+)?)?[mtd]?\Z")
_TITLE = re.compile(r"(?P<prefix>[A-Za-z0-9_.-]+)::(?P<name>\S+)")
_VLLM_TITLES = (("EngineCore", "engine-core"), ("Worker", "worker"), ("APIServer", "api-server"),
                ("DPCoordinator", "coordinator"))
_SGLANG_TITLES = (("scheduler", "scheduler"), ("semi_pd_scheduler", "scheduler"), ("gpu_worker", "worker"),
                  ("detokenizer", "detokenizer"), ("data_parallel_controller", "coordinator"),
                  ("tokenizer_worker", "api-server"))
# Python options that take a value (so the next argv item is not the program).
_PY_OPTS_WITH_VALUE = ("-X", "-W", "-Q")


@dataclass(frozen=True)
class _Match:
    engine: str  # "" = belongs to whatever engine it descends from
    role: str
    needs_parent: bool = False  # only an engine process when an ancestor is one


def _python_program(argv: tuple[str, ...]) -> tuple[str, str, list[str]]:
    """For a Python command line: ("module"|"code"|"script", what, rest of argv)."""
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "-m" and i + 1 < len(argv):
            return "module", argv[i + 1], list(argv[i + 2:])
        if arg.startswith("-m") and len(arg) > 2:
            return "module", arg[2:], list(argv[i + 1:])
        if arg == "-c" and i + 1 < len(argv):
            return "code", argv[i + 1], list(argv[i + 2:])
        if arg in _PY_OPTS_WITH_VALUE:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return "script", arg, list(argv[i + 1:])
    return "", "", []


# SGLang's offline benchmarks run the engine in their own process with the server's options (ServerArgs); the
# first is bench_one_batch's name before v0.4 (sgl-project/sglang#1509). `sglang.bench_serving` is a client.
_SGLANG_IN_PROCESS_BENCHES = ("sglang.bench_one_batch", "sglang.bench_latency", "sglang.bench_offline_throughput")


# Flags of vLLM's engine arguments that no other server's `api_server.py` takes (SGLang, LightLLM, FastChat and TGI
# name theirs otherwise): `usage: api_server.py [...] [--worker-use-ray] [...] [--gpu-memory-utilization ...]
# [--max-num-seqs ...] [--enforce-eager]` (vllm#2915, vLLM 0.3.1).
VLLM_ONLY_FLAGS = ("--enforce-eager", "--worker-use-ray", "--engine-use-ray", "--distributed-executor-backend",
                   "--gpu-memory-utilization", "--max-num-seqs")


# RL trainers' rollout servers: vLLM's OpenAI server in their own process, with vLLM's own engine arguments and routes
# that take the trainer's weights over an NCCL communicator (PyNcclCommunicator) joining the server's GPUs to the
# trainer's: verifiers' `vf-vllm` (PrimeIntellect-ai/verifiers, verifiers/inference/vllm_server.py; `CUDA_VISIBLE_DEVICES=0
# vf-vllm --model M --tensor-parallel-size 1`, verifiers#139 and #181, corpus 2617, 2618). A server on one GPU still
# moves data to another GPU (parallelism.one_gpu_commands).
WEIGHT_SYNC_SERVERS = frozenset(("vf-vllm",))


# The engines of `dynamo run out=ENGINE` (dynamo-run's usage: `out=echo_core|echo_full|mistralrs|llamacpp|sglang|vllm|dyn
# ... [--tensor-parallel-size=1] [--num-nodes=1]`) whose flags are read here as the engine's.
# https://docs.nvidia.com/dynamo/archive/0.3.2/guides/dynamo_run.html
DYNAMO_OUT_ENGINES = {"vllm": "vllm", "sglang": "sglang"}


def _program(name: str, rest: list[str]) -> _Match | None:
    """An engine console script (or binary) and its first argument."""
    base = posixpath.basename(name)
    first = rest[0] if rest else ""
    if base == "vllm" and first == "serve":
        return _Match("vllm", "api-server")
    if base == "vllm" and first == "bench" and rest[1:2] in (["latency"], ["throughput"]):
        # `vllm bench throughput --tensor-parallel-size 4 ...`: the LLM engine in-process (`bench serve` is a client).
        return _Match("vllm", "api-server")
    if base == "sglang" and first == "serve":
        return _Match("sglang", "api-server")
    if base == "trtllm-serve":
        return _Match("trtllm", "api-server")
    if base == "trtllm-bench" and ("throughput" in rest or "latency" in rest):
        # `trtllm-bench --model M throughput ...`: runs the LLM API in-process and holds its options.
        return _Match("trtllm", "api-server")
    if base == "lmdeploy" and first == "serve" and rest[1:2] in (["api_server"], ["gradio"]):
        # `lmdeploy serve api_server MODEL --tp 4` (lmdeploy/cli/serve.py): TurboMind or its PyTorch engine; its
        # `serve proxy` is a router that holds no GPU.
        return _Match("lmdeploy", "api-server")
    if base == "lmdeploy" and first == "chat" and len(rest) > 1 and not rest[1].startswith("-"):
        # `lmdeploy chat turbomind ./workspace` (lmdeploy 0.1-0.2: the backend, then the model) or `lmdeploy chat MODEL
        # --backend turbomind --tp 2` (lmdeploy/cli/cli.py): an interactive chat that runs the engine in its own process
        # (InternLM/lmdeploy#1130, #1001), as the server does.
        return _Match("lmdeploy", "api-server")
    if base == "aphrodite" and first == "run":
        # PygmalionAI's Aphrodite engine (`aphrodite run MODEL -tp 2 --enforce-eager`): a fork of vLLM whose engine
        # arguments are vLLM's (aphrodite/engine/args_tools.py), CUDA graphs and custom all-reduce included.
        return _Match("vllm", "api-server")
    if (base == "dynamo" and first == "run") or base == "dynamo-run":
        # NVIDIA Dynamo's launcher before 0.4 (`dynamo run out=vllm --model-path M --tensor-parallel-size=8`, ai-dynamo/
        # dynamo#787): the engine that `out=` names runs under it with the launcher's flags (DYNAMO_OUT_ENGINES).
        out = next((a.split("=", 1)[1] for a in rest if a.startswith("out=")), "")
        return _Match(DYNAMO_OUT_ENGINES[out], "api-server") if out in DYNAMO_OUT_ENGINES else None
    if base == "api_server.py" and any(a.split("=", 1)[0] in VLLM_ONLY_FLAGS for a in rest):
        # vLLM's entrypoint run as a script (a copy, or from its directory): its usage line names `api_server.py`
        # (vllm#2915, vllm#3476), and the flags only vLLM's engine arguments take say whose it is; its release is
        # not shown.
        return _Match("vllm", "api-server")
    if base in VLLM_BENCH_SCRIPTS and any(a.split("=", 1)[0] in VLLM_BENCH_FLAGS for a in rest) \
            and (argv_value(rest, ("--backend",)) or "vllm") == "vllm":
        # vLLM's benchmarks/benchmark_throughput.py and benchmark_latency.py (before `vllm bench`): the LLM engine
        # in-process, built from vLLM's engine arguments (EngineArgs.add_cli_args); `--backend hf` runs transformers.
        return _Match("vllm", "api-server")
    if base == "launch_server.py" and posixpath.basename(posixpath.dirname(name)) == "sglang":
        # SGLang's python/sglang/launch_server.py run as a script from its package directory (`pm2 start
        # .../site-packages/sglang/launch_server.py -- --model-path M`, sgl-project/sglang#958): the module
        # `python -m sglang.launch_server` runs.
        return _Match("sglang", "api-server")
    if base in WEIGHT_SYNC_SERVERS:
        # A program that runs vLLM's OpenAI server with vLLM's own engine arguments (WEIGHT_SYNC_SERVERS).
        return _Match("vllm", "api-server")
    if base == "server_vllm.py":
        # MeetKai/functionary's OpenAI server: vLLM's engine in-process, its flags vLLM's (AsyncEngineArgs.add_cli_args).
        return _Match("vllm", "api-server")
    if base == "trtllm-llmapi-launch":
        return _Match("trtllm", "launcher")
    if base in ("tritonserver", "trtserver") and any(a.startswith(("--model-repo", "--model-store")) for a in rest):
        # Triton Inference Server over its model repository (`trtserver` before 20.06, server#1567; `tritonserver
        # --model-repository=/models`, or `--model-repo=`, a prefix its getopt_long parser takes for the option;
        # corpus 2153): each model runs in the backend its config names, one instance per GPU of its
        # instance_group, unless a backend starts ranks of its own (TensorRT-LLM's, whose log names it).
        return _Match("triton", "api-server")
    if base in (*TRTLLM_EXAMPLES, *TRTLLM_BENCHMARKS) and _engine_dir(rest):
        # TensorRT-LLM's examples/run.py: it runs the engine built into --engine_dir (0.9-0.12 READMEs); its C++
        # benchmarks run one the same way.
        return _Match("trtllm", "api-server")
    return None


# vLLM's benchmark scripts before `vllm bench` (https://github.com/vllm-project/vllm/tree/v0.4.2/benchmarks), and the
# flags of vLLM's engine arguments that say the script is vLLM's (VLLM_ONLY_FLAGS, and the TP size it passes on).
VLLM_BENCH_SCRIPTS = ("benchmark_throughput.py", "benchmark_latency.py")
VLLM_BENCH_FLAGS = (*VLLM_ONLY_FLAGS, "--tensor-parallel-size", "-tp")


# TensorRT-LLM's example scripts that run a built engine (`--engine_dir DIR`): examples/run.py and
# examples/summarize.py (`--test_trt_llm`), https://github.com/NVIDIA/TensorRT-LLM/tree/v0.9.0/examples.
TRTLLM_EXAMPLES = ("run.py", "summarize.py")
# TensorRT-LLM's C++ benchmarks of a built engine (`--engine_dir DIR`, benchmarks/cpp/README.md of 0.5-0.12): the
# batch manager's (in-flight batching) and the session's.
TRTLLM_BENCHMARKS = ("gptManagerBenchmark", "gptSessionBenchmark")
# The launchers that start their program as several ranks (MPI's `mpirun` / `mpiexec` and Open MPI's names for it,
# Slurm's `srun`), each with the options that give the number of ranks: Open MPI's `-c, -n, --n, -np <#>`
# (https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html), MPICH's `-n` / `-np`, and srun's `-n, --ntasks`
# (https://slurm.schedmd.com/srun.html, where `-c` counts CPUs per task, not ranks).
_MPI_RANKS = ("-n", "--n", "-np", "--np", "-c")
RANK_LAUNCHERS: dict[str, tuple[str, ...]] = {"mpirun": _MPI_RANKS, "mpiexec": _MPI_RANKS, "orterun": _MPI_RANKS,
                                              "prterun": _MPI_RANKS, "srun": ("-n", "--ntasks")}


def launcher_ranks(words: list[str] | tuple[str, ...]) -> int | None:
    """The number of ranks a launcher's own words give (RANK_LAUNCHERS' options: `mpirun -np 8`, `srun --ntasks=8`),
    read from its first option that counts them with a number; None where the first word is no launcher or no such option has a
    number. Pass only the launcher's words, not its program's: a program may have a `-n` of its own."""
    return _first_count(words, RANK_LAUNCHERS.get(posixpath.basename(words[0]), ()) if words else ())


def _first_count(words: list[str] | tuple[str, ...], options: tuple[str, ...]) -> int | None:
    """The number the first of `options` among the words gives (`-np 8`, `--ntasks=8`), None where none gives one."""
    for k in range(1, len(words)):
        name, eq, value = words[k].partition("=")
        given = (value if eq else (words[k + 1] if k + 1 < len(words) else "")) if name in options else ""
        if given.isdecimal() and len(given) <= 6:
            return int(given)
    return None


# Open MPI's and MPICH's host lists (`-H IP1:8,IP2:8`: each host with its slots, one slot where it names none) and
# host files, whose slots the words do not show.
_MPI_HOSTS = ("-H", "--host", "-host", "-hosts", "--hosts")
_MPI_HOSTFILES = ("-hostfile", "--hostfile", "-machinefile", "--machinefile", "-f", "--default-hostfile")


def launcher_ranks_per_host(words: list[str] | tuple[str, ...]) -> int | None:
    """The most ranks an MPI launcher's words place on one host (RANK_LAUNCHERS' MPI names): the largest slot count of
    its host list (`-H IP1:8,IP2:8`: 8), else, with no host file, every rank it starts (`mpirun -np 4`: this host);
    None where the first word is no MPI launcher, a host file holds the slots, or no count is given."""
    if not words or RANK_LAUNCHERS.get(posixpath.basename(words[0])) is not _MPI_RANKS:
        return None
    for k in range(1, len(words)):
        name, eq, value = words[k].partition("=")
        given = value if eq else (words[k + 1] if k + 1 < len(words) else "")
        if name in _MPI_HOSTFILES:
            return None
        if name in _MPI_HOSTS and given:
            slots = [h.rpartition(":")[2] if ":" in h else "1" for h in given.split(",")]
            return max(int(n) for n in slots) if all(n.isdecimal() and len(n) <= 6 for n in slots) else None
    return launcher_ranks(words)


# The options that give the ranks a launcher starts on each node: Slurm's srun `--ntasks-per-node`
# (https://slurm.schedmd.com/srun.html), Open MPI's `--npernode` / `-npernode` and MPICH's `-ppn`.
_PER_NODE = {"srun": ("--ntasks-per-node",), "mpirun": ("--npernode", "-npernode", "-ppn", "--ppn"),
             "mpiexec": ("--npernode", "-npernode", "-ppn", "--ppn")}


def launcher_ranks_per_node(words: list[str] | tuple[str, ...]) -> int | None:
    """The ranks a launcher's own words put on each node (_PER_NODE: `srun -N 2 --ntasks 2 --ntasks-per-node=1`: 1),
    None where the first word is no such launcher or no such option has a number. Pass only the launcher's words."""
    return _first_count(words, _PER_NODE.get(posixpath.basename(words[0]), ()) if words else ())


def _engine_dir(args: list[str] | tuple[str, ...]) -> bool:
    """Whether the arguments name a built TensorRT-LLM engine (`--engine_dir DIR`)."""
    return any(a == "--engine_dir" or a.startswith("--engine_dir=") for a in args)


def classify(argv: tuple[str, ...]) -> _Match | None:
    """Which engine process (if any) a command line is."""
    if not argv or not argv[0]:
        return None
    first = argv[0]
    title = _TITLE.match(first)
    if title and "/" not in first.split("::", 1)[0]:
        prefix, name = title.group("prefix"), title.group("name")
        if prefix == "sglang":
            for start, role in _SGLANG_TITLES:
                if name.startswith(start):
                    return _Match("sglang", role)
            return _Match("sglang", "helper")
        if prefix == "ray" and name.startswith("RayWorkerWrapper"):
            return _Match("vllm", "worker")
        for start, role in _VLLM_TITLES:
            if name.startswith(start):
                # VLLM_PROCESS_NAME_PREFIX may change "VLLM": trust other prefixes only under vLLM.
                return _Match("vllm", role, needs_parent=prefix != "VLLM")
        return None
    if first.startswith("VllmWorker"):
        return _Match("vllm", "worker")
    base = posixpath.basename(first)
    if base in RANK_LAUNCHERS:
        if any(posixpath.basename(a) in ("trtllm-serve", "trtllm-llmapi-launch") or "tensorrt_llm" in a
               for a in argv[1:]) or (any(posixpath.basename(a) in (*TRTLLM_EXAMPLES, *TRTLLM_BENCHMARKS) for a in argv[1:])
                                and _engine_dir(argv[1:])):
            return _Match("trtllm", "launcher")
        return None
    if not _PY.match(base):
        return _program(first, list(argv[1:]))
    kind, what, rest = _python_program(argv)
    if kind == "module":
        if what in ("vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server",
                    "aphrodite.endpoints.openai.api_server"):  # Aphrodite before `aphrodite run` (_program)
            return _Match("vllm", "api-server")
        if what == "vllm.entrypoints.cli.main" and rest[:1] == ["serve"]:
            return _Match("vllm", "api-server")
        if what in ("sglang.launch_server", "sglang.srt.entrypoints.http_server"):
            return _Match("sglang", "api-server")
        if what in _SGLANG_IN_PROCESS_BENCHES:
            # `python -m sglang.bench_one_batch --tp 2 ...`: the engine in-process, with the server's options.
            return _Match("sglang", "api-server")
        if what == "vllm.entrypoints.cli.main" and rest[:1] == ["bench"] and rest[1:2] in (["latency"], ["throughput"]):
            return _Match("vllm", "api-server")
        if what == "sglang.cli.main" and rest[:1] == ["serve"]:
            return _Match("sglang", "api-server")
        if what in ("tensorrt_llm.commands.serve",):
            return _Match("trtllm", "api-server")
        if what == "mpi4py.futures.server":
            return _Match("", "worker", needs_parent=True)
        return None
    if kind == "code":
        if "multiprocessing.resource_tracker" in what or "multiprocessing.forkserver" in what:
            return _Match("", "helper", needs_parent=True)
        if "multiprocessing.spawn" in what or "--multiprocessing-fork" in rest:
            return _Match("", "", needs_parent=True)
        return None
    if kind == "script":
        return _program(what, rest)
    return None


# --- reading /proc ---------------------------------------------------------------------------


def process_path(host: Host, pid: int, path: str) -> str | None:
    """`path` as the process sees it: through /proc/<pid>/root where the source exposes it (a
    process in another container has its own filesystem), else `path` itself. None when that
    root is not readable (another user's process without root), or the path is not a path.

    The path is data the process chose: normalised here (no `..` climbs out of the root, no NUL),
    and the host reads it confined to that root with that process's user's rights (host/live.py).
    """
    if path:  # "" asks for the prefix alone (python_env joins its own paths to it)
        try:
            path = normalise(path)
        except ValueError:
            return None
    base = f"/proc/{pid}/root"
    try:
        host.list_dir(base)
    except PermissionError:
        return None
    except (OSError, NotCaptured):
        return path
    return base + ("" if path == "/" else path)


def process_file_path(host: Host, pid: int, path: str) -> str | None:
    """A path named by a process (absolute, or relative to its working directory), normalised, as
    `process_path` gives it; None when it cannot be placed."""
    if not path.startswith("/"):
        try:
            cwd = host.readlink(f"/proc/{pid}/cwd")
        except (OSError, NotCaptured):
            return None
        path = posixpath.join(cwd, path)
    return process_path(host, pid, path)


def _read(host: Host, path: str) -> bytes | None:
    """Bytes of a /proc file; None when the process is gone. PermissionError propagates."""
    try:
        return host.read_bytes(path)
    except (FileNotFoundError, ProcessLookupError, NotCaptured):
        return None
    except PermissionError:
        raise
    except OSError:
        return None


def _process_details(host: Host, pid: int, argv: tuple[str, ...], engine: str, role: str,
                     ppid: int | None, comm: str, base: str = "") -> tuple[ProcessInfo, bool]:
    """Read environ, limits and status of one process; (info, environ overwritten by a title)."""
    base = base or f"/proc/{pid}"
    environ: dict[str, str] | None
    clobbered = False
    note = ""
    try:
        raw = _read(host, f"{base}/environ")
        environ = parse_environ(raw) if raw is not None else None
        if raw is None:
            note = "not readable (the process ended, or the source does not hold it)"
        if environ is not None and not environ and (b"\x00" in (raw or b"") or _TITLE.match(argv[0] if argv else "")):
            clobbered = True
    except PermissionError:
        environ = None
        note = "permission denied (another user's process: run as root)"
    limits: dict[str, tuple[str, str]] | None = None
    try:
        text = _read(host, f"{base}/limits")
        if text is not None:
            limits = dict(parse_limits(text.decode("utf-8", errors="replace")).values)
    except (PermissionError, ParseError):
        limits = None
    try:
        status_raw = _read(host, f"{base}/status")
        status = parse_status(status_raw.decode("utf-8", errors="replace")) if status_raw else {}
    except PermissionError:
        status = {}
    info = ProcessInfo(pid=pid, ppid=ppid, comm=comm or status.get("Name", ""), argv=argv, environ=environ,
                       limits=limits, status=status, cpus_allowed=cpus_allowed(status), engine=engine, role=role,
                       environ_note=note, uid=status_uid(status))
    return info, clobbered


def _stat(host: Host, pid: int) -> tuple[str, int | None]:
    try:
        raw = _read(host, f"/proc/{pid}/stat")
    except PermissionError:
        return "", None
    if raw is None:
        return "", None
    try:
        comm, ppid = parse_stat_ppid(raw.decode("utf-8", errors="replace"))
    except ParseError:
        return "", None
    return comm, ppid


def _read_config(host: Host, proc: ProcessInfo) -> tuple[str, dict[str, str]]:
    """The config file a root process names (--config / --extra_llm_api_options), read as it sees it."""
    path = proc.flag(*CONFIG_FLAGS.get(proc.engine, ()))
    if not path:
        return "", {}
    if not path.startswith("/"):
        try:
            cwd = host.readlink(f"/proc/{proc.pid}/cwd")
        except (OSError, NotCaptured):
            return path, {}
        path = posixpath.join(cwd, path)
    try:
        path = normalise(path)
    except ValueError:
        return "", {}
    seen = process_path(host, proc.pid, path)
    if seen is None:
        return path, {}
    try:
        return path, parse_flat_yaml(read_text(host, seen, limit=256 * 1024))
    except (OSError, NotCaptured):
        return path, {}


def _current(host: Host) -> ProcessInfo | None:
    """The audit's own process (/proc/self): what an engine started from this shell would inherit."""
    try:
        raw = _read(host, "/proc/self/cmdline")
    except PermissionError:
        raw = None
    argv = parse_cmdline_bytes(raw) if raw else ()
    info, _ = _process_details(host, 0, argv, "", "", None, "", base="/proc/self")
    if info.environ is None and info.limits is None and not info.status and not argv:
        return None
    pid_text = info.status.get("Pid", "")
    return ProcessInfo(pid=int(pid_text) if pid_text.isdecimal() else 0, ppid=None, comm=info.status.get("Name", ""),
                       argv=argv, environ=info.environ, limits=info.limits, status=info.status,
                       cpus_allowed=info.cpus_allowed, uid=info.uid, own=True)


def _self_details(host: Host) -> ProcessInfo | None:
    try:
        return _current(host)
    except NotCaptured:
        return None


@provider("serving_processes", ServingProcesses)
def serving_processes(ctx: FactContext) -> ServingProcesses:
    """vLLM / SGLang / TensorRT-LLM processes: argv, environment, limits, status, role (/proc)."""
    host = ctx.host
    try:
        names = host.list_dir("/proc")
    except FileNotFoundError as exc:
        raise FactUnavailable("this source has no /proc") from exc
    except NotCaptured:
        # A pasted `ulimit -a` shows the shell's own limits but no process list.
        current = _self_details(host)
        if current is None:
            own = ctx.optional("self_limits", ResourceLimits)  # /proc/self/limits, else a pasted `ulimit -a`
            if own is None:
                raise
            current = ProcessInfo(pid=0, ppid=None, comm="", argv=(), limits=dict(own.values), own=True)
        return ServingProcesses((), current=current, listed=False)
    pids = sorted(int(n) for n in names if n.isdecimal())
    current = _self_details(host)
    argvs: dict[int, tuple[str, ...]] = {}
    matches: dict[int, _Match] = {}
    unreadable: list[int] = []
    for pid in pids:  # cmdline only: cheap for hundreds of processes
        try:
            raw = _read(host, f"/proc/{pid}/cmdline")
        except PermissionError:
            unreadable.append(pid)
            continue
        if not raw:
            continue  # kernel thread, zombie, or gone
        argv = parse_cmdline_bytes(raw)
        argvs[pid] = argv
        match = classify(argv)
        if match is not None:
            matches[pid] = match

    # ppid for the recognised processes; untitled children adopt the engine they descend from.
    stats: dict[int, tuple[str, int | None]] = {}

    def stat(pid: int) -> tuple[str, int | None]:
        if pid not in stats:
            stats[pid] = _stat(host, pid)
        return stats[pid]

    # The audit's own process and its ancestors (the shell, a `sudo`, a launcher) are never the engine.
    for pid in own_lineage(current, stat):
        matches.pop(pid, None)
    engine_of: dict[int, str] = {pid: m.engine for pid, m in matches.items() if m.engine and not m.needs_parent}
    anchor: dict[int, int] = {}  # adopted child -> the engine process it descends from
    for pid in sorted(matches):
        if pid in engine_of:
            continue
        ancestor = stat(pid)[1]
        for _ in range(_MAX_ANCESTRY):
            if ancestor is None or ancestor <= 1:
                break
            if ancestor in engine_of:
                wanted = matches[pid].engine
                if not wanted or wanted == engine_of[ancestor]:
                    engine_of[pid] = engine_of[ancestor]
                    anchor[pid] = ancestor
                break
            ancestor = stat(ancestor)[1]

    infos: dict[int, ProcessInfo] = {}
    clobbered: set[int] = set()
    for pid in sorted(engine_of):
        comm, ppid = stat(pid)
        role = matches[pid].role
        parent = matches.get(ppid) if ppid is not None else None
        if (ppid in engine_of and argvs.get(ppid) == argvs[pid] and parent is not None
                and parent.role == role):
            role = ""  # a forked copy of its parent that has not (yet) set a title
        try:
            info, was_clobbered = _process_details(host, pid, argvs[pid], engine_of[pid], role, ppid, comm)
        except NotCaptured:
            continue
        infos[pid] = info
        if was_clobbered:
            clobbered.add(pid)

    def root_of(pid: int) -> int:
        seen = {pid}
        cur = pid
        while True:
            ppid = infos[cur].ppid
            if ppid not in infos:
                ppid = anchor.get(cur)  # through an intermediate (an MPI daemon)
            if ppid is None or ppid not in infos or infos[ppid].engine != infos[cur].engine or ppid in seen:
                return cur
            seen.add(ppid)
            cur = ppid

    final: list[ProcessInfo] = []
    for pid in sorted(infos):
        info = infos[pid]
        changes: dict[str, object] = {"root_pid": root_of(pid)}
        if pid in clobbered:
            ancestor = info.ppid
            while ancestor is not None and ancestor in infos:
                if ancestor not in clobbered and infos[ancestor].environ is not None:
                    changes["environ"] = infos[ancestor].environ
                    changes["environ_from"] = ancestor
                    break
                ancestor = infos[ancestor].ppid
            else:
                changes["environ"] = None
                changes["environ_note"] = ("overwritten by the process title (setproctitle) and no parent "
                                           "engine process shows it")
        if changes["root_pid"] == pid:
            path, config = _read_config(host, info)
            changes["config_path"], changes["config"] = path, config
        final.append(_replace(info, changes))
    chosen = chosen_engine_pid(host)
    if chosen:
        final = _chosen_instance(final, chosen)
    # Run as root the audit is the box's administrator's, and every engine is the box's; run as a user, an
    # engine of another user (a tenant on a shared box) is named as such.
    own_uid = current.uid if current is not None and current.uid is not None else host.meta.uid
    if not chosen and own_uid > 0:
        final = [_replace(p, {"other_user": True}) if p.uid is not None and p.uid != own_uid else p for p in final]
    return ServingProcesses(tuple(final), current=current, unreadable_pids=tuple(unreadable), chosen_pid=chosen)


def chosen_engine_pid(host: Host) -> int:
    """The PID `audit --pid` chose as the engine (host.meta.extra["engine_pid"]); 0 when none was."""
    value = host.meta.extra.get("engine_pid", 0)
    return value if isinstance(value, int) and value > 0 else 0


def own_lineage(current: ProcessInfo | None, stat: Callable[[int], tuple[str, int | None]]) -> list[int]:
    """The audit's own PID and its ancestors' (parent shell, sudo, terminal), nearest first, up to
    the init process (never included)."""
    if current is None or current.pid <= 1:
        return []
    ppid_text = current.status.get("PPid", "")
    lineage = [current.pid]
    parent: int | None = int(ppid_text) if ppid_text.isdecimal() else stat(current.pid)[1]
    while parent is not None and parent > 1 and parent not in lineage and len(lineage) < 64:
        lineage.append(parent)
        parent = stat(parent)[1]
    return lineage


def _chosen_instance(found: list[ProcessInfo], chosen: int) -> list[ProcessInfo]:
    """The engine instance holding PID `chosen` (any of its processes); FactUnavailable when no engine
    process has that PID."""
    hit = next((p for p in found if p.pid == chosen), None)
    if hit is None:
        raise FactUnavailable(f"--pid {chosen}: no vLLM, SGLang or TensorRT-LLM process has this PID",
                              "`ps -eo pid,user,args` lists the processes; pass the engine's API server")
    return [p for p in found if p.root_pid == hit.root_pid]


def _replace(info: ProcessInfo, changes: dict[str, object]) -> ProcessInfo:
    from dataclasses import replace

    return replace(info, **changes)  # type: ignore[arg-type]
