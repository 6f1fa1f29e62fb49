"""Host basics pasted into bug reports: /proc/cmdline, uname -a, lscpu, numactl -H, lsmod, dmesg."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial

from stackaudit.facts._parse import ParseError, format_cpulist, parse_cpulist
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import take_while
from stackaudit.importers.registry import Found, command_output, file_content, importer, record_file

_CMDLINE = re.compile(r"(?:^|\s)(?:BOOT_IMAGE=\S+|root=(?:UUID=|/dev/|LABEL=|ZFS=|PARTUUID=)\S*)(?:\s|$)")


@importer("/proc/cmdline", "the kernel command line (`cat /proc/cmdline`)")
def proc_cmdline(lines: list[str]) -> Iterator[Found]:
    for i, line in enumerate(lines):
        text = line.strip().strip("`")
        if _CMDLINE.search(text) and "=" in text and not text.startswith(("#", "GRUB_CMDLINE")):
            yield Found("/proc/cmdline", i, i + 1, file_content("/proc/cmdline", text + "\n"))
            return


_UNAME = re.compile(r"^\s*Linux\s+\S+\s+\d+\.\d+\S*\s+#\d+.*\s(x86_64|aarch64|ppc64le|s390x)\b")


@importer("uname -a", "`uname -a`")
def uname(lines: list[str]) -> Iterator[Found]:
    for i, line in enumerate(lines):
        if _UNAME.search(line):
            text = line.strip()
            yield Found("uname -a", i, i + 1, command_output(("uname", "-a"), text + "\n"))
            return


_LSCPU_KEY = re.compile(
    r"^\s*(Architecture|CPU op-mode\(s\)|Address sizes|Byte Order|CPU\(s\)|On-line CPU\(s\) list|Vendor ID|"
    r"Model name|BIOS [\w ]+|CPU family|Model|Thread\(s\) per core|Core\(s\) per (socket|cluster)|Socket\(s\)|"
    r"Stepping|Frequency boost|CPU(\(s\))? (max|min) MHz|CPU MHz|BogoMIPS|Flags|Virtualization( type)?|"
    r"Hypervisor vendor|L\d\w? cache|NUMA node(\(s\)|\d+ CPU\(s\))|Vulnerability [\w ]+|Caches \(sum of all\)|"
    r"NUMA|Vulnerabilities|Off-line CPU\(s\) list|Book\(s\)|Drawer\(s\)|Cluster\(s\)|Dispatching mode|"
    r"Scaling MHz|Name|Model name:.*)\s*:?"
)


@importer("lscpu", "`lscpu`")
def lscpu(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        if re.match(r"^\s*Architecture:\s+\S", lines[i]):
            end = take_while(lines, i, _LSCPU_KEY)
            body = "\n".join(line.strip() if ":" in line else line for line in lines[i:end])
            if "CPU(s):" in body:
                yield Found("lscpu", i, end, command_output(("lscpu",), body + "\n"))
            i = max(end, i + 1)
        else:
            i += 1


_NUMACTL_LINE = re.compile(r"^\s*(available:|node\s+\d+\s+(cpus|size|free):|node distances:|node\s+(\d+\s*)+$|"
                           r"\s*\d+:\s+(\d+\s*)+$|No NUMA available)")


def _apply_numactl(rec: HostRecord, body: list[str]) -> None:
    """Synthesise /sys/devices/system/node from `numactl -H`."""
    nodes: dict[int, dict[str, str]] = {}
    order: list[int] = []
    distance_rows: dict[int, str] = {}
    header: list[int] = []
    in_distances = False
    for line in body:
        m = re.match(r"^\s*node\s+(\d+)\s+(cpus|size|free):\s*(.*)$", line)
        if m:
            node = int(m.group(1))
            nodes.setdefault(node, {})[m.group(2)] = m.group(3).strip()
            continue
        if line.strip().startswith("node distances"):
            in_distances = True
            continue
        if in_distances:
            h = re.match(r"^\s*node((?:\s+\d+)+)\s*$", line)
            if h:
                header = [int(x) for x in h.group(1).split()]
                continue
            r = re.match(r"^\s*(\d+):((?:\s+\d+)+)\s*$", line)
            if r:
                order.append(int(r.group(1)))
                distance_rows[int(r.group(1))] = " ".join(r.group(2).split())
    base = "/sys/devices/system/node"
    names = []
    for node, values in sorted(nodes.items()):
        names.append(f"node{node}")
        try:
            cpus = parse_cpulist(values.get("cpus", ""))
        except ParseError:
            cpus = ()
        record_file(rec, f"{base}/node{node}/cpulist", format_cpulist(cpus) + "\n")
        if node in distance_rows:
            record_file(rec, f"{base}/node{node}/distance", distance_rows[node] + "\n")
        size = re.match(r"(\d+)\s*MB", values.get("size", ""))
        if size:
            record_file(rec, f"{base}/node{node}/meminfo", f"Node {node} MemTotal:       {int(size.group(1)) * 1024} kB\n")
    if names:
        rec.dirs[base] = sorted(set(rec.dirs.get(base, [])) | set(names))
    _ = header


@importer("numactl -H", "`numactl -H` / `numactl --hardware`")
def numactl(lines: list[str]) -> Iterator[Found]:
    for i, line in enumerate(lines):
        if re.match(r"^\s*available:\s+\d+\s+nodes?\s+\(", line):
            end = take_while(lines, i, _NUMACTL_LINE)
            body = lines[i:end]
            yield Found("numactl -H", i, end, partial(_apply_numactl, body=body))
            return


_LSMOD_ROW = re.compile(r"^\s*[A-Za-z0-9_]+\s+\d+\s+(\d+|-)(\s+\S+)?\s*$")


@importer("lsmod", "`lsmod` or /proc/modules")
def lsmod(lines: list[str]) -> Iterator[Found]:
    i = 0
    while i < len(lines):
        header = re.match(r"^\s*Module\s+Size\s+Used by", lines[i])
        proc_style = re.match(r"^[a-z0-9_]+ \d+ \d+ \S+ (Live|Loading|Unloading) 0x", lines[i])
        if header or proc_style:
            start = i + 1 if header else i
            row = _LSMOD_ROW if header else re.compile(r"^[a-z0-9_]+ \d+ \d+ \S+ (Live|Loading|Unloading)")
            end = take_while(lines, start, row)
            if end > start:
                rows = []
                for line in lines[start:end]:
                    parts = line.split()
                    used_by = parts[3] if len(parts) > 3 and header else "-"
                    rows.append(f"{parts[0]} {parts[1]} {parts[2] if parts[2] != '-' else 0} {used_by}, Live 0x0")
                text = "\n".join(rows) + "\n"
                yield Found("lsmod", i, end, file_content("/proc/modules", text))
            i = max(end, i + 1)
        else:
            i += 1


_DMESG_LINE = re.compile(r"^\s*(\[\s*\d+\.\d+\]|\[\w{3}\s\w{3}\s+\d+ [\d:]+ \d{4}\]|<\d>\[|\w{3}\s+\d+ [\d:]+ \S+ kernel:|"
                         r"\d{4}-\d\d-\d\dT[\d:.,+-]+ \S+ kernel:)")


@importer("dmesg", "`dmesg` / `journalctl -k` lines")
def dmesg(lines: list[str]) -> Iterator[Found]:
    matched = [i for i, line in enumerate(lines) if _DMESG_LINE.match(line)]
    if not matched:
        return
    # Kernel log lines may be scattered between other outputs (grepped excerpts): one record of them all.
    body = "\n".join(lines[i].strip() for i in matched) + "\n"
    for n, i in enumerate(matched):
        apply = command_output(("dmesg",), body) if n == 0 else _record_nothing
        yield Found("dmesg", i, i + 1, apply)


def _record_nothing(rec: HostRecord) -> None:
    """The later lines of a scattered kernel log: the first span recorded them all."""
