"""nvidia-smi outputs pasted into bug reports: `-q -x` (XML), `-q` (text), the default table and `-L`.

Each is recorded verbatim as the output of its own command (facts/sources.py: NVSMI_XML,
NVSMI_QUERY, NVSMI_TABLE), so a pasted file replays like a snapshot of a host without NVML. Whole
only by the output's own markers: the XML from `<nvidia_smi_log>` to its end with as many `<gpu>`
sections as `<attached_gpus>` says; `-q` from its `NVSMI LOG` banner with as many GPU sections as
`Attached GPUs`; the table from its `NVIDIA-SMI` header through the closed Processes box.
The table's fragments (its header line alone, the Processes box or process rows alone) are recorded as the table's
output, appended, never whole; a later table cut before its first GPU row does not replace an earlier table of the
same driver that lists GPUs (it shows none). nvidia-smi's line for a GPU it cannot open is the table's, or `-q`'s under a line that
names `nvidia-smi -q` / `-a`. Its two lines under a version mismatch (`Failed to initialize NVML: Driver/library
version mismatch`, `NVML library version: 565.57`) are its whole output, and so is its line where it reaches no
driver (`NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver`), wherever it stands.
`nvidia-smi -L` is whole numbered from GPU 0 without a gap, under its command line or ended by another line; its
GPU lines run together on one line (line breaks lost) are read as the listing, never whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts._parse import NVSMI_GPU_LINE
from stackaudit.facts.nvidia import NVSMI_VERSION_LINE
from stackaudit.facts.nvidia_smi import (
    NO_BUS_PERSISTENCE,
    NO_DEVICES,
    NO_DRIVER,
    NO_HANDLE,
    NVML_FAILED,
    NVML_SHUTDOWN_FAILED,
    QUERY_FIELDS,
    TABLE_HEADER,
    WINDOWS_DRIVER_MODELS,
    process_row,
)
from stackaudit.facts.sources import (
    EVIDENCE_LINES,
    NVSMI_LIST,
    NVSMI_QUERY,
    NVSMI_TABLE,
    NVSMI_VERSION,
    NVSMI_XML,
)
from stackaudit.facts.topology import NVL_LINK
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import FENCE, Candidates, Scan, run_end, strip_prompt
from stackaudit.importers.evidence import FORM_GPU_LABELS, form_answer
from stackaudit.importers.registry import (
    Found,
    applied_each,
    command_output,
    command_output_appended,
    document_appended,
    importer,
    record_command,
)
from stackaudit.importers.topology import NVL_NOTE
from stackaudit.pci_address import BDF

XML_ARGV = NVSMI_XML.argv
QUERY_ARGV = NVSMI_QUERY.argv
TABLE_ARGV = NVSMI_TABLE.argv


def _attached(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


# --- XML ---------------------------------------------------------------------------------------


# Elements of a GPU's section, by the names of their families: a fragment cut out of `-q -x` starts at one.
_GPU_ELEMENTS = ("clocks_", "persistence_mode", "driver_version", "product_name", "fabric", "gsp_firmware_version",
                 "applications_clocks", "max_clocks", "power_readings", "gpu_power_readings", "compute_mode",
                 "virtualization_mode", "pci_bus_id", "mig_mode", "ecc_mode", "fb_memory_usage")
_FRAGMENT_START = re.compile(r"^\s*<(?:" + "|".join(_GPU_ELEMENTS) + r")\w*>")
_XML_TEXT = re.compile(r"^\s+[\w.:/ -]+$")  # an element's text on its own line (`None` in <mig_devices>)
_XML_LINE = re.compile(r"^\s*</?\w+>(?:[^<>]*</\w+>)?\s*$|^\s*<\w+>[^<>]*$")


def _fragment(lines: list[str], i: int) -> int:
    """The end of a fragment of `-q -x` (XML element lines, at least three) that starts at line i, or i."""
    if not _FRAGMENT_START.match(lines[i]):
        return i
    end = run_end(lines, i, _XML_LINE.match)
    return end if end - i >= 3 else i


@importer("nvidia-smi -q -x", "`nvidia-smi -q -x` (XML, or a fragment of a GPU's elements)",
          needles=("<nvidia_smi_log", *("<" + e for e in _GPU_ELEMENTS)), per_line=True)
def nvsmi_xml(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if "<nvidia_smi_log" not in lines[i]:
            cut = _fragment(lines, i)
            if cut > i:
                # Recorded as it is: without <nvidia_smi_log> and its <gpu>, which GPU it shows is not in the
                # paste, and the nvidia fact says so (facts/nvidia_smi.py parse_xml).
                yield Found("nvidia-smi -q -x", i, cut, command_output(XML_ARGV, "\n".join(lines[i:cut]) + "\n"))
            scan.skip(cut)
            continue
        start = i
        for back in (1, 2):  # the <?xml ...?> and <!DOCTYPE ...> lines just before
            if i - back >= 0 and lines[i - back].lstrip().startswith(("<?xml", "<!DOCTYPE")):
                start = i - back
        end = next((j + 1 for j in range(i, len(lines)) if "</nvidia_smi_log>" in lines[j]), None)
        if end is None:  # cut short: its lines up to the last element line, an excerpt
            end = run_end(lines, i + 1, lambda line: line.lstrip().startswith("<") or _XML_TEXT.match(line))
            text = "\n".join(line.strip() if n == 0 else line for n, line in enumerate(lines[start:end])) + "\n"
            yield Found("nvidia-smi -q -x", start, end, command_output(XML_ARGV, text), whole=False)
            return
        text = "\n".join(line.strip() if n == 0 else line for n, line in enumerate(lines[start:end])) + "\n"
        attached = _attached(text, r"<attached_gpus>\s*(\d+)\s*</attached_gpus>")
        # A gap line cut out of the span makes it an excerpt too: the paste view and the registry see to that.
        whole = attached is not None and attached == len(re.findall(r"<gpu\s+id=", text))
        yield Found("nvidia-smi -q -x", start, end, command_output(XML_ARGV, text), whole=whole)
        scan.skip(end)


# --- `-q` text -----------------------------------------------------------------------------------

_GPU_HEADER = re.compile(rf"^GPU\s+{BDF}\s*$")
_BANNER = re.compile(r"^=+\s*NVSMI LOG\s*=+\s*$")
_TOP_KEYS = ("Timestamp", "Driver Version", "KMD Version", "CUDA Version", "CUDA UMD Version", "Attached GPUs")
# A top key with its value, or a section at the log's top alone on its line (the vGPU host driver's
# `vGPU Driver Capability`, corpus 399).
_TOP_KEY = re.compile(r"^(" + "|".join(_TOP_KEYS) + r")\s+:|^(" + "|".join(
    re.escape(k) for k, (depth, section) in QUERY_FIELDS.items() if depth == 0 and section) + r")\s*$")
_INDENTED = re.compile(r"^(?: {4,}|\t+)[A-Za-z][\w .()/+-]*?(\s*:.*)?$")
# Keys only `nvidia-smi -q` prints, to recognise an excerpt that starts inside a GPU section.
_Q_KEY_NAMES = ("Product Name", "Persistence Mode", "Applications Clocks", "Default Applications Clocks",
                "Clocks Event Reasons", "Clocks Throttle Reasons", "GPU Power Readings", "Power Readings",
                "FB Memory Usage", "Remapped Rows", "ECC Mode", "Ecc Mode", "ECC Errors", "Retired Pages",
                "Compute Mode", "MIG Mode", "GSP Firmware Version", "Max Clocks", "GPU Link Info", "PCIe Generation",
                "Link Width", "BAR1 Memory Usage", "GPU Virtualization Mode", "vGPU Software Licensed Product",
                "License Status", "Fabric")
_Q_KEYS = re.compile(r"^\s+(" + "|".join(_Q_KEY_NAMES) + r")\b")


def _q_line(line: str) -> bool:
    return bool(_GPU_HEADER.match(line.strip()) and not line.startswith((" ", "\t"))) or bool(
        _BANNER.match(line.strip()) or _TOP_KEY.match(line) or _INDENTED.match(line.rstrip()))


# The anchors: the banner, a GPU section's header, a top key or a key only `-q` prints; a word of each key,
# shared by several where it can (each needle is a pass over the text).
_QUERY_NEEDLES = ("NVSMI LOG", "GPU", "Timestamp", "Version", "Product Name", "Mode", "Clocks", "Readings",
                  "Memory Usage", "Remapped Rows", "ECC Errors", "Retired Pages", "Link", "PCIe Generation",
                  "Fabric", "License Status")


# A section of a GPU cut out at column 0 (`nvidia-smi -q | grep -A4 Fabric` pasted unindented, or `-d`):
# its name alone on a line, then its indented keys.
_SECTION_AT_0 = re.compile(r"^(" + "|".join(_Q_KEY_NAMES) + r")\s*$")
_SECTION_KEY = re.compile(r"^(?: {2,}|\t+)[A-Za-z][\w .()/+-]*?\s+:")


def _section_at_0(lines: list[str], i: int) -> int:
    """The end of the section at column 0 that starts at line i, or i where there is none."""
    if not _SECTION_AT_0.match(lines[i]) or i + 1 >= len(lines) or not _SECTION_KEY.match(lines[i + 1]):
        return i
    end = i + 1
    while end < len(lines) and lines[end].strip() and _INDENTED.match(lines[end].rstrip()) and \
            not FENCE.match(lines[end]):
        end += 1
    return end


_PROCESSES = re.compile(r"\s+Processes\b")
# The command a line names (a prompt, or a sentence: "The output of `nvidia-smi -a` on your host:"): `-q` or `-a`.
_QUERY_NAMED = re.compile(r"\bnvidia-smi\s+(?:-q|-a|--query)\b(?!\s*-x)")


def _query_output(lines: list[str], i: int) -> bool:
    """Whether line i, nvidia-smi's line for a GPU it cannot open, is what `nvidia-smi -q` printed: the line above it
    that is neither blank nor a fence names that command (the table prints the same line, corpus 697)."""
    above = next((lines[j] for j in range(i - 1, max(i - 4, -1), -1) if lines[j].strip() and not FENCE.match(lines[j])),
                 "")
    return _QUERY_NAMED.search(above) is not None


@importer("nvidia-smi -q", "`nvidia-smi -q` (text, whole, an excerpt, or a section cut out of it), or its line for a "
          "GPU it cannot open under the command",
          needles=_QUERY_NEEDLES, per_line=True)
def nvsmi_query(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i]
        if NO_HANDLE.match(line) and _query_output(lines, i):
            yield Found("nvidia-smi -q", i, i + 1, command_output_appended(QUERY_ARGV, line.strip() + "\n"))
            continue
        section_end = _section_at_0(lines, i)
        if section_end > i:
            # Read as the GPU section it was cut from: indented one level, as `-q` prints it under `GPU ...`.
            text = "\n".join("    " + b for b in lines[i:section_end]) + "\n"
            yield Found("nvidia-smi -q", i, section_end, command_output_appended(QUERY_ARGV, text))
            scan.skip(section_end)
            continue
        anchor = (_BANNER.match(line.strip()) or (_GPU_HEADER.match(line) and not line.startswith(" "))
                  or _TOP_KEY.match(line) or _Q_KEYS.match(line))
        if not anchor:
            continue
        start = i
        blanks = 0
        j = i - 1
        while j >= 0:  # an excerpt may begin inside a GPU section: take the indented lines before
            if not lines[j].strip():
                blanks += 1
                if blanks > 1:
                    break
            elif _INDENTED.match(lines[j].rstrip()):
                start = j
                blanks = 0
            else:
                break
            j -= 1
        end = i + 1
        blanks = 0
        k = i + 1
        while k < len(lines):
            if not lines[k].strip():
                blanks += 1
                if blanks > 2:
                    break
            elif FENCE.match(lines[k]) or not _q_line(lines[k]):
                break
            else:
                blanks = 0
                end = k + 1
            k += 1
        body = lines[start:end]
        # A banner with the driver's version is `-q` too, where the paste stops before any GPU section.
        banner = any(_BANNER.match(b.strip()) for b in body) and any(b.startswith("Driver Version") for b in body)
        if (banner or any(_Q_KEYS.match(b) or _GPU_HEADER.match(b) for b in body)) and len(body) >= 3:
            text = "\n".join(body) + "\n"
            attached = _attached(text, r"(?m)^Attached GPUs\s+:\s*(\d+)")
            sections = sum(1 for b in body if _GPU_HEADER.match(b) and not b.startswith((" ", "\t")))
            # A last line that is a name without its ` : value` (a field cut in the middle, a section without
            # its fields) is where the paste stops, not where nvidia-smi does: `-q` ends on a field.
            # Each GPU's section ends near its `Processes` entry: a last section without it is cut inside.
            last = max((n for n, b in enumerate(body) if _GPU_HEADER.match(b)), default=0)
            whole = (any(_BANNER.match(b.strip()) for b in body) and attached is not None and attached == sections
                     and " : " in body[-1] + " " and any(_PROCESSES.match(b) for b in body[last:]))
            # Appended: a paste may hold a section cut out of `-q` and, further on, its banner.
            yield Found("nvidia-smi -q", start, end, command_output_appended(QUERY_ARGV, text), whole=whole)
        scan.skip(end)


# --- the default table -------------------------------------------------------------------------

# A line of the table, Markdown bold a poster put around a whole row too (`**| NVIDIA-SMI 430.64 ... |**`, corpus 2230).
_TABLE_LINE = re.compile(r"^\s*(?:\*\*)?[|+]")
# A GPU row's persistence cell is the driver model on Windows (`WDDM`, `TCC`), as facts/nvidia_smi.py's _ROW1 reads it:
# corpus 1348's two rows, copied out of `nvidia-smi -l 1` without the header.
_GPU_ROW = re.compile(rf"^\s*\|\s*\d+\s+.+\s(On|Off|{'|'.join(WINDOWS_DRIVER_MODELS)})\s*\|\s*"
                      r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
_TABLE_SIGNS = re.compile(rf"NVIDIA-SMI\s+\d|{_GPU_ROW.pattern}")
# Any GPU's first row, its Bus-Id cut off too (facts/nvidia_smi's _ROW1_CUT), or an integrated GPU's without one
# (NO_BUS_PERSISTENCE): the table shows that GPU.
_ANY_GPU_ROW = re.compile(rf"^\s*\|\s*\d+\s+\S.*?\s(?:On|Off|{'|'.join(WINDOWS_DRIVER_MODELS)}|{NO_BUS_PERSISTENCE})"
                          r"\s*(?:\||$)")
# A fragment of the table without its header or GPU rows (corpus 247, 764): the Processes box or a process row.
_FRAGMENT_SIGNS = re.compile(r"^\s*\|\s*Processes:")
# The header line alone, without the table's bars (corpus 247, 264, 298: copied into a report as the driver's version).
_LONE_HEADER = re.compile(r"^\s*" + TABLE_HEADER.pattern)
_TIMESTAMP = re.compile(r"^\s*\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s*$")
# The command whose one line of output NVML_FAILED is.
_SMI_COMMAND = re.compile(r"^\s*(?:sudo\s+)?(?:/[\w./-]{0,200}/)?nvidia-smi\s*$")


def _under_command(lines: list[str], i: int) -> bool:
    """Whether the line above line i is `nvidia-smi` typed bare (its prompt, sudo or path allowed)."""
    return i > 0 and _SMI_COMMAND.match(strip_prompt(lines[i - 1])) is not None
# nvidia-smi's second line under a version mismatch, its own library's version (k4yt3x/video2x#1226, corpus 1008):
# `Failed to initialize NVML: Driver/library version mismatch` then `NVML library version: 565.57`.
_NVML_LIBRARY_LINE = re.compile(r"^\s*NVML library version: \d+\.\d+(?:\.\d+)?\s*$")


@importer("nvidia-smi", "the `nvidia-smi` default table (old and new header formats, or its GPU rows), or its "
          "line for a GPU it cannot open, or its one line where it reaches no driver (`NVIDIA-SMI has failed "
          "because it couldn't communicate with the NVIDIA driver`, wherever it stands), or its one line where NVML "
          "cannot start or finds no GPU (`No devices were found`), under the command (or its prompt) or over its `NVML library version` line, or a fragment of it: "
          "the header line alone, the Processes box, process rows",
          needles=("|", "+", "device handle", "VIDIA-SMI", "Failed to initialize NVML", "No devices were found"),
          per_line=True)
def nvsmi_table(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if NVML_FAILED.match(lines[i]) and i + 1 < len(lines) and _NVML_LIBRARY_LINE.match(lines[i + 1]):
            # nvidia-smi's own two lines, with or without the command above them: the whole of its output (it stops
            # there).
            text = lines[i].strip() + "\n"
            yield Found("nvidia-smi", i, i + 2, applied_each(command_output_appended(TABLE_ARGV, text),
                                                             document_appended(EVIDENCE_LINES.name, text)), whole=True)
            continue
        if (NVML_FAILED.match(lines[i]) or NO_DEVICES.match(lines[i])) and _under_command(lines, i):
            # The whole output of a run that could not start NVML, or that found no GPU it could open (`No devices
            # were found`), under the command, its shell prompt too (`# nvidia-smi`, `sh-5.1# nvidia-smi`):
            # nvidia-smi's output, which shows no GPU (facts/nvidia_smi.parse_table says so), and a symptom where any
            # pasted line of evidence goes (facts/symptoms.py).
            text = lines[i].strip() + "\n"
            yield Found("nvidia-smi", i - 1, i + 1, applied_each(command_output_appended(TABLE_ARGV, text),
                                                                 document_appended(EVIDENCE_LINES.name, text)))
            continue
        if NO_DRIVER.match(lines[i]):
            # nvidia-smi's failure to reach any driver, its own words: its whole output wherever it stands, with the
            # command (or its prompt) above it and NVML's failed shutdown within two lines below it (corpus 1177).
            start = i - 1 if _under_command(lines, i) else i
            end = next((k + 1 for k in range(i + 1, min(i + 3, len(lines))) if NVML_SHUTDOWN_FAILED.match(lines[k])),
                       i + 1)
            text = lines[i].strip(" `\t") + "\n"
            yield Found("nvidia-smi", start, end, applied_each(command_output_appended(TABLE_ARGV, text),
                                                               document_appended(EVIDENCE_LINES.name, text)),
                        whole=True)
            scan.skip(end)
            continue
        if NO_HANDLE.match(lines[i]) and not _query_output(lines, i):
            # nvidia-smi prints one such line a GPU it cannot open. The run of them is its whole output where the
            # command (or a code block's fence) is right above and the block, a blank line or the paste ends right
            # after (corpus 1226, 2301, 2354).
            end = i + 1
            while end < len(lines) and NO_HANDLE.match(lines[end]):
                end += 1
            above = _under_command(lines, i) or (i > 0 and FENCE.match(lines[i - 1]) is not None)
            below = end == len(lines) or not lines[end].strip() or bool(FENCE.match(lines[end]))
            text = "".join(x.strip() + "\n" for x in lines[i:end])
            yield Found("nvidia-smi", i, end, command_output_appended(TABLE_ARGV, text), whole=above and below)
            scan.skip(end)
            continue
        if _LONE_HEADER.match(lines[i]):
            # It proves the driver's version and the CUDA version it supports, and no GPU (facts/nvidia_smi.py).
            yield Found("nvidia-smi", i, i + 1, command_output_appended(TABLE_ARGV, lines[i].strip() + "\n"))
            continue
        if not _TABLE_LINE.match(lines[i]):
            continue
        end = i
        blanks = 0
        k = i
        while k < len(lines):
            if not lines[k].strip():
                blanks += 1
                if blanks > 1:
                    break
            elif FENCE.match(lines[k]) and any(_TABLE_LINE.match(x) for x in lines[k + 1:k + 3]):
                blanks = 0  # the process rows of an excerpt, in their own code block
            elif not _TABLE_LINE.match(lines[k]):
                break
            else:
                blanks = 0
                end = k + 1
            k += 1
        body = lines[i:end]
        if not any(_TABLE_SIGNS.search(b) for b in body) and any(
                _FRAGMENT_SIGNS.match(b) or process_row(b.strip()) for b in body):
            # Appended: the header line of the same output may stand alone elsewhere in the paste (corpus 247).
            text = "\n".join(b.strip() for b in body if not FENCE.match(b)) + "\n"
            yield Found("nvidia-smi", i, end, command_output_appended(TABLE_ARGV, text))
        elif any(_TABLE_SIGNS.search(b) for b in body):
            start = i - 1 if i > 0 and _TIMESTAMP.match(lines[i - 1]) else i
            text = "\n".join(b.strip() for b in lines[start:end] if not FENCE.match(b)) + "\n"
            # Whole: the header, then the Processes box closed by its border line.
            procs = next((n for n, b in enumerate(body) if re.search(r"\|\s*Processes:", b)), None)
            whole = (any(re.search(r"NVIDIA-SMI\s+\d", b) for b in body) and procs is not None
                     and body[-1].strip().startswith("+") and len(body) > procs + 2)
            rows = any(_ANY_GPU_ROW.match(b) for b in body)
            yield Found("nvidia-smi", start, end, command_output(TABLE_ARGV, text) if rows or whole
                        else partial(_unless_rows, argv=TABLE_ARGV, stdout=text), whole=whole)
        scan.skip(end)


def _unless_rows(record: HostRecord, argv: tuple[str, ...], stdout: str) -> None:
    """A table the paste cuts before its first GPU row shows no GPU: it does not replace an earlier table of the same
    driver that lists GPUs (the host's table, then a container's run cut at its header: corpus 1527); any other later
    table does, as the last run shown."""
    earlier = record.commands.get(argv)
    if earlier is not None and any(_ANY_GPU_ROW.match(line) for line in earlier.stdout.splitlines()):
        new, old = TABLE_HEADER.search(stdout), TABLE_HEADER.search(earlier.stdout)
        if new is None or old is None or new.group(2) == old.group(2):
            return
    record_command(record, argv, stdout)


@importer("nvidia-smi --version", "`nvidia-smi --version` (the nvidia-smi, NVML, driver and CUDA versions)",
          needles=("version",), per_line=True)
def nvsmi_version(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not NVSMI_VERSION_LINE.match(lines[i]):
            continue
        names: set[str] = set()
        end = i
        while end < len(lines) and (m := NVSMI_VERSION_LINE.match(lines[end])):
            names.add(m.group(1).upper())
            end += 1
        if "DRIVER" in names:
            # Whole: the four lines the command prints (nvidia-smi, NVML, driver, CUDA).
            text = "\n".join(b.strip() for b in lines[i:end]) + "\n"
            yield Found("nvidia-smi --version", i, end, command_output(NVSMI_VERSION.argv, text),
                        whole=names == {"NVIDIA-SMI", "NVML", "DRIVER", "CUDA"})
        scan.skip(end)


# --- `nvidia-smi -L` ---------------------------------------------------------------------------

# A MIG device under its GPU: `  MIG 3g.40gb     Device  0: (UUID: MIG-…)`, the UUID whole, redacted or cut.
MIG_LIST_LINE = re.compile(r"^\s+MIG\s+\S+\s+Device\s+\d+:\s*\((?:UUID:?[^)]*|\.\.\.|…)\)?\s*$")
# The command whose output follows, ending its line: `$ nvidia-smi -L`, `[setup] nvidia-smi -L:` (corpus 1104).
_LIST_COMMAND = re.compile(r"\bnvidia-smi\s+(?:-L|--list-gpus)\s*:?\s*$")


def list_gpu_line(line: str) -> re.Match[str] | None:
    """A GPU's line as `nvidia-smi -L` prints it (NVSMI_GPU_LINE with its UUID part, whole, redacted or cut), with a
    name; not several GPUs joined on one line (an issue form's one-line hardware field, corpus 563)."""
    m = NVSMI_GPU_LINE.match(line.strip())
    if m is None or not m["tag"] or not m["name"] or re.search(r"\(UUID|\bGPU \d+:", m["name"]):
        return None
    return m


def form_list_answer(lines: list[str], i: int) -> bool:
    """Whether line i is an issue form's GPU answer (evidence.FORM_GPU_LABELS, its heading one or two lines above) in
    `nvidia-smi -L`'s form without its UUID: `### Hardware: GPU`, then `GPU 0: NVIDIA GeForce RTX 3070 Ti` (corpus
    1970, NVIDIA/open-gpu-kernel-modules#507). The form asks for `nvidia-smi -L`'s line of the GPU, and users drop
    the UUID from it.

    >>> form_list_answer(["### Hardware: GPU", "", "GPU 0: NVIDIA GeForce RTX 3070 Ti"], 2)
    True
    >>> form_list_answer(["### Describe the bug", "", "GPU 0: NVIDIA GeForce RTX 3070 Ti"], 2)
    False
    """
    m = NVSMI_GPU_LINE.match(lines[i].strip())
    if m is None or m["tag"] or not re.search(r"[A-Za-z]", m["name"]) or re.search(r"\bGPU \d+:", m["name"]):
        return False
    if any(label in FORM_GPU_LABELS and at == i for label, _, at in (form_answer(lines, k) for k in (i - 1, i - 2)
                                                                     if k >= 0)):
        return True
    # llama.cpp's bug forms ask `Which CPUs/GPUs are you using?` under `### Hardware`: the GPU's line may follow the
    # CPU's in the one answer (`13th Gen Intel(R) Core(TM) i5-13400`, then `GPU 0: NVIDIA GeForce RTX 3070`, corpus 2760).
    return any(label in FORM_HARDWARE_LABELS and at < i and all(lines[x].strip() for x in range(at, i))
               for label, _, at in (form_answer(lines, k) for k in range(i - 2, max(i - 2 - _ANSWER_LINES, -1), -1)))


FORM_HARDWARE_LABELS = frozenset({"Hardware"})  # an issue form's field for the CPUs and GPUs together
_ANSWER_LINES = 3  # lines of such a field's answer above its GPU line


# `nvidia-smi -L`'s GPU lines run together on one line, whitespace between them: an issue form's field that lost its
# line breaks (corpus 1317, NVIDIA/open-gpu-kernel-modules#387), a shell's `$(nvidia-smi -L)` word-splitting them
# (`srun echo $(hostname -f) with $(nvidia-smi -L)`, a Slurm job's output), a report table's cell. Each GPU's part
# closes its UUID (the last may be cut); the listing starts at GPU 0 (after the echo's own words, if any). A comma
# between them is a list the user wrote (an issue form's `GPU 0: … (UUID: …), GPU 1: …`, corpus 563), not the output.
_RUN_TOGETHER_GPU = re.compile(r"GPU \d+:\s*[^()]*?\S\s*\((?:UUID:?\s*[^)]*|\.\.\.|…)(?:\)|$)")


def run_together_list(line: str) -> list[str]:
    """The GPU lines of an `nvidia-smi -L` that the paste ran together on `line` (two or more), else []."""
    start = line.find("GPU 0:")
    if start < 0:
        return []
    parts: list[str] = []
    indices: list[int] = []
    at = start
    rest = line.rstrip()
    while at < len(rest):
        m = _RUN_TOGETHER_GPU.match(rest, at)
        listed = list_gpu_line(m.group()) if m is not None else None
        if m is None or listed is None:
            return []
        parts.append(m.group().strip())
        indices.append(int(listed["index"]))
        at = m.end()
        gap = re.match(r"\s+(?=GPU \d+:)|\s*$", rest[at:])
        if gap is None:
            return []
        at += gap.end()
    return parts if len(parts) > 1 and indices == list(range(len(parts))) else []


def _beside(lines: list[str], i: int, step: int) -> str:
    """The first line from i on (step -1: back, 1: on) that is not blank, "" at the paste's edge."""
    while 0 <= i < len(lines):
        if lines[i].strip():
            return lines[i]
        i += step
    return ""


@importer("nvidia-smi -L", "`nvidia-smi -L` (a line per GPU, its UUID whole, redacted or cut; MIG devices under "
          "their GPU; the lines run together on one line)", needles=("GPU",), per_line=True)
def nvsmi_list(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if list_gpu_line(lines[i]) is None:
            if joined := run_together_list(lines[i]):
                # Not whole: the one line shows no command above it and may end where the copy stops.
                yield Found("nvidia-smi -L", i, i + 1, command_output_appended(NVSMI_LIST.argv, "\n".join(joined) + "\n"))
                scan.skip(i + 1)
            elif form_list_answer(lines, i):
                # Not whole: the user copied the one line the form asks for.
                yield Found("nvidia-smi -L", i, i + 1, command_output_appended(NVSMI_LIST.argv, lines[i].strip() + "\n"))
                scan.skip(i + 1)
            continue
        end = run_end(lines, i, lambda line: list_gpu_line(line) is not None or MIG_LIST_LINE.match(line))
        after = _beside(lines, end, 1)
        if NVL_LINK.match(after) or NVL_NOTE.match(after):
            # A GPU's header in `nvidia-smi nvlink -s`, its links under it: that importer's.
            scan.skip(end)
            continue
        body = [line.strip() for line in lines[i:end] if list_gpu_line(line) is not None]
        indices = [int(m["index"]) for m in map(list_gpu_line, body) if m is not None]
        # Whole: numbered from GPU 0 without a gap, under its command line, or ended by a line of another kind (a
        # code fence, the next output, the user's words: gpu_burn prints the listing, then its own lines, corpus 814);
        # a listing at the paste's end may be where the copy stops.
        named = _LIST_COMMAND.search(strip_prompt(_beside(lines, i - 1, -1))) is not None
        whole = indices == list(range(len(indices))) and (named or bool(after))
        text = "\n".join(line.rstrip() for line in lines[i:end]) + "\n"
        yield Found("nvidia-smi -L", i, end, command_output_appended(NVSMI_LIST.argv, text), whole=whole)
        scan.skip(end)


# nvidia-smi's answer to `-ac` / `-rac` on a GPU without application clocks (a GeForce card: NVML's
# SetApplicationsClocks is NotSupported): `Setting applications clocks is not supported for GPU 00000000:81:00.0.`
_APP_CLOCKS_REFUSED = re.compile(rf"^\W{{0,4}}(?:Setting|Resetting) applications clocks is not supported for GPU "
                                 rf"({BDF})\.?\s*$")
# The GPU index the command names (`nvidia-smi -i 2 -rac`), on its line a few lines above.
_SMI_INDEX = re.compile(r"\bnvidia-smi\b.{0,80}?\s-i\s*(\d{1,3})\b")
# A tool's listing of the GPUs it manages, by NVML index (nvidia-pstated: `0. NVIDIA GeForce RTX 3090 (GPU id = 2)`).
_GPU_ID_LINE = re.compile(r"^\W{0,4}\d{1,3}\. (NVIDIA [\w -]{2,60}?) \(GPU id = (\d{1,3})\)\s*$")


@importer("nvidia-smi app clocks refused", "nvidia-smi's `Setting applications clocks is not supported for GPU …` "
          "(`-ac`, `-rac`), with the GPU's name where a GPU listing of the paste gives its index",
          needles=("applications clocks is not supported", "GPU id = "))
def app_clocks_refused(lines: list[str]) -> Iterator[Found]:
    """Each refusal as an `nvidia-smi -q` section of its GPU with its application clocks N/A (facts/nvidia_smi.py reads
    them as unsupported), named where the command gives the index (`-i 2`) and a listing line of the paste names the
    GPU of that index; that line is taken too."""
    named = {m.group(2): (j, m.group(1)) for j, line in enumerate(lines) if (m := _GPU_ID_LINE.match(line))}
    for i, line in enumerate(lines):
        if not (m := _APP_CLOCKS_REFUSED.match(line)):
            continue
        index = next((x.group(1) for j in range(i - 1, max(-1, i - 4), -1) if (x := _SMI_INDEX.search(lines[j]))), None)
        listed = named.get(index) if index is not None else None
        text = (f"GPU {m.group(1)}\n" + (f"    Product Name                          : {listed[1]}\n" if listed else "")
                + "    Applications Clocks\n        Graphics                          : N/A\n"
                "        Memory                            : N/A\n    Default Applications Clocks\n"
                "        Graphics                          : N/A\n        Memory                            : N/A\n")
        yield Found("nvidia-smi app clocks refused", i, i + 1, command_output_appended(NVSMI_QUERY.argv, text))
        if listed:
            yield Found("nvidia-smi app clocks refused", listed[0], listed[0] + 1, lambda record: None)
