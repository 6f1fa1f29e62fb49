"""`nvidia-smi topo -m`, `nvidia-smi topo -p2p <cap>` and `nvidia-smi nvlink -s` pasted into a report.

Each is recorded verbatim (less nvidia-smi's terminal underline codes) under the argv it shows. A `topo
-p2p` matrix is recorded under its own capability's argv (`-p2p r`, `-p2p rw`, `-p2p n`...) when the
command line above it says which, else as a pasted matrix whose capability is not shown; the
`gpu_p2p` fact reads rw, then r, then w, then the unnamed one (facts/topology.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.sources import NVSMI_NVLINK_S, NVSMI_P2P, NVSMI_P2P_UNNAMED, NVSMI_TOPO_M
from stackaudit.facts.topology import NVL_LINK, clean
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import FENCE, Candidates, Scan, strip_prompt
from stackaudit.importers.registry import Found, importer, record_command

_GPU_OR_NIC = r"(?:GPU\d+|NIC\d+|mlx\d+_\w+)"
_TOPO_CELL = r"(?:X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)"
TOPO_HEADER = re.compile(rf"^\s*(?:{_GPU_OR_NIC}\s+)*{_GPU_OR_NIC}\s*(?:CPU Affinity.*)?$")
TOPO_ROW = re.compile(rf"^\s*{_GPU_OR_NIC}\s+(?:{_TOPO_CELL}\s+)*{_TOPO_CELL}\b(?!\s+(?:OK|CNS|GNS|TNS|NS|DR|U)\b)")
_LEGEND = re.compile(r"^\s*(Legend:|NIC Legend:|X\s+=|SYS\s+=|SOC\s+=|NODE\s+=|PHB\s+=|PXB\s+=|PIX\s+=|NV#\s+=|"
                     r"NIC\d+:\s*\S+\s*$|OK\s+=|CNS\s+=|GNS\s+=|TNS\s+=|NS\s+=|DR\s+=|U\s+=|PSB\s+=|NV\d*\s+=)")
P2P_HEADER = re.compile(r"^\s*(?:GPU\d+\s+)*GPU\d+\s*$")
P2P_ROW = re.compile(r"^\s*GPU\d+\s+(?:(?:X|OK|CNS|GNS|TNS|NS|DR|U)\s+)*(?:X|OK|CNS|GNS|TNS|NS|DR|U)\s*$")
NVL_GPU = re.compile(r"^\s*GPU \d+:\s*\S.*$")
NVL_NOTE = re.compile(r"^\s*(NVML: Unable to retrieve NVLink information.*|.*all links are inactive.*)$", re.IGNORECASE)
# The command line above a -p2p matrix, or a heading that names it (`<summary>... (topo -p2p rw)</summary>`).
# `topo -mp` prints the PCIe paths only (no NV# cell even between NVLinked GPUs): the matrix keeps its command.
_MP_CMD = re.compile(r"nvidia-smi\s+topo\s+(?:-mp|--matrix_pci)\b")
_P2P_CMD = re.compile(r"(?:nvidia-smi\s+|\()topo\s+(?:-p2p|--p2pstatus)\s+(\w+)")


# What facts/topology.py `clean` takes out of a line (ANSI codes, with or without their ESC), which could
# stand inside a word: a line holding one is a candidate whatever else it holds.
_ANSI_NEEDLES = ("\x1b", "[4m", "[0m", "[24m", "[1m", "[22m")


# A matrix a user rewrote as a Markdown table (`| GPU0 | X | NODE | SYS |`, Lightning-AI/litgpt#1581): each row is
# read as nvidia-smi prints it, its cells tab-separated, and the table's rule row (`|---|---|`) as a blank line.
_MD_ROW = re.compile(r"^\s*\|(?P<cells>(?:[^|]*\|){2,})\s*$")
_MD_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def _text(line: str) -> str:
    line = clean(line).rstrip()
    if line[:1] != "|" and not line.lstrip().startswith("|"):
        return line
    if _MD_RULE.match(line):
        return ""
    m = _MD_ROW.match(line)
    return "\t".join(cell.strip() for cell in m.group("cells").split("|")[:-1]) if m else line


def _record(argv: tuple[str, ...], body: str, rec: HostRecord) -> None:
    if argv not in rec.commands:  # the first of several pastes wins
        record_command(rec, argv, body)


def _record_doc(name: str, body: str, rec: HostRecord) -> None:
    rec.docs.setdefault(name, body)  # the first of several pastes wins


def _block(lines: list[str], start: int, *patterns: re.Pattern[str], blanks: int = 1) -> int:
    """End (exclusive) of the run from `start` of lines matching any pattern; blank lines allowed."""
    end = start
    i = start
    gap = 0
    while i < len(lines):
        text = _text(lines[i])
        if not text.strip():
            gap += 1
            if gap > blanks:
                break
            i += 1
            continue
        if FENCE.match(text) or not any(p.search(text) for p in patterns):
            break
        gap = 0
        i += 1
        end = i
    return end


def topo_matrix_span(lines: list[str], i: int) -> int | None:
    """If a topology matrix starts at line i (header or first row), the end of it (legends included)."""
    text = _text(lines[i])
    if TOPO_HEADER.match(text) and ("CPU Affinity" in text or "NIC" in text or text.split()[:1] == ["GPU0"]):
        nxt = next((_text(x) for x in lines[i + 1:i + 3] if _text(x).strip()), "")
        if not TOPO_ROW.match(nxt):
            return None
    elif not TOPO_ROW.match(text):
        return None
    return _block(lines, i, TOPO_HEADER, TOPO_ROW, _LEGEND, blanks=2)


@importer("nvidia-smi topo -m", "`nvidia-smi topo -m` (with or without header, NIC rows and legend)",
          needles=("GPU", "NIC", "mlx", *_ANSI_NEEDLES), per_line=True)
def topo_matrix(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        end = topo_matrix_span(lines, i)
        if end is None or end <= i:
            continue
        body = "\n".join(_text(x) for x in lines[i:end]) + "\n"
        if any(_MP_CMD.search(strip_prompt(x)) for x in lines[max(0, i - 3):i]):
            body = "nvidia-smi topo -mp\n" + body
        yield Found("nvidia-smi topo -m", i, end, partial(_record, NVSMI_TOPO_M.argv, body))
        scan.skip(end)


def _p2p_mode(lines: list[str], start: int) -> str:
    for back in range(1, 4):
        if start - back < 0:
            break
        m = _P2P_CMD.search(strip_prompt(lines[start - back]))
        if m:
            return m.group(1)
    return ""


@importer("nvidia-smi topo -p2p", "`nvidia-smi topo -p2p r|w|rw|n|a|p` status matrices",
          needles=("GPU", *_ANSI_NEEDLES), per_line=True)
def p2p_matrix(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        text = _text(lines[i])
        starts = P2P_ROW.match(text) or (P2P_HEADER.match(text) and i + 1 < len(lines)
                                         and P2P_ROW.match(_text(lines[i + 1])))
        if not starts:
            continue
        end = _block(lines, i, P2P_HEADER, P2P_ROW, _LEGEND, blanks=2)
        mode = _p2p_mode(lines, i)
        body = "\n".join(_text(x) for x in lines[i:end]) + "\n"
        source = NVSMI_P2P.get(mode)
        if source is not None:
            yield Found("nvidia-smi topo -p2p", i, end, partial(_record, source.argv, body))
        else:  # no command line above it (or one naming no capability this tool knows)
            yield Found("nvidia-smi topo -p2p", i, end, partial(_record_doc, NVSMI_P2P_UNNAMED.name, body))
        scan.skip(end)


@importer("nvidia-smi nvlink -s", "`nvidia-smi nvlink -s` / `--status` (per-link GB/s, <inactive>)",
          needles=("GPU", *_ANSI_NEEDLES), per_line=True)
def nvlink_status(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not NVL_GPU.match(_text(lines[i])):
            continue
        end = _block(lines, i, NVL_GPU, NVL_LINK, NVL_NOTE, blanks=0)
        body_lines = [_text(x) for x in lines[i:end]]
        if any(NVL_LINK.match(x) or NVL_NOTE.match(x) for x in body_lines):
            yield Found("nvidia-smi nvlink -s", i, end,
                        partial(_record, NVSMI_NVLINK_S.argv, "\n".join(body_lines) + "\n"))
        scan.skip(end)
