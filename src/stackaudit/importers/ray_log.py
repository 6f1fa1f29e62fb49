"""Ray's log lines (`2025-01-14 03:08:29,081 WARNING services.py:2022 -- ...`, `(raylet) ...`), recorded
verbatim as a pasted Ray log (facts/ray_log.py reads its /dev/shm warning). A Python traceback after
them is Ray's caller's, not another kind: only Ray's own lines are claimed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import RAY_LOG
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer

# Ray's logger format: `DATE TIME,ms LEVEL file.py:line -- message`; worker output prefixed `(raylet)`,
# `(pid=123)`, `(RayWorker pid=...)`, `(raylet, ip=...)`.
_RAY_LINE = re.compile(r"^\s*(?:\((?:raylet|gcs_server|pid=\d+|\w+ pid=\d+)(?:, ip=[\w.:]+)?\)\s+)?"
                       r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d+\s+)?(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+"
                       r"[\w.]+\.py:\d+\s+--\s")
_RAYLET = re.compile(r"^\s*\((?:raylet|gcs_server)(?:, ip=[\w.:]+)?\)\s+\S")


@importer("ray log", "Ray's log lines (`ray start` / `ray.init()` output, `(raylet) ...`)",
          needles=(".py:", "(raylet", "(gcs_server"), per_line=True)
def ray_log(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if ("--" in line and _RAY_LINE.match(line)) or (("(raylet" in line or "(gcs_server" in line)
                                                         and _RAYLET.match(line)):
            yield Found("ray log", i, i + 1, document_appended(RAY_LOG.name, line + "\n"))
