"""`ProcessInfo.cpus_allowed`: `Cpus_allowed_list` of /proc/<pid>/status parsed once by the process fact.

The status files are modelled on fs/proc/array.c's output (tests/scenario_builder.py proc_status).
"""

from __future__ import annotations

import pytest

from scenario_builder import build_host, proc_limits, processes, vllm_serve
from stackaudit.engine.collect import Collector
from stackaudit.facts.processes import ServingProcesses, cpus_allowed, parse_status
from stackaudit.facts.registry import load_all

load_all()


def test_every_engine_process_carries_its_cpus() -> None:
    procs = vllm_serve(4101, 1, ["/opt/venv/bin/python3", "/opt/venv/bin/vllm", "serve", "m", "-tp", "2"],
                       {"HOME": "/root"}, tp=2, ncpu=64, limits=proc_limits(), exe="/usr/bin/python3.12",
                       cpus=[*range(0, 16), *range(32, 48)])
    serving = Collector(build_host(processes(procs), "box")).fact("serving_processes", ServingProcesses)
    assert serving.processes and all(p.cpus_allowed == (*range(0, 16), *range(32, 48)) for p in serving.processes)


@pytest.mark.parametrize("line,cpus", [
    ("Cpus_allowed_list:\t0-3,8,10-11\n", (0, 1, 2, 3, 8, 10, 11)),
    ("Cpus_allowed_list:\t5\n", (5,)),
    ("Cpus_allowed_list:\t0-x\n", None),  # malformed: unknown, not "no CPU"
    ("Cpus_allowed_list:\t\n", None),
    ("Cpus_allowed:\tff\n", None),  # only the mask: the list form is what is read
])
def test_status_line(line: str, cpus: tuple[int, ...] | None) -> None:
    assert cpus_allowed(parse_status("Name:\tpython3\nPid:\t4101\n" + line)) == cpus
