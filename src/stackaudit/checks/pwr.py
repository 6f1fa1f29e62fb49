"""PWR: GPU power limit, clock event (throttle) reasons, application/locked clocks, platform power profile."""

from __future__ import annotations

from stackaudit.checks.drv import gpu_indices, gpu_list, no_gpu_information, ok_over_gpus, over_gpus
from stackaudit.checks.registry import (
    Fix,
    Outcome,
    check,
    issue,
    not_an_issue,
    not_applicable,
    ok,
    unknown,
)
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.gpus import AmdGpuReadings, GpuInventory
from stackaudit.facts.nvidia import (
    CLOCK_EVENT_LABELS,
    POWER_TOLERANCE_W,
    GpuInfo,
    GpuSamples,
    NvidiaGpus,
    PowerCapSweep,
    PowerProfile,
)
from stackaudit.fixes.model import (
    advice,
    keep_text,
    needs_shell,
    sh,
    step,
)
from stackaudit.gputable import LAPTOP_GPU, LAPTOP_PART, VGPU_PROFILE, cut_laptop_gpu, resolve_cut_name

NVML_REASONS = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"
DCGM_FIELDS = "https://docs.nvidia.com/datacenter/dcgm/2.4/dcgm-api/dcgm-api-field-constants.html"
HW_REASONS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")
BUSY_SHARE = 0.10  # a HW reason active in more than this share of the busy samples is persistent
# NVML's temperature thresholds (nvmlTemperatureThresholds_t): `GPU Slowdown Temp` is where HW slowdown begins,
# `GPU Max Operating Temp` (NVML_TEMPERATURE_THRESHOLD_GPU_MAX) where "the GPU can be throttled below base clock":
# above it the SW Thermal Slowdown reason caps the clocks ("GPU temperature is higher than Max Operating Temp",
# NVML_REASONS). A GPU within THERMAL_MARGIN_C of either is at the limit: any sustained load crosses it.
NVML_THRESHOLDS = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html"
THERMAL_MARGIN_C = 3
# A busy GPU's table readings that rule a clock slowdown out where the reasons are not shown (_unheld): utilisation at
# BUSY_UTIL % or more, at most COOL_C °C (some 20 °C below the lowest max operating temperature of a data-centre or
# desktop board, laptops aside), and a draw of at least UNHELD_SHARE of its cap.
BUSY_UTIL = 90
COOL_C = 65
UNHELD_SHARE = 0.5
# Performance states run from P0 (maximum performance) to P12 (minimum performance) (nvidia-smi's documentation,
# NVIDIA_SMI): a GPU under CUDA load runs at P0 (P2 on GeForce), so at P8 or deeper its clocks are its idle ones.
NVIDIA_SMI = "https://docs.nvidia.com/deploy/nvidia-smi/index.html"
IDLE_PSTATE = 8


# --- PWR-GPU-POWER-LIMIT -----------------------------------------------------------------------


@check(
    "PWR-GPU-POWER-LIMIT",
    applies_to="nvidia-gpu",
    title="GPU power limit below default",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Restore the GPU's default power limit (root; lost at driver unload)",
                       "nvidia-smi -i <n> -pl <default watts>", changes="the GPU's power limit",
                       keep=(keep_text("a systemd oneshot after nvidia-persistenced running the same `nvidia-smi -pl`"),
                             keep_text("or remove what lowers it (DCGM policy, BMC/Redfish power capping)")))),
    references=(NVML_REASONS,),
)
def gpu_power_limit(nvidia: NvidiaGpus | None = None, container: ContainerInfo | None = None,
                    gpus: GpuInventory | None = None, power_cap_sweep: PowerCapSweep | None = None) -> Outcome:
    """Reads: per GPU the current, default, min/max and enforced power limits (NVML
    nvmlDeviceGetPowerManagementLimit / DefaultLimit / LimitConstraints / EnforcedPowerLimit;
    `nvidia-smi -q -d POWER`; the `Pwr:Usage/Cap` column of the table), and the model's default
    power from data/gpus.toml when the source does not print the default (else NVIDIA's board power of the
    card, a power-only row of data/gpus.toml; for a name the table cut, the board power every row its memory fits
    shares: `NVIDIA GeForce RTX 4080 ...` of 16 GB, no RTX 4080 Laptop GPU, is an RTX 4080 or 4080 Super, 320 W
    both; of 32 GB, more than any RTX 4080 board, desktop or Laptop GPU, a desktop card re-fitted with more memory: the
    same rows, corpus 2870). A table draw that reads `ERR!` (`ERR! / 250W`) leaves its cap
    judged, the draw named as unreadable. A Laptop GPU's limit is the laptop maker's power budget: not an issue; so is
    a laptop's only GPU whose cap NVML does not read (`N/A` or `ERR!`, gputable.LAPTOP_PART: a GeForce MX part too).
    A laptop's part is also a mobile-only Quadro name (`Quadro RTX 3000`) and a name the table cut whose memory only
    the Laptop GPU has (gputable.cut_laptop_gpu: `NVIDIA GeForce RTX 3060 ...` with 6 GB). A laptop's only GPU whose
    cap no source shows is not an issue either, whatever the cap: nvidia-smi without its power section, or the GPU
    named outside nvidia-smi (a list's or an issue form's `GPU: NVIDIA GeForce RTX 3060 Laptop GPU`:
    GpuInventory.laptop_gpu). Where the default is not
    known, a GPU at 90 % or more drawing under half its cap is not held back by it: not an issue. A name the table cut
    whose rows (by its memory) differ in their default has none, but a cap at or above the highest of them is not
    below the card's, whichever row it is: ok (NvidiaGpu.power_default_most; a 24 GB `NVIDIA GeForce ...` at 450 W).
    Where no GPU's cap is read otherwise, a power-cap sweep's steps (club-3090's `=== Cap: 330W (GPUs 0,1)` banners,
    each limit set and read back: facts/nvidia.PowerCapSweep) are caps its script set one after another to measure
    them, below the default or not: not an issue, the limit left on the GPUs after the sweep not shown (corpus 2842).

    Bad value: `power.limit` or `enforced.power.limit` below `power.default_limit`.

    Why: at the limit the power-capping loop lowers clocks (clock event reason `SW Power Cap`);
    prefill (compute-bound) suffers most, memory-bound decode less.

    Unequal caps of one model, none below the default, are not an issue (the same card at two caps is what a reader
    flags); a card above the default beside another model at its own default is ok.

    Traps: capping for efficiency can be deliberate (waive it); decode often loses much less than
    the cap ratio (measure). An enforced limit below the requested one comes from the chassis/PSU
    (power brake): see PWR-CLOCK-EVENTS. Max-Q and server variants have lower defaults of their
    own: the default is the GPU's (or its table row's), never another SKU's.
    """
    if nvidia is None:
        return _laptop_budget(gpus) or no_gpu_information()
    listed = gpu_list(nvidia)
    if isinstance(listed, Outcome):
        return listed
    low: list[tuple[GpuInfo, float, float, str]] = []
    fine: list[str] = []
    models_raised: set[str] = set()  # the models of the raised GPUs and of those at the default, to compare
    models_fine: set[str] = set()
    raised: list[str] = []  # above the default: loses nothing (a cap only ever slows a GPU down)
    judged: list[GpuInfo] = []
    unknown_default: list[GpuInfo] = []
    for g in listed:
        limit = g.power_cap_w
        if limit is None:
            continue
        default, origin = g.power_default
        most, rows = g.power_default_most if default is None else (None, "")
        if default is None and most is not None and limit >= most - POWER_TOLERANCE_W:
            # At or above the default of every row a cut name may be: not below the card's, whichever it is.
            judged.append(g)
            raised.append(f"GPU {g.index} {limit:g} W ({rows})")
            continue
        if default is None:
            unknown_default.append(g)
            continue
        judged.append(g)
        if limit < default - POWER_TOLERANCE_W:
            low.append((g, limit, default, origin))
        elif limit > default + POWER_TOLERANCE_W:
            raised.append(f"GPU {g.index} {limit:g} W ({origin} {default:g} W)")
            models_raised.add(g.name or "")
        else:
            fine.append(f"GPU {g.index} {limit:g} W")
            models_fine.add(g.name or "")
    if low:
        # `-pl` only helps where the requested limit itself is low; an enforced limit below a requested
        # default comes from another limiter (BMC/Redfish out-of-band cap, PSU power brake, DCGM policy).
        settable = [(g, d) for g, _, d, _ in low if g.power_limit_w is None or g.power_limit_w < d - POWER_TOLERANCE_W]
        brake = [g for g, *_ in low if g.power_braked]
        where = " (set on the host)" if container is not None and container.in_container else ""
        msg = "; ".join(f"GPU {g.index} capped at {lim:g} W, {o} is {d:g} W ({lim / d:.0%})" for g, lim, d, o in low)
        other = ("find the other limiter: the BMC's out-of-band power cap (Redfish PowerLimitWatts), PSU "
                 "redundancy/power budget, a DCGM policy")
        if brake:
            msg += f"; GPU(s) {gpu_indices(brake)}: the enforced limit is below the requested one (chassis/PSU power " \
                   "brake or an out-of-band cap: `nvidia-smi -pl` cannot raise it; check PWR-CLOCK-EVENTS)"
        fix = (Fix.of(*[s for s in (
            step("Restore the default power limits (root; lost at driver unload)",
                 *[f"nvidia-smi -i {g.index} -pl {d:g}" for g, d in settable], changes="the GPUs' power limits",
                 keep=keep_text("a systemd oneshot after nvidia-persistenced running the same commands")),
            step(f"GPU(s) {gpu_indices(brake)}: {other}", cost="runtime") if len(settable) < len(low) else None)
            if s is not None])
               if settable else Fix.of(step(other[0].upper() + other[1:], cost="runtime")))
        # P1 (medium, a runtime fix), unless the cap is the site's choice: then a waiver records it.
        msg += ("; unless deliberate (an efficiency cap) — then waive it (a [[waiver]] with id = "
                "\"PWR-GPU-POWER-LIMIT\" in stackaudit.toml)")
        return over_gpus(nvidia, judged, issue(
            msg + where, actual={g.subject: lim for g, lim, _, _ in low},
            expected={g.subject: d for g, _, d, _ in low}, subjects=[g.subject for g, _, _, _ in low],
            confidence=None if all(o == "the GPU's default" for *_, o in low) else "field-reports", fix=fix))
    if raised and fine and models_raised & models_fine:
        # Unequal caps are what a reader flags first; none is below the default, so no GPU is held back.
        return over_gpus(nvidia, judged, not_an_issue(
            "power limits differ between the GPUs, none below the default: " + ", ".join(fine) + " at the default; "
            + ", ".join(raised) + " raised above it; a cap slows only a GPU that reaches it, so a higher one loses "
            "nothing", actual=fine + raised))
    # A draw that reads ERR! leaves the cap beside it standing: judged by the cap, the draw named as unreadable.
    err = [g for g in judged if "power-draw" in g.unreadable]
    unread = (f" (the power draw of GPU(s) {gpu_indices(err)} reads ERR!: NVML could not read it; the cap stands)"
              if err else "")
    if raised:  # above the table's default: a factory-overclocked board ships a higher default of its own
        return ok_over_gpus(nvidia, judged, "power limit at or above the default: " + ", ".join(raised + fine)
                            + unread, actual=raised + fine)
    if fine:
        return ok_over_gpus(nvidia, judged, "power limit at the default: " + ", ".join(fine) + unread, actual=fine)
    laptop = [g for g in unknown_default if _laptop_part(g)]
    if laptop and len(laptop) == len(unknown_default):
        # A laptop GPU's limit is the laptop maker's power budget within NVIDIA's range for the part: no default to
        # restore, and nvidia-smi cannot raise it past the budget.
        return over_gpus(nvidia, laptop, not_an_issue(
            "laptop GPU(s): " + ", ".join(f"GPU {g.index} {_laptop_part(g)} capped at {g.power_cap_w:g} W"
                                          for g in laptop)
            + ": the laptop's maker sets the power budget within NVIDIA's range for the part, not a lowered limit "
            "to restore", actual={g.subject: g.power_cap_w for g in laptop}), ask="nvidia-smi -q -d POWER")
    unheld = _busy_below_cap(unknown_default)
    if unheld and len(unheld) == len(unknown_default):
        # The power-capping loop acts only on a GPU whose draw reaches its cap: one busy far below it is held back by
        # something else (memory traffic, the host), whatever the cap's default (corpus 1494).
        return over_gpus(nvidia, unheld, not_an_issue(
            "the cap does not hold the GPU(s) back: " + ", ".join(
                f"GPU {g.index} draws {g.power_draw_w:g} W of a {g.power_cap_w:g} W cap at {g.utilization_gpu} %"
                for g in unheld) + ": the power-capping loop lowers the clocks only at the cap, and a busy GPU this "
            "far below it is held back by something else (a GPU stalled on memory traffic draws little); its "
            "default is not in the source", actual={g.subject: g.power_cap_w for g in unheld}),
            ask="nvidia-smi -q -d POWER")
    if unknown_default:
        return over_gpus(nvidia, unknown_default, unknown(
            "power limits read but the default is not in the source and "
            + _no_default_model(unknown_default), hint="paste `nvidia-smi -q -d POWER`"),
            ask="nvidia-smi -q -d POWER")
    # A laptop's GPU whose cap NVML does not read (`N/A`, or `ERR!`: the GeForce MX parts, corpus 1571): its power is
    # the laptop maker's budget, which no nvidia-smi setting lowered and none can raise.
    uncapped = [g for g in listed if g.power_cap_w is None and ("power" in g.unsupported or "power-limit" in g.unreadable)]
    if uncapped and len(uncapped) == len(listed) and all(LAPTOP_PART.search(g.name or "") for g in uncapped):
        said = ", ".join(f"GPU {g.index} {g.name} ({'ERR!' if 'power-limit' in g.unreadable else 'N/A'})"
                         for g in uncapped)
        return over_gpus(nvidia, uncapped, not_an_issue(
            f"laptop GPU(s) whose power cap NVML does not read: {said}: a laptop's discrete GPU runs within the power "
            "budget its maker set, which NVML often does not report on these parts; no limit was lowered, and there is "
            "no default to restore", actual={g.subject: "ERR!" if "power-limit" in g.unreadable else "N/A"
                                             for g in uncapped}), ask="nvidia-smi -q -d POWER")
    na = [g for g in listed if "power" in g.unsupported]
    if na and len(na) == len(listed) and all(_vgpu(g) for g in na):
        # A vGPU guest: the physical GPU's cap is the hypervisor's, and nvidia-smi in the guest shows none.
        return over_gpus(nvidia, na, not_applicable(
            f"vGPU guest ({', '.join(sorted({g.name or g.label for g in na}))}): the power cap reads N/A, the "
            "physical GPU's limit is set on the hypervisor host", actual={g.subject: "N/A" for g in na}),
            ask="nvidia-smi -q -d POWER")
    if na:
        # The GPU is shown and its cap reads N/A: judged, without a value (the coverage says which GPUs).
        return over_gpus(nvidia, na, unknown(
            "the power cap reads N/A on " + ", ".join(g.label for g in na) + ": NVML could not read it",
            hint="paste `nvidia-smi -q -d POWER`", actual={g.subject: "N/A" for g in na}),
            ask="nvidia-smi -q -d POWER")
    if (budget := _laptop_budget(gpus)) is not None:
        return over_gpus(nvidia, listed, budget, ask="nvidia-smi -q -d POWER")
    if (swept := _swept(power_cap_sweep)) is not None:
        return over_gpus(nvidia, listed, swept, ask="nvidia-smi -q -d POWER")
    return unknown("power limits are not in this source", hint="paste `nvidia-smi -q -d POWER`")


def _swept(sweep: PowerCapSweep | None) -> Outcome | None:
    """Not an issue where a power-cap sweep shows the caps its script set one after another (PowerCapSweep); None
    where none is shown."""
    if sweep is None or not sweep.caps_w:
        return None
    steps = ", ".join(f"{cap:g} W" for cap in sweep.caps_w)
    read_back = (f", each set and read back ({', '.join(f'{w:g} W' for w in sweep.set_w)})"
                 if len(sweep.set_w) == len(sweep.caps_w) else "")
    return not_an_issue(
        f"the caps shown are a power-cap sweep's steps on GPU(s) {', '.join(map(str, sweep.gpus))}: {steps}{read_back}; "
        "its script sets each cap to measure the GPUs under it, a deliberate point of a measurement, not a limit left "
        "on them (the limit after the sweep is not shown)", actual={"sweep_caps_w": list(sweep.caps_w)})


def _no_default_model(gpus: list[GpuInfo]) -> str:
    """Why the GPU table gives no default: the model is not in it, a cut name was read from this very cap, or a cut
    name may be rows whose defaults differ (NvidiaGpu.power_default), each name said once."""
    cut = sorted({g.name_in_words for g in gpus if g.cut_name and g.name != g.cut_name})
    differ: dict[str, str] = {}
    for g in gpus:
        rows = resolve_cut_name(g.cut_name, g.memory_total_mib, None) if g.cut_name == g.name else None
        if rows is not None and len(rows.rows) > 1:
            differ[g.name] = " or ".join(f"{row.name} ({row.power_w:g} W)" for row in rows.rows)
    other = sorted({g.name or g.label for g in gpus if not (g.cut_name and g.name != g.cut_name)} - set(differ))
    said = [f"the model is not in the GPU table: {', '.join(other)}"] if other else []
    if cut:
        said.append(f"the name is cut and inferred from this cap itself: {', '.join(cut)}")
    if differ:
        said.append("the name is cut by the nvidia-smi table and the GPU table's rows it may be differ in their "
                    "default: " + "; ".join(f"{name} may be {rows}" for name, rows in sorted(differ.items())))
    return "; ".join(said)


def _laptop_budget(gpus: GpuInventory | None) -> Outcome | None:
    """Not an issue where the sources show one GPU and it is a laptop's (GpuInventory.laptop_gpu), its cap not shown:
    a laptop GPU's limit is the maker's power budget within NVIDIA's range for the part, which no default restores;
    None otherwise."""
    if gpus is None or not gpus.laptop_gpu:
        return None
    return not_an_issue(
        f"{gpus.laptop_gpu}: its power limit is the laptop maker's budget within NVIDIA's range for the part (Dynamic "
        "Boost may add to it), not a limit lowered below a default to restore (no reading of the cap is judged)",
        actual=gpus.gpus[0].model)


def _laptop_part(g: GpuInfo) -> str:
    """The GPU's name where it is a laptop's part (gputable.LAPTOP_PART: `... Laptop GPU`, `with Max-Q Design`, the
    mobile-only Quadro names), or the Laptop GPU a cut name is by its memory (gputable.cut_laptop_gpu); "" else."""
    if LAPTOP_PART.search(g.name or ""):
        return g.name
    laptop = cut_laptop_gpu(g.cut_name, g.memory_total_mib) if g.cut_name else ""
    return f"{g.cut_name.strip()} ({laptop} by its {g.memory_total_mib:g} MiB)" if laptop else ""


def _busy_below_cap(gpus: list[GpuInfo]) -> list[GpuInfo]:
    """The GPUs at BUSY_UTIL % or more drawing under UNHELD_SHARE of their cap (both read from the same table row);
    [] where one GPU is not so shown."""
    held = [g for g in gpus if g.utilization_gpu is not None and g.utilization_gpu >= BUSY_UTIL
            and g.power_draw_w is not None and g.power_cap_w and g.power_draw_w < UNHELD_SHARE * g.power_cap_w]
    return held if len(held) == len(gpus) else []


def _vgpu(g: GpuInfo) -> bool:
    """A vGPU guest's GPU: NVML's virtualization mode, else the vGPU profile name nvidia-smi prints."""
    return g.virtualization_mode == "VGPU" or bool(VGPU_PROFILE.match((g.name or g.cut_name).strip()))


# --- PWR-CLOCK-EVENTS --------------------------------------------------------------------------


def _labels(reasons: tuple[str, ...] | list[str]) -> str:
    return ", ".join(CLOCK_EVENT_LABELS.get(r, r) for r in reasons)


@check(
    "PWR-CLOCK-EVENTS",
    applies_to="gpu",
    title="Clocks limited by thermal/power-brake/HW slowdown",
    severity="high",
    confidence="documented",
    fix=advice("Nothing from the OS: airflow / fan profile in the BMC, data-centre inlet temperature, PSU redundancy "
                   "and power budget, reseat the GPU power cables", cost="hardware"),
    references=(NVML_REASONS, DCGM_FIELDS, NVML_THRESHOLDS),
    sample=True,
)
def clock_events(nvidia: NvidiaGpus | None = None, gpu_samples: GpuSamples | None = None,
                 amd_gpu_readings: AmdGpuReadings | None = None) -> Outcome:
    """Reads: per GPU the active clock event reasons (NVML nvmlDeviceGetCurrentClocksEventReasons,
    `nvidia-smi -q -d PERFORMANCE` Clocks Event Reasons, older "Clocks Throttle Reasons"), GPU
    utilisation and temperatures; with `audit --sample N`, the reasons over the window.

    Bad value: under load, `HW Slowdown`, `HW Thermal Slowdown`, `HW Power Brake Slowdown` or `SW
    Thermal Slowdown` active (HW slowdown cuts the clocks by a factor of 2 or more); a GPU within
    3 °C of its slowdown temperature or of its max operating temperature (where SW thermal slowdown
    starts: a low limit a laptop's firmware sets throttles any sustained load), read from the
    temperature section alone where the reasons are not shown (the thresholds from the source, else the GPU
    table's `max_operating_temp_c` for the model: the nvidia-smi table shows the temperature, not its limit).
    Not an issue: where the reasons are not shown, every GPU shown 90 % busy or more, at most 65 °C, drawing at least
    half of a cap it stays below (HW slowdown would halve the clocks and the draw; a busy GPU drawing less may be
    held down or waiting: unknown).

    Why: NVML reason bits (GpuIdle 0x1, ApplicationsClocksSetting 0x2, SwPowerCap 0x4, HwSlowdown
    0x8, SyncBoost 0x10, SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80,
    DisplayClockSetting 0x100); DCGM: HW slowdown means temperature too high, an external power
    brake or power draw too high.

    Traps: `Idle` with no work is normal; `SW Power Cap` under sustained full load at the default
    limit is normal operation; HW slowdown may flash during P-state changes. One idle instant says
    nothing: sample under load (`--sample 30`) before acting. A GPU whose table reads N/A for both its
    performance state and its power (an old GeForce on an old driver) gives no clock readings: not applicable.

    An AMD GPU slows down for the same causes. Without NVML or nvidia-smi, rocm-smi's concise table (facts/gpus.py
    AmdGpuReadings) shows each AMD GPU's clocks, temperature, power against its cap and busy share, but no throttle
    reason: unknown, with the readings quoted (a card busy while its peers idle, corpus 1595), never a verdict on
    them.
    """
    if nvidia is None:
        if amd_gpu_readings is not None and amd_gpu_readings.gpus:
            return unknown("rocm-smi's table shows the AMD GPUs' clocks, temperature and power but not why they run "
                           "at those clocks (no throttle reason): " + amd_gpu_readings.in_words(),
                           hint="paste `amd-smi metric` (its THROTTLE_STATUS) while the GPUs work",
                           actual={f"GPU {g.index}": {"busy_pct": g.busy_pct, "sclk_mhz": g.sclk_mhz,
                                                      "temp_c": g.temp_c, "power_w": g.power_w, "cap_w": g.cap_w}
                                   for g in amd_gpu_readings.gpus})
        return unknown("", needs="nvidia")
    gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    if gpu_samples is not None and gpu_samples.series:
        return _judge_samples(gpus, gpu_samples)
    read = [g for g in gpus if g.clock_events is not None]
    hot = {g.index: limit for g in gpus if (limit := _thermal_limit(g))}
    if not read and not hot:
        # Every GPU reads N/A for its performance state and its power (corpus 1320: GeForce GTX 680 on 325.15): NVML
        # gives this GPU no clock readings, so there is nothing to judge a slowdown from.
        blind = [g for g in gpus if {"pstate", "power"} <= set(g.unsupported)]
        if blind and len(blind) == len(gpus):
            return over_gpus(nvidia, blind, not_applicable(
                f"GPU(s) {gpu_indices(blind)} ({', '.join(sorted({g.name or g.label for g in blind}))}) read N/A for "
                "their performance state and power: the driver gives these GPUs no clock readings to judge a "
                "slowdown from", actual={g.subject: "N/A" for g in blind}), ask="nvidia-smi -q -d PERFORMANCE")
        unheld = _unheld([g for g in gpus if g.temp_c is not None or g.utilization_gpu is not None])
        if unheld:
            # Near-full utilisation with nothing in the readings that holds the clocks: the load is the GPU's.
            return over_gpus(nvidia, unheld, not_an_issue(
                "clock event reasons are not in this source, but the readings rule a slowdown out: "
                + ", ".join(f"GPU {g.index} {g.utilization_gpu} % busy at {g.temp_c} °C, {g.power_draw_w:g} W of "
                            f"{g.power_cap_w:g} W" for g in unheld)
                + " (HW slowdown halves the clocks and the draw with them, thermal slowdown needs a hot GPU, the power "
                "cap a draw at the cap)" + ("; utilisation near but below 100 % is the gaps between the engine's "
                                           "batches" if any((g.utilization_gpu or 0) < 100 for g in unheld) else ""),
                actual={g.subject: {"util": g.utilization_gpu, "temp_c": g.temp_c, "draw_w": g.power_draw_w,
                                    "cap_w": g.power_cap_w} for g in unheld}), ask="nvidia-smi -q -d PERFORMANCE")
        # The GPUs shown do not settle it: the verdict covers them (corpus 1373: one GPU's -q excerpt cut at its clocks).
        return over_gpus(nvidia, gpus, unknown("clock event reasons are not in this source",
                                               hint="paste `nvidia-smi -q -d PERFORMANCE`"),
                         ask="nvidia-smi -q -d PERFORMANCE")
    hw = [g for g in read if any(r in HW_REASONS for r in g.clock_events or ())]
    busy_hw = [g for g in hw if g.busy]
    actual = {g.subject: list(g.clock_events or ()) for g in read}
    if busy_hw or hot:
        parts = [f"GPU {g.index} under load: {_labels([r for r in g.clock_events or () if r in HW_REASONS])}"
                 for g in busy_hw]
        hot_gpus = [g for g in gpus if g.index in hot]
        parts += [f"GPU {g.index} at {g.temp_c} °C, {hot[g.index]}" for g in hot_gpus]
        judged = issue("; ".join(parts) + " (one instant; confirm with `--sample 30` under load)", actual=actual,
                       expected="no HW/thermal slowdown under load", subjects=[g.subject for g in busy_hw + hot_gpus],
                       severity="medium")
        return over_gpus(nvidia, list({g.subject: g for g in read + hot_gpus}.values()), judged)
    if hw:
        return unknown(f"HW slowdown reasons active on idle GPU(s) {gpu_indices(hw)} ({_labels(list(hw[0].clock_events or ()))}): "
                       "idle, not conclusive", hint="run `stackaudit audit --sample 30` while the server is under load",
                       actual=actual)
    vague = [g for g in read if (g.busy or g.utilization_gpu is None) and "unknown" in (g.clock_events or ())]
    if vague:
        return unknown(f"an `Unknown` clock event reason is active on GPU(s) {gpu_indices(vague)}, busy or with "
                       "their load not shown: the driver "
                       "(before R450) does not name what caps the clocks, so a slowdown is not ruled out",
                       hint="nvidia-smi -q -d PERFORMANCE,CLOCK on a current driver, under load", actual=actual)
    capped = [g for g in read if "sw_power_cap" in (g.clock_events or ())]
    if capped:
        return over_gpus(nvidia, read, not_an_issue(
            f"SW Power Cap active on GPU(s) {gpu_indices(capped)}: normal at full load at the default limit (see "
            "PWR-GPU-POWER-LIMIT for a lowered one)", actual=actual))
    idle = not any(g.busy for g in read)
    load = "GPU load not in the source" if all(g.utilization_gpu is None for g in read) else "GPUs idle at this instant"
    return ok_over_gpus(nvidia, read, "no thermal, power-brake or HW slowdown active" + (
        f" ({load}: not conclusive under load; use --sample)" if idle else ""), actual=actual)


def _thermal_limit(g: GpuInfo) -> str:
    """The temperature threshold GPU `g` is within THERMAL_MARGIN_C of, in words; "" when neither is."""
    if g.temp_c is None:
        return ""
    if g.temp_slowdown_c is not None and g.temp_c >= g.temp_slowdown_c - THERMAL_MARGIN_C:
        return f"slowdown at {g.temp_slowdown_c} °C"
    limit, origin = g.max_operating_temp
    if limit is not None and g.temp_c >= limit - THERMAL_MARGIN_C:
        return (f"{origin} {limit} °C (above it SW thermal slowdown cuts the clocks, below the base clock if need "
                "be)" + ("" if g.clock_events is not None else "; the clock event reasons are not in this source"))
    return ""


def _unheld(gpus: list[GpuInfo]) -> list[GpuInfo]:
    """The GPUs shown busy whose table readings rule a slowdown out (none where one GPU's do not): near-full
    utilisation, at most COOL_C, drawing at least UNHELD_SHARE of a cap they stay below. HW slowdown cuts the clocks by
    a factor of 2 or more, and the draw with them; thermal slowdown needs a hot GPU; the SW power cap a draw at the cap.
    A busy GPU drawing less (corpus 1273: 100 % at 150-166 W of 350 W) may be held down or waiting: not shown."""
    if not gpus or any(LAPTOP_GPU.search(g.name or "") for g in gpus):
        return []
    for g in gpus:
        draw, cap = g.power_draw_w, g.power_cap_w
        if (g.utilization_gpu is None or g.utilization_gpu < BUSY_UTIL or g.temp_c is None or g.temp_c > COOL_C
                or draw is None or not cap or not UNHELD_SHARE * cap <= draw < cap - POWER_TOLERANCE_W):
            return []
    return gpus


def _judge_samples(gpus: list[GpuInfo], samples: GpuSamples) -> Outcome:
    problems: list[str] = []
    subjects: list[str] = []
    actual: dict[str, object] = {}
    busy_any = False
    for g in gpus:
        if g.index >= len(samples.series):
            continue
        busy = samples.busy_ticks(g.index)
        busy_any = busy_any or busy > 0
        shares = {}
        for reason in (*HW_REASONS, "sw_power_cap"):
            hit, total = samples.reason_share(g.index, reason)
            if total:
                shares[reason] = round(hit / total, 2)
        actual[g.subject] = {"busy_samples": busy, "share": shares}
        bad = [r for r in HW_REASONS if shares.get(r, 0) > BUSY_SHARE]
        if bad:
            problems.append(f"GPU {g.index}: {_labels(bad)} in "
                            + ", ".join(f"{shares[r]:.0%}" for r in bad) + f" of {busy} busy samples")
            subjects.append(g.subject)
    if problems:
        return issue("; ".join(problems) + f" over {samples.seconds} s", actual=actual,
                     expected="no HW/thermal slowdown under load", subjects=subjects)
    if not busy_any:
        return unknown(f"no GPU was busy during the {samples.seconds} s sample: not conclusive",
                       hint="sample while the server is under load", actual=actual)
    return ok(f"no persistent HW/thermal slowdown under load over {samples.seconds} s", actual=actual)


# --- PWR-APP-CLOCKS ----------------------------------------------------------------------------


@check(
    "PWR-APP-CLOCKS",
    applies_to="nvidia-gpu",
    title="Application/locked clocks below default",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Reset application, locked GPU and locked memory clocks", "nvidia-smi -rac", "nvidia-smi -rgc",
                       "nvidia-smi -rmc", changes="the GPUs' clock settings",
                       keep=keep_text("remove the boot script / DCGM policy that sets them"))),
    references=(NVML_REASONS, NVIDIA_SMI),
)
def app_clocks(nvidia: NvidiaGpus) -> Outcome:
    """Reads: per GPU application clocks and default application clocks (NVML
    nvmlDeviceGetApplicationsClock / DefaultApplicationsClock; `nvidia-smi -q -d CLOCK`), current and
    max SM clocks, and the `Applications Clocks Setting` clock event reason.

    Bad value: application clocks below the default; clocks held by a clock setting (locked GPU or
    memory clocks, `-lgc`/`-lmc`) below the maximum while the GPU is busy.

    Why: NVML reason ApplicationsClocksSetting: "GPU clocks are limited by current setting of
    applications clocks".

    Traps: clocks locked at the maximum for benchmark stability are legitimate (not an issue).
    Newer drivers report application clocks as deprecated on some GPUs: then only the reason bit
    tells. A GPU whose `nvidia-smi -q` prints its application clocks and their defaults all N/A (a GeForce card)
    has none to set, and no clock setting shown limits it: not applicable. The reason bit alone says nothing at P8 or deeper (idle clocks, below any clock setting):
    unknown there.
    """
    gpus = gpu_list(nvidia)
    if isinstance(gpus, Outcome):
        return gpus
    low = [g for g in gpus if (g.app_graphics_mhz is not None and g.default_app_graphics_mhz is not None
                               and g.app_graphics_mhz < g.default_app_graphics_mhz)
           or (g.app_mem_mhz is not None and g.default_app_mem_mhz is not None
               and g.app_mem_mhz < g.default_app_mem_mhz)]
    held = [g for g in gpus if "applications_clocks_setting" in (g.clock_events or ()) and g not in low]
    if low:
        return issue("application clocks below default on " + ", ".join(
            f"GPU {g.index} ({g.app_graphics_mhz}/{g.app_mem_mhz} MHz vs {g.default_app_graphics_mhz}/"
            f"{g.default_app_mem_mhz})" for g in low), actual={g.subject: [g.app_graphics_mhz, g.app_mem_mhz]
                                                                 for g in low},
            expected={g.subject: [g.default_app_graphics_mhz, g.default_app_mem_mhz] for g in low},
            subjects=[g.subject for g in low], fix=Fix.of(step("Reset the application clocks", *[f"nvidia-smi -i {g.index} -rac" for g in low],
                            changes="the GPUs' application clocks",
                            keep=keep_text("remove the script/policy that sets them"))))
    at_max = [g for g in held if g.sm_clock_mhz is not None and g.max_sm_clock_mhz
              and g.sm_clock_mhz >= 0.97 * g.max_sm_clock_mhz]
    held_low = [g for g in held if g not in at_max and g.busy]
    if held_low:
        return issue("clocks held by a clock setting (locked clocks?) on " + ", ".join(
            f"GPU {g.index} at {g.sm_clock_mhz} of {g.max_sm_clock_mhz} MHz" for g in held_low),
            actual={g.subject: g.sm_clock_mhz for g in held_low},
            expected={g.subject: g.max_sm_clock_mhz for g in held_low}, subjects=[g.subject for g in held_low],
            fix=Fix.of(step("Reset the locked GPU and memory clocks",
                       *[c for g in held_low for c in (f"nvidia-smi -i {g.index} -rgc", f"nvidia-smi -i {g.index} -rmc")],
                       changes="the GPUs' locked clocks", keep=keep_text("remove the script/policy that locks them"))))
    if at_max:
        return not_an_issue(f"clocks locked at the maximum on GPU(s) {gpu_indices(at_max)}: legitimate (stable "
                            "benchmarks)", actual={g.subject: g.sm_clock_mhz for g in at_max})
    # Application clocks and their defaults all N/A (a GeForce card: NVML's ApplicationsClock is NotSupported), with
    # no clock setting shown limiting the GPU: there are none to lower (corpus 1271).
    none_to_set = [g for g in gpus if "app-clocks" in g.unsupported]
    if none_to_set and len(none_to_set) == len(gpus) and not held:
        return over_gpus(nvidia, none_to_set, not_applicable(
            f"application clocks and their defaults read N/A on GPU(s) {gpu_indices(none_to_set)} "
            f"({', '.join(sorted({g.name for g in none_to_set if g.name}))}): this GPU has no application clocks to "
            "set below the default"), ask="nvidia-smi -q -d CLOCK")
    # The reason bit alone judges a GPU only off its idle clocks: at P8 or deeper no clock setting can bind.
    idle = [g for g in gpus if g.app_graphics_mhz is None and g.clock_events is not None and _idle_pstate(g)]
    read = [g for g in gpus if g.app_graphics_mhz is not None or (g.clock_events is not None and g not in idle)]
    if not read and idle:
        # The GPUs shown do not settle it themselves: unknown, with their coverage.
        return over_gpus(nvidia, idle, unknown(
            f"the application clocks are not shown, and `Applications Clocks Setting: Not Active` on GPU(s) "
            f"{gpu_indices(idle)} at {idle[0].pstate} (idle clocks) says nothing: a clock setting binds only under "
            "load", hint="paste `nvidia-smi -q -d CLOCK`", actual={g.subject: g.pstate for g in idle}),
            ask="nvidia-smi -q -d CLOCK")
    if not read:
        return unknown("application clocks are not in this source", hint="paste `nvidia-smi -q -d CLOCK`")
    if held:
        return unknown(f"a clock setting limits idle GPU(s) {gpu_indices(held)}: idle, not conclusive",
                       hint="look again under load (`--sample 30`)")
    return ok_over_gpus(nvidia, read, f"application clocks at default on {len(read)} GPU(s) (or not set)",
                        actual={g.subject: [g.app_graphics_mhz, g.app_mem_mhz] for g in read})


def _idle_pstate(g: GpuInfo) -> bool:
    """Whether the GPU's performance state is P8 or deeper (IDLE_PSTATE): its clocks sit at the idle level."""
    state = (g.pstate or "").strip().upper()
    return state[:1] == "P" and state[1:].isdigit() and int(state[1:]) >= IDLE_PSTATE


# --- PWR-PLATFORM-PROFILE ----------------------------------------------------------------------

_LOW_PLATFORM = ("low-power", "quiet", "cool", "balanced", "balanced-power")
_LOW_TUNED = ("powersave", "balanced", "desktop", "balanced-battery")


@check(
    "PWR-PLATFORM-PROFILE",
    title="OS/firmware power profile set to low power",
    severity="medium",
    confidence="documented",
    fix=Fix.of(step("Select the performance power profile", sh("echo performance > /sys/firmware/acpi/platform_profile"),
                       "tuned-adm profile throughput-performance", "powerprofilesctl set performance",
                       changes="the platform power profile",
                       keep=(keep_text("the same tools persist"),
                             keep_text('"System Profile: Performance" (per vendor guide)', label="BIOS")))),
    references=("https://docs.kernel.org/userspace-api/sysfs-platform_profile.html",),
)
def platform_profile(power_profile: PowerProfile, container: ContainerInfo | None = None) -> Outcome:
    """Reads: `/sys/firmware/acpi/platform_profile` and its choices, `/etc/tuned/active_profile`,
    `powerprofilesctl get`.

    Bad value: platform profile `low-power`/`quiet`/`cool`/`balanced` on a serving host; tuned
    `powersave`/`balanced`; power-profiles-daemon `power-saver`.

    Why: platform_profile selects the firmware's power and thermal limits (workstations: RTX PRO
    6000, RTX 4090/5090 boxes); tuned and power-profiles-daemon set the governor and EPP.

    Traps: many servers have no platform_profile: its absence is not a finding. Inside a container
    /sys/firmware is masked (Docker) and tuned/power-profiles-daemon are the host's: there, nothing
    found is unknown, not ok.
    """
    p = power_profile
    bad: list[str] = []
    cmds: list[str] = []
    if p.platform_profile in _LOW_PLATFORM:
        bad.append(f"platform_profile {p.platform_profile}")
        target = "performance" if not p.choices or "performance" in p.choices else p.choices[-1]
        cmds.append(f"echo {target} > /sys/firmware/acpi/platform_profile")
    if p.tuned in _LOW_TUNED:
        bad.append(f"tuned profile {p.tuned}")
        cmds.append("tuned-adm profile throughput-performance")
    if p.ppd == "power-saver":
        bad.append("power-profiles-daemon power-saver")
        cmds.append("powerprofilesctl set performance")
    actual = {"platform_profile": p.platform_profile, "tuned": p.tuned, "power_profiles_daemon": p.ppd}
    if bad:
        return issue("power profile set for saving power: " + ", ".join(bad), actual=actual,
                     expected="performance / throughput-performance",
                     fix=Fix.of(step("Select the performance power profile", *[sh(c) if needs_shell(c) else c for c in cmds],
                       changes="the platform power profile", keep=keep_text("the same commands persist the profile"))))
    if p.platform_profile is None and p.tuned is None and p.ppd is None:
        if container is not None and container.in_container:
            return unknown("no platform_profile, tuned or power-profiles-daemon visible inside this container "
                           "(/sys/firmware is masked; the profile is the host's)", hint="run on the host",
                           actual=actual)
        return ok("no platform_profile, tuned or power-profiles-daemon: nothing set (common on servers)",
                  actual=actual)
    return ok("power profile: " + ", ".join(f"{k} {v}" for k, v in actual.items() if v), actual=actual)
