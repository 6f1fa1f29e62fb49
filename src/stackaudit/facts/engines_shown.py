"""The serving engines the pasted sources show, strongest source first: one fact that DRV-CUDA-COMPAT (checks/drv.py:
the engine whose CUDA runtime it judges) and the engine-subject applicability (engine/evaluate.engines_shown,
facts/applicability.engine_shown_other) both read.

Sources, strongest first: a pasted engine command (facts/engine_command.py), a container's engine (its command, else
the engine its image is: applicability.GGML_IMAGES), the server log's own lines (ServingLog.engine: ollama's journal
lines, llama.cpp's; a log of llama.cpp's build banner alone, `version: 7018 (ece0f5c17)` over `built with ... for
...`, shows llama.cpp by its release: ServingLog.llamacpp_release), ollama's discovery lines (ollama_cuda), ollama's own client output (`ollama ps`, `ollama -v`:
facts/ollama_cli.py), an engine's own symptom line (facts/symptoms.ENGINE_SYMPTOMS), llama.cpp's `ggml_cuda_init`
device list and ggml's own abort lines (facts/symptoms.GGML_SYMPTOMS), and its CUDA backend's allocation refused for
memory (`ggml_backend_cuda_buffer_type_alloc_buffer: ... cudaMalloc failed: out of memory`, facts/cuda_ran.GGML_CUDA_OOM)
("ggml": a program built on ggml, which one not named), exllamav2's own summary line (its example's
`Response generated in …`: facts/serving_rate.EXLLAMAV2_EXAMPLE) and exllama's benchmark's generation rate
(serving_rate.EXLLAMA_BENCHMARK), KoboldCpp's benchmark and generation lines ("llamacpp":
facts/serving_rate.KOBOLDCPP) and llama-bench's table, llama.cpp's own benchmark on any of its backends ("llamacpp":
serving_rate.LLAMA_BENCH_SOURCE; corpus 2845, its Vulkan rows), a PyTorch engine ("torch", as the user's words name
exllama: engine_command.STATED_ENGINE_WORDS), the kernel's own line for an engine program's process it killed
(`koboldcpp[96830]: segfault at … in libcuda.so…`) or the driver's Xid line naming it (`pid=109288, name=koboldcpp`):
kernel_log_engines, whose name is the process's comm, cut to 15 characters; then, only where none of those names an engine,
those the user's own words or a prompt's client name (stated_engines). `report`: a Python environment is shown (a
collect_env report, site-packages), which runs an engine of its own: unnamed, but for llama-cpp-python alone in a
pasted `pip list` (`report_engine`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.applicability import ggml_image_engine
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.cuda_ran import GGML_CUDA_OOM, CudaRan
from stackaudit.facts.docker import DockerContainers
from stackaudit.facts.engine_command import GGML_ENGINES, EngineCommands, StatedEngines
from stackaudit.facts.gpus import GGML_TITLE, GpuInventory, OllamaCuda
from stackaudit.facts.ollama_cli import OllamaShown
from stackaudit.facts.python_env import PythonEnv
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, provider
from stackaudit.facts.serving_logs import ServingLog
from stackaudit.facts.serving_rate import EXLLAMA_SOURCES, KOBOLDCPP, LLAMA_BENCH_SOURCE, MeasuredRate
from stackaudit.facts.sources import PROMPT_ENVS
from stackaudit.facts.symptoms import LogSymptoms
from stackaudit.facts.system import KernelLog
from stackaudit.host.base import NotCaptured

# A ggml device list names no engine of its own: llama.cpp's library, which llama-server and ollama both print.
GGML = "ggml"

# The kernel's line for a process a fault killed names it by its comm (the program's name cut to 15 characters,
# TASK_COMM_LEN): `koboldcpp[96830]: segfault at 215003fcc ip … in libcuda.so.570.86.15[…]` (show_signal_msg,
# arch/x86/mm/fault.c; corpus 1587), `traps: llama-server[4242] general protection fault …`; so does the driver's Xid
# line for a channel of the process's on the GPU (`NVRM: Xid (PCI:0000:83:00): 45, pid=109288, name=koboldcpp, Ch
# 00000010`, LostRuins/koboldcpp#1362). A program of engine_command.GGML_ENGINES named there ran on the host.
_KILLED = re.compile(r"(?:^|[\s:])(?P<comm>[\w.+-]{1,15})\[\d+\]:? (?:segfault at|general protection|trap )"
                     r"|\bNVRM: Xid \(.*?\bpid=\d+, name=(?P<xid>[\w.+-]{1,15}),")


def kernel_log_engines(log: KernelLog) -> tuple[str, ...]:
    """The engines (GGML_ENGINES) whose program's process the kernel log names: killed by a fault, or in an Xid line
    (_KILLED).

    >>> kernel_log_engines(KernelLog(("Mar  7 09:36:48 tuxaio kernel: [57889.986583] koboldcpp[96830]: segfault at "
    ...                               "215003fcc ip 00007f78774f9c97 sp 00007f69217f67f0 error 4 in "
    ...                               "libcuda.so.570.86.15[7f78771cf000+cf9000]",)))
    ('llamacpp',)
    """
    found = (GGML_ENGINES.get(m.group("comm") or m.group("xid"))
             for line in log.grep(_KILLED.pattern, 0, ("segfault", "traps:", "name="))
             if (m := _KILLED.search(line)) is not None)
    return tuple(dict.fromkeys(e for e in found if e))


@dataclass(frozen=True)
class EnginesShown:
    shown: tuple[str, ...] = ()  # each source's engine, strongest first ("" for a container or log naming none)
    said: tuple[str, ...] = ()  # the user's words' (stated_engines), read only where `shown` names none
    report: bool = False  # a Python environment shown (collect_env, site-packages)
    # The ggml engine (applicability.GGML_ENGINE_NAMES) a pasted list's only Python environment names (llama-cpp-python
    # in `pip list`: python_env.PIP_LIST_GGML), "" where it names none: an environment of another engine stays unnamed.
    report_engine: str = ""
    # Where the sources show an engine built for the CPU on purpose (cpu_build_shown), in words; "" where none do.
    cpu_build: str = ""

    @property
    def engines(self) -> tuple[str, ...]:
        """Every engine shown, strongest first: the sources', else the user's words', which name the engine of a log or
        container that names none itself (a torch NCCL watchdog log under `docker image
        text-generation-inference:1.0.2`, corpus 893)."""
        return self.shown if any(self.shown) else (self.said or self.shown)

    @property
    def named(self) -> str:
        """The engine the strongest source names ("" where none names one; a ggml device list names none)."""
        return next((e for e in self.engines if e and e != GGML), "")


fact("engines_shown", EnginesShown, hint="paste the command that starts the engine, or its log")


@provider("engines_shown", EnginesShown, rank=10, title="the engines the sources show")
def engines_shown_in_sources(ctx: FactContext) -> EnginesShown:
    """Each engine the sources show (the module's docstring lists them, strongest first)."""
    commands = ctx.optional("engine_commands", EngineCommands)
    containers = ctx.optional("docker_containers", DockerContainers)
    log = ctx.optional("serving_log", ServingLog)
    symptoms = ctx.optional("log_symptoms", LogSymptoms)
    gpus = ctx.optional("gpus", GpuInventory)
    stated = ctx.optional("stated_engines", StatedEngines)
    shown = (*(c.engine for c in (commands.commands if commands is not None else ())),
             # A run the paste cuts before its image (no image, no command) shows a container, not what it runs.
             *(c.engine or ggml_image_engine(c.image) for c in (containers.containers if containers else ())
               if c.image or c.argv),
             *((log.engine or ("llamacpp" if log.llamacpp_release else ""),) if log is not None else ()),
             *(("ollama",) if ctx.optional("ollama_cuda", OllamaCuda) is not None else ()),
             *(("ollama",) if ctx.optional("ollama_shown", OllamaShown) is not None else ()),
             *(symptoms.engines() if symptoms is not None else ()),
             *((GGML,) if gpus is not None and gpus.count_in(GGML_TITLE) is not None else ()),
             *((GGML,) if symptoms is not None and symptoms.ggml_shown() else ()),
             *((GGML,) if (ran := ctx.optional("cuda_ran", CudaRan)) is not None
               and any(GGML_CUDA_OOM.search(r.line) for r in ran.ran) else ()),
             *(("torch",) if (rate := ctx.optional("serving_rate", MeasuredRate)) is not None
               and rate.source.startswith(EXLLAMA_SOURCES) else ()),
             *(("llamacpp",) if rate is not None and rate.source.startswith((KOBOLDCPP, LLAMA_BENCH_SOURCE)) else ()),
             *(kernel_log_engines(log_k) if (log_k := ctx.optional("kernel_log", KernelLog)) is not None else ()))
    said = stated.engines if stated is not None else ()
    python_env = ctx.optional("python_env", PythonEnv)
    report = ctx.optional("collect_env", CollectEnv) is not None or python_env is not None
    envs = python_env.environments if python_env is not None else ()
    report_engine = envs[0].engine if len(envs) == 1 and envs[0].engine == "llamacpp" else ""
    if not shown and not said and not report:
        raise FactUnavailable("no engine in the source")
    try:
        prompt_envs = ctx.host.doc(PROMPT_ENVS.name)
    except NotCaptured:
        prompt_envs = ""
    return EnginesShown(shown, said, report, report_engine,
                        cpu_build_shown(prompt_envs, ctx.optional("collect_env", CollectEnv)))


# A Python environment named for a CPU build (`vllm-cpu`, `torch_cpu`, `cpu-env`): `cpu` a word of its name.
_CPU_ENV_NAME = re.compile(r"(?:^|[-_.])cpu(?:$|[-_.])", re.I)
# vLLM's own version of its CPU build: setup.py appends `+cpu` (`.cpu` after a local version) for VLLM_TARGET_DEVICE=cpu.
_VLLM_CPU_VERSION = re.compile(r"[+.]cpu\b")


def cpu_build_shown(prompt_envs: str, collect_env: CollectEnv | None) -> str:
    """Where the sources show an engine built for the CPU on purpose, in words; "" where none do: vLLM's version of its
    CPU build in a report (`vllm 0.4.0.post1+cpu`), or the environment a shell prompt of the paste names, where every
    one it names is named for a CPU build (`(vllm-cpu) root@gpu-3090:~/oss/vllm-cpu#`, vllm-project/vllm#24063).

    A CPU-only torch there is the build the engine needs, not a wrong wheel (RT-TORCH-ARCH)."""
    if collect_env is not None and _VLLM_CPU_VERSION.search(collect_env.vllm_version):
        return f"vLLM {collect_env.vllm_version} is its CPU build"
    envs = [row.split("\t")[0] for row in prompt_envs.splitlines()[:50] if row.split("\t")[0]]
    if envs and all(_CPU_ENV_NAME.search(env) for env in envs):
        return f"the shell prompt's environment ({envs[0]}) is named for a CPU build"
    return ""
