"""nvtop's screen text pasted into a report: each device's header line and the meters under it.

nvtop (Syllo/nvtop) prints per GPU `Device 0 [NVIDIA RTX A6000] PCIe GEN 3@16x RX: 118.7 MiB/s TX: 8.936 MiB/s`, then
its clocks (`GPU 1590MHz MEM 8001MHz TEMP 68°C FAN 97% POW 298 / 300 W`) and its meters (`GPU[||||100%]`, older
releases `GPU-Util[|||| 66%]`). The header's link is the current one (nvtop reads NVML's current generation and width;
the maintainer, Syllo/nvtop#6: an idle GPU drops its generation to save power). Each device is recorded as a section
of `nvidia-smi -q` text with the fields it shows (product name, current link, GPU utilisation), as the rig report
records its bullets (importers/rig_report.py), in the monitor's own source (facts/sources.py GPU_MONITOR), which the
nvidia fact reads after nvidia-smi's outputs (a table pasted beside it shows more of each GPU); never whole: the screen shows the devices it was set to, with no count.

gpustat (wookayin/gpustat), the other monitor people paste, prints one row per GPU: its index, product name (NVML's),
temperature, utilisation, memory used and total in MiB, and the processes (`[0] TITAN Xp         | 55'C, 100 % |   865
/ 12196 MB | thangvu(855M)`, corpus 1700; `°C` since 1.0). Each row is recorded the same way, with its product name
and its utilisation where the row shows it alone (no fan or power column beside it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.sources import GPU_MONITOR
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.registry import Found, document_appended, importer

# A device's header; the user's markdown emphasis around the link kept as posted (`_**PCIe GEN 1@16x**_`, corpus
# 1176); the RX/TX rates cut or left out.
DEVICE = re.compile(r"^\s*Device (\d+) \[([^\]]+)\]\s+[_*]*PCIe GEN (\d)@\s*(\d+)x[_*]*(?:\s+RX:.*)?\s*$")
# The utilisation meter of the lines under a header: `GPU[|||   66%]`, `GPU-Util[|||   66%]`.
_UTIL = re.compile(r"\bGPU(?:-Util)?\[[|\s]*(\d+)%\]")
_UNDER = 3  # the clocks line, the meters line, a blank line
# gpustat's row: index, name, temperature, then the columns up to the memory (utilisation, with `-F` the fan's speed
# and with `-P` the power), memory used / total in MiB.
GPUSTAT_ROW = re.compile(r"^\s*\[(\d{1,2})\]\s+([^|\[\]]+?)\s*\|\s*\d{1,3}\s*(?:'|°)C,([^|]*)\|\s*\d+\s*/\s*\d+\s*MB\s*(?:\||$)")
# The utilisation column alone: `100 %`, with `-P` the power after it (`100 %, 250 / 250 W`).
_GPUSTAT_UTIL = re.compile(r"^\s*(\d{1,3})\s*%\s*(?:,\s*\d+\s*/\s*\d+\s*W\s*)?$")


def _section(m: re.Match[str], util: str | None) -> str:
    lines = ["GPU ", f"    Product Name                          : {m.group(2).strip()}"]
    if m.re is DEVICE:
        lines += ["    PCI", "        GPU Link Info", "            PCIe Generation",
                  f"                Current                   : {m.group(3)}", "            Link Width",
                  f"                Current                   : {m.group(4)}x"]
    if util is not None:
        lines += ["    Utilization", f"        Gpu                               : {util} %"]
    return "\n".join(lines) + "\n"


@importer("nvtop", "nvtop's screen text: each device's header (name, current PCIe link) and its utilisation meter; "
          "gpustat's rows (name, utilisation)",
          needles=("PCIe GEN", "C, "), per_line=True)
def nvtop(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if len(lines[i]) > 1000:
            continue
        if (row := GPUSTAT_ROW.match(lines[i])) is not None:
            alone = _GPUSTAT_UTIL.match(row.group(3))
            yield Found("nvtop", i, i + 1, document_appended(GPU_MONITOR.name, _section(
                row, alone.group(1) if alone else None)))
            continue
        if (m := DEVICE.match(lines[i])) is None:
            continue
        end = i + 1
        util = None
        for j in range(i + 1, min(i + 1 + _UNDER, len(lines))):
            if DEVICE.match(lines[j]):
                break
            if u := _UTIL.search(lines[j]):
                util, end = u.group(1), j + 1
            elif re.match(r"^\s*GPU \d+MHz\b", lines[j]):
                end = j + 1
        yield Found("nvtop", i, end, document_appended(GPU_MONITOR.name, _section(m, util)))
        scan.skip(end)
