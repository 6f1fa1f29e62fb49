"""nccl-tests output (all_reduce_perf and friends) pasted into a report: its header lists every rank's GPU.

    # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
    #  Rank  0 Group  0 Pid 3884994 on gpu-node device  0 [0000:1a:00] NVIDIA L20
    #   Rank  0 Pid  85517 on  host device  0 [0x52] A100-SXM4-40GB      (older versions: the bus number only)

The lines are recorded verbatim as the pasted document NCCL_TESTS (facts/sources.py); the result
table that follows (`#       size         count      type   redop ...` and its rows) is kept with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import NCCL_TESTS
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

RANK_LINE = re.compile(r"^\s*#\s+Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+\S+\s+device\s+\d+\s+\[[^\]]+\]\s+\S")
_HEADER = re.compile(r"^\s*#\s*(nThread\s+\d+|Using devices|size\s+count\s+type|\(B\)\s+\(elements\)|Out of bounds|"
                     r"Avg bus bandwidth)")
_ROW = re.compile(r"^\s*\d+\s+\d+\s+(float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64)\b")


def _line(line: str) -> bool:
    return bool(RANK_LINE.match(line) or _HEADER.match(line) or _ROW.match(line) or line.strip() == "#")


@importer("nccl-tests", "nccl-tests output (`all_reduce_perf` header with each rank's GPU, and its result table)",
          needles=("Rank", "nThread"), per_line=True)
def nccl_tests(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not RANK_LINE.match(lines[i]) and not (_HEADER.match(lines[i]) and "nThread" in lines[i]):
            continue
        end = run_end(lines, i + 1, _line)
        body = lines[i:end]
        if any(RANK_LINE.match(b) for b in body):
            yield Found("nccl-tests", i, end, document_appended(NCCL_TESTS.name, "\n".join(body) + "\n"))
        scan.skip(end)
