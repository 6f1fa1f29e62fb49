"""Pasted `lspci` outputs: `-vvv`/`-vv`/`-v`/`-nn` listings (whole, cut, or grepped lines such as
`ACSCtl:` / `LnkSta:` without device headers; a display device's header with its bus address cut off), `lspci -tv`
trees (whole, or an excerpt cut above its root line), and the IOMMU-group listings of the usual VFIO scripts
(`IOMMU Group N:` followed by `lspci -nns` lines).

Each listing is recorded verbatim under the argv it shows (facts/sources.py LSPCI_PASTED): its prompt
line's where that is one of them, else the flags its lines show; an IOMMU-group listing as a pasted
document. Several listings of one argv are concatenated in order; the `pcie` fact parses them all
(facts/lspci.py `parse_lspci` accepts every flavour and merges a device printed twice).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.lspci import (
    CAP_KEYS,
    IOMMU_GROUP_HEADING,
    LSPCI_HEADER,
    UNADDRESSED_HEADER,
    listing_heading,
    unaddressed_header,
)
from stackaudit.facts.sources import IOMMU_GROUP_LISTING, LSPCI_PASTED, LSPCI_TREE, LSPCI_VVV
from stackaudit.importers._scan import FENCE, Candidates, Scan, run_end, strip_prompt
from stackaudit.importers.registry import (
    Found,
    command_output_appended,
    document_appended,
    importer,
)
from stackaudit.pci_address import BDF, BDF_OPTIONAL_DOMAIN

_CAP_KEY = re.compile(rf"^\s*(?:{'|'.join(CAP_KEYS)}):\s")
_GROUP = IOMMU_GROUP_HEADING
_TREE_START = re.compile(r"^[\s|+\\-]*-\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]-")
_TREE_LINE = re.compile(r"^[\s|]*[+\\]-(?:\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]-|[0-9a-fA-F]{2}\.[0-7])")
# A branch line of a tree excerpt cut above its root (no `-[0000:00]-` line): `|` rules, then `+-`/`\-` and a device
# followed by what the tree prints after one: nothing, its bus bracket, a child link or its name (`-tv`).
_TREE_FRAGMENT = re.compile(r"^[ |]*[+\\]-[0-9a-fA-F]{2}\.[0-7](?=$|-\[[0-9a-fA-F]{2}[\]-]|--|  \S)")
_KNOWN_ARGV = {s.argv for s in (LSPCI_VVV, *LSPCI_PASTED)}
_DOMAIN = re.compile(rf"^\s*{BDF}\s")


def _is_header(line: str) -> bool:
    return bool(LSPCI_HEADER.match(line)) and not line.startswith(("\t\t", "        "))


# A GPU's header after the user's own words on the same line ("here is my card 62:00.0 VGA compatible
# controller: NVIDIA ..."): only the display classes, and only where detail lines follow.
_PROSE_HEADER = re.compile(rf"^\S.*?\s({BDF_OPTIONAL_DOMAIN}\s+"
                           r"(?:VGA compatible controller|3D controller|Display controller)(?:\s+\[[0-9a-fA-F]{4}\])?:\s.*)$")
# Detail lines of a device whose header is cut off above them (the tail of a `-vvv` entry).
_DETAIL = re.compile(r"^\t+(?:Capabilities: \[[0-9a-fA-F]+|Kernel driver in use:|Kernel modules:|BAR \d+: current size)")


def _prose_header(lines: list[str], i: int) -> str | None:
    line = lines[i]
    if "ontroller" not in line or i + 1 >= len(lines) or lines[i + 1][:1] != "\t":
        return None  # cheap tests first: the regex runs on a handful of lines of a long paste
    m = _PROSE_HEADER.match(line) if not _is_header(line) else None
    if m and i + 1 < len(lines) and lines[i + 1][:1] == "\t":
        return m.group(1)
    return None


def _argv(block: list[str], before: str) -> tuple[str, ...]:
    """The argv a listing shows: its prompt line's when that is a known lspci argv, else its lines' flags."""
    command = strip_prompt(before.strip().strip("`")).removeprefix("sudo ").split("|")[0].split()
    if tuple(command) in _KNOWN_ARGV:
        return tuple(command)
    headers = [LSPCI_HEADER.match(line) for line in block if _is_header(line)]
    flags: list[str] = []
    if any(_DOMAIN.match(line) for line in block if _is_header(line)):
        flags.append("-D")
    if any(h is not None and h.group(3) for h in headers):
        flags.append("-nn")
    if not headers or any(not _is_header(line) and line[:1] in ("\t", " ") for line in block if line.strip()):
        flags.append("-vvv")  # detail lines (or grepped capability lines alone): a verbose listing
    return ("lspci", *flags)


# What each start below needs first: a detail line's tab (`_DETAIL`), a device header's bus address
# (`LSPCI_HEADER`: 2 or 4 hex digits and a colon), a capability key (`_CAP_KEY`), an IOMMU group heading
# (`_GROUP`); a header after prose needs "ontroller". No needle gate: a bus address holds no literal but
# ":", which nearly every line of a paste holds.
_MAYBE_START = re.compile(rf"^(?:\t|\s*(?:[0-9a-fA-F]{{2,4}}:|\d+ = |IOMMU |(?:{'|'.join(CAP_KEYS)}):))")
# A device header behind the index the Kubernetes vGPU device plugins print it with when they walk the PCI bus
# (4paradigm k8s-vgpu-scheduler / HAMi `Loading PciInfo`: ` 11 = 00:08.0 3D controller: NVIDIA Corporation GV100GL
# [Tesla V100 SXM2 32GB] (rev a1)`, one per line with blank lines between, corpus 937): lspci's header, read as one.
_INDEXED = re.compile(r"^\s*\d+ = (?=\S)")


def _indexed_header(line: str) -> str | None:
    """The lspci header behind a device plugin's index (`_INDEXED`), or None."""
    m = _INDEXED.match(line)
    rest = line[m.end():] if m else ""
    return rest if m and _is_header(rest) else None


def _under_lspci(lines: list[str], i: int) -> bool:
    """Whether line i stands right under an lspci command (a prompt's, or the command alone on its line)."""
    return i > 0 and "lspci" in lines[i - 1] and strip_prompt(lines[i - 1].strip("` ")).removeprefix("sudo ")[:6] in (
        "lspci", "lspci ")


@importer("lspci", "`lspci -vvv` / `-vv` / `-nn` (whole, cut or grepped ACSCtl/LnkSta lines), IOMMU group listings")
def lspci(lines: list[str]) -> Iterator[Found]:
    n = len(lines)
    seen: set[tuple[str, ...]] = set()
    for i in (scan := Scan(lines, None)):
        line = lines[i]
        if not _MAYBE_START.match(line) and "ontroller" not in line:
            continue  # none of the tests below can hold: one match instead of five per line of a long paste
        if _indexed_header(line):
            j, block = i, []
            while j < n and ((header := _indexed_header(lines[j])) or not lines[j].strip()):
                if header:
                    block.append(header)
                j += 1
            argv = _argv(block, "")
            text = "\n".join(block) + "\n"
            yield Found("lspci", i, j, command_output_appended(argv, text if argv not in seen else "\n" + text))
            seen.add(argv)
            scan.skip(j)
            continue
        header_text = _prose_header(lines, i)
        # A display device's header without its bus address, over its detail lines (facts/lspci.py), or alone under
        # its lspci command (`lspci | grep -i nvidia` then `3D controller: NVIDIA Corporation TU116M ...`, corpus 2472).
        bare = not header_text and not _is_header(line) and (
            unaddressed_header(lines, i) is not None or (_under_lspci(lines, i) and bool(UNADDRESSED_HEADER.match(line))))
        fragment = not header_text and _DETAIL.match(line) and i + 1 < n and bool(_DETAIL.match(lines[i + 1]) or (
            lines[i + 1].startswith("\t") and _DETAIL.match(lines[min(i + 2, n - 1)])))
        if not (_is_header(line) or _CAP_KEY.match(line) or _GROUP.match(line) or header_text or fragment or bare):
            continue
        # A report's heading that names the device of the grepped lines below it (facts/lspci.py LISTING_HEADINGS)
        # goes with them.
        start = i - 1 if i > 0 and not header_text and listing_heading(lines[i - 1]) else i
        in_device = _is_header(line) or bool(header_text) or bool(fragment) or bare
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
        if header_text:
            block = [header_text, *block[1:]]
        if any(_is_header(b) for b in block) or sum(1 for b in block if _CAP_KEY.match(b)) >= 1 or fragment or bare:
            text = "\n".join(block).strip("\n") + "\n"
            if any(_GROUP.match(b) for b in block):
                yield Found("lspci", start, j, document_appended(IOMMU_GROUP_LISTING.name, text, sep="\n"))
            else:
                argv = _argv(block, lines[start - 1] if start > 0 else "")
                # Two listings of one argv (two devices asked for): one output, a blank line between, as lspci
                # separates devices.
                yield Found("lspci", start, j, command_output_appended(argv, text if argv not in seen else "\n" + text))
                seen.add(argv)
        scan.skip(j)


def _in_tree(line: str) -> object:
    return line.strip() and (_TREE_START.match(line) or _TREE_LINE.match(line))


def _tree_at(lines: list[str], i: int) -> int | None:
    """Where the tree that starts at line i ends: the run of tree lines from a root line, or from an excerpt's
    branch line (_TREE_FRAGMENT) followed by another or showing a bus bracket; None where none starts there."""
    if _TREE_START.match(lines[i]):
        return run_end(lines, i + 1, _in_tree)
    if not _TREE_FRAGMENT.match(lines[i]):
        return None
    j = run_end(lines, i + 1, _in_tree)
    return j if (j - i >= 2 and _TREE_FRAGMENT.match(lines[i + 1])) or "-[" in lines[i] else None


@importer("lspci -tv", "`lspci -tv` / `lspci -t` device tree, whole or an excerpt cut above its root",
          needles=("-[", "+-", "\\-"), per_line=True)
def lspci_tree(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    first = True
    for i in (scan := Scan(lines, candidates)):
        if (j := _tree_at(lines, i)) is not None:
            text = "\n".join(line.rstrip() for line in lines[i:j]) + "\n"
            # Several trees or excerpts: one output, a blank line between them (where the tree's columns start over).
            yield Found("lspci -tv", i, j, command_output_appended(LSPCI_TREE.argv, text if first else "\n" + text))
            first = False
            scan.skip(j)
