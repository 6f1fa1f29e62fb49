"""PCIe errors on GPU links: AER counters in sysfs and AER lines in the kernel log, joined.

Sources (`union`): the `aer_dev_correctable` / `aer_dev_nonfatal` / `aer_dev_fatal` counters of each
GPU, its upstream port and the NICs (sysfs, through the `pcie` fact); then the kernel log's AER
lines, which a paste often holds alone:

    pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:01:00.0
    nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer
    pcieport 0000:00:03.1:    [ 5] SDES                   (First)   (Surprise Down Error)

(drivers/pci/pcie/aer.c prints them: https://github.com/torvalds/linux/blob/master/drivers/pci/pcie/aer.c),
and the GPUs that fell off the bus (`gpu_events`) or that the driver can no longer open (`nvidia`: nvidia-smi's
"Unable to determine the device handle for GPU…"). Counters are a whole read; the log proves "no
AER line" only when it is whole (from boot, no gap).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import lines_holding
from stackaudit.facts.gpu_events import GpuEvents
from stackaudit.facts.nvidia import NvidiaGpus
from stackaudit.facts.pcie import PcieFacts, PcieFunction
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, provider, union
from stackaudit.facts.system import KernelLog
from stackaudit.pci_address import BDF

CORRECTED, NONFATAL, FATAL = "corrected", "nonfatal", "fatal"
UNSTATED = "unstated"  # a firmware error record whose severity the paste does not show (cut above it)
NVIDIA_VENDOR = "0x10de"
GPU_VENDORS = (NVIDIA_VENDOR, "0x1002")  # NVIDIA, AMD (ATI): PCI vendor IDs of GPUs


@dataclass(frozen=True)
class AerLine:
    bdf: str  # the device the line is about (the error source where the line names one)
    severity: str  # corrected | nonfatal | fatal | unstated | "" (a detail line: SDES, Replay Timer Timeout)
    line: str
    # the PCI vendor a firmware (GHES) record names for its device (`vendor_id: 0x144d`) where the record shows the
    # device is an endpoint, not a port that may lead to a GPU
    endpoint_vendor: str = ""


@dataclass(frozen=True)
class PcieErrors(Sourced):
    # (bdf, ((counter, total), ...)) per device; counters "correctable", "nonfatal", "fatal" (aer_dev_*)
    counters: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    watched: tuple[str, ...] = ()  # the devices whose counters were read: GPUs, their ports, NICs
    lines: tuple[AerLine, ...] = ()
    lost: tuple[str, ...] = ()  # kernel-log lines of GPUs that fell off the bus
    ghes: bool = False  # firmware-first error handling seen in the log: counters may stay 0
    log_lines: int | None = None  # kernel-log lines read; None: no kernel log in the source
    log_whole: bool = False  # the kernel log runs from boot with no gap: "no AER line" is then proven
    # GPUs the driver can no longer open (NVML's error for each: nvidia-smi's "Unable to determine the device
    # handle for GPU<bdf>: Unknown Error"), as (address, NVML error word).
    unopened: tuple[tuple[str, str], ...] = ()

    def counts(self) -> dict[str, dict[str, int]]:
        return {bdf: dict(kinds) for bdf, kinds in self.counters}

    @classmethod
    def union(cls, parts: Sequence[PcieErrors]) -> PcieErrors:
        counters = tuple(c for p in parts for c in p.counters)
        watched = tuple(dict.fromkeys(w for p in parts for w in p.watched))
        lines = tuple(line for p in parts for line in p.lines)
        lost = tuple(dict.fromkeys(x for p in parts for x in p.lost))
        logs = [p.log_lines for p in parts if p.log_lines is not None]
        return cls(counters, watched, lines, lost, any(p.ghes for p in parts), max(logs) if logs else None,
                   any(p.log_whole for p in parts), tuple(dict.fromkeys(u for p in parts for u in p.unopened)),
                   complete=all(p.complete for p in parts))


fact("pcie_errors", PcieErrors, union, hint="run as root on the host, or paste the whole `sudo dmesg`")


def watched_functions(pcie: PcieFacts) -> dict[str, PcieFunction]:
    """GPUs, their upstream ports (errors may be counted at the link partner) and the NICs."""
    by_bdf = pcie.by_bdf()
    watch: dict[str, PcieFunction] = {}
    for g in pcie.gpus:
        watch[g.bdf] = g
        if g.parent and g.parent in by_bdf:
            watch[g.parent] = by_bdf[g.parent]
    for nic in pcie.role("nic"):
        watch[nic.bdf] = nic
    return watch


@provider("pcie_errors", PcieErrors, rank=10, title="AER counters (/sys/bus/pci/devices)")
def aer_counters(ctx: FactContext) -> PcieErrors:
    """AER counters of the GPUs, their ports and the NICs (sysfs `aer_dev_*`)."""
    pcie = ctx.fact("pcie", PcieFacts)
    watch = watched_functions(pcie)
    counters = []
    for bdf, fn in watch.items():
        if fn.sysfs is None:
            continue
        row = tuple((k, v) for k in ("correctable", NONFATAL, FATAL) if (v := fn.sysfs.aer_total(k)) is not None)
        if row:
            counters.append((bdf, row))
    if not counters:
        raise FactUnavailable("no AER counters in this source (kernel without AER, or not read)")
    return PcieErrors(tuple(counters), tuple(watch))


_DEVICE = re.compile(rf"\b({BDF})\b", re.IGNORECASE)
_AER = re.compile(r"\bAER:|PCIe Bus Error|\bSDES\b|Surprise Down|Replay Timer Timeout|\bRplyTO\b|"
                  r"Completion Timeout|\bCmpltTO\b|Receiver Error|\bRxErr\b|Bad TLP|Bad DLLP", re.IGNORECASE)


# Cheap substring tests before the regex (long pasted logs): every _AER alternative holds one of these.
_AER_TOKENS = ("aer", "pcie bus error", "sdes", "surprise", "replay", "rplyto", "timeout", "cmpltto", "receiver",
               "rxerr", "bad tlp", "bad dllp")


# "Corrected" before Linux 6.x's aer.c renamed the severities to "Correctable" / "Uncorrectable (...)".
_CORRECTED = re.compile(r"\bcorrect(?:ed|able)\b")
_ERROR_SOURCE = re.compile(rf"error received:\s*(?:id=)?({BDF})", re.I)


def _severity(line: str) -> str:
    low = line.lower()
    if "non-fatal" in low:
        return NONFATAL
    if "fatal" in low:
        return FATAL
    if "uncorrect" in low:
        return NONFATAL
    if _CORRECTED.search(low):
        return CORRECTED
    return ""


def parse_aer_lines(lines: Sequence[str]) -> tuple[AerLine, ...]:
    """The kernel log's AER lines, each with the device it is about and its severity."""
    out = []
    for line in lines:
        low = line.lower()
        if not any(t in low for t in _AER_TOKENS) or not _AER.search(line):
            continue
        devices = _DEVICE.findall(line)
        # "error received: <source>" names the device that reported the error; else the line's own device.
        m = _ERROR_SOURCE.search(line)
        bdf = (m.group(1) if m else devices[0] if devices else "").lower()
        out.append(AerLine(bdf, _severity(line), line.strip()))
    return tuple(out)


# The firmware-first (APEI GHES) error record the kernel prints for a platform's error report (drivers/firmware/efi/
# cper.c, cper_print_pcie): `{3}[Hardware Error]: event severity: recoverable`, ` Error 0, type: recoverable`,
# `  section_type: PCIe error`, `  device_id: 0000:01:00.0`, `  vendor_id: 0x10de, device_id: 0x2204`, one line each,
# numbered by the record ({N}). The severities are CPER's: corrected, recoverable (uncorrected, not fatal), fatal.
_GHES = re.compile(r"\{(\d+)\}\[Hardware Error\]:\s?(.*)$")
_GHES_SEVERITY = re.compile(r"^\s*(?:event severity|Error \d+, type):\s*(corrected|recoverable|fatal)\b", re.I)
_GHES_SECTION = re.compile(r"^\s*Error \d+, type:")
_GHES_DEVICE = re.compile(rf"^\s*device_id:\s*({BDF})\s*$", re.I)
_GHES_VENDOR = re.compile(r"^\s*vendor_id:\s*(0x[0-9a-f]{4})\b", re.I)
# CPER's port types of an endpoint (0 PCIe end point, 1 legacy PCI end point, 9 root complex integrated endpoint): a
# record of one names the device itself; any other type is a port, which may lead to a GPU.
_GHES_ENDPOINT = re.compile(r"^\s*port_type:\s*[019],")
_CPER_SEVERITY = {"corrected": CORRECTED, "recoverable": NONFATAL, "fatal": FATAL}


def parse_ghes_records(lines: Sequence[str]) -> tuple[AerLine, ...]:
    """One AerLine per PCIe section of each firmware-first error record in the kernel log (_GHES): the device its
    `device_id` names, the CPER severity (the section's type, else the record's event severity; UNSTATED where the
    paste starts the record below both) and, for an endpoint, the vendor it names. A section that names no PCI device
    (a memory or processor error) is not a PCIe error."""
    records: dict[str, list[list[str]]] = {}
    for line in lines:
        if (m := _GHES.search(line)) is None:
            continue
        field = m.group(2)
        if field.startswith("Hardware error from APEI"):
            records.pop(m.group(1), None)  # the record's first line: a number seen before was an earlier record
        sections = records.setdefault(m.group(1), [[]])
        if _GHES_SECTION.match(field) and any(_GHES_DEVICE.match(f) for f in sections[-1]):
            sections.append([])
        sections[-1].append(field)
    out = []
    for sections in records.values():
        event = next((_CPER_SEVERITY[s.group(1).lower()] for f in sections[0] if (s := _GHES_SEVERITY.match(f))),
                     UNSTATED)
        for fields in sections:
            device = next((d.group(1).lower() for f in fields if (d := _GHES_DEVICE.match(f))), "")
            if not device:
                continue
            sev = next((_CPER_SEVERITY[s.group(1).lower()] for f in fields if (s := _GHES_SEVERITY.match(f))), event)
            vendor = next((v.group(1).lower() for f in fields if (v := _GHES_VENDOR.match(f))), "")
            endpoint = any(_GHES_ENDPOINT.match(f) for f in fields)
            said = (f"firmware (GHES) PCIe error record for {device}" + (f", vendor {vendor}" if vendor else "")
                    + (" (NVIDIA)" if vendor == NVIDIA_VENDOR else "")
                    + (f", severity {sev}" if sev != UNSTATED else ", severity not shown"))
            out.append(AerLine(device, sev, said, vendor if endpoint else ""))
    return tuple(out)


_LINK_ERRORS = ("unknown", "gpu-is-lost")


@provider("pcie_errors", PcieErrors, rank=20, title="the kernel log (`dmesg`)")
def aer_from_kernel_log(ctx: FactContext) -> PcieErrors:
    """AER lines and GPUs that fell off the bus in the kernel log (`dmesg`)."""
    log = ctx.fact("kernel_log", KernelLog)
    events = ctx.optional("gpu_events", GpuEvents)
    lost = tuple(e.line for e in (events.lost() if events else ()) if e.line)  # NVML's lost GPUs have no line
    nvidia = ctx.optional("nvidia", NvidiaGpus)
    # NVML's "Unknown Error" or "GPU is lost" for one GPU; a permission or a missing driver says nothing of its link.
    unopened = tuple((g.bdf, g.error) for g in (nvidia.gpus if nvidia else ()) if g.error in _LINK_ERRORS and g.bdf)
    ghes = bool(log.grep(r"\bGHES\b|APEI", needles=("ghes", "apei")))
    # Only the lines holding an AER word go through the per-line parse (one scan of the whole log).
    candidates = [log.lines[i] for i in lines_holding(log.text, log.lines, _AER_TOKENS)]
    records = parse_ghes_records([log.lines[i] for i in lines_holding(log.text, log.lines, ("[hardware error]",))])
    return PcieErrors(lines=parse_aer_lines(candidates) + records, lost=lost, ghes=ghes, log_lines=len(log.lines),
                      log_whole=log.complete, unopened=unopened, complete=log.complete)
