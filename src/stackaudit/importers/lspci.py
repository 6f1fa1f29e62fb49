"""Pasted `lspci` outputs: `-vvv`/`-vv`/`-nn` listings (whole, cut, or grepped lines such as
`ACSCtl:` / `LnkSta:` without device headers), `lspci -tv` trees, and the IOMMU-group listings
of the usual VFIO scripts (`IOMMU Group N:` followed by `lspci -nns` lines).

Every listing is recorded as the output of `lspci -D -nn -vvv` (stackaudit.facts.pcie_config.
LSPCI_ARGV), the command the `pcie` fact runs live; several pasted listings are concatenated in
order (the parser merges a device printed twice).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts.pcie_config import CAP_KEYS, LSPCI_ARGV, LSPCI_HEADER
from stackaudit.host.base import CommandResult
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import FENCE
from stackaudit.importers.registry import Found, command_output, importer

_CAP_KEY = re.compile(rf"^\s*(?:{'|'.join(CAP_KEYS)}):\s")
_GROUP = re.compile(r"^\s*IOMMU [Gg]roup\s+(\d+)\s*:?\s*$")
_TREE_START = re.compile(r"^[\s|+\\-]*-\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]-")
_TREE_LINE = re.compile(r"^[\s|]*[+\\]-(?:\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]-|[0-9a-fA-F]{2}\.[0-7])")


def _is_header(line: str) -> bool:
    return bool(LSPCI_HEADER.match(line)) and not line.startswith(("\t\t", "        "))


def _append(text: str, rec: HostRecord) -> None:
    old = rec.commands.get(LSPCI_ARGV)
    joined = (old.stdout.rstrip("\n") + "\n\n" if old is not None and old.stdout.strip() else "") + text
    rec.commands[LSPCI_ARGV] = CommandResult(LSPCI_ARGV, 0, joined)


def _translate(block: list[str]) -> str:
    """Normalise a block: IOMMU group headings become `IOMMU group: N` lines of the devices under them."""
    out: list[str] = []
    group: str | None = None
    for line in block:
        m = _GROUP.match(line)
        if m:
            group = m.group(1)
            continue
        if _is_header(line):
            out.append(line.strip())
            if group is not None:
                out.append(f"\tIOMMU group: {group}")
            continue
        out.append(line.rstrip())
    return "\n".join(out).strip("\n") + "\n"


@importer("lspci", "`lspci -vvv` / `-vv` / `-nn` (whole, cut or grepped ACSCtl/LnkSta lines), IOMMU group listings")
def lspci(lines: list[str]) -> Iterator[Found]:
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not (_is_header(line) or _CAP_KEY.match(line) or _GROUP.match(line)):
            i += 1
            continue
        start = i
        in_device = _is_header(line)
        j = i + 1
        while j < n:
            cur = lines[j]
            if FENCE.match(cur):
                break
            if not cur.strip():
                # Devices of `lspci -vvv` are separated by one blank line.
                k = j + 1
                if k < n and (_is_header(lines[k]) or _CAP_KEY.match(lines[k]) or _GROUP.match(lines[k])):
                    j = k
                    continue
                break
            if _is_header(cur):
                in_device = True
            elif not (_GROUP.match(cur) or _CAP_KEY.match(cur) or (in_device and cur[:1] in ("\t", " "))):
                break
            j += 1
        block = lines[start:j]
        if any(_is_header(b) for b in block) or sum(1 for b in block if _CAP_KEY.match(b)) >= 1:
            yield Found("lspci", start, j, partial(_append, _translate(block)))
        i = max(j, i + 1)


@importer("lspci -tv", "`lspci -tv` / `lspci -t` device tree")
def lspci_tree(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if _TREE_START.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j].strip() and (_TREE_START.match(lines[j]) or _TREE_LINE.match(lines[j])):
                j += 1
            text = "\n".join(line.rstrip() for line in lines[i:j]) + "\n"
            yield Found("lspci -tv", i, j, command_output(("lspci", "-tv"), text))
            i = j
        else:
            i += 1


