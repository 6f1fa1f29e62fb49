"""nccl-tests output (all_reduce_perf and friends) pasted into a report: its header lists every rank's GPU.

    # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
    #  Rank  0 Group  0 Pid 3884994 on gpu-node device  0 [0000:1a:00] NVIDIA L20
    #   Rank  0 Pid  85517 on  host device  0 [0x52] A100-SXM4-40GB      (older versions: the bus number only)

The lines are recorded verbatim as the pasted document NCCL_TESTS (facts/sources.py); the result
table that follows (`#       size         count      type   redop ...` and its rows) is kept with them, and so is
the command line that runs the test where it sits just above the header or above the fence that opens it
(`NCCL_P2P_DISABLE=1 ./build/all_reduce_perf -g 4`: the variables it sets are the run's).
A run whose header stops at `# Using devices` (it hung or was cut before listing its GPUs) is one run too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import NCCL_TESTS
from stackaudit.importers._scan import FENCE, Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer

RANK_LINE = re.compile(r"^\s*(?:#\s+)?Rank\s+\d+\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+\S+\s+device\s+\d+\s+\[[^\]]+\]\s+\S")
_HEADER = re.compile(r"^\s*#?\s*(nThread\s+\d+|Using devices|size\s+count\s+type|\(B\)\s+\(elements\)|Out of bounds|"
                     r"Avg bus bandwidth)")
_ROW = re.compile(r"^\s*\d+\s+\d+\s+(float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64)\b")


# The program of a test run's command line: `./build/all_reduce_perf`, `all_gather_perf_mpi`, `**...**` in Markdown.
_PROGRAM = re.compile(r"(?:^|[\s/*`])[a-z_]+_perf(?:_mpi)?(?=[\s`*]|$)")


def _command_above(lines: list[str], i: int) -> int | None:
    """The index of the line that runs the test whose header starts at `i`: just above it, or above its fence."""
    j = i - 1 if i > 0 and not FENCE.match(lines[i - 1]) else i - 2
    return j if j >= 0 and _PROGRAM.search(lines[j]) else None


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
        if any(RANK_LINE.match(b) for b in body) or (
                "nThread" in lines[i] and any(_HEADER.match(b) and "Using devices" in b for b in body)):
            start = _command_above(lines, i) if "nThread" in lines[i] else None
            command = [lines[start]] if start is not None else []
            yield Found("nccl-tests", i if start is None else start, end,
                        document_appended(NCCL_TESTS.name, "\n".join(command + body) + "\n"))
        scan.skip(end)
