"""Tensor, pipeline and data parallel sizes of the serving engines: one vocabulary, every source.

Checks used to carry their own copies of the TP flags (three variants) and two different ways to
take the engine's TP size. The `parallelism` fact reads it once, from each source that shows it
(a union: every source that answers contributes its engines):

1. the running engine's argv, else the config file it names (`--config`; vLLM's YAML keys and
   TensorRT-LLM's `--extra_llm_api_options` are the long option names), per engine instance;
2. the command (`Path` + `Args`) of serving containers in `docker inspect`;
3. a pasted server log: vLLM's engine-config line (`tensor_parallel_size=8,
   pipeline_parallel_size=1`) or its `non-default args: {...}`, SGLang's
   `server_args=ServerArgs(... tp_size=8, ... dp_size=1 ...)`;
4. a pasted engine command line, else the config file it names where the paste shows that file.

Spellings accepted (vLLM `vllm serve --help`, SGLang `python -m sglang.launch_server --help`,
TensorRT-LLM `trtllm-serve --help`): `--tensor-parallel-size`, `-tp`, `--tp`, `--tp-size`, and the
same with `_` for `-`; `--pipeline-parallel-size`, `-pp`, `--pp`, `--pp-size`;
`--data-parallel-size`, `-dp`, `--dp`, `--dp-size`; `--name value` and `--name=value`. A size the
source does not give stays None; `tp_or_default` applies the engines' default of 1 where the
engine's own argv (a whole command line) does not name it.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from stackaudit.facts._parse import (
    TP_ENV,
    TP_FLAGS,
    argv_value,
    parallel_size,
    ranks_per_node,
    sizes_from_argv,
    sizes_unread,
    tp_spans_nodes,
)
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.processes import (
    WEIGHT_SYNC_SERVERS,
    ProcessInfo,
    ServingProcesses,
    launcher_ranks_per_node,
)
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, provider, union
from stackaudit.facts.serving_logs import NcclTestRuns, ServingLog

if TYPE_CHECKING:
    from stackaudit.facts.docker import DockerContainers
    from stackaudit.facts.engine_command import EngineCommand, EngineCommands, StatedEngines
    from stackaudit.facts.gpus import GpuInventory
    from stackaudit.facts.model_placement import ModelPlacements
    from stackaudit.facts.nvidia import NvidiaGpus
    from stackaudit.facts.ollama_cli import OllamaShown

# Config-file keys (top-level YAML/JSON keys stand for the long options, `_` or `-`).
TP_KEYS = ("tensor_parallel_size", "tp_size")
PP_KEYS = ("pipeline_parallel_size", "pp_size")
DP_KEYS = ("data_parallel_size", "dp_size")

ARGV = "argv"
CONFIG_FILE = "config file"
DOCKER = "container spec"  # a container's command: `docker inspect`, or a pasted docker run / compose / pod spec
LOG = "server log"
COMMAND = "pasted command line"


@dataclass(frozen=True)
class EngineParallelism:
    """One engine instance's sizes as one source shows them (None: the source does not say)."""

    engine: str  # vllm | sglang | trtllm | "" (a log that does not name it)
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    source: str = ARGV  # ARGV | CONFIG_FILE | DOCKER | LOG | COMMAND
    pid: int | None = None  # the engine's root process (ARGV, CONFIG_FILE)
    container: str = ""  # the container's id (DOCKER)
    spec: str = ""  # DOCKER: which spec showed the command ("docker inspect", "docker run", "compose", "kubernetes")
    unread: tuple[str, ...] = ()  # size flags with a value that is no count (_parse.sizes_unread): not the default

    @property
    def tp_or_default(self) -> int:
        """TP, or 1 (every engine's default) when the engine's command line does not set it."""
        return self.tp or 1

    @property
    def world_size(self) -> int:
        """GPUs one instance uses: TP x PP (data-parallel replicas not counted)."""
        return (self.tp or 1) * (self.pp or 1)


@dataclass(frozen=True, kw_only=True)
class Parallelism(Sourced):
    engines: tuple[EngineParallelism, ...] = ()

    @classmethod
    def union(cls, parts: list[Parallelism]) -> Parallelism:
        return cls(engines=tuple(e for p in parts for e in p.engines), complete=all(p.complete for p in parts))

    @property
    def running(self) -> tuple[EngineParallelism, ...]:
        """The engine instances of running processes (argv or their config file)."""
        return tuple(e for e in self.engines if e.source in (ARGV, CONFIG_FILE))

    @property
    def from_log(self) -> EngineParallelism | None:
        """The sizes a pasted server log prints, else those of a pasted engine command line."""
        return next((e for e in self.engines if e.source == LOG), None) or next(
            (e for e in self.engines if e.source == COMMAND), None)

    def pasted(self, engine: str) -> tuple[EngineParallelism, ...]:
        """The sizes of the pasted command lines that start `engine`, each with the config file it names where the
        paste shows it."""
        return tuple(e for e in self.engines if e.source == COMMAND and e.engine == engine)

    def for_pid(self, pid: int) -> EngineParallelism | None:
        return next((e for e in self.running if e.pid == pid), None)

    def for_container(self, container_id: str) -> EngineParallelism | None:
        return next((e for e in self.engines if e.source == DOCKER and e.container == container_id), None)

    def engines_shown(self, collect_env: CollectEnv | None = None) -> set[str]:
        """The engines the sources name: running, on a pasted command line, in a container, logging; with
        `collect_env`, also the engine whose environment report it is: check_env is SGLang's; PyTorch prints
        collect_env in vLLM's format too, so it names vLLM only with a vLLM version in it, or under vLLM's bug form
        (CollectEnv.vllm_form)."""
        engines = {e.engine for e in self.engines if e.engine}
        if collect_env is not None and (collect_env.tool == "sglang" or collect_env.vllm_version
                                        or collect_env.vllm_form):
            engines.add(collect_env.tool)
        return engines

    @property
    def shown_world_size(self) -> int | None:
        """The largest TP x PP any source shows (running, in a container spec, a log, a pasted command); None when
        none shows an engine's sizes. A job of more GPUs than its host has spans nodes (SGLang `--tp 16` over two
        nodes of eight)."""
        return max((e.world_size for e in self.engines if e.tp or e.pp), default=None)

    @property
    def max_world_size(self) -> int | None:
        """The largest TP x PP among the running engines; None when none runs."""
        return max((e.world_size for e in self.running), default=None)


# --- parsing -----------------------------------------------------------------------------------


def _from_config(config: dict[str, str], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        for spelling in (key, key.replace("_", "-")):
            if spelling in config:
                return parallel_size(config[spelling])
    return None


def from_process(proc: ProcessInfo) -> EngineParallelism:
    """One engine root: argv first (it overrides the config file), then the config file it names."""
    argv_sizes = sizes_from_argv(proc.argv)
    conf = tuple(_from_config(proc.config, keys) for keys in (TP_KEYS, PP_KEYS, DP_KEYS))
    tp, pp, dp = (a if a is not None else b for a, b in zip(argv_sizes, conf, strict=True))
    from_config = all(a is None for a in argv_sizes) and any(b is not None for b in conf)
    return EngineParallelism(proc.engine, tp, pp, dp, CONFIG_FILE if from_config else ARGV, proc.pid,
                             unread=sizes_unread(proc.argv))


# --- the fact ----------------------------------------------------------------------------------

fact("parallelism", Parallelism, combine=union,
     hint="paste the engine's start-up log (its engine-config / server_args line) or its command line")


@provider("parallelism", Parallelism, rank=10, title="the engine's command line and config file")
def parallelism_from_processes(ctx: FactContext) -> Parallelism:
    """TP/PP/DP of each running engine instance (argv, else its --config file)."""
    procs = ctx.fact("serving_processes", ServingProcesses)
    roots = procs.roots()
    if not roots:
        raise FactUnavailable("no serving engine is running")
    return Parallelism(engines=tuple(from_process(p) for p in roots))


@provider("parallelism", Parallelism, rank=20,
          title="serving containers' command (`docker inspect`, a pasted docker run / compose / pod spec)")
def parallelism_from_docker(ctx: FactContext) -> Parallelism:
    """TP/PP/DP of GPU / serving containers, from their command (Path + Args), else TP from the
    environment variable the engine reads it from (TP_ENV)."""
    from stackaudit.facts.docker import DockerContainers

    containers = ctx.fact("docker_containers", DockerContainers).gpu_or_serving
    if not containers:
        raise FactUnavailable("no GPU or serving container")
    engines = []
    for c in containers:
        tp, pp, dp = sizes_from_argv(c.argv)
        if tp is None:
            tp = next((size for name in TP_ENV if (size := parallel_size(c.env_value(name))) is not None), None)
        engines.append(EngineParallelism(c.engine, tp, pp, dp, DOCKER, container=c.id,
                                         spec=c.origin or "docker inspect", unread=sizes_unread(c.argv)))
    return Parallelism(engines=tuple(engines))


@provider("parallelism", Parallelism, rank=30, title="pasted server log")
def parallelism_from_log(ctx: FactContext) -> Parallelism:
    """TP/PP/DP a pasted vLLM / SGLang server log prints (engine-config or server_args line)."""
    log = ctx.fact("serving_log", ServingLog)
    if not (log.engine or log.tp_size or log.pp_size or log.dp_size):
        raise FactUnavailable("the log names no engine and no parallel size")
    return Parallelism(engines=(EngineParallelism(log.engine, log.tp_size, log.pp_size, log.dp_size, LOG),))


@provider("parallelism", Parallelism, rank=35, title="an engine's own message among the log's symptoms")
def parallelism_from_symptoms(ctx: FactContext) -> Parallelism:
    """The engine whose own message a symptom line is (facts/symptoms.ENGINE_SYMPTOMS: ollama 0.1.x's GPU probe, in Go's
    standard log format, which the serving-log reader does not take), with no parallel size; none where the serving
    log already names that engine."""
    from stackaudit.facts.symptoms import LogSymptoms

    log = ctx.optional("serving_log", ServingLog)
    engines = [e for e in ctx.fact("log_symptoms", LogSymptoms).engines() if log is None or log.engine != e]
    if not engines:
        raise FactUnavailable("no engine's own message among the symptoms that the serving log does not show")
    return Parallelism(engines=tuple(EngineParallelism(e, source=LOG) for e in engines))


@provider("parallelism", Parallelism, rank=40, title="pasted engine command line")
def parallelism_from_command(ctx: FactContext) -> Parallelism:
    """TP/PP/DP on a pasted engine command line (`vllm serve m --tensor-parallel-size 2`), else in the config file
    it names where the paste shows that file (TensorRT-LLM's `tensor_parallel_size` in the
    `--extra_llm_api_options` YAML)."""
    from stackaudit.facts.engine_command import EngineCommands

    commands = ctx.fact("engine_commands", EngineCommands).commands
    return Parallelism(engines=tuple(replace(from_process(c.as_process()), source=COMMAND, pid=None)
                                     for c in commands))


# --- the engine the runtime checks judge -------------------------------------------------------

# The engines whose custom all-reduce, placement and NIC use the runtime checks judge.
SERVING_ENGINES = ("vllm", "sglang")
# The TensorRT Inference Server's binary, Triton's name until its 20.06 release renamed it `tritonserver`.
TRT_SERVER = "trtserver"
# The flags that start an engine as one part of a job on several nodes or instances: the node rank and the address of
# rank 0 (SGLang, vLLM), vLLM's headless workers and data-parallel address, a KV-cache transfer between instances.
MULTI_NODE_FLAGS = ("--node-rank", "--headless", "--dist-init-addr", "--kv-transfer-config", "--disaggregation-mode",
                    "--data-parallel-address")


def multi_node_flags(procs: ServingProcesses | None) -> tuple[str, ...]:
    """The flags of the running vLLM/SGLang engines that show their job spans nodes or instances (`--nnodes 2`,
    MULTI_NODE_FLAGS), in words; () where none does. `--nnodes 1` is one node."""
    shown: list[str] = []
    for root in (p for p in procs.roots() if p.engine in SERVING_ENGINES) if procs is not None else ():
        shown.extend(_spanning_flags(root))
    return tuple(dict.fromkeys(shown))


def _spanning_flags(root: ProcessInfo) -> list[str]:
    """The flags of one engine command that show its job spans nodes or instances (multi_node_flags)."""
    nnodes = root.option("--nnodes")
    shown = [f"--nnodes {nnodes}"] if nnodes and nnodes.isdecimal() and int(nnodes) > 1 else []
    return shown + [f for f in MULTI_NODE_FLAGS if root.has_flag(f)]


@dataclass(frozen=True)
class ServingEngine:
    """The vLLM/SGLang engine and its TP size: the running engine's, else what a pasted log or command line says.

    Where no engine process is read, `shown` holds the flags a source still shows: a pasted command line, else
    a serving container's engine arguments (docker run, compose, a pod spec, `docker inspect`). A container whose
    command is a bare shell (`--entrypoint=bash`) or only holds it open (DockerContainer.session) shows none: the
    engine, if any, is typed inside it (corpus 1947)."""

    engine: str  # vllm | sglang | trtllm (a pasted log or command) | "" (nothing names it)
    tp: int | None  # the running engine's TP (1 where its argv does not set it); a log's or command's as shown
    process: ProcessInfo | None = None  # the running engine's root process
    command: ProcessInfo | None = None  # a pasted engine command line, as a process (pid 0)
    container: ProcessInfo | None = None  # a serving container's engine arguments, as a process (pid 0)
    pp: int | None = None  # with no engine process read: the PP size a pasted log or command line gives
    # The pasted command line goes on past what the paste shows (EngineCommand.cut: a last `\\`, a paste that ends
    # inside it): a flag it does not show may follow.
    command_cut: bool = False

    @property
    def shown(self) -> ProcessInfo | None:
        """The running engine's process, else a pasted command line, else a container's engine arguments."""
        return self.process or self.command or self.container

    @property
    def shown_tp(self) -> int | None:
        """The TP size; with no engine process read, the shown command's own, which picks the GPUs whose links
        matter where a cut matrix may not show the rest (a whole shell line that names no TP runs the default, 1;
        one whose TP flag carries a value not read, such as a `$TP` the paste does not set, is None: unknown; so is
        one the paste cuts before any TP flag, `... --port 7860 --downlo`, corpus 2022: its flag may follow)."""
        if self.process is None and self.shown is not None and self.tp is None:
            if self.shown is self.command and self.command_cut and argv_value(self.shown.argv, TP_FLAGS) is None:
                return None
            if self.shown is self.container and self.shown.argv and self.shown.argv[-1].rstrip().endswith("\\") \
                    and argv_value(self.shown.argv, TP_FLAGS) is None:
                # A container's shell script whose last line goes on (`--port 8000 \`) where the paste cuts the spec
                # (corpus 2579): a TP flag may follow.
                return None
            if self.shown.engine == "triton":
                # Triton's command names no TP: a model's backend holds it (TensorRT-LLM's engine, vLLM's config). The
                # TensorRT Inference Server before 20.06 (`trtserver`) had no such backend (TensorRT, TensorFlow, ONNX,
                # PyTorch): each model instance runs on the one GPU its instance_group gives it.
                return 1 if posixpath.basename(self.shown.argv[0]) == TRT_SERVER else None
            if self.shown.engine == "mlc":
                # MLC LLM's model library holds its shards, compiled in (`compile --overrides tensor_parallel_shards=N`)
                # or read from its mlc-chat-config.json: a command without its own override runs those (corpus 1824).
                return sizes_from_argv(self.shown.argv)[0]
            if self.shown.engine == "ktransformers":
                # KTransformers places a model's layers on the GPUs its optimize rules name (`cuda:0`, `cuda:1` in the
                # YAML of `--optimize_config_path`, engine_command.KTRANSFORMERS_FLAGS): no TP flag, and no count a
                # missing one defaults to.
                return None
            if self.shown.argv and re.fullmatch(r"xinference(?:-local|-supervisor|-worker)?",
                                                posixpath.basename(self.shown.argv[0])):
                # Xinference's server starts no model: each is launched later (its web UI, `xinference launch`) on the
                # GPUs that launch gives it (facts/model_placement.py), so its own command names no TP (corpus 2869).
                return None
            if self.shown.engine == "fastchat":
                # FastChat's model_worker places the model's layers over `--num-gpus` GPUs (1 by default) with
                # accelerate's device map (engine_command.FASTCHAT_WORKERS): a group of GPUs, no TP size.
                return 1 if argv_value(self.shown.argv, ("--num-gpus",)) in (None, "1") else None
            if self.shown.engine == "textgen":
                # text-generation-webui's loaders split the model's layers over the GPUs its `--gpu-split` or
                # `--gpu-memory` lists, or over every GPU it sees: no TP flag, and no count a missing one defaults to.
                return None
            from stackaudit.facts.engine_command import TRITON_LAUNCH_SCRIPT

            if self.shown.argv and posixpath.basename(self.shown.argv[0]) == TRITON_LAUNCH_SCRIPT:
                # tensorrtllm_backend's launcher runs `--world_size` ranks (1 by default) of an engine built before:
                # its TP x PP, which names no TP above one rank (corpus 1769).
                return 1 if argv_value(self.shown.argv, ("--world-size",)) in (None, "1") else None
            value = argv_value(self.shown.argv, TP_FLAGS)
            if value is None and self.shown.engine == "lmdeploy" and _lmdeploy_local_model(self.shown.argv):
                # A local directory may be a TurboMind workspace (`lmdeploy convert ... --dst-path ./workspace`), whose
                # config.ini holds the TP it was converted for: lmdeploy 0.2 ignores the command's own `tp` there
                # ("loading from workspace, ignore args ['cache_max_entry_count', 'tp']", InternLM/lmdeploy#1001).
                return None
            if value is None and self.shown.engine == "tgi":
                # TGI's launcher reads `--num-shard` from NUM_SHARD too (TP_ENV); without either it shards over the
                # devices its environment's CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES lists, which a command line
                # does not show; `--sharded false` is one shard (text-generation-launcher --help: "Setting it to
                # `false` deactivates `num_shard`").
                if (shards := next((self.shown.env(n) for n in TP_ENV if self.shown.env(n)), None)) is not None:
                    return parallel_size(shards)
                return 1 if (argv_value(self.shown.argv, ("--sharded",)) or "").lower() == "false" else None
            return 1 if value is None else parallel_size(value)
        return self.tp


# The backends LMDeploy's chat of 0.1-0.2 took before the model (`lmdeploy chat turbomind ./workspace`).
_LMDEPLOY_BACKENDS = ("turbomind", "torch", "pytorch")


def _lmdeploy_local_model(argv: tuple[str, ...]) -> bool:
    """Whether an lmdeploy command's model (the first word after its subcommands and backend, before any flag) is a
    local directory (`./workspace`, `/models/m`, `workspace`), not a Hugging Face id (`internlm/internlm2-chat-7b`)."""
    words = [a for a in itertools.takewhile(lambda a: not a.startswith("-"), argv[1:])
             if a not in ("serve", "api_server", "gradio", "chat", *_LMDEPLOY_BACKENDS)]
    if not words:
        return False
    model = words[0]
    return model.startswith(("/", ".", "~")) or "/" not in model.rstrip("/")


fact("serving_engine", ServingEngine)


@provider("serving_engine", ServingEngine,
          title="the running engine, else a pasted server log, engine command line or container spec")
def serving_engine(ctx: FactContext) -> ServingEngine:
    """The first running vLLM/SGLang root with its TP size; else the sizes a pasted log or command line gives."""
    from stackaudit.facts.docker import DockerContainers
    from stackaudit.facts.engine_command import GGML_ENGINES, EngineCommands

    procs = ctx.optional("serving_processes", ServingProcesses)
    parallelism = ctx.optional("parallelism", Parallelism)
    for root in (p for p in procs.roots() if p.engine in SERVING_ENGINES) if procs is not None else ():
        sizes = parallelism.for_pid(root.pid) if parallelism is not None else None
        return ServingEngine(root.engine, sizes.tp_or_default if sizes is not None else 1, root)
    logged = parallelism.from_log if parallelism is not None else None
    commands = ctx.optional("engine_commands", EngineCommands)
    containers = ctx.optional("docker_containers", DockerContainers)
    pasted = next((c for c in (commands.commands if commands is not None else ())
                   if c.engine not in (*GGML_ENGINES.values(), "ollama") and not c.builds), None)
    command = pasted.as_process() if pasted is not None else None
    container = next((ProcessInfo(pid=0, ppid=None, comm=f"container {c.label}", argv=c.argv, engine=c.engine,
                                  role="api-server", root_pid=0)
                      for c in (containers.containers if containers is not None else ())
                      if c.engine in SERVING_ENGINES and not c.session),  # a shell runs what is typed in it (corpus 1947)
                     None)
    return ServingEngine(logged.engine if logged is not None else "", logged.tp if logged is not None else None,
                         None, command, container, logged.pp if logged is not None else None,
                         command_cut=pasted is not None and pasted.cut)


def group_of_every_gpu(engine: ServingEngine, commands: EngineCommands | None, count: int | None,
                       containers: DockerContainers | None = None, tests: NcclTestRuns | None = None,
                       count_by_tests: bool = False, log: ServingLog | None = None,
                       stated: StatedEngines | None = None) -> str:
    """Why the engine's GPU group is every GPU of the host, in words; "" where the source does not show that.

    A host of `count` GPUs (two or more, a whole count) and either a pasted command line that sets no
    CUDA_VISIBLE_DEVICES with a TP x PP of `count`, or a llama.cpp server that splits its model over every GPU CUDA
    sees (EngineCommand.splits_over_every_gpu). Such a group has no placement to choose.
    Or a serving container given every GPU (DockerContainer.every_gpu) whose engine arguments run TP x PP of `count`
    (TGI's `--num-shard` of them too: one shard per GPU, corpus 248).
    A command over `--nnodes N` puts its ranks on N nodes (_parse.ranks_per_node): `count` ranks on each node is
    every GPU of the host (SGLang `--tp 16 --nnodes 2` on 8 GPUs), and TP x PP of `count` then is not.
    With no engine shown, a pasted test run whose GPUs (NcclTestRuns.group: its rank lines, mapped through a
    CUDA_VISIBLE_DEVICES on its command line) are all `count` of the host's is that group too (corpus 758:
    `CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ... all_reduce_perf -g 8` on eight GPUs), as a test run's group is judged
    like an engine's where a matrix is shown. Where `count` is the test run's own header (`count_by_tests`), the
    header lists only the devices the run opened (nccl-tests takes devices 0 to nGpus - 1 of those CUDA sees), so
    the run holds every GPU only where a CUDA_VISIBLE_DEVICES on its line names them (corpus 758); `-g 2` alone on
    a host of unshown size settles nothing (corpus 1764).
    With no command, process or container spec of the engine shown, the TP x PP a pasted log or the engine's build
    gives (TensorRT-LLM's `convert_checkpoint.py --tp_size 4`, corpus 1842) is its group's size: `count` of them is
    every GPU. So it is where the command shown is TensorRT-LLM's launch, which states no size of its own and runs
    the engine as built (`mpirun -n 4 tritonserver --model-repository=...`, corpus 1866). A llama.cpp log whose buffers sit on each of CUDA0 to CUDA`count - 1` (ServingLog.ggml_cuda_devices:
    `CUDA3 model buffer size`, corpus 1843) split its model over every GPU. Neither holds where a command shown sets
    CUDA_VISIBLE_DEVICES (the devices it names may not be the host's `count`, corpus 996).
    With nothing of the engine shown but the user's words, a sentence that runs TP over `count` GPUs (`TP with 10 x
    ADA 6000s ...`: StatedEngines.tp_gpus, corpus 2906) puts every one of them in the group.
    """
    if count is None or count < 2:
        return ""
    shown = engine.command
    if shown is not None and engine.process is None and shown.env("CUDA_VISIBLE_DEVICES") is None \
            and not sizes_unread(shown.argv):
        tp, pp, _ = sizes_from_argv(shown.argv)
        nnodes = argv_value(shown.argv, ("--nnodes",))
        per_node = ranks_per_node(shown.argv)
        runs = f"{_launcher(shown.argv)} runs TP {tp}" + (f" x PP {pp}" if pp else "")
        if per_node is not None and per_node == count:
            return f"{runs} over --nnodes {nnodes}: {per_node} ranks on each node, the host's {count} GPUs, with " \
                "no CUDA_VISIBLE_DEVICES"
        one_node = nnodes is None or nnodes.strip() == "1"  # a placeholder (`$(LWS_GROUP_SIZE)`) is not one node
        if one_node and (tp or 1) * (pp or 1) == count and tp is not None:
            return f"{runs} on the host's {count} GPUs, with no CUDA_VISIBLE_DEVICES"
    for c in containers.containers if containers is not None and engine.process is None and shown is None else ():
        # A serving container given every GPU (`--gpus all`, corpus 1052) whose engine arguments run TP x PP of them.
        if c.engine in (*SERVING_ENGINES, "tgi") and c.every_gpu and not sizes_unread(c.argv) \
                and argv_value(c.argv, ("--nnodes",)) in (None, "1"):
            tp, pp, _ = sizes_from_argv(c.argv)
            if tp is not None and tp * (pp or 1) == count:
                return f"the container {c.label} runs TP {tp}" + (f" x PP {pp}" if pp else "") \
                    + f" on every GPU it is given (all of them), the host's {count}"
    # A command that sets CUDA_VISIBLE_DEVICES names devices of its own, which may be more than `count` (corpus 996).
    narrowed = any(c.env and "CUDA_VISIBLE_DEVICES" in dict(c.env) for c in (commands.commands if commands else ()))
    # A TensorRT-LLM engine holds the TP x PP it was built with: the launch shown (`mpirun -n 4 tritonserver ...`,
    # corpus 1866) states no size of its own and runs the built one.
    built = shown is not None and engine.engine == "trtllm" and sizes_from_argv(shown.argv)[:2] == (None, None)
    if (shown is None or built) and engine.process is None and engine.container is None and engine.tp is not None \
            and engine.tp * (engine.pp or 1) == count and not narrowed:
        return f"the engine runs TP {engine.tp}" + (f" x PP {engine.pp}" if engine.pp else "") \
            + f" as the paste's log or build gives it, on the host's {count} GPUs"
    if stated is not None and stated.tp_gpus == count and shown is None and engine.process is None \
            and engine.container is None and engine.tp is None and commands is None and containers is None:
        return f"the user runs TP over {count} GPUs (`{stated.split[:100]}`), the host's {count}"
    buffers = log.ggml_cuda_devices if log is not None else ()
    if not narrowed and sorted(buffers) == sorted(f"CUDA{n}" for n in range(count)):
        return f"llama.cpp allocated its buffers on {', '.join(buffers)} (`{log.ggml_cuda_line[:80] if log else ''}`" \
            f"): every one of the host's {count} GPUs"
    split = next((c for c in (commands.commands if commands is not None else ()) if c.splits_over_every_gpu), None)
    if split is not None:
        mode = argv_value(split.argv, ("--split-mode", "-sm")) or "layer"
        return (f"{posixpath.basename(split.argv[0])} splits its model over every GPU CUDA sees (--split-mode {mode}, "
                f"no CUDA_VISIBLE_DEVICES or device list): the host's {count} GPUs")
    shown_engine = engine.engine or engine.tp is not None or shown is not None or engine.process is not None
    tested = tests.group(count) if tests is not None and not shown_engine else None
    named = tests is not None and all(t.visible is not None for t in tests.groups)
    if tested is not None and sorted(tested) == list(range(count)) and (named or not count_by_tests):
        return (f"the test run's group (its ranks on devices {', '.join(str(d) for d in tested)}) holds all the "
                f"host's {count} GPUs")
    return ""


# The most memory nvidia-smi shows on a GPU that runs no program: the driver's own context (10 MiB on a TITAN Xp at P8,
# corpus 1699; 8 MiB on an A100, Lightning-AI/pytorch-lightning#18950). A program's CUDA context alone takes hundreds.
IDLE_GPU_MIB = 64


def one_busy_gpu(nvidia: NvidiaGpus | None, count: int | None) -> str:
    """What shows the work runs on one GPU of several, in words; "" where the source does not show it.

    An nvidia-smi table of every GPU of the host (`count`, two or more) with each GPU's memory use and utilisation,
    where one GPU holds a program's memory (above IDLE_GPU_MIB) and every other GPU is idle: 0 % busy and at most
    IDLE_GPU_MIB, no program's context on it. The job shown is one process on one GPU (a script started without a
    distributed launcher, corpus 1699), so no GPU group exists to place. A table with a reading missing settles
    nothing.
    """
    if nvidia is None or count is None or count < 2 or len(nvidia.gpus) != count:
        return ""
    readings = [(g.index, g.memory_used_mib, g.utilization_gpu) for g in nvidia.gpus]
    if any(m is None or u is None for _, m, u in readings):
        return ""
    busy = [(i, m, u) for i, m, u in readings if (m or 0) > IDLE_GPU_MIB or (u or 0) > 0]
    if len(busy) != 1 or (busy[0][1] or 0) <= IDLE_GPU_MIB:
        return ""
    index, mib, util = busy[0]
    idle = [i for i, _, _ in readings if i != index]
    most = max(m or 0 for i, m, _ in readings if i != index)
    return (f"nvidia-smi shows GPU {index} at work ({mib:.0f} MiB, {util} %) and GPU(s) {', '.join(map(str, idle))} "
            f"idle (0 %, at most {most:.0f} MiB, no program's context): the job runs on one GPU of the {count}")


# The most GPUs one node's NVSwitch fabric joins where NCCL finds NVSwitch multicast (NVLS, Hopper and later): an
# HGX/DGX board of eight (H100, H200, H20, B200, B300); the four-GPU HGX boards join their GPUs by direct NVLinks,
# without NVSwitch (https://www.nvidia.com/en-us/data-center/hgx/), and an NVL72 tray holds four.
NVSWITCH_NODE_GPUS = 8


def nvswitch_node_of_every_gpu(log: ServingLog | None) -> str:
    """Why NCCL's communicator holds every GPU of its node, in words; "" where the log does not show that.

    NCCL puts NVSWITCH_NODE_GPUS ranks on one node (`localRanks 8`) and finds NVSwitch multicast on their GPUs
    (ServingLog.nvls_up): a node with NVLS is an NVSwitch board of eight GPUs, so eight local ranks are all of them
    (corpus 1074, a Ray job's communicator without a matrix or a GPU count)."""
    if log is None or log.local_ranks != NVSWITCH_NODE_GPUS or not log.nvls_up():
        return ""
    return (f"NCCL puts {log.local_ranks} ranks on one node (`localRanks {log.local_ranks}`) and finds NVSwitch multicast "
            f"(NVLS) on their GPUs: a node whose GPUs NCCL joins by NVLS is an NVSwitch board of {NVSWITCH_NODE_GPUS} "
            "GPUs, so the communicator holds all of them")


def _launcher(argv: tuple[str, ...]) -> str:
    """A command's program in words: `python3 -m sglang.launch_server`, `vllm serve`; a program that takes options
    only (TGI's `text-generation-launcher`), alone."""
    from stackaudit.facts.engine_command import TGI_PROGRAMS

    if argv and posixpath.basename(argv[0]) in TGI_PROGRAMS:
        return argv[0]
    return " ".join(argv[:3] if len(argv) > 2 and argv[1] == "-m" else argv[:2])


# A model's size in its name: `Meta-Llama-3.1-8B-Instruct`, `Qwen2.5-0.5B`, `Qwen3-30B-A3B` (the first is the whole
# model; `A3B` is its active part and `8x7B` an expert's size, neither read).
_NAME_BILLIONS = re.compile(r"(?:^|[-_.])(?P<b>\d+(?:\.\d+)?)[bB](?=$|[-_.])")
# What a node is taken to hold where its GPUs are not shown: 8 GiB on each GPU, the least of a card an LLM is served
# from over several nodes (a GeForce RTX 3070 or 4060 Ti; the RTX 3090s and 4090s of such threads hold 24), and
# weights at 16 bits (2 bytes a parameter), the most an unquantised checkpoint serves at.
FLOOR_GPU_GIB = 8
BYTES_PER_PARAM = 2


def name_billions(model: str) -> float | None:
    """The parameters, in billions, a model's name states (_NAME_BILLIONS), read from its last path part; None where it
    states none."""
    m = _NAME_BILLIONS.search(model.rstrip("/").rsplit("/", 1)[-1])
    return float(m["b"]) if m else None


def tp_spans_nodes_needlessly(engine: ServingEngine | None, model: str) -> str:
    """What shows a shown engine command's TP group spans nodes for a model one node holds, in words; "" where the
    source does not show that.

    The command's TP group spans nodes (_parse.tp_spans_nodes: SGLang `--tp-size 16 --nnodes 2`) with several ranks on
    each node (one rank on each is one_rank_per_node's), and its model's name states a size (name_billions) whose
    16-bit weights fill at most half of one node's ranks at FLOOR_GPU_GIB each, the rest left to the KV cache: one
    node serves it, and the group's all-reduces cross the network for nothing (corpus 1792, an 8B model over two
    nodes). A model whose name states no size (`DeepSeek-R1`), or one too large for the floor, is not judged.
    `model` is the model the command names (serving_model.model_argument), which the caller reads."""
    shown = engine.shown if engine is not None else None
    if shown is None or not tp_spans_nodes(shown.argv):
        return ""
    per_node = ranks_per_node(shown.argv)
    billions = name_billions(model)
    if per_node is None or per_node < 2 or billions is None:
        return ""
    weights_gb = billions * BYTES_PER_PARAM
    if weights_gb > per_node * FLOOR_GPU_GIB * 2**30 / 1e9 / 2:
        return ""
    tp, _, _ = sizes_from_argv(shown.argv)
    return (f"{_launcher(shown.argv)} runs one TP group of {tp} over --nnodes {argv_value(shown.argv, ('--nnodes',))} "
            f"({per_node} ranks on each node) for {model.rstrip('/').rsplit('/', 1)[-1]}, whose {billions:g}B "
            f"parameters take about {weights_gb:.0f} GB at 16 bits: half of one node's {per_node} GPUs at "
            f"{FLOOR_GPU_GIB} GiB each holds them")


def tp_group_across_nodes(engine: ServingEngine | None, log: ServingLog | None) -> str:
    """What shows one tensor-parallel group holds GPUs of several nodes, in words; "" where the source does not show it.

    A shown engine command whose `--nnodes` is above what PP and plain DP split the nodes into
    (_parse.tp_spans_nodes: SGLang `--tp 16 --nnodes 2`). Or vLLM's Ray executor warning that the TP size is bigger
    than the GPUs Ray reserves on a node (ServingLog.tp_beyond_node: `tensor_parallel_size=2 is bigger than a reserved
    number of GPUs (1 GPUs) in a node`, corpus 1247, 1863): no node holds the whole group, so it spans nodes.
    """
    shown = engine.shown if engine is not None else None
    if shown is not None and tp_spans_nodes(shown.flag_argv):
        tp, _, _ = sizes_from_argv(shown.flag_argv)
        return f"TP={tp} over --nnodes {shown.flag('--nnodes')}"
    beyond = [(tp, per_node, line) for tp, per_node, line in (log.tp_beyond_node if log is not None else ())
              if per_node < tp]
    if beyond:
        tp, per_node, line = beyond[0]
        return (f"TP={tp} while vLLM's Ray executor reserves {per_node} GPU(s) on a node "
                f"(\"{line.strip()[line.find('tensor_parallel_size'):][:120]}\")")
    return ""


def one_rank_per_node(engine: ServingEngine | None, log: ServingLog | None,
                      commands: EngineCommands | None = None) -> str:
    """What shows every node of the job holds one rank, so no GPU pair shares a host, in words; "" where the source
    does not show it.

    A shown engine command whose launcher puts one rank on each node (processes.launcher_ranks_per_node: `srun -N 2
    --ntasks 2 --ntasks-per-node=1 ... trtllm-serve --pp_size 2`, corpus 2459), over two ranks or more.
    A shown engine command whose ranks per node (_parse.ranks_per_node) are 1: SGLang `--tp 4 --nnodes 4` over four
    one-GPU nodes. Or NCCL's `nRanks N nNodes N` (N of 2 or more) for a communicator that holds the job's whole
    world: N at least the TP x PP x DP that the log or the shown command gives, no communicator shown larger, and no
    line with more local ranks. An engine's log (vLLM, SGLang) must show that world: an engine runs a communicator per
    TP and PP group, and a two-rank pipeline communicator of a TP 8 x PP 2 job (corpus 784) shows one rank per node of
    that group only, not of the job. Or, under the same terms, NCCL's channel lines that put every rank of the
    communicator on one GPU bus ID (ServingLog.ranks_on_one_gpu_bus, corpus 782: `0[1a000] -> 1[1a000] via NET/IB/0`),
    or on one device index in NCCL 2.19's format (`0[0] -> 1[0] [send] via NET/IB/4`, corpus 1956): NCCL refuses two
    ranks on one GPU, so those ranks are on hosts of their own.
    """
    launched = [c for c in (commands.commands if commands is not None else ()) if c.launcher and (c.ranks or 0) > 1
                and launcher_ranks_per_node(c.launcher) == 1]
    if launched:
        return f"`{' '.join(launched[0].launcher)}` starts {launched[0].ranks} ranks, one on each node"
    shown = engine.shown if engine is not None else None
    if shown is not None and ranks_per_node(shown.argv) == 1:
        tp, pp, _ = sizes_from_argv(shown.argv)
        return (f"{_launcher(shown.argv)} runs TP {tp}" + (f" x PP {pp}" if pp else "")
                + f" over --nnodes {argv_value(shown.argv, ('--nnodes',))}: one rank on each node")
    if log is None or log.local_ranks > 1 or (shown is not None and sizes_unread(shown.argv)):
        return ""
    tp, pp, dp = sizes_from_argv(shown.argv) if shown is not None else (None, None, None)
    sized = max(log.world_size, (log.tp_size or 1) * (log.pp_size or 1) * (log.dp_size or 1), (tp or 1) * (pp or 1)
                * (dp or 1))
    if log.engine and sized < 2:
        return ""
    world = max(sized, log.comm_ranks)
    lines = [line for nodes, ranks, line in log.node_counts if nodes == ranks >= max(2, world) and "nNodes" in line]
    if lines:
        return f"NCCL's communicator puts one rank on each node ({lines[0].strip()[:160]})"
    ranks, line = log.ranks_on_one_gpu_bus()
    if ranks >= max(2, world) and not any(nodes < ranks for nodes, _, _ in log.node_counts):
        where = "GPUs of one PCI bus ID" if re.search(r"\[[0-9a-f]{4,}\]", line) else "CUDA device 0 of each process"
        return (f"NCCL's channels put its {ranks} ranks on {where} ({line.strip()[:160]}), every one over the "
                "network: NCCL refuses two ranks on one GPU and joins ranks of one host over P2P or SHM, so each rank "
                "is on a host of its own, one rank on each node")
    return ""


def one_gpu_engine(engine: ServingEngine | None, gpus: GpuInventory | None = None,
                   commands: EngineCommands | None = None, log: ServingLog | None = None,
                   placements: ModelPlacements | None = None, ollama: OllamaShown | None = None) -> str:
    """What shows the serving engine runs on one GPU, in words; "" where the source does not show it.

    Each replica holds the model on one GPU, so no GPU exchanges activations with another, where:

    - the engine shown (a process, a pasted command line, a container's arguments) runs TP 1
      (ServingEngine.shown_tp: the running engine's, or a shown command's own, or the engines' default where a whole
      command line names none, as in corpus 886; never for TensorRT-LLM, whose engine built before holds its TP, as
      `mpirun -n 4` over an engine dir shows in corpus 578) and its pipeline has one stage;
    - or it sees one GPU: its CUDA_VISIBLE_DEVICES names one device, by index or UUID (`CUDA_VISIBLE_DEVICES=3 vllm
      serve m --tensor-parallel-size $TP`; a `$GPU_IDS` the paste does not set names none);
    - with nothing of the engine shown but a pasted log, the log's TP is 1 and it gives no PP above 1 (vLLM's
      engine-config line `tensor_parallel_size=1`, corpus 993; a release that prints no PP size ran no pipeline);
    - a llama.cpp or ollama engine (or none named) beside llama.cpp's `ggml_cuda_init` list of one device: the list
      is the devices CUDA gives the program that prints it (corpus 989);
    - an ollama engine (or none named) whose placement lines in a pasted log (ServingLog.ollama_gpus, `msg="offload to
      cuda" ... layers.split="" memory.available="[21.6 GiB]"`) each list one GPU: ollama gives each model's runner
      the GPUs it lists there, one entry each (corpus 1497);
    - with no engine shown running a group, a serving framework that places each copy of the model on one GPU in its
      own terms (facts/model_placement.ModelPlacements: Xinference's `--gpu-idx 0,1 --replica 2` or its worker's
      `on GPU index: [2]`, a Triton KIND_GPU instance group; corpus 1493, 1495, 1498);
    - with no vLLM/SGLang engine shown, every pasted llama.cpp command sees one GPU through CUDA_VISIBLE_DEVICES, on
      its line or set above it (`export`, a batch script's `set`: corpus 962);
    - with no vLLM/SGLang engine shown, every engine command pasted runs its model on one GPU (one_gpu_commands: a
      llama.cpp server's `--tensor-split` with one share above 0 or `--split-mode none`, corpus 1301);
    - a llama.cpp or ollama engine (or none named) whose log's model-buffer blocks name one CUDA device beside the
      host's buffers (ServingLog.ggml_one_gpu: `CUDA0 model buffer size` under `CPU_Mapped`, corpus 2170), where
      `ollama ps` or `ollama -v` is not shown: ollama loads each model in a runner of
      its own, and one runner's block shows that model's GPUs alone (corpus 1165);
    - a llama.cpp or ollama engine (or none named) whose log shows ggml's Metal backend at work (GpuInventory.one_device:
      it drives the one Metal device it picks, corpus 1546);
    - with no engine process read, every TensorRT-LLM engine the paste builds is for one GPU and every run shown (of
      those engines, or a Triton server) runs on one rank (facts/engine_command.built_for_one_gpu, the reading
      RT-TRTLLM-ALLREDUCE shares: a build.py without `--world_size` or `--tp_size`, corpus 2153);
    - never for an RL trainer's rollout engines (rollout_engine), whose job trains on other GPUs;
    - the host has one GPU (GpuInventory.whole_count: a listing, or a count in the user's words such as
      `1 x Nvidia A10`, corpus 998), whatever engine serves.
    """
    from stackaudit.facts.engine_command import GGML_ENGINES, built_for_one_gpu

    shown = engine.shown if engine is not None else None
    if shown is not None and rollout_engine(shown.argv):
        # An RL trainer's rollout engines: their TP is each engine's, while the job's training ranks, and the weight
        # sync between them and the engines, run on GPUs and NCCL of their own.
        return ""
    if shown is not None and engine is not None and engine.shown_tp == 1 \
            and (engine.engine != "trtllm" or argv_value(shown.argv, TP_FLAGS) is not None):
        _, pp, _ = sizes_from_argv(shown.argv)
        if pp in (None, 1) and engine.engine == "triton":
            return (f"{_launcher(shown.argv)} (the TensorRT Inference Server, whose backends run each model instance on "
                    "the one GPU of its instance_group) runs no model across GPUs")
        if pp in (None, 1):
            return f"{_launcher(shown.argv)} runs TP 1" + (" x PP 1" if pp else "")
    devices = shown.visible_devices if shown is not None else None
    if shown is not None and devices is not None and len(devices) == 1 \
            and (devices[0].isdecimal() or devices[0].startswith(("GPU-", "MIG-"))):  # not a `$VAR` left unset
        return f"{_launcher(shown.argv)} sees one GPU (CUDA_VISIBLE_DEVICES={shown.env('CUDA_VISIBLE_DEVICES')})"
    if shown is None and engine is not None and engine.engine and engine.tp == 1 and engine.pp in (None, 1):
        return f"the {engine.engine} log shows TP 1" + (" x PP 1" if engine.pp else "")
    ggml = [c for c in (commands.commands if commands is not None and shown is None else ())
            if c.engine in GGML_ENGINES.values() and not c.builds]
    seen = [c.as_process().visible_devices for c in ggml]
    if ggml and all(d is not None and len(d) == 1 and (d[0].isdecimal() or d[0].startswith(("GPU-", "MIG-")))
                    for d in seen):
        return (f"{posixpath.basename(ggml[0].argv[0])} sees one GPU "
                f"(CUDA_VISIBLE_DEVICES={ggml[0].as_process().env('CUDA_VISIBLE_DEVICES')})")
    placed = log.ollama_gpus if log is not None else None
    if placed is not None and placed[0] == 1 and shown is None \
            and (engine is None or engine.engine in ("", *GGML_ENGINES.values(), "ollama")):
        return (f"ollama's placement line lists one GPU's free memory and no layer split (`{placed[1]}`): its runner "
                "holds the model on one GPU")
    if log is not None and log.ggml_one_gpu and shown is None and ollama is None \
            and (engine is None or engine.engine in ("", *GGML_ENGINES.values())):
        return f"llama.cpp loaded the model's weights onto one GPU and the host alone (`{log.ggml_one_gpu[:100]}`)"
    if gpus is not None and gpus.one_device and shown is None \
            and (engine is None or engine.engine in ("", *GGML_ENGINES.values(), "ollama")):
        return gpus.one_device[0]
    framework = placements.one_gpu_each() if placements is not None else ""
    if framework and shown is None and (engine is None or engine.tp in (None, 1)):
        return f"{framework}: each copy of the model holds one GPU"
    if shown is None and (alone := one_gpu_commands(commands)):
        return f"{posixpath.basename(alone[0].argv[0])} runs on one GPU ({alone[0].one_gpu})"
    runs = [c for c in (commands.commands if commands is not None else ()) if not c.builds]
    if (shown is None or (engine is not None and engine.process is None
                          and all(c.engine in ("trtllm", "triton") for c in runs))) \
            and commands is not None and (built := built_for_one_gpu(commands.commands)):
        return built
    return one_gpu_seen(engine, gpus)


def one_gpu_seen(engine: ServingEngine | None, gpus: GpuInventory | None) -> str:
    """What shows the program at work sees one GPU, in words; "" where the source does not show it: a llama.cpp or
    ollama engine (or none named) beside llama.cpp's `ggml_cuda_init` list of one device (the devices CUDA gives the
    program that prints it, corpus 989, 1825), or a host of one GPU (GpuInventory.whole_count). No pair of GPUs is
    there to exchange data: one_gpu_engine's last rules, and IC-P2P-FUNCTIONAL's."""
    from stackaudit.facts.engine_command import GGML_ENGINES
    from stackaudit.facts.gpus import GGML_TITLE

    if gpus is None:
        return ""
    if (engine is None or engine.engine in ("", *GGML_ENGINES.values(), "ollama")) and gpus.count_in(GGML_TITLE) == 1:
        return "llama.cpp's `ggml_cuda_init` found 1 CUDA device: the program that printed it sees one GPU"
    if gpus.whole_count == 1:
        return f"the host has one GPU ({', '.join(sorted(set(gpus.models.values()))) or 'its model not shown'})"
    return ""


def one_gpu_commands(commands: EngineCommands | None, serving_log: ServingLog | None = None,
                     nccl_test_runs: NcclTestRuns | None = None) -> tuple[EngineCommand, ...]:
    """The engine commands of the paste where every one shown runs its model on one GPU; () where one does not, or
    none is shown. Each command's own reading (facts/engine_command.EngineCommand.one_gpu): CUDA_VISIBLE_DEVICES of
    one device on its line or set above it, a llama.cpp server's `--tensor-split` with one share above 0 or
    `--split-mode none` (corpus 1301, 1303). A line that only asks the program about itself (`--version`) runs
    nothing and is not counted. A NCCL log's channels or a pasted test's ranks (where the caller passes them) show
    GPUs talking to each other, which no workload on one GPU does: then the commands shown are not the whole
    workload, and nothing is returned; so is it for an RL trainer's rollout engines (rollout_engine).

    The one reading of a one-GPU workload from its commands that the multi-GPU checks share: IC-P2P-FUNCTIONAL and,
    through one_gpu_engine, IC-TOPOLOGY-PLACEMENT and IC-NCCL-ENV."""
    shown = tuple(c for c in (commands.commands if commands is not None else ()) if not c.asks_only)
    if not shown or not all(c.one_gpu for c in shown):
        return ()
    if (serving_log is not None and serving_log.channels) or (nccl_test_runs is not None and nccl_test_runs.groups):
        return ()
    if any(rollout_engine(c.argv) for c in shown):
        return ()  # a rollout server takes its trainer's weights from another GPU over NCCL (corpus 2617, 2618)
    return shown


def rollout_engine(argv: tuple[str, ...]) -> bool:
    """Whether the command line `argv` runs an RL trainer's rollout engines, which take the trainer's weights from its own GPUs
    over NCCL: a trainer that starts vLLM engines (engine_command.VLLM_ROLLOUT_TRAINERS: OpenRLHF's PPO, corpus 2360)
    or a rollout server (processes.WEIGHT_SYNC_SERVERS: verifiers' `vf-vllm`, corpus 2617, 2618). Its engines' own
    GPU count is not the job's: the multi-GPU checks' one-GPU readings (one_gpu_engine, one_gpu_commands) skip it."""
    from stackaudit.facts.engine_command import VLLM_ROLLOUT_TRAINERS

    return bool(argv) and (argv[0] in VLLM_ROLLOUT_TRAINERS or posixpath.basename(argv[0]) in WEIGHT_SYNC_SERVERS)


def one_gpu_host(gpus: GpuInventory | None, engine: ServingEngine | None, log: ServingLog | None) -> str:
    """What shows a host of one GPU running a job of its own, in words; "" where the source does not show it.

    The host's whole GPU count is 1 (GpuInventory.whole_count: a whole topology matrix or listing of one GPU, a count in
    the user's words; corpus 862, 1130), and nothing shown puts its GPU in a job with other hosts: no engine command
    with a node count above 1 or a flag of a job across nodes or instances (MULTI_NODE_FLAGS, the running engine's
    included), no NCCL communicator of several ranks (on a host of one GPU, the other ranks are on other hosts), no
    KV-cache transfer between instances. The caller rules out the node counts a log or a test header shows."""
    if gpus is None or gpus.whole_count != 1:
        return ""
    shown = engine.shown if engine is not None else None
    if shown is not None and _spanning_flags(shown):
        return ""
    if log is not None and (log.comm_ranks > 1 or log.kv_transfer or log.multi_host):
        return ""
    return f"the host has one GPU ({', '.join(sorted(set(gpus.models.values()))) or 'its model not shown'})"


def one_gpu_workload(parallelism: Parallelism | None, containers: DockerContainers | None,
                     serving_log: ServingLog | None, *, diagnostic: bool = False) -> tuple[str, ...]:
    """What shows that every workload of the source uses one GPU, in words; () where the source does not show it.

    A workload is a GPU container (its GPU request or CUDA_VISIBLE_DEVICES, else its engine's TP x PP as its command
    sets it), an engine outside containers whose TP size the source gives (TP x PP), or an NCCL communicator of one
    rank (`nranks 1`) on one host. Every one shown must use one GPU; a size the source does not give (a TGI shard
    count left to its default of every GPU, an unset TP) leaves the workload unread. With `diagnostic`, a container
    that only runs a GPU check (`nvidia-smi` in a pod) counts where it is given one GPU: what it printed is that one
    GPU's view (FW-VM: a pod limited to `nvidia.com/gpu: 1`, corpus 1119).
    """
    shown: list[str] = []
    # The engines of the containers given one GPU: a log of the same engine that does not state its size is theirs,
    # and an engine sees no more GPUs than its container is given (TGI's default shard count is every GPU it sees).
    given_one: set[str] = set()
    for c in containers.gpu_or_serving if containers is not None else ():
        if not c.gpu_requested or (c.diagnostic_only and not (diagnostic and c.gpus_visible_at_most == 1)):
            continue
        sizes = parallelism.for_container(c.id) if parallelism is not None else None
        read = sizes is not None and sizes.tp is not None and not sizes.unread
        bound = c.gpus_visible_at_most or (sizes.world_size if sizes is not None and read else None)
        if bound != 1:
            return ()
        shown.append(f"container {c.label} is given one GPU" if c.gpus_visible_at_most == 1
                     else f"container {c.label} runs TP 1")
        if c.gpus_visible_at_most == 1 and c.engine:
            given_one.add(c.engine)
    for e in parallelism.engines if parallelism is not None else ():
        if e.source == DOCKER or (e.tp is None and not e.unread and e.engine in given_one):
            continue
        if e.tp is None or e.unread or e.world_size != 1:
            return ()
        shown.append(f"the {e.source}'s TP x PP is 1")
    if serving_log is not None and serving_log.comm_ranks:
        if serving_log.comm_ranks != 1 or serving_log.multi_host:
            return ()
        shown.append("NCCL's communicator has one rank (`nranks 1`)")
    return tuple(dict.fromkeys(shown))
