"""vLLM `collect_env` (old flat and new sectioned formats) and SGLang `check_env` reports.

Bug reports for vLLM and SGLang carry these; they name the stack's versions (torch and the CUDA it
was built for, CUDA runtime, vLLM/SGLang, NCCL), the GPU models, the driver, the topology matrix
and (vLLM) the environment variables of the shell it ran in. The `collect_env` fact is what
other facts and checks use where the live source is missing (a pasted report): its fields are
listed on `CollectEnv`.

Recorded form: the importer (importers/collect_env.py) stores the report verbatim as the output
of `python3 -m vllm.collect_env` or `python3 -m sglang.check_env` (COLLECT_ENV_ARGV /
CHECK_ENV_ARGV); `gpu_topology` takes its topology matrix where no `nvidia-smi topo -m` is in the
source (facts/topology.py `topology_from_collect_env`). Live, the fact is not collected: both scripts import torch and take
seconds; the live facts (python_env, nvidia, gpu_topology) say the same things first-hand.

Formats (from vllm/collect_env.py and sglang/check_env.py, and real reports in tests/data/captures):
- old: `PyTorch version: 2.3.0+cu121` ... `GPU models and configuration:` then `GPU 0: <name>`
  lines ... `CPU:` (lscpu) ... `Versions of relevant libraries:` `[pip3] x==y` ... `vLLM Version:`
  ... `GPU Topology:` (matrix) then `NAME=value` environment lines.
- new (vLLM >= 0.9): the same keys as `Key   : value` under `=====` section headers (System Info,
  PyTorch Info, Python Environment, CUDA / GPU Info, CPU Info, Versions of relevant libraries,
  vLLM Info, Environment Variables).
- SGLang: `Python: ...`, `GPU 0,1,2,3: <name>`, `CUDA Driver Version: ...`, `PyTorch: ...`,
  `sglang: ...`, package lines `name: version`, `NVIDIA Topology:` (matrix), `ulimit soft: ...`.
- OpenMMLab (mmengine's `collect_env`, printed by `lmdeploy check_env` and mmdeploy's `check_env.py`):
  `sys.platform: ...`, `Python: ...`, `GPU 0,1,2,3: <name>`, `NVCC: ...`, `PyTorch: ...`, then
  `PyTorch compiling details:` (torch's build configuration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import FactContext, FactUnavailable, provider
from stackaudit.facts.sources import CHECK_ENV, COLLECT_ENV
from stackaudit.gputable import CUT_MARKS, architecture_of, normalize
from stackaudit.host.base import NotCaptured

COLLECT_ENV_ARGV = COLLECT_ENV.argv
CHECK_ENV_ARGV = CHECK_ENV.argv

# A command that prints such a report, as typed at a prompt (`python3 collect_env.py`, `python -m vllm.collect_env`,
# `vllm collect-env`, `python3 -m sglang.check_env`): where the prompt is a container's, the report is the container's.
_REPORT_COMMAND = re.compile(r"(?:^|[\s/.])(?:collect_env|check_env)(?:\.py)?(?:\s|$)|\bvllm\s+collect-env\b")


def report_command(command: str) -> bool:
    """Whether a typed command prints a collect_env / check_env report (_REPORT_COMMAND).

    >>> report_command("python3 collect_env.py "), report_command("python -m vllm.collect_env"), report_command("ls")
    (True, True, False)
    """
    return _REPORT_COMMAND.search(command) is not None


_SECTION = re.compile(r"^\s*={5,}\s*$")
_PKG = re.compile(r"^\[(pip3?|conda)\]\s+(\S+?)(?:==|\s+)(\S+)")
_ENV = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$")
_KV = re.compile(r"^([A-Za-z][\w ./()#+-]*?)\s*:\s?(.*)$")
_GPU_LINE = re.compile(r"^GPU (\d[\d,\s]*):\s*(.+)$")
_GPU_NAMED = re.compile(r"((?:NVIDIA|Tesla|GeForce|Quadro)\b[^,]+)")
_CAPABILITY = re.compile(r"^GPU ([\d,\s]+) Compute Capability:\s*(\d+\.\d+)$")
# SGLang's capability line cut inside its key, the report's last line (`GPU 0,1,2,3,4,5,6,7 Compu`, corpus 2853): the line
# no other report prints, so the report is SGLang's.
_CUT_KEY = re.compile(r"^\s*GPU \d[\d,]* (\S[\w ]*?)\s*$")


def cut_capability(line: str) -> bool:
    """Whether the line is SGLang's capability line cut inside its key (_CUT_KEY: three letters of it at least)."""
    m = _CUT_KEY.match(line)
    return m is not None and len(m.group(1)) >= 3 and "Compute Capability".startswith(m.group(1))


_TOPO_START = ("GPU Topology", "NVIDIA Topology")
# torch's build configuration (`torch.__config__.show()`, which mmengine's collect_env prints as `PyTorch compiling
# details`): `  - NVCC architecture flags: -gencode;arch=compute_70,code=sm_70;...`, the -gencode pairs libtorch_cuda was
# compiled with: each `code=sm_XY` a cubin, each `code=compute_XY` PTX (`torch.cuda.get_arch_list()` reads the same
# list). The line is whole only where it ends on a `code=` target: a stored copy cut inside it (`...code=sm_75;-g`,
# corpus 161) states its first targets, not the whole list.
_ARCH_FLAGS = re.compile(r"^\s*-?\s*NVCC architecture flags:\s*(?P<flags>\S*)\s*$", re.MULTILINE)
_ARCH_TARGET = re.compile(r"code=\[?(?P<targets>(?:(?:sm|compute)_\d+[af]?,?)+)\]?")
_ARCH_WHOLE = re.compile(r"code=\[?(?:(?:sm|compute)_\d+[af]?,?)+\]?$")


def arch_flags(text: str) -> tuple[str, ...] | None:
    """torch's arch list from its `NVCC architecture flags` line (_ARCH_FLAGS): `sm_70`, `compute_90` (PTX), in
    order, a target's `a`/`f` suffix dropped (`sm_90a` is code for 9.0); None where no whole line is in the text.

    >>> arch_flags("  - NVCC architecture flags: -gencode;arch=compute_70,code=sm_70;-gencode;arch=compute_90,"
    ...            "code=[sm_90,compute_90]")
    ('sm_70', 'sm_90', 'compute_90')
    >>> arch_flags("  - NVCC architecture flags: -gencode;arch=compute_70,code=sm_70;-g") is None
    True
    """
    m = _ARCH_FLAGS.search(text)
    if m is None or not _ARCH_WHOLE.search(m.group("flags")):
        return None
    targets = [t.rstrip("af") for g in _ARCH_TARGET.finditer(m.group("flags"))
               for t in g.group("targets").split(",") if t]
    return tuple(dict.fromkeys(targets)) or None


_TOPO_END = re.compile(r"^(Hypervisor vendor|ulimit soft|={5,})|^[A-Z_][A-Z0-9_]*=")


# What the report prints for torch.version.cuda where torch is built without CUDA (a CPU, XPU or TPU build): "None"
# (str(None)), or "Could not collect" where its replace_nones stands in for None (torch/utils/collect_env.py,
# get_env_info's `cuda_version_str = torch.version.cuda`). A ROCm build and a missing torch print "N/A".
NO_CUDA_BUILD = ("None", "Could not collect")


@dataclass(frozen=True)
class CollectEnv:
    """What a vLLM collect_env / SGLang check_env report says (empty string: not in the report)."""

    tool: str  # "vllm" (collect_env) | "sglang" (check_env) | "openmmlab" (lmdeploy check_env)
    format: str  # "old" | "new" | "sglang" | "openmmlab"
    torch_version: str = ""
    # "CUDA used to build PyTorch" (torch.version.cuda), like PythonEnvironment.torch_cuda: "12.8"; "" built without
    # CUDA (NO_CUDA_BUILD, or a `+cpu` wheel); None not in the report.
    torch_cuda: str | None = None
    cuda_runtime: str = ""
    runtime_line: bool = False  # `cuda_runtime` is collect_env's 'CUDA runtime version' line, not check_env's NVCC
    driver_version: str = ""
    vllm_version: str = ""
    sglang_version: str = ""
    nccl_version: str = ""  # the nvidia-nccl-cu* wheel, else the container's NCCL_VERSION
    python_version: str = ""
    os: str = ""
    kernel: str = ""  # from "Python platform: Linux-6.8.0-62-generic-x86_64-with-glibc2.39"
    gpu_models: tuple[str, ...] = ()  # by CUDA index
    packages: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)  # the shell collect_env ran in (not the engine's)
    topology_text: str = ""  # the matrix as printed, "" or "Could not collect"
    values: dict[str, str] = field(default_factory=dict)  # every `key: value` line, first wins
    # torch's "The NVIDIA driver on your system is too old (found version 11040)" warning, printed when
    # collect_env initialises CUDA: the highest CUDA the driver supports ("11.4"), "" without it.
    driver_too_old_cuda: str = ""
    # torch's `UserWarning: Can't initialize NVML` (torch/cuda/__init__.py, when nvmlInit fails as it counts the
    # devices): the line, "" without it.
    nvml_failed: str = ""
    # torch's arch list from its build configuration's `NVCC architecture flags` (arch_flags): None where the report
    # does not print the whole line.
    arch_flags: tuple[str, ...] | None = None
    # The report sits under vLLM's bug form (VLLM_FORM: its summary line over the report, which the importer keeps as
    # the report's first line): vLLM's own collect_env, even where the paste is cut before its vLLM section.
    vllm_form: bool = False

    @property
    def machine(self) -> str:
        """The machine the OS line names (`Ubuntu 22.04.5 LTS (x86_64)`: collect_env prints the distribution, then
        platform.machine() in parentheses); "" where it names none."""
        m = re.search(r"\((x86_64|aarch64|arm64|ppc64le|s390x)\)\s*$", self.os)
        return m.group(1) if m else ""

    @property
    def nvml_without_cuda_fault(self) -> str:
        """torch's NVML warning where CUDA still initialised (`Is CUDA available: True`): the driver's CUDA library
        reached the report while its NVML library did not; "" otherwise."""
        return self.nvml_failed if self.cuda_initialised else ""

    @property
    def gpu_count(self) -> int:
        return len(self.gpu_models)

    @property
    def cuda_initialised(self) -> bool:
        """Whether torch initialised CUDA where the report ran: `Is CUDA available: True` (vLLM's collect_env),
        `CUDA available: True` (SGLang's and OpenMMLab's check_env)."""
        return "True" in (self.values.get("Is CUDA available"), self.values.get("CUDA available"))

    @property
    def cuda_unavailable(self) -> bool:
        """Whether the report says torch could not initialise CUDA (`Is CUDA available: False`)."""
        return "False" in (self.values.get("Is CUDA available"), self.values.get("CUDA available"))

    @property
    def capabilities(self) -> dict[str, str]:
        """{GPU model: compute capability} from check_env's `GPU 0,1 Compute Capability: 7.5` lines (what torch read
        from each device); a model whose GPUs state two capabilities is left out."""
        found: dict[str, set[str]] = {}
        for key, value in self.values.items():
            m = _CAPABILITY.match(f"{key}: {value}")
            if m is None:
                continue
            for part in m.group(1).split(","):
                index = int(part) if part.strip().isdecimal() else -1
                if 0 <= index < len(self.gpu_models):
                    found.setdefault(self.gpu_models[index], set()).add(value)
        return {model: next(iter(caps)) for model, caps in found.items() if len(caps) == 1}


def _expand_gpu_line(indices: str, name: str, into: dict[int, str]) -> None:
    for part in indices.split(","):
        part = part.strip()
        if part.isdecimal():
            into[int(part)] = name.strip()


def _mark_cut_gpu(lines: list[str], gpus: dict[int, str]) -> None:
    """A paste cut inside its GPU list: the report's last line is a GPU line whose name is the start of another GPU's
    name in the list (`GPU 3: NVIDIA B3` under `GPU 2: NVIDIA B300 SXM6 AC`, corpus 825). Its name is marked cut as
    nvidia-smi's table marks one (gputable.CUT_MARKS), so that only what it shows is read (gputable.candidates).
    A cut name that shows vendor words only (`GPU 1: NVIDIA` under `GPU 0: NVIDIA H20`, corpus 958), or a fragment from
    which neither its model words nor the rows it may be agree on an architecture (`GPU 2: NVIDIA R` under two `NVIDIA
    RTX PRO 6000 Blackwell Server Edition`, corpus 1061: an RTX 6000 Ada, an RTX A6000, an RTX PRO 6000 Blackwell),
    names no model: the GPU is dropped from the list, which then holds the GPUs whose model it shows."""
    last = next((ln.strip() for ln in reversed(lines) if ln.strip()), "")
    m = _GPU_LINE.match(last)
    if m is None or not m.group(1).strip().isdecimal():
        return
    index, name = int(m.group(1)), m.group(2).strip()
    if gpus.get(index) == name and any(other != name and other.startswith(name) for other in gpus.values()):
        if normalize(name) and architecture_of(name + CUT_MARKS[0]):
            gpus[index] = name + CUT_MARKS[0]
        else:
            del gpus[index]


# The fields of mmengine's collect_env, in the order it prints them (mmengine/utils/dl_utils/collect_env.py, then
# lmdeploy's and mmdeploy's own additions); a report pasted from a later field than `sys.platform` is recognised
# where `PyTorch` and this many of them are there.
OPENMMLAB_FIELDS = ("sys.platform", "Python", "CUDA available", "MUSA available", "numpy_random_seed", "CUDA_HOME",
                    "NVCC", "GCC", "PyTorch", "PyTorch compiling details", "TorchVision", "OpenCV", "MMEngine",
                    "LMDeploy", "MMDeploy")
OPENMMLAB_ENOUGH = 5


# The fields of torch's collect_env as vLLM's (old format) prints them, one a line (torch/utils/collect_env.py
# env_info_fmt, then vLLM's own): where a paste lost the report's line breaks, the fields are found again by name.
COLLECT_ENV_FIELDS = (
    "PyTorch version", "Is debug build", "CUDA used to build PyTorch", "ROCM used to build PyTorch", "OS",
    "GCC version", "Clang version", "CMake version", "Libc version", "Python version", "Python platform",
    "Is CUDA available", "CUDA runtime version", "CUDA_MODULE_LOADING set to", "GPU models and configuration",
    "Nvidia driver version", "cuDNN version", "HIP runtime version", "MIOpen runtime version", "Is XNNPACK available",
    "Is XPU available", "CPU", "Versions of relevant libraries", "ROCM Version", "Neuron SDK Version", "vLLM Version",
    "vLLM Build Flags", "CUDA Archs", "GPU Topology")
# Where a field, a GPU of the GPU list or a package of the package list starts in such a run: after a space, a known
# name and its colon (longest name first: `CUDA runtime version` before `OS`).
_FLAT_FIELD = re.compile(r"(?:^|(?<=\s))(?:(?P<name>" + "|".join(
    re.escape(k) for k in sorted(COLLECT_ENV_FIELDS, key=len, reverse=True)) + r"):(?=\s|$)"
    r"|GPU \d+:(?=\s)|\[(?:pip3?|conda)\]\s)")


def unflatten_collect_env(line: str) -> list[str]:
    """A line of the report as its lines: a line where two or more of its fields stand (`PyTorch version: 2.2.1+cu121
    Is debug build: False CUDA used to build PyTorch: 12.1`, a paste that lost its line breaks, corpus 1254) split
    where each field, GPU and package starts; any other line as it is (one field whose value names another is not
    split)."""
    starts = list(_FLAT_FIELD.finditer(line))
    if sum(1 for m in starts if m.group("name")) < 2:
        return [line]
    head = line[:starts[0].start()].strip()
    pieces = [line[m.start():nxt.start() if nxt else len(line)].strip()
              for m, nxt in zip(starts, [*starts[1:], None], strict=True)]
    return [head, *pieces] if head else pieces


def parse_collect_env(text: str) -> CollectEnv:
    """Parse a vLLM collect_env or SGLang check_env report (chatter around it is ignored)."""
    lines = [part for ln in text.splitlines() for part in unflatten_collect_env(ln.rstrip("\r"))]
    values: dict[str, str] = {}
    packages: dict[str, str] = {}
    env: dict[str, str] = {}
    gpus: dict[int, str] = {}
    topo: list[str] = []
    new_format = any(_SECTION.match(ln) for ln in lines)
    in_topo = False
    in_gpu_list = False
    in_env = False
    for raw in lines:
        line = raw.strip()
        if in_topo:
            if _TOPO_END.match(line) or line.endswith("Environment Variables"):
                in_topo = False
            else:
                topo.append(raw)
                continue
        if not line:
            in_gpu_list = False
            continue
        if _SECTION.match(line):
            continue
        if line == "Environment Variables":
            in_env = True
            continue
        if any(line.startswith(t) for t in _TOPO_START):
            in_topo = True
            rest = line.split(":", 1)[1].strip() if ":" in line else ""
            if rest:
                topo.append(rest)
            continue
        pkg = _PKG.match(line)
        if pkg:
            packages.setdefault(pkg.group(2).lower(), pkg.group(3))
            continue
        env_m = _ENV.match(line)
        if env_m and (in_env or " " not in line.split("=", 1)[0]):
            env.setdefault(env_m.group(1), env_m.group(2))
            continue
        cap = _CAPABILITY.match(line)
        if cap:
            values.setdefault(line.split(":", 1)[0], cap.group(2))
            continue
        if raw is lines[-1] and cut_capability(line):
            values.setdefault(line[:line.index(" C")] + " Compute Capability", "")  # its value cut off
            continue
        gpu = _GPU_LINE.match(line)
        if gpu and "Compute Capability" not in line:
            _expand_gpu_line(gpu.group(1), gpu.group(2), gpus)
            continue
        kv = _KV.match(line)
        if kv:
            key, value = kv.group(1).strip(), kv.group(2).strip()
            in_gpu_list = key == "GPU models and configuration"
            if key == "GPU" and (named := _GPU_NAMED.match(value)):
                # A report rewritten as `key : value` lines keys its GPU `GPU` (`GPU : NVIDIA RTX PRO 5000 72GB
                # Blackwell (SM120), 73,415 MiB, VBIOS ...`, corpus 2854): the name, up to its first comma.
                gpus.setdefault(0, named.group(1).strip())
            elif in_gpu_list:
                nested = _GPU_LINE.match(value)
                if nested:
                    _expand_gpu_line(nested.group(1), nested.group(2), gpus)
                elif value and not value.startswith(("No CUDA", "Could not")):
                    gpus.setdefault(0, value)
            values.setdefault(key, value)
    _mark_cut_gpu(lines, gpus)
    if ("sglang" in values and ("CUDA Driver Version" in values or "PyTorch" in values)) or (
            # SGLang's check_env cut before its `sglang:` line: "CUDA Driver Version" is its key alone (vLLM writes
            # "Nvidia driver version", mmengine's collect_env has no driver line and starts at sys.platform).
            "CUDA Driver Version" in values and "CUDA available" in values and "sys.platform" not in values) or (
            # ... or cut after its `GPU 0,1 Compute Capability: 8.0` line (corpus 461), or inside it (corpus 2853): no
            # other report prints one.
            "CUDA available" in values and any(k.endswith(" Compute Capability") for k in values)
            and "sys.platform" not in values):
        tool, fmt = "sglang", "sglang"
    elif any(k in values for k in ("PyTorch version", "vLLM Version", "Is CUDA available",
                                   "CUDA used to build PyTorch", "GPU models and configuration")):
        tool, fmt = "vllm", "new" if new_format else "old"
    elif ("PyTorch" in values and ("sys.platform" in values
                                   or sum(k in values for k in OPENMMLAB_FIELDS) >= OPENMMLAB_ENOUGH)) or (
            # ... or cut before its `PyTorch:` line: from its first line with enough of its fields, `numpy_random_seed`
            # among them (mmengine's own field: no other report prints it), corpus 1187.
            "sys.platform" in values and "numpy_random_seed" in values
            and sum(k in values for k in OPENMMLAB_FIELDS) >= OPENMMLAB_ENOUGH):
        # mmengine's collect_env (lmdeploy check_env, mmdeploy check_env.py), from its first line or pasted from any
        # of its fields on with enough of them following.
        tool, fmt = "openmmlab", "openmmlab"
    elif packages and any(ln.strip() in ("Versions of relevant libraries:", "Versions of relevant libraries")
                          for ln in lines):
        # torch's collect_env heading over its `[pip3] torch==2.5.1+cu124` list, which vLLM's collect_env prints
        # as torch's does (check_env and mmengine list `name: version`): the report cut to that list (corpus 1103);
        # vLLM's newer report rules the heading off and drops its colon (corpus 2103).
        tool, fmt = "vllm", "new" if new_format else "old"
    elif new_format and any(ln.strip() == "System Info" for ln in lines) and "OS" in values:
        # The newer report's first section under its ruled `System Info` heading (OS, GCC, Libc), cut before its
        # PyTorch section (corpus 2441): the report's, with nothing of torch or the GPUs shown.
        tool, fmt = "vllm", "new"
    else:
        raise ParseError("not a vLLM collect_env or SGLang check_env report")

    def get(*keys: str) -> str:
        for key in keys:
            value = values.get(key, "")
            if value and value not in ("N/A", "Could not collect", "No CUDA"):
                return value
        return ""

    torch_version = get("PyTorch version", "PyTorch") or packages.get("torch", "")
    built, wheel = get("CUDA used to build PyTorch"), re.search(r"\+cu(\d+)(\d)$", torch_version)
    torch_cuda: str | None = None
    if built and built not in NO_CUDA_BUILD:
        torch_cuda = built
    elif wheel:  # the wheel's `+cu128` names its CUDA where the line does not
        torch_cuda = f"{wheel.group(1)}.{wheel.group(2)}"
    elif values.get("CUDA used to build PyTorch") in NO_CUDA_BUILD or torch_version.endswith("+cpu"):
        torch_cuda = ""
    cuda_runtime = get("CUDA runtime version")
    if not cuda_runtime:
        m = re.search(r"release (\d+\.\d+)", get("NVCC"))
        cuda_runtime = m.group(1) if m else ""
    nccl = next((v for k, v in packages.items() if re.fullmatch(r"nvidia-nccl-cu\d+|nccl|vllm-nccl-cu\d+", k)), "")
    nccl = ".".join(nccl.split(".")[:3]) or env.get("NCCL_VERSION", "")  # vllm-nccl-cu12 2.18.1.0.4.0 = NCCL 2.18.1
    platform = get("Python platform")
    kernel_m = re.match(r"Linux-(\d+\.\d+[\w.+-]*?)-(?:x86_64|aarch64|ppc64le|s390x)", platform)
    python_version = get("Python version", "Python").split(" ")[0]
    topology = "\n".join(topo).strip("\n")
    too_old = _DRIVER_TOO_OLD.search(text)
    return CollectEnv(
        tool=tool,
        format=fmt,
        torch_version=torch_version,
        torch_cuda=torch_cuda,
        cuda_runtime=cuda_runtime,
        runtime_line=bool(get("CUDA runtime version")),
        # torch's key, check_env's, and torch's spelled with NVIDIA's capitals by a user copying the report's fields
        # into a version list (`NVIDIA driver version: 450.36.06`, corpus 2234).
        driver_version=get("Nvidia driver version", "CUDA Driver Version", "NVIDIA driver version"),
        vllm_version=get("vLLM Version", "vllm").split(" ")[0] if get("vLLM Version", "vllm") != "Module Not Found" else "",
        sglang_version=get("sglang"),
        nccl_version=nccl,
        python_version=python_version,
        os=get("OS"),
        kernel=kernel_m.group(1) if kernel_m else "",
        gpu_models=tuple(gpus[i] for i in sorted(gpus)),
        packages=packages,
        env=env,
        topology_text=topology,
        values=values,
        driver_too_old_cuda=f"{int(too_old.group(1)) // 1000}.{int(too_old.group(1)) % 1000 // 10}" if too_old else "",
        nvml_failed=nvml.group(0).strip() if (nvml := _NVML_FAILED.search(text)) else "",
        arch_flags=arch_flags(text),
        vllm_form=tool == "vllm" and bool(VLLM_FORM.search("\n".join(lines[:2]))),
    )


# vLLM's bug and usage forms ask for `python collect_env.py` (vLLM's own script, fetched from its repository) and put
# its output under `<summary>The output of <code>python collect_env.py</code></summary>` (.github/ISSUE_TEMPLATE/
# 400-bug-report.yml; its forms of 2024 held ``The output of `python collect_env.py` `` in the text fence, and a
# rendered copy writes the <code> span in backticks; corpus 2795). PyTorch's form asks for the same script name under
# `### Versions` without these words. A report under them is vLLM's, cut before its vLLM section or not.
VLLM_FORM = re.compile(r"\bThe output of (?:<code>|`)python collect_env\.py(?:</code>|`)")
# torch/cuda/__init__.py (_check_driver): "The NVIDIA driver on your system is too old (found version %d)",
# the driver's CUDA API version as cudaDriverGetVersion gives it (11040 = 11.4).
_DRIVER_TOO_OLD = re.compile(r"The NVIDIA driver on your system is too old \(found version (\d{4,6})\)")
# torch/cuda/__init__.py (_raw_device_count_nvml): `UserWarning: Can't initialize NVML` where nvmlInit fails.
_NVML_FAILED = re.compile(r"^.*UserWarning: Can't initialize NVML.*$", re.MULTILINE)


@provider("collect_env", CollectEnv, title="pasted vLLM collect_env / SGLang check_env")
def collect_env(ctx: FactContext) -> CollectEnv:
    """A pasted vLLM collect_env / SGLang check_env report: versions, GPU models, driver, topology, env."""
    if ctx.host.meta.source == "live":
        raise FactUnavailable("not run live (collect_env imports torch; the live facts read the same first-hand)")
    missing = 0
    for argv in (COLLECT_ENV_ARGV, CHECK_ENV_ARGV):
        try:
            result = ctx.host.run(list(argv))
        except NotCaptured:
            missing += 1
            continue
        if result.ok and result.stdout.strip():
            try:
                return parse_collect_env(result.stdout)
            except ParseError as exc:
                raise FactUnavailable(f"the collect_env report: {exc}") from exc
    if missing == 2:
        raise NotCaptured("vLLM collect_env / SGLang check_env report")
    raise FactUnavailable("no vLLM collect_env or SGLang check_env report in this source")
