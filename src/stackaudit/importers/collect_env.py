"""vLLM `collect_env` (old and new formats), SGLang `check_env` and OpenMMLab `collect_env` reports (what
`lmdeploy check_env` and mmdeploy's `tools/check_env.py` print) pasted into a bug report.

The report is recorded verbatim as the output of `python3 -m vllm.collect_env` /
`python3 -m sglang.check_env` (facts/collect_env.py); its topology matrix stays inside it (the
`gpu_topology` fact reads it there, facts/topology.py). Its CPU section is lscpu output: that span
is left to the lscpu importer, so the `cpu` fact gets it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts._parse import ParseError
from stackaudit.facts.collect_env import (
    CHECK_ENV_ARGV,
    COLLECT_ENV_ARGV,
    VLLM_FORM,
    cut_capability,
    parse_collect_env,
)
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import FENCE, Candidates, Scan, take_while
from stackaudit.importers.registry import Found, importer, record_command
from stackaudit.importers.topology import TOPO_HEADER, TOPO_ROW

# A report whose head vLLM's import warnings replaced (a build without vllm._C) starts at its build line.
_START = re.compile(r"^\s*(Collecting environment information\.\.\.|PyTorch version\s*:|CUDA used to build PyTorch\s*:|"
                    r"=+\s*$|sys\.platform:|"
                    r"Python: \d+\.\d+|CUDA available: |numpy_random_seed: |CUDA_HOME: |PyTorch: \d|\[(pip3?|conda)\]\s|vLLM Version\s*:|Versions of relevant libraries|"
                    r"ROCM Version|"
                    # torch's own forms of the fields after its head, where a paste is cut above them (corpus 2920: from
                    # `GCC version: (GCC) 9.2.1 ...`): torch/utils/collect_env.py's get_gcc_version, get_libc_version,
                    # its Python line with the interpreter's bitness, its platform line.
                    r"GCC version: (?:\(|Could not collect)|Clang version: |CMake version: (?:version |Could not)|"
                    r"Libc version: |Python version: \d+\.\d+.*\(\d\d-bit runtime\)|Python platform: \S|Is CUDA available: (?:True|False)\s*$)")
_KEYLINE = re.compile(r"^\s*[A-Za-z][\w ./()#+,-]*?\s*:(\s|$)")
# vLLM's newer report heads its sections between rules (`System Info`, `PyTorch Info`, `Python Environment`, `CUDA / GPU
# Info`, `CPU Info`, `vLLM Info`; vllm/collect_env.py env_info_fmt), indented in the report and flush left in a paste
# that lost the indent (corpus 2800): each heading is the report's own line.
_LINE = re.compile(
    r"^\s*(=+|\[(pip3?|conda)\]\s|[A-Z_][A-Z0-9_]*=|GPU \d[\d,]*:|Legend:|NIC Legend:|NIC\d+:|"
    r"(X|SYS|NODE|PHB|PXB|PIX|NV#|SOC)\s+=|CUDA Archs:|Could not collect|\w[\w /()]*Info\s*$|Python Environment\s*$|"
    r"Versions of relevant libraries|Environment Variables|CPU:?\s*$|Apple M\d|"
    r"Collecting environment information)")
_BARE_VERSION = re.compile(r"^\d+(?:\.\d+){1,3}\s*$")
# The files torch's collect_env lists under `cuDNN version: Probably one of the following:`, one path a line
# (`/usr/lib/x86_64-linux-gnu/libcudnn.so.9.0.0`, torch/utils/collect_env.py get_cudnn_version): the report goes on
# after them (HIP, pip packages, the vLLM section and its topology matrix, corpus 1591).
_CUDNN_FILE = re.compile(r"^(?:/|[A-Za-z]:\\)\S*cudnn\S*\.(?:so(?:\.\d+)*|dll)\s*$", re.IGNORECASE)
_ANCHORS = ("PyTorch version", "vLLM Version", "Is CUDA available", "GPU models and configuration",
            "CUDA used to build PyTorch", "CUDA Driver Version", "sglang:", "PyTorch compiling details",
            " Compute Capability: ",  # SGLang check_env's own line (`GPU 0,1 Compute Capability: 8.0`)
            # mmengine's collect_env's own fields: a report cut before `PyTorch compiling details` (corpus 851)
            "sys.platform:", "numpy_random_seed:",
            # torch's collect_env's own heading over its package list (`Versions of relevant libraries:` then
            # `[pip3] torch==2.5.1+cu124`): a report cut to that list (corpus 1103) is still the report's
            "Versions of relevant libraries:\n[pip",
            # vLLM's newer collect_env rules its heading off (`====` above and below): a report pasted from that
            # heading on (corpus 2103)
            "Versions of relevant libraries\n" + "=" * 30 + "\n[pip",
            # the newer format's first section under its own heading (`System Info` between rules, its template's
            # indent): a report cut before its PyTorch section (corpus 2441) is still the report's
            "=" * 30 + "\n        System Info\n" + "=" * 30)


def _belongs(line: str) -> bool:
    if not line.strip():
        return True
    if "UserWarning: CUDA initialization:" in line or "UserWarning: Can't initialize NVML" in line \
            or line.strip() == 'warnings.warn("Can\'t initialize NVML")':
        return True  # torch's warnings when collect_env initialises CUDA (a too old driver, no GPU; no NVML)
    if FENCE.match(line) or is_log_line(line):
        return False
    if _BARE_VERSION.match(line) or _CUDNN_FILE.match(line):
        return True  # a value printed on its own line (SGLang's check_env of mid-2024 printed the driver twice)
    return bool(_LINE.match(line) or _KEYLINE.match(line) or TOPO_HEADER.match(line) or TOPO_ROW.match(line)
                or line.startswith((" ", "\t")) or cut_capability(line))


def _cpu_span(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    """The lscpu block inside the report (old `CPU:` / new `CPU Info`), left to the lscpu importer."""
    for i in range(start, end):
        if re.match(r"^\s*Architecture:\s+\S", lines[i]):
            j = i
            while j < end and lines[j].strip() and not lines[j].startswith("="):
                j += 1
            return i, j
    return None


def _form_line(lines: list[str], start: int) -> int | None:
    """The line of vLLM's form (facts/collect_env.VLLM_FORM) over a report starting at `start`, at most three lines
    above it with only blank lines and a fence's opening between; None where there is none."""
    for k in range(start - 1, max(start - 4, 0) - 1, -1):
        if VLLM_FORM.search(lines[k]):
            return k
        if lines[k].strip() and not FENCE.match(lines[k]):
            return None
    return None


def _apply(text: str, tool: str, rec: HostRecord) -> None:
    argv = CHECK_ENV_ARGV if tool == "sglang" else COLLECT_ENV_ARGV
    if argv not in rec.commands:
        record_command(rec, argv, text)


# A literal of each `_START` alternative (a report starts at such a line; mmengine's collect_env at any of its
# first fields, facts/collect_env.OPENMMLAB_FIELDS): "version" stands for PyTorch's,
# vLLM's, ROCM's and "Versions of relevant libraries" (nvidia-smi -q and dmesg look for it too: one pass).
_START_NEEDLES = ("Collecting environment information", "version", "Python platform: ", "Is CUDA available: ", "CUDA used to build PyTorch", "=", "Python: ", "[pip", "[conda]", "sys.platform",
                  "CUDA available: ", "numpy_random_seed: ", "CUDA_HOME: ", "PyTorch: ")


@importer("collect_env", "vLLM `collect_env` (old and new formats), SGLang `check_env` and OpenMMLab `collect_env` "
          "(lmdeploy `check_env`) reports",
          needles=_START_NEEDLES, per_line=True)
def collect_env(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _START.match(lines[i]):
            continue
        end = take_while(lines, i, _belongs, allow_blank=2)
        body = "\n".join(lines[i:end])
        if end - i < 3 or not (any(anchor in body for anchor in _ANCHORS) or cut_capability(lines[end - 1])):
            continue
        try:
            report = parse_collect_env(body)
        except ParseError:
            continue
        # vLLM's form over the report (its summary line) says whose it is: recorded as the report's first line.
        form = _form_line(lines, i) if report.tool == "vllm" else None
        head = i if form is None else form
        apply = partial(_apply, body + "\n" if form is None else lines[form].strip() + "\n" + body + "\n", report.tool)
        cpu = _cpu_span(lines, i, end)
        if cpu is None:
            yield Found("collect_env", head, end, apply)
        else:
            if cpu[0] > i:
                yield Found("collect_env", head, cpu[0], apply)
            if end > cpu[1]:
                yield Found("collect_env", cpu[1], end, apply)
        scan.skip(end)
