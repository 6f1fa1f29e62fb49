"""Ray's log lines (`2025-01-14 03:08:29,081 WARNING services.py:2022 -- ...`, `(raylet) ...`, its C++ processes'
`[2026-03-25 05:44:29,435 W 39 39] store_runner.cc:83: ...`), recorded verbatim as a pasted Ray log (facts/ray_log.py
reads its /dev/shm warning, facts/symptoms.py its failures). A Python traceback after
them is Ray's caller's, not another kind: only Ray's own lines are claimed.

`ray status` (`======== Autoscaler status: DATE ========`, Ray 1.x's `======== Cluster status: DATE ========`, its `Node status` and `Resources` sections, and with `-v`
a section per node), recorded verbatim as the command's output (facts/ray_log.py reads the cluster's nodes and GPUs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.ray_log import STATUS_HEADER, STATUS_LINE, is_ray_line
from stackaudit.facts.sources import RAY_LOG, RAY_STATUS
from stackaudit.importers._scan import Candidates, Scan, candidate_lines, run_end
from stackaudit.importers.registry import Found, command_output, document_appended, importer

# Ray's C++ processes (raylet, GCS, core worker: src/ray/util/logging.cc, spdlog's `[%Y-%m-%d %H:%M:%S,%e %L %P %t]`):
# `[2026-03-25 05:44:29,435 W 39 39] store_runner.cc:83: ...`, with the `(raylet) ` tag the log monitor adds before
# it, or after it as GPUStack prints it (corpus 1079).
_RAY_CC_LINE = re.compile(r"^\s*(?:\((?:raylet|gcs_server)(?:, ip=[\w.:]+)?\)\s+)?\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ "
                          r"[DIWEF] \d+ \d+\]\s+(?:\((?:raylet|gcs_server)(?:, ip=[\w.:]+)?\)\s+)?\w+\.cc:\d+: \S")
_RAYLET = re.compile(r"^\s*\((?:raylet|gcs_server)(?:, ip=[\w.:]+)?\)\s+\S")


@importer("ray log", "Ray's log lines (`ray start` / `ray.init()` output, `(raylet) ...`)",
          needles=(".py:", "(raylet", "(gcs_server", ".cc:", "RAY_IGNORE_UNHANDLED_ERRORS"), per_line=True)
def ray_log(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if is_ray_line(line) or (("(raylet" in line or "(gcs_server" in line)
                                                         and _RAYLET.match(line)) \
                or (".cc:" in line and _RAY_CC_LINE.match(line)):
            yield Found("ray log", i, i + 1, document_appended(RAY_LOG.name, line + "\n"))


@importer("ray status", "`ray status` (the Ray cluster's nodes and resources)", needles=("Autoscaler status", "Cluster status"),
          per_line=True)
def ray_status(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not STATUS_HEADER.match(lines[i]):
            continue
        end = run_end(lines, i + 1, STATUS_LINE.match)
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1  # the blank lines after it are not its
        yield Found("ray status", i, end, command_output(RAY_STATUS.argv, "\n".join(lines[i:end]) + "\n"))
        scan.skip(end)
