"""RT: the serving runtime (vLLM, SGLang, TensorRT-LLM), read from the engine's own processes.

Every check reads the running engine's /proc/<pid>/cmdline, environ and limits (the
`serving_processes` fact) and the site-packages of its interpreter (`python_env`), never the
audit's own environment — except where no engine runs: then it reads the audit's own process
(what an engine started from this shell would inherit) and says so in its message.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from stackaudit.checks.registry import (
    Fix,
    Outcome,
    Severity,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts._parse import argv_value, engine_of, sizes_from_argv
from stackaudit.facts.collect_env import CollectEnv
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cuda_ran import CudaRan, CudaRuntime, Ran
from stackaudit.facts.docker import DockerContainers, tgi_image_release
from stackaudit.facts.engine_command import (
    GRAPHS_DEFAULT_SINCE,
    GRAPHS_SWITCH_PROGRAMS,
    EngineCommand,
    EngineCommands,
    built_for_one_gpu,
    built_world_sizes,
)
from stackaudit.facts.engines_shown import EnginesShown
from stackaudit.facts.gpus import (
    TORCH_WARNED_TITLE,
    GgmlCudaAsked,
    GgmlCudaBuild,
    GpuInventory,
    OllamaCuda,
    StatedCudaArchs,
)
from stackaudit.facts.parallelism import Parallelism, ServingEngine, one_gpu_engine
from stackaudit.facts.pci import NVIDIA_VENDOR, PciDevices
from stackaudit.facts.processes import ENGINE_NAMES, ProcessInfo, ServingProcesses
from stackaudit.facts.python_env import FLASHINFER_PACKAGES, TGI_PACKAGE, PythonEnv, PythonEnvironment
from stackaudit.facts.serving_logs import VLLM_OMP_REDUCED, ServingLog, StatedGraphMode
from stackaudit.facts.serving_rate import MeasuredRate
from stackaudit.facts.system import CpuInfo
from stackaudit.fixes.model import (
    PID_SUBJECT,
    advice,
    keep_line,
    step,
)
from stackaudit.host.limits import load_json
from stackaudit.versions import FIRST_RELEASE, is_older, predates, public_version, release


def _where(python_env: PythonEnv) -> str:
    """Whose Python environment this is, when it is not the running engine's."""
    if python_env.from_serving_process:
        return ""
    if python_env.from_report:
        return "; from a pasted report: the shell it ran in, which an engine started there would share"
    return f"; {NO_ENGINE}"


NO_ENGINE = ("no vLLM, SGLang or TensorRT-LLM process is running: this is the audit's own environment, "
             "which an engine started from this shell would inherit")
NOT_LISTED = ("the source does not show the running processes: these are the values of the shell it was "
              "captured from")
CAPTURE_HINT = "run `stackaudit capture` (or the audit) on the serving host while the engine runs"
RUN_AS_ROOT = "run as root (the engine runs as another user, its /proc/<pid>/environ is not readable)"
VLLM_ENVS = "https://github.com/vllm-project/vllm/blob/main/vllm/envs.py"
SGLANG_ENGINE = "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/entrypoints/engine.py"
NOFILE_TARGET = 65536


# --- helpers ---------------------------------------------------------------------------------


def _engine_name(proc: ProcessInfo) -> str:
    return ENGINE_NAMES.get(proc.engine, proc.engine)


def _env_targets(procs: ServingProcesses, engines: Iterable[str] = ()) -> tuple[list[ProcessInfo], bool]:
    """Processes whose environment to read, and whether it is the audit's own (no engine runs)."""
    wanted = set(engines)
    if procs.found:
        return [p for p in procs.processes if not wanted or p.engine in wanted], False
    return ([procs.current] if procs.current is not None else []), True


def _own_note(procs: ServingProcesses) -> str:
    """What the audit's own process stands for when no engine process is read."""
    return NO_ENGINE if procs.listed else NOT_LISTED


def _no_engine(procs: ServingProcesses, message: str) -> Outcome:
    """not-applicable where the process list shows no such engine; unknown where the source has none."""
    if procs.listed:
        return not_applicable(message)
    return unknown(NOT_LISTED.split(":")[0], hint=CAPTURE_HINT)


def _env_line(proc: ProcessInfo, name: str) -> str:
    where = f" (inherited from pid {proc.environ_from})" if proc.environ_from is not None else ""
    return f"{proc.label} environ{where}: {name}={proc.env(name)}"


def _unreadable(procs: list[ProcessInfo]) -> Outcome | None:
    """`unknown` when no environment of these processes could be read."""
    if procs and all(p.environ is None for p in procs):
        notes = {p.environ_note for p in procs if p.environ_note}
        reason = "; ".join(sorted(notes)) or "not readable"
        hint = RUN_AS_ROOT if any("permission" in n for n in notes) else ""
        return unknown(f"the environment of the engine processes could not be read: {reason}", hint=hint,
                       subjects=[f"pid {p.pid}" for p in procs])
    return None


def _bool_flag(argv: tuple[str, ...], name: str) -> bool | None:
    """A store_true / BooleanOptionalAction flag: True, False (`--no-x`, `--x=false`) or None (absent)."""
    value: bool | None = None
    negative = "--no-" + name[2:]
    for arg in argv:
        if arg == name:
            value = True
        elif arg == negative:
            value = False
        elif arg.startswith(name + "="):
            value = arg.partition("=")[2].lower() in ("1", "true", "yes")
    return value


def _config_true(proc: ProcessInfo, key: str) -> bool:
    return proc.config.get(key, "").lower() in ("true", "1", "yes")


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.strip().isdecimal() else None


def _tp_size(root: ProcessInfo, parallelism: Parallelism | None) -> int:
    sizes = parallelism.for_pid(root.pid) if parallelism is not None else None
    return sizes.tp_or_default if sizes is not None else 1


# --- RT-TORCH-ARCH ---------------------------------------------------------------------------

# Minimum CUDA toolkit that can build (and torch release that ships) each architecture.
ARCH_MIN_CUDA = {"12.0": (12, 8), "10.0": (12, 8), "10.3": (12, 9), "9.0": (11, 8), "8.9": (11, 8),
                 "8.6": (11, 1), "8.0": (11, 0)}
# The first torch release with the kernels, as a PEP 440 floor: a 2.7 pre-release (2.7.0rc1, the cu128
# test wheels) is of that series and has them; 2.6.x does not.
ARCH_MIN_TORCH = {"12.0": "2.7.0.dev0", "10.0": "2.7.0.dev0"}


def torch_supports(capability: str, torch_version: str, torch_cuda: str | None,
                   arch_list: tuple[str, ...] | None = None) -> bool | None:
    """Whether a torch build has kernels for a compute capability ("12.0"); None when unknown.

    With the arch list (sm_XY / compute_XY for PTX) the answer is exact; without it, a CUDA
    toolkit or torch release too old for the architecture is a sure "no"."""
    sm = "sm_" + capability.replace(".", "")
    if arch_list is not None:
        if sm in arch_list:
            return True
        major, _, minor = capability.partition(".")
        if minor == "x":  # a GPU known by its major alone (`5.x`: a Maxwell card without its row): minor 0 runs on each
            if f"sm_{major}0" in arch_list or f"compute_{major}0" in arch_list:
                return True
            own = [a for a in arch_list if re.fullmatch(rf"(?:sm|compute)_{major}\d", a)]
            lower = [a for a in arch_list if (c := re.fullmatch(r"compute_(\d+)\d", a)) and int(c.group(1)) < int(major)]
            return None if own or lower else False
        # A cubin for X.y runs on X.z with z >= y (CUDA C++ Programming Guide, "Binary Compatibility"): sm_86
        # kernels run on an sm_89 GPU. PTX for an older arch of the same major JIT-compiles (slow start, but it runs).
        older_minor = [a[len(f"sm_{major}"):] for a in arch_list if re.fullmatch(rf"sm_{major}\d", a)]
        # PTX runs on its own capability and higher: compute_37 JIT-compiles on an sm_37, never on an sm_35.
        ptx_minor = [a[len(f"compute_{major}"):] for a in arch_list if re.fullmatch(rf"compute_{major}\d", a)]
        if any(int(m) <= int(minor or 0) for m in (*older_minor, *ptx_minor)):
            return True
        # PTX of an older major JIT-compiles on this GPU too, yet whether the build's libraries (cuDNN, cuBLAS) run
        # there is not told: neither yes nor a sure no.
        lower = [a for a in arch_list if (c := re.fullmatch(r"compute_(\d+)\d", a)) and int(c.group(1)) < int(major)]
        return None if lower else False
    if torch_cuda == "":
        return False
    need_cuda = ARCH_MIN_CUDA.get(capability)
    if need_cuda and torch_cuda and release(torch_cuda, 2) < need_cuda:
        return False
    need_torch = ARCH_MIN_TORCH.get(capability)
    if need_torch and is_older(torch_version, need_torch):
        return False
    return None


# The compute capabilities official PyTorch CUDA wheels (`torch==X+cuNNN`, torch >= 2.0) carry kernels for, by the
# CUDA they are built with: TORCH_CUDA_ARCH_LIST of the wheel build script, pytorch/builder
# manywheel/build_cuda.sh (cu118, cu121, cu124; commit 1ab922dd, the torch 2.4/2.5 builds) and pytorch/pytorch
# .ci/manywheel/build_cuda.sh (cu126, cu128). cu128 holds what its 2.7 to 2.11 builds share: 2.7 built
# 7.5;8.0;8.6;9.0;10.0;12.0, 2.8 added 7.0 back (pytorch commit 179dcc10, cited where EutropicAI/vs-playground#59
# moved from 2.7.1+cu128 to 2.8.0+cu128 for sm_70), 2.11 dropped it again (torch.cuda.get_arch_list() of 2.10 and
# 2.11 in https://github.com/pytorch/pytorch/issues/182250). cu113 and cu116 are the
# `11.[356]` case of pytorch/builder's release/1.12 branch (commit 95161ad9), cu116 and cu117 its `11.[3567]` case on
# release/1.13 (b2120463) and `11.[67]` on release/2.0 (56177beb): the same list on each. cu111 and cu113 are the
# `11.[123]` case of manywheel/build.sh on release/1.10 (f0f41b25) and `11.[1235]` of manywheel/build_cuda.sh on
# release/1.11 (e77e5d07), the same list; cu102 is their `10.*` case (3.7, 5.0, 6.0, 7.0), unchanged through
# release/1.13. cu129 (from 2.8) and cu130 (from 2.9) are the `12.9` and `13.0` cases of .ci/manywheel/build_cuda.sh
# (commit 799d09f2: 12.9 is 7.0;7.5;8.0;8.6;9.0;10.0;12.0+PTX, 13.0 is 7.5;8.0;8.6;9.0;10.0;12.0+PTX on x86_64); on
# release/2.12 the 12.9 case is 7.5;8.0;8.6;9.0;10.0;12.0 (https://github.com/pytorch/pytorch/pull/188443), and the
# 13.0 sets are unchanged in release/2.13's TORCH_CUDA_ARCH_LIST_TABLE (.ci/manywheel/build_env_setup.py). Their aarch64
# wheels (GH200, GB200, DGX Spark) carry 8.0;9.0;10.0;11.0;12.0 (build_cuda.sh's filter_aarch64_archs, and
# .ci/aarch64_linux/aarch64_ci_build.sh for 12.9, which adds 12.1): no 7.5.
# The 1.4 to 1.5 wheels (cu101; cu102 from 1.5) carry 3.7+PTX;5.0;6.0;6.1;7.0;7.5: the `10.1` and `10.2` cases of
# pytorch/builder's manywheel/build.sh from commit 2d91d533 (2019-11-01, `5.0+PTX -> 3.7+PTX`) and a8c085bb
# (2020-02-26, CUDA 10.2) to 8d064bfc (2020-07-09, `remove PTX and 6.1`), and windows/cuda101.bat's and
# cuda102.bat's one list from b3543d0d (2019-11-27) on (1.4.0 in January, 1.5.1 in June 2020). The 1.6 builds, at
# that change, are not told.
# The 1.7 wheels (cu101, cu102, cu110) are the `10.*` and `11.0` cases of pytorch/builder's manywheel/build.sh, one
# list for 10.1 and 10.2 from commit 51249bc7 (2020-07-30) to d68291fd (2021-02-04), both 1.7 releases' builds inside
# (commit 0b54a237 for 1.7.0 in October, 3c1d1915 the day before 1.7.1 in December); cu110 wheels exist for 1.7 only.
# The 1.8 and 1.9 builds are not read (the `10.*` case dropped 7.5 on main in February 2021): those releases stay
# unknown for cu101 and cu102.
# Each entry: the steps of a CUDA's list, oldest first: (the first torch release a step is known for, its capabilities
# or None where the list from that release on is not known).
_TORCH14_CU10 = ("3.7+PTX", "5.0", "6.0", "6.1", "7.0", "7.5")
_TORCH17_CU10 = ("3.7", "5.0", "6.0", "7.0", "7.5")
WHEEL_ARCHES: dict[tuple[int, int], tuple[tuple[str, tuple[str, ...] | None], ...]] = {
    (10, 1): (("1.4", _TORCH14_CU10), ("1.6", None), ("1.7", _TORCH17_CU10), ("1.8", None)),
    (10, 2): (("1.5", _TORCH14_CU10), ("1.6", None), ("1.7", _TORCH17_CU10), ("1.8", None), ("1.10", ("3.7", "5.0", "6.0", "7.0"))),
    (11, 0): (("1.7", (*_TORCH17_CU10, "8.0")),),
    (11, 1): (("1.10", ("3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6")),),
    (11, 3): (("1.10", ("3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6")),),
    (11, 6): (("1.12", ("3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6")),),
    (11, 7): (("1.13", ("3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6")),),
    (11, 8): (("2.0", ("3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")),),
    (12, 1): (("2.1", ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")),),
    (12, 4): (("2.4", ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")),),
    (12, 6): (("2.6", ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")),),
    (12, 8): (("2.7", ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")),),
    (12, 9): (("2.8", ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")),),
    (13, 0): (("2.9", ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")),),
}
# Capabilities that some releases of an entry's range carry and others do not: absent from the shared list, yet no
# sure "no" (cu128: 7.0 in 2.8 to 2.10 only; cu129: 7.0 before 2.12; cu129 and cu130: 7.5 on x86_64 only, 11.0 on
# aarch64 only, and a paste seldom names the wheel's platform).
WHEEL_ARCHES_VARY = {(12, 8): ("7.0",), (12, 9): ("7.0", "7.5", "11.0"), (13, 0): ("7.5", "11.0")}
# The varying capabilities each platform's wheels of a CUDA carry in every release (the same build scripts): 7.5 on
# x86_64, 11.0 on aarch64. A report that names its machine (collect_env's `OS: ... (x86_64)`) settles them.
WHEEL_ARCHES_ON: dict[tuple[int, int], dict[str, tuple[str, ...]]] = {
    (12, 9): {"x86_64": ("7.5",), "aarch64": ("11.0",)}, (13, 0): {"x86_64": ("7.5",), "aarch64": ("11.0",)}}
_WHEEL_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(\.dev\d{8})?\+cu(\d+)(\d)")


def _wheel_step(steps: tuple[tuple[str, tuple[str, ...] | None], ...], version: str) -> int:
    """The index of the step of WHEEL_ARCHES that holds for a release ("1.7.1"), -1 before the first."""
    return sum(1 for first, _ in steps if not is_older(version, first)) - 1


def official_build(torch_version: str, torch_cuda: str | None) -> str:
    """The wheel version (`1.10.2+cu113`) of a torch release printed without a local label (`1.10.2`) beside the CUDA
    it was built with (`11.3`); "" for any other version (a label, a pre-release or a source build's `a0+git…`, an
    NGC build's `.nv25.02`) or an unknown CUDA.

    The PyTorch project's packagings print a bare release: PyPI's default wheel of the release (the same build as one
    of download.pytorch.org's `+cuNNN` wheels) and the pytorch channel's conda package, both built by pytorch/builder's
    scripts (https://github.com/pytorch/builder) with their CUDA's TORCH_CUDA_ARCH_LIST; a build from a git checkout
    prints `a0+git…`. conda-forge's and a distribution's packages print a bare release too, each with its own list: so
    a bare release is read for the capabilities its wheel's list holds only (an ok), never for one it lacks. The
    blind readings of the corpus's bare releases agree (915 on A40s, 340 on Quadro RTX 6000s: ok).

    >>> official_build("1.10.2", "11.3"), official_build("2.7.0a0+ecf3bae40a.nv25.02", "12.8")
    ('1.10.2+cu113', '')
    """
    if not re.fullmatch(r"\d+\.\d+\.\d+", torch_version.strip()) or not re.fullmatch(r"\d+\.\d", torch_cuda or ""):
        return ""
    return f"{torch_version.strip()}+cu{(torch_cuda or '').replace('.', '')}"


def wheel_arch_list(torch_version: str) -> tuple[str, ...] | None:
    """`torch.cuda.get_arch_list()` of an official wheel, from its version (`2.5.1+cu124`); None for any other
    build (a source or container build, a CUDA this table lacks).

    A nightly (`2.8.0.dev20250327+cu126`) is built by the same script from the main branch after the previous
    release's branch cut, so it gets the list only when that previous release (2.7 here) is already one the table
    names for its CUDA: a nightly at a list's change is left unknown. A release in a step whose list is None (not
    read) is unknown too."""
    m = _WHEEL_VERSION.fullmatch(torch_version.strip())
    steps = WHEEL_ARCHES.get((int(m.group(5)), int(m.group(6))), ()) if m is not None else ()
    if m is None or not steps:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    at = _wheel_step(steps, f"{major}.{minor}.{m.group(3)}")
    if m.group(4) and (not minor or _wheel_step(steps, f"{major}.{minor - 1}") != at):
        return None
    caps = steps[at][1] if at >= 0 else None
    if caps is None:
        return None
    # `3.7+PTX`: the cubin and the PTX of compute 3.7 (sm_37, compute_37), as torch.cuda.get_arch_list() prints them.
    return tuple(f"{kind}_{a.split('+')[0].replace('.', '')}" for a in caps
                 for kind in ("sm", "compute") if kind == "sm" or a.endswith("+PTX"))


# Kernel libraries whose builds start at an architecture, where an engine runs them by default: (package, the
# releases before this one, the first architecture they have kernels for, the engine, the source). FlashInfer
# added sm_75 (Turing) kernels in 0.1.6; before it SGLang 0.2's default attention backend dies at the first
# prefill on Turing with "no kernel image is available" (flashinfer-ai/flashinfer#402, sgl-project/sglang#931).
KERNEL_FLOORS: tuple[tuple[str, str, str, str, str], ...] = (
    ("flashinfer", "0.1.6", "Ampere", "sglang", "https://github.com/sgl-project/sglang/pull/1233"),
)


def _below_kernel_floor(env: PythonEnvironment, gpus: GpuInventory | None) -> Outcome | None:
    """An issue where a kernel library of KERNEL_FLOORS, run by default by an engine installed beside it, has no
    kernels for the GPUs' architecture; None otherwise."""
    from stackaudit.gputable import ARCHITECTURE_ORDER, architecture_of

    if gpus is None or not gpus.models:
        return None
    for package, before, first, engine, source in KERNEL_FLOORS:
        version = env.version(package)
        if not version or not env.version(engine) or not is_older(version, before):
            continue
        archs = {name: architecture_of(name) for name in sorted(set(gpus.models.values()))}
        old = {n: a for n, a in archs.items() if a in ARCHITECTURE_ORDER
               and ARCHITECTURE_ORDER.index(a) < ARCHITECTURE_ORDER.index(first)}
        if old:
            shown = [g.label for g in gpus.gpus if g.model in old]
            return over_subjects(issue(f"{package} {version} has no kernels before {first}, and {engine} {env.version(engine)} runs "
                         f"it by default: " + ", ".join(f"{n} ({a})" for n, a in old.items())
                         + f" fail at the first prefill with 'no kernel image is available' ({package} {before} "
                         f"added Turing kernels; {source})", actual={package: version, "gpus": old},
                         expected=f"{package} >= {before}, or the engine's other backend",
                         subjects=list(gpus.bdfs)), shown, gpus.whole_count, ask="nvidia-smi -L")
    return None


# Triton's server program is `tritonserver` from NGC 20.03 (renamed from `trtserver`, Triton 2.0), and every release
# since builds for compute capability 6.0 (Pascal) and up: its `--min-supported-compute-capability` defaults to that
# floor (TRITON_MIN_COMPUTE_CAPABILITY), and Triton puts a model on the CPU on a GPU below it (corpus 1925).
# A build made with a lower `build.py --min-compute-capability` moves the floor; no corpus case shows one.
TRITON_PROGRAM_FLOOR = ("6.0", "Pascal", "`tritonserver` is Triton 20.03 or later, whose --min-supported-compute-"
                        "capability defaults to the build's TRITON_MIN_COMPUTE_CAPABILITY, 6.0 in its build.py: "
                        "https://github.com/triton-inference-server/server/blob/main/src/command_line_parser.h")


def _triton_program_floor(argv: tuple[str, ...]) -> tuple[str, str, str] | None:
    """TRITON_PROGRAM_FLOOR where a container runs `tritonserver` without its own
    `--min-supported-compute-capability`; None otherwise."""
    if not any(posixpath.basename(a) == "tritonserver" for a in argv[:3]):
        return None
    if any(a.split("=", 1)[0] == "--min-supported-compute-capability" for a in argv):
        return None
    return TRITON_PROGRAM_FLOOR


def _below_ngc_floor(containers: DockerContainers | None, gpus: GpuInventory | None) -> Outcome | None:
    """An issue where a container runs an NGC framework image whose release supports compute capabilities from a
    floor up (docker.NGC_CAPABILITY_FLOOR: 6.0, Pascal) and a GPU shown is of an older architecture; None
    otherwise."""
    from stackaudit.facts.docker import ngc_capability_floor, ngc_image_release
    from stackaudit.gputable import ARCHITECTURE_ORDER, architecture_of

    if gpus is None or not gpus.models:
        return None
    archs = {name: architecture_of(name) for name in sorted(set(gpus.models.values()))}
    for c in containers.containers if containers is not None else ():
        ngc = ngc_image_release(c.image)
        # An NGC release outside NGC_CAPABILITY_FLOOR's rows says nothing of its floor; an image of none, the program's.
        floor = ngc_capability_floor(ngc) if ngc else _triton_program_floor(c.argv)
        if floor is None:
            continue
        capability, first, source = floor
        ngc = ngc or "unnamed"
        old = {n: a for n, a in archs.items() if a in ARCHITECTURE_ORDER
               and ARCHITECTURE_ORDER.index(a) < ARCHITECTURE_ORDER.index(first)}
        if not old:
            continue
        shown = [g.label for g in gpus.gpus if g.model in old]
        return over_subjects(issue(
            (f"{c.image} is NGC release {ngc}, which" if ngc != "unnamed" else f"{c.image} runs Triton, which")
            + f" supports compute capability {capability} ({first}) and higher: "
            + ", ".join(f"{n} ({a})" for n, a in old.items())
            + (" is older, and the container's kernels are not built for it" if ngc != "unnamed" else
               " is older, and Triton places no model on a GPU below its floor")
            + f" ({source})",
            actual={"image": c.image, "gpus": old}, expected=f"GPUs of compute capability {capability} or newer",
            subjects=shown, evidence=[f"{c.origin or 'docker inspect'}: {c.image}"]),
            [g.label for g in gpus.gpus], gpus.whole_count, ask="nvidia-smi -L")
    return None


def _within_ngc_release(containers: DockerContainers | None, runtime: CudaRuntime | None,
                        gpus: GpuInventory | None) -> Outcome | None:
    """An ok where the paste's NGC framework images (its containers', or one it names: cuda_ran.CudaRuntime) all
    cover every GPU model shown: each model's capability is at or above the release's floor
    (docker.NGC_CAPABILITY_FLOOR), and the release's CUDA (docker.NGC_RELEASE_CUDA) builds for it (ARCH_MIN_CUDA; a
    capability below 8.0, which the table lacks, builds from CUDA 10.0, the oldest release's); None otherwise. A GPU
    newer than the release's CUDA gets no ok."""
    from stackaudit.facts.docker import NGC_RELEASE_CUDA, ngc_capability_floor, ngc_image_release

    caps, unsettled = _capabilities(gpus)
    if gpus is None or not caps or unsettled:
        return None
    images = [c.image for c in (containers.containers if containers is not None else ())]
    images += [r.where for r in (runtime.runtimes if runtime is not None else ())]
    ngc = {image: ngc_image_release(image) for image in images if ngc_image_release(image)}
    if not ngc:
        return None
    for release_tag in ngc.values():
        floor = ngc_capability_floor(release_tag)
        cuda = NGC_RELEASE_CUDA.get(release_tag, ("",))[0]
        if floor is None or not cuda:
            return None
        for cap in caps.values():
            need = ARCH_MIN_CUDA.get(cap) or ((10, 0) if release(cap, 2) < (8, 0) else None)
            if need is None or release(cap, 2) < release(floor[0], 2) or release(cuda, 2) < need:
                return None
    image, release_tag = next(iter(ngc.items()))
    floor = ngc_capability_floor(release_tag) or ("", "", "")
    return over_subjects(ok(
        f"{image} is NGC release {release_tag}, built with CUDA {NGC_RELEASE_CUDA[release_tag][0]} for compute "
        f"capability {floor[0]} ({floor[1]}) up to what that CUDA builds: "
        + ", ".join(f"{n} (compute {cap})" for n, cap in caps.items()) + f" is inside that range ({floor[2]})",
        actual={"images": list(ngc), "gpus": caps}, evidence=list(ngc)),
        [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")


def _within_tei_build(containers: DockerContainers | None, gpus: GpuInventory | None) -> Outcome | None:
    """An ok where every container of the paste runs a Text Embeddings Inference image built for one compute
    capability (docker.tei_image_capability: `86-1.5` for 8.6) and every GPU model shown has that capability; None
    otherwise (another capability, even one its cubins would run on, is left to TEI's own image choice)."""
    from stackaudit.facts.docker import tei_image_capability

    caps, unsettled = _capabilities(gpus)
    images = [c.image for c in (containers.containers if containers is not None else ())]
    built = {image: cap for image in images if (cap := tei_image_capability(image))}
    if gpus is None or not caps or unsettled or not built or len(built) != len(images) \
            or set(caps.values()) != set(built.values()) or len(set(built.values())) != 1:
        return None
    image = next(iter(built))
    return over_subjects(ok(
        f"{image} is Text Embeddings Inference's build for compute capability {built[image]}, the capability of "
        + ", ".join(f"{n} (compute {cap})" for n, cap in caps.items()), actual={"images": list(built), "gpus": caps},
        evidence=list(built)), [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")


def _capabilities(gpus: GpuInventory | None, stated: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """({GPU model: compute capability}, [models whose capability is not settled]): the capability the paste states
    for the model (check_env's `Compute Capability` line, what torch read from the device), else the GPU table's;
    an ambiguous name, or one the nvidia-smi table cut (gputable.agreed), settles it only where every row it may be has
    the same capability, or where its model words name one capability (a Quadro RTX 6000 is Turing); a model the table
    lacks, where its model words name one
    (gputable.capability_of: a TITAN RTX is Turing, 7.5; a GeForce RTX 3070 is an Ampere GA10x card, 8.6)."""
    from stackaudit.gputable import (
        SINGLE_CAPABILITY,
        GpuTableError,
        UnknownGpuError,
        agreed,
        architecture_of,
        board_words,
        candidates,
        capability_of,
        load_table,
        lookup,
    )

    known: dict[str, str] = {}
    unsettled: list[str] = []
    for name in sorted(set(gpus.models.values())) if gpus is not None else []:
        if stated and name in stated:
            known[name] = stated[name]
            continue
        try:
            match = lookup(name)
        except (UnknownGpuError, GpuTableError):
            board = board_words(name)
            implied = (agreed(candidates(name), lambda row: row.compute_capability) or capability_of(name)
                       or (agreed(candidates(board), lambda row: row.compute_capability) if board else "") or "")
            if implied:
                known[name] = implied
            else:
                unsettled.append(name)
            continue
        caps = {match.spec.compute_capability, *(load_table().by_name(n).compute_capability
                                                  for n in match.alternatives)}
        single = (capability_of(name) or SINGLE_CAPABILITY.get(architecture_of(name), "")) if len(caps) > 1 else ""
        if len(caps) == 1 or single:
            known[name] = single or match.spec.compute_capability
        else:
            unsettled.append(name)
    return known, unsettled


# The engine whose generating line (facts/cuda_ran.Ran.program, `decoded`) shows its model's forward passes on the GPU,
# and the package that installs it beside torch.
DECODING_ENGINES = {"vLLM": "vllm"}


def _decoded_with(cuda_ran: CudaRan | None, env: PythonEnvironment, caps: dict[str, str],
                  unsettled: list[str]) -> tuple[str, Ran] | None:
    """(the engine and its version, the line) where an engine installed in this torch's environment generated tokens
    on the GPU (facts/cuda_ran.CudaRan.decoded), with a CUDA build of torch and at most one GPU model shown (on
    several, which one served is not told); None otherwise."""
    ran = cuda_ran.decoded() if cuda_ran is not None else None
    package = DECODING_ENGINES.get(ran.program, "") if ran is not None else ""
    version = env.version(package) if package else None
    torch_v = env.version("torch") or ""
    if ran is None or not version or not env.torch_cuda or re.search(r"\+(?:rocm|cpu)", torch_v):
        return None
    if len({*caps, *unsettled}) > 1:
        return None
    return f"{ran.program} {version}", ran


@check(
    "RT-TORCH-ARCH",
    applies_to="torch-engine",
    title="torch/kernels not built for the GPU architecture",
    severity="high",
    confidence="documented",
    fix=advice("Install torch wheels / the engine's container built for CUDA >= 12.8 (cu128/cu129/cu130) on "
                   "Blackwell, matching the engine's pinned torch", cost="restart", scope="container"),
    references=("https://pytorch.org/blog/pytorch-2-7/", "https://github.com/pytorch/pytorch/issues/145949"),
)
def torch_arch(python_env: PythonEnv | None = None, gpus: GpuInventory | None = None,
               collect_env: CollectEnv | None = None, cuda_ran: CudaRan | None = None,
               docker_containers: DockerContainers | None = None, cuda_runtime: CudaRuntime | None = None,
               engines_shown: EnginesShown | None = None) -> Outcome:
    """Reads: the torch distribution in the serving process's site-packages (`torch-*.dist-info`,
    `torch/version.py` for its CUDA), and the NVIDIA GPUs (the `gpus` inventory: NVML, the PCI bus, ...).

    Bad value: a GPU whose compute capability (12.0 RTX PRO 6000 / RTX 50, 10.0 B200, 9.0 H100)
    is not in `torch.cuda.get_arch_list()` (sm_120 / sm_100 / sm_90, or compatible PTX); a
    CPU-only torch on a host with NVIDIA GPUs (torch/version.py's cuda None, a report's "CUDA used to
    build PyTorch: None", or the CPU wheel's `+cpu` version), unless the sources show the engine built for the CPU
    on purpose (facts/engines_shown.cpu_build_shown: vLLM's `+cpu` version, a prompt's `(vllm-cpu)` environment; corpus
    2183), where that torch is the build it needs: not an issue. CUDA's error `no kernel image is available for
    execution on the device` (cudaErrorNoKernelImageForDevice) proves the issue on its own, quoted, wherever
    it stands.

    Why: PyTorch 2.7 with CUDA 12.8 wheels was the first release with Blackwell kernels; older
    builds cannot run there at all.

    Traps: PTX-only coverage works but JIT-compiles at first use (slow start, not slow serving).
    A cubin runs on a higher minor of its major (sm_86 kernels on an sm_89 GPU).
    A kernel library an engine runs by default has its own floor (KERNEL_FLOORS: FlashInfer before
    0.1.6 has no Turing kernels, and SGLang 0.2 runs it for attention).
    The arch list is compiled into libtorch_cuda.so; a pasted report that prints torch's build configuration
    states it (`NVCC architecture flags: -gencode;arch=compute_70,code=sm_70;...`, whole to its last target:
    facts/collect_env.arch_flags), whatever the build; else an official wheel's follows from its version
    (`2.5.1+cu124`, WHEEL_ARCHES), and each GPU model's capability from the paste where it states one (SGLang's
    check_env prints torch's reading), else from the GPU table.
    A capability that the wheels of one CUDA carry on one platform only (WHEEL_ARCHES_VARY: sm_75 on x86_64, sm_110
    on aarch64 for cu129 and cu130) is settled by the machine a collect_env of that torch names (`OS: Ubuntu 22.04.5
    LTS (x86_64)`, WHEEL_ARCHES_ON); without it the check stays unknown.
    An engine installed beside that torch that generated tokens on the GPU (vLLM's metrics line with its GPU KV
    cache in use, facts/cuda_ran.py) ran its model's kernels there: a CUDA build of torch carries code for the GPU
    (a cubin or PTX) where no GPU model is named, or where the one model's coverage is otherwise unsettled: ok.
    Any other build, or a model the table lacks, leaves the check `unknown`, naming which.
    A container of an NGC framework image (`nvcr.io/nvidia/tritonserver:20.03.1-py3`) carries kernels from its
    release's floor up (docker.NGC_CAPABILITY_FLOOR: 6.0 for 19.01 to 24.10, 7.5 for 25.03 to 25.08): a GPU shown below
    it is an issue, whatever else the paste shows. A container that runs `tritonserver` from an image without an NGC
    release, and without `--min-supported-compute-capability`, has Triton's default floor, 6.0 (TRITON_PROGRAM_FLOOR:
    the program's name dates it to 20.03 or later; corpus 1925).
    A GPU model whose minor neither the GPU table nor its model words settle, of an architecture whose every GPU has
    one major (gputable.SINGLE_MAJOR: the GTX TITAN X, Maxwell 5.0 or 5.2; the A30, Ampere), is judged by that major
    (`5.x`): the arch list's cubin or PTX of minor 0 runs on each of its GPUs (corpus 2795, 2802); none of that major,
    and no older PTX, is none for it.
    Where no torch is read, an NGC image the paste names (its container's, or on a line of its own) covers each GPU
    shown between its release's floor and the newest capability its release's CUDA builds (NGC_RELEASE_CUDA,
    ARCH_MIN_CUDA): ok (corpus 1817); a GPU newer than that CUDA stays unknown. So does a Text Embeddings Inference
    image whose tag names the one compute capability it is built for (`86-1.5`: docker.tei_image_capability) where
    every GPU shown has that capability (corpus 2668, 2674); another capability stays unknown.
    """
    if gpus is not None and gpus.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    below = _below_ngc_floor(docker_containers, gpus)
    if below is not None:
        return below
    if python_env is None:
        return _within_ngc_release(docker_containers, cuda_runtime, gpus) or _within_tei_build(docker_containers, gpus) \
            or unknown("", needs="python_env")
    envs = [e for e in python_env.environments if e.version("torch")]
    where = _where(python_env)
    if gpus is not None and gpus.none_on_bus:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    if not envs and python_env.from_report:  # a pasted report, maybe cut: no torch line proves no torch
        return unknown(f"torch's version is not in the pasted report{where}", hint="paste the whole report")
    if not envs:
        return not_applicable(f"torch is not installed in the serving environment{where}")
    # Built without CUDA: torch/version.py's cuda None, a report's "CUDA used to build PyTorch: None" (collect_env.NO_CUDA_BUILD), or the CPU
    # wheel's local version `+cpu` (download.pytorch.org/whl/cpu) where the report could not collect the build's CUDA.
    cpu_only = [e for e in envs if e.torch_cuda == "" or (e.version("torch") or "").endswith("+cpu")]
    if cpu_only and gpus is not None and gpus.count and engines_shown is not None and engines_shown.cpu_build:
        e = cpu_only[0]
        shown = [g.label for g in gpus.gpus] or [f"GPU {i}" for i in range(gpus.count)]
        return over_subjects(not_an_issue(
            f"torch {e.version('torch')} in {e.source} is built without CUDA beside {gpus.count} NVIDIA GPU(s), but "
            f"{engines_shown.cpu_build}: the engine runs on the CPU on purpose, and a CPU torch is the build it needs",
            actual={"torch": e.version("torch")}, subjects=list(gpus.bdfs)), shown,
            ask="python -m torch.utils.collect_env")
    if cpu_only and gpus is not None and gpus.count:
        e = cpu_only[0]
        # Over the GPUs the sources show (corpus 450: collect_env's one A100, `1 GPU shown`); the engine counts the host's.
        shown = [g.label for g in gpus.gpus] or [f"GPU {i}" for i in range(gpus.count)]
        return over_subjects(issue(
            f"torch {e.version('torch')} in {e.source} is built without CUDA: it has no CUDA kernels and cannot use "
            f"the {gpus.count} NVIDIA GPU(s){where}",
            actual={"torch": e.version("torch"), "cuda": None}, expected="a CUDA build of torch (cu12x)",
            subjects=list(gpus.bdfs), evidence=[f"{e.site_packages[0] if e.site_packages else e.prefix or e.source}: "
                                                      f"torch {e.version('torch')}, built with CUDA "
                                                      f"{'None' if e.torch_cuda == '' else 'unknown'}"],
        ), shown, ask="python -m torch.utils.collect_env")
    e = envs[0]
    floor = _below_kernel_floor(e, gpus)
    if floor is not None:
        return floor
    torch_v = e.version("torch") or ""
    # The build's own list, where the paste states it (a report's NVCC architecture flags), else the official wheel's.
    built = e.torch_arch_list
    # A release printed bare beside its CUDA: the PyTorch project's packaging of it, read for what its wheel's list holds
    # only; the CUDA line is the imported torch's, so only where the report's version line is that release.
    same = collect_env is None or collect_env.torch_version.split("+")[0] == torch_v.split("+")[0]
    bare = "" if built or wheel_arch_list(torch_v) is not None or not same else official_build(torch_v, e.torch_cuda)
    wheel = bare or torch_v
    arch_list = built or wheel_arch_list(wheel)
    caps, unsettled = _capabilities(gpus, collect_env.capabilities if collect_env is not None else None)
    # A model whose minor nothing settles, of an architecture of one major (gputable.SINGLE_MAJOR: the GTX TITAN X,
    # Maxwell; the A30, Ampere): judged by that major (`5.x`), which a cubin of its minor 0 covers (corpus 2795, 2802).
    from stackaudit.gputable import SINGLE_MAJOR, architecture_of

    majors = {name: f"{major}.x" for name in unsettled if (major := SINGLE_MAJOR.get(architecture_of(name)))}
    caps, unsettled = {**caps, **majors}, [name for name in unsettled if name not in majors]
    actual = {"torch": torch_v, "cuda": e.torch_cuda, **({"arch_list": list(arch_list)} if arch_list else {}),
              **({"gpus": caps} if caps else {})}
    m = _WHEEL_VERSION.fullmatch(wheel.strip()) if arch_list is not None and not built else None
    cuda_key = (int(m.group(5)), int(m.group(6))) if m is not None else None
    machine = collect_env.machine if collect_env is not None and same else ""
    carried = WHEEL_ARCHES_ON.get(cuda_key, {}).get(machine, ()) if cuda_key is not None else ()
    varies = WHEEL_ARCHES_VARY.get(cuda_key, ()) if cuda_key is not None else ()
    verdicts = {name: True if cap in carried else None if cap in varies
                else torch_supports(cap, torch_v, e.torch_cuda, arch_list) for name, cap in caps.items()}
    if bare:
        verdicts = {name: v or None for name, v in verdicts.items()}
    missing = [name for name, v in verdicts.items() if v is False]
    if missing:
        no_kernels = issue(f"torch {torch_v} (CUDA {e.torch_cuda or 'unknown'}) in {e.source} has no kernels for "
                           + ", ".join(f"{n} (compute {caps[n]})" for n in missing)
                        + (f": its arch list is {', '.join(arch_list)}" if arch_list else "") + where,
                        actual=actual, expected="the GPUs' sm_XY in torch.cuda.get_arch_list()",
                        subjects=list(gpus.bdfs) if gpus is not None else [])
        # Over the GPUs the sources show, as the ok below (corpus 1876: one series in the user's words, 1 GPU shown).
        labels = [g.label for g in gpus.gpus if g.model] if gpus is not None else []
        return over_subjects(no_kernels, labels, gpus.whole_count, ask="nvidia-smi -L") if gpus is not None and labels \
            else no_kernels
    if gpus is not None and caps and not unsettled and arch_list is not None and all(verdicts.values()):
        warned = _warned_yet_covered(gpus, caps, arch_list)
        if warned:
            said = ", ".join(f"{n} (compute {caps[n]}; the build carries {sm})" for n, sm in warned)
            return over_subjects(not_an_issue(
                f"torch {torch_v} warns that {said} is outside the capabilities its build lists ({', '.join(arch_list)}), "
                "but a cubin runs on a higher minor of its major: the warning names the build's range, not a missing "
                "kernel" + where, actual=actual), [g.label for g in gpus.gpus if g.model], gpus.whole_count,
                ask="nvidia-smi -L")
        kind = (f"its NVCC architecture flags in {e.source}" if built
                else f"a release printed without a local label: the PyTorch project's CUDA {e.torch_cuda} build of it, PyPI's "
                     f"wheel or the pytorch channel's conda package, as the {bare} wheel" if bare
                else f"an official CUDA {e.torch_cuda or '?'} wheel")
        return over_subjects(ok(f"torch {torch_v} ({kind}: {', '.join(arch_list)}) has kernels for "
                                + ", ".join(f"{n} (compute {c})" for n, c in caps.items()) + where, actual=actual),
                             [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")
    decoded = _decoded_with(cuda_ran, e, caps, unsettled)
    if decoded is not None:
        engine, ran = decoded
        judged = ok(f"{ran.did} on torch {torch_v} (CUDA {e.torch_cuda}), which {e.source} shows beside {engine}: "
                    "the model's kernels ran on the GPU, so this torch carries code for it (one without stops at its "
                    "first kernel with 'no kernel image is available')"
                    + (f" ({', '.join(f'{n}, compute {c}' for n, c in caps.items())})" if caps else "") + where,
                    actual={**actual, "generated": ran.line[:200]}, evidence=[ran.line[:300]])
        labels = [g.label for g in gpus.gpus] if gpus is not None else []
        return over_subjects(judged, labels, gpus.whole_count, ask="nvidia-smi -L") if labels and gpus else judged
    blackwell = torch_supports("12.0", torch_v, e.torch_cuda)
    note = (" This build cannot run on Blackwell (sm_100/sm_120 need torch >= 2.7 with CUDA >= 12.8)."
            if blackwell is False else "")
    lacking = [f"the compute capability of {', '.join(unsettled)} (not in the GPU table)" if unsettled else "",
               "which GPUs serve (no GPU model in this source)" if not caps and not unsettled else "",
               f"torch's arch list (no known list for the build torch {torch_v})"
               if arch_list is None else "",
               f"whether torch {torch_v} carries " + ", ".join(sorted({f'sm_{caps[n].replace(".", "")}' for n, v
                                                                     in verdicts.items() if v is None}))
               + " (the releases or platforms its CUDA's list holds for differ there)"
               if arch_list is not None and any(v is None for v in verdicts.values()) else ""]
    return unknown(
        f"torch {torch_v} (CUDA {e.torch_cuda or 'unknown'}) in {e.source}: coverage cannot be confirmed without "
        + " and ".join(x for x in lacking if x) + f".{note}{where}",
        hint="python -c 'import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())' "
             "in the engine's environment",
        actual=actual,
    )


def _warned_yet_covered(gpus: GpuInventory, caps: dict[str, str], arch_list: Sequence[str]) -> list[tuple[str, str]]:
    """(GPU model, the cubin that covers it) for each model torch's own capability warning names
    (facts/gpus.TORCH_WARNED: `Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.`, torch 2.9's check against the
    highest capability its build lists) whose exact sm_XY the arch list lacks while it carries a lower minor of the
    same major (sm_120 for a 12.1 GB10): that cubin runs there (binary compatibility within a major), so the warning
    names a range, not a missing kernel (pytorch/pytorch#164596)."""
    listed = [a for a in arch_list if re.fullmatch(r"sm_\d+", a)]
    warned = {r.model for r in gpus.gpus if r.model and TORCH_WARNED_TITLE in r.shown_by}
    found: list[tuple[str, str]] = []
    for name in sorted(warned & caps.keys()):
        major, _, minor = caps[name].partition(".")
        if not (major.isdigit() and minor.isdigit()) or f"sm_{major}{minor}" in listed:
            continue
        lower = [a for a in listed if a[3:-1] == major and int(a[-1]) < int(minor)]
        if lower:
            found.append((name, max(lower)))
    return found


# --- RT-FLASHINFER ---------------------------------------------------------------------------

# FlashInfer's sources include cuda_fp8.h, which CUDA 11.8 introduced: with an older nvcc none of its kernels JIT-builds
# (flashinfer-ai/flashinfer#514, its maintainer: "For old version of cuda (<11.8), flashinfer didn't compile because we
# include fp8 headers directly without guard", closed wontfix; sgl-project/sglang#5389: `fatal error: cuda_fp8.h` under
# NVCC 11.7, corpus 1184).
FLASHINFER_MIN_NVCC = (11, 8)


def _jit_toolkit_problems(e: PythonEnvironment) -> list[str]:
    """What is wrong with the toolkit FlashInfer JIT-builds with (CUDA_HOME's nvcc) in one environment: one of
    another major than torch's CUDA or older than it (FlashInfer's JIT links that toolkit's cudart beside torch's,
    flashinfer/jit/cpp_ext.py), and one too old for FlashInfer's fp8 headers."""
    torch_cuda = release(e.torch_cuda, 2)
    home_cuda = release(e.cuda_home_version, 2)
    problems: list[str] = []
    if not home_cuda:
        return problems
    if torch_cuda and (home_cuda[0] != torch_cuda[0] or home_cuda < torch_cuda):
        problems.append(f"CUDA_HOME {e.cuda_home} is CUDA {e.cuda_home_version} but torch is built with "
                        f"CUDA {e.torch_cuda}: FlashInfer JIT compiles against the wrong toolkit")
    if home_cuda < FLASHINFER_MIN_NVCC:
        problems.append(f"nvcc {e.cuda_home_version} predates cuda_fp8.h (CUDA 11.8), which FlashInfer's sources "
                        "include, so none of its kernels JIT-builds (flashinfer-ai/flashinfer#514)")
    return problems



@check(
    "RT-FLASHINFER",
    applies_to="flashinfer-engine",
    title="FlashInfer package mismatch / JIT toolchain different from torch's CUDA",
    severity="medium",
    confidence="field-reports",
    fix=advice("Install flashinfer-python, flashinfer-cubin and flashinfer-jit-cache at one version; point CUDA_HOME "
                   "to a CUDA toolkit matching torch's (>= 12.9 for sm_120 JIT), or use the engine's official "
                   "container", cost="restart", scope="container"),
    references=("https://github.com/lightseekorg/tokenspeed/pull/284", "https://github.com/vllm-project/vllm/issues/50705",
                "https://github.com/vllm-project/vllm/issues/44305", "https://github.com/vllm-project/vllm/issues/19810",
                "https://github.com/flashinfer-ai/flashinfer/issues/514"),
)
def flashinfer(python_env: PythonEnv, serving_processes: ServingProcesses | None = None) -> Outcome:
    """Reads: `flashinfer-python`, `flashinfer-cubin`, `flashinfer-jit-cache` versions in the
    serving process's site-packages; its `CUDA_HOME` (else /usr/local/cuda) and that toolkit's
    `version.json`; torch's CUDA; `FLASHINFER_DISABLE_VERSION_CHECK` in the engine's environment.

    Bad value: the FlashInfer packages at different versions (FlashInfer refuses to import unless
    FLASHINFER_DISABLE_VERSION_CHECK=1, and then stale cubins crash); a CUDA_HOME toolkit of
    another major version than torch's CUDA, or older than it (JIT builds against the wrong CUDA);
    an nvcc older than 11.8, which lacks the cuda_fp8.h FlashInfer's sources include, so none of
    its kernels JIT-builds (flashinfer-ai/flashinfer#514). Where SGLang's check_env prints
    `flashinfer: Module Not Found`, such a toolkit is still an issue (FlashInfer could not be
    JIT-built there once installed); with a usable toolkit the engine's backend is unknown.

    Why: FlashInfer kernels come precompiled (cubin, jit-cache) or JIT-compiled with CUDA_HOME's
    nvcc; mixed versions or toolchains fail at load or at first use, and vLLM then falls back to
    slower PyTorch-native sampling.

    Traps: a missing system CUDA toolkit is fine when nothing JIT-compiles (precompiled cubins
    cover the common cases). On sm_120 GPUs JIT needs nvcc >= 12.9 (checked once GPU facts exist).
    A toolkit newer than torch's CUDA within its major is ok: torch's extension builder only warns
    on a minor-version difference, and FlashInfer picks its nvcc flags from that nvcc's version.
    """
    envs = [e for e in python_env.environments if any(n.startswith("flashinfer") for n in e.packages)]
    where = _where(python_env)
    if not envs and python_env.from_report:  # a pasted report, maybe cut: no flashinfer line proves none
        # SGLang's check_env prints `flashinfer: Module Not Found` where `import flashinfer` failed in its shell.
        absent = [e for e in python_env.environments
                  if e.engine == "sglang" and any(n.startswith("flashinfer") for n in e.not_importable)]
        for e in absent:
            if unbuildable := _jit_toolkit_problems(e):
                return issue(f"CUDA_HOME's NVCC {e.cuda_home_version} cannot JIT-build FlashInfer (SGLang's "
                             f"first-choice attention backend), not importable in the shell of this {e.source} "
                             "(`flashinfer` Module Not Found), once it is installed there: "
                             + "; ".join(unbuildable) + where,
                             actual={"flashinfer": "Module Not Found",
                                     "cuda_home": f"{e.cuda_home} ({e.cuda_home_version}, from {e.cuda_home_from})"},
                             expected=f"CUDA_HOME a toolkit >= {'.'.join(map(str, FLASHINFER_MIN_NVCC))} matching "
                                      "torch's CUDA",
                             evidence=[f"{e.source}: flashinfer: Module Not Found",
                                       f"{e.source}: NVCC release {e.cuda_home_version}, torch CUDA {e.torch_cuda}"])
        if absent:
            return unknown(f"the pasted report shows FlashInfer not importable in the shell it ran in (`flashinfer: "
                           f"Module Not Found`): whether the engine ran FlashInfer at all is not shown{where}",
                           hint="paste the engine's start-up log (its attention backend line)")
        return unknown(f"FlashInfer's version is not in the pasted report{where}", hint="paste the whole report")
    if not envs:
        return not_applicable(f"FlashInfer is not installed in the serving environment{where}")
    disabled_check = False
    if serving_processes is not None:
        targets, _ = _env_targets(serving_processes)
        disabled_check = any(p.env("FLASHINFER_DISABLE_VERSION_CHECK") == "1" for p in targets)
    problems: list[str] = []
    evidence: list[str] = []
    severe = False
    actual: dict[str, object] = {}
    for e in envs:
        versions = {n: e.packages[n] for n in (*FLASHINFER_PACKAGES, "flashinfer") if n in e.packages}
        actual.update({f"{n}": v for n, v in versions.items()})
        evidence.extend(f"{e.source}: {n} {v}" for n, v in versions.items())
        bases = {public_version(v) for n, v in versions.items() if n in FLASHINFER_PACKAGES}
        if len(bases) > 1:
            problems.append("FlashInfer packages at different versions ("
                            + ", ".join(f"{n} {v}" for n, v in versions.items()) + ")")
            if disabled_check:
                severe = True
                problems[-1] += " with FLASHINFER_DISABLE_VERSION_CHECK=1 (stale cubins crash)"
        if e.cuda_home_version:
            actual["cuda_home"] = f"{e.cuda_home} ({e.cuda_home_version}, from {e.cuda_home_from})"
            evidence.append(f"{e.cuda_home}/version.json: CUDA {e.cuda_home_version}")
        problems.extend(_jit_toolkit_problems(e))
    if problems:
        return issue("; ".join(problems) + where, actual=actual,
                     expected="one FlashInfer version; CUDA_HOME matching torch's CUDA",
                     severity="high" if severe else None, evidence=evidence)
    if not any(e.cuda_home_version for e in envs):
        return not_an_issue("no CUDA toolkit (CUDA_HOME, /usr/local/cuda) for FlashInfer's JIT: fine while the "
                            f"precompiled cubins cover the kernels in use{where}", actual=actual, evidence=evidence)
    newer = [f"CUDA_HOME's CUDA {e.cuda_home_version} is newer than torch's {e.torch_cuda} within CUDA "
             f"{release(e.torch_cuda, 1)[0]} (a minor-version difference torch's extension builder only warns on)"
             for e in envs if e.cuda_home_version and e.torch_cuda
             and release(e.cuda_home_version, 2) > release(e.torch_cuda, 2)]
    return ok("FlashInfer packages agree and the JIT toolkit "
              + ("is one FlashInfer builds with: " + "; ".join(newer) if newer else "matches torch's CUDA") + where,
              actual=actual, evidence=evidence)


# --- RT-CUDA-GRAPHS --------------------------------------------------------------------------


def _compilation_cudagraph_none(argv: tuple[str, ...]) -> str | None:
    """`--compilation-config '{"cudagraph_mode": "NONE"}'`, `-O.cudagraph_mode=NONE` and the like."""
    for i, arg in enumerate(argv):
        text = arg
        if arg in ("--compilation-config", "-O") and i + 1 < len(argv):
            text = argv[i + 1]
        if "cudagraph_mode" not in text:
            continue
        try:
            data = load_json(text.partition("=")[2] if text.startswith("--") else text, "--compilation-config")
            if isinstance(data, dict) and str(data.get("cudagraph_mode", "")).upper() == "NONE":
                return arg if arg == text else f"{arg} {text}"
        except ValueError:
            pass
        if re.search(r"cudagraph_mode[\"']?\s*[:= ]\s*[\"']?NONE\b", text, re.IGNORECASE):
            return arg if arg == text else f"{arg} {text}"
    return None


def _optimization_level_zero(argv: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(argv):
        if arg in ("-O0", "-O=0", "--optimization-level=0"):
            return arg
        if arg in ("-O", "--optimization-level") and i + 1 < len(argv) and argv[i + 1] == "0":
            return f"{arg} 0"
    return None


def _compilation_capture_size(argv: tuple[str, ...]) -> int | None:
    """`max_cudagraph_capture_size` (`max_capture_size` before vLLM 0.11) in `--compilation-config` / `-O`."""
    for i, arg in enumerate(argv):
        text = argv[i + 1] if arg in ("--compilation-config", "-O") and i + 1 < len(argv) else arg
        m = re.search(r"max_(?:cudagraph_)?capture_size[\"']?\s*[:= ]\s*(\d+)", text)
        if m:
            return int(m.group(1))
    return None


def _capture_cap(cap: int | None, flag: str, batch: int | None, batch_flag: str,
                 off: list[str], low: list[str]) -> None:
    """A capture cap of 0 turns graphs off; one below 8, or below the batch the engine is set to run, leaves
    the larger batches eager (vLLM `_dummy_run` / SGLang `can_run` fall back to eager above the largest size)."""
    if cap is None:
        return
    if cap == 0:
        off.append(f"{flag} 0 (no batch size captured)")
    elif cap < 8:
        low.append(f"{flag} {cap}")
    elif batch is not None and cap < batch:
        low.append(f"{flag} {cap} below {batch_flag} {batch} (batches of {cap + 1} to {batch} run eagerly)")


# SGLang attention backends it runs without CUDA graphs: "Cuda graph is disabled because of using torch native
# attention backend" / "... torch Flex Attention backend" (python/sglang/srt/server_args.py, v0.5.3).
SGLANG_EAGER_BACKENDS = ("torch_native", "flex_attention")
# SGLang flags that ran without CUDA graphs in the releases before a change, which a command without the version
# leaves open: (flag, the change, why). `--enable-mla` put MLA on the Triton attention backend, which captured no CUDA
# graphs until https://github.com/sgl-project/sglang/pull/1401 (merged 2024-09-12; its DeepSeek-Coder-V2-Lite
# `--enable-mla` runs "triton w/o cuda graph" before it; corpus 1068). Releases before
# https://github.com/sgl-project/sglang/pull/612 ("Enable cuda graph by default") captured none by default.
SGLANG_EAGER_BEFORE = (
    ("--enable-mla", "sgl-project/sglang#1401 (2024-09-12)",
     "MLA ran on the Triton attention backend, which captured no CUDA graphs before it"),
)


def _graphs_switch_missing(argv: tuple[str, ...]) -> str:
    """`gptSessionBenchmark without --enable_cuda_graph ...` where the command runs one of GRAPHS_SWITCH_PROGRAMS
    without its switch; "" otherwise."""
    for program, switch in GRAPHS_SWITCH_PROGRAMS:
        if any(posixpath.basename(a) == program for a in argv[:4]):
            spelled = {switch, switch.replace("_", "-")}
            if not any(a.split("=", 1)[0] in spelled for a in argv):
                return f"{program} without {switch} (it replays CUDA graphs only with that switch)"
    return ""


# vLLM turns CUDA graphs off itself where data parallelism runs DeepEP's high-throughput all-to-all kernels
# (platforms/cuda.py check_and_update_config: "Data Parallel: Forcing enforce eager to be True since DP with DeepEP
# high-throughput kernels are not CUDA Graph compatible", later "Data Parallel: disabling cudagraphs since ...", in the
# releases read from the backend's arrival in 2025 to 0.15; deepseek-ai/DeepEP#391). The backend is
# VLLM_ALL2ALL_BACKEND's value, later also `--all2all-backend`'s; deepep_low_latency keeps the graphs (corpus 2456).
DEEPEP_HT = "deepep_high_throughput"


def _deepep_ht_under_dp(root: ProcessInfo) -> str:
    """`VLLM_ALL2ALL_BACKEND=deepep_high_throughput with --data-parallel-size 16 (...)` where a vLLM command runs
    DeepEP's high-throughput kernels under data parallelism; "" otherwise."""
    flag, env = root.option("--all2all-backend"), root.env("VLLM_ALL2ALL_BACKEND")
    backend = f"--all2all-backend {flag}" if flag is not None else f"VLLM_ALL2ALL_BACKEND={env}"
    dp = _int(root.option("--data-parallel-size", "-dp"))
    if (flag if flag is not None else env) != DEEPEP_HT or dp is None or dp <= 1:
        return ""
    return (f"{backend} with --data-parallel-size {dp} (vLLM turns CUDA graphs off itself for data parallelism "
            "with DeepEP's high-throughput kernels; deepep_low_latency keeps them)")


def _graphs_disabled(root: ProcessInfo) -> tuple[list[str], list[str]]:
    """(what disables CUDA graphs, what caps them low) in one engine instance's flags and config."""
    off: list[str] = []
    low: list[str] = []
    argv = root.flag_argv  # vLLM also takes `--enforce_eager`, `--compilation_config`
    if root.engine == "vllm":
        if _bool_flag(argv, "--enforce-eager") or (_bool_flag(argv, "--enforce-eager") is None
                                                   and _config_true(root, "enforce_eager")):
            off.append("--enforce-eager" + (f" (in {root.config_path})" if "--enforce-eager" not in argv else ""))
        level = _optimization_level_zero(argv)
        if level:
            off.append(f"{level} (optimization level 0: no compilation and no CUDA graphs in current vLLM)")
        mode = _compilation_cudagraph_none(argv)
        if mode:
            off.append(mode)
        cap = _int(root.option("--max-cudagraph-capture-size"))
        flag = "--max-cudagraph-capture-size"
        if cap is None and _compilation_capture_size(argv) is not None:
            cap, flag = _compilation_capture_size(argv), "max_cudagraph_capture_size in --compilation-config"
        _capture_cap(cap, flag, _int(root.option("--max-num-seqs")), "--max-num-seqs", off, low)
        if deepep := _deepep_ht_under_dp(root):
            off.append(deepep)
        # vLLM <= 0.10: sequences longer than this run eagerly (removed in 0.11 for the capture sizes).
        seq = _int(root.option("--max-seq-len-to-capture"))
        model_len = _int(root.option("--max-model-len"))
        if seq is not None and model_len is not None and seq < model_len:
            low.append(f"--max-seq-len-to-capture {seq} below --max-model-len {model_len} (longer sequences run "
                       "eagerly)")
    elif root.engine == "sglang":
        if _bool_flag(argv, "--disable-cuda-graph") or (_bool_flag(argv, "--disable-cuda-graph") is None
                                                        and _config_true(root, "disable_cuda_graph")):
            off.append("--disable-cuda-graph")
        # v0.5.23 replaces --disable-cuda-graph with a backend per phase; `disabled` turns decode graphs off.
        if (root.option("--cuda-graph-backend-decode") or "").lower() == "disabled":
            off.append("--cuda-graph-backend-decode disabled")
        # Settings SGLang turns graphs off for itself (server_args.py `_handle_*`, model_runner.py; v0.5.3).
        backend = (root.option("--attention-backend", "--decode-attention-backend") or "").lower()
        if backend in SGLANG_EAGER_BACKENDS:
            off.append(f"--attention-backend {backend} (SGLang disables CUDA graphs with it)")
        if (root.option("--deepep-mode") or "").lower() == "normal":
            off.append("--deepep-mode normal (SGLang disables CUDA graphs with it)")
        if _bool_flag(argv, "--enable-double-sparsity"):
            off.append("--enable-double-sparsity (SGLang runs it with the Triton backend without CUDA graphs)")
        cap = _int(root.option("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"))
        _capture_cap(cap, "--cuda-graph-max-bs", _int(root.option("--max-running-requests")),
                     "--max-running-requests", off, low)
    elif root.engine == "tgi":
        # TGI's `--cuda-graphs` (env CUDA_GRAPHS): the batch sizes it captures, `0` none (TGI_GRAPHS_SOURCE).
        sizes = root.option("--cuda-graphs")
        flag = "--cuda-graphs"
        if sizes is None and root.env("CUDA_GRAPHS") is not None:
            sizes, flag = root.env("CUDA_GRAPHS"), "CUDA_GRAPHS"
        counts = [_int(v.strip()) for v in (sizes or "").split(",") if v.strip()]
        if counts and None not in counts:
            _capture_cap(max(c for c in counts if c is not None), flag, None, "", off, low)
    elif root.engine == "trtllm" and (switch := _graphs_switch_missing(root.argv)):
        off.append(switch)
    elif root.engine == "trtllm" and root.config.get("cuda_graph_config") == "null":
        off.append(f"cuda_graph_config: null in {root.config_path} (TensorRT-LLM PyTorch backend; version-dependent)")
    elif root.engine == "trtllm" and root.config.get("use_cuda_graph", "").lower() == "false":
        off.append(f"use_cuda_graph: false in {root.config_path} (TensorRT-LLM PyTorch backend before 1.0)")
    return off, low


def _limits(values: Iterable[object]) -> str:
    """`4096`, or `1024 and 4096`: the distinct values found, for a title."""
    return " and ".join(dict.fromkeys(str(v) for v in values))


def _what(settings: Iterable[str]) -> str:
    """`--enforce-eager`, or `--enforce-eager and --disable-cuda-graph`: each setting once, for a title."""
    seen = list(dict.fromkeys(re.split(r" in | below | \(", s)[0] for s in settings))
    return " and ".join(seen) if len(seen) <= 2 else f"{seen[0]} and {len(seen) - 1} more"


def _engine_version(collect_env: CollectEnv | None, engine: str, log: ServingLog | None = None,
                    python_env: PythonEnv | None = None) -> str | None:
    """The engine's version in a pasted vLLM collect_env / SGLang check_env report, else the version line of vLLM's
    own start-up log (`vLLM API server version 0.7.2`), else the version a pasted list states (`sglang: 0.4.3.post4`,
    corpus 881: python_env.STATED_VERSION)."""
    if collect_env is not None:
        version = {"vllm": collect_env.vllm_version, "sglang": collect_env.sglang_version}.get(engine)
        if version:
            return version
    if log is not None and engine == "vllm" and log.vllm_version:
        return log.vllm_version
    package = TGI_PACKAGE if engine == "tgi" else engine
    stated = [e.packages[package] for e in (python_env.environments if python_env is not None else ())
              if package in e.packages]
    return stated[0] if len(set(stated)) == 1 else None


# The engines whose release the tool reads for CUDA graphs (_engine_version), in the order a message names them.
RELEASE_READ = ("vllm", "sglang", "tgi")


def _before_graphs(engines: Iterable[str], collect_env: CollectEnv | None = None, log: ServingLog | None = None,
                   python_env: PythonEnv | None = None, releases: dict[str, str] | None = None) -> str:
    """Why every one of `engines` runs a release from before the engine had CUDA graphs at all (versions.FIRST_RELEASE,
    `cuda_graphs`: vLLM before 0.2.6, TGI before 1.4.0), in words; "" where none is named, or one has them or shows no
    release. The release is `releases`' (an image's tag), else the one the paste states (_engine_version)."""
    shown: list[str] = []
    for engine in dict.fromkeys(engines):
        version = (releases or {}).get(engine) or _engine_version(collect_env, engine, log, python_env)
        first = predates(engine, "cuda_graphs", version)
        if not first:
            return ""
        shown.append(f"{ENGINE_NAMES.get(engine, engine)} {version} is older than {first}, the first release with "
                     f"CUDA graphs ({FIRST_RELEASE[(engine, 'cuda_graphs')][1]})")
    return "; ".join(shown)


def _pre_graph_release(why: str) -> Outcome:
    return not_applicable(f"no CUDA graphs to turn off: {why}, so it runs every decode step eagerly whatever its "
                          "flags")


def _graphs_on_command_lines(commands: EngineCommands, collect_env: CollectEnv | None = None,
                             log: ServingLog | None = None, python_env: PythonEnv | None = None) -> Outcome:
    """A pasted engine command line: an eager-mode flag on it is the setting. Without one, a complete line
    with the engine's version is complete evidence of the flags (issue 28); what the engine may still decide
    itself is vLLM's eager mode under data parallelism (corpus 67), which only its log shows."""
    found = [(c, _graphs_disabled(c.as_process())) for c in commands.commands]
    evidence = [c.quoted[:400] for c in commands.commands]
    off = [(c, x) for c, (o, _) in found for x in o]
    if off:
        return issue(f"CUDA graphs are disabled by {_what(x for _, x in off)} on the pasted command line: "
                     + "; ".join(f"`{c.quoted[:120]}`: {x}" for c, x in off)
                     + " (fine only while debugging or when the model fails to capture)",
                     actual=[f"`{c.quoted[:120]}`: {x}" for c, x in off], expected="CUDA graphs on (no eager-mode flag)",
                     evidence=evidence)
    low = [(c, x) for c, (_, lo) in found for x in lo]
    if low:
        return issue(f"CUDA-graph capture capped low by {_what(x for _, x in low)} on the pasted command line, larger "
                     "batches run eagerly: " + "; ".join(x for _, x in low),
                     actual=[x for _, x in low], expected="capture sizes up to the batch the engine runs",
                     evidence=evidence, severity="low")
    if why := _before_graphs((c.engine for c in commands.commands), collect_env, log, python_env):
        return _pre_graph_release(why)
    tgi = [c for c in commands.commands if c.engine == "tgi"]
    if tgi:
        return unknown(_tgi_graphs_open(tgi[0].argv, "pasted TGI command line"), hint=TGI_GRAPHS_HINT)
    data_parallel = [c for c in commands.commands if c.engine == "vllm" and (sizes_from_argv(c.argv)[2] or 1) > 1]
    if data_parallel:
        return unknown("no eager-mode flag on the pasted command line, but it runs vLLM with data parallelism, "
                       "under which vLLM releases forced eager mode themselves: its start-up log says",
                       hint="paste the engine's start-up log (the CUDA graph capture lines)")
    cut = [c for c in commands.commands if c.cut]
    if cut:
        return unknown("no eager-mode flag on the pasted command line, but its last line ends in `\\` or the paste ends "
                       f"inside it: the command goes on past the paste, where a flag could turn CUDA graphs off (`{cut[0].quoted[-120:]}`)",
                       hint="paste the whole command line")
    launched = [c for c in commands.commands if c.launcher_sets_graphs]
    versions = {c.engine: _engine_version(collect_env, c.engine, log, python_env) for c in commands.commands
                if c not in launched}
    for c in commands.commands:  # a program or flag of a release that captures graphs by default stands for it
        mark, since = c.graphs_default_mark
        if mark and c not in launched and not versions.get(c.engine):
            versions[c.engine] = f"{since} or later (`{mark}` is in no earlier release)"
        elif c.graphs_configured and c not in launched and not versions.get(c.engine):
            versions[c.engine] = f"with cuda_graph_config set in {c.config_path}, which turns them on in every release"
        elif c.engine == "sglang" and log is not None and log.sglang_dated_line and not versions.get("sglang") \
                and not any(argv_value(c.argv, (flag,)) is not None for flag, _, _ in SGLANG_EAGER_BEFORE):
            # SGLang's own log line in its dated format: a release from late 2024, after sgl-project/sglang#612.
            versions["sglang"] = (f"of late 2024 or later (its log line `{log.sglang_dated_line[:60]}` is in a "
                                  "format no earlier release prints)")
    if all(versions.values()):
        shown = [f"{ENGINE_NAMES.get(e, e)} {v}" for e, v in versions.items()]
        shown += [f"`{posixpath.basename(c.argv[0])}` sets them itself in every release"
                  + (f", and {c.config_name} does not turn them off" if c.config_path else "") for c in launched[:1]]
        return ok(f"CUDA graphs are on: no flag on the pasted command line turns them off ({'; '.join(shown)})",
                  actual="enabled", evidence=evidence)
    missing = [e for e, v in versions.items() if not v]
    before = [f"`{flag}` ran without CUDA graphs in SGLang releases before {change}: {why}"
              for flag, change, why in SGLANG_EAGER_BEFORE
              if any(c.engine == "sglang" and argv_value(c.argv, (flag,)) is not None for c in commands.commands)]
    dated_2023 = log.vllm_2023_stats_line if log is not None and "vllm" in missing else ""
    if dated_2023:
        return unknown("no eager-mode flag on the pasted command line, but the vLLM log's stats line is in the format "
                       "llm_engine.py printed in releases 0.1.4 to 0.2.7 (vllm-project/vllm#700 to #2316), and only "
                       f"0.2.6 and 0.2.7 of them capture CUDA graphs (vllm-project/vllm#1926): {dated_2023[:160]}",
                       hint="paste `python -m vllm.collect_env` or the start-up log's version line")
    if missing and not before and all(e in GRAPHS_DEFAULT_SINCE for e in missing):
        # The class h73b counted: a whole command with no eager-mode flag and no release shown reads ok.
        shown = [f"{ENGINE_NAMES.get(e, e)} {v}" for e, v in versions.items() if v]
        since = "; ".join(f"{ENGINE_NAMES.get(e, e)} captures them by default from {GRAPHS_DEFAULT_SINCE[e]}"
                          for e in missing)
        return ok("CUDA graphs are on: no flag on the whole pasted command line turns them off, and " + since
                  + (f" ({'; '.join(shown)})" if shown else "")
                  + "; the release is not in the source, and only one older than that ran without them",
                  actual="enabled", evidence=evidence)
    if "trtllm" in versions and not versions["trtllm"]:
        return unknown("no eager-mode flag on the pasted TensorRT-LLM command line, but its version is not in the "
                       "source: the PyTorch backend turns CUDA graphs on by default from 1.0 (PR 5480), and before it "
                       "only where the --extra_llm_api_options YAML sets use_cuda_graph or cuda_graph_config",
                       hint="name the TensorRT-LLM release the command ran (1.0 and later turn CUDA graphs on by "
                       "default)")
    return unknown("no eager-mode flag on the pasted command line, but the engine's version is not in the source "
                   + (f"and {before[0]}" if before else "(releases differ in what they turn off themselves)"),
                   hint="paste `python -m vllm.collect_env` (or `python -m sglang.check_env`), or the start-up log")


# TGI's CUDA graphs: `--enable-cuda-graphs` turned them on in 1.4 as an experiment (off by default,
# huggingface/text-generation-inference#1428); from 2.0 `--cuda-graphs` lists the batch sizes to capture, "1,2,4,8,16,32"
# by default and `0` for none (#1703, the launcher's --help). At warmup each shard catches a capture that runs out of
# memory (an error of any kind in 1.4), logs "Decode cuda graph warmup failed" and serves without graphs
# (server/text_generation_server/models/flash_causal_lm.py): the command shows what was asked, the log what ran.
TGI_GRAPHS_SOURCE = "https://huggingface.co/docs/text-generation-inference/reference/launcher"


TGI_GRAPHS_HINT = ("paste TGI's start-up log (its 'Cuda Graphs are enabled for sizes' line, and whether 'Decode cuda "
                   "graph warmup failed' follows)")


def _tgi_graphs_open(argv: tuple[str, ...], where: str) -> str:
    """Why TGI's launcher arguments that do not turn CUDA graphs off leave them open, in words."""
    asked = ("`--enable-cuda-graphs` asks for them (TGI 1.4's experimental switch)"
             if argv_value(argv, ("--enable-cuda-graphs",)) is not None else
             f"`--cuda-graphs {argv_value(argv, ('--cuda-graphs',))}` asks for them"
             if argv_value(argv, ("--cuda-graphs",)) is not None else
             "TGI captures them by default from 2.0 (`--cuda-graphs 1,2,4,8,16,32`), before it only with "
             "1.4's `--enable-cuda-graphs`, and the release is not in the source")
    return (f"no flag in the {where} turns CUDA graphs off, and {asked}; but TGI skips the graphs "
            "where their capture fails at warmup (it logs 'Decode cuda graph warmup failed' and serves without "
            f"them), so only its log shows that they ran ({TGI_GRAPHS_SOURCE})")


def _graphs_flags(shown: list[tuple[str, str, str, ProcessInfo]]) -> Outcome | None:
    """The eager-mode and capture-cap flags on engine command lines shown as (label, subject, where, process):
    an issue naming the lines that carry one, or None when none does."""
    off_all: list[str] = []
    low_all: list[str] = []
    flags: list[str] = []
    subjects: list[str] = []
    evidence: list[str] = []
    for label, subject, where, proc in shown:
        off, low = _graphs_disabled(proc)
        if off or low:
            subjects.append(subject)
            evidence.append(f"{where}: {' '.join(proc.argv)[:400]}")
        off_all.extend(f"{label}: {x}" for x in off)
        low_all.extend(f"{label}: {x}" for x in low)
        flags += off or low
    if off_all:
        return issue(f"CUDA graphs are disabled by {_what(flags)}: " + "; ".join(off_all)
                     + " (fine only while debugging or when the model fails to capture)",
                     actual=off_all, expected="CUDA graphs on (no eager-mode flag)", subjects=subjects,
                     evidence=evidence)
    if low_all:
        return issue(f"CUDA-graph capture capped low by {_what(flags)}, larger batches run eagerly: "
                     + "; ".join(low_all), actual=low_all, expected="capture sizes up to the batch the engine runs",
                     subjects=subjects, evidence=evidence, severity="low")
    return None


def _graphs_in_container_specs(containers: DockerContainers, python_env: PythonEnv | None = None) -> Outcome:
    """RT-CUDA-GRAPHS on the engine argv of containers (docker inspect Args, a pasted docker run / compose /
    pod spec) where no engine process is in the source. A TGI image whose tag names its release (docker.TGI_IMAGE),
    else the TGI release a list states, is that container's release."""
    engines = [(c, c.engine) for c in containers.containers if c.engine]
    if not engines:
        if any(c.excerpt for c in containers.containers):
            return unknown("the pasted container spec is an excerpt and names no engine")
        return not_applicable("no vLLM, SGLang, TensorRT-LLM or TGI engine in the containers' commands ("
                              + ", ".join(c.image or c.label for c in containers.containers[:3]) + ")")
    judged = _graphs_flags([(f"container {c.label}", c.label, f"container {c.label} command",
                             ProcessInfo(pid=0, ppid=None, comm="", argv=c.argv, engine=engine, root_pid=0))
                            for c, engine in engines])
    if judged is not None:
        return judged
    tags = {tgi_image_release(c.image) for c, engine in engines if engine == "tgi"}  # "": a tag naming none
    if len(tags) <= 1 and (why := _before_graphs((e for _, e in engines), python_env=python_env,
                                                 releases=dict.fromkeys(["tgi"], max(tags, default="")))):
        return _pre_graph_release(why)
    tgi = [c for c, engine in engines if engine == "tgi"]
    if tgi:
        return unknown(_tgi_graphs_open(tgi[0].argv, f"container {tgi[0].label}'s TGI arguments"),
                       hint=TGI_GRAPHS_HINT)
    # An excerpt may hold a flag in the part left out, unless it shows the engine's command and args whole
    # (DockerContainer.command_whole: a compose service cut below its command, a pod spec's `containers:` list alone).
    if any(c.excerpt and not c.command_whole for c, _ in engines):
        return unknown("no eager-mode flag in the engine arguments shown, but the container spec is an excerpt",
                       hint="paste the whole `docker inspect <container>` or the full command line")
    # A spec's command may still name a --config file whose keys are not in the paste.
    return ok("CUDA graphs are on in the containers' engine commands: "
              + ", ".join(c.label for c, _ in engines), actual="enabled",
              evidence=[f"container {c.label} command: {' '.join(c.argv)[:200]}" for c, _ in engines])


def _batches(sizes: Iterable[int]) -> str:
    """`1`, `36 and 46`, `12 to 46`: the running batches a set of decode lines shows."""
    ordered = sorted(set(sizes))
    if len(ordered) <= 2:
        return " and ".join(str(n) for n in ordered)
    return f"{ordered[0]} to {ordered[-1]}"


def _graphs_in_decode_lines(log: ServingLog) -> Outcome:
    """SGLang's decode lines say per step whether a CUDA graph ran (`cuda graph: False` above the capture cap)."""
    eager = [n for n, graphed in log.decode_graph_batches if not graphed]
    graphed = [n for n, g in log.decode_graph_batches if g]
    actual = {"eager_batches": sorted(set(eager)), "graph_batches": sorted(set(graphed))}
    if not eager:
        return ok(f"CUDA graphs are on: every SGLang decode step shown replayed one (running batches "
                  f"{_batches(graphed)})", actual=actual)
    evidence = list(log.decode_graph_lines[:3])
    if 1 in eager or not graphed:
        return issue(f"CUDA graphs are off: SGLang decode steps at running batch {_batches(eager)} ran without one "
                     "(`cuda graph: False`)", actual=actual, expected="cuda graph: True on decode steps",
                     evidence=evidence)
    above = min(eager) > max(graphed)
    why = (f"the running batch exceeds the capture cap (--cuda-graph-max-bs): batches up to {max(graphed)} replayed "
           "graphs" if above else f"other decode batches ({_batches(graphed)}) replayed graphs")
    return issue(f"SGLang decode steps at running batch {_batches(eager)} ran without CUDA graphs; {why}; "
                 "batch 1 is unaffected", actual=actual, expected="a capture cap at or above the running batch",
                 evidence=evidence, severity="low")


@check(
    "RT-CUDA-GRAPHS",
    applies_to="graph-engine",
    title="CUDA graphs disabled",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Restart the engine without the flag: remove --enforce-eager (vLLM) / --disable-cuda-graph "
                       "(SGLang) / `cuda_graph_config: null` (TensorRT-LLM) from the launch command or config",
                       cost="restart", scope="container"),
                  note="to save memory, lower the capture sizes instead"),
    references=("https://docs.vllm.ai/en/latest/configuration/engine_args.html",
                "https://github.com/vllm-project/vllm/issues/7567"),
)
def cuda_graphs(serving_processes: ServingProcesses | None = None,
                docker_containers: DockerContainers | None = None, serving_log: ServingLog | None = None,
                engine_commands: EngineCommands | None = None, collect_env: CollectEnv | None = None,
                python_env: PythonEnv | None = None, gpus: GpuInventory | None = None,
                stated_graph_mode: StatedGraphMode | None = None) -> Outcome:
    """Reads: the command line of each engine's top process (/proc/<pid>/cmdline: the API server
    holds the flags; titled children do not) and the config file it names (`--config`,
    `--extra_llm_api_options`); else a container's engine arguments, the engine's log, or a pasted
    command line (with the engine's version from a pasted collect_env / check_env, vLLM's start-up log, or a
    version line the paste lists, `sglang: 0.4.3.post4`).

    Bad value: vLLM `--enforce-eager`, `-O0` / `--optimization-level 0`, `cudagraph_mode` NONE in
    `--compilation-config`, a capture size of 0; SGLang `--disable-cuda-graph`,
    `--cuda-graph-backend-decode disabled`, and what SGLang runs without graphs itself
    (`--attention-backend torch_native|flex_attention`, `--deepep-mode normal`,
    `--enable-double-sparsity`); vLLM under data parallelism with DeepEP's high-throughput all-to-all
    (`VLLM_ALL2ALL_BACKEND` or `--all2all-backend deepep_high_throughput`), which vLLM runs without graphs
    itself (corpus 2456); TensorRT-LLM `cuda_graph_config: null`, and gptSessionBenchmark without
    `--enable_cuda_graph`, the switch it replays graphs with (GRAPHS_SWITCH_PROGRAMS, corpus 1667).
    Capture sizes capped below 8, or below the batch the engine is set to run
    (`--max-cudagraph-capture-size` or `max_cudagraph_capture_size` under `--max-num-seqs`,
    `--cuda-graph-max-bs` under `--max-running-requests`), and vLLM's `--max-seq-len-to-capture`
    under `--max-model-len` are a low-severity finding: larger batches or longer sequences run
    eagerly. SGLang's decode log lines say it per step: `cuda graph: False` at `#running-req: 1`
    is graphs off; only above the batches that replayed a graph, the capture cap. vLLM V1's warning
    that a graph mode is not supported ends "setting cudagraph_mode=PIECEWISE": graphs stay on, in
    that mode (not-an-issue). The same warning ending "setting cudagraph_mode=NONE" turns them off.
    vLLM's V0 engine-config line (`Initializing a V0 LLM engine (v0.8.3) with config: ... enforce_eager=False`) is its
    resolved setting: `ok` (corpus 1935). So is the same line's compilation_config listing capture sizes
    (`"cudagraph_capture_sizes":[256,...,1]` before its V0 tail `use_cached_outputs=True`), which V0 fills only with
    eager mode off, where a paste cuts the line before its enforce_eager (corpus 2240); not beside vLLM's line that a
    user's list overrides an empty one, or its platform's fallback to eager mode. So is its V1 engine-config line with enforce_eager=False from a release
    before 0.9, whose V1 turned graphs on itself whenever eager mode was off (corpus 2141); from 0.9 only a printed
    `"use_cudagraph":true` settles it, and `"use_cudagraph":false` is graphs off. A whole `non-default args: {...}` dict that names no graph setting
    (enforce_eager, compilation_config, a capture size, data_parallel_size) leaves vLLM's default, graphs on: `ok`
    (corpus 1936); vLLM's own "Forcing enforce eager" line later in the log still wins. So does its API server's
    `args: Namespace(...)` line (0.2.x to 0.8.x: every flag with its value) with enforce_eager=False, where it shows no
    compilation_config set (a cut line before 0.6.5, which added it), no data parallelism and no capture length
    below max_model_len (corpus 1949).

    Why: decode is many small kernels; CUDA graphs remove the per-kernel launch overhead. vLLM:
    without them "always execute the model in eager mode"; a user's 70B decode rose to 45 tok/s
    after removing `--enforce-eager` (vllm#7567).

    Traps: eager mode is legitimate while debugging or when a model fails to capture — keep it
    then, on purpose. `--no-enforce-eager`, `--disable-cuda-graph-padding` and explicit capture
    size lists do not disable graphs. TensorRT-LLM's PyTorch backend turns graphs on by default
    from 1.0 (PR 5480); before it, only where the YAML sets `use_cuda_graph` or
    `cuda_graph_config`, so a pasted `trtllm-serve` without its release is `unknown`. A shown
    YAML whose `cuda_graph_config` is a section turns graphs on in every release that reads the
    key: `ok` without the release.
    `trtllm-bench throughput|latency --backend pytorch` sets them on itself in every release
    (GRAPHS_ON_LAUNCHERS): `ok` where the YAML it names is shown and does not set
    `cuda_graph_config: null` or `use_cuda_graph: false`. A YAML `pytorch_backend_config` block
    (0.19) replaces the launcher's settings, so its nested keys decide: `unknown`.
    A pasted command line without an eager-mode flag is `ok` where the source shows the engine's
    release. A program or flag that only releases capturing graphs by default accept shows it
    too (GRAPHS_DEFAULT_MARKS: `vllm serve`, SGLang's `--reasoning-parser`, `--enable-torch-compile`),
    as does a line of SGLang's own log in the dated prefix its releases print since late 2024
    (`[2025-01-27 11:13:24 TP0] `; corpus 681, 988). A command whose last line ends in `\\` goes on
    past the paste: `unknown`, unless the fence closing the block that holds it follows (corpus 217, 848).
    A container spec that is an excerpt is `unknown` where no flag turns graphs off, unless it shows the engine's
    command and args whole: a compose service cut below its `command:` (a key after it, corpus 1006), or a pod spec's
    `containers:` list pasted without the pod around it, each container's `args:` list to its end (corpus 1405).
    Without the release, a whole vLLM or SGLang command with no eager-mode flag is `ok` too, its reason naming
    the caveat: vLLM captures graphs by default from 0.2.6, SGLang from July 2024 (sgl-project/sglang#612), and
    only an older release ran without them (GRAPHS_DEFAULT_SINCE; the blind readings of that shape, 6 ok to 2
    unknown, h73b). It stays `unknown` where the paste gives a reason for doubt: a flag that ran without graphs
    before some release (SGLANG_EAGER_BEFORE: `--enable-mla` before sgl-project/sglang#1401, corpus 1068), another
    engine whose release is open, or a vLLM stats line in llm_engine.py's format (`llm_engine.py:613] Avg prompt
    throughput`), which releases 0.1.4 to 0.2.7 printed, most of them without graphs.
    A vLLM log whose stats line is in its first releases' scheduler format (`scheduler.py:271] Throughput: 181.6
    tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs`, 0.1.x, mid-2023) is `not-applicable`: those
    releases had no CUDA graphs (vLLM captures them from 0.2.6; corpus 1446).
    So is every engine whose release the paste shows, where each is one from before its engine had CUDA graphs at all
    (versions.FIRST_RELEASE `cuda_graphs`): vLLM before 0.2.6 (vllm-project/vllm#1926), TGI before 1.4.0
    (huggingface/text-generation-inference#1428, `--enable-cuda-graphs`; default from 2.0, #1703). The release is a
    list's (`vLLM 0.1.2`, `TGI v1.1.0`, `text-generation-inference 1.1`, a TGI image line with the release after it),
    the user's words (`I'm on vLLM 0.1.2`), uv's install record (` + vllm==0.2.1`), a collect_env report, vLLM's log,
    or a TGI image's tag (`text-generation-inference:1.1.0`); with a command, a container or none shown (corpus 2835,
    2796). A bare requirement (`vllm==0.2.1`) states no release installed (python_env.UV_INSTALLED).
    vLLM's engine arguments printed whole as a Python dict by the program that runs it are its command
    (engine_command.printed_engine_args, corpus 2863), and `--max-context-len-to-capture` there or on a command line is
    a flag of 0.2.6 or later (GRAPHS_DEFAULT_MARKS).

    llama.cpp and ollama (ggml) have CUDA graphs of their own, built in with GGML_CUDA_GRAPHS: the build's feature line
    states it (`USE_GRAPHS = 1` in llama.cpp's `system_info:`, `CUDA.0.USE_GRAPHS=1` in ollama's `msg=system`), and
    that state settles the check for that engine: `1` on every device is `ok` (corpus 1155, 1166), over GPUs of compute
    capability 8.0 or newer where the GPUs are shown, since ggml turns its graphs off on older architectures itself
    (ggml-cuda.cu: below Ampere, below Volta in recent releases): `unknown` there. `0` is a build without them:
    `unknown`, as no corpus case yet shows what it costs (graphs serve ggml's single-stream decode only).

    TGI (its launcher's command line, or the arguments after its image in a container spec): `--cuda-graphs 0`
    (env CUDA_GRAPHS) captures none, an issue; a size list whose largest is below 8 is the low-severity cap. Without
    either, `unknown`: TGI captures `1,2,4,8,16,32` by default from 2.0 (#1703), in 1.4 only with
    `--enable-cuda-graphs` (#1428), and each shard skips a capture that fails at warmup ("Decode cuda graph warmup
    failed") and serves without graphs, so only its log shows they ran (corpus 1515).

    Without processes, a log or a command, vLLM's graph mode stated on a line of its own (`cudagraph_mode=
    FULL_AND_PIECEWISE`, facts/serving_logs.STATED_GRAPH_MODE, corpus 2479) settles it: NONE is eager mode, an issue;
    any other mode captures graphs, `ok`.
    """
    roots = serving_processes.roots() if serving_processes is not None else []
    if serving_processes is None and serving_log is not None and serving_log.ggml_use_graphs \
            and not serving_log.cuda_graphs and not serving_log.decode_graph_batches:
        return _ggml_graphs(serving_log, gpus, engine_commands)
    # A container whose command names no engine (its image's entrypoint starts it, corpus 2372) leaves graphs to the
    # engine's own log where that log settles them.
    log_settles = serving_log is not None and bool(serving_log.cuda_graphs)
    if not roots and docker_containers is not None and docker_containers.containers \
            and not (log_settles and not any(c.engine for c in docker_containers.containers)):
        return _graphs_in_container_specs(docker_containers, python_env)
    if serving_processes is None and serving_log is not None and serving_log.decode_graph_batches \
            and serving_log.cuda_graphs != "eager":
        return _graphs_in_decode_lines(serving_log)
    if serving_processes is None and serving_log is not None and serving_log.cuda_graphs:
        # No process to read: the engine's own log says whether it captured graphs or runs eagerly.
        lines = list(serving_log.cuda_graph_lines[:2])
        if serving_log.cuda_graphs == "eager":
            return issue(f"CUDA graphs are disabled: the {serving_log.engine or 'engine'} log shows eager mode",
                         actual="eager", expected="CUDA graphs on (no eager-mode flag)", evidence=lines)
        if serving_log.cuda_graphs == "capturing":
            return unknown(f"CUDA graphs are on in {ENGINE_NAMES.get(serving_log.engine, 'the engine')}'s settings (it began capturing "
                           "them), but the log shown ends before the capture finished, where an engine can still hang "
                           f"or fail: {lines[0]}", actual="capture begun",
                           hint="paste the log past the capture: 'Capture cuda graph end' (SGLang) or 'Graph capturing "
                           "finished' (vLLM), or the server's ready line")
        if serving_log.cuda_graphs == "mode set":
            return not_an_issue(f"CUDA graphs stay on: vLLM fell back to another graph mode for what its attention "
                                f"backend supports, not to eager mode: {lines[-1][:300]}", actual="enabled",
                                evidence=lines)
        if serving_log.cuda_graphs == "configured":
            name = ENGINE_NAMES.get(serving_log.engine, "the engine")
            return ok(f"CUDA graphs are on: {name}'s resolved configuration in its log keeps them (enforce_eager / "
                      "disable_cuda_graph False, or vLLM V0's CUDA graph capture sizes, which it fills only with eager "
                      "mode off)", actual="enabled", evidence=[line[:400] for line in lines])
        if serving_log.cuda_graphs == "flags":
            return ok("CUDA graphs are on: vLLM's parsed flags (`args: Namespace(...)`) set enforce_eager=False, vLLM's "
                      "default since 0.2.6, and name no compilation_config, data parallelism or capture length below "
                      "max_model_len that would narrow them", actual="enabled",
                      evidence=[line[:400] for line in lines])
        if serving_log.cuda_graphs == "defaults":
            return ok("CUDA graphs are on: vLLM's whole `non-default args` dict names no setting that turns them off "
                      "(enforce_eager, compilation_config, a capture size), and every release that prints it captures "
                      "them by default", actual="enabled", evidence=[line[:400] for line in lines])
        captured = ok(f"CUDA graphs are on: the {serving_log.engine or 'engine'} log shows them captured"
                      + (f" by rank(s) {', '.join(serving_log.graph_ranks)}" if serving_log.graph_ranks else ""),
                      actual="enabled", evidence=lines)
        # Each rank that finished its capture is one GPU the log shows; a log without rank tags states no coverage.
        return over_subjects(captured, serving_log.graph_ranks) if serving_log.graph_ranks else captured
    if serving_processes is None and serving_log is not None and serving_log.vllm_early_stats_line \
            and not serving_log.vllm_version and collect_env is None:
        # The scheduler's stats line of vLLM's first releases (June-July 2023): no release that prints it has graphs.
        return not_applicable("the vLLM log's stats line is in the scheduler's format of vLLM's first releases (0.1.x, "
                              "mid-2023), which had no CUDA graphs to turn off: vLLM captures them from 0.2.6 "
                              f"(vllm-project/vllm#1926): {serving_log.vllm_early_stats_line[:200]}")
    if serving_processes is None and engine_commands is not None and engine_commands.commands:
        return _graphs_on_command_lines(engine_commands, collect_env, serving_log, python_env)
    if serving_processes is None and serving_log is None and stated_graph_mode is not None:
        stated = stated_graph_mode.line
        if stated_graph_mode.mode == "NONE":
            return issue(f"CUDA graphs are disabled: vLLM's graph mode is NONE (`{stated}`)", actual="NONE",
                         expected="a graph mode other than NONE", evidence=[stated])
        return ok(f"CUDA graphs are on: vLLM's graph mode {stated_graph_mode.mode} captures them (`{stated}`)",
                  actual=stated_graph_mode.mode, evidence=[stated])
    released = [e for e in RELEASE_READ if _engine_version(collect_env, e, serving_log, python_env)]
    if serving_processes is None and (serving_log is None or serving_log.engine in ("", *released)) \
            and (why := _before_graphs(released, collect_env, serving_log, python_env)):
        return _pre_graph_release(why)  # the release a list or report states, with no launch shown
    if serving_processes is None:
        return unknown(NOT_LISTED.split(":")[0], hint=CAPTURE_HINT)
    if not roots:
        return _no_engine(serving_processes, "no vLLM, SGLang or TensorRT-LLM process is running: there is no "
                          "engine command line to read")
    judged = _graphs_flags([(root.label, f"pid {root.pid}", f"{root.label} cmdline", root) for root in roots])
    if judged is not None:
        return judged
    names = ", ".join(sorted({r.label for r in roots}))
    return ok(f"CUDA graphs are on for {names}", actual="enabled",
              evidence=[f"{r.label} cmdline: {' '.join(r.argv)[:200]}" for r in roots])


GGML_GRAPHS_SOURCE = "https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md#cuda"


def _ggml_graphs(log: ServingLog, gpus: GpuInventory | None, commands: EngineCommands | None = None) -> Outcome:
    """RT-CUDA-GRAPHS from a llama.cpp CUDA build's USE_GRAPHS feature (ServingLog.ggml_use_graphs). ggml turns its
    graphs off on a GPU older than Ampere: only the GPUs the llama.cpp command runs on count, where its one command
    narrows them (EngineCommand.ggml_cuda_used: `--split-mode none`, corpus 2843)."""
    ggml = [c for c in commands.commands if c.engine == "llamacpp" and not c.asks_only] if commands is not None else []
    used = ggml[0].ggml_cuda_used if len(ggml) == 1 else None
    narrowed = ""
    if gpus is not None and used is not None and all(i in gpus.models for i in used):
        gpus = replace(gpus, gpus=tuple(g for g in gpus.gpus if g.index in used))
        narrowed = (f"; the command runs its models on {', '.join(f'CUDA{i} ({gpus.models[i]})' for i in used)} "
                    "alone (--split-mode none)")
    devices = ", ".join(f"CUDA.{d}" if d else "CUDA" for d, _ in log.ggml_use_graphs)
    line = log.ggml_graphs_line[:400]
    off = [d for d, on in log.ggml_use_graphs if not on]
    if off:
        return unknown(f"llama.cpp's CUDA build shows USE_GRAPHS=0 ({devices}): it runs without its CUDA graphs, "
                       "which serve single-stream decode; what that costs here is not shown",
                       actual={"use_graphs": {d or "CUDA": on for d, on in log.ggml_use_graphs}, "line": line},
                       hint="compare decode tokens/s with a build made with GGML_CUDA_GRAPHS=ON")
    caps, _ = _capabilities(gpus)
    older = {n: c for n, c in caps.items() if float(c) < 8.0}
    if older:
        return unknown(f"llama.cpp's CUDA build has its CUDA graphs on (USE_GRAPHS=1, {devices}), but ggml turns them "
                       "off itself on GPUs older than Ampere (compute capability 8.0; Volta, 7.0, in recent releases): "
                       + ", ".join(f"{n} ({c})" for n, c in older.items()), actual={"gpus": older, "line": line},
                       hint="paste the engine's release, or a debug log's 'disabling CUDA graphs due to GPU "
                       "architecture' line")
    return ok(f"llama.cpp's CUDA build has its CUDA graphs on (USE_GRAPHS=1 for {devices}): ggml captures and replays "
              f"its decode steps, its counterpart of vLLM's or SGLang's graphs ({GGML_GRAPHS_SOURCE}){narrowed}",
              actual={d or "CUDA": on for d, on in log.ggml_use_graphs}, evidence=[line])


# --- RT-KERNEL-ARCH --------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelRule:
    """One setting or engine line that puts a kernel on a slow path on some GPU architectures."""

    engine: str  # vllm | sglang
    # Matched against `--flag value` (argv, a configuration dump), `NAME=value` (the environment) or a log line.
    pattern: re.Pattern[str]
    # Architectures (gputable `architecture`) or compute capabilities where it is the slow path; () = any, the
    # engine's own line says so.
    archs: tuple[str, ...]
    severity: Severity  # high: can cost a multiple; medium: tens of percent; low: nothing in decode (data/impact.toml)
    message: str
    source: str


_MARLIN_ARCHS = ("Ampere", "Ada Lovelace", "Hopper", "Blackwell")  # Marlin: compute capability 8.0 and newer
_FORCED_MARLIN = ("the {0} GEMM kernel instead of {0}_marlin, which vLLM picks by default on compute capability 8.0 "
                  "and newer: one user's 123 tok/s fell to 23 with `--quantization awq`")
KERNEL_RULES = (
    KernelRule("vllm", re.compile(r"^--quantization (awq|gptq)$"), _MARLIN_ARCHS, "high", _FORCED_MARLIN,
               "https://github.com/vllm-project/vllm/issues/21376"),
    KernelRule("vllm", re.compile(r"Detected that the model can run with (awq|gptq)_marlin, however you specified "
                                  r"quantization=\w+ explicitly, so forcing"), (), "high", _FORCED_MARLIN,
               "https://github.com/vllm-project/vllm/issues/5677"),
    # vLLM's AWQ and GPTQ Marlin methods hand a MoE layer their Marlin MoE kernel cannot take to the generic MoE WNA16
    # kernels (awq_marlin.py, gptq_marlin.py: `Layer '...mlp.experts' is not supported by AWQMoeMarlin. Falling back
    # to Moe WNA16 kernels.`; corpus 1563): the experts, most of a MoE model's weights, then run on the kernel vLLM's
    # maintainers measured slower than Marlin and kept opt-in (vllm#12185), Marlin being "the best-performing
    # gptq/awq kernel" (vllm#14447). The engine's own line says it, whatever the GPU.
    KernelRule("vllm", re.compile(r"is not supported by (?:AWQ|GPTQ)MoeMarlin\. Falling back to (Moe WNA16) kernels"),
               (), "medium",
               "the MoE expert layers run on the generic {0} kernels instead of the Marlin MoE kernel, which vLLM's "
               "maintainers measured faster and is its best-performing AWQ/GPTQ kernel: the experts hold most of a "
               "MoE model's weights, so decode runs on the slower path (a checkpoint or release the Marlin MoE kernel "
               "takes avoids it)",
               "https://github.com/vllm-project/vllm/pull/12185"),
    KernelRule("sglang", re.compile(r"^--(?:decode-)?attention-backend (triton)$"), ("Hopper",), "medium",
               "Triton attention where SGLang picks fa3 by default on Hopper: its decode fell from 147.64 to 126.41 "
               "tok/s at 2,000 tokens of context while FlashInfer kept 143.35",
               "https://github.com/sgl-project/sglang/issues/2271"),
    KernelRule("vllm", re.compile(r"(?:^--attention-backend |^VLLM_ATTENTION_BACKEND=|Using )"
                                  r"(FLASHINFER_MLA_SPARSE_SM90)\b"), (), "medium",
               "{0} on Hopper, measured 36 % slower at concurrency 1 than FLASH_ATTN_MLA_SPARSE (GLM-5.3-Flash, "
               "8x H100; `--attention-backend FLASH_ATTN_MLA_SPARSE` chooses the other)",
               "https://github.com/vllm-project/vllm/issues/56564"),
    KernelRule("sglang", re.compile(r"^--(?:decode-)?attention-backend (fa3)$"), ("10.0", "10.3"), "low",
               "FlashAttention 3 on data-centre Blackwell, which SGLang refuses (`The 'fa3' backend is not supported "
               "on Blackwell GPUs`): the engine does not start",
               "https://github.com/sgl-project/sglang/issues/12360"),
    KernelRule("vllm", re.compile(r"^--quantization (fp8)$"), ("Ampere",), "low",
               "FP8 weights without FP8 tensor cores (before Ada): weight-only FP8 through the Marlin kernel, which "
               "keeps memory-bound decode fast and slows compute-heavy batches",
               "https://github.com/vllm-project/vllm/pull/5975"),
    KernelRule("vllm", re.compile(r"GPU does not have native support for (FP8) computation"), (), "low",
               "FP8 weights without FP8 tensor cores: weight-only FP8 through the Marlin kernel, which keeps "
               "memory-bound decode fast and slows compute-heavy batches",
               "https://github.com/vllm-project/vllm/pull/5975"),
    KernelRule("vllm", re.compile(r"^--quantization (modelopt_fp4|nvfp4)$"), ("Ampere", "Ada Lovelace", "Hopper"),
               "low", "NVFP4 weights without FP4 tensor cores (before Blackwell): weight-only FP4 through the Marlin "
               "kernel, which keeps memory-bound decode fast and slows compute-heavy batches",
               "https://github.com/sgl-project/sglang/pull/19652"),
    KernelRule("vllm", re.compile(r"GPU does not have native support for (FP4) computation"),
               ("Ampere", "Ada Lovelace", "Hopper"), "low",
               "NVFP4 weights without FP4 tensor cores (before Blackwell): weight-only FP4 through the Marlin kernel, "
               "which keeps memory-bound decode fast and slows compute-heavy batches",
               "https://github.com/vllm-project/vllm/issues/27471"),
)
# Flags the table reads (both engines spell them alike; vLLM's `-q` is `--quantization`).
_KERNEL_FLAGS = ("--quantization", "--attention-backend", "--decode-attention-backend", "--kv-cache-dtype")


def _kernel_settings(proc: ProcessInfo) -> list[str]:
    """`--flag value` for each kernel flag on an engine's command line and its config file, and
    `VLLM_ATTENTION_BACKEND=value` where its environment (or the pasted line) sets it."""
    out = []
    for flag in _KERNEL_FLAGS:
        value = proc.option(flag, *(("-q",) if flag == "--quantization" else ()))
        if value:
            out.append(f"{flag} {value}")
    backend = proc.env("VLLM_ATTENTION_BACKEND") if proc.engine == "vllm" else None
    if backend:
        out.append(f"VLLM_ATTENTION_BACKEND={backend}")
    return out


def _container_engines(containers: DockerContainers | None) -> list[tuple[str, tuple[str, ...]]]:
    """(engine, argv) of each container whose command starts vLLM or SGLang."""
    return [(c.engine, c.argv) for c in (containers.containers if containers else ()) if c.engine in ("vllm", "sglang")]


# The first architecture an engine ships kernels for: (engine, architecture, its compute capability, the public
# source). vLLM needs compute capability 7.0 (Volta) or newer: its installation guide, and its maintainers
# (vllm#774: "vLLM currently does not support GPU architectures before Volta"); below it the build refuses
# (`GPUs with compute capability less than 7.0 are not supported`, vllm#463) and Triton refuses the device
# (`Found Tesla P40 which is too old to be supported by the triton GPU compiler`, vllm#13202).
ENGINE_FLOORS: tuple[tuple[str, str, str, str], ...] = (
    ("vllm", "Volta", "7.0", "https://github.com/vllm-project/vllm/issues/774"),
)


def _below_engine_floor(engines: set[str], gpus: GpuInventory | None, roots: Iterable[ProcessInfo],
                        collect_env: CollectEnv | None) -> Outcome | None:
    """An issue where a GPU shown is of an architecture before the floor of an engine the source shows
    (ENGINE_FLOORS); None otherwise, and where CUDA_VISIBLE_DEVICES shown for the engine may leave it out."""
    from stackaudit.gputable import ARCHITECTURE_ORDER, architecture_of

    if gpus is None or not gpus.models:
        return None
    if any(r.env("CUDA_VISIBLE_DEVICES") for r in roots) or (
            collect_env is not None and collect_env.env.get("CUDA_VISIBLE_DEVICES")):
        return None
    for engine, first, capability, source in ENGINE_FLOORS:
        if engine not in engines:
            continue
        archs = {name: architecture_of(name) for name in sorted(set(gpus.models.values()))}
        old = {n: a for n, a in archs.items() if a in ARCHITECTURE_ORDER
               and ARCHITECTURE_ORDER.index(a) < ARCHITECTURE_ORDER.index(first)}
        if not old:
            continue
        name = ENGINE_NAMES.get(engine, engine)
        others = [n for n in archs if n not in old]
        where = (f"; only the {', '.join(others)} can serve, and a tensor-parallel group with the older GPU "
                 "cannot" if others else "")
        shown = [g.label for g in gpus.gpus if g.model in old]
        # Every GPU shown was held against the floor: the verdict covers them all, the issue names the old ones.
        return over_subjects(issue(
            ", ".join(f"{n} ({a})" for n, a in old.items()) + f" is below {name}'s floor, compute capability "
            f"{capability} ({first}): {name} ships no kernels for it and refuses it at start{where} ({source})",
            actual={"gpus": old, "engine": engine}, expected=f"GPUs of compute capability {capability} or newer "
            f"for {name} (CUDA_VISIBLE_DEVICES leaving the older ones out)", subjects=shown),
            [g.label for g in gpus.gpus], gpus.whole_count, ask="nvidia-smi -L")
    return None


# Where a llama.cpp (ggml) CUDA build leaves a GPU out: a cubin runs on its own major at the same or a higher minor,
# PTX on the same or a higher capability (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility),
# and the build's `ARCHS` list does not say which of its entries are PTX (`500` is compute_50 PTX, JIT-compiled on a
# Maxwell sm_52), so only a GPU older than every entry certainly runs none of its code.
GGML_ARCHS_SOURCE = "https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md#cuda"
GGML_ARCHS_FIX = Fix.of(step("Run a CUDA build that carries the GPU's compute capability: ollama's CUDA 12 library "
                             "(cuda_v12) for Pascal and Maxwell, or llama.cpp built with "
                             "-DCMAKE_CUDA_ARCHITECTURES=<the GPU's capability, e.g. 61>", cost="restart",
                             scope="container"))


def _ggml_archs(serving_log: ServingLog | None, gpus: GpuInventory | None) -> Outcome | None:
    """RT-KERNEL-ARCH from the compute capabilities llama.cpp's CUDA builds carry (ServingLog.ggml_cuda_archs): an
    issue for a GPU shown that is older than every entry of every build the log shows, unless the log shows the
    model's layers on a CUDA device after all; ok over the GPUs shown where each has an entry of its own major at or
    below its capability; unknown naming the builds' floor where no GPU's capability is shown; None where the log shows
    no such list, or a GPU's capability is not settled or only a lower major's entry (PTX or not) may cover it."""
    builds = serving_log.ggml_cuda_archs if serving_log is not None else ()
    if not builds or serving_log is None:
        return None
    lowest = min(min(archs) for archs, _ in builds)
    floor = f"{lowest // 100}.{lowest % 100 // 10}"
    lists = "; ".join(f"ARCHS = {','.join(map(str, archs))}" for archs, _ in builds)
    caps, unsettled = _capabilities(gpus)
    if not caps:
        # A name the source gives whose capability is not settled (corpus 1283: the user's `2x1070`) is named, not
        # judged: the message says which.
        lacking = (f"the source names {', '.join(unsettled)} without a compute capability the GPU table settles"
                   if unsettled else "the source does not name the GPUs")
        return unknown(f"llama.cpp's CUDA build carries code for compute capability {floor} and newer ({lists}): a "
                       f"GPU older than that gets none of its kernels, but {lacking}",
                       hint="paste `nvidia-smi -L` or the `ggml_cuda_init` device list", actual=lists)

    older = {name: cap for name, cap in caps.items() if _arch_number(cap) < lowest}
    offloaded = serving_log.gpu_layers is not None and serving_log.gpu_layers[0] > 0
    if older and not offloaded:
        return issue(", ".join(f"{n} (compute capability {c})" for n, c in older.items())
                     + f": older than every architecture llama.cpp's CUDA build carries ({lists}, the lowest {floor}), "
                     "so no cubin or PTX of the build runs there: the engine leaves such a GPU out and runs the model "
                     f"on another backend or the CPU ({GGML_ARCHS_SOURCE})",
                     actual={"archs": [list(a) for a, _ in builds], "gpus": older},
                     expected="a build whose ARCHS include the GPU's capability (or a lower one of its major)",
                     subjects=[g.label for g in gpus.gpus if g.model in older] if gpus is not None else [],
                     evidence=[line[:400] for _, line in builds], fix=GGML_ARCHS_FIX)
    # An entry of the GPU's own major at or below its capability runs there, cubin or PTX alike.
    covered = {name: cap for name, cap in caps.items()
               if any(a // 100 == _arch_number(cap) // 100 and a <= _arch_number(cap) for archs, _ in builds for a in archs)}
    if gpus is None or unsettled or len(covered) < len(caps):
        return None
    return over_subjects(ok(", ".join(f"{n} (compute capability {c})" for n, c in covered.items())
                            + f": llama.cpp's CUDA build carries code for its architecture ({lists})",
                            actual={"archs": [list(a) for a, _ in builds], "gpus": covered},
                            evidence=[line[:400] for _, line in builds]),
                         [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")


# The compute capabilities every CUDA toolkit from 12.0 to 13.x compiles for: Turing (7.5) to Hopper (9.0). CUDA 12.0
# targets up to 9.0, Blackwell (10.x, 12.x) needs 12.8 (https://docs.nvidia.com/cuda/archive/12.8.0/cuda-toolkit-release-
# notes/), and CUDA 13.0 dropped Maxwell, Pascal and Volta (https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-
# release-notes/; ollama's cuda_v13 library starts at 750, corpus 1056). A llama.cpp CUDA build carries code for the
# GPUs it was built on (GGML_NATIVE) or for ggml's default list (ggml-cuda's CMakeLists: 50 to 89, 120 from CUDA 12.8),
# so one of any period runs on a GPU in this range, and one whose toolkit the paste does not show may not on another.
EVERY_TOOLKIT_CAPABILITIES = ("7.5", "9.0")
GGML_CUDA_CMAKE = "https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/CMakeLists.txt"


def _arch_number(cap: str) -> int:
    """A compute capability as ggml's ARCHS list writes it: "6.1" -> 610."""
    major, _, minor = cap.partition(".")
    return int(major) * 100 + int(minor or 0) * 10


def _ggml_run_lines(commands: list[EngineCommand], bench: MeasuredRate | None) -> list[str]:
    """The llama.cpp runs a paste shows whole, as a report quotes them: its complete command lines that run a model
    (`llama-server --version` only prints), else a llama-bench table run on the CUDA backend (MeasuredRate.on_cuda:
    its columns give every setting of the run, and no flag is left to a release); [] where a command is cut."""
    runs = [c for c in commands if "--version" not in c.argv]
    if any(c.cut for c in runs):
        return []
    return [c.quoted[:300] for c in runs] or ([bench.line] if bench is not None and bench.on_cuda else [])


def _ggml_command_arch(runs: list[str], gpus: GpuInventory | None, ggml: Outcome | None,
                       stated: StatedCudaArchs | None = None) -> Outcome | None:
    """RT-KERNEL-ARCH for complete llama.cpp command lines (llama-server, llama-cli, KoboldCpp) whose release the paste
    does not give. No KERNEL_RULES row is llama.cpp's, so no flag of its has a default that changed between releases:
    the version adds nothing to the flags, and what remains is whether the build carries code for the GPUs. The build's
    `ARCHS` list judges that where the log shows it (_ggml_archs); else ok over the GPUs shown where each one's
    compute capability is one every CUDA 12 and 13 toolkit compiles for (EVERY_TOOLKIT_CAPABILITIES), unknown naming
    a GPU outside it, unless the pasted CMake configure's CUDA architectures (facts/gpus.StatedCudaArchs) hold an entry
    of its major at or below its capability. None where a command is cut, none runs a model (`llama-server --version`
    only prints), or a GPU's capability is not settled."""
    if not runs:
        return None
    if ggml is not None:
        return ggml
    caps, unsettled = _capabilities(gpus)
    if not caps or unsettled or gpus is None:
        return None
    low, high = (_arch_number(c) for c in EVERY_TOOLKIT_CAPABILITIES)
    outside = {n: c for n, c in caps.items() if not low <= _arch_number(c) <= high}
    gpu_words = ", ".join(f"{n} (compute capability {c})" for n, c in caps.items())
    built = {n: c for n, c in outside.items() if stated is not None and any(
        a // 100 == _arch_number(c) // 100 and a <= _arch_number(c) for a in stated.archs)}
    if outside and len(built) == len(outside) and stated is not None:
        return over_subjects(ok(f"llama.cpp takes no flag that forces a slow kernel, and its CMake configure builds for "
                                f"the GPUs shown, {gpu_words} (\"{stated.line[:160]}\"): each has code of its own "
                                f"architecture ({GGML_CUDA_CMAKE})", actual=dict(caps),
                                evidence=[stated.line[:300], *runs]),
                             [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")
    if outside:
        words = ", ".join(f"{n} (compute capability {c})" for n, c in outside.items())
        return unknown(f"llama.cpp takes no flag the table marks slow, but {words} is outside the capabilities every "
                       f"CUDA 12 and 13 toolkit compiles for ({' to '.join(EVERY_TOOLKIT_CAPABILITIES)}): whether this "
                       "build carries code for it depends on the toolkit it was built with, which the paste does not "
                       f"show ({GGML_CUDA_CMAKE})",
                       hint="paste the engine's `system_info` line (`CUDA : ARCHS = ...`)", actual=dict(outside))
    return over_subjects(ok(f"llama.cpp takes no flag that forces a slow kernel (no KERNEL_RULES row is its own, so its "
                            f"release adds nothing to the command line), and the GPUs shown, {gpu_words}, are of "
                            f"architectures every CUDA 12 and 13 toolkit compiles for ({' to '.join(EVERY_TOOLKIT_CAPABILITIES)}), which "
                            f"a llama.cpp build of any release carries ({GGML_CUDA_CMAKE})",
                            actual=dict(caps), evidence=list(runs)),
                         [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")


# ggml's tensor-core path needs compute capability 7.0 (CC_VOLTA), checked per matrix product at run time
# (facts/gpus.GGML_TENSOR_CORES; ggml-org/llama.cpp#3776).
GGML_TENSOR_CORES_SOURCE = "https://github.com/ggml-org/llama.cpp/pull/3776"


def _tensor_cores_without_them(build: GgmlCudaBuild | None, gpus: GpuInventory | None) -> Outcome | None:
    """not-an-issue where ggml's device list header says `CUDA_USE_TENSOR_CORES: yes` and every GPU shown is older than
    Volta (no tensor cores): a compile-time flag whose path ggml takes only from compute capability 7.0, so on these
    GPUs its kernels run without them (corpus 1573, GTX 1080 Ti); None otherwise."""
    if build is None or not build.tensor_cores or gpus is None:
        return None
    caps, unsettled = _capabilities(gpus)
    if not caps or unsettled or any(_arch_number(c) >= 700 for c in caps.values()):
        return None
    words = ", ".join(f"{n} (compute capability {c})" for n, c in caps.items())
    return over_subjects(not_an_issue(
        f"`{build.line}` on {words}, GPUs without tensor cores, looks like a kernel these GPUs cannot run, but it is "
        "a compile-time flag of ggml's CUDA build (set where GGML_CUDA_FORCE_MMQ is not): ggml takes its tensor-core "
        "path only on compute capability 7.0 and newer, chosen per matrix product at run time, so here its other "
        f"kernels run ({GGML_TENSOR_CORES_SOURCE})", actual=dict(caps), evidence=[build.line]),
        [g.label for g in gpus.gpus if g.model], gpus.whole_count, ask="nvidia-smi -L")


# What a vLLM release decides itself about the kernels KERNEL_RULES judges, where the command does not: the
# quantization kernel of an AWQ or GPTQ checkpoint (vLLM picks awq_marlin by default from 0.5.3, vllm-project/vllm#6612,
# released the day after vllm#6654; gptq_marlin came before it), and the attention backend (vLLM picks
# FLASHINFER_MLA_SPARSE_SM90 itself on Hopper, vllm#56564).
VLLM_MARLIN_DEFAULT = ("0.5.3", "https://github.com/vllm-project/vllm/pull/6612")


def _vllm_kernels_settled(command: EngineCommand, archs: dict[str, tuple[str, str]] | None) -> str:
    """Why a complete vLLM command line needs no release for RT-KERNEL-ARCH, or "": its quantization kernel is
    settled (a `--quantization` value no KERNEL_RULES row marks, or a program or flag of a release that picks Marlin
    itself, EngineCommand.release_marks) and so is its attention backend (`--attention-backend` or
    VLLM_ATTENTION_BACKEND on the line, or the GPUs shown, none of them Hopper)."""
    if command.engine != "vllm" or command.cut:
        return ""
    proc = command.as_process()
    marks = [(m, since) for m, since in command.release_marks if not is_older(since, VLLM_MARLIN_DEFAULT[0])]
    quantization = proc.option("--quantization", "-q")
    if quantization:
        quant = f"`--quantization {quantization}` chooses the quantization kernel"
    elif marks:
        mark, since = marks[-1]
        quant = (f"`{mark}` is in no release before {since}, and from {VLLM_MARLIN_DEFAULT[0]} vLLM picks Marlin "
                 f"for AWQ and GPTQ checkpoints itself ({VLLM_MARLIN_DEFAULT[1]})")
    else:
        return ""
    backend = proc.option("--attention-backend") or proc.env("VLLM_ATTENTION_BACKEND")
    if backend:
        attention = f"`{backend}` chooses the attention backend"
    elif archs and all(arch != "Hopper" for arch, _ in archs.values()):
        attention = "no GPU shown is Hopper, where vLLM picks a sparse-MLA attention backend itself"
    else:
        return ""
    return f"release not shown, and none needed: {quant}; {attention}"


def _architectures(gpus: GpuInventory | None) -> dict[str, tuple[str, str]] | None:
    """{GPU name: (architecture, compute capability)} from the GPU table's row of each name the source shows;
    None where no name is shown or one has no row."""
    from stackaudit.gputable import GpuTableError, UnknownGpuError, lookup

    names = sorted(set(gpus.models.values())) if gpus is not None else []
    if not names:
        return None
    out: dict[str, tuple[str, str]] = {}
    for name in names:
        try:
            spec = lookup(name).spec
        except (UnknownGpuError, GpuTableError):
            return None
        out[name] = (spec.architecture, spec.compute_capability)
    return out


def _rule_hits(sources: Iterable[tuple[str, Iterable[str]]], archs: dict[str, tuple[str, str]] | None
               ) -> tuple[list[tuple[KernelRule, str, str]], list[str]]:
    """(rule, setting, GPU name) for each (engine, its settings and lines) the table says is slow on the GPUs
    shown; the settings a rule names whose GPUs are not shown."""
    hits: list[tuple[KernelRule, str, str]] = []
    blind: list[str] = []
    for engine, text in ((e, t) for e, texts in sources for t in texts):
        for rule in KERNEL_RULES:
            if rule.engine != engine or not rule.pattern.search(text):
                continue
            if not rule.archs:
                hits.append((rule, text, ""))
            elif archs is None:
                blind.append(text)
            else:
                hits.extend((rule, text, name) for name, (arch, cc) in archs.items()
                            if arch in rule.archs or cc in rule.archs)
    return hits, blind


def _kernel_issue(hits: list[tuple[KernelRule, str, str]], where: str) -> Outcome:
    """The findings, worst first, each as the setting or the words of the engine's line that matched."""
    order = ("high", "medium", "low")
    hits = sorted(hits, key=lambda h: order.index(h[0].severity))
    shown: list[str] = []
    for rule, text, gpu in hits:
        m = rule.pattern.search(text)
        what = rule.message.format(m.group(1) if m and m.groups() else "")
        on = f" on the {gpu}" if gpu else ""
        line = f"`{m.group(0) if m else text[:160]}`{on}: {what} ({rule.source})"
        if line not in shown:
            shown.append(line)
    return issue("; ".join(shown) + f" (read from {where})", actual=list(dict.fromkeys(t[:160] for _, t, _ in hits)),
                 expected="the engine's default kernel for this GPU architecture", severity=hits[0][0].severity,
                 evidence=list(dict.fromkeys(t[:400] for _, t, _ in hits)))


def _ggml_without_gpu_backend(serving_log: ServingLog | None, gpus: GpuInventory | None,
                              asked: GgmlCudaAsked | None) -> Outcome | None:
    """RT-KERNEL-ARCH an issue where llama.cpp's feature line shows a build with no BLAS or GPU backend (ServingLog
    .ggml_no_gpu_backend) on a CUDA host: an NVIDIA GPU named, or CUDA asked of llama.cpp's build; the log shows no
    CUDA device at work. None otherwise."""
    line = serving_log.ggml_no_gpu_backend if serving_log is not None else ""
    named = [g.label for g in gpus.gpus if g.model] if gpus is not None else []
    if not line or (serving_log is not None and serving_log.ggml_cuda_devices) or not (named or asked is not None):
        return None
    models = list(dict.fromkeys(g.model for g in gpus.gpus if g.model)) if gpus is not None else []
    host = (f"the GPUs shown ({', '.join(models[:4])})" if named else
            f"the CUDA build the paste asks for (`{asked.line[:120]}`)" if asked is not None else "")
    judged = issue(f"llama.cpp's feature line reads `BLAS = 0` (\"{line[:200]}\"): the build carries no cuBLAS/CUDA "
                   "backend (any BLAS or GPU backend prints 1 there), so every layer runs on the CPU whatever "
                   f"`--n-gpu-layers` asks, beside {host}",
                   actual="BLAS = 0 (no GPU backend)", expected="a CUDA build (BLAS = 1, or `CUDA : ARCHS = ...`)",
                   evidence=[line[:400], *([asked.line[:200]] if asked is not None else [])],
                   fix=Fix.of(step("Rebuild llama.cpp (or reinstall llama-cpp-python) with its CUDA backend: "
                                   "`CMAKE_ARGS=\"-DGGML_CUDA=on\" pip install --force-reinstall --no-cache-dir "
                                   "llama-cpp-python` (`-DLLAMA_CUBLAS=on` before 2024), against the CUDA toolkit the "
                                   "driver supports", cost="restart")))
    return over_subjects(judged, named, gpus.whole_count) if gpus is not None and named else judged


@check(
    "RT-KERNEL-ARCH",
    title="kernel backend not suited to the GPU's architecture",
    severity="high",
    confidence="documented",
    fix=Fix.of(step("Restart the engine without the flag that forces the kernel (for AWQ/GPTQ checkpoints drop "
                    "`--quantization awq|gptq`: vLLM picks the Marlin kernel itself; for SGLang drop "
                    "`--attention-backend triton` on Hopper)", cost="restart", scope="container")),
    references=("https://github.com/vllm-project/vllm/issues/21376",
                "https://github.com/sgl-project/sglang/issues/2271"),
)
def kernel_arch(serving_processes: ServingProcesses | None = None, engine_commands: EngineCommands | None = None,
                docker_containers: DockerContainers | None = None, serving_log: ServingLog | None = None,
                gpus: GpuInventory | None = None, collect_env: CollectEnv | None = None,
                parallelism: Parallelism | None = None, ggml_cuda_build: GgmlCudaBuild | None = None,
                ollama_cuda: OllamaCuda | None = None, stated_cuda_archs: StatedCudaArchs | None = None,
                serving_rate: MeasuredRate | None = None, python_env: PythonEnv | None = None,
                ggml_cuda_asked: GgmlCudaAsked | None = None) -> Outcome:
    """Reads: the kernel flags (`--quantization`/`-q`, `--attention-backend`, `--decode-attention-backend`,
    `--kv-cache-dtype`) of each engine's top process (/proc/<pid>/cmdline and the config file it names), else a
    pasted command line or a container's engine arguments (`docker inspect`, a pasted docker run), and the configuration dump and kernel lines of the engine's log; the GPUs' product
    names (the `gpus` inventory), whose architecture and compute capability come from the GPU table.

    Bad value: one row of `KERNEL_RULES` (setting or log line, the architectures it does not suit, why, the
    public source). vLLM `--quantization awq|gptq` on compute capability 8.0 and newer forces the GEMM kernel
    instead of Marlin (vllm#21376: 23 instead of 123 tok/s), as does the log line `Detected that the model can
    run with awq_marlin, however you specified quantization=awq explicitly`. SGLang `--attention-backend triton`
    on Hopper (sglang#2271: −12 % at 2,000 tokens of context). vLLM's FLASHINFER_MLA_SPARSE_SM90 on Hopper,
    chosen or forced (`--attention-backend`, `VLLM_ATTENTION_BACKEND`; its log line `Using
    FLASHINFER_MLA_SPARSE_SM90 attention backend`): 36 % slower at concurrency 1 (vllm#56564). vLLM's own line that an
    AWQ or GPTQ MoE layer is not supported by the Marlin MoE kernel and falls back to the MoE WNA16 kernels, which its
    maintainers measured slower (vllm#12185), whatever the GPU. Lower: SGLang `fa3` on sm100 (it refuses to
    start); FP8 weights before Ada and NVFP4 before Blackwell run weight-only through Marlin, which keeps
    memory-bound decode fast.

    Why: the kernel, not the host, sets the time per layer; a forced generic kernel can cost a multiple.

    A llama.cpp CUDA build whose `system_info` line lists the compute capabilities it carries (`CUDA : ARCHS =
    750,800,...`, ollama's runner too) leaves out a GPU the source shows that is older than every entry (no cubin or
    PTX runs on an older GPU; a list does not say which entries are PTX, so a newer GPU is not judged by it): an
    issue, unless the log shows layers offloaded to the GPU after all (another of ollama's CUDA libraries took it).
    Where each GPU shown has an entry of its own major at or below its capability, the build runs there: ok.

    The engine's kernels refused on this GPU prove the issue on its own, quoted: ggml's `ggml was not compiled with
    any CUDA arch <= 610` (its build carries no code at or below the GPU's capability), CUDA's `device kernel image
    is invalid` or `invalid device function` under an engine's kernel (no code this GPU runs, or PTX newer than the
    driver compiles: DRV-CUDA-COMPAT's ok is then unproven).
    A kernel library's refusal of the GPU's architecture proves the issue on its own, quoted: DeepGEMM's
    `Assertion error (…/csrc/apis/attention.hpp:219): Unsupported architecture` (its kernels dispatch for SM90
    and SM100 only; sglang#26087 on SM120), and TurboMind's `No decoding kernel found: decode_d256_f16_gs4` (its
    attention kernels are built per architecture and head size; lmdeploy#4408, Qwen3.5 on V100).
    So does TurboMind's own CUDA check quoting CUDA's no-kernel-image error (`[TM][ERROR] CUDA runtime error: no kernel
    image is available for execution on the device .../turbomind/kernels/sampling_topp_kernels.cu:1219`;
    lmdeploy#1781): the kernel is the engine's own.
    So does a quantised format refused for the GPU's architecture by the program that checks its kernel (facts/symptoms
    QUANT_ARCH_REFUSED): Triton's `type fp8e4nv not supported in this architecture` (FP8 e4m3 below compute capability
    8.9), TensorRT's `Networks with FP8 precision require hardware with FP8 support`, TensorRT-LLM's `FP8 FMHA cannot
    be enabled on Pre-Hopper Arch`, vLLM's `The quantization method bitsandbytes is not supported for the current GPU.
    Minimum capability: 70` (corpus 2789, 2791, 2792); the issue covers the GPUs the check's own facts judged.

    Also bad: ollama's list of the runners it ships (`Dynamic LLM libraries [cpu_avx cpu_avx2 cpu]`) naming no CUDA
    runner while its discovery found a CUDA GPU (`library=cuda compute=8.6`: facts/gpus.OllamaCuda): the build
    carries no CUDA kernels, so every layer runs on the CPU whatever the GPU (corpus 1845). So is llama.cpp's own
    feature line of a build with no BLAS or GPU backend (`... | BLAS = 0 | ...`, its form before late 2024, as
    llama-cpp-python prints it: facts/serving_logs.GGML_NO_GPU_BACKEND) where the source names an NVIDIA GPU or asks
    llama.cpp's build for CUDA (`LLAMA_CUBLAS=1`, `-DGGML_CUDA=on`: facts/gpus.GGML_CUDA_ASKED), and the log shows no
    CUDA device at work (corpus 2918).

    Also bad: a GPU whose architecture is older than an engine's floor (ENGINE_FLOORS: vLLM needs compute
    capability 7.0, Volta) where the source shows that engine (running, its command line, container or log, or its
    own environment report: collect_env is vLLM's); CUDA_VISIBLE_DEVICES shown for the engine may leave it out.

    Traps: a flag is judged against the GPUs the source shows; without their names the check says unknown.
    `ok` needs every kernel flag: a running engine's argv, or a pasted command line with the engine's version
    (as RT-CUDA-GRAPHS: a collect_env report, the version line of vLLM's own start-up log beside it, or the version a
    pasted list states, `- vLLM: 0.27.1 (V1 engine)`, corpus 2850), or a
    complete vLLM command that settles both kernels vLLM picks itself: the quantization kernel (an explicit
    `--quantization`, or a flag of a release from 0.5.3 on, when vLLM began picking Marlin for AWQ checkpoints,
    vllm PR 6612) and the attention backend (`--attention-backend` or VLLM_ATTENTION_BACKEND, or GPUs shown none of
    which is Hopper, where vLLM picks a sparse-MLA backend itself). A
    complete llama.cpp command line (llama-server, llama-cli, KoboldCpp) needs no release: no row of the table is
    llama.cpp's, so no flag of its has a default that changed between releases; it is ok over the GPUs shown where
    each is of compute capability 7.5 to 9.0 (every CUDA 12 and 13 toolkit compiles for them), unknown naming a
    Blackwell GPU (a CUDA 12.8 toolkit) or one before Turing (CUDA 13 dropped it), unless the pasted CMake configure
    builds for it (`-DCMAKE_CUDA_ARCHITECTURES="120"`: ok); `llama-server --version` runs no
    model and is no such line. A llama-bench table whose rows ran on the CUDA backend stands for such a line where
    no command is shown: its columns give the run's settings (corpus 2038). `VLLM_ATTENTION_BACKEND=XFORMERS` is not in the table: users measured no throughput
    difference against FlashAttention (vllm#3997); RT-ENV-VLLM lists it. Nor are MoE backends (vLLM
    `--moe-backend`): published A/Bs disagree by GPU and release (vllm#41306, vllm PRs 44220 and 54742).
    Nor is an FP8 KV cache before Ada: −2 to −3 % single-request on A100 in the one end-to-end figure
    found (vllm PR 45829), and which backends take it changes by release.
    """
    if ollama_cuda is not None and ollama_cuda.cuda_runner_missing:
        return issue(f"ollama ships no CUDA runner (\"{ollama_cuda.runners_line[-200:]}\") while its discovery found a "
                     "CUDA GPU: the build carries no CUDA kernels, so every layer runs on the CPU",
                     actual={"runners": list(ollama_cuda.runners)}, expected="a cuda_v11/cuda_v12 runner",
                     evidence=[ollama_cuda.runners_line[:400], *ollama_cuda.lines[:2]],
                     fix=Fix.of(step("Install ollama's release build with its CUDA runners (the official install script "
                                     "or image), not a CPU-only package", cost="restart")))
    if (no_backend := _ggml_without_gpu_backend(serving_log, gpus, ggml_cuda_asked)) is not None:
        return no_backend
    archs = _architectures(gpus)
    gpu_note = f" ({', '.join(sorted(archs))})" if archs else ""
    hint = "paste `nvidia-smi` (the GPU names) beside the engine's command line"
    roots = serving_processes.roots() if serving_processes is not None else []
    pasted = [c.as_process() for c in (engine_commands.commands if engine_commands is not None else ())]
    engines = (parallelism or Parallelism()).engines_shown(collect_env)
    floor = _below_engine_floor(engines, gpus, [*roots, *pasted], collect_env)
    if floor is not None:
        return floor
    ggml = _ggml_archs(serving_log, gpus)
    if ggml is not None and ggml.status == "issue":
        return ggml
    if roots:
        hits, blind = _rule_hits(((r.engine, _kernel_settings(r)) for r in roots), archs)
        if hits:
            return _kernel_issue(hits, "the engine's command line")
        if blind:
            return unknown(f"{', '.join(blind)} on the engine's command line is slow on some GPU architectures, but "
                           "the source does not name the GPUs", hint=hint)
        return ok("no flag on the engine's command line forces a kernel the GPU table marks slow" + gpu_note,
                  actual=[s for r in roots for s in _kernel_settings(r)] or "defaults",
                  evidence=[f"{r.label} cmdline: {' '.join(r.argv)[:300]}" for r in roots])
    log_settings = [f"{k} {v}" for k, v in serving_log.kernel_settings] if serving_log is not None else []
    log_lines = list(serving_log.kernel_lines) if serving_log is not None else []
    log_engine = serving_log.engine if serving_log is not None else ""
    commands = list(engine_commands.commands) if engine_commands is not None else []
    containers = _container_engines(docker_containers)
    sources = [(c.engine, _kernel_settings(c.as_process())) for c in commands]
    sources += [(e, _kernel_settings(ProcessInfo(pid=0, ppid=None, comm="", argv=argv, engine=e, root_pid=0)))
                for e, argv in containers]
    sources += [(e, log_settings + log_lines) for e in ((log_engine,) if log_engine else ("vllm", "sglang"))]
    hits, blind = _rule_hits(sources, archs)
    if hits:
        return _kernel_issue(hits, "the pasted command line, container spec or engine log")
    if blind:
        return unknown(f"{', '.join(dict.fromkeys(blind))} is slow on some GPU architectures, but the source does "
                       "not name the GPUs", hint=hint)
    if containers and not commands:
        return unknown("no kernel flag the table marks slow in the containers' engine arguments, but a container "
                       "spec does not give the engine's version", hint="paste `python -m vllm.collect_env` too")
    if serving_processes is not None and serving_processes.listed and not commands:
        return _no_engine(serving_processes, "no vLLM or SGLang process is running: there is no engine command "
                          "line to read")
    if all(c.engine == "llamacpp" for c in commands) and \
            (judged := _ggml_command_arch(_ggml_run_lines(commands, serving_rate), gpus, ggml, stated_cuda_archs)):
        return judged
    if commands:
        versions = {c.engine: _engine_version(collect_env, c.engine, serving_log, python_env) for c in commands}
        for c in commands:  # a complete vLLM command that leaves no kernel to its release stands for the version
            settled = _vllm_kernels_settled(c, archs) if not versions.get(c.engine) else None
            if settled:
                versions[c.engine] = settled
        if all(versions.values()):
            shown = ", ".join(f"{ENGINE_NAMES.get(e, e)} {v}" for e, v in versions.items())
            judged = ok(f"no flag on the pasted command line forces a kernel the GPU table marks slow ({shown})"
                        + gpu_note, actual=[s for c in commands for s in _kernel_settings(c.as_process())]
                        or "defaults", evidence=[c.quoted[:300] for c in commands])
            # The GPUs the source names were each held against the table: the verdict covers those it shows.
            labels = [g.label for g in gpus.gpus if g.model] if gpus is not None else []
            return over_subjects(judged, labels, gpus.whole_count, ask="nvidia-smi -L") if gpus is not None \
                and labels else judged
        return unknown("no kernel flag the table marks slow on the pasted command line, but the engine's version "
                       "is not in the source (a complete command line is judged with its version)",
                       hint="paste `python -m vllm.collect_env` (or `python -m sglang.check_env`)")
    if ggml is not None and not (log_settings or log_lines):
        return ggml
    if serving_log is not None and (log_settings or log_lines):
        return unknown("the engine's log names no kernel the table marks slow, but a log does not show every flag",
                       hint="paste the engine's command line")
    looks = _tensor_cores_without_them(ggml_cuda_build, gpus)
    if looks is not None:
        return looks
    return unknown("the source shows no engine command line, configuration dump or kernel log line",
                   hint=CAPTURE_HINT)


# --- RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS ------------------------------------------------------


@check(
    "RT-ENV-CUDA-DEVICE-MAX-CONNECTIONS",
    title="CUDA_DEVICE_MAX_CONNECTIONS copied from training recipes",
    severity="low",
    confidence="unproven",
    fix=advice("Unset CUDA_DEVICE_MAX_CONNECTIONS in the vLLM service/container environment unless a measurement "
                   "says otherwise", cost="restart", scope="container"),
    references=("https://docs.nvidia.com/deploy/mps/", SGLANG_ENGINE),
)
def cuda_device_max_connections(serving_processes: ServingProcesses) -> Outcome:
    """Reads: CUDA_DEVICE_MAX_CONNECTIONS in /proc/<pid>/environ of the engine's processes
    (workers; a titled child's environment block is overwritten, so its parent's is read).

    Bad value: `1` in vLLM processes (copied from Megatron training recipes, where it orders
    communication and compute) — unproven harm for inference, ranked low.

    Why: it sets "the preferred number of compute and copy engine concurrent connections (work
    queues) from the host to the device" (CUDA MPS doc); 1 serialises independent streams onto
    one hardware queue. No published inference measurement either way.

    Traps: SGLang sets it itself (`_set_envs_and_config`: 1, then 4, now 8 across releases) and
    overwrites the user's value: never flag it in SGLang processes.
    """
    name = "CUDA_DEVICE_MAX_CONNECTIONS"
    targets, own = _env_targets(serving_processes)
    blind = _unreadable(targets)
    if blind is not None:
        return blind
    setting = [p for p in targets if p.env(name) is not None]
    if not setting:
        where = f"; {_own_note(serving_processes)}" if own else " in the engine processes"
        return not_applicable(f"{name} is not set{where}")
    bad = [p for p in setting if p.env(name) == "1" and (own or p.engine == "vllm")]
    per_instance: dict[int, ProcessInfo] = {}
    for p in bad:
        per_instance.setdefault(p.root_pid or p.pid, p)  # one per engine instance
    bad = list(per_instance.values())
    if bad:
        where = f"; {_own_note(serving_processes)}" if own else ""
        return issue(f"{name}=1 in {', '.join(p.label for p in bad[:4])}: a training setting that serialises "
                     f"the GPU's work queues; its effect on inference is unproven (no published measurement)"
                     + where,
                     actual="1", expected="unset", subjects=[name], evidence=[_env_line(p, name) for p in bad[:4]])
    sglang = [p for p in setting if p.engine == "sglang"]
    if sglang:
        return not_an_issue(f"{name}={sglang[0].env(name)} in SGLang processes: SGLang sets this itself and "
                            "overwrites the user's value", actual=sglang[0].env(name), subjects=[name],
                            evidence=[_env_line(p, name) for p in sglang[:4]])
    p = setting[0]
    return ok(f"{name}={p.env(name)} in {p.label}: not the training value 1", actual=p.env(name), subjects=[name],
              evidence=[_env_line(p, name)])


# --- RT-ENV-VLLM -----------------------------------------------------------------------------

# variable -> (bad value, why); checked against vLLM's envs.py semantics. CUDA_LAUNCH_BLOCKING=1 is a debugging
# setting vLLM's troubleshooting guide asks users to set, and to turn off again because the system may be slow with it.
VLLM_BAD_ENV = {
    "VLLM_USE_FLASHINFER_SAMPLER": ("0", "PyTorch-native top-p/top-k sampling instead of FlashInfer's (slower)"),
    "VLLM_ENABLE_V1_MULTIPROCESSING": ("0", "the engine core runs inside the API-server process: frontend and "
                                            "scheduler compete for one GIL"),
    "VLLM_DISABLE_COMPILE_CACHE": ("1", "torch.compile recompiles on every start (startup time only)"),
    "CUDA_LAUNCH_BLOCKING": ("1", "every kernel launch is synchronous: the CPU waits for each kernel to finish "
                                  "instead of queueing work ahead of the GPU (a debugging setting)"),
}
SLOW_ATTENTION_BACKENDS = ("TORCH_SDPA", "XFORMERS")
# Values that look like a slow or debugging setting and are not one the table judges (not-an-issue where a spec shows
# them): name -> (the values, why). VLLM_SKIP_P2P_CHECK=1 is vLLM's default (vllm/envs.py); DEBUG logging has no
# measured cost; a forced attention backend other than FlashAttention or FlashInfer is what some models or GPUs need
# (gpt-oss on A100 needs TRITON_ATTN, corpus 891); VLLM_USE_V1 picks the engine generation, V1 the default from 0.8.
# FlashAttention and FlashInfer backends, the FlashInfer MoE and sampler switches on, look like nothing (corpus 1051).
VLLM_ENV_LOOKALIKES = {
    "VLLM_SKIP_P2P_CHECK": (re.compile(r"1"), "vLLM's own default in current releases"),
    "VLLM_LOGGING_LEVEL": (re.compile(r"DEBUG", re.I), "debug logging, no measured cost"),
    "VLLM_ATTENTION_BACKEND": (re.compile(r"(?!FLASH_ATTN|FLASHINFER).+"),
                               "a forced attention backend, which some models and GPUs need"),
    "VLLM_USE_V1": (re.compile(r".*"), "the engine generation, V1 the default from vLLM 0.8"),
}


def vllm_env_listed(name: str) -> bool:
    """A variable RT-ENV-VLLM lists: vLLM's own (`VLLM_*`) and the others its table judges."""
    return name.startswith("VLLM_") or name in VLLM_BAD_ENV


def vllm_env_findings(env: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(name, "NAME=value: why") for each variable of `env` set to its VLLM_BAD_ENV value, each name once."""
    seen = dict(env)
    return [(n, f"{n}={seen[n]}: {why}") for n, (bad, why) in VLLM_BAD_ENV.items()
            if n in seen and seen[n].strip().strip("'\"") == bad]


def _spec_vllm_env(containers: DockerContainers | None, commands: EngineCommands | None) -> Outcome | None:
    """RT-ENV-VLLM from a pasted spec or command line, where no process is read: the variables a vLLM container's spec
    shows, and those a vLLM command line sets. A bad value is a finding wherever it is shown. None bad is
    judged only where the spec shows every variable it sets (DockerContainer.env_whole, or a container's argument list
    with its env list beside it, EngineCommand.env_whole; the image's own ENV is never in a spec). None: no bad value, and no container whose env the spec shows whole."""
    vllm = [c for c in (containers.containers if containers is not None else ())
            if (c.env or c.env_whole) and (c.engine == "vllm" or any(n.startswith("VLLM_") for n, _ in c.env))]
    lines = [c for c in (commands.commands if commands is not None else ()) if c.engine == "vllm" and c.env]
    sources = [(f"the env of {c.label} in the pasted spec", c.env) for c in vllm]
    sources += [(f"the pasted `{c.argv[0]}` command line", c.env) for c in lines]
    bad = [(n, f"{text} ({where})") for where, env in sources for n, text in vllm_env_findings(env)]
    if bad:
        return issue("; ".join(text for _, text in bad), actual={n: v for _, env in sources for n, v in env
                                                                  if n in dict(bad)},
                     expected="unset (vLLM defaults)", subjects=list(dict.fromkeys(n for n, _ in bad)))
    whole = [(c.label, c.env) for c in vllm if c.env_whole]
    whole += [("the container's argument list", c.env) for c in (commands.commands if commands is not None else ())
              if c.engine == "vllm" and c.env_whole]
    if not whole:
        return None
    seen = {n: v for _, env in whole for n, v in env if vllm_env_listed(n)}
    labels = ", ".join(label for label, _ in whole)
    listed = ", ".join(f"{n}={v}" for n, v in seen.items()) or "none"
    looks = [f"{n}={v}: {why}" for n, (values, why) in VLLM_ENV_LOOKALIKES.items()
             if (v := seen.get(n, "").strip().strip("'\"")) and values.fullmatch(v)]
    text = (f"the pasted spec's env of {labels} sets no vLLM variable known to lower performance (variables: "
            f"{listed}); the image's own ENV is not in a spec")
    if looks:
        return not_an_issue(f"{text}; what looks like one is not ({'; '.join(looks)})", actual=seen)
    return ok(text, actual=seen)


@check(
    "RT-ENV-VLLM",
    title="vLLM environment variables that lower performance",
    severity="low",
    confidence="source-verified",
    fix=advice("Unset the variable in the vLLM service/container environment", cost="restart", scope="container"),
    references=(VLLM_ENVS, "https://github.com/vllm-project/vllm/issues/19810",
                "https://docs.vllm.ai/en/latest/usage/troubleshooting/"),
)
def env_vllm(serving_processes: ServingProcesses | None = None, python_env: PythonEnv | None = None,
             docker_containers: DockerContainers | None = None,
             engine_commands: EngineCommands | None = None) -> Outcome:
    """Reads: every `VLLM_*` variable and CUDA_LAUNCH_BLOCKING in /proc/<pid>/environ of the vLLM
    processes; the vLLM and nvidia-nccl wheel versions from python_env. Where no process is read:
    the environment of a pasted vLLM container spec (with the env file pasted beside a compose
    file that names one), and the variables set on a pasted vLLM command line.

    Bad value: `VLLM_USE_FLASHINFER_SAMPLER=0`, `VLLM_ENABLE_V1_MULTIPROCESSING=0`,
    `VLLM_DISABLE_COMPILE_CACHE=1`, `CUDA_LAUNCH_BLOCKING=1`, `VLLM_NCCL_SO_PATH` naming another
    NCCL than torch's wheel.
    `VLLM_ATTENTION_BACKEND=TORCH_SDPA|XFORMERS` is reported as information (backend choices
    change by version and GPU).

    Why: semantics from vllm/envs.py; the impact depends on the vLLM version (shown).
    CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous (CUDA programming guide).
    vLLM's troubleshooting guide sets it to find a fault, and says the system may be slow when
    debugging settings are left on.

    Traps: `VLLM_SKIP_P2P_CHECK=1` is vLLM's own default in current releases (envs.py), not an
    override — not a finding (see IC-P2P-FUNCTIONAL). Variables unknown to a version are listed,
    not flagged. `VLLM_LOGGING_LEVEL=DEBUG` is listed, not flagged (no measured cost). Where no
    process is read, a pasted spec is judged only where it shows the container's env whole: a pod
    spec's env list, or a whole compose service whose env file, if it names one, is pasted beside
    it, or a whole `docker run` without `--env-file`. A bad value shown anywhere (a cut env list, a
    command line) is a finding. A command line shows only the variables set on it: none bad says
    nothing. A whole spec's env with no bad value is ok, and not-an-issue where a variable looks like a slow or
    debugging setting and is not (VLLM_ENV_LOOKALIKES: DEBUG logging, a forced non-Flash attention backend,
    VLLM_USE_V1, VLLM_SKIP_P2P_CHECK=1).
    """
    if serving_processes is None or (not serving_processes.found and not serving_processes.listed):
        spec = _spec_vllm_env(docker_containers, engine_commands)
        if spec is not None:
            return spec
    if serving_processes is None:
        return unknown("", needs="serving_processes")
    targets, own = _env_targets(serving_processes, ("vllm",))
    if not targets and serving_processes.found:
        return not_applicable("no vLLM process is running (engines: "
                              + ", ".join(sorted(ENGINE_NAMES[e] for e in serving_processes.engines())) + ")")
    blind = _unreadable(targets)
    if blind is not None:
        return blind
    where = f"; {_own_note(serving_processes)}" if own else ""
    seen: dict[str, tuple[str, ProcessInfo]] = {}
    for p in targets:
        for name, value in sorted((p.environ or {}).items()):
            if vllm_env_listed(name) and name not in seen:
                seen[name] = (value, p)
    envs = python_env.environments if python_env is not None else ()
    vllm_version = next((e.version("vllm") for e in envs if e.version("vllm")), None)
    version_note = f" (vLLM {vllm_version})" if vllm_version else ""
    findings: list[str] = []
    subjects: list[str] = []
    for name, text in vllm_env_findings((n, v) for n, (v, _) in seen.items()):
        findings.append(text)
        subjects.append(name)
    if "VLLM_NCCL_SO_PATH" in seen:
        path = seen["VLLM_NCCL_SO_PATH"][0]
        wheel = next((e.nccl_wheel() for e in envs if e.nccl_wheel()), None)
        m = re.search(r"libnccl\.so\.(\d+\.\d+(?:\.\d+)?)", path)
        if wheel and m and release(m.group(1), 2) != release(wheel[1], 2):
            findings.append(f"VLLM_NCCL_SO_PATH={path}: NCCL {m.group(1)}, but torch's {wheel[0]} is {wheel[1]}")
            subjects.append("VLLM_NCCL_SO_PATH")
    info = [f"{n}={v}" for n, (v, _) in seen.items() if n == "VLLM_ATTENTION_BACKEND" and v in SLOW_ATTENTION_BACKENDS]
    evidence = [_env_line(seen[n][1], n) for n in subjects] or [_env_line(p, n) for n, (_, p) in seen.items()][:8]
    if findings:
        return issue("; ".join(findings) + version_note + where, actual={n: seen[n][0] for n in subjects},
                     expected="unset (vLLM defaults)", subjects=subjects, evidence=evidence)
    listed = ", ".join(f"{n}={v}" for n, (v, _) in seen.items()) or "none"
    if info:
        return ok(f"{', '.join(info)} forces a slower attention backend on Hopper/Blackwell — information only, "
                  f"backend availability changes by version{version_note}{where}",
                  actual={n: v for n, (v, _) in seen.items()}, evidence=evidence)
    if seen.get("VLLM_SKIP_P2P_CHECK", ("",))[0] == "1":
        return not_an_issue("VLLM_SKIP_P2P_CHECK=1 is vLLM's own default in current releases (vllm/envs.py), "
                            f"not an override (see IC-P2P-FUNCTIONAL); VLLM_ variables: {listed}{where}",
                            actual={n: v for n, (v, _) in seen.items()}, subjects=["VLLM_SKIP_P2P_CHECK"],
                            evidence=evidence)
    return ok(f"no vLLM variable known to lower performance; VLLM_ variables: {listed}{version_note}{where}",
              actual={n: v for n, (v, _) in seen.items()}, evidence=evidence)


# --- RT-ENV-SGLANG ---------------------------------------------------------------------------

SGLANG_SETS = ("NCCL_CUMEM_ENABLE", "NCCL_NVLS_ENABLE", "CUDA_DEVICE_MAX_CONNECTIONS")


@check(
    "RT-ENV-SGLANG",
    title="values SGLang sets itself (do not flag)",
    severity="low",
    confidence="source-verified",
    fix=advice("Upgrade SGLang so --enable-nccl-nvls / --enable-symm-mem take effect; on NVSwitch H100/H200/B200 "
                   "consider benchmarking --enable-nccl-nvls", cost="restart", scope="container"),
    references=(SGLANG_ENGINE,),
)
def env_sglang(serving_processes: ServingProcesses) -> Outcome:
    """Reads: NCCL_CUMEM_ENABLE, NCCL_NVLS_ENABLE, CUDA_DEVICE_MAX_CONNECTIONS in the SGLang
    processes' /proc/<pid>/environ (the scheduler's own block where intact, else the launcher's),
    and the launcher's `--enable-nccl-nvls` / `--enable-symm-mem`.

    Bad value: none of these by themselves. Only a scheduler whose own environment shows
    NCCL_NVLS_ENABLE=0 although `--enable-nccl-nvls` was given (or NCCL_CUMEM_ENABLE=0 with
    `--enable-symm-mem`): an SGLang build that sets them unconditionally, so the flag did nothing.

    Why: `_set_envs_and_config` in sglang engine.py sets NCCL_CUMEM_ENABLE and NCCL_NVLS_ENABLE
    from those flags (older builds: "0" unconditionally), CUDA_DEVICE_MAX_CONNECTIONS to 4 or 8,
    and raises RLIMIT_NOFILE. The scheduler processes inherit those values.

    Traps: this entry exists to suppress false positives (IC-NCCL-ENV, RT-ENV-CUDA-DEVICE-MAX-
    CONNECTIONS): NCCL_NVLS_ENABLE=0 in an SGLang process is SGLang's default, not a user mistake.
    """
    targets, own = _env_targets(serving_processes, ("sglang",))
    if not targets and serving_processes.found:
        return not_applicable("no SGLang process is running")
    blind = _unreadable(targets)
    if blind is not None:
        return blind
    if own:
        present = [n for n in SGLANG_SETS if targets and targets[0].env(n) is not None]
        if not present:
            return not_applicable(f"none of {', '.join(SGLANG_SETS)} is set; {_own_note(serving_processes)}")
        cur = targets[0]
        return not_an_issue(f"{', '.join(f'{n}={cur.env(n)}' for n in present)}: SGLang sets these itself at start "
                            f"and overwrites these values; {_own_note(serving_processes)}",
                            actual={n: cur.env(n) for n in present},
                            subjects=present)
    findings: list[str] = []
    evidence: list[str] = []
    for root in serving_processes.roots("sglang"):
        nvls_flag = _bool_flag(root.argv, "--enable-nccl-nvls")
        symm_flag = _bool_flag(root.argv, "--enable-symm-mem")
        for p in serving_processes.instance(root):
            if p.role != "scheduler" or p.environ is None or p.environ_from is not None:
                continue  # only a scheduler's own environment shows what SGLang set
            if nvls_flag and p.env("NCCL_NVLS_ENABLE") == "0":
                findings.append(f"{p.label}: NCCL_NVLS_ENABLE=0 although --enable-nccl-nvls was given")
                evidence.append(_env_line(p, "NCCL_NVLS_ENABLE"))
            if symm_flag and p.env("NCCL_CUMEM_ENABLE") == "0":
                findings.append(f"{p.label}: NCCL_CUMEM_ENABLE=0 although --enable-symm-mem was given")
                evidence.append(_env_line(p, "NCCL_CUMEM_ENABLE"))
    if findings:
        return issue("; ".join(findings) + ": this SGLang build sets the variable unconditionally, so the flag "
                     "had no effect", actual=findings, expected="the value the flag asks for",
                     subjects=[f.split(":")[0] for f in findings], evidence=evidence)
    values: dict[str, str] = {}
    for p in targets:
        for n in SGLANG_SETS:
            value = p.env(n)
            if value is not None and n not in values:
                values[n] = value
                evidence.append(_env_line(p, n))
    if values:
        return not_an_issue(f"{', '.join(f'{n}={v}' for n, v in values.items())} in SGLang processes: SGLang sets "
                            "these itself (NVLS/cuMem off unless --enable-nccl-nvls / --enable-symm-mem); not a "
                            "misconfiguration", actual=values, subjects=list(values), evidence=evidence)
    return ok("SGLang runs with the values it sets itself; nothing user-set to suppress", actual={})


# --- RT-ULIMIT-NOFILE ------------------------------------------------------------------------


def _nofile(proc: ProcessInfo) -> tuple[str, str] | None:
    return (proc.limits or {}).get("Max open files")


def _below(value: str, target: int) -> bool | None:
    if value == "unlimited":
        return False
    return int(value) < target if value.isdecimal() else None


def _hard_below(soft: str, hard: str, target: int) -> bool | None:
    """Whether the hard limit is below `target`; None where neither limit settles it.

    setrlimit(2): "The soft limit is the value that the kernel enforces ... the hard limit acts as a
    ceiling for the soft limit", so hard >= soft always, and a soft limit >= `target` (a pasted
    `ulimit -a`, which shows soft limits only) settles that the hard one is not below it either.
    """
    below = _below(hard, target)
    if below is None and _below(soft, target) is False:
        return False
    return below


def _hard_text(hard: int) -> str:
    return "unlimited" if hard < 0 else str(hard)


def _container_nofile(containers: DockerContainers | None) -> Outcome | None:
    """RT-ULIMIT-NOFILE from the containers' `--ulimit nofile` (docker inspect Ulimits, a pasted spec):
    the hard limit every process inside inherits.

    Ok only where every container with GPUs or an engine sets one of at least 65536.
    None where no container sets one, or where a GPU or engine container sets none (it inherits the daemon's).
    """
    shown = [(c, u) for c in (containers.containers if containers else ())
             if (c.origin or c.gpu_requested or c.looks_like_serving) and (u := c.ulimit("nofile")) is not None]
    if not shown:
        return None
    low = [f"container {c.label}: hard {u.hard}" for c, u in shown if 0 <= u.hard < NOFILE_TARGET]
    evidence = [f"container {c.label} Ulimits nofile soft {u.soft} hard {u.hard}" for c, u in shown]
    if low:
        return issue(f"open-file hard limit {_limits(u.hard for _, u in shown if 0 <= u.hard < NOFILE_TARGET)} is "
                     f"below {NOFILE_TARGET}: {'; '.join(low)} (every process in the container "
                     "inherits it; the engine cannot raise its soft limit above it)", actual=low,
                     expected=f"hard limit >= {NOFILE_TARGET} (1048576 usual)", subjects=[c.label for c, _ in shown],
                     evidence=evidence)
    set_ = {id(c) for c, _ in shown}
    if containers is None or any(id(c) not in set_ for c in containers.gpu_or_serving):
        return None
    return ok(f"open-file hard limit >= {NOFILE_TARGET}: "
              f"{'; '.join(f'container {c.label}: hard {_hard_text(u.hard)}' for c, u in shown)} (every process in the "
              "container inherits it)", actual={c.label: u.hard for c, u in shown}, evidence=evidence)


# Where a raised open-file limit is kept: the container's, the unit's or the login's setting.
_NOFILE_KEEP = (keep_line("--ulimit nofile=1048576:1048576", "docker run", label="Docker"),
                keep_line("LimitNOFILE=1048576", "the engine's systemd unit", label="systemd"),
                keep_line("lxc.prlimit.nofile = 1048576", "the container's LXC config", label="LXC"),
                keep_line("* - nofile 1048576", "/etc/security/limits.d/", label="limits.d"))


@check(
    "RT-ULIMIT-NOFILE",
    title="open-file limit too low for many concurrent requests",
    severity="medium",
    confidence="source-verified",
    fix=Fix.of(step("Raise the API server's open-file limit", "prlimit --pid <api-server pid> --nofile=1048576:1048576",
                       cost="restart", scope="container", changes="RLIMIT_NOFILE of the API server",
                       per="<api-server pid>", per_match=PID_SUBJECT, keep=_NOFILE_KEEP)),
    references=("https://github.com/vllm-project/vllm/blob/main/vllm/utils/system_utils.py",),
)
def ulimit_nofile(serving_processes: ServingProcesses | None = None,
                  docker_containers: DockerContainers | None = None,
                  container: ContainerInfo | None = None) -> Outcome:
    """Reads: `Max open files` in /proc/<pid>/limits of each engine's API-server process (the
    one holding the HTTP connections). Where no engine runs, the limit of the audit's own shell or
    container, which an engine started there would inherit (a low one is a low-severity note about
    that shell or container, with no PID).

    Bad value: hard limit below 65536 (vLLM raises its soft limit to 65536 and warns "Found ulimit
    of N and failed to automatically increase" when the hard limit is lower).

    Why: every HTTP connection or stream, ZMQ socket and model file takes a descriptor; EMFILE
    ("Too many open files") fails requests under load.

    Traps: SGLang and vLLM raise their own soft limit at start, so a low soft limit with a high
    hard limit is fine; only the hard limit matters. In a container the hard limit comes from the
    container runtime (`--ulimit`), not from the host's limits.conf.
    """
    from_containers = _container_nofile(docker_containers)
    if serving_processes is None:
        return from_containers or unknown("the engine's processes are not known (the source does not show them, "
                                          "or --pid names no engine process)", hint=CAPTURE_HINT)
    procs = serving_processes
    own = not procs.found
    if own and from_containers is not None:
        return from_containers
    if own:
        targets = [procs.current] if procs.current is not None else []
    else:
        targets = []
        for root in procs.roots():
            members = procs.instance(root)
            targets.append(next((p for p in members if p.role == "api-server" and p.limits), root))
    if not targets:
        return unknown("neither an engine process nor the audit's own process shows its limits")
    if own:
        return _inherited_nofile(targets[0], serving_processes, container)
    where = ""
    low_hard: list[str] = []
    low_pids: list[str] = []
    low_soft: list[tuple[ProcessInfo, str]] = []
    unknown_: list[str] = []
    evidence: list[str] = []
    for p in targets:
        row = _nofile(p)
        if row is None:
            unknown_.append(p.label)
            continue
        soft, hard = row
        evidence.append(f"{p.label} limits: Max open files {soft} {hard}")
        hard_below = _hard_below(soft, hard, NOFILE_TARGET)
        if hard_below:
            low_hard.append(f"{p.label}: hard {hard}")
            low_pids.append(f"pid {p.pid}")
        elif hard_below is None and _below(soft, NOFILE_TARGET):
            unknown_.append(f"{p.label} (soft {soft}, hard not shown)")
        elif _below(soft, NOFILE_TARGET):
            low_soft.append((p, soft))
    if low_hard:
        return issue(f"open-file hard limit {_limits(h.rsplit(' ', 1)[-1] for h in low_hard)} is below "
                     f"{NOFILE_TARGET}: {'; '.join(low_hard)}{where}",
                     actual=low_hard, expected=f"hard limit >= {NOFILE_TARGET} (1048576 usual)",
                     subjects=low_pids, evidence=evidence)
    if unknown_ and not evidence:
        return unknown(f"the open-file limits of {', '.join(unknown_)} are not shown{where}",
                       hint="cat /proc/<api-server pid>/limits")
    trt = [(p, s) for p, s in low_soft if p.engine == "trtllm"]
    if trt:
        p, soft = trt[0]
        return issue(f"{p.label}: soft open-file limit {soft}; TensorRT-LLM is not known to raise it itself "
                     "(unproven: check for EMFILE under load)", actual=soft, expected=f">= {NOFILE_TARGET}",
                     subjects=[f"pid {p.pid}"], evidence=evidence, severity="low", confidence="unproven")
    if low_soft:
        p, soft = low_soft[0]
        return not_an_issue(f"soft open-file limit {soft} but the hard limit is high enough: vLLM and SGLang raise "
                            f"their soft limit at start, only the hard limit matters{where}",
                            actual={p.label: _nofile(p) for p, _ in low_soft}, evidence=evidence)
    if unknown_:
        return unknown(f"the hard open-file limit of {', '.join(unknown_)} is not shown{where}",
                       hint="cat /proc/<api-server pid>/limits (a pasted `ulimit -a` shows only the soft limit)")
    return ok(f"open-file hard limit >= {NOFILE_TARGET}{where}", actual={p.label: _nofile(p) for p in targets},
              evidence=evidence)


def _inherited_nofile(own: ProcessInfo, procs: ServingProcesses, container: ContainerInfo | None) -> Outcome:
    """RT-ULIMIT-NOFILE where no engine runs: the limit an engine started from this shell (or this
    container) would inherit. A low hard limit is a P2 note about the shell or container, with no PID:
    the audit's own process is gone before anyone reads the report, and a limit is raised where the
    engine is started (`ulimit`, docker `--ulimit`, the unit's LimitNOFILE), not with `prlimit`."""
    row = _nofile(own)
    if procs.listed:
        place = "this container" if container is not None and container.in_container else "this shell"
        note = f"no engine runs: the limit an engine started from {place} would inherit"
    else:
        place, note = "the captured shell", NOT_LISTED
    if row is None:
        return unknown(f"the open-file limit of {place} is not shown; {note}", hint="ulimit -Hn")
    soft, hard = row
    evidence = [f"{place} limits: Max open files {soft} {hard}"]
    hard_below = _hard_below(soft, hard, NOFILE_TARGET)
    if hard_below:
        return issue(f"open-file hard limit {hard} below {NOFILE_TARGET} in {place}; {note}", actual=hard,
                     expected=f"hard limit >= {NOFILE_TARGET} (1048576 usual)", subjects=[place], evidence=evidence,
                     severity="low", fix=INHERITED_NOFILE_FIX)
    if hard_below is None:
        return unknown(f"the open-file limit of {place} is incomplete (soft {soft}, hard not shown); {note}",
                       hint="ulimit -Hn (a pasted `ulimit -a` shows only the soft limit)")
    if _below(soft, NOFILE_TARGET):
        return not_an_issue(f"soft open-file limit {soft} but the hard limit is high enough: vLLM and SGLang raise "
                            f"their soft limit at start, only the hard limit matters; {note}",
                            actual={"soft": soft, "hard": hard}, evidence=evidence)
    bound = "" if _below(hard, NOFILE_TARGET) is not None else f" (soft {soft}; the hard limit is never below it)"
    return ok(f"open-file hard limit >= {NOFILE_TARGET} in {place}{bound}; {note}", actual={"soft": soft, "hard": hard},
              evidence=evidence)


# No PID to aim at: the limit is set where the engine will be started.
INHERITED_NOFILE_FIX = advice(
    "Start the engine with a hard open-file limit of at least 65536: `ulimit -Hn 1048576` (as root) in the "
    "shell that launches it, or the container's or unit's setting below", cost="restart", scope="container",
    keep=_NOFILE_KEEP)


# --- RT-OMP ----------------------------------------------------------------------------------


@check(
    "RT-OMP",
    title="OMP_NUM_THREADS oversubscribes the CPUs",
    severity="low",
    confidence="source-verified",
    fix=advice("Unset OMP_NUM_THREADS (vLLM sets 1 in its workers) or set it to at most CPUs / workers",
                   cost="restart", scope="container"),
    references=("https://github.com/vllm-project/vllm/issues/13719",),
)
def omp_threads(serving_processes: ServingProcesses | None = None, cpu: CpuInfo | None = None,
                parallelism: Parallelism | None = None, serving_log: ServingLog | None = None,
                engine_commands: EngineCommands | None = None) -> Outcome:
    """Reads: OMP_NUM_THREADS in /proc/<pid>/environ of the engine's workers (schedulers, engine
    core), the number of workers (processes, or the TP size), and the CPUs each may run on
    (`Cpus_allowed_list` in /proc/<pid>/status, else `lscpu`).

    Bad value: OMP_NUM_THREADS x workers larger than the CPUs the workers may use (oversubscription).

    Why: vLLM logs "Reducing Torch parallelism from N threads to 1 to avoid unnecessary CPU
    contention" — each worker's OpenMP pool competes for the same cores as the scheduler loop.

    Traps: `1` is vLLM's own default in its workers (set when unset) and what torch.distributed
    launchers set: not a finding. GPU serving does little OpenMP work. Without the processes, a pasted log
    of the torch.distributed launcher (torchrun) shows the value it set in every rank from its warning
    ("Setting OMP_NUM_THREADS environment variable for each process to be 1"). vLLM's own "Reducing Torch
    parallelism from N threads to 1" shows the variable unset and 1 in each worker: `ok`, as unset is with the
    processes (corpus 1653). A pasted engine command that sets `OMP_NUM_THREADS=1` on its own line (corpus 1829)
    gives its workers one OpenMP thread each: `ok`; a larger value there is left to the CPUs, which a command does
    not show. A llama.cpp build with OpenMP runs its CPU work in an OpenMP team of its `--threads` (the variable does
    not count there), and its `system_info:` line shows the team and the CPUs it counts (`n_threads = 64
    (n_threads_batch = 64) / 24 | ... | OPENMP = 1 |`): more threads than CPUs is `issue` (corpus 2478), at most as
    many `ok`; a build without OpenMP runs no OpenMP team.
    """
    name = "OMP_NUM_THREADS"
    if serving_processes is None:
        launched = serving_log.launcher_omp if serving_log is not None else None
        if launched is None and (ggml := _ggml_omp_team(serving_log)) is not None:
            return ggml
        if launched is None and (on_line := _omp_on_command_lines(engine_commands)):
            return ok(f"{name}=1 on the pasted engine command line: one OpenMP thread per worker cannot "
                      f"oversubscribe the CPUs (`{on_line[:160]}`)", actual={"command line": "1"}, subjects=[name],
                      evidence=[on_line])
        if launched is None or _int(launched[0]) != 1:
            return unknown("", needs="serving_processes")
        if VLLM_OMP_REDUCED in launched[1]:
            return ok(f"{name} is not set in vLLM's environment: vLLM set 1 in each worker itself and says so "
                      "(one OpenMP thread per worker cannot oversubscribe the CPUs)", actual={"vllm": "1"},
                      subjects=[name], evidence=[launched[1]])
        return not_an_issue(f"{name}=1 in every rank: the torch.distributed launcher set it and says so in its "
                            "warning; one OpenMP thread per rank cannot oversubscribe the CPUs",
                            actual={"launcher": "1"}, subjects=[name], evidence=[launched[1]])
    targets, own = _env_targets(serving_processes)
    blind = _unreadable(targets)
    if blind is not None:
        return blind
    where = f"; {_own_note(serving_processes)}" if own else ""
    groups: list[tuple[ProcessInfo, list[ProcessInfo]]] = []
    if own:
        groups = [(t, [t]) for t in targets]
    else:
        for root in serving_processes.roots():
            members = serving_processes.instance(root)
            workers = ([p for p in members if p.role in ("worker", "scheduler")]
                       or [p for p in members if p.role == "engine-core"] or members)
            groups.append((root, workers))
    findings: list[str] = []
    ones: list[str] = []
    values: dict[str, str] = {}
    evidence: list[str] = []
    for root, workers in groups:
        with_value = [p for p in workers if p.env(name) is not None]
        if not with_value:
            continue
        p = with_value[0]
        value = p.env(name) or ""
        values[root.label] = value
        evidence.append(_env_line(p, name))
        threads = _int(value)
        if threads is None:
            continue
        if threads <= 1:
            ones.append(root.label)
            continue
        count = 1 if own else max(len([w for w in workers if w.role in ("worker", "scheduler")]), _tp_size(root, parallelism), 1)
        cpus = (len(p.cpus_allowed) if p.cpus_allowed else None) or (cpu.cpus if cpu is not None else None)
        if cpus is not None and threads * count > cpus:
            findings.append(f"{root.label}: {name}={threads} x {count} worker(s) = {threads * count} threads "
                            f"on {cpus} CPUs")
    if findings:
        return issue(f"OpenMP oversubscribed by {name}={_limits(values.values())}: " + "; ".join(findings) + where,
                     actual=values,
                     expected="unset or 1 (vLLM's default), or CPUs / workers", subjects=[name], evidence=evidence)
    if ones and len(ones) == len(values):
        return not_an_issue(f"{name}=1: vLLM's own default in its workers, also what torch.distributed sets{where}",
                            actual=values, subjects=[name], evidence=evidence)
    if not values:
        return ok(f"{name} is not set: vLLM sets 1 in its workers itself{where}", actual=None)
    return ok(f"{name} within the CPUs available: {values}{where}", actual=values, evidence=evidence)


def _ggml_omp_team(log: ServingLog | None) -> Outcome | None:
    """RT-OMP from llama.cpp's `system_info:` line of an OpenMP build (ServingLog.ggml_threads): its team of
    `--threads` against the CPUs it counts; None where no such line shows an OpenMP build."""
    if log is None or log.ggml_threads is None or not log.ggml_threads[3]:
        return None
    threads, batch, cpus, _, line = log.ggml_threads
    team = max(threads, batch)
    actual = {"llama.cpp threads": str(team), "CPUs": str(cpus)}
    if team > cpus:
        return issue(f"llama.cpp's OpenMP build runs {team} threads on the {cpus} CPUs it counts: each CPU-side "
                     f"step's threads spin and wait on each other (`{line[:120]}`)", actual=actual,
                     expected=f"--threads at most {cpus} (the physical cores for decode)", subjects=["--threads"],
                     evidence=[line],
                     fix=advice(f"Start llama.cpp with --threads (-t) at most {cpus}, the physical cores for decode",
                                cost="restart", scope="container"))
    return ok(f"llama.cpp's OpenMP build runs {team} threads on the {cpus} CPUs it counts (`{line[:120]}`)",
              actual=actual, subjects=["--threads"], evidence=[line])


def _omp_on_command_lines(commands: EngineCommands | None) -> str:
    """The first pasted engine command whose own line sets OMP_NUM_THREADS, where every command that sets it sets 1
    (a thread per worker); "" where none sets it or one sets another value."""
    values = [(c, dict(c.env).get("OMP_NUM_THREADS")) for c in (commands.commands if commands is not None else ())]
    set_on = [(c, v) for c, v in values if v is not None]
    return set_on[0][0].quoted if set_on and all(_int(v) == 1 for _, v in set_on) else ""


# --- RT-TRTLLM-ALLREDUCE ---------------------------------------------------------------------

P2P_STRATEGIES = ("ONESHOT", "TWOSHOT")


def trtllm_allreduce_verdict(strategy: str, tp: int, nvlink: bool | None, p2p: bool | None) -> str:
    """"issue" | "ok" | "unknown" for a TensorRT-LLM all-reduce strategy on a GPU interconnect."""
    strategy = (strategy or "AUTO").upper()
    if tp <= 1:
        return "ok"
    if strategy in P2P_STRATEGIES:
        if nvlink or p2p:
            return "ok"
        if p2p is False:
            return "issue"
        return "unknown"
    return "ok"


def _nvswitch_present(pci: PciDevices | None) -> bool | None:
    if pci is None:
        return None
    return True if any(d.vendor == NVIDIA_VENDOR and d.pci_class.startswith("0x0680") for d in pci.devices) else None


# TensorRT-LLM programs that run the LLM API with the parallelism their flags and YAML give (not an engine built
# before): `trtllm-serve`, and `trtllm-bench throughput|latency` without `--engine_dir`.
LLM_API_PROGRAMS = ("trtllm-serve", "trtllm-bench")


def _peer_capable(gpus: GpuInventory | None) -> list[str]:
    """The GPU models the source names, where each is of a product line with PCIe peer-to-peer under the stock driver
    (gputable.Family.p2p: data-centre, workstation, NVL and baseboard parts; every row of an ambiguous name agreeing);
    [] where a model is GeForce, of no known line, or no GPU is named."""
    from stackaudit.gputable import FAMILIES, agreed, candidates, family_of

    models = sorted(set(gpus.models.values())) if gpus is not None else []
    def p2p(name: str) -> bool | None:
        family = family_of(name)
        return agreed(candidates(name), lambda r: FAMILIES[r.family].p2p if r.family else None) \
            if family is None else family.p2p
    return models if models and all(p2p(m) for m in models) else []


def _switch_fabric(gpus: GpuInventory | None) -> list[str]:
    """The GPU models the source names, where every row each may be is an HGX board's SXM module (nvlink_kind
    "switch": B200, H100 SXM, A100 SXM4; a 4-GPU board joins them directly): every pair of its GPUs has NVLink peer
    access, the path TensorRT-LLM's custom all-reduce takes; [] where a model may be a PCIe card (`NVIDIA H100` may be the PCIe or NVL part) or none is
    named."""
    from stackaudit.gputable import agreed, candidates

    models = sorted(set(gpus.models.values())) if gpus is not None else []
    return models if models and all(agreed(candidates(m), lambda r: r.nvlink_kind == "switch") for m in models) \
        else []


def _allreduce_on_command_lines(commands: list[EngineCommand], parallelism: Parallelism | None,
                                gpus: GpuInventory | None = None) -> Outcome:
    """RT-TRTLLM-ALLREDUCE on pasted TensorRT-LLM commands: a build's `--use_custom_all_reduce disable` (0.9) is NCCL
    all-reduce; an LLM API command (LLM_API_PROGRAMS) runs its TP size (the `parallelism` fact: flags, else the config
    file shown) with the strategy it forces, else AUTO. A config file the paste does not show, a build flag that
    enables it, or a run whose build is not shown leaves it open. A build that forces it on (`--use_custom_all_reduce
    enable`) for more than one GPU (facts/engine_command.built_world_sizes: its checkpoint's conversion shown) on GPUs
    whose product line has peer-to-peer (_peer_capable: data-centre parts, not GeForce) looks like the failing setting
    and is not: the custom kernels have their peer path there (corpus 2803)."""
    evidence = [c.quoted[:200] for c in commands]
    builds = [c for c in commands if c.builds and not c.converts]  # a conversion sets no plugin flag
    disabled = [c for c in builds if (argv_value(c.argv, ("--use-custom-all-reduce",)) or "").lower() == "disable"]
    if disabled and len(disabled) == len(builds):
        return ok("TensorRT-LLM's custom all-reduce is disabled at build (`--use_custom_all_reduce disable` on "
                  "trtllm-build): the engine all-reduces through NCCL", actual={"use_custom_all_reduce": "disable"},
                  evidence=evidence)
    runs = [c for c in commands if not c.builds]
    unseen = [c for c in runs if c.config_name and not c.config_path]
    llm_api = all(posixpath.basename(c.argv[0]) in LLM_API_PROGRAMS and argv_value(c.argv, ("--engine-dir",)) is None
                  for c in runs)
    sizes = parallelism.pasted("trtllm") if parallelism is not None else ()
    if not builds and runs and llm_api and not unseen and len(sizes) == len(runs):
        judged = [(c.as_process(), size.tp_or_default) for c, size in zip(runs, sizes, strict=True)]
        if all(tp == 1 for _, tp in judged):
            return not_applicable("TensorRT-LLM runs with TP = 1 on the pasted command line"
                                  + (" and the config file it names" if any(p.config for p, _ in judged) else "")
                                  + ": no all-reduce")
        strategies = [((p.option("--allreduce_strategy", "--allreduce-strategy") or "AUTO").upper(), tp)
                      for p, tp in judged]
        open_ = [(s, tp) for s, tp in strategies if trtllm_allreduce_verdict(s, tp, None, None) == "unknown"]
        if open_:
            return unknown(f"TensorRT-LLM's allreduce_strategy {open_[0][0]} at TP={open_[0][1]} needs GPU P2P; "
                           "whether these GPUs have P2P or NVLink is not in the paste",
                           hint="nvidia-smi topo -p2p r", actual={"allreduce_strategy": open_[0][0], "tp": open_[0][1]})
        strategy, tp = max(strategies, key=lambda x: x[1])
        note = " (AUTO: custom kernels where P2P works, NCCL otherwise on current releases)" if strategy == "AUTO" else ""
        return ok(f"TensorRT-LLM runs allreduce_strategy {strategy} at TP={tp} on the pasted command line{note}",
                  actual={"allreduce_strategy": strategy, "tp": tp}, evidence=evidence)
    if one_gpu := built_for_one_gpu(commands):
        return not_applicable(f"{one_gpu}: TensorRT-LLM has no all-reduce between GPUs there")
    forced = [(c, size) for c, size in built_world_sizes(commands) if size is not None and size > 1
              and (argv_value(c.argv, ("--use-custom-all-reduce",)) or "").lower() == "enable"]
    if forced and (peers := _peer_capable(gpus)):
        build, size = forced[0]
        return not_an_issue(
            f"trtllm-build forces TensorRT-LLM's custom all-reduce on (`--use_custom_all_reduce enable`) for an engine "
            f"of {size} GPUs, which fails on GPUs without peer-to-peer; but the GPUs the source names "
            f"({', '.join(peers)}) are data-centre parts with peer access (PCIe P2P, NVLink on SXM boards), where the "
            "custom kernels are the fast path", actual={"use_custom_all_reduce": "enable", "world_size": size},
            evidence=[build.quoted[:200]])
    if opt_in := _legacy_builds_without_custom_all_reduce(builds, runs):
        return ok(f"{opt_in}: the engine all-reduces through NCCL, whatever P2P the GPUs have",
                  actual={"use_custom_all_reduce": False}, evidence=evidence)
    if runs and not llm_api and all(c.launcher and c.ranks == 1 for c in runs):
        return not_applicable(f"every run shown starts one rank (`{' '.join(runs[0].launcher)}`), and TensorRT-LLM's "
                              "runtime runs an engine of TP x PP equal to its MPI size: no all-reduce between GPUs")
    if runs and not builds and not llm_api and all(c.named_tp == 1 for c in runs):
        named = ", ".join(dict.fromkeys(f"`{c.engine_dir}`" for c in runs))
        return not_applicable(f"every run shown runs an engine whose directory states TP 1 ({named}; a pipeline of as "
                              "many stages as its launcher's ranks leaves TP 1): no all-reduce between GPUs, where "
                              "pipeline stages pass activations point to point")
    ranks = next((c for c in runs if c.launcher and c.ranks), None)
    why = ("the configuration file it names is not in the paste" if unseen else
           "the engine's build command (its --use_custom_all_reduce) is not in the paste" if not builds else
           "the build does not disable custom all-reduce, and whether these GPUs have P2P is not collected yet")
    ran = f" (it runs as {ranks.ranks} ranks under {ranks.launcher[0]})" if ranks is not None and ranks.ranks != 1 else ""
    return unknown(f"TensorRT-LLM's all-reduce strategy on the pasted command line: {why}{ran}",
                   hint="paste the trtllm-build command or the --extra_llm_api_options YAML")


def _legacy_builds_without_custom_all_reduce(builds: list[EngineCommand], runs: list[EngineCommand]) -> str:
    """In words, where every build shown is TensorRT-LLM's builder before trtllm-build (LEGACY_BUILDER), shown whole,
    without `--use_custom_all_reduce`, and every run shown runs one of their output directories; "" otherwise. That
    builder's flag is opt-in (`action='store_true'`, examples/<model>/build.py of 0.5-0.8), so such an engine
    all-reduces through NCCL (corpus 1889), whatever world size it is built for, a shell variable included
    (`--world_size ${WORLD_SIZE}`, corpus 2152)."""
    legacy = [c for c in builds if c.legacy_build]
    if not builds or len(legacy) != len(builds) or any(c.cut for c in legacy) or any(
            a.split("=")[0].replace("_", "-") == "--use-custom-all-reduce" for c in legacy for a in c.argv):
        return ""
    built = {posixpath.basename(c.engine_dir) for c in legacy if c.engine_dir}
    if any(posixpath.basename(r.engine_dir) not in built for r in runs):
        return ""
    return (f"the {len(legacy)} engine build(s) shown are TensorRT-LLM's build.py, whose --use_custom_all_reduce is "
            "opt-in, and none passes it")


@check(
    "RT-TRTLLM-ALLREDUCE",
    title="TensorRT-LLM custom all-reduce forced on PCIe-only GPUs",
    severity="medium",
    confidence="field-reports",
    fix=Fix.of(step("Use NCCL all-reduce in TensorRT-LLM (or AUTO on a release with the NCCL fallback); old TensorRT "
                       "engines: rebuild without custom all-reduce", cost="restart", scope="container",
                       keep=keep_line("allreduce_strategy: NCCL", "the extra LLM API options YAML")),
                  note="8x L20/L40S: consider LOWPRECISION after accuracy tests"),
    references=("https://github.com/NVIDIA/TensorRT-LLM/issues/16899", "https://github.com/NVIDIA/TensorRT-LLM/issues/1374",
                "https://nvidia.github.io/TensorRT-LLM/legacy/advanced/lowprecision-pcie-allreduce.html"),
)
def trtllm_allreduce(serving_processes: ServingProcesses | None = None, pci: PciDevices | None = None,
                     parallelism: Parallelism | None = None, engine_commands: EngineCommands | None = None,
                     serving_engine: ServingEngine | None = None, gpus: GpuInventory | None = None,
                     python_env: PythonEnv | None = None, cuda_runtime: CudaRuntime | None = None) -> Outcome:
    """Reads: `trtllm-serve`'s `--tp_size` and `allreduce_strategy` in the YAML named by
    `--extra_llm_api_options`; NVSwitch bridges on the PCI bus. Where no process is read, pasted TensorRT-LLM commands:
    a trtllm-build's `--use_custom_all_reduce disable` (0.9: NCCL all-reduce), or a `trtllm-serve` or
    `trtllm-bench` (without `--engine_dir`) with its TP size from the `parallelism` fact (its flags, else
    `tensor_parallel_size` in the config file it names) and the `allreduce_strategy` it forces, else AUTO. A config
    file named but not shown leaves it open. TensorRT-LLM's builder before trtllm-build (`examples/<model>/build.py`)
    builds for `--world_size` (else `--tp_size` x `--pp_size`) GPUs, 1 by default: where every build shown is for one
    GPU and every run shown (`run.py`, `gptManagerBenchmark`, `gptSessionBenchmark`) runs one of those engine
    directories without a launcher of several ranks, there is no all-reduce: not applicable. That builder's
    `--use_custom_all_reduce` is opt-in: where every build shown is one of it, whole and without the flag, and every run
    shown runs one of their engines, the engine all-reduces through NCCL: ok (corpus 1889). That holds for any world
    size, one given as a shell variable too (`--world_size ${WORLD_SIZE}`, corpus 2152). A run of a built engine
    under a launcher of one rank (`mpirun -n 1`) runs an engine of world size 1 (TensorRT-LLM's runtime takes TP x PP
    from the MPI size): not applicable. So is a run of built engines whose directories' paths all state TP 1
    (EngineCommand.named_tp: `tp=1`, `1-gpu`, or `2-pp` under `mpirun -n 2`, corpus 1667). trtllm-build takes the
    engine's TP and PP from its checkpoint: where every build shown builds one that a conversion shown wrote
    (`convert_checkpoint.py`, `quantize.py --qformat ...`) without `--tp_size` or `--pp_size` above 1, the engine has one
    GPU: not applicable (corpus 2792, 2804). A build that forces `--use_custom_all_reduce enable` for several GPUs
    whose product line has peer-to-peer (data-centre parts, not GeForce) is not-an-issue (corpus 2803). Where no process
    is read and the paste shows TensorRT-LLM (a command, its log, its release in a list: `TRTLLM v0.20.0rc0`, or an
    image the paste names that is TensorRT-LLM's: `tritonserver:24.06-trtllm-python-py3`, corpus 2929) on GPUs
    every row of whose names is an HGX board's SXM module (B200, H100 SXM; not `NVIDIA H100`, which may be a PCIe card),
    every pair has NVLink peer access, the custom kernels' path, whatever strategy and TP its flags (shown or not) set:
    ok (corpus 2837: B200 at TP 8).
    TensorRT-LLM's own lines where CUDA refuses its custom all-reduce peer access
    (facts/symptoms.py: `CUDA runtime error in error: peer access is not supported ...`, `Can't enable access between
    nodes 0 and 1`) prove the issue.

    Bad value: `allreduce_strategy` ONESHOT/TWOSHOT forced on GPUs without P2P (PCIe-only
    GeForce/workstation cards); a crash at init (`cudaIpcOpenMemHandle`, "peer access is not
    supported between these two devices") on such GPUs.

    Why: TensorRT-LLM's custom all-reduce uses CUDA IPC peer memory; on PCIe GPUs without P2P
    some releases crashed instead of falling back to NCCL (TensorRT-LLM #16899, #1374).

    Traps: on NVLink/NVSwitch systems AUTO (and the custom kernels) is the right default. A
    running server has passed init, so AUTO there did not crash. Whether the GPUs have P2P comes
    with the GPU interconnect facts; until then a forced ONESHOT/TWOSHOT without NVSwitch is
    `unknown`. Where no process is read and the source shows the engine on one GPU (facts/parallelism.one_gpu_engine:
    one GPU in the host, one visible device, TP 1), there is no all-reduce: not applicable.
    """
    pasted = [c for c in (engine_commands.commands if engine_commands is not None else ()) if c.engine == "trtllm"]
    if serving_processes is None and (serving_engine is None or serving_engine.engine in ("", "trtllm")) \
            and (one_gpu := one_gpu_engine(serving_engine, gpus)):
        return not_applicable(f"{one_gpu}: TensorRT-LLM has no all-reduce between GPUs there")
    if serving_processes is None:
        judged = _allreduce_on_command_lines(pasted, parallelism, gpus) if pasted else None
        trtllm = bool(pasted) or (serving_engine is not None and serving_engine.engine == "trtllm") or (
            python_env is not None and any(e.version("tensorrt-llm") for e in python_env.environments)) or (
            cuda_runtime is not None and any(engine_of(r.where) == "trtllm" for r in cuda_runtime.runtimes))
        if (judged is None or judged.status == "unknown") and trtllm and (fabric := _switch_fabric(gpus)) \
                and gpus is not None:
            # Whatever strategy and TP the engine runs, its GPUs are an NVSwitch board's: the custom kernels have their
            # peer path (corpus 2837: B200 at TP 8, the engine's flags not shown).
            return over_subjects(ok(
                f"TensorRT-LLM runs on {', '.join(fabric)}, SXM modules of an HGX board joined by NVLink (through "
                "NVSwitch, or directly on a 4-GPU board): every pair of GPUs has peer access, so its custom all-reduce "
                "(AUTO or forced) has the path it needs, whatever the strategy",
                actual={"gpus": fabric}), [g.label for g in gpus.gpus if g.model], gpus.whole_count,
                ask="nvidia-smi -L")
        return judged or unknown(NOT_LISTED.split(":")[0], hint=CAPTURE_HINT, needs="serving_processes")
    roots = serving_processes.roots("trtllm")
    if not roots:
        return _no_engine(serving_processes, "no TensorRT-LLM process is running")
    multi = [(r, _tp_size(r, parallelism)) for r in roots if _tp_size(r, parallelism) > 1]
    if not multi:
        return not_applicable("TensorRT-LLM runs with TP = 1: no all-reduce")
    nvlink = _nvswitch_present(pci)
    for root, tp in multi:
        strategy = (root.option("allreduce_strategy") or "AUTO").upper()
        verdict = trtllm_allreduce_verdict(strategy, tp, nvlink, None)
        source = f"{root.config_path}: allreduce_strategy: {strategy}" if root.config_path else "no allreduce_strategy set"
        if verdict == "unknown":
            return unknown(f"{root.label}: allreduce_strategy {strategy} at TP={tp} needs GPU P2P; whether these GPUs "
                           "have P2P or NVLink is not collected yet", hint="nvidia-smi topo -p2p r",
                           actual={"allreduce_strategy": strategy, "tp": tp}, subjects=[f"pid {root.pid}"])
        if verdict == "issue":  # pragma: no cover - reachable once the P2P fact exists
            return issue(f"{root.label}: allreduce_strategy {strategy} forced on GPUs without P2P",
                         actual=strategy, expected="NCCL or AUTO", subjects=[f"pid {root.pid}"], evidence=[source])
    root, tp = multi[0]
    strategy = (root.option("allreduce_strategy") or "AUTO").upper()
    note = {"LOWPRECISION": " (FP8 all-reduce: evaluate accuracy)",
            "AUTO": " (AUTO: custom kernels where P2P works, NCCL otherwise on current releases)"}.get(strategy, "")
    return ok(f"TensorRT-LLM TP={tp}, allreduce_strategy {strategy}{note}",
              actual={"allreduce_strategy": strategy, "tp": tp},
              evidence=[f"{root.label} cmdline: {' '.join(root.argv)[:200]}"])


# --- RT-VERSION-MATRIX -----------------------------------------------------------------------

MATRIX_PACKAGES = ("torch", "vllm", "sglang", "sgl-kernel", "tensorrt-llm", "flashinfer-python", "flashinfer",
                   "flashinfer-cubin", "flashinfer-jit-cache", "triton", "xformers", "transformers")
# What a pasted report's header records (collect_env's and check_env's first lines), by row key: an excerpt that
# starts after one of them is an inventory without it, like one cut before the library versions.
MATRIX_HEADER = {"python": "Python", "torch": "torch", "torch_cuda": "torch's CUDA"}


def _matrix(env: PythonEnvironment) -> dict[str, str | None]:
    row: dict[str, str | None] = {"source": env.source, "python": env.python_version or None,
                                  "interpreter": env.interpreter or None}
    for name in MATRIX_PACKAGES:
        if env.version(name):
            row[name] = env.version(name)
    if env.version("torch"):
        row["torch_cuda"] = env.torch_cuda if env.torch_cuda is not None else "unknown"
    wheel = env.nccl_wheel()
    if wheel:
        row[wheel[0]] = wheel[1]
    if env.cuda_home_version:
        row["cuda_home"] = f"{env.cuda_home} ({env.cuda_home_version})"
    return row


@check(
    "RT-VERSION-MATRIX",
    title="stack versions worth recording in every audit",
    severity="low",
    confidence="documented",
    fix=advice("Nothing to change: the versions are recorded for comparison", cost="none"),
    references=("https://github.com/vllm-project/vllm/blob/main/vllm/collect_env.py",),
)
def version_matrix(python_env: PythonEnv | None = None, serving_log: ServingLog | None = None) -> Outcome:
    """Reads: the serving interpreter's site-packages (`*.dist-info` METADATA): Python, torch and
    its CUDA, vLLM / SGLang / TensorRT-LLM, FlashInfer, Triton, the nvidia-nccl-cu* wheel, and the
    CUDA toolkit in CUDA_HOME.

    Bad value: none for one interpreter (inventory); the hosts of one NCCL job on different network
    plugins. Mismatches within one stack are other checks' findings (DRV-CUDA-COMPAT,
    RT-TORCH-ARCH, RT-FLASHINFER).

    Why: every other finding is read against these versions (vLLM `collect_env` and SGLang
    `check_env` print the same).

    Traps: the audit's own virtual environment is not the engine's; versions come from the
    serving process's interpreter and say which one.
    A pasted report is recorded only where it shows both its header (Python, torch and torch's CUDA,
    MATRIX_HEADER) and its library versions; an excerpt without either is unknown.
    A library list that names any package besides torch (numpy, torchvision) is shown.

    The hosts of one job run one stack: where NCCL's lines show its hosts took different network plugins (one its
    internal network, finding no libnccl-net.so, another HPC-X's RDMA/SHARP plugin; ServingLog.net_plugins_differ),
    the nodes' library sets differ, an issue whatever the Python packages say (corpus 1195).
    """
    apart = serving_log.net_plugins_differ() if serving_log is not None else ()
    if apart:
        taken = serving_log.net_plugins() if serving_log is not None else {}
        internal = "NCCL's internal network (no libnccl-net.so found)"
        said = "; ".join(f"{host}: {internal if plugin == 'internal' else plugin}" for host, (plugin, _) in taken.items())
        return issue(
            f"the hosts of one NCCL job load different network plugins ({said}): the nodes do not run the same "
            "library stack, and NCCL on each side speaks through another transport (a job across them can hang at "
            "its first inter-node collective)",
            actual={host: plugin for host, (plugin, _) in taken.items()}, evidence=list(apart),
            fix=Fix.of(step("Give every node the same NCCL network plugin: install it on each (or none), and export "
                            "the same LD_LIBRARY_PATH / NCCL_NET_PLUGIN to every rank", cost="runtime")))
    if python_env is None:
        return unknown("", needs="python_env")
    rows = [_matrix(e) for e in python_env.environments]
    if not any(len(r) > 3 for r in rows):
        return unknown("no torch or serving-engine package found in " + ", ".join(
            e.source for e in python_env.environments), hint="`python -m vllm.collect_env` (vLLM) or `python -m sglang.check_env` (SGLang)")
    parts = []
    for row in rows:
        versions = ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("source", "interpreter") and v)
        parts.append(f"{row['source']}: {versions}")
    where = _where(python_env)
    # The CUDA toolkit under CUDA_HOME is in a report's header (check_env's NVCC line), not its library list.
    libraries = [k for r in rows for k, v in r.items() if v and k not in ("source", "interpreter", "python", "torch",
                                                                          "torch_cuda", "cuda_home")]
    # A report's library list that names any package besides torch (`[pip] numpy==1.19.0`, `[pip] torchvision==...`)
    # is shown, whichever packages it holds.
    listed = [k for e in python_env.environments for k in e.packages if k != "torch"]
    headless = sorted({name for r in rows for key, name in MATRIX_HEADER.items() if r.get(key) in (None, "unknown")})
    if python_env.from_report and (not (libraries or listed) or headless):
        # A report cut after its header (Python, torch), or starting after it: the versions it would list there are
        # not shown, so the inventory is not complete enough to record as ok.
        lacking = ([f"{', '.join(headless)} (the report's header)"] if headless else []) + (
            [] if libraries else ["the engine and library versions"])
        return unknown("; ".join(parts) + where + f"; {' and '.join(lacking)} are not in this excerpt",
                       hint="paste the whole `python -m vllm.collect_env` (or `python -m sglang.check_env`)",
                       actual=rows if len(rows) > 1 else rows[0])
    return ok("; ".join(parts) + where, actual=rows if len(rows) > 1 else rows[0],
              evidence=[f"{e.source}: {', '.join(e.site_packages[:3])}" for e in python_env.environments])
