"""Ray's own log lines in a paste (`ray start`, `ray.init()`, `(raylet) ...`): the object store's
/dev/shm warning. And `ray status`: the nodes of the Ray cluster and its GPUs (RayCluster).

Ray puts its object store in /dev/shm and falls back to /tmp when /dev/shm has less free space than
the store asks for, warning "The object store is using /tmp instead of /dev/shm because /dev/shm has
only N bytes available". N is the free space of /dev/shm (Ray's `get_shared_memory_bytes`:
`f_bsize * f_bavail` of `fstatvfs("/dev/shm")`), so it bounds the size from below: the size itself
stays unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import Sourced, fact, first_of, parser
from stackaudit.facts.shm import ShmInfo
from stackaudit.facts.sources import RAY_LOG, RAY_STATUS

# Ray's logger format: `DATE TIME,ms LEVEL file.py:line -- message`; worker output prefixed `(raylet)`,
# `(pid=123)`, `(RayWorker pid=...)`, `(raylet, ip=...)`.
# A log collector's own time in brackets may stand before Ray's full date (`[2023-10-30 14:14:12] 2023-10-30
# 06:14:12,055 WARNING services.py:1832 -- ...`, corpus 903: a container platform's log): taken only there, before
# Ray's own date and time, never as a prefix alone (SGLang's logger writes `[DATE TIME] message` itself).
RAY_LINE = re.compile(r"^\s*(?:\((?:raylet|gcs_server|pid=\d+|\w+ pid=\d+)(?:, ip=[\w.:]+)?\)\s+)?"
                      r"(?:(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]\s+)?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d+\s+)?"
                      r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+"
                      r"[\w.]+\.py:\d+\s+--\s")


# Ray's report of a task's or actor's exception no caller fetched (python/ray/_private/worker.py: `Unhandled error
# (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::Class.method() (pid=..., ip=...)`), the traceback after it:
# printed through its logger (corpus 241) or on the driver under the worker's prefix (`(main_task pid=1748945)
# Unhandled error ...`, corpus 2362, where a Markdown fence stands glued before it).
RAY_UNHANDLED = re.compile(r"^\s*(?:`{3,}\s*)?(?:\((?:pid=\d+|[\w.-]+ pid=\d+)(?:, ip=[\w.:]+)?\)\s+)?"
                           r"Unhandled error \(suppress with '?RAY_IGNORE_UNHANDLED_ERRORS=1'?\):\s")


# SkyPilot (skypilot-org/skypilot) runs a cluster's jobs as Ray jobs through its Ray backend and logs in its own form:
# the level's letter, month-day and time, file and line (sky/sky_logging.py: `%(levelname).1s %(asctime)s
# %(filename)s:%(lineno)d] `, `I 04-10 18:36:19 cloud_vm_ray_backend.py:3160] Job submitted with Job ID: 2`, its job
# log's `log_lib.py:407] Start streaming logs for job 2.`; corpus 2387). vLLM spells the level out (`INFO 04-10 ...`).
SKYPILOT_LINE = re.compile(r"^\s*[DIWEC] \d\d-\d\d \d\d:\d\d:\d\d [\w.-]+\.py:\d+\]")


def is_ray_line(line: str) -> bool:
    """Whether a line is one of Ray's Python logger's (RAY_LINE), Ray's unhandled-error report (RAY_UNHANDLED), or
    SkyPilot's, whose jobs run on Ray (SKYPILOT_LINE)."""
    return ("--" in line and RAY_LINE.match(line) is not None) \
        or ("RAY_IGNORE_UNHANDLED_ERRORS" in line and RAY_UNHANDLED.match(line) is not None) \
        or (".py:" in line and SKYPILOT_LINE.match(line) is not None)


SHM_WARNING = re.compile(r"because /dev/shm has only (\d+) bytes available")


@parser(RAY_LOG, feeds="shm", kind=ShmInfo, rank=90)
def shm_from_ray_log(text: str) -> ShmInfo:
    """/dev/shm's free space as Ray's object-store warning reports it (a pasted Ray log).

    Input (tests/data/captures/272)::

        2020-11-11 11:29:31,384\tINFO services.py:1166 -- View the Ray dashboard at http://localhost:8265
        2020-11-11 11:29:31,386\tWARNING services.py:1625 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 477999988736 bytes available. This may slow down performance! You may be able to free up space by deleting files in /dev/shm or terminating any running plasma_store_server processes. If you are inside a Docker container, you may need to pass an argument with the flag '--shm-size' to 'docker run'.
    """
    found = [(m.group(0), int(m.group(1))) for m in SHM_WARNING.finditer(text)]
    if not found:
        raise ParseError("no /dev/shm warning in the Ray log")
    line, available = found[-1]
    return ShmInfo(size_bytes=None, available_bytes=available, sources=(RAY_LOG.title,),
                   evidence=(f"Ray: {line}",))


# --- ray status ----------------------------------------------------------------------------------

# `ray status` (python/ray/autoscaler/_private/util.py `format_info_string`): a header line, then `Node status` with
# the nodes under `Active:` (one line per node, `1 node_<id>`) or `Healthy:` (`2 ray.worker.default`: a count per
# node type), `Idle:`, `Pending:` and `Recent failures:`, then `Resources` with `Usage:` lines (`0.0/8.0 GPU`) and
# `Demands:`; `ray status -v` adds timing lines and a `Node: <ip>` section per node.
# Ray 1.x (format_info_string_no_node_types) headed it `======== Cluster status: DATE ========` and listed each node
# type under `Node status` as ` 1 node(s) with resources: {'CPU': 40.0, 'GPU': 4.0, ...}`, a count and one node's
# resources (corpus 2386).
STATUS_HEADER = re.compile(r"^\s*(?:\S.*[$#>]\s*)?={3,}\s*(?:Autoscaler|Cluster) status\b")
STATUS_LINE = re.compile(r"^(?:\s*$|\s+\S|-{10,}\s*$|(?:Node status|Resources|Active:|Healthy:|Idle:|Pending:|"
                         r"Recent failures:|(?:Total )?Usage:|(?:Total )?(?:Demands|Constraints):|GCS request time:|"
                         r"Node Provider non_terminated_nodes time:|Autoscaler iteration time:|"
                         r"Node: [\w.:-]+(?: \([\w.-]+\))?\s*$)\s*)")
_NODE_SECTIONS = ("Active:", "Healthy:", "Idle:")
_NODE_COUNT = re.compile(r"^\s+(\d+)\s+\S")
_GPU_USAGE = re.compile(r"^\s*[\d.]+/([\d.]+)\s+GPU\b")
# Ray 1.x's line for a node type, and the GPUs in its resources (facts/gpus.py reads the model beside them).
NODES_WITH = re.compile(r"^\s+(\d+) node\(s\) with resources: \{")
RESOURCE_GPU = re.compile(r"'GPU': (\d+(?:\.\d+)?)")


@dataclass(frozen=True, kw_only=True)
class RayCluster(Sourced):
    """The Ray cluster `ray status` shows: its nodes (those running: `Active:`, `Healthy:` and `Idle:`, not
    `Pending:`), its GPUs in all (`Usage: 0.0/8.0 GPU`; None where the output names none), and the lines."""

    nodes: int
    gpus: int | None = None
    lines: tuple[str, ...] = ()
    node_gpus: tuple[int, ...] = ()  # `ray status -v`: each node's GPUs, where every running node's section shows them
    # Ray's own line that `ray.init()` found no cluster to join and started one on this machine (LOCAL_INSTANCE), ""
    # where the cluster is `ray status`'s.
    started_here: str = ""

    @property
    def words(self) -> str:
        """The cluster in words: `ray status`: 2 nodes, 8 GPUs."""
        if self.started_here:
            return f"Ray's `{self.started_here}`: a Ray instance of this one machine, started by the program itself"
        gpus = "" if self.gpus is None else f", {self.gpus} GPU{'s' if self.gpus != 1 else ''}"
        return f"`ray status`: a Ray cluster of {self.nodes} node{'s' if self.nodes != 1 else ''}{gpus}"


fact("ray_cluster", RayCluster, first_of, hint=RAY_STATUS.hint)


@parser(RAY_STATUS, feeds="ray_cluster", kind=RayCluster, rank=10)
def ray_cluster_from_status(text: str) -> RayCluster:
    """The nodes and GPUs of the Ray cluster in `ray status` (the cluster's totals in its first `Usage:` section;
    `ray status -v` repeats them per node below).

    Input (tests/data/captures/852)::

        Active:
         1 node_e161bb4b4023b8fe68152672794804629f3995241b7cc60fd9fe8ae2
         1 node_0fcb74c428a1f8e66d45d27879bfc50cc73e80bf268f27ded6284b5c
        ...
         0.0/8.0 GPU
    """
    nodes, gpus, section, lines = 0, None, "", []
    per_node: list[int] = []  # `ray status -v`: each `Node:` section's GPUs (0 where it names none)
    listed: list[int] = []  # Ray 1.x: each node's GPUs from its `N node(s) with resources: {...}` line
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Node: ") and not line[:1].isspace():
            per_node.append(0)  # `ray status -v`: one node's own section; the cluster's totals are above it
            continue
        if stripped.endswith(":") and not line[:1].isspace():
            section = stripped
            continue
        m = _NODE_COUNT.match(line)
        if (w := NODES_WITH.match(line)) is not None and not per_node:
            # Ray 1.x: N nodes of one type, each with the resources the dict names (no 'GPU' key: none).
            gpu = RESOURCE_GPU.search(line)
            nodes += int(w.group(1))
            listed.extend([round(float(gpu.group(1))) if gpu else 0] * int(w.group(1)))
            lines.append(stripped)
            continue
        if section in _NODE_SECTIONS and m and not per_node:
            nodes += int(m.group(1))
            lines.append(stripped)
        g = _GPU_USAGE.match(line)
        if g and per_node:
            per_node[-1] = round(float(g.group(1)))
        elif section.endswith("Usage:") and g and gpus is None:
            gpus = round(float(g.group(1)))
            lines.append(stripped)
    if not nodes:
        raise ParseError("no running node in `ray status`")
    if listed and len(listed) == nodes:
        return RayCluster(nodes=nodes, gpus=gpus if gpus is not None else sum(listed), lines=tuple(lines),
                          node_gpus=tuple(listed))
    return RayCluster(nodes=nodes, gpus=gpus, lines=tuple(lines),
                      node_gpus=tuple(per_node) if len(per_node) == nodes else ())


# `ray.init()` with no cluster to join starts a head node on this machine and says so (python/ray/_private/worker.py:
# `Started a local Ray instance.`, where joining one says `Connecting to existing Ray cluster at address: ...`). The
# program that called it is the driver, and the raylet it started spawns every worker on this machine, in the
# driver's own container where it runs in one (vLLM's Ray executor before V1, Aphrodite: corpus 1693, 897, 364).
LOCAL_INSTANCE = re.compile(r"\bStarted a local Ray instance\b")


@parser(RAY_LOG, feeds="ray_cluster", kind=RayCluster, rank=20)
def ray_cluster_from_log(text: str) -> RayCluster:
    """A Ray cluster of one node where Ray's own log line says `ray.init()` started a local instance.

    Input (tests/data/captures/1693)::

        2023-09-15 12:33:58,024 INFO worker.py:1621 -- Started a local Ray instance.
    """
    line = next((line.strip() for line in text.splitlines() if LOCAL_INSTANCE.search(line)), "")
    if not line:
        raise ParseError("no line of Ray starting a local instance")
    return RayCluster(nodes=1, lines=(line,), started_here="Started a local Ray instance.")
