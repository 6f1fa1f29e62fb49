"""Host basics pasted into bug reports: /proc/cmdline, uname -a, lscpu, /proc/cpuinfo, numactl -H, lsmod, dmesg."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.shown_commands import parse_grep
from stackaudit.facts.sources import (
    DMESG,
    LSCPU,
    LSMOD,
    NUMACTL_H,
    NUMASTAT,
    PROC_BBSWITCH,
    PROC_CMDLINE,
    PROC_CPUINFO,
    PROC_MODULES,
    UNAME,
)
from stackaudit.facts.system import (
    BBSWITCH_LINE,
    NUMASTAT_COLUMNS,
    cpuinfo_line,
    is_uname_line,
    kernel_log_is_whole,
)
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import Candidates, Scan, candidate_lines, strip_prompt, take_while
from stackaudit.importers.registry import Found, command_output, file_content, importer

_CMDLINE = re.compile(r"(?:^|\s)(?:BOOT_IMAGE=\S+|root=(?:UUID=|/dev/|LABEL=|ZFS=|PARTUUID=)\S*)(?:\s|$)")


@importer("/proc/cmdline", "the kernel command line (`cat /proc/cmdline`)", needles=("BOOT_IMAGE=", "root="),
          per_line=True)
def proc_cmdline(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        text = line.strip().strip("`")
        if _CMDLINE.search(text) and "=" in text and not text.startswith(("#", "GRUB_CMDLINE")):
            yield Found("/proc/cmdline", i, i + 1, file_content(PROC_CMDLINE.path, text + "\n"), whole=True)
            return


# `cat /proc/acpi/bbswitch` at a prompt or quoted in prose (`However \`cat /proc/acpi/bbswitch \` results in:`), then
# bbswitch's lines under it (`0000:01:00.0 ON`): a bare address and state is read only under the command that names
# the file.
_BBSWITCH_CAT = re.compile(r"(?:^|[`\s])(?:sudo\s+)?cat\s+/proc/acpi/bbswitch\b(?!\s*[|>])")


@importer("/proc/acpi/bbswitch", "bbswitch's state of the discrete GPU (`cat /proc/acpi/bbswitch`)",
          needles=("/proc/acpi/bbswitch",), per_line=True)
def proc_bbswitch(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        if not _BBSWITCH_CAT.search(strip_prompt(lines[i].strip().lstrip("`"))):
            continue
        end = take_while(lines, i + 1, BBSWITCH_LINE)
        if end > i + 1:
            text = "".join(line.strip().strip("`").strip() + "\n" for line in lines[i + 1:end])
            yield Found("/proc/acpi/bbswitch", i, end, file_content(PROC_BBSWITCH.path, text), whole=True)
            return


@importer("uname -a", "`uname -a`", needles=("Linux",), per_line=True)
def uname(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if is_uname_line(line):
            text = line.strip()
            yield Found("uname -a", i, i + 1, command_output(UNAME.argv, text + "\n"), whole=True)
            return


_LSCPU_KEY = re.compile(
    r"^\s*(Architecture|CPU op-mode\(s\)|Address sizes|Byte Order|CPU\(s\)|On-line CPU\(s\) list|Vendor ID|"
    r"Model name|BIOS [\w ]+|CPU family|Model|Thread\(s\) per core|Core\(s\) per (socket|cluster)|Socket\(s\)|"
    r"Stepping|Frequency boost|CPU(\(s\))? (max|min) MHz|CPU MHz|BogoMIPS|Flags|Virtualization( type)?|"
    r"Hypervisor vendor|L\d\w? cache|NUMA node(\(s\)|\d+ CPU\(s\))|Vulnerability [\w ]+|Caches \(sum of all\)|"
    r"NUMA|Vulnerabilities|Off-line CPU\(s\) list|Book\(s\)|Drawer\(s\)|Cluster\(s\)|Dispatching mode|"
    r"Scaling MHz|Name|Model name:.*)\s*:?"
    # util-linux >= 2.38 nests sections: "Vulnerabilities:" then "  Spectre v2:  Mitigation; ...".
    r"|^\s{2,}[A-Z][\w ()/.-]*:\s+\S"
)


# Keys only lscpu prints, for an excerpt that starts below its first line (`lscpu | grep -i numa`, a cut).
_LSCPU_OWN = re.compile(r"^\s*(Socket\(s\)|NUMA node\(s\)|NUMA node\d+ CPU\(s\)|Core\(s\) per socket|"
                        r"Thread\(s\) per core|On-line CPU\(s\) list|CPU family|BogoMIPS|L[123]\w? cache)\s*:\s*\S")


_HEADLESS_WORDS = ("(s)", "family", "BogoMIPS", "cache", "Model name", "Vendor")
_ARCHITECTURE = re.compile(r"^\s*Architecture:\s+\S")
# lscpu's model line right under its first line: a poster's excerpt of the CPU (`Architecture:` then `Model name:`,
# indented under `Vendor ID:` in util-linux >= 2.38's layout; corpus 2157, 2229) is lscpu's without its CPU count.
_MODEL_NAME = re.compile(r"^\s*Model name:\s+\S")
_HEADLESS_FIRST = re.compile(r"^\s*(CPU\(s\)|Model name|Vendor ID)\s*:\s*\S")
_NESTED = re.compile(r"^\s{2,}[A-Z][\w ()/.-]*:")


def _headless_lscpu(lines: list[str], i: int) -> bool:
    """lscpu lines from here without its `Architecture:` line: three or more, two of lscpu's own keys."""
    line = lines[i]
    if ":" not in line or not any(w in line for w in _HEADLESS_WORDS):
        return False  # cheap tests first: most lines of a long paste are not lscpu's
    if not _LSCPU_OWN.match(lines[i]) and not _HEADLESS_FIRST.match(lines[i]):
        return False
    if i > 0 and _LSCPU_KEY.match(lines[i - 1]) and lines[i - 1].strip():
        return False  # the middle of a block already looked at
    end = take_while(lines, i, _LSCPU_KEY)
    return end - i >= 3 and sum(1 for ln in lines[i:end] if _LSCPU_OWN.match(ln)) >= 2


# A bare `lscpu` shown as its command (`$ lscpu`, its prompt peeled): the lscpu key lines right under it are its output,
# whatever lines the user cut out of it with elision lines (`...`, corpus 2486: Model name and Flags alone; the paste
# view drops the elisions and marks the span an excerpt).
_LSCPU_COMMAND = re.compile(r"^\s*(?:[^\s$#]{0,60}[$#]\s*)?lscpu\s*$")


def _under_lscpu_command(lines: list[str], i: int) -> bool:
    """Whether line i is a key line of lscpu's (_LSCPU_KEY) right under a bare `lscpu` command line."""
    return i > 0 and bool(lines[i].strip()) and bool(_LSCPU_KEY.match(lines[i])) and bool(_LSCPU_COMMAND.match(lines[i - 1]))


# lscpu's hypervisor line on its own (SGLang's check_env copies it from lscpu, its only source): no other tool
# prints `Hypervisor vendor:`.
_HYPERVISOR_LINE = re.compile(r"^\s*Hypervisor vendor:\s+\S")


# lscpu's Flags line wrapped by a terminal at a fixed width (corpus 2477: 80 columns, words cut anywhere): lines of that
# width under it, blank up to its value column, then lower-case flags, the last one shorter.
_FLAGS_FIRST = re.compile(r"^\s*Flags:\s+\S")
_FLAGS_WRAPPED = re.compile(r"^ {8,}[a-z0-9_]{1,40}(?: [a-z0-9_]{1,40}){0,60} ?$")


def _unwrapped_flags(lines: list[str], end: int) -> tuple[str, int] | None:
    """The Flags line on line end-1 joined with its wrapped rest (each piece from its value column on, as the terminal
    cut it), and the index past the rest; None where the line is no Flags line or nothing wraps under it."""
    if end < 1 or end >= len(lines) or not (m := _FLAGS_FIRST.match(lines[end - 1])):
        return None
    width, col, text, k = len(lines[end - 1]), m.end() - 1, lines[end - 1], end
    while width >= 60 and k < len(lines) and len(lines[k]) <= width and _FLAGS_WRAPPED.match(lines[k]) \
            and not lines[k][:col].strip() and lines[k][col:col + 1].strip():
        text += lines[k][col:]
        k += 1
        if len(lines[k - 1]) < width:
            break
    return (text, k) if k > end else None


@importer("lscpu", "`lscpu`", needles=("Architecture:", "Hypervisor vendor:", *_HEADLESS_WORDS), per_line=True)
def lscpu(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if _HYPERVISOR_LINE.match(lines[i]) and not (i > 0 and _LSCPU_KEY.match(lines[i - 1]) and lines[i - 1].strip()) \
                and not (i + 1 < len(lines) and _LSCPU_KEY.match(lines[i + 1]) and lines[i + 1].strip()):
            yield Found("lscpu", i, i + 1, command_output(LSCPU.argv, lines[i].strip() + "\n"))
            continue
        if not _ARCHITECTURE.match(lines[i]) and not _headless_lscpu(lines, i) and _under_lscpu_command(lines, i):
            end = take_while(lines, i, lambda ln: ln.strip() and _LSCPU_KEY.match(ln))
            body = "".join(ln.strip() + "\n" for ln in lines[i:end])
            yield Found("lscpu", i - 1, end, command_output(LSCPU.argv, body))
            scan.skip(end)
            continue
        if _ARCHITECTURE.match(lines[i]) or _headless_lscpu(lines, i):
            end = take_while(lines, i, _LSCPU_KEY)
            span = lines[i:end]
            if (wrapped := _unwrapped_flags(lines, end)) is not None:
                span[-1], after = wrapped
                end = take_while(lines, after, _LSCPU_KEY)
                span += lines[after:end]
            body = "\n".join(line.strip() if ":" in line else line for line in span)
            if "CPU(s):" in body or (end - i >= 2 and _ARCHITECTURE.match(lines[i]) and _MODEL_NAME.match(lines[i + 1])):
                # Whole: from lscpu's first line (Architecture) to its last section (Flags in the old
                # layout, the Vulnerabilities block in the new one).
                # The nested layout (util-linux >= 2.37) lists Flags mid-way: only its Vulnerabilities end it.
                # The new layout also names the model above its family (`Model name:` before `CPU family:`), which
                # tells it where a cut falls before its nested sections (corpus 1788, cut inside its Flags line).
                keys = [ln.split(":", 1)[0].strip() for ln in span]
                nested = any(_NESTED.match(ln) for ln in span) or (
                    "Model name" in keys and "CPU family" in keys and keys.index("Model name") < keys.index("CPU family"))
                vulns = any(ln.strip().startswith(("Vulnerability", "Vulnerabilities:")) for ln in span)
                whole = vulns if nested else (vulns or span[-1].strip().startswith("Flags:"))
                whole = whole and bool(re.match(r"^\s*Architecture:", lines[i]))
                yield Found("lscpu", i, end, command_output(LSCPU.argv, body + "\n"), whole=whole)
            scan.skip(end)


# /proc/cpuinfo's x86 flags line: lower-case `flags` (lscpu prints `Flags:`), its first two flags fpu and vme
# (feature word 0, bits 0 and 1: arch/x86/include/asm/cpufeatures.h), as every x86-64 CPU shows them.
_CPUINFO_FLAGS = re.compile(r"^\s*flags\s*:\s*fpu\s+vme\b")


@importer("/proc/cpuinfo", "a processor's lines of `cat /proc/cpuinfo` (its x86 `flags` line)", needles=("flags",),
          per_line=True)
def proc_cpuinfo(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        if not _CPUINFO_FLAGS.match(lines[i]):
            continue
        start = i
        while start > 0 and cpuinfo_line(lines[start - 1]) is not None:
            start -= 1
        end = take_while(lines, i, cpuinfo_line)
        body = "\n".join(lines[start:end])
        yield Found("/proc/cpuinfo", start, end, file_content(PROC_CPUINFO.path, body + "\n"))
        return  # the first processor's block: the others repeat its CPU


_NUMACTL_LINE = re.compile(r"^\s*(available:|node\s+\d+\s+(cpus|size|free):|node distances:|node\s+(\d+\s*)+$|"
                           r"\s*\d+:\s+(\d+\s*)+$|No NUMA available)")


_NUMACTL_FIRST = re.compile(r"^\s*available:\s+\d+\s+nodes?\s+\(")


# The distance table of `numactl -H` pasted without the node lines above it (corpus 1239, a 4x GH200's 36 nodes):
# its `node   0   1 ...` column row (or `node distances:` over it), then node 0's row, 10 to itself first.
_DISTANCE_COLUMNS = re.compile(r"^\s*node\s+0(?:\s+\d+)+\s*$")
_DISTANCE_FIRST_ROW = re.compile(r"^\s*0:\s+10(?:\s+\d+)+\s*$")


def _distance_table_at(lines: list[str], i: int) -> bool:
    """Whether a cut `numactl -H`'s distance table starts on line i (`_DISTANCE_COLUMNS` over `_DISTANCE_FIRST_ROW`,
    `node distances:` above them or not)."""
    at = i + 1 if lines[i].strip() == "node distances:" else i
    return at + 1 < len(lines) and bool(_DISTANCE_COLUMNS.match(lines[at])) and bool(
        _DISTANCE_FIRST_ROW.match(lines[at + 1]))


@importer("numactl -H", "`numactl -H` / `numactl --hardware` (or its distance table alone)",
          needles=("available:", "node"), per_line=True)
def numactl(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if "available:" not in line and _distance_table_at(lines, i):
            end = take_while(lines, i, _NUMACTL_LINE)
            rows = [row.strip() for row in lines[i:end] if row.strip() != "node distances:"]
            body = "node distances:\n" + "\n".join(rows) + "\n"
            yield Found("numactl -H", i, end, command_output(NUMACTL_H.argv, body))
            return
        if _NUMACTL_FIRST.match(line):
            end = take_while(lines, i, _NUMACTL_LINE)
            body = "\n".join(line.strip() for line in lines[i:end]) + "\n"
            whole = "node distances:" in body
            yield Found("numactl -H", i, end, command_output(NUMACTL_H.argv, body), whole=whole)
            return


# numastat's rows under its column row: a dashed rule, then `Name  value  value ... total` (a category or a meminfo key).
_NUMASTAT_ROW = re.compile(r"^\s*(?:-{3,}[\s-]*|[A-Za-z_()]{1,32}(?:\s+-?\d+(?:\.\d+)?){2,257})\s*$")


@importer("numastat", "numastat's per-node table (`numastat -m`, `numastat -p PID`)", needles=("Total",),
          per_line=True)
def numastat(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        if NUMASTAT_COLUMNS.match(lines[i]):
            end = take_while(lines, i + 1, _NUMASTAT_ROW)
            body = "\n".join(line.strip() for line in lines[i:end]) + "\n"
            yield Found("numastat", i, end, command_output(NUMASTAT.argv, body))
            return


# A module row as `lsmod` prints it: name, size (bytes, at least 4 digits), use count, users.
_GREPPED_ROW = re.compile(r"^\s*[a-z][a-z0-9_]*\s+\d{4,}\s+\d+(\s+[\w,-]+)?\s*$")
_LSMOD_ROW = re.compile(r"^\s*[A-Za-z0-9_]+\s+\d+\s+(\d+|-)(\s+\S+)?\s*$")
_LSMOD_HEADER = re.compile(r"^\s*Module\s+Size\s+Used by")
_PROC_MODULES_ROW = re.compile(r"^[a-z0-9_]+ \d+ \d+ \S+ (Live|Loading|Unloading) 0x")
_PROC_MODULES_RUN = re.compile(r"^[a-z0-9_]+ \d+ \d+ \S+ (Live|Loading|Unloading)")
# What the header, a /proc/modules row and a grepped row each start with: one test for the lines that are none.
# No needle gate: a grepped row (`nvidia_uvm 1384448 4`) holds no literal at all.
_LSMOD_MAYBE = re.compile(r"^\s*(?:Module\s|[a-z0-9_]+\s+\d)")


def _under_lsmod_grep(lines: list[str], i: int) -> bool:
    """Whether the line above row i (blank lines skipped) is a shown grep of lsmod (`lsmod | grep peermem`)."""
    j = next((k for k in range(i - 1, max(i - 3, -1), -1) if lines[k].strip()), -1)
    grep = parse_grep(lines[j]) if j >= 0 else None
    return grep is not None and grep.source == "lsmod"


@importer("lsmod", "`lsmod` or /proc/modules")
def lsmod(lines: list[str]) -> Iterator[Found]:
    """`lsmod` (whole with its header line; a grep drops it) or /proc/modules lines, recorded verbatim."""
    for i in (scan := Scan(lines, None)):
        if not _LSMOD_MAYBE.match(lines[i]):
            continue
        header = _LSMOD_HEADER.match(lines[i])
        proc_style = _PROC_MODULES_ROW.match(lines[i])
        grepped = (not header and not proc_style and _GREPPED_ROW.match(lines[i])
                   and ((i + 1 < len(lines) and _GREPPED_ROW.match(lines[i + 1])) or _under_lsmod_grep(lines, i)))
        # `lsmod | grep nvidia`: two or more rows without the header line, or one under its shown command; an
        # excerpt, which proves its rows' modules loaded and no other module absent.
        if grepped:
            end = take_while(lines, i, _GREPPED_ROW)
            text = "\n".join(line.strip() for line in lines[i:end]) + "\n"
            yield Found("lsmod", i, end, command_output(LSMOD.argv, text))
            scan.skip(end)
            continue
        if header or proc_style:
            start = i + 1 if header else i
            row = _LSMOD_ROW if header else _PROC_MODULES_RUN
            end = take_while(lines, start, row)
            if end > start:
                text = "\n".join(line.strip() for line in lines[i:end]) + "\n"
                if header:
                    yield Found("lsmod", i, end, command_output(LSMOD.argv, text), whole=True)
                else:
                    yield Found("lsmod", i, end, file_content(PROC_MODULES.path, text))
            scan.skip(end)


_DMESG_LINE = re.compile(r"^\s*(\[\s*\d+\.\d+\]|\[\s*[+-]\d+\.\d+\]|\[\w{3}\s\w{3}\s+\d+ [\d:]+ \d{4}\]|<\d>\[|"
                         r"kernel: |\w{3}\s+\d+ [\d:]+ \S+ kernel:|\d{4}-\d\d-\d\dT[\d:.,+-]+ \S+ kernel:)")
# The mark a journal line keeps once its log prefix is off (`_paste.LOG_PREFIXES`): not part of the message.
_KERNEL_MARK = "kernel: "
# Kernel-log lines known by their payload, whatever the prefix (journalctl -k, kern.log, a node log, the
# driver's own continuation lines): the NVIDIA driver, AER, the IOMMUs, the boot banner. The open modules of
# R515-R525 print their function's name after `NVRM` with no colon (`NVRM kgspInitRm_IMPL: cannot bootstrap`, corpus
# 1850; `NVRM cpuidInfoAMD: Unrecognized AMD processor`, open-gpu-kernel-modules#120). `NVRM version: ` is
# /proc/driver/nvidia/version's line, not the kernel log's.
# The module loader's own lines too (kernel/module: `nvidia: loading out-of-tree module taints kernel.`, `nvidia_peermem:
# module license 'Linux-OpenIB' taints kernel.`, newer kernels' `nvidia: module license taints kernel.`, `nvidia: module
# verification failed: signature and/or required key missing - tainting kernel`, `nvidia: Unknown symbol ... (err -2)`,
# `nvidia: disagrees about version of symbol ...`), pasted bare (corpus 1561): the module's name, then words only the
# kernel prints, to the end of the line.
_KERNEL_PAYLOAD = re.compile(r"\bNVRM(?: (?!version:)[A-Za-z_]\w*)?: |\bAER: |PCIe Bus Error: |\bDMAR: |\bAMD-Vi: |^\s*(?:\S+\s+)?Linux version \d"
                             r"|^\s*[\w-]+: (?:loading out-of-tree module taints kernel\.|module license (?:'[^']*' )?taints kernel\."
                             r"|module verification failed: signature and/or required key missing - tainting kernel"
                             r"|Unknown symbol \S+ \(err -?\d+\)|disagrees about version of symbol \S+)\s*$")


_PAYLOAD_TOKENS = ("NVRM", "AER: ", "PCIe Bus Error: ", "DMAR: ", "AMD-Vi: ", "Linux version ", " taints kernel.",
                   "tainting kernel", ": Unknown symbol ", ": disagrees about version of symbol ")


def is_kernel_log_line(line: str) -> bool:
    if _DMESG_LINE.match(line):
        return True
    # Substring tests first: the payload regex only runs on the few lines that can match (a 50 MB paste).
    return any(t in line for t in _PAYLOAD_TOKENS) and bool(_KERNEL_PAYLOAD.search(line))


# `[` of every bracketed prefix, `kernel:` of the syslog ones, and the payload tokens.
# ("version" for "Linux version ": collect_env and nvidia-smi -q look for it too, one pass for the three.)
@importer("dmesg", "`dmesg` / `journalctl -k` lines",
          needles=("[", "kernel:", *(t for t in _PAYLOAD_TOKENS if t != "Linux version "), "version"), per_line=True)
def dmesg(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    matched = [i for i in candidate_lines(candidates, len(lines)) if is_kernel_log_line(lines[i])]
    if not matched:
        return
    own = set(matched)
    matched = _with_continuations(lines, matched)
    # Kernel log lines may be scattered between other outputs (grepped excerpts): one record of them all.
    # Whole only when the lines run from boot to the end without anything between them.
    body = "\n".join(line[len(_KERNEL_MARK):] if line.startswith(_KERNEL_MARK) else line
                     for line in (lines[i].strip() for i in matched)) + "\n"
    contiguous = matched[-1] - matched[0] + 1 == len(matched)
    whole = contiguous and kernel_log_is_whole([lines[i] for i in matched])
    # A line and the continuation lines of its message are one span (the continuation holds no kernel-log mark).
    spans: list[list[int]] = []
    for i in matched:
        if spans and i not in own and i == spans[-1][1]:
            spans[-1][1] = i + 1
        else:
            spans.append([i, i + 1])
    for n, (start, end) in enumerate(spans):
        apply = command_output(DMESG.argv, body) if n == 0 else _record_nothing
        yield Found("dmesg", start, end, apply, whole=whole)


# dmesg prints a message of several lines with its later lines indented under the first's text: `NVRM: The NVIDIA GPU
# 000a:00:00.0 (PCI ID: 10de:2330) installed in this system` / `      is not supported by the NVIDIA 580.126.09 driver
# release.` (corpus 930). Such a line, indented and going on in lower case, right after an NVRM line, is its message's.
_CONTINUATION = re.compile(r"^\s{4,}[a-z(]")


def _with_continuations(lines: list[str], matched: list[int]) -> list[int]:
    """The matched kernel-log lines with the continuation lines (_CONTINUATION, three at most) of their NVRM messages."""
    taken = set(matched)
    for i in matched:
        if "NVRM: " not in lines[i]:
            continue
        j = i + 1
        while j < len(lines) and j - i <= 3 and j not in taken and _CONTINUATION.match(lines[j]):
            taken.add(j)
            j += 1
    return sorted(taken)


def _record_nothing(rec: HostRecord) -> None:
    """The later lines of a scattered kernel log: the first span recorded them all."""
