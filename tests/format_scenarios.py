"""The hosts the machine-readable formats (prometheus, junit) are tested on, audited once per session.

- `story`: step 3's 8× RTX PRO 6000 PCIe host under SGLang TP8 in LXC (tests/scenarios_rtx_pro_6000.py);
- `hgx`: an 8× H100 HGX host with 4 NVSwitches and Fabric Manager, vLLM TP8, captured into a snapshot and
  read back (the host perf/hgx_snapshot.py times; modelled on NVML's answers, tests/nvidia_support.py);
- `no-gpu`: a CPU-only Xeon host (modelled: uname, lscpu, sysfs, no NVIDIA device, no driver);
- `hostile`: the story host named `gpu"01\\rack` (a quote and a backslash reach the hostname fact), with
  `hostile()` planting a newline, control characters and markup in its hostname, a subject and a message.
"""

from __future__ import annotations

import copy
import tempfile
from dataclasses import replace
from pathlib import Path

from nvidia_support import hgx, host_for, vllm_files
from report_scenarios import parts
from report_scenarios import report as scenario_report
from scenario_builder import (
    XEON_8480,
    bare_metal,
    build_host,
    cpu_topology,
    kernel,
    lscpu,
    memory,
    merge,
    numa_layout,
)
from stackaudit.capture import capture_host
from stackaudit.cli.audit import headline_ceiling
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.host.snapshot_reader import load_snapshot

# The audit as `stackaudit audit` runs it: with the headline ceiling (the engine imports no product).
AUDIT = AuditOptions(ceiling=headline_ceiling())
NAMES = ("story", "hgx", "no-gpu", "hostile")
HOSTILE_HOSTNAME = 'gpu"01\\rack'
# What a hostile host could show in a value: a quote, a backslash, a line break, a NUL, an escape sequence,
# markup, and a lone surrogate (what a surrogateescape decode leaves of an invalid byte).
HOSTILE_TEXT = 'a "quoted" \\path\\ \nnext line\x00\x1b[31m <b>&amp;</b> ]]> \udcff end'

_DIR = Path(tempfile.mkdtemp(prefix="stackaudit-format-tests-"))
_REPORTS: dict[str, Report] = {}


def _hgx_report() -> Report:
    files, procs = vllm_files("--tensor-parallel-size 8", workers=8)
    host = host_for(hgx(count=8), nvswitches=4, fabricmanager="active", fm_version="570.124.06",
                    extra_files=files, processes=procs)
    path = _DIR / "hgx.tar.gz"
    capture_host(host, str(path))
    return run_audit(load_snapshot(str(path)), AUDIT)


def _no_gpu_report() -> Report:
    nodes = numa_layout(2, 56, 2)
    scenario = merge(
        kernel("6.8.0-52-generic", "#53~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Wed Jan 15 19:18:46 UTC 2", "cpu-only-03",
               "BOOT_IMAGE=/vmlinuz-6.8.0-52-generic root=/dev/mapper/vg0-root ro"),
        lscpu(XEON_8480, 2, 2, nodes), cpu_topology(nodes, 1_056_512_000), memory(2_113_024_000),
        bare_metal(4242, 224, 1_048_576, "Max open files            1024                 524288               files\n"),
    )
    return run_audit(build_host(scenario, "cpu-only-03"), AUDIT)


def _story_named(hostname: str) -> Report:
    scenario = parts("rtx-pro-6000-lxc")
    files = {path: (hostname + "\n" if path.endswith("/hostname") else content)
             for path, content in scenario.files.items()}
    commands = {argv: (out.replace("sglang-ct", hostname) if argv == ("uname", "-a") and isinstance(out, str) else out)
                for argv, out in scenario.commands.items()}
    renamed = replace(scenario, files=files, commands=commands)
    return run_audit(build_host(renamed, hostname), AUDIT)


def report(name: str) -> Report:
    """The audit of one of NAMES; each caller gets its own copy."""
    if name == "story":
        return scenario_report("rtx-pro-6000-lxc")
    if name not in _REPORTS:
        builders = {"hgx": _hgx_report, "no-gpu": _no_gpu_report, "hostile": lambda: _story_named(HOSTILE_HOSTNAME)}
        _REPORTS[name] = builders[name]()
    return copy.deepcopy(_REPORTS[name])


def hostile(base: Report) -> Report:
    """`base` with HOSTILE_TEXT in its hostname, the first result's subjects and message, every issue's evidence."""
    results = list(base.results)
    results[0] = replace(results[0], subjects=(HOSTILE_TEXT, "0000:01:00.0"), message=HOSTILE_TEXT)
    results = [replace(r, evidence=(*r.evidence, HOSTILE_TEXT)) if r.status == "issue" else r for r in results]
    return replace(base, host={**base.host, "hostname": "evil\n" + HOSTILE_TEXT}, results=results)
