"""`nvidia-container-cli info` pasted: its device blocks, one a GPU (`Device Index:`, `Device Minor:`, `Model:`,
`Brand:`, `GPU UUID:`, `Bus Location:`, `Architecture:`), recorded under the pasted document NVC_INFO
(facts/sources.py), which facts/gpus.py reads. `-k -d /dev/tty` interleaves the library's debug lines
(`I0917 09:07:43.203478 2113 nvc.c:423] shutting down library context`); a block is read from its field lines.
Whole where the first block is `Device Index: 0` and the library's shutdown line follows the last: no device
before or after it. The library's `listing device /dev/nvidiaN (GPU-… at <bus>)` debug lines (facts/gpus.NVC_LISTING),
one a GPU the driver lists, are recorded under the same document: an excerpt of their own (a copy may cut them too).
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.gpus import NVC_FIELD, NVC_LISTING, NVC_SHUTDOWN
from stackaudit.facts.sources import NVC_INFO
from stackaudit.importers._scan import Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer


def _blocks_end(lines: list[str], start: int) -> int:
    """The end of the run of device blocks from `start`: field lines, and the blank lines between two blocks."""
    end = start
    while end < len(lines):
        end = run_end(lines, end, lambda line: NVC_FIELD.match(line.strip()) is not None)
        gap = run_end(lines, end, lambda line: not line.strip())
        if gap == end or gap >= len(lines) or NVC_FIELD.match(lines[gap].strip()) is None:
            return end
        end = gap
    return end


@importer("nvidia-container-cli info", "`nvidia-container-cli info` (its device blocks: Model, Brand, GPU UUID, Bus "
          "Location, Architecture)", needles=("Device Index:", "Device Minor:", "Model:", "listing device"),
          per_line=True)
def nvc_info(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if NVC_LISTING.search(lines[i]) is not None:
            end = run_end(lines, i, lambda line: NVC_LISTING.search(line) is not None)
            text = "\n".join(line.strip() for line in lines[i:end]) + "\n\n"
            yield Found("nvidia-container-cli info", i, end, document_appended(NVC_INFO.name, text))
            scan.skip(end)
            continue
        m = NVC_FIELD.match(lines[i].strip())
        if m is None or m["key"] not in ("Device Index", "Device Minor", "Model"):
            continue
        end = _blocks_end(lines, i)
        keys = [k["key"] for line in lines[i:end] if (k := NVC_FIELD.match(line.strip())) is not None]
        # Brand and Architecture (a compute capability) are the library's own fields: /proc/driver/nvidia's
        # `information` (a bug report's) prints Model, GPU UUID and Bus Location with neither.
        if "Brand" not in keys or "Architecture" not in keys or "Model" not in keys:
            scan.skip(end)
            continue
        first = NVC_FIELD.match(lines[i].strip())
        after = next((line for line in lines[end:end + 4] if line.strip()), "")
        whole = first is not None and first["key"] == "Device Index" and first["value"] == "0" \
            and NVC_SHUTDOWN.search(after) is not None
        text = "\n".join(line.strip() for line in lines[i:end]) + "\n\n"
        yield Found("nvidia-container-cli info", i, end, document_appended(NVC_INFO.name, text), whole=whole)
        scan.skip(end)
