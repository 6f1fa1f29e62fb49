"""nccl-tests output (all_reduce_perf and friends) pasted into a report: its header lists every rank's GPU.

    # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
    # nGpus(perProc) 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 ...   (the form without threads)
    #  Rank  0 Group  0 Pid 3884994 on gpu-node device  0 [0000:1a:00] NVIDIA L20
    #   Rank  0 Pid  85517 on  host device  0 [0x52] A100-SXM4-40GB      (older versions: the bus number only)

The lines are recorded verbatim as the pasted document NCCL_TESTS (facts/sources.py); the result
table that follows (`#       size         count      type   redop ...` and its rows) is kept with them.
Markdown outside a code fence eats the leading `#` and turns a lone `#` into a blank line (corpus 382), so
the `#` is optional and blank lines inside a run are kept. The test's command line (`./build/all_reduce_perf
-b 8 -e 128M -g 1`, under `mpirun -x NAME=value ...` or `srun`) is recorded with the run where it sits just
above the header or above the fence that opens it, and on its own elsewhere: the variables it sets are the run's.
A command quoted as Markdown inline code, in a sentence or on a line of its own (corpus 774), is the span.
A run whose header stops at `# Using devices` (it hung or was cut before listing its GPUs) is one run too.
The test's own failure lines (`g0010: Test CUDA failure common.cu:941 'invalid device ordinal'`, ` .. g0010 pid
888386: Test failure common.cu:891`), under `# Using devices` or on their own (corpus 966, 967), are a run too.
A command continued with `\\` (`mpirun --host g0010:8,g0016:8 \\` over `-x NCCL_ALGO=Ring \\` over the program) is
recorded whole, its lines joined; the program's own line may be indented there, as a continuation often is (corpus 1195).
Result rows pasted without the header or any `#` line (corpus 446) are a run where a row has all 13 columns.
The result table under its own header lines without the `# nThread` header (corpus 794, whose older table has no
`root` column and an `error` where later ones print `#wrong`), and the summary a run ends with (`# Out of bounds
values : 0 OK` over `# Avg bus bandwidth`, corpus 628), are runs too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from stackaudit.facts._parse import RANK_HOST, continued, without_continuation
from stackaudit.facts.serving_logs import FULL_ROW, TEST_FAILURE, TEST_PROGRAM, TEST_PROGRAMS, TEST_ROW
from stackaudit.facts.sources import NCCL_TESTS
from stackaudit.importers._scan import FENCE, INLINE_CODE, Candidates, Scan, run_end
from stackaudit.importers.engine_command import continued_from
from stackaudit.importers.registry import Found, document_appended, importer

# NCCL 1's own tests (test/single/*_test) print `#   Rank  0 uses device  1 [0x06] Tesla K80` (NVIDIA/nccl#19).
RANK_LINE = re.compile(r"^\s*#?\s*Rank\s+\d+\s+(?:(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+" + RANK_HOST
                       + r"\s+|uses\s+)device\s+\d+\s+\[[^\]]+\]\s+\S")
_HEADER = re.compile(r"^\s*#?\s*(nThread\s+\d+|nGpus\s*\(perProc\)\s+\d+|Using devices|out-of-place\s+in-place|size\s+count\s+type|\(B\)\s+\(elements\)|Out of bounds|"
                     r"Avg bus bandwidth)")
# A result row, and a whole one (facts/serving_logs.FULL_ROW: 13 columns); rows pasted without the header (corpus
# 446) open a run.
_ROW = TEST_ROW


# A test binary of nccl-tests on a command line of its own, under a launcher named by its path too
# (`/mnt/nfs/openmpi-4.1.8/ompi_install/bin/mpirun ... all_reduce_perf_mpi`, corpus 773).
# An assignment before the program has a name without `=`: each word splits one way (`\S*=\S*` backtracks through
# every `=` of every word, exponential on `a=b=c=d ...`).
COMMAND = re.compile(r"^(?:[^#\n]*[$#]\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:(?:\S*/)?(?:mpirun|mpiexec|srun)\s.*?)?(?:\S*/)?"
                     rf"{TEST_PROGRAMS}(?:\s+-\S+(?:\s+[^\s-]\S*)?)*\s*$")
# One app context of an MPMD launch under a continued line (`mpirun \` over `  -x NCCL_DEBUG=TRACE -np 1 --host A
# /opt/nccl-tests/build/all_reduce_perf -b 8 : \` over the next context, corpus 2431): the launcher's options, the
# program and its options, then ` :` where another context follows (Open MPI's mpirun(1), MPMD).
APP_CONTEXT = re.compile(r"^\s*(?:-[^\s:]+(?:\s+[^\s:-]\S*)?\s+)*(?:\S*/)?"
                         rf"{TEST_PROGRAMS}(?:\s+-\S+(?:\s+[^\s:-]\S*)?)*(?:\s+:)?(?:\s*\\)?\s*$")


# The result table's own header (`out-of-place  in-place`, `#  size  count  type  redop ...`) and the summary a run
# ends with (`# Out of bounds values : 0 OK`): each opens a run pasted without the `# nThread` header (corpus 794, 628).
_TABLE_HEAD = re.compile(r"^\s*#?\s*(?:out-of-place\s+in-place|size\s+count\s+type|\(B\)\s+\(elements\))")
_SUMMARY = re.compile(r"^\s*#?\s*Out of bounds values\s*:")
_BANDWIDTH = re.compile(r"^\s*#?\s*Avg bus bandwidth\s*:")


def _command(line: str, above: str = "") -> str | None:
    """The nccl-tests command line `line` is, or quotes as inline code with its options; None where it is neither
    (a span that names the program alone is a mention). Under a line that `\\` continues (`above`), an indented
    line is the command's last part (`  /opt/nccl-tests/build/all_reduce_perf -b 8`, corpus 1195)."""
    if COMMAND.match(line) or (continued(above) and (COMMAND.match(line.lstrip()) or APP_CONTEXT.match(line))):
        return line.strip()
    return next((span.strip() for span in INLINE_CODE.findall(line)
                 if "_perf" in span and " -" in span and COMMAND.match(span)), None)


def _sizes(line: str) -> bool:
    """Whether `line` holds the header's sizes: `nThread 1 nGpus 8`, or `nGpus(perProc) 8` (corpus 1414)."""
    return "nThread" in line or "perProc" in line


def _opens_run(line: str) -> bool:
    return bool(RANK_LINE.match(line) or (_HEADER.match(line) and (_sizes(line) or "Using devices" in line))
                or _ROW.match(line) or _TABLE_HEAD.match(line) or _SUMMARY.match(line) or TEST_FAILURE.match(line))


def _is_run(body: list[str]) -> bool:
    """Whether the lines from an opening line are an nccl-tests run: its rank lines, a whole result row, the
    result table's header over a row of it (the old table of `time algbw busbw error` without `root`), the summary
    of its end (`# Out of bounds values` over `# Avg bus bandwidth`), an `nThread` header down to `# Using devices`, or
    the test's own failure lines (TEST_FAILURE)."""
    return any(RANK_LINE.match(b) or FULL_ROW.match(b) or TEST_FAILURE.match(b) for b in body) \
        or (bool(_TABLE_HEAD.match(body[0])) and any(_ROW.match(b) for b in body)) \
        or any(_SUMMARY.match(a) and _BANDWIDTH.match(b) for a, b in pairwise(body)) \
        or (_sizes(body[0]) and any(_HEADER.match(b) and "Using devices" in b for b in body))


def _command_above(lines: list[str], i: int) -> int | None:
    """The index of the line that runs the test whose header starts at `i`: just above it, or above its fence."""
    j = i - 1 if i > 0 and not FENCE.match(lines[i - 1]) else i - 2
    return j if j >= 0 and TEST_PROGRAM.search(lines[j]) else None


def _heads_run(lines: list[str], i: int) -> bool:
    """Whether the command line at `i` sits just above a run's header (it is recorded with that run)."""
    return any(k < len(lines) and _opens_run(lines[k]) and _command_above(lines, k) == i for k in (i + 1, i + 2))


def _line(line: str) -> bool:
    return bool(RANK_LINE.match(line) or _HEADER.match(line) or _ROW.match(line) or TEST_FAILURE.match(line)
                or line.strip() in ("#", "")
                or line.strip().startswith("Blocking Enabled"))


@importer("nccl-tests", "nccl-tests output (`all_reduce_perf` header with each rank's GPU, and its result table)",
          needles=("Rank", "nThread", "perProc", "_perf", "Out of bounds", "out-of-place", "redop", "(elements)", "size", "float", "half",
                   "double", "int8", "int32", "int64", "Using devices", "Test CUDA failure", "Test NCCL failure",
                   "Test failure"), per_line=True)
def nccl_tests(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0  # the end of the last block read: a continuation above a command is never one already read
    for i in (scan := Scan(lines, candidates)):
        quoted = _command(lines[i], lines[i - 1] if i > taken else "")
        if quoted is not None and not _heads_run(lines, i):
            # `mpirun --host a:8,b:8 \` and `-x NCCL_ALGO=Ring \` lines above the program are its command (corpus 966).
            above, first = continued_from(lines, i, taken) if COMMAND.match(quoted) or APP_CONTEXT.match(quoted) \
                else ("", i)
            # An MPMD launch's further app contexts, each on a line the one above continues, are the same command.
            end = i + 1
            while end < len(lines) and continued(lines[end - 1]) and APP_CONTEXT.match(lines[end]):
                end += 1
            text = quoted if end == i + 1 else " ".join(without_continuation(x.strip()) for x in lines[i:end])
            yield Found("nccl-tests", first, end, document_appended(NCCL_TESTS.name, above + text + "\n"))
            taken = end
            scan.skip(end)
            continue
        if not _opens_run(lines[i]):
            continue
        end = run_end(lines, i + 1, _line)
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1  # the blank lines after the run are not its
        body = lines[i:end]
        if _is_run(body):
            # The command above a header, or above the `# Using devices` or failure line a cut header starts at.
            start = _command_above(lines, i) if _sizes(lines[i]) or "Using devices" in lines[i] \
                or TEST_FAILURE.match(lines[i]) else None
            command = [lines[start]] if start is not None else []
            yield Found("nccl-tests", i if start is None else start, end,
                        document_appended(NCCL_TESTS.name, "\n".join(command + body) + "\n"))
            taken = end
        scan.skip(end)
