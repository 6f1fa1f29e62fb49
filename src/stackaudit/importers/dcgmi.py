"""DCGM's `dcgmi` outputs pasted into reports: `discovery -l` / `-c`, `nvlink --link-status` (`-s`) and `diag`.

Each is recorded as a pasted document (facts/sources.py DCGMI_*): their flags vary and the tool is
rarely on the audited host. `nvlink --link-status` feeds the NVLink state (facts/dcgmi.py); the GPU
list of `discovery` (`-l`: a table of GPUs; `-c`: the MIG instance hierarchy under each GPU) and the
result table of `diag` are read as evidence only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import DCGMI_DIAG, DCGMI_DISCOVERY, DCGMI_NVLINK
from stackaudit.importers._scan import FENCE, Candidates, Scan, run_end, strip_prompt
from stackaudit.importers.registry import Found, document_appended, importer


def _with_command(lines: list[str], start: int, command: str) -> int:
    """`start`, or the line above it where that line runs `dcgmi COMMAND` (the prompt already peeled)."""
    if start > 0 and strip_prompt(lines[start - 1]).lstrip(":").startswith("dcgmi " + command):
        return start - 1
    return start


_TABLE = re.compile(r"^\s*[|+]")
_FOUND = re.compile(r"^\s*\d+ (?:GPUs?|NvSwitch(?:es)?|CPUs?) found")
# The head of `discovery -l`'s table, or the title row of `discovery -c`'s instance hierarchy.
_DISCOVERY_HEAD = re.compile(r"^\s*\|\s*(?:(?:GPU|NvSwitch) ID\s*\|\s*Device Information|Instance Hierarchy)\s*\|")


@importer("dcgmi discovery", "`dcgmi discovery -l` / `-c` (DCGM's GPU list, its MIG instance hierarchy)",
          needles=("found", "Device Information", "Instance Hierarchy"), per_line=True)
def dcgmi_discovery(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        found_line = bool(_FOUND.match(line))
        if not (found_line or _DISCOVERY_HEAD.match(line)):
            continue
        end = run_end(lines, i + 1, lambda line: (_TABLE.match(line) or _FOUND.match(line)) and not FENCE.match(line))
        if not any(_DISCOVERY_HEAD.match(b) for b in lines[i:end]):
            scan.skip(end)  # no table head in the run: no line of it starts one (each line is scanned once)
            continue
        start = i
        while start > 0 and lines[start - 1].strip().startswith("+") and not FENCE.match(lines[start - 1]):
            start -= 1  # the border above `-c`'s title row
        start = _with_command(lines, start, "discovery")
        yield Found("dcgmi discovery", start, end,
                    document_appended(DCGMI_DISCOVERY.name, "\n".join(lines[start:end]) + "\n"))
        scan.skip(end)


_LINK_STATUS = re.compile(r"^\s*\|?\s*NvLink Link Status\s*\|?\s*$")
_NVLINK_BODY = re.compile(r"^\s*(?:[|+]|GPUs:|NvSwitches:|gpuId \d+:|physicalId \d+:|(?:[UDX_] )*[UDX_]\s*$|"
                          r"No NvSwitches found|Key: Up=U)")


@importer("dcgmi nvlink", "`dcgmi nvlink --link-status` / `-s` (DCGM's NVLink states)",
          needles=("NvLink Link Status",), per_line=True)
def dcgmi_nvlink(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _LINK_STATUS.match(lines[i]):
            continue
        start = i - 1 if i > 0 and lines[i - 1].strip().startswith("+") else i
        start = _with_command(lines, start, "nvlink")
        end = run_end(lines, i + 1, lambda line: line.strip() and _NVLINK_BODY.match(line))
        if end < len(lines) and not lines[end].strip() and end + 1 < len(lines) and \
                lines[end + 1].strip().startswith("Key: Up=U"):
            end += 2  # the key, after a blank line
        yield Found("dcgmi nvlink", start, end, document_appended(DCGMI_NVLINK.name, "\n".join(lines[start:end]) + "\n"))
        scan.skip(end)


_DIAG_MARK = re.compile(r"^\s*\|\s*Diagnostic\s*\|\s*Result\s*\||^\s*[|+]-{3,}\s+(?:Metadata|Deployment|Integration|"
                        r"Hardware|Stress|Plugins)\s+-{3,}")


@importer("dcgmi diag", "`dcgmi diag -r N` (DCGM's diagnostic results)", needles=("Diagnostic", "-----"),
          per_line=True)
def dcgmi_diag(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _DIAG_MARK.match(lines[i]):
            continue
        start = i
        while start > 0 and _TABLE.match(lines[start - 1]) and not FENCE.match(lines[start - 1]):
            start -= 1
        if start > 0 and lines[start - 1].strip().startswith("Successfully ran diagnostic"):
            start -= 1
        start = _with_command(lines, start, "diag")
        end = run_end(lines, i + 1, lambda line: _TABLE.match(line) and not FENCE.match(line))
        yield Found("dcgmi diag", start, end, document_appended(DCGMI_DIAG.name, "\n".join(lines[start:end]) + "\n"))
        scan.skip(end)
