"""NCCL variables in the user's own words: a line that is only `NCCL_X=value` (the list of variables a run was
given, `I set the NCCL environment variables like this:`) or a YAML mapping's `NCCL_X: value` (Ray's runtime_env
`env_vars:`), or `export NCCL_X=value` inside a sentence; NCCL_PROTO by its protocol's name (`logs for proto=LL.`); a sentence that
names NCCL variables as tries that did not help (`using `NCCL_IB_DISABLE=1 python tune.py` does not help.`).

Recorded as the pasted document USER_NCCL_ENV (facts/sources.py), the line verbatim; facts/serving_logs.py reads
it as the weakest source of the NCCL settings (IC-NCCL-ENV).
A log line, or a command line that runs a program, is left to its own recogniser; an nccl-tests command line gives the
NCCL variables its shell sets before the program.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.serving_logs import TEST_PROGRAM, is_log_line, stated_nccl, tried_nccl
from stackaudit.facts.sources import USER_NCCL_ENV
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer

# A shell command's leading assignments (`NCCL_A=1 NCCL_B=x ./prog`), before the program's path.
_ENV_PREFIX = re.compile(r"^\s*(?:(?:sudo\s+(?:-E\s+)?)?env\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")
_ASSIGNMENT = re.compile(r"\b(NCCL_[A-Z0-9_]+)=(\S+)")
MAX_LINES = 20  # a run's variables are a few; past that the paste is something else (a dumped environment)


@importer("prose nccl env", "NCCL variables set in the user's words ('NCCL_ALGO=Ring', 'export NCCL_SOCKET_IFNAME=lo')",
          needles=("NCCL_", "proto="), per_line=True)
def prose_nccl_env(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if len(line) > 2000 or is_log_line(line):
            continue
        if tried_nccl(line):
            # A sentence naming NCCL variables as tries that did not help (`... using `NCCL_IB_DISABLE=1 python
            # tune.py` does not help.`, corpus 916): recorded whole, read as tries, never as the run's settings.
            yield Found("prose nccl env", i, i + 1, document_appended(USER_NCCL_ENV.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        if (program := TEST_PROGRAM.search(line)) is not None:
            # An nccl-tests command whose output is not pasted with it: the variables its shell sets before the program
            # (`NCCL_P2P_LEVEL=SYS NCCL_DEBUG=info ./build/all_reduce_perf -g 8`, corpus 1149) are the run's.
            prefix = _ENV_PREFIX.match(line[:program.start() + 1])
            if pairs := _ASSIGNMENT.findall(prefix.group(0) if prefix else ""):
                text = "".join(f"{name}={value}\n" for name, value in pairs)
                yield Found("prose nccl env", i, i + 1, document_appended(USER_NCCL_ENV.name, text))
            continue
        if stated_nccl(line) is not None:
            yield Found("prose nccl env", i, i + 1, document_appended(USER_NCCL_ENV.name, line.strip() + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
