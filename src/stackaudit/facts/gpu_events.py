"""GPU error events: Xid lines, GPUs that fell off the bus, GPUs NVML reports lost — one list.

Sources, joined (`union`): the kernel log (the driver's `NVRM:` lines; whole only from boot with
no gap, so that "no Xid" is proven only by a whole log), then NVML / nvidia-smi (a GPU whose
handle answers `gpu-is-lost`). The driver writes a lost GPU in several forms, and not always with
an Xid number, so each form is an event:

- `NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.` (Xid 79; also
  `Xid (PCI:0000:3b:00.0)` on newer drivers);
- `NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.` / `NVRM: GPU at PCI:0000:3b:00: ... has
  fallen off the bus` (no Xid number);
- `NVRM: The NVIDIA GPU 0000:b3:00.0` / `NVRM: (PCI ID: 10de:26b5) installed in this system has`
  / `NVRM: fallen off the bus and is not responding to commands.` (split over three lines).

Xid catalogue: https://docs.nvidia.com/deploy/xid-errors/
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts.nvidia import DRIVER_LOADED, NvidiaGpus, normalize_bdf
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, provider, union
from stackaudit.facts.system import KernelLog

XID = "xid"
FELL_OFF_BUS = "fallen-off-bus"
LOST = "lost"


@dataclass(frozen=True)
class GpuEvent:
    kind: str  # xid | fallen-off-bus | lost
    bdf: str  # as far as the source gives it (function 0 assumed where the log drops it)
    code: int | None = None  # the Xid number (kind "xid")
    detail: str = ""
    line: str = ""


@dataclass(frozen=True)
class GpuEvents(Sourced):
    events: tuple[GpuEvent, ...]
    lines_read: int = 0  # kernel-log lines the events were looked for in (0: no kernel log)

    @property
    def xids(self) -> tuple[GpuEvent, ...]:
        return tuple(e for e in self.events if e.kind == XID)

    def lost(self) -> tuple[GpuEvent, ...]:
        """The events of GPUs that fell off the bus or are lost, by any form of the message (Xid 79 too)."""
        return tuple(e for e in self.events if e.kind in (FELL_OFF_BUS, LOST) or (e.kind == XID and e.code == 79))

    @classmethod
    def union(cls, parts: Sequence[GpuEvents]) -> GpuEvents:
        events: list[GpuEvent] = []
        for part in parts:
            events.extend(e for e in part.events if e not in events)
        return cls(tuple(events), max(p.lines_read for p in parts), complete=all(p.complete for p in parts))


fact("gpu_events", GpuEvents, union, hint="paste `sudo dmesg` (the whole log, from boot)")

_XID_LINE = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\):\s*(\d+),?\s*(.*)$")
_GPU_BDF = re.compile(r"NVRM: (?:The NVIDIA )?GPU (?:at )?(?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}"
                      r"(?:\.[0-7])?|[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])")
_FELL_OFF = re.compile(r"fallen off the bus", re.IGNORECASE)


def _bdf(addr: str) -> str:
    addr = addr.rstrip(":").lower()
    if addr.count(":") == 1:
        addr = "0000:" + addr
    return normalize_bdf(addr if "." in addr else addr + ".0") or addr


def parse_gpu_events(lines: Sequence[str]) -> tuple[GpuEvent, ...]:
    """The GPU error events in kernel-log lines (any prefix: dmesg, journalctl -k, kern.log)."""
    events: list[GpuEvent] = []
    xid79: set[str] = set()
    for i, line in enumerate(lines):
        if "NVRM" not in line:  # every form of the message is the driver's (cheap test first: long logs)
            continue
        m = _XID_LINE.search(line)
        if m:
            event = GpuEvent(XID, _bdf(m.group(1)), int(m.group(2)), m.group(3).strip(), line.strip())
            events.append(event)
            if event.code == 79:
                xid79.add(event.bdf)
            continue
        if not _FELL_OFF.search(line):
            continue
        bdf = ""
        for back in range(0, 4):  # the three-line form names the GPU two lines above
            if i - back < 0:
                break
            g = _GPU_BDF.search(lines[i - back])
            if g:
                bdf = _bdf(g.group(1))
                break
        events.append(GpuEvent(FELL_OFF_BUS, bdf, None, "GPU has fallen off the bus", line.strip()))
    # An Xid 79 already says the GPU fell off the bus: its companion messages are not a second event.
    return tuple(e for e in events if not (e.kind == FELL_OFF_BUS and (e.bdf in xid79 or (not e.bdf and xid79))))




@provider("gpu_events", GpuEvents, rank=10, title="the kernel log (`dmesg`)")
def gpu_events_from_kernel_log(ctx: FactContext) -> GpuEvents:
    """Xid and fallen-off-the-bus lines of the kernel log (`dmesg`).

    "No event" needs a whole log that reaches the driver's load: a `dmesg | head` starts at boot too,
    but ends before the driver could have logged anything.
    """
    log = ctx.fact("kernel_log", KernelLog)
    # The driver's banner when its module loads (`NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06`).
    reaches_driver = any(DRIVER_LOADED in line for line in log.lines)
    return GpuEvents(parse_gpu_events(log.lines), len(log.lines), complete=log.complete and reaches_driver)


@provider("gpu_events", GpuEvents, rank=20, title="NVML / nvidia-smi")
def gpu_events_from_nvidia(ctx: FactContext) -> GpuEvents:
    """GPUs NVML or nvidia-smi reports lost (`gpu-is-lost`)."""
    nvidia = ctx.fact("nvidia", NvidiaGpus)
    lost = tuple(GpuEvent(LOST, g.bdf or g.subject, None, f"{g.label}: {g.error}", "")
                 for g in nvidia.gpus if g.error == "gpu-is-lost")
    if not nvidia.gpus:
        raise FactUnavailable("no GPU in the NVIDIA source")
    return GpuEvents(lost)
