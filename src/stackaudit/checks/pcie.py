"""PCIE: PCI Express link and device settings of the GPUs (docs/checks.md, PCIE).

Registers come from config space as root, else from `lspci -vvv`; without root both stop at the
64-byte header (`<access denied>`), and those results are `unknown`, never `ok` (docs/design.md, "Status rules").
Expected link generation/width per GPU model comes from data/gpus.toml; unknown models fall back
to what the device itself reports it can do (LnkCap, sysfs max_link_*).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from stackaudit.checks.registry import (
    Fix,
    Outcome,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    over_subjects,
    unknown,
)
from stackaudit.facts.boot_loader import CmdlineTool, tool_of
from stackaudit.facts.gpu_links import GpuLinks, split_lanes
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.nvidia import GpuSamples
from stackaudit.facts.pci import PCIE_GBS_PER_LANE, gen_of
from stackaudit.facts.pcie import PcieFacts, PcieFunction, describe_speed
from stackaudit.facts.peer_access import P2pBandwidth
from stackaudit.facts.system import CpuInfo, KernelCmdline
from stackaudit.fixes.kernel_cmdline import cmdline_forms
from stackaudit.fixes.model import (
    advice,
    step,
)
from stackaudit.fixes.pcie import mps_fix, mrrs_fix
from stackaudit.gputable import UnknownGpuError, all_gpus, lookup

KB_REGS = "https://github.com/torvalds/linux/blob/master/include/uapi/linux/pci_regs.h"
KERNEL_PARAMS = "https://docs.kernel.org/admin-guide/kernel-parameters.html"
ROOT_HINT = "run as root on the host (`sudo stackaudit audit`), or paste `sudo lspci -vvv`"
# What shows every function's registers, bridges included (the coverage rule's "run next" for a GPU not shown).
LSPCI_ASK = "sudo lspci -vvv"
# What settles a link generation below capability: the generation while the GPU serves (it drops at idle).
LOAD_TEST = ("read it while the GPU serves: `nvidia-smi --query-gpu=index,pcie.link.gen.current,"
             "pcie.link.width.current --format=csv -l 1` (or `nvidia-smi -q` under load, or "
             "`stackaudit audit --sample 30`)")


# -- helpers shared with checks/fw.py ----------------------------------------------------------

def unreadable(fns: tuple[PcieFunction, ...] | list[PcieFunction]) -> list[PcieFunction]:
    """Functions whose capability registers this source cannot show."""
    return [f for f in fns if not f.registers_readable]


def unreadable_outcome(pcie: PcieFacts, fns: list[PcieFunction], what: str) -> Outcome:
    notes = sorted({f.config_note for f in fns if f.config_note})
    return unknown(f"{what} of {len(fns)} GPU(s) not readable: {'; '.join(notes) or 'not in the source'}",
                   hint=ROOT_HINT, subjects=[f.bdf for f in fns])


def over_gpu_functions(pcie: PcieFacts, shown: Sequence[str], judged: Outcome,
                       blind: Sequence[str] = ()) -> Outcome:
    """The coverage rule (`over_subjects`) for a check over the GPUs' PCI functions: `shown` are those whose
    registers the check read, `blind` those listed without them; the count is the bus's where it is whole."""
    total = len(pcie.gpus) if pcie.inventory_complete else None
    return over_subjects(judged, shown, total, ask=LSPCI_ASK, blind=blind)


def no_gpu(pcie: PcieFacts) -> Outcome:
    """No GPU among the functions: not applicable on a full inventory (sysfs), unknown for a partial paste."""
    if pcie.inventory_complete:
        return not_applicable("no NVIDIA GPU on the PCI bus")
    return unknown("the pasted lspci output shows no NVIDIA GPU", hint="paste `sudo lspci -vvv` of the whole host")


# -- PCIE-LINK-DOWNTRAIN -----------------------------------------------------------------------

@check(
    "PCIE-LINK-DOWNTRAIN",
    applies_to="pcie-link",
    title="GPU link below its capable speed/width",
    severity="high",
    confidence="documented",
    fix=advice("Reseat the GPU, check risers/retimers/cables; BIOS slot speed (Auto/GenN) and bifurcation (x16 vs "
                   "x8x8); M.2/slot lane sharing on workstation boards", cost="hardware"),
    references=("https://github.com/NVIDIA/open-gpu-kernel-modules/issues/731",
                "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1010",
                "https://github.com/NVIDIA/gpu-monitoring-tools/issues/215"),
)
def link_downtrain(gpu_links: GpuLinks | None = None, pcie: PcieFacts | None = None,
                   gpu_samples: GpuSamples | None = None, cpu: CpuInfo | None = None,
                   gpus: GpuInventory | None = None, p2p_bandwidth: P2pBandwidth | None = None) -> Outcome:
    """Reads: each GPU's `current_link_speed`, `current_link_width`, `max_link_speed`,
    `max_link_width` in sysfs (else LnkSta/LnkCap from config space or `lspci -vvv`), the same for
    its upstream port, else NVML / `nvidia-smi -q` (current and maximum generation and width: the
    GPU's maximum, not the slot's), the model's PCIe generation and width in data/gpus.toml, and —
    when the NVIDIA side has them — GPU utilisation/P-state now and the link generation sampled
    under load (`audit --sample`).

    Bad value: width below min(GPU, slot) — x8 on an x16 card in an x16 slot — at any time;
    generation below min(GPU, host) under load. Width 63/255: the device no longer answers
    (Xid 79, fallen off the bus).

    Why: host↔GPU bandwidth (model load, KV offload, PCIe P2P all-reduce) scales with gen×width.

    Traps: GPUs lower the link generation at idle to save power (nvidia-smi: "may be reduced when
    the GPU is not in use"; Gen1 at P8, Gen4/5 at P0): a low speed with full width on an idle GPU
    is not an issue, and so is one where nothing in the source shows load (an `lspci` or sysfs
    snapshot). The message names the load test that settles it: `nvidia-smi --query-gpu=
    pcie.link.gen.current` while serving. A Gen5 GPU in a Gen4 slot correctly runs Gen4.
    A narrow link seen only by nvidia-smi (no slot capability in the source) is an issue of lower
    confidence: an x8 slot would explain it, and the port's LnkCap settles it. A source that shows the width
    without the generation (club-3090's rig report) is judged on the width. One that shows the generation without the
    GPU's capable one (an excerpt cut above `Max`, no model): Gen1 is below every CUDA GPU's link (Gen2 on), so the
    idle and load rules decide; a GPU at P8 or deeper is idle (corpus 1343).
    A consumer desktop CPU gives its graphics slots 16 lanes in all (facts/gpu_links.py DESKTOP_LANES, from lscpu's
    `Model name` or a rig report's CPU bullet): with two or more GPUs on the host, an x16 GPU at x8 is the board's
    x8/x8 split, not-an-issue. A laptop CPU (MOBILE_LANES: Ice Lake or Tiger Lake U, `i5-1135G7`) has no link wider
    than x4, so a GPU on it (a Thunderbolt eGPU, corpus 2498) at x4 is not-an-issue. Below those widths, one GPU alone
    on a desktop CPU, an HEDT or server CPU, or a slot whose LnkCap is shown: the rule above decides.
    Where no link state is shown, NVIDIA's nvbandwidth host-to-device or device-to-host copies of a GPU are a lower
    bound of its link (_measured_links): a figure above what the link carries one generation lower or at half the width
    (facts/pci.py PCIE_GBS_PER_LANE) shows the GPU's full link; a model not shown is held to the fastest link of
    data/gpus.toml. A lower figure proves nothing (a copy is slowed by more than its link).
    A Jetson module's integrated GPU sits on the SoC with no PCIe link: where every GPU shown is one and no link is
    read (the `pcie-link` subject of facts/applicability.py: `NVIDIA Tegra X2` or `Orin` in a device list), the check
    is not applicable (corpus 2158). Another vendor's GPU, or none shown, leaves it open.
    """
    if gpu_links is None or not gpu_links.links:
        measured = _measured_links(p2p_bandwidth, gpus) if p2p_bandwidth is not None else None
        if measured is not None:
            return measured
        if gpu_links is None:
            return unknown("", needs="gpu_links")
    links = gpu_links.links
    if not links:
        return no_gpu(pcie) if pcie is not None else unknown("no GPU link in this source")
    gone: list[str] = []
    narrow: dict[str, str] = {}
    slow_busy: dict[str, str] = {}
    slow_idle: dict[str, str] = {}
    slow: dict[str, str] = {}
    fine: dict[str, str] = {}
    split: dict[str, str] = {}
    blind: list[str] = []
    # The GPUs on the host: the most that any source lists (an excerpt's count is a lower bound).
    count = max(len(links), (gpus.at_least or 0) if gpus is not None else 0)
    for g in links:
        cur_s, cur_w = g.cur_speed, g.cur_width
        if cur_w in (63, 255) or (g.max_width in (63, 255)):
            gone.append(g.bdf)
            continue
        if cur_w is None:
            blind.append(g.bdf)
            continue
        exp_s, exp_w, basis = g.expected
        if cur_s is None:
            # A width without the generation (a report that prints only `pcie.link.width.*`): the width is judged;
            # the generation drops at idle anyway, so a snapshot's says nothing of the load.
            if exp_w is None:
                blind.append(g.bdf)
            elif why := split_lanes(g, cpu.model_name if cpu is not None else "", count):
                split[g.bdf] = why
            elif cur_w < exp_w:
                narrow[g.bdf] = f"x{cur_w} (capable x{exp_w}, from {basis})"
            else:
                fine[g.bdf] = f"x{cur_w} of x{exp_w} (the generation is not in the source)"
            continue
        slot = g.width_basis == "slot"
        if exp_s is None and (gen_of(cur_s) or _CUDA_MIN_GEN) < _CUDA_MIN_GEN:
            # The capable generation is not shown (model cut away, no Max line), but a Gen1 link is below every
            # CUDA GPU's: the idle or load rules below decide (corpus 1343, Gen1 at P8).
            exp_s, basis = _CUDA_MIN_SPEED, "every CUDA GPU's link, the model not being shown"
        now = describe_speed(cur_s, cur_w)
        want = ("at least " if basis.startswith("every CUDA") else "") + describe_speed(exp_s, int(exp_w) if exp_w
                                                                                   else None)
        label = f"{now} (capable {want}, from {basis}{' and the slot' if slot else ''})"
        sampled = _sampled_gen(gpu_samples, g.index)
        if exp_w is not None and cur_w < exp_w and (why := split_lanes(g, cpu.model_name if cpu else "", count)):
            split[g.bdf] = why
        elif exp_w is not None and cur_w < exp_w:
            narrow[g.bdf] = label
        elif sampled is not None and exp_s is not None:
            if sampled < (gen_of(exp_s) or 0):
                slow_busy[g.bdf] = f"at most Gen{sampled} under load (sampled), capable {want}"
            else:
                fine[g.bdf] = f"Gen{sampled} under load (sampled)"
        elif exp_s is not None and cur_s < exp_s:
            if g.busy:
                slow_busy[g.bdf] = f"{label} while busy ({g.utilization}% utilisation)"
            elif g.utilization is not None:
                slow_idle[g.bdf] = f"{label}, idle ({g.utilization}%{', ' + g.pstate if g.pstate else ''})"
            elif g.pstate in _IDLE_PSTATES:
                # A deep performance state is the driver's idle level (P8: the GPU waits for work).
                slow_idle[g.bdf] = f"{label}, idle ({g.pstate})"
            else:
                slow[g.bdf] = label
        else:
            fine[g.bdf] = now
    # The coverage rule: the links read decide; a GPU whose link is not in the source is counted, not guessed.
    total = gpu_links.attached if gpu_links.attached and gpu_links.attached >= len(links) else (
        len(links) if pcie is not None and pcie.inventory_complete else None)
    shown = [*gone, *narrow, *slow_busy, *split, *fine, *slow_idle, *slow]
    if gone:
        return over_subjects(issue(
            f"{len(gone)} GPU link(s) report width 63/255: the device no longer answers (fallen off the bus, see Xid 79 "
            "in dmesg)", actual=gone, expected="a trained link", subjects=gone, gpu_lost=True),
            shown, total, ask=LSPCI_ASK, blind=blind)
    if narrow or slow_busy:
        parts = [f"{b}: {v}" for b, v in {**narrow, **slow_busy}.items()]
        no_slot = [b for b in narrow if next(g for g in links if g.bdf == b).width_basis != "slot"]
        settle = (f"; the slot's width is not in the source for {', '.join(no_slot)} — an x8 slot would explain it: "
                  "`sudo lspci -vvv` (the port's LnkCap) settles it") if no_slot else ""
        return over_subjects(issue(
            f"{len(parts)} GPU link(s) below what GPU and slot allow "
            f"({', '.join(sorted({str(v) for v in {**narrow, **slow_busy}.values()}))}): " + "; ".join(parts)
            + (" — width does not drop for power saving" if narrow else "") + settle,
            actual={**narrow, **slow_busy}, expected="full width; full generation under load",
            subjects=[*narrow, *slow_busy], confidence="field-reports" if no_slot else None),
            shown, total, ask=LSPCI_ASK, blind=blind)
    if not shown:
        return unknown(f"the link state of {len(blind)} GPU(s) is not in the source",
                       hint="paste `sudo lspci -vvv` or capture on the host", subjects=blind)
    if split:
        judged = not_an_issue(f"{', '.join(split)} below the GPU's width, at the platform's: " + "; ".join(dict.fromkeys(split.values()))
                              + (f"; at full width: {', '.join(f'{b} {v}' for b, v in fine.items())}" if fine else ""),
                              actual=split, subjects=[*split, *fine])
    elif slow:
        # Nothing in the source shows load: a lower generation at full width is what an idle GPU's link does.
        judged = not_an_issue("link generation below capability at full width on "
                              + "; ".join(f"{b}: {v}" for b, v in slow.items())
                              + " — the power saving of an idle link (nvidia-smi: the generation \"may be reduced when "
                              "the GPU is not in use\"), and nothing in the source shows load; only a generation below "
                              f"capability under load is a fault: {LOAD_TEST}",
                              actual=slow, subjects=list(slow))
    elif slow_idle:
        judged = not_an_issue("lower link generation on idle GPU(s): "
                              + "; ".join(f"{b}: {v}" for b, v in slow_idle.items())
                              + " — power saving at idle, full width kept; only a generation below capability under "
                              f"load is a fault: {LOAD_TEST}",
                              actual=slow_idle, subjects=list(slow_idle))
    else:
        judged = ok("GPU links at full speed and width: " + ", ".join(f"{b} {v}" for b, v in fine.items()),
                    actual=fine, subjects=list(fine))
    return over_subjects(judged, shown, total, ask=LSPCI_ASK, blind=blind)


# The lowest link generation of a CUDA GPU (GT200 on: PCIe Gen2; the GPUs of data/gpus.toml are Gen3 and later), and
# the performance states nvidia-smi shows on an idle GPU (P8 and deeper; P0-P2 under load).
_CUDA_MIN_GEN = 2
_CUDA_MIN_SPEED = 5.0
_IDLE_PSTATES = frozenset(("P8", "P10", "P12", "P15"))


def _full_link(model: str) -> tuple[int, int, str]:
    """(generation, width, what says so) of the link a GPU model trains at: its row of data/gpus.toml, else the fastest
    link of the table (no model shown, or one the table does not know)."""
    try:
        spec = lookup(model).spec if model else None
    except UnknownGpuError:
        spec = None
    if spec is not None:
        return spec.pcie_gen, spec.pcie_width, spec.name
    top = max(all_gpus(), key=lambda g: (g.pcie_gen, g.pcie_width))
    return top.pcie_gen, top.pcie_width, "the fastest GPU link of the table, the model not being shown"


def _measured_links(run: P2pBandwidth, gpus: GpuInventory | None) -> Outcome | None:
    """PCIE-LINK-DOWNTRAIN from nvbandwidth's host copies per GPU: ok over the GPUs whose figure is above what their
    link carries one generation lower or at half its width; None where the run shows no host copy."""
    figures = run.host_figures()
    if not figures:
        return None
    models = gpus.models if gpus is not None else {}
    fine: dict[str, str] = {}
    short: dict[str, str] = {}
    for gpu, (gbs, key) in sorted(figures.items()):
        gen, width, basis = _full_link(models.get(gpu, ""))
        below = max(PCIE_GBS_PER_LANE[gen - 1] * width, PCIE_GBS_PER_LANE[gen] * width / 2)
        said = f"{gbs:.2f} GB/s in {key or 'a host copy'}"
        if gbs > below:
            fine[f"GPU {gpu}"] = (f"{said}, above the {below:.1f} GB/s a Gen{gen - 1} x{width} or Gen{gen} "
                                  f"x{width // 2} link carries (Gen{gen} x{width}: {basis})")
        else:
            short[f"GPU {gpu}"] = said
    if not fine:
        return unknown("nvbandwidth's host copies (" + "; ".join(f"{g}: {v}" for g, v in list(short.items())[:4])
                       + ") fit within a narrower or older link, and a copy is slowed by more than its link: the link "
                       "state is not shown", hint=f"paste `{LSPCI_ASK}` or `nvidia-smi -q` (GPU Link Info)")
    first = next(iter(fine.values()))
    judged = ok(f"nvbandwidth's host copies show each GPU's full link: GPU {next(iter(fine))[4:]}: {first}"
                + (f" ({len(fine)} GPUs alike)" if len(fine) > 1 else ""), actual=fine, subjects=list(fine))
    return over_subjects(judged, list(fine), gpus.whole_count if gpus is not None else None, ask=LSPCI_ASK,
                         blind=list(short))


def _sampled_gen(samples: GpuSamples | None, index: int | None) -> int | None:
    """Highest link generation seen while the GPU was busy during `--sample`, or None."""
    if samples is None or index is None or not 0 <= index < len(samples.series):
        return None
    gens = [s.pcie_gen for s in samples.series[index] if (s.utilization or 0) >= 20 and s.pcie_gen]
    return max(gens) if gens else None


# -- PCIE-MRRS ------------------------------------------------------------------------------------

@check(
    "PCIE-MRRS",
    title="Max Read Request Size small",
    severity="low",
    confidence="unproven",
    fix=mrrs_fix(),
    references=("https://wiki.ubuntu.com/FirmwareTestSuite/Reference/maxreadreq",
                "https://github.com/NVIDIA/nccl/blob/master/src/graph/paths.cc", KB_REGS),
)
def mrrs(pcie: PcieFacts) -> Outcome:
    """Reads: Device Control (`CAP_EXP+0x08`, bits 14:12) of every GPU and NIC — `MaxReadReq` in
    `lspci -vvv` — as root.

    Bad value: below 256 bytes (fwts LowMaxReadReq). 256–2048 bytes is reported as information;
    4096 is the maximum.

    Why: a DMA read larger than MRRS is split into several requests, each with its own tag and
    completion: overhead on host-memory reads (H2D copies, model loading, KV swap-in).

    Traps: no published measurement shows an LLM-inference gain from raising GPU MRRS; NCCL's PCIe
    P2P transport uses posted writes, so MRRS does not affect all-reduce over PCIe: "raise
    MaxReadReq to 4096" is a myth correction here (256–2048 B is `not-an-issue`). The common
    `setpci -s <bdf> CAP_EXP+0x08.w=5937` rewrites the whole 16-bit Device Control register, not
    just MRRS: it also sets MaxPayload to 256 B whatever the path supports, turns Relaxed Ordering,
    Extended Tags and No Snoop on, and sets the error-reporting enables; the masked form
    `CAP_EXP+0x08.w=5000:7000` writes bits 14:12 only. `pci=pcie_bus_perf` caps MRRS at MPS — it
    can lower it, not a fix. Unreadable without root.
    """
    gpus = pcie.gpus
    if not gpus:
        return no_gpu(pcie)
    blind = unreadable(gpus)
    devs = [f for f in (*gpus, *pcie.role("nic")) if f.express is not None and f.express.devctl_mrrs is not None]
    values = {f.bdf: f.express.devctl_mrrs for f in devs if f.express is not None}
    low = [b for b, v in values.items() if v is not None and v < 256]
    if low:
        return issue(f"MaxReadReq below 256 bytes on {', '.join(low)} (fwts: too low); raising it is cheap, but no "
                     "LLM-serving gain is published (unproven)", actual={b: values[b] for b in low},
                     expected=">= 256 bytes (4096 max)", subjects=low,
                     fix=mrrs_fix(low))
    gpu_values = {g.bdf: values.get(g.bdf) for g in gpus if values.get(g.bdf) is not None}
    if blind and not gpu_values:
        return unreadable_outcome(pcie, blind, "Device Control (MaxReadReq)")
    text = ", ".join(f"{b} {v} B" for b, v in values.items())
    below_max = [b for b, v in values.items() if v is not None and v < 4096]
    msg = (f"MaxReadReq {text}: 256–4096 B is within the normal range; raising it to 4096 has no published "
           "LLM-serving gain (unproven) and does not affect NCCL P2P (posted writes)")
    if below_max:
        msg += ("; if raised anyway, the masked `setpci -s BDF CAP_EXP+0x08.w=5000:7000`, not the common "
                "`CAP_EXP+0x08.w=5937`, which rewrites the whole Device Control register (MaxPayload, Relaxed "
                "Ordering, No Snoop, error reporting)")
    # The well-known advice to raise it is wrong here: a key negative result, not a fix.
    judged = (not_an_issue if below_max else ok)(msg, actual=values, subjects=list(values))
    return over_gpu_functions(pcie, list(gpu_values), judged, [f.bdf for f in blind])


# -- PCIE-MPS ----------------------------------------------------------------------------------

@check(
    "PCIE-MPS",
    title="Max Payload Size below what the whole path supports",
    severity="low",
    confidence="documented",
    fix=mps_fix(),
    references=(KERNEL_PARAMS, KB_REGS),
)
def mps(pcie: PcieFacts, cmdline: KernelCmdline | None = None, cmdline_tool: CmdlineTool | None = None) -> Outcome:
    """Reads: DevCap `MaxPayload` (what each device supports) and DevCtl `MaxPayload` (what is
    programmed) of every GPU and of every bridge on its path to the root port, as root.

    Bad value: a GPU's programmed MPS below the minimum DevCap along its whole path (e.g. 128
    where GPU, switch and root port all support 256 or more).

    Why: every TLP carries ~20–26 bytes of header and framing: ≈84 % efficiency at 128 B, ≈91 % at
    256 B, ≈95 % at 512 B (an arithmetic estimate, not a measurement).

    Traps: MaxPayload 256 bytes is the hardware limit (DevCap) of many NVIDIA GPUs — not a
    misconfiguration. The effective value of a path is its minimum. `pci=pcie_bus_peer2peer` on
    the command line sets 128 B on every device on purpose (P2P safety): not an issue. Unreadable
    without root.
    """
    gpus = pcie.gpus
    if not gpus:
        return no_gpu(pcie)
    low: dict[str, str] = {}
    at_limit: dict[str, int] = {}
    good: dict[str, int] = {}
    blind: list[PcieFunction] = []
    for g in gpus:
        exp = g.express
        if exp is None or exp.devctl_mps is None or exp.devcap_mps is None:
            blind.append(g)
            continue
        if exp.devctl_mps >= exp.devcap_mps:
            # At the GPU's own limit: a path's MPS is its minimum, which is at most the GPU's DevCap, so the GPU
            # is never below what its path supports, whatever the ports above it show.
            (at_limit if exp.devcap_mps <= 256 else good)[g.bdf] = exp.devctl_mps
            continue
        path_min = pcie.path_mps(g) if g.upstream else None
        if path_min is None:
            blind.append(g)
            continue
        if exp.devctl_mps < path_min:
            low[g.bdf] = f"programmed {exp.devctl_mps} B, path supports {path_min} B"
        else:
            good[g.bdf] = exp.devctl_mps
    if low and cmdline is not None and "pcie_bus_peer2peer" in cmdline.pci_options():
        return not_an_issue("MaxPayload below what the path supports ("
                            + "; ".join(f"{b}: {v}" for b, v in low.items())
                            + "), set on purpose by `pci=pcie_bus_peer2peer` on the kernel command line: 128 B on "
                            "every device keeps peer-to-peer DMA safe (kernel-parameters); ≈84 % instead of ≈91 % "
                            "link efficiency is an estimate, not a measurement", actual=low, subjects=list(low))
    if low:
        return issue("MaxPayload below what the whole path supports: " + "; ".join(f"{b}: {v}" for b, v in low.items()),
                     actual=low, expected="DevCtl MPS = min(DevCap along the path)", subjects=list(low),
                     fix=mps_fix(mps_plan(pcie, low), tool_of(cmdline_tool)))
    both = {**at_limit, **good}
    if blind and both:  # the coverage rule: the GPUs judged decide, the blind ones are named
        judged = (not_an_issue if at_limit and not good else ok)(
            "MaxPayload " + ", ".join(f"{b} {v} B" for b, v in both.items()) + (
                ": the GPU's own limit (DevCap), not a misconfiguration" if at_limit and not good
                else " at the GPU's or the path's limit"), actual=both, subjects=list(both))
        return over_gpu_functions(pcie, list(both), judged, [f.bdf for f in blind])
    if blind:
        return unreadable_outcome(pcie, blind, "MaxPayload of the GPU or of its upstream bridges")
    if at_limit and not good:
        return not_an_issue("MaxPayload " + ", ".join(f"{b} {v} B" for b, v in at_limit.items())
                            + ": the GPU's own limit (DevCap), not a misconfiguration", actual=at_limit,
                            subjects=list(at_limit))
    return ok("MaxPayload at the GPU's or the path's limit: " + ", ".join(f"{b} {v} B" for b, v in both.items()),
              actual=both,
              subjects=list(both))


# -- PCIE-RELAXED-ORDERING ---------------------------------------------------------------------

@check(
    "PCIE-RELAXED-ORDERING",
    title="Relaxed Ordering enable (information)",
    severity="low",
    confidence="unproven",
    fix=advice("Only where the platform vendor's RDMA tuning guide asks for it (NVIDIA regkey "
                   "EnablePCIERelaxedOrderingMode; NCCL_IB_PCI_RELAXED_ORDERING)", cost="driver-reload"),
    references=("https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/kernel-open/nvidia/nv-reg.h",),
)
def relaxed_ordering(pcie: PcieFacts) -> Outcome:
    """Reads: DevCtl `RlxdOrd` (Device Control bit 4) of every GPU and NIC, as root.

    Bad value: none established for single-node inference: reported as information.

    Why: Relaxed Ordering lets the root complex reorder posted writes; it matters mainly for
    GPUDirect RDMA on AMD EPYC and Arm platforms, where NCCL sets it on IB registrations itself.

    Traps: no published evidence that toggling it changes intra-node GPU↔GPU or H2D throughput
    for LLM serving.
    """
    gpus = pcie.gpus
    if not gpus:
        return no_gpu(pcie)
    values = {f.bdf: f.express.devctl_relaxed_ordering for f in (*gpus, *pcie.role("nic"))
              if f.express is not None and f.express.devctl_relaxed_ordering is not None}
    blind = [g for g in gpus if g.bdf not in values]
    if len(blind) == len(gpus):
        return unreadable_outcome(pcie, blind, "Device Control (RlxdOrd)")
    text = ", ".join(f"{b} RlxdOrd{'+' if v else '-'}" for b, v in values.items())
    return over_gpu_functions(pcie, [g.bdf for g in gpus if g.bdf in values], ok(
        f"{text} (information: no published effect on LLM serving; matters for GPUDirect RDMA tuning)",
        actual=values, subjects=list(values)), [f.bdf for f in blind])


# -- PCIE-10BIT-TAGS ---------------------------------------------------------------------------

@check(
    "PCIE-10BIT-TAGS",
    title="10-bit tags (information)",
    severity="low",
    confidence="unproven",
    fix=advice("Platform firmware setting; setpci only with care (every P2P peer must complete 10-bit tags)",
                   cost="bios"),
    references=(KB_REGS,),
)
def ten_bit_tags(pcie: PcieFacts) -> Outcome:
    """Reads: DevCap2 `10BitTagComp`/`10BitTagReq` (bits 16/17 of `CAP_EXP+0x24`) and DevCtl2
    `10BitTagReq` (bit 12 of `CAP_EXP+0x28`) of each Gen4/Gen5 GPU and of its root port.

    Bad value: requester enable off on a Gen5 GPU whose root port completes 10-bit tags — a
    *possible* read-throughput limit at high latency; otherwise none. Reported as information.

    Why: 10-bit tags raise the outstanding non-posted reads from 256 to 768.

    Traps: no published LLM-serving measurement; enabling the requester breaks P2P to a peer that
    cannot complete 10-bit tags. Not applicable below Gen4.
    """
    gpus = [g for g in pcie.gpus if (gen_of(g.max_link_speed) or 0) >= 4 or g.max_link_speed is None]
    if not pcie.gpus:
        return no_gpu(pcie)
    if not gpus:
        return over_gpu_functions(pcie, [g.bdf for g in pcie.gpus], not_applicable(
            "no Gen4/Gen5 GPU: 10-bit tags are a Gen4+ feature"))
    blind = [g for g in gpus if g.express is None or g.express.devctl2_10bit_req is None]
    if len(blind) == len(gpus):
        return unreadable_outcome(pcie, blind, "Device Control 2 (10-bit tags)")
    by_bdf = pcie.by_bdf()
    seen: dict[str, str] = {}
    possible: list[str] = []
    for g in gpus:
        exp = g.express
        if exp is None or exp.devctl2_10bit_req is None:
            continue
        seen[g.bdf] = f"10BitTagReq{'+' if exp.devctl2_10bit_req else '-'} (capable{'+' if exp.devcap2_10bit_req else '-'})"
        root = by_bdf.get(g.upstream[0]) if g.upstream else None
        if (not exp.devctl2_10bit_req and exp.devcap2_10bit_req and gen_of(g.max_link_speed) == 5
                and root is not None and root.express is not None and root.express.devcap2_10bit_comp):
            possible.append(g.bdf)
    msg = ", ".join(f"{b} {v}" for b, v in seen.items())
    if possible:
        msg += (f"; on {', '.join(possible)} the requester is off although GPU and root port support 10-bit tags: a "
                "possible read-throughput limit, no published LLM-serving measurement")
    # The coverage rule: the GPUs read decide, the blind ones are counted (`K of N shown`), never guessed.
    return over_gpu_functions(pcie, list(seen), ok(msg + " (information)", actual=seen, subjects=list(seen)),
                              [g.bdf for g in blind])


# -- PCIE-ASPM ------------------------------------------------------------------------------------

@check(
    "PCIE-ASPM",
    title="ASPM on GPU links (information)",
    severity="low",
    confidence="unproven",
    fix=Fix.of(step("Prefer performance over link power saving on the kernel command line (or ASPM off in BIOS), "
                       "then reboot", cost="reboot", changes="the kernel command line",
                       keep=cmdline_forms("pcie_aspm.policy=performance"))),
    references=(KERNEL_PARAMS,),
)
def aspm(pcie: PcieFacts) -> Outcome:
    """Reads: LnkCtl `ASPM` of each GPU and of its upstream port, as root;
    `/sys/module/pcie_aspm/parameters/policy`.

    Bad value: L0s/L1 enabled on GPU links of a latency-sensitive server (possible exit latency on
    first access). Reported as information.

    Why: ASPM exit latencies are µs-scale (LnkCap lists them); GPUs also manage their own link
    power (see PCIE-LINK-DOWNTRAIN).

    Traps: no published LLM-serving measurement.
    """
    gpus = pcie.gpus
    if not gpus:
        return no_gpu(pcie)
    by_bdf = pcie.by_bdf()
    states: dict[str, str] = {}
    for g in gpus:
        own = g.express.lnkctl_aspm if g.express else None
        port = by_bdf.get(g.parent or "")
        up = port.express.lnkctl_aspm if port is not None and port.express is not None else None
        if own is not None or up is not None:
            states[g.bdf] = f"{own or '?'} (port {up or '?'})"
    policy = f"; pcie_aspm policy {pcie.aspm_policy}" if pcie.aspm_policy else ""
    if not states:
        blind = unreadable(gpus)
        return unreadable_outcome(pcie, blind or list(gpus), "LnkCtl (ASPM)")
    enabled = [b for b, s in states.items() if "L1" in s or "L0s" in s]
    text = ", ".join(f"{b} ASPM {s}" for b, s in states.items())
    if enabled:
        text += (f"; ASPM is enabled on {len(enabled)} GPU link(s): possible µs exit latency, no published "
                 "LLM-serving measurement")
    blind_gpus = [g for g in gpus if g.express is None or g.express.lnkctl_aspm is None]
    shown = [g.bdf for g in gpus if g not in blind_gpus]
    if not shown:  # only ports' states: the GPUs' own LnkCtl is not in the source
        notes = sorted({g.config_note for g in blind_gpus if g.config_note})
        return unknown(text + policy + f"; LnkCtl of {len(blind_gpus)} GPU(s) not readable "
                       f"({'; '.join(notes) or 'not in the source'})", hint=ROOT_HINT,
                       actual={"links": states, "policy": pcie.aspm_policy}, subjects=[g.bdf for g in blind_gpus])
    return over_gpu_functions(pcie, shown, ok(text + policy + " (information)",
                                              actual={"links": states, "policy": pcie.aspm_policy},
                                              subjects=list(states)), [g.bdf for g in blind_gpus])


def mps_plan(pcie: PcieFacts, gpus: Iterable[str]) -> dict[str, int]:
    """{BDF: MaxPayload bytes} to write, root port first: each named GPU and every bridge above it whose
    programmed MPS is below what the path supports (a bridge shared by several paths gets their minimum)."""
    by_bdf = pcie.by_bdf()
    plan: dict[str, int] = {}
    for bdf in gpus:
        gpu = by_bdf.get(bdf)
        target = pcie.path_mps(gpu) if gpu is not None else None
        if gpu is None or target is None:
            continue
        for dev in [*(by_bdf.get(b) for b in gpu.upstream), gpu]:
            if dev is not None and dev.express is not None and (dev.express.devctl_mps or 0) < target:
                plan[dev.bdf] = min(plan.get(dev.bdf, target), target)
    return plan
