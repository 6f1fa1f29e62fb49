"""The Python environment of the serving engine: versions of torch, the engines and their kernels.

Read from files only, never by importing torch or vLLM (seconds, and a GPU context): the
interpreter of the serving process (its argv[0], VIRTUAL_ENV/CONDA_PREFIX, the console script's
directory, PATH, /proc/<pid>/exe) gives a prefix; its `lib/python3.X/site-packages` (and the
Debian `dist-packages`) hold one `<name>-<version>.dist-info` per installed distribution, whose
METADATA `Version:` is read for the packages that matter. torch's CUDA comes from
`torch/version.py`. Paths are read as the process sees them (/proc/<pid>/root), so an engine in
another container is read from its own filesystem. Where no engine runs, the audit's own
interpreter is read instead, and `from_serving_process` says so.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from stackaudit.facts._parse import ParseError, stated_lines
from stackaudit.facts.docker import TGI_ENGINE, engine_image_cuda, ngc_torch_cuda, tgi_image_release
from stackaudit.facts.processes import ENGINE_NAMES, ProcessInfo, ServingProcesses, process_path
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, parser, provider
from stackaudit.facts.sources import EVIDENCE_LINES
from stackaudit.host.base import Host, NotCaptured, read_text
from stackaudit.host.limits import load_json
from stackaudit.versions import public_version, release

# Distributions recorded (canonical names, PEP 503).
WANTED = ("torch", "vllm", "sglang", "sgl-kernel", "tensorrt-llm", "tensorrt", "flashinfer", "flashinfer-python",
          "flashinfer-cubin", "flashinfer-jit-cache", "triton", "pytorch-triton", "xformers", "transformers",
          "mpi4py", "setproctitle")
WANTED_PREFIXES = ("nvidia-nccl-", "nvidia-cuda-runtime-", "nvidia-cuda-nvcc-", "flashinfer-")
FLASHINFER_PACKAGES = ("flashinfer-python", "flashinfer-cubin", "flashinfer-jit-cache")

_DIST = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._]*?)-(?P<version>[0-9][^-]*?)(?:-py[0-9.]+)?\.(?:dist|egg)-info\Z")
_PYDIR = re.compile(r"python(\d+)\.(\d+)t?\Z")
_PY = re.compile(r"python(\d+(?:\.\d+)?)?[mtd]?\Z")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class PythonEnvironment:
    source: str  # "serving process 4101 (vLLM api-server)" or "the audit's own interpreter"
    pid: int | None
    engine: str
    interpreter: str = ""
    prefix: str = ""
    python_version: str = ""  # "3.12"
    site_packages: tuple[str, ...] = ()
    packages: dict[str, str] = field(default_factory=dict)  # canonical name -> version
    torch_cuda: str | None = None  # "12.8"; "" no CUDA (CPU-only or ROCm build); None unknown or no torch
    # torch's CUDA arch list lives inside libtorch_cuda.so; a pasted report's build configuration states it (its
    # `NVCC architecture flags`: facts/collect_env.arch_flags); None: not read (see RT-TORCH-ARCH).
    torch_arch_list: tuple[str, ...] | None = None
    cuda_home: str = ""
    cuda_home_from: str = ""  # "CUDA_HOME" | "CUDA_PATH" | "default /usr/local/cuda" | ""
    cuda_home_version: str | None = None
    read: tuple[str, ...] = ()  # the files and directories this was read from
    notes: tuple[str, ...] = ()
    # Packages a pasted SGLang check_env prints as `name: Module Not Found` (canonical names): its
    # `importlib.import_module(name)` raised ModuleNotFoundError in that shell (not installed, or not importable).
    not_importable: tuple[str, ...] = ()

    def version(self, name: str) -> str | None:
        return self.packages.get(canonical(name))

    def nccl_wheel(self) -> tuple[str, str] | None:
        """(package, version) of the nvidia-nccl-cu* wheel torch uses."""
        for name, version in sorted(self.packages.items()):
            if name.startswith("nvidia-nccl-"):
                return name, version
        return None


@dataclass(frozen=True)
class PythonEnv:
    environments: tuple[PythonEnvironment, ...]
    from_serving_process: bool
    notes: tuple[str, ...] = ()
    from_report: bool = False  # a pasted collect_env / check_env: the shell it ran in


# --- parsers ---------------------------------------------------------------------------------


def parse_dist_name(entry: str) -> tuple[str, str] | None:
    """`torch-2.7.0+cu128.dist-info` -> ("torch", "2.7.0+cu128")."""
    m = _DIST.match(entry)
    return (canonical(m.group("name")), m.group("version")) if m else None


def parse_metadata_version(text: str) -> str | None:
    """`Version:` from a METADATA / PKG-INFO header."""
    for line in text.splitlines():
        if not line.strip():
            break  # the header ends at the first blank line
        if line.startswith("Version:"):
            return line.partition(":")[2].strip() or None
    return None


def parse_torch_version_py(text: str) -> tuple[str | None, str | None]:
    """(torch version, CUDA version) from torch/version.py; CUDA "" for `cuda = None` (no CUDA build)."""
    version = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE)
    cuda = re.search(r"^cuda(?:\s*:\s*[^=]+)?\s*=\s*(?:['\"]([^'\"]*)['\"]|None)", text, re.MULTILINE)
    if cuda is None:
        return (version.group(1) if version else None, None)
    return (version.group(1) if version else None, cuda.group(1) or "")


def parse_cuda_version_file(text: str) -> str | None:
    """CUDA toolkit version from version.json (CUDA >= 11.1) or version.txt."""
    try:
        data = load_json(text, "CUDA version.json")
        value = data.get("cuda", {}).get("version")
        return str(value) if value else None
    except (ValueError, AttributeError):
        pass
    m = re.search(r"CUDA Version\s+(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else None


# --- reading ---------------------------------------------------------------------------------


class _Reader:
    """Reads files as one process sees them, remembering what was read."""

    def __init__(self, host: Host, pid: int | None) -> None:
        self.host = host
        self.read: list[str] = []
        # "" (paths as they are), "/proc/<pid>/root", or None (that root is not readable).
        self.base: str | None = "" if pid is None else process_path(host, pid, "")
        self.denied = self.base is None

    def path(self, path: str) -> str | None:
        return None if self.base is None else self.base + path

    def list_dir(self, path: str) -> list[str]:
        seen = self.path(path)
        if seen is None:
            return []
        try:
            entries = self.host.list_dir(seen)
        except PermissionError:
            self.denied = True
            return []
        except (OSError, NotCaptured):
            return []
        self.read.append(path + "/")
        return entries

    def text(self, path: str, limit: int = 64 * 1024) -> str | None:
        seen = self.path(path)
        if seen is None:
            return None
        try:
            text = read_text(self.host, seen, limit)
        except PermissionError:
            self.denied = True
            return None
        except (OSError, NotCaptured):
            return None
        self.read.append(path)
        return text

    def readlink(self, path: str) -> str | None:
        try:
            return self.host.readlink(path)
        except (OSError, NotCaptured):
            return None


def _prefixes(proc: ProcessInfo, reader: _Reader, current: bool) -> tuple[list[str], str, str]:
    """Candidate prefixes (most specific first), the interpreter, and its version from its name."""
    env = proc.environ or {}
    prefixes: list[str] = []
    interpreter = ""
    version = ""

    def add(prefix: str) -> None:
        prefix = posixpath.normpath(prefix)
        if prefix not in prefixes and prefix not in ("/", "."):
            prefixes.append(prefix)

    argv0 = proc.argv[0] if proc.argv else ""
    if _PY.match(posixpath.basename(argv0)):
        interpreter = argv0
        if not argv0.startswith("/"):
            for directory in env.get("PATH", "").split(":"):
                if directory.startswith("/") and reader.text(posixpath.join(directory, argv0), limit=0) is not None:
                    interpreter = posixpath.join(directory, argv0)
                    break
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if env.get(name, "").startswith("/"):
            add(env[name])
    if interpreter.startswith("/"):
        add(posixpath.dirname(posixpath.dirname(interpreter)))
    # The console script (`/opt/venv/bin/vllm`) sits in its environment's bin/.
    if len(proc.argv) > 1 and proc.argv[1].startswith("/") and posixpath.basename(posixpath.dirname(proc.argv[1])) == "bin":
        add(posixpath.dirname(posixpath.dirname(proc.argv[1])))
    exe = reader.readlink("/proc/self/exe" if current else f"/proc/{proc.pid}/exe")
    if exe:
        exe = exe.removesuffix(" (deleted)")
        interpreter = interpreter or exe
        add(posixpath.dirname(posixpath.dirname(exe)))
        m = re.search(r"python(\d+\.\d+)", posixpath.basename(exe))
        version = m.group(1) if m else ""
    if not version:
        m = re.search(r"python(\d+\.\d+)", posixpath.basename(interpreter))
        version = m.group(1) if m else ""
    return prefixes, interpreter, version


def _site_dirs(prefix: str, reader: _Reader, version: str) -> tuple[list[str], str]:
    """site-packages / dist-packages under one prefix, and the Python version found there."""
    dirs: list[str] = []
    found_version = version
    for lib in ("lib", "lib64"):
        entries = reader.list_dir(f"{prefix}/{lib}")
        pydirs = [e for e in entries if _PYDIR.match(e)]
        if version and f"python{version}" in pydirs:
            pydirs = [f"python{version}"] + [d for d in pydirs if d != f"python{version}"]
        for pydir in pydirs:
            for sub in ("site-packages", "dist-packages"):
                if sub in reader.list_dir(f"{prefix}/{lib}/{pydir}") and f"{prefix}/{lib}/{pydir}/{sub}" not in dirs:
                    dirs.append(f"{prefix}/{lib}/{pydir}/{sub}")
                    m = _PYDIR.match(pydir)
                    if m and not found_version:
                        found_version = f"{m.group(1)}.{m.group(2)}"
        if lib == "lib" and "python3" in entries and "dist-packages" in reader.list_dir(f"{prefix}/lib/python3"):
            dirs.append(f"{prefix}/lib/python3/dist-packages")  # Debian/Ubuntu system packages
    if prefix == "/usr" and found_version:
        local = f"/usr/local/lib/python{found_version}/dist-packages"
        if "dist-packages" in reader.list_dir(f"/usr/local/lib/python{found_version}"):
            dirs.insert(0, local)
    return dirs, found_version


def read_environment(host: Host, proc: ProcessInfo, source: str, current: bool = False) -> PythonEnvironment:
    """The Python environment `proc` runs in, read through its own filesystem view; `current`: the
    audit's own process (/proc/self)."""
    reader = _Reader(host, None if current else proc.pid)
    env = proc.environ or {}
    prefixes, interpreter, version = _prefixes(proc, reader, current)
    notes: list[str] = []
    site_dirs: list[str] = []
    for entry in env.get("PYTHONPATH", "").split(":"):
        if entry.startswith("/"):
            site_dirs.append(posixpath.normpath(entry))
    main_prefix = ""
    for prefix in prefixes:
        dirs, found = _site_dirs(prefix, reader, version)
        if dirs and not main_prefix:
            main_prefix = prefix
            version = version or found
            cfg = reader.text(f"{prefix}/pyvenv.cfg", limit=4096) or ""
            home = re.search(r"^home\s*=\s*(\S+)", cfg, re.MULTILINE)
            if home and re.search(r"^include-system-site-packages\s*=\s*true", cfg, re.MULTILINE | re.IGNORECASE):
                base = posixpath.dirname(home.group(1).rstrip("/"))
                if base not in prefixes:
                    prefixes.append(base)
        site_dirs.extend(d for d in dirs if d not in site_dirs)
    home_dir = env.get("HOME", "")
    if home_dir.startswith("/") and version and not env.get("PYTHONNOUSERSITE"):
        user_site = f"{home_dir}/.local/lib/python{version}/site-packages"
        if "site-packages" in reader.list_dir(f"{home_dir}/.local/lib/python{version}"):
            site_dirs.append(user_site)

    packages: dict[str, str] = {}
    dist_dirs: dict[str, str] = {}
    for site in site_dirs:
        for entry in reader.list_dir(site):
            parsed = parse_dist_name(entry)
            if parsed is None:
                continue
            name, dist_version = parsed
            if name in packages or not (name in WANTED or name.startswith(WANTED_PREFIXES)):
                continue
            packages[name] = dist_version
            dist_dirs[name] = f"{site}/{entry}"
    for name, dist_dir in dist_dirs.items():
        meta_name = "PKG-INFO" if dist_dir.endswith(".egg-info") else "METADATA"
        meta = reader.text(f"{dist_dir}/{meta_name}", limit=2048)
        meta_version = parse_metadata_version(meta) if meta else None
        if meta_version:
            packages[name] = meta_version

    torch_cuda: str | None = None
    if "torch" in dist_dirs:
        torch_site = posixpath.dirname(dist_dirs["torch"])
        text = reader.text(f"{torch_site}/torch/version.py", limit=8192)
        if text:
            _, torch_cuda = parse_torch_version_py(text)
        else:
            m = re.search(r"\+cu(\d+)(\d)$", packages["torch"])
            torch_cuda = f"{m.group(1)}.{m.group(2)}" if m else ("" if packages["torch"].endswith("+cpu") else None)
        notes.append("torch's CUDA arch list is compiled into libtorch_cuda.so and was not read "
                     "(python -c 'import torch; print(torch.cuda.get_arch_list())' shows it)")

    cuda_home, cuda_from = "", ""
    for name in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(name):
            cuda_home, cuda_from = env[name], name
            break
    cuda_version: str | None = None
    candidates = [cuda_home] if cuda_home else ["/usr/local/cuda"]
    for cuda_dir in candidates:
        text = (reader.text(f"{cuda_dir}/version.json", limit=65536)
                or reader.text(f"{cuda_dir}/version.txt", limit=4096))
        if text:
            cuda_version = parse_cuda_version_file(text)
            if not cuda_home:
                cuda_home, cuda_from = cuda_dir, "default /usr/local/cuda"
    if reader.denied:
        notes.append(f"some of pid {proc.pid}'s files were not readable (run as root)")
    if not site_dirs:
        notes.append("no site-packages directory found for this interpreter")
    return PythonEnvironment(
        source=source,
        pid=proc.pid or None,
        engine=proc.engine,
        interpreter=interpreter,
        prefix=main_prefix,
        python_version=version,
        site_packages=tuple(site_dirs),
        packages=packages,
        torch_cuda=torch_cuda,
        cuda_home=cuda_home,
        cuda_home_from=cuda_from,
        cuda_home_version=cuda_version,
        read=tuple(dict.fromkeys(reader.read)),
        notes=tuple(notes),
    )


fact("python_env", PythonEnv, first_of, hint="paste `python -m vllm.collect_env` (vLLM) or `python -m sglang.check_env` "
                                             "(SGLang)")


@provider("python_env", PythonEnv, rank=10, title="site-packages of the engine's Python")
def python_env(ctx: FactContext) -> PythonEnv:
    """Versions of torch (+CUDA), vLLM, SGLang, TensorRT-LLM, FlashInfer, Triton, NCCL wheels (site-packages)."""
    procs = ctx.fact("serving_processes", ServingProcesses)
    host = ctx.host
    environments: list[PythonEnvironment] = []
    notes: list[str] = []
    if procs.found:
        seen: set[tuple[str, ...]] = set()
        for root in procs.roots():
            # A launcher (mpirun) is no Python: read the first Python process of its instance.
            candidates = [root, *[p for p in procs.instance(root) if p.pid != root.pid]]
            proc = next((p for p in candidates if p.argv and _PY.match(posixpath.basename(p.argv[0]))), root)
            label = f"serving process {proc.label}"
            found = read_environment(host, proc, label)
            key = (proc.engine, *(found.site_packages or (f"pid {proc.pid}",)))
            if key in seen:
                continue
            seen.add(key)
            environments.append(found)
        if all(not e.packages for e in environments):
            denied = any("not readable" in n for e in environments for n in e.notes)
            engines = ", ".join(sorted(ENGINE_NAMES[e] for e in procs.engines()))
            raise FactUnavailable(
                f"the Python packages of the running {engines} could not be read"
                + (" (permission denied)" if denied else ""),
                "run as root" if denied else "run `python -m vllm.collect_env` (vLLM) or `python -m sglang.check_env` (SGLang)",
            )
        return PythonEnv(tuple(environments), True, tuple(notes))
    current = procs.current
    if not procs.listed:
        raise NotCaptured("/proc (the running processes)")
    if current is None:
        raise FactUnavailable("no serving process runs and the audit's own process is not in the source")
    found = read_environment(host, current, "the audit's own interpreter (no serving engine is running)", current=True)
    return PythonEnv((found,), False, ("no vLLM/SGLang/TensorRT-LLM process is running",))


# A hardware list's version lines, one package a line (fwupd/fwupd#10896, corpus 751): `PyTorch: 2.8.0+cu128`,
# `vLLM: 0.11.0`. torch's local label names the CUDA it was built for (`+cu128`: 12.8).
# TensorRT-LLM's too, as a list names it (`- TensorRT-LLM: v0.11.0`, corpus 983), `pip list` prints it in its
# padded columns (`tensorrt-llm             0.16.0`, corpus 975) or the library prints it when imported
# (`[TensorRT-LLM] TensorRT-LLM version: 0.16.0`, corpus 975).
# A list may name TensorRT-LLM's release by NGC's release image, whose tag is the release (`- TensorRT-LLM version:
# nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc1`, corpus 1057), and a pre-release carries its `rc` suffix.
# An environment list may name vLLM's or SGLang's full release after a space, on a line of its own (`vLLM 0.2.7`,
# corpus 1664): a release of three parts, not a sentence's word before a figure. TensorRT-LLM's too, by its short name
# as well (`-  TRTLLM v0.20.0rc0`, corpus 2837; `TRT-LLM` in NVIDIA's own docs).
# A short remark in parentheses after the version (`- vLLM: 0.27.1 (V1 engine)`, corpus 2850) and a stray closing quote
# left by the copy (`TensorRT-LLM version: 0.12.0.dev2024070200"`, corpus 2792) leave the version stated.
# An issue template's keys for the same answers: TensorRT-LLM's `TensorRT-LLM branch or tag` (`- TensorRT-LLM branch or
# tag: v0.16.0`, corpus 175; `**TensorRT-LLM branch or tag:** v0.8.0`, NVIDIA/TensorRT-LLM#1507), its hint left in
# brackets (`TensorRT-LLM branch or tag (e.g., main, v0.7.1):  0.9.0.dev2024020600`, NVIDIA/TensorRT-LLM#1187), and
# a `version` after the engine's name (`vllm version: v0.10.2rc1`, corpus 949; `vLLM Version: 0.6.1.post2@9ba0817`,
# corpus 542: the commit after `@` is the build's). A branch's name (`main`) is no release.
# torch in `pip list` / `pip show`'s padded columns (`torch         2.10.0a0+b4e4ee81d3.nv25.12`, corpus 1735), and an NGC
# build's version: a pre-release of the next torch with the commit and the NGC release (`.nv25.12`) in its label.
# Hugging Face's environment reports (`accelerate env`, `transformers-cli env`, `diffusers-cli env`) print torch's version
# with what torch.cuda.is_available() answered, or the accelerator it found, after it (HF_AVAILABLE): `- PyTorch version
# (GPU?): 2.3.1+cu121 (True)` (corpus 2266), `- PyTorch version (accelerator?): 2.6.0+cu124 (CUDA)`
# (huggingface/transformers src/transformers/commands/env.py).
# The name and `version` before the release without a colon, alone on its line: `torch version
# 2.11.0a0+eb65b36914.nv26.02` (NVIDIA/TensorRT-LLM's environment list, corpus 2756), `PyTorch version 2.5.1`.
_TEMPLATE_KEY = r"(?:\s+(?:version|branch or tag|branch|tag))?\**(?:\s*\([^()]{0,60}\))?"
HF_AVAILABLE = r"\((?P<available>True|False|CUDA|XPU|NPU|HPU|MLU|MUSA|NA)\)"
STATED_VERSION = re.compile(r"^\W*(?:(?P<name>PyTorch|torch|vLLM|SGLang)(?:" + _TEMPLATE_KEY + r":\**\s*`?v?|"
                            r"\s{2,}(?=\d+\.\d+\.\d+)|\s+version\s+(?=\d+\.\d+))|"
                            r"(?P<spaced>vLLM|SGLang)\s+v?"
                            r"(?=\d+\.\d+\.\d+)|(?:TensorRT-LLM\]\s+)?"
                            r"(?P<trtllm>TensorRT-LLM|tensorrt[-_]llm|TRT-?LLM)(?:" + _TEMPLATE_KEY + r":\**\s*"
                            r"(?:`?(?:nvcr\.io/)?nvidia/tensorrt-llm/release:)?v?|\s{2,}|\s+v?(?=\d+\.\d+\.\d+)|\s+v(?=\d+\.\d+))|"
                            r"(?P<tgi>TGI|text-generation-inference|Text Generation Inference)(?:" + _TEMPLATE_KEY
                            + r":\**\s*`?v?|\s+v?(?=\d+\.\d+)))"
                            r"(?P<version>\d+\.\d+(?:\.\d+)?(?:rc\d+)?"
                            r"(?:a\d+)?(?:\.post\d+|\.dev\d+)?(?:\+[a-z]+\d*|\+[0-9a-f]{7,40}\.nv\d{2}\.\d{2})?)[`\"']?"
                            r"(?:@[0-9a-f]{7,40})?(?:\s+(?:" + HF_AVAILABLE + r"|\([^()]{1,40}\)))?[\"']?\s*$", re.IGNORECASE)
# The user's sentence saying which release of vLLM or SGLang they run, its subject the user (`I am using 0.8.3 version of
# vllm,driver 570.124.06`, corpus 2797; `we're running vLLM 0.6.3`): the release installed, as a list's line states it.
# A sentence that names a release another way (`works with 0.8.3 but not 0.9.0`, `upgraded to vLLM 0.9.0`) states none.
STATED_RELEASE_WORDS = re.compile(r"\b(?:I am|I'm|we are|we're)\s+(?:using|running|on)\s+(?:the\s+)?"
                                  r"(?:(?P<name>vllm|sglang|tgi|text-generation-inference)\s+(?:version\s+)?v?"
                                  r"(?P<version>\d+\.\d+\.\d+(?:\.post\d+)?)"
                                  r"|v?(?P<version2>\d+\.\d+\.\d+(?:\.post\d+)?)\s+version\s+of\s+"
                                  r"(?P<name2>vllm|sglang|tgi|text-generation-inference))"
                                  r"(?![\w.])", re.IGNORECASE)
# A user's torch check printing torch.version.cuda (`CUDA version: 12.1`, `CUDA Version (PyTorch Built with): 11.8`) beside
# torch.cuda.is_available() (`CUDA available: True`): the CUDA that torch was built with. A `CUDA version:` line alone may
# be nvidia-smi's figure copied (facts/nvidia.STATED_CUDA): it is torch's only beside the availability line.
TORCH_PRINTED_CUDA = re.compile(r"^\W{0,3}(?:CUDA Version(?: \(PyTorch Built With\))?|torch\.version\.cuda)\s*:\s*(\d+\.\d+)\s*$",
                                re.IGNORECASE)
TORCH_PRINTED_AVAILABLE = re.compile(r"^\W{0,3}CUDA Availab(?:le|ility)\s*:\s*True\s*$", re.IGNORECASE)
# The Python a list states, or `python3 --version` prints (`Python 3.12.3`, corpus 1735).
STATED_PYTHON = re.compile(r"^\W*Python(?::\s*|\s+)v?(3\.\d+(?:\.\d+)?)\s*$", re.IGNORECASE)
# llama-cpp-python as `pip list` prints it in its padded columns (`llama_cpp_python         0.2.7`, under `Python
# 3.10.12`: abetlen/llama-cpp-python#1026's form, corpus 1542): the Python binding that runs llama.cpp's own ggml CUDA
# kernels in its process, no torch (https://github.com/abetlen/llama-cpp-python). Its list names engine "llamacpp".
PIP_LIST_GGML = re.compile(r"^\s*(?P<name>llama[-_]cpp[-_]python)\s{2,}(?P<version>\d+\.\d+\.\d+\S*)\s*$", re.IGNORECASE)
# The CUDA major each release of a package is built with and loads, by its first and last release of that major: every
# TensorRT-LLM release from 0.9 (its README's CUDA 12.3 badge) to 1.0 (nvcr.io/nvidia/pytorch:25.06, CUDA 12.9) names a
# CUDA 12.x in its release notes (0.16: 12.6.3, 0.18: 12.8.1, 0.20: 12.9.0),
# https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/release-notes.md; 1.1 stays on that base (the Triton
# backend's Dockerfile moves from pytorch:25.06, CUDA 12.9, to pytorch:25.10, CUDA 13.0, only at 1.2.0rc2:
# https://github.com/triton-inference-server/tensorrtllm_backend/pull/820). A release outside the rows is unknown.
_ReleaseRows = tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...]
RELEASE_CUDA_MAJOR: dict[str, _ReleaseRows] = {
    "tensorrt-llm": (((0, 9), (1, 1), 12),),
}


def _release_row(rows: _ReleaseRows, v: tuple[int, ...]) -> int | None:
    """The CUDA major of the row whose first and last release hold `v`; None where none does."""
    return next((major for first, last, major in rows if first <= v <= last), None)


def release_cuda_major(package: str, version: str) -> int | None:
    """The CUDA major the package's release is built with (RELEASE_CUDA_MAJOR), None where no row holds it."""
    return _release_row(RELEASE_CUDA_MAJOR.get(package, ()), release(version, 2))


# The newest CUDA major among every build a package's release publishes, where its builds differ in CUDA (a release
# built for more than one CUDA): a driver that runs that major's runtimes runs whichever build is installed, while an
# older driver may still run an older build, so the row proves ok above its floor and nothing below it.
# vLLM's wheels: 0.1 to 0.2.1 for CUDA 11.8 (the release workflow's `cuda-version: ['11.8']`); from 0.2.2 CUDA 12.1 on
# PyPI and CUDA 11.8 beside it on the GitHub release (vllm-project/vllm#1527, #1596; docs.vllm.ai installation pages
# to 0.6.6); then 12.4 as the default and 12.1 beside it (#12098), then 12.8 with torch 2.7 and 2.8; the first builds
# for CUDA 13 came with torch 2.9, after 0.11.0 (vllm-project/vllm#26221, #30633). A release outside the rows is unknown.
# ONNX Runtime's GPU package: 1.15 and 1.16 for CUDA 11.8 only; 1.17 and 1.18 for CUDA 11.8 on PyPI and CUDA 12 in its
# own package feed; from 1.19 CUDA 12 on PyPI and 11.8 in the feed ("Starting with version 1.19, CUDA 12.x becomes the
# default version when distributing ONNX Runtime GPU packages in PyPI", https://onnxruntime.ai/docs/execution-providers/
# CUDA-ExecutionProvider.html#requirements), through 1.22 (May 2025, before CUDA 13 came out).
RELEASE_NEWEST_CUDA_MAJOR: dict[str, _ReleaseRows] = {
    "vllm": (((0, 1, 0), (0, 2, 1), 11), ((0, 2, 2), (0, 11, 0), 12)),
    "onnxruntime-gpu": (((1, 15, 0), (1, 16, 99), 11), ((1, 17, 0), (1, 22, 99), 12)),
}


# uv's record of a package it installed (`uv add`, `uv pip install`, `uv sync`: ` + onnxruntime-gpu==1.20.1`, corpus
# 2673; ` - ` for one it removed): the release installed in the environment, of a package whose release names its CUDA
# (RELEASE_CUDA_MAJOR, RELEASE_NEWEST_CUDA_MAJOR). A bare `name==version` is a requirement, not what is installed.
UV_INSTALLED = re.compile(r"^\s*\+\s(?P<name>[A-Za-z][\w.-]*)==(?P<version>\d[\w.+!-]*)\s*$")


def uv_installed(line: str) -> tuple[str, str] | None:
    """(package, version) where a line is uv's record of installing a package of the release tables (UV_INSTALLED),
    else None.

    >>> uv_installed(" + onnxruntime-gpu==1.20.1"), uv_installed(" + numpy==2.2.3")
    (('onnxruntime-gpu', '1.20.1'), None)
    """
    m = UV_INSTALLED.match(line)
    name = m.group("name").lower().replace("_", "-") if m else ""
    return (name, m.group("version")) if m and (name in RELEASE_CUDA_MAJOR or name in RELEASE_NEWEST_CUDA_MAJOR) \
        else None


def release_newest_cuda_major(package: str, version: str) -> int | None:
    """The newest CUDA major any build of the package's release ships (RELEASE_NEWEST_CUDA_MAJOR), None where no row
    holds it."""
    v = release(version, 3)
    return _release_row(RELEASE_NEWEST_CUDA_MAJOR.get(package, ()), v) if len(v) == 3 else None


# torch named with its CUDA build as an item of a list line (`- Docker: PyTorch 2.13.0+cu130, CUDA runtime 13.0,
# patched vLLM 0.28.0`, corpus 805; `..., CUDA 13.0 / NVCC 13.0.88, Torch 2.13.0+cu130.`, flashinfer#4539): the local
# label ties the version to one build. pip's `torch==2.7.0+cu128` is a requirement, not what is installed; a
# report's one `=` is what it read (`torch=2.11.0+cu130 torch_cuda_build=13.0`, corpus 1118).
STATED_TORCH_BUILD = re.compile(r"\b(?i:PyTorch|torch)(?::\s*|\s+|=(?!=))v?(\d+\.\d+(?:\.\d+)?\+cu\d{3})\b(?!\.?\w)")
# An engine's version beside such a torch, in the same line (`vLLM 0.28.0`).
_LISTED_ENGINE = re.compile(r"\b(?P<name>vLLM|SGLang)(?::\s*|\s+)v?(?P<version>\d+\.\d+(?:\.\d+)?(?:\.post\d+)?)\b",
                            re.IGNORECASE)


# A list's image line naming a serving engine's image whose tag names its CUDA (`- Image:
# `lmsysorg/sglang:v0.5.12-cu130``, corpus 810).
LISTED_ENGINE_IMAGE = re.compile(r"^\W*(?:Docker\s+)?Image\**:\s*`?(\S+?)`?\s*$", re.IGNORECASE)


# Text Generation Inference's key in a stated list's packages (STATED_VERSION's `tgi` names, listed_tgi_release).
TGI_PACKAGE = "text-generation-inference"
# A list's image line naming Text Generation Inference's image (docker.TGI_ENGINE) with its release: in the tag
# (`Image: ghcr.io/huggingface/text-generation-inference:1.1.0`, docker.TGI_IMAGE), or in parentheses after an image
# whose tag names none (`Docker image: `ghcr.io/huggingface/text-generation-inference:latest` (1.1.0)`, TGI's issue
# form as a user answers it, corpus 2796).
LISTED_RELEASE_IMAGE = re.compile(r"^\W*(?:Docker\s+)?Image\**:\s*`?(?P<image>\S+?)`?"
                                  r"(?:\s*\(v?(?P<release>\d+\.\d+(?:\.\d+)?)\))?\s*$", re.IGNORECASE)


def listed_tgi_release(line: str) -> str:
    """The release of Text Generation Inference a list's image line names (LISTED_RELEASE_IMAGE); "" for any other line.

    >>> listed_tgi_release("Docker image: `ghcr.io/huggingface/text-generation-inference:latest` (1.1.0)")
    '1.1.0'
    >>> listed_tgi_release("- Image: ghcr.io/huggingface/text-generation-inference:1.4"), listed_tgi_release("Image: x:1.4")
    ('1.4', '')
    """
    m = LISTED_RELEASE_IMAGE.match(line)
    image = m.group("image").strip("\"'").lower() if m is not None else ""
    if m is None or not TGI_ENGINE.match(image):
        return ""
    return m.group("release") or tgi_image_release(image)


def listed_engine_image(line: str) -> str:
    """The image of a list's image line naming an engine image whose tag names its CUDA (docker.engine_image_cuda);
    "" for any other line."""
    m = LISTED_ENGINE_IMAGE.match(line)
    return m.group(1) if m is not None and engine_image_cuda(m.group(1)) else ""


@parser(EVIDENCE_LINES, feeds="python_env", kind=PythonEnv, rank=30)
def python_env_from_stated_versions(text: str) -> PythonEnv:
    """torch (and the CUDA of its `+cuNNN` label), vLLM and SGLang versions a hardware list states, one a line (or a
    sentence of the user's, STATED_RELEASE_WORDS); else
    the one torch build a list line names among other items (STATED_TORCH_BUILD), with the engine version beside it;
    else the one engine image a list line names whose tag names its CUDA (LISTED_ENGINE_IMAGE), torch's there.
    Two different torch builds name no one torch.
    An NGC build's label names its release, whose CUDA is torch's (docker.ngc_torch_cuda).
    A `Python 3.12.3` line (STATED_PYTHON) is the environment's Python. uv's record of a package it installed whose
    release names its CUDA (` + onnxruntime-gpu==1.20.1`: uv_installed) is that package's release. A two-column Markdown table row (`| **PyTorch** | 2.11.0+cu130 |`,
    corpus 860) is the same statement as the line (facts/_parse.stated_line).

    Input (tests/data/captures/751)::

        PyTorch: 2.8.0+cu128
    """
    packages: dict[str, str] = {}
    text = stated_lines(text)
    for line in text.splitlines():
        if m := STATED_VERSION.match(line):
            name = (m.group("name") or m.group("spaced")
                    or (TGI_PACKAGE if m.group("tgi") else "tensorrt-llm")).lower()
            packages.setdefault("torch" if name == "pytorch" else name, m.group("version"))
        elif w := STATED_RELEASE_WORDS.search(line):
            name = (w.group("name") or w.group("name2")).lower()
            packages.setdefault(TGI_PACKAGE if name == "tgi" else name, w.group("version") or w.group("version2"))
        elif tgi := listed_tgi_release(line):
            packages.setdefault(TGI_PACKAGE, tgi)
        elif g := PIP_LIST_GGML.match(line):
            packages.setdefault("llama-cpp-python", g.group("version"))
        elif uv := uv_installed(line):
            packages.setdefault(*uv)
    builds = {m.group(1): line for line in text.splitlines() for m in STATED_TORCH_BUILD.finditer(line)}
    if "torch" not in packages and len(builds) == 1:
        (build, line), = builds.items()
        packages["torch"] = build
        for e in _LISTED_ENGINE.finditer(line):
            packages.setdefault(e.group("name").lower(), e.group("version"))
    images = {image: found for line in text.splitlines()
              if (m := LISTED_ENGINE_IMAGE.match(line)) and (found := engine_image_cuda(image := m.group(1)))}
    if not packages and len(images) == 1:
        # The engine image a list names, with the CUDA its tag names (docker.ENGINE_CUDA_IMAGE): its torch's.
        (image, (engine, image_cuda)), = images.items()
        env = PythonEnvironment(f"the image a pasted list names ({image})", None, engine, packages={},
                                torch_cuda=image_cuda)
        return PythonEnv((env,), False, ("from the image a paste lists: not read from the engine's Python",),
                         from_report=True)
    if not packages:
        raise ParseError("no `PyTorch: X.Y.Z` line in the lines shown")
    label = re.search(r"\+cu(\d+)(\d)$", packages.get("torch", ""))
    # An NGC build's label names its release, and the release its CUDA (docker.ngc_torch_cuda).
    torch_cuda = f"{label.group(1)}.{label.group(2)}" if label else ngc_torch_cuda(packages.get("torch", "")) or None
    # A torch check's printout of torch.version.cuda, one figure, beside its torch.cuda.is_available() (TORCH_PRINTED_CUDA).
    printed = {m.group(1) for line in text.splitlines() if (m := TORCH_PRINTED_CUDA.match(line))}
    if torch_cuda is None and "torch" in packages and len(printed) == 1 \
            and any(TORCH_PRINTED_AVAILABLE.match(line) for line in text.splitlines()):
        torch_cuda = printed.pop()
    python = next((m.group(1) for line in text.splitlines() if (m := STATED_PYTHON.match(line))), "")
    engine = next((e for e in ("vllm", "sglang") if e in packages), "trtllm" if "tensorrt-llm" in packages else
                  "llamacpp" if "llama-cpp-python" in packages and "torch" not in packages else "")
    env = PythonEnvironment("the versions a pasted list states", None, engine, packages=packages,
                            torch_cuda=torch_cuda, python_version=python)
    return PythonEnv((env,), False, ("from the versions a paste lists: not read from the engine's Python",),
                     from_report=True)


_CHECK_ENV_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_CHECK_ENV_VERSION = re.compile(r"\d+(?:\.\d+)+(?:[.+]?[A-Za-z0-9]+)*")


@provider("python_env", PythonEnv, rank=20, title="pasted vLLM collect_env / SGLang check_env")
def python_env_from_collect_env(ctx: FactContext) -> PythonEnv:
    """torch (and its CUDA), vLLM, SGLang and NCCL versions a pasted collect_env / check_env reports."""
    from stackaudit.facts.collect_env import CollectEnv

    report = ctx.fact("collect_env", CollectEnv)
    packages = {canonical(k): v for k, v in report.packages.items()}
    for name, version in (("torch", report.torch_version), ("vllm", report.vllm_version),
                          ("sglang", report.sglang_version)):
        version = version.split(" ")[0]
        listed = packages.get(name)
        # A PyPI wheel's metadata has no local label (`[pip3] torch==2.4.0`) while its `__version__`, which the
        # report's version line prints, has one (`2.4.0+cu121`): the labelled one names the build.
        if version and (listed is None or ("+" in version and "+" not in listed
                                           and public_version(listed) == public_version(version))):
            packages[name] = version
    # check_env prints one `name: version` line per package it knows (`flashinfer_python: 0.2.7.post1`); other
    # reports' such lines count for the packages the checks want.
    named = {canonical(k): v for k, v in report.values.items()}
    wanted = {canonical(n) for n in WANTED}
    for key, value in report.values.items():
        version = value.split(" ")[0]
        if (report.tool == "sglang" or canonical(key) in wanted) and _CHECK_ENV_PACKAGE.fullmatch(key) \
                and _CHECK_ENV_VERSION.fullmatch(version):
            packages.setdefault(canonical(key), version)
    # A report that lost its version lines (a broken vLLM build's warnings in their place) may still name the CUDA
    # torch was built with (`CUDA used to build PyTorch: 12.1`): torch's CUDA, without its version.
    if not packages and not report.torch_cuda:
        raise FactUnavailable("the report lists no Python package")
    engine = report.tool if report.tool in ("sglang", "vllm") else ""  # an OpenMMLab report names no engine
    # check_env names the toolkit JIT builds use: `CUDA_HOME: /usr/local/cuda` and that nvcc's `release 12.4`.
    nvcc = re.search(r"release (\d+\.\d+)", named.get("nvcc", ""))
    home = named.get("cuda-home", "") if nvcc else ""
    # check_env prints `flashinfer: Module Not Found` where `import flashinfer` raised ModuleNotFoundError.
    not_importable = tuple(canonical(k) for k, v in report.values.items()
                           if report.tool == "sglang" and v.strip() == "Module Not Found"
                           and _CHECK_ENV_PACKAGE.fullmatch(k) and canonical(k) not in packages)
    env = PythonEnvironment(f"pasted {'check_env' if report.tool == 'sglang' else 'collect_env'}", None, engine,
                            python_version=report.python_version, packages=packages, not_importable=not_importable,
                            torch_cuda=report.torch_cuda, torch_arch_list=report.arch_flags, cuda_home=home,
                            cuda_home_from="the report's CUDA_HOME and NVCC lines" if home else "",
                            cuda_home_version=nvcc.group(1) if nvcc and home else None)
    return PythonEnv((env,), False, ("from a pasted report: the shell it ran in, not necessarily the engine's",),
                     from_report=True)
