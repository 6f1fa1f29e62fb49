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

- `NVRM: The NVIDIA probe routine failed for 1 device(s).` (the driver could not bring a GPU up;
  its BDF from a `NVRM: GPU 0000:01:00.0: RmInitAdapter failed!` line before it, where there is one).

Apart from the events: a GPU the loaded driver release refused at probe (`NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID:
10de:2330)` / `installed in this system is not supported by the` / `NVIDIA 550.90.07 driver release.`, split over lines,
`RefusedGpu`): the driver never bound it, which says what the release made of the GPU, and nothing of its flavour
(the open module's own refusal says `not supported by open nvidia.ko`, facts/symptoms.py). That refusal, for want of a
GSP, is kept apart (`refused_open`): the module's own words that it found no GSP on the GPU its PCI device id names.

Each Xid has a class (`xid_class`), from NVIDIA's Xid catalogue and its resolution buckets:
lost (79 fell off the bus, 119/120 GSP timeout/error: the GPU does not answer until reset or
reboot), degraded (48 double-bit ECC, 64 row-remap failure, 95 uncontained ECC, 74 and
144-150 NVLink errors: the hardware is there but faulty), contained (63 row remap recorded, 94
contained ECC: one context was killed, the GPU serves on and a reset at a quiet time activates
the repair) and application (13 graphics engine exception, 31 GPU memory page fault, 43 GPU
stopped processing: nearly always the program). Xid 154 is the driver saying what recovery the
GPU needs now (`GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)`), the
same value NVML reports as NVML_FI_DEV_GET_GPU_RECOVERY_ACTION.

The kernel's rate limit folds repeats into `<name>: N callbacks suppressed`: such a line right
after an Xid adds N to that Xid's count (the repeats happened, they were not printed).

Xid catalogue: https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from stackaudit.facts.nvidia import DRIVER_LOADED, NvidiaGpus
from stackaudit.facts.pcie import PcieFacts
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, parser, provider, union
from stackaudit.facts.shown_commands import EmptyGreps, ListingGreps
from stackaudit.facts.sources import EMPTY_GREPS, EVIDENCE_LINES, LISTING_GREPS
from stackaudit.facts.system import KernelLog
from stackaudit.pci_address import BDF, BDF_OPTIONAL_DOMAIN, normalize_bdf

XID = "xid"
FELL_OFF_BUS = "fallen-off-bus"
PROBE_FAILED = "probe-failed"
LOST = "lost"
# A GPU nvidia-smi cannot open whose PCI function answers config reads with all ones (lspci's `(rev ff)`).
OFF_BUS_READ = "off-bus-read"

# Xid classes (module docstring); every other code is "other" (see the catalogue).
HW_LOST = "lost"
HW_DEGRADED = "degraded"
HW_CONTAINED = "contained"
APPLICATION = "application"
OTHER = "other"
_XID_CLASSES = {79: HW_LOST, 119: HW_LOST, 120: HW_LOST,
                48: HW_DEGRADED, 64: HW_DEGRADED, 95: HW_DEGRADED, 74: HW_DEGRADED,
                **{code: HW_DEGRADED for code in range(144, 151)},
                63: HW_CONTAINED, 94: HW_CONTAINED,
                13: APPLICATION, 31: APPLICATION, 43: APPLICATION}
NVLINK_XIDS = frozenset({74, *range(144, 151)})
RECOVERY_XID = 154
# NVIDIA's Xid catalogue for Xid 31: "Repeat MMU faults to same GPU (via PCI-ID): RUN_DCGMEUD (possible HW issue)";
# "Solo, no burst: CHECK_APP/CUDA". A program that faults and is restarted once leaves two pids (corpus 343);
# three different processes faulting on one GPU is the repeat the catalogue sends to the GPU's diagnostics.
RECURRING_PROCESSES = 3
_PID = re.compile(r"\bpid=(\d+)")
# The channel an Xid names (`channel 0x00000022` or `Ch 00000030`, as driver versions print it): a process's work
# queue on the GPU.
# A desktop's programs as an Xid names them (`name=`, the task's command cut to 15 characters): a display server or
# compositor, a browser's GPU process, a game launcher. Their work on a GPU shows it drives a desktop.
_DESKTOP_NAME = re.compile(r"\bname=(?P<name>Xorg|Xwayland|gnome-shell|kwin_x11|kwin_wayland|plasmashell|sway|"
                           r"chrome|chromium[\w-]*|firefox[\w-]*|GeckoMain|steam[\w]*)(?=,|\s|$)")
_CHANNEL = re.compile(r"\b(?:channel 0x|Ch )[0-9a-fA-F]{8}\b")
# An AER line that says the link's error was not corrected: an uncorrectable severity, or the kernel's failed recovery
# (`AER: can't recover (no error_detected callback)`, `AER: device recovery failed`).
_LINK_FAILED = re.compile(r"can't recover|recovery failed", re.IGNORECASE)


class AerLineLike(Protocol):
    """An AER line of facts/pcie_errors.py (which reads this module's events: it is not imported here)."""

    @property
    def severity(self) -> str: ...

    @property
    def line(self) -> str: ...


def xid_class(code: int | None) -> str:
    """lost / degraded / contained / application / other (the module docstring says which is which)."""
    return _XID_CLASSES.get(code or 0, OTHER)


@dataclass(frozen=True)
class GpuEvent:
    kind: str  # xid | fallen-off-bus | probe-failed | lost | off-bus-read
    bdf: str  # as far as the source gives it (function 0 assumed where the log drops it)
    code: int | None = None  # the Xid number (kind "xid")
    detail: str = ""
    line: str = ""
    # How many times it happened: 1, plus the repeats the kernel's rate limit folded into "N callbacks
    # suppressed" right after it.
    count: int = 1

    @property
    def hw_class(self) -> str:
        """The Xid class; a GPU that fell off the bus, failed its probe, is lost to NVML or reads all-ones on the bus
        is `lost`."""
        return xid_class(self.code) if self.kind == XID else HW_LOST


@dataclass(frozen=True)
class RefusedGpu:
    """A GPU the loaded driver release refused at probe: its address, NVIDIA PCI device id, the release, the words."""

    bdf: str
    device_id: str  # `2330` of `10de:2330`
    release: str  # `550.90.07`
    line: str


@dataclass(frozen=True)
class LegacyGpu:
    """A GPU the loaded driver release ignores as one its legacy branch supports: the model as the driver names it,
    that branch and the release that ignores it where the lines show them ("" where cut before), the words."""

    model: str  # `Tesla K80`
    branch: str  # `470.xx`
    release: str  # `510.47.03`
    line: str


@dataclass(frozen=True)
class GpuEvents(Sourced):
    events: tuple[GpuEvent, ...]
    lines_read: int = 0  # kernel-log lines the events were looked for in (0: no kernel log)
    # Shown greps of the kernel log with no output that rule out an Xid line (`dmesg | grep -i xid`).
    no_xid_shown_by: tuple[str, ...] = ()
    # Shown greps of this boot's kernel log whose pattern matches an Xid line, with all they printed under them
    # (`dmesg | grep NVRM`, the bug report's `journalctl -b -0` scan): an Xid would be among those lines.
    no_xid_listed_by: tuple[str, ...] = ()
    refused: tuple[RefusedGpu, ...] = ()  # GPUs the driver release refused at probe (module docstring)
    # GPUs the open nvidia.ko refused at probe for want of a GSP (`release` ""): the module's words that the GPU has none
    refused_open: tuple[RefusedGpu, ...] = ()
    # GPUs the driver release ignores as legacy GPUs (`NVRM: The NVIDIA Tesla K80 GPU installed in this system is` /
    # `supported through the NVIDIA 470.xx Legacy drivers`): the release dropped their generation (_LEGACY).
    legacy: tuple[LegacyGpu, ...] = ()
    # The kernel's hung-task reports in the same log (`INFO: task cache_mgr_event:620917 blocked for more than 120
    # seconds.`, `task:… state:D`): a task stuck in uninterruptible sleep, which no signal ends (HUNG_TASK).
    hung_tasks: tuple[str, ...] = ()
    # The GPUs the driver failed to initialise (`NVRM: GPU 0000:03:00.0: RmInitAdapter failed!`), by BDF (_INIT_FAILED).
    init_failed: tuple[str, ...] = ()

    @property
    def xids(self) -> tuple[GpuEvent, ...]:
        return tuple(e for e in self.events if e.kind == XID)

    def recurring_app_faults(self) -> dict[str, tuple[str, ...]]:
        """Per GPU, the pids of the application Xids (13/31/43) when RECURRING_PROCESSES or more different
        processes raised them: the fault follows the GPU, not one program."""
        pids: dict[str, dict[str, None]] = {}
        for e in self.xids:
            m = _PID.search(e.detail) if xid_class(e.code) == APPLICATION else None
            if m:
                pids.setdefault(e.bdf, {})[m.group(1)] = None
        return {bdf: tuple(p) for bdf, p in pids.items() if len(p) >= RECURRING_PROCESSES}

    def app_faults_on_failed_links(self, aer: Sequence[AerLineLike]) -> dict[str, tuple[str, ...]]:
        """Per GPU with an application Xid (13/31/43), the AER lines of the same log that name its PCIe device (any
        of its functions: the GPU and its audio function share the link) with an uncorrectable error or a failed
        recovery: the fault came from the link (hardware), not the program (corpus 437: CmpltTO and MalfTLP, then
        "AER: can't recover", then Xid 31)."""
        out: dict[str, tuple[str, ...]] = {}
        for bdf in dict.fromkeys(e.bdf for e in self.xids if e.bdf and xid_class(e.code) == APPLICATION):
            device = bdf.rpartition(".")[0] + "."  # 0000:63:00.
            lines = tuple(a.line for a in aer if device in a.line.lower()
                          and (a.severity in ("nonfatal", "fatal") or _LINK_FAILED.search(a.line)))
            if lines:
                out[bdf] = lines
        return out

    def work_run(self) -> dict[str, GpuEvent]:
        """Per GPU, its first Xid that names a process or its channel (`pid=5045, name=forzahorizon6.e, channel
        0x00000022`; `Ch 00000030`): the driver had initialised the GPU and ran that process's work on it. An Xid
        that names neither (`pid='<unknown>', name=<unknown>, GPU has fallen off the bus.`) shows no work run."""
        run: dict[str, GpuEvent] = {}
        for e in self.xids:
            if e.bdf and (_PID.search(e.detail) or _CHANNEL.search(e.detail)):
                run.setdefault(e.bdf, e)
        return run

    def desktop_run(self) -> dict[str, tuple[str, GpuEvent]]:
        """Per GPU, the first Xid that names a desktop's program (`pid=169800, name=chrome, Ch 00000023`, corpus 560)
        with that program's name: the GPU ran a desktop's work."""
        run: dict[str, tuple[str, GpuEvent]] = {}
        for e in self.xids:
            if e.bdf and (m := _DESKTOP_NAME.search(e.detail)) is not None:
                run.setdefault(e.bdf, (m["name"], e))
        return run

    def lost(self) -> tuple[GpuEvent, ...]:
        """The events of GPUs that fell off the bus or are lost, by any form of the message (Xid 79 too)."""
        return tuple(e for e in self.events
                     if e.kind in (FELL_OFF_BUS, LOST, PROBE_FAILED, OFF_BUS_READ) or (e.kind == XID and e.code == 79))

    def recovery_actions(self) -> dict[str, str]:
        """The latest recovery action Xid 154 announced per GPU (`GPU Reset Required`, `Node Reboot
        Required`...); a GPU back at `None` is left out."""
        actions: dict[str, str] = {}
        for e in self.xids:
            if e.code != RECOVERY_XID:
                continue
            m = _RECOVERY_TO.search(e.detail) or _RECOVERY_NAMED.search(e.detail)
            if m:
                actions[e.bdf] = m.group(1).strip()
        return {b: a for b, a in actions.items() if a.lower() != "none"}

    @classmethod
    def union(cls, parts: Sequence[GpuEvents]) -> GpuEvents:
        events: list[GpuEvent] = []
        for part in parts:
            events.extend(e for e in part.events if e not in events)
        return cls(tuple(events), max(p.lines_read for p in parts),
                   tuple(dict.fromkeys(c for p in parts for c in p.no_xid_shown_by)),
                   tuple(dict.fromkeys(c for p in parts for c in p.no_xid_listed_by)),
                   tuple(dict.fromkeys(r for p in parts for r in p.refused)),
                   tuple(dict.fromkeys(r for p in parts for r in p.refused_open)),
                   legacy=tuple(dict.fromkeys(g for p in parts for g in p.legacy)),
                   hung_tasks=tuple(dict.fromkeys(t for p in parts for t in p.hung_tasks)),
                   init_failed=tuple(dict.fromkeys(b for p in parts for b in p.init_failed)),
                   complete=all(p.complete for p in parts))


fact("gpu_events", GpuEvents, union, hint="paste `sudo dmesg` (the whole log, from boot)")

_XID_LINE = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\):\s*(\d+),?\s*(.*)$")
# The kernel writes `0000:01:00` (no function) in some messages: `.0` is added before normalize_bdf.
_GPU_BDF = re.compile(rf"NVRM: (?:The NVIDIA )?GPU (?:at )?(?:PCI:)?({BDF_OPTIONAL_DOMAIN}|[0-9a-fA-F]{{4,8}}:[0-9a-fA-F]{{2}}"
                      r":[0-9a-fA-F]{2})")
_FELL_OFF = re.compile(r"fallen off the bus", re.IGNORECASE)
_PROBE_FAILED = re.compile(r"NVRM: The NVIDIA probe routine failed for (\d+) device")
_INIT_FAILED = re.compile(rf"NVRM: GPU ({BDF}): RmInitAdapter failed")
# `... to 0x1 (GPU Reset Required)`: the action's name in the last parentheses.
_RECOVERY_TO = re.compile(r"recovery action changed from .*? to \S+ \(([^)]*)\)", re.IGNORECASE)
_SUPPRESSED = re.compile(r":\s+(\d+) callbacks suppressed")
# The recovery actions Xid 154 names (`... to 0x1 (GPU Reset Required)`, `0x2 (Node Reboot Required)`, `0x3 (Drain P2P)`,
# `0x4 (Drain and Reset)`), as the user quotes one beside the number (`Xid 154 (`GPU Reset Required`)`, corpus 2847;
# `Xid 154 (GPU recovery action → Drain and Reset)`, 2848).
_RECOVERY_NAMED = re.compile(r"\b(GPU Reset Required|Node Reboot Required|Drain P2P|Drain and Reset)\b", re.IGNORECASE)


_NVRM_GPU_LINE = re.compile(rf"NVRM: GPU ({BDF}): ")
# The kernel's hung-task detector (kernel/hung_task.c): `INFO: task NAME:PID blocked for more than N seconds.`, then
# `task:NAME state:D stack: …` (sched_show_task); it reports tasks in uninterruptible sleep only (corpus 1411).
HUNG_TASK = re.compile(r"\btask [^\s:]+(?::\d+)? blocked for more than \d+ seconds|\btask:\S+\s+state:D\b")


def hung_task_lines(lines: Sequence[str]) -> tuple[str, ...]:
    """The kernel log's lines that report a task hung in uninterruptible sleep (HUNG_TASK), stripped, in order."""
    return tuple(line.strip() for line in lines if ("blocked for more" in line or "state:D" in line)
                 and HUNG_TASK.search(line))


# The driver naming a GPU it probed, by BDF or, in R555 and later, by its probe index (`NVRM: GPU0
# RmInitAdapter: Cannot initialize GSP firmware RM`, corpus 2465): the kernel module is loaded and at work on it.
_NVRM_GPU_NAMED = re.compile(rf"NVRM: GPU ?(?:\d{{1,3}}|{BDF}):? ")


def module_at_work(lines: Sequence[str]) -> str:
    """The first kernel-log line where the NVIDIA module names a GPU it probed (_NVRM_GPU_NAMED), stripped; "" where
    none does."""
    return next((line.strip() for line in lines if "NVRM" in line and _NVRM_GPU_NAMED.search(line)), "")


def nvrm_gpu_bdfs(lines: Sequence[str]) -> tuple[str, ...]:
    """The GPUs the driver's `NVRM: GPU 0000:13:00.0: ...` lines name (RmInitAdapter's failure, rm_init_adapter's),
    by BDF, in order; each is an NVIDIA GPU the driver probed."""
    return tuple(dict.fromkeys(normalize_bdf(m.group(1)) or m.group(1).lower()
                               for line in lines if "NVRM" in line and (m := _NVRM_GPU_LINE.search(line))))


# The driver release refusing a GPU at probe, its lines joined without their prefixes (nv.c's
# `NVRM: The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x) installed in this system is not supported by the
# NVIDIA %s driver release.`; the open module's refusal of a GPU without GSP says `by open nvidia.ko` instead).
_REFUSED = re.compile(r"The NVIDIA GPU (\S+) \(PCI ID: 10de:([0-9a-fA-F]{4})\)\s+installed in this system\s+is not "
                      r"supported by the\s+NVIDIA (\d+\.\d+(?:\.\d+)?) driver release", re.IGNORECASE)
_NVRM_PREFIX = re.compile(r"^.*?NVRM:\s*")
# The open module's refusal of a GPU without GSP (nv.c: `NVRM: The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x)
# installed in this system is not supported by open nvidia.ko because it does not include the required GPU System
# Processor (GSP).`), its lines joined as _REFUSED's are (corpus 624, 1367).
_REFUSED_OPEN = re.compile(r"The NVIDIA GPU (\S+) \(PCI ID: 10de:([0-9a-fA-F]{4})\)\s+installed in this system\s+is not "
                           r"supported by open\s+nvidia\.ko because it does not include the required GPU", re.IGNORECASE)


def parse_refused_gpus(lines: Sequence[str], *, open_module: bool = False) -> tuple[RefusedGpu, ...]:
    """The GPUs the driver release refused at probe (_REFUSED), one each, from kernel-log lines of any prefix (the
    message's first line pasted without its `NVRM:` tag too); `open_module`: those the open nvidia.ko refused for want
    of a GSP (_REFUSED_OPEN, release "")."""
    found: dict[str, RefusedGpu] = {}
    pattern, span = (_REFUSED_OPEN, 4) if open_module else (_REFUSED, 3)
    # A log that keeps the message's newlines as `\x0a` escapes on one line (Talos's `talosctl dmesg`, corpus 2548):
    # each escape ends a line of the message.
    lines = [part for line in lines for part in (line.split("\\x0a") if "\\x0a" in line else (line,))]
    for i, line in enumerate(lines):
        if "(PCI ID: 10de:" not in line or "The NVIDIA GPU" not in line:
            continue
        joined = " ".join(_NVRM_PREFIX.sub("", ln.strip()) if "NVRM:" in ln else ln.strip()
                          for ln in lines[i:i + span])
        m = pattern.search(joined)
        if m:
            bdf = _bdf(m.group(1))
            found.setdefault(bdf, RefusedGpu(bdf, m.group(2).lower(), "" if open_module else m.group(3), m.group(0)))
    return tuple(found.values())


# The driver's notice for a GPU only a legacy branch supports (nv.c's legacy check), over five lines:
# `NVRM: The NVIDIA Tesla K80 GPU installed in this system is` / `NVRM:  supported through the NVIDIA 470.xx Legacy
# drivers. Please` / ... / `NVRM:  information.  The 510.47.03 NVIDIA driver will ignore` / `NVRM:  this GPU.
# Continuing probe...` (charmed-kubernetes/kubernetes-docs#647, a p2.xlarge). It names the GPU by its model, never
# by its address: the other messages of this shape name `The NVIDIA GPU 0000:01:00.0 (PCI ID: ...)`.
_LEGACY = re.compile(r"The NVIDIA (?!GPU\b)(\S.*?) GPU installed in this system is\b")
_LEGACY_BRANCH = re.compile(r"supported through the NVIDIA (\S+) Legacy drivers", re.IGNORECASE)
_LEGACY_RELEASE = re.compile(r"The (\d+\.\d+(?:\.\d+)?) NVIDIA driver will ignore", re.IGNORECASE)


def parse_legacy_gpus(lines: Sequence[str]) -> tuple[LegacyGpu, ...]:
    """The GPUs the driver release ignores as legacy GPUs (_LEGACY), one per model, with the legacy branch and the
    release where the lines after the first show them (a log cut inside the notice shows the first line only)."""
    found: dict[str, LegacyGpu] = {}
    for i, line in enumerate(lines):
        if "installed in this system is" not in line or "NVRM" not in line or not (m := _LEGACY.search(line)):
            continue
        joined = " ".join(_NVRM_PREFIX.sub("", ln.strip()) for ln in lines[i:i + 5] if "NVRM" in ln)
        branch = _LEGACY_BRANCH.search(joined)
        release = _LEGACY_RELEASE.search(joined)
        found.setdefault(m.group(1), LegacyGpu(m.group(1), branch.group(1) if branch else "",
                                               release.group(1) if release else "", _NVRM_PREFIX.sub("NVRM: ", line.strip())))
    return tuple(found.values())


def init_failed_bdfs(lines: Sequence[str]) -> tuple[str, ...]:
    """The GPUs the driver failed to initialise (_INIT_FAILED: `NVRM: GPU 0000:03:00.0: RmInitAdapter failed!`), by
    BDF, once each, in order."""
    return tuple(dict.fromkeys(_bdf(m.group(1)) for line in lines
                               if "RmInitAdapter" in line and (m := _INIT_FAILED.search(line))))


def _bdf(addr: str) -> str:
    addr = addr.rstrip(":").lower()
    return normalize_bdf(addr if "." in addr else addr + ".0") or addr


def parse_gpu_events(lines: Sequence[str]) -> tuple[GpuEvent, ...]:
    """The GPU error events in kernel-log lines (any prefix: dmesg, journalctl -k, kern.log)."""
    events: list[GpuEvent] = []
    xid79: set[str] = set()
    init_failed = ""
    last_xid = -1  # index in `events` of the Xid a following "callbacks suppressed" line folds into
    for i, line in enumerate(lines):
        if "callbacks suppressed" in line and last_xid >= 0:
            sup = _SUPPRESSED.search(line)
            if sup:
                e = events[last_xid]
                events[last_xid] = GpuEvent(e.kind, e.bdf, e.code, e.detail, e.line, e.count + int(sup.group(1)))
            continue
        if "NVRM" not in line:  # every form of the message is the driver's (cheap test first: long logs)
            if line.strip():
                last_xid = -1  # another message in between: the suppressed count is not this Xid's
            continue
        last_xid = -1
        m = _XID_LINE.search(line)
        if m:
            event = GpuEvent(XID, _bdf(m.group(1)), int(m.group(2)), m.group(3).strip(), line.strip())
            events.append(event)
            last_xid = len(events) - 1
            if event.code == 79:
                xid79.add(event.bdf)
            continue
        init = _INIT_FAILED.search(line)
        if init:
            init_failed = _bdf(init.group(1))
            continue
        probe = _PROBE_FAILED.search(line)
        if probe:
            events.append(GpuEvent(PROBE_FAILED, init_failed, None, "the driver's probe failed", line.strip(),
                                   int(probe.group(1))))
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
    # An Xid 79 already says the GPU fell off the bus: its companion messages are not a second event; nor
    # is the failed probe of a GPU that fell off the bus (the driver reloading finds it gone).
    gone = xid79 | {e.bdf for e in events if e.kind == FELL_OFF_BUS}
    return tuple(e for e in events
                 if not (e.kind == FELL_OFF_BUS and (e.bdf in xid79 or (not e.bdf and xid79)))
                 and not (e.kind == PROBE_FAILED and gone and (e.bdf in gone or not e.bdf)))




@provider("gpu_events", GpuEvents, rank=10, title="the kernel log (`dmesg`)")
def gpu_events_from_kernel_log(ctx: FactContext) -> GpuEvents:
    """Xid and fallen-off-the-bus lines of the kernel log (`dmesg`).

    "No event" needs a whole log that reaches the driver's load: a `dmesg | head` starts at boot too,
    but ends before the driver could have logged anything.
    """
    log = ctx.fact("kernel_log", KernelLog)
    # The driver's banner when its module loads (`NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06`).
    reaches_driver = DRIVER_LOADED in log.text
    return GpuEvents(parse_gpu_events(log.lines), len(log.lines), refused=parse_refused_gpus(log.lines),
                     refused_open=parse_refused_gpus(log.lines, open_module=True), legacy=parse_legacy_gpus(log.lines),
                     hung_tasks=hung_task_lines(log.lines), init_failed=init_failed_bdfs(log.lines),
                     complete=log.complete and reaches_driver)


# The NVIDIA device plugin's health check: NVML's Xid event for a GPU it serves, which it then withdraws from the node
# (`XidCriticalError: Xid=69 on Device=GPU-7540a9b3-…, the device will go unhealthy.`, NVIDIA/k8s-device-plugin#189,
# corpus 1200). The Xid is the driver's, seen through NVML's event set; the plugin names the GPU by its UUID.
_PLUGIN_XID = re.compile(r"XidCriticalError: Xid=(\d+) on Device=(GPU-[0-9a-fA-F-]+|MIG-[0-9a-fA-F-]+),?\s*(.*)$")


def parse_plugin_xids(lines: Sequence[str]) -> tuple[GpuEvent, ...]:
    """The Xid events the device plugin's health check logged (_PLUGIN_XID), each on the GPU its UUID names."""
    events: list[GpuEvent] = []
    for line in lines:
        m = _PLUGIN_XID.search(line) if "XidCriticalError" in line else None
        if m:
            events.append(GpuEvent(XID, m.group(2), int(m.group(1)), m.group(3).strip(), line.strip()))
    return tuple(events)


# An Xid the user reports in words. Three forms are a report, not a mention:
# - its number with its meaning quoted in brackets, as the catalogue names it: `crashed with Xid 79 ("GPU has fallen off
#   the bus") followed immediately by Xid 154 ("Node Reboot Required")` (turbo-tan/llama.cpp-tq3#37, corpus 2422), `Xid
#   154 (`GPU Reset Required`)` (corpus 2847). The quoted meaning is what the driver printed;
# - its number in a sentence that says it happened (_XID_HAPPENED: `I have experienced two GPU crashes with the exact
#   same NVIDIA Xid 62 signature`, 2847; `died from an uncorrectable HBM2 double-bit ECC error (Xid 48/64/62/171/154 —
#   ...)`, 2851; `ops notes recorded Xid 62 on both GPUs`, 2852; `The kernel log confirms this with a Xid 79 error`,
#   2345), or counted (`6× Xid 79`, 2852). A sentence that negates, asks, supposes or cites (_XID_NOT_HAPPENED: `Xid 109
#   does not even exist in nvidia's documentation`, `could it be Xid 79?`, `if you see Xid 79`, `Xid 94 is essentially
#   an application error`) reports nothing;
# - the driver's own record of it without the `NVRM:` tag, naming the GPU's address (`Xid (PCI:0000:2b:00): 31 MMU
#   Fault: ...`, NVIDIA/open-gpu-kernel-modules#1030's title), or a user's elided copy of such lines (`19:15:34  Xid 31
#   PCI:0000:f0:00 pid=477448 ...`, corpus 490).
# The GPU is the one the line names by its PCI address, where it names one (`all on the same GPU (PCI `0000:9c:00`)`,
# corpus 2848), else not named. A list of Xids under a sentence that reports them (`dmesg shows repeated NVIDIA Xid
# events ...:` then `- `Xid 48 / 171`: uncorrectable double-bit ECC (DBE) in HBM framebuffer`, corpus 2848) is read
# with that sentence (stated_xid_list).
STATED_GPU = "(not named)"  # the GPU of an Xid the user reports: their words name no bus address
STATED_XID = re.compile(r"\bXid\s+(\d{1,3})\s+\([\"“`']([^\"”`'()]{3,80})[\"”`']\)")
# Xid numbers as a user writes them: `Xid 62`, `XID 79`, `Xid error 109`, a list (`Xid 48/64/62/171/154`, `Xid 48, 63,
# 94, 154`, `Xid 48 / 171`, `Xid 94 and 154`), a count before or after (`6× Xid 79`, `Xid 79 x6`). A number after a comma
# that a unit follows (`Xid 62, 45 minutes later`) is no Xid.
_UNIT = r"(?!\s*(?:%|°|min\b|minutes?\b|hours?\b|h\b|s\b|secs?\b|seconds?\b|days?\b|times\b|[KMG]i?B\b))"
_XID_CODES = re.compile(r"(?:\b(\d{1,4})\s*[×xX]\s*)?\bXID(?:\s+errors?)?\s*[:#]?\s*"
                        rf"(\d{{1,3}}\b{_UNIT}(?:\s*(?:/|,|\+|&|and)\s*(?:XID\s*)?\d{{1,3}}\b{_UNIT})*)"
                        r"(?:\s*\(?\s*[×xX]\s*(\d{1,4})\b)?", re.IGNORECASE)
_CODE = re.compile(r"\d{1,3}")
# A sentence says the Xid happened: a verb of it happening or being seen, logged or repeated, or the crash it was.
_XID_HAPPENED = re.compile(r"\b(?:crash(?:ed|es|ing)?|died|dies|hit|hits|hitting|got|gets|getting|saw|seen|seeing|sees?|"
                           r"experienc(?:e|ed|es|ing)|encounter(?:ed|ing|s)?|logged|(?:kernel|dmesg|driver) logs|"
                           r"recorded|reported|occurr(?:ed|ing)|occurs|happen(?:ed|ing|s)?|appeared|followed by|"
                           r"triggered|threw|throws|thrown|raised|shows|showed|showing|confirms|confirmed|wedged|wedges|"
                           r"signature|bursts?|repeated(?:ly)?|reproduc\w*)\b", re.IGNORECASE)
# A sentence that negates, asks, supposes, advises or cites: whatever verb it has, it reports no Xid of this machine.
_XID_NOT_HAPPENED = re.compile(r"\?|n't\b|\b(?:no|not|never|without|none|nor|any|cannot|if|whether|unless|when(?:ever)?|"
                               r"could|would|should|might|may|can|will|maybe|perhaps|possibl[ey]|probabl[ey]|likely|"
                               r"suspect\w*|wonder\w*|check(?:ing)?|look(?:ing)? for|search\w*|grep\w*|e\.g|such as|"
                               r"like|means?|meaning|defin\w*|documentation|docs?|catalog(?:ue)?|example)\b",
                               re.IGNORECASE)
# The driver's record of an Xid without its `NVRM:` tag, or a user's elided copy of it, with the GPU's address.
_XID_RECORD = re.compile(r"\bXid\s*\(PCI:([0-9a-fA-F:.]+)\):\s*(\d{1,3})\b,?\s*(.*)$|"
                         r"\bXid\s+(\d{1,3})\s+(?:on\s+)?PCI:([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\b"
                         r"\s*(.*)$")
_PCI_NAMED = re.compile(r"(?<![\w:])(?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)(?![\w:])")
# A sentence's end: a full stop, `!`, `?` or `;` before the next sentence's start.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[^\s\d])")
# The meaning after an Xid's number: in brackets (its quotes dropped), or after a colon (`Xid 63`: Row Remapper ...).
_MEANING = re.compile(r"^\s*(?:\(([^()]{3,80})\)|:\s*([^;()]{3,80}))")


def _stated_gpu(text: str) -> str:
    """The GPU a sentence names by its one PCI address (normalised), else STATED_GPU."""
    found = {_bdf(m.group(1)) for m in _PCI_NAMED.finditer(text)}
    return found.pop() if len(found) == 1 else STATED_GPU


def stated_xids(line: str) -> tuple[GpuEvent, ...]:
    """The Xid events a line of the user's words reports (the three forms above), in order."""
    if "xid" not in line.lower():
        return ()
    line = line[:4000]
    record = _XID_RECORD.search(line) if "PCI:" in line and "NVRM" not in line else None
    if record is not None:
        addr, code, rest = (record.group(1), record.group(2), record.group(3)) if record.group(2) else (
            record.group(5), record.group(4), record.group(6))
        return (GpuEvent(XID, _bdf(addr), int(code), rest.strip(), line.strip()),)
    # The Xids quoted with their meaning first; the sentences' other Xids after them.
    events = [GpuEvent(XID, STATED_GPU, int(m.group(1)), m.group(2).strip(), m.group(0))
              for m in STATED_XID.finditer(line)]
    quoted = {e.code for e in events}
    plain = line.replace("`", "").replace("**", "").replace("__", "")
    for sentence in _SENTENCE_END.split(plain):
        codes = list(_XID_CODES.finditer(sentence)) if "xid" in sentence.lower() else []
        if not codes or _XID_NOT_HAPPENED.search(sentence):
            continue
        if not _XID_HAPPENED.search(sentence) and not any(m.group(1) or m.group(3) for m in codes):
            continue
        gpu = _stated_gpu(sentence)
        for m in codes:
            numbers = [int(c) for c in _CODE.findall(m.group(2))]
            meaning = _MEANING.match(sentence[m.end():])
            detail = (meaning.group(1) or meaning.group(2) or "").strip(" \"“”'") if meaning else ""
            count = int(m.group(1) or m.group(3) or 1)
            events.extend(GpuEvent(XID, gpu, code, detail, sentence.strip(), count)
                          for code in numbers if code not in quoted)
    return tuple(events)


# A sentence that reports Xid events without their numbers, ending on a colon before the list that names them
# (`dmesg shows repeated NVIDIA Xid events, all on the same GPU ...:`, corpus 2848).
_XID_LEAD = re.compile(r"\bXIDs?\b.*:\s*$", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+\S")
_LIST_ITEMS = 8


def stated_xid_list(lines: Sequence[str], i: int) -> tuple[int, str]:
    """(the end of the list, the list's lines each read with the sentence above it) where line i reports Xid events
    without their numbers, ending on a colon, and the list items right under it name them (at most _LIST_ITEMS, up to
    the first line that is no such item); (i, "") otherwise."""
    lead = lines[i].replace("`", "").replace("**", "")
    if "xid" not in lead.lower() or not _XID_LEAD.search(lead) or _XID_CODES.search(lead) \
            or not _XID_HAPPENED.search(lead) or _XID_NOT_HAPPENED.search(lead):
        return i, ""
    end = i + 1
    while end < min(len(lines), i + 1 + _LIST_ITEMS) and _LIST_ITEM.match(lines[end]) \
            and _XID_CODES.search(lines[end].replace("`", "")):
        end += 1
    if end == i + 1:
        return i, ""
    return end, "".join(f"{lines[i].strip()} {lines[k].strip()}\n" for k in range(i + 1, end))


@parser(EVIDENCE_LINES, feeds="gpu_events", kind=GpuEvents, rank=15)
def gpu_events_from_device_plugin(text: str) -> GpuEvents:
    """The Xid events the Kubernetes device plugin's health check logged, pasted on their own, and the Xids the user
    reports (stated_xids): an excerpt, never proof that no other Xid happened. The user's words naming one Xid again
    (`After Xid 62 occurred, ...`) name the same event: one per GPU, number and meaning, its largest count.

    Input (tests/data/captures/1200)::

        2020/08/10 19:09:42 XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.
    """
    lines = text.splitlines()
    stated: dict[tuple[str, int | None, str], GpuEvent] = {}
    for e in (e for line in lines for e in stated_xids(line)):
        known = stated.setdefault((e.bdf, e.code, e.detail), e)
        if e.count > known.count:
            stated[(e.bdf, e.code, e.detail)] = GpuEvent(XID, known.bdf, known.code, known.detail, known.line, e.count)
    events = parse_plugin_xids(lines) + tuple(stated.values())
    if not events:
        raise FactUnavailable("no Xid event of the device plugin or in the user's words")
    return GpuEvents(events, 0, complete=False)


# An Xid line as the driver writes it: what a grep of the kernel log must match to rule Xids out.
XID_LINE_EXAMPLE = "NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=python, GPU has fallen off the bus."


@provider("gpu_events", GpuEvents, rank=30, title=EMPTY_GREPS.title)
def gpu_events_ruled_out(ctx: FactContext) -> GpuEvents:
    """No Xid line, where a grep of the kernel log that matches one was shown with no output."""
    shown = ctx.fact("empty_greps", EmptyGreps).shown("dmesg", XID_LINE_EXAMPLE)
    if shown is None:
        raise FactUnavailable("no grep of the kernel log for Xid lines")
    return GpuEvents((), 0, (shown,), complete=False)


@provider("gpu_events", GpuEvents, rank=35, title=LISTING_GREPS.title)
def gpu_events_listed(ctx: FactContext) -> GpuEvents:
    """No Xid line beyond those shown, where a grep of this boot's kernel log that matches one is shown with what
    it printed: the kernel log's reader reads those lines, and an Xid among them is an event there."""
    shown = ctx.fact("listing_greps", ListingGreps).shown("dmesg", XID_LINE_EXAMPLE)
    if shown is None:
        raise FactUnavailable("no grep of the kernel log for Xid lines shown with its output")
    return GpuEvents((), 0, no_xid_listed_by=(shown,), complete=False)


@provider("gpu_events", GpuEvents, rank=20, title="NVML / nvidia-smi")
def gpu_events_from_nvidia(ctx: FactContext) -> GpuEvents:
    """GPUs NVML or nvidia-smi reports lost (`gpu-is-lost`), and GPUs nvidia-smi cannot open for any other reason
    (`Unknown Error`) whose PCI function a pasted lspci shows answering all-ones (`(rev ff)`, corpus 1433): the
    driver and the bus both lose the GPU, which is a GPU fallen off the bus whatever the kernel log would say."""
    nvidia = ctx.fact("nvidia", NvidiaGpus)
    # The PCI side is asked only for a GPU nvidia-smi could not open (no other GPU's events depend on it).
    unopened = [g for g in nvidia.gpus if g.error and g.error != "gpu-is-lost" and g.bdf]
    pcie = ctx.optional("pcie", PcieFacts) if unopened else None
    gone = {f.bdf for f in (pcie.functions if pcie is not None else ()) if f.lspci is not None
            and f.lspci.reads_all_ones}
    lost = tuple(GpuEvent(LOST, g.bdf or g.subject, None, f"{g.label}: {g.error}", "")
                 for g in nvidia.gpus if g.error == "gpu-is-lost")
    lost += tuple(GpuEvent(OFF_BUS_READ, g.bdf, None, f"{g.label}: nvidia-smi cannot open it ({g.error}) and lspci reads it "
                           "as revision ff, the all-ones answer of a device no longer on the bus", "")
                  for g in unopened if g.bdf in gone)
    if not nvidia.gpus:
        raise FactUnavailable("no GPU in the NVIDIA source")
    return GpuEvents(lost)
