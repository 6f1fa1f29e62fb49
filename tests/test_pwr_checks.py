"""PWR checks: power limit, clock event reasons (instant and sampled), application clocks, power profile."""

from __future__ import annotations

from typing import Any

import pytest

from corpus import capture_checks
from nvidia_support import QUERY_TEXT, TABLE_OLD, hgx, host_for, pcie_box
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise


def _one(host: Any, check_id: str) -> Any:
    return run_checks(host, [check_id])[check_id]


def _pasted(text: str) -> MemoryHost:
    return MemoryHost(recognise(text).record)


# --- PWR-GPU-POWER-LIMIT --------------------------------------------------------------------------


def test_power_limit_below_default_gives_the_exact_fix() -> None:
    gpus = hgx(count=8)
    gpus[5]["power"] = {**gpus[5]["power"], "limit_mw": 500000, "enforced_mw": 500000}
    r = _one(host_for(gpus), "PWR-GPU-POWER-LIMIT")
    assert r.status == "issue" and r.priority == "P1" and r.subjects == ("0000:ab:00.0",)
    assert r.fix.runtime.startswith("nvidia-smi -i 5 -pl 700") and "71%" in r.message


def test_power_limit_default_from_the_gpu_table_for_a_pasted_table() -> None:
    r = _one(_pasted(TABLE_OLD), "PWR-GPU-POWER-LIMIT")
    assert r.status == "issue" and "nvidia-smi -i 1 -pl 450" in r.fix.runtime and "GPU table" in r.message
    assert r.confidence == "field-reports"


def test_enforced_below_requested_points_to_power_brake() -> None:
    gpus = hgx(count=1)
    gpus[0]["power"] = {**gpus[0]["power"], "enforced_mw": 550000}
    r = _one(host_for(gpus), "PWR-GPU-POWER-LIMIT")
    assert r.status == "issue" and "power brake" in r.message


def test_power_limit_ok_and_maxq_default_is_its_own() -> None:
    assert _one(host_for(pcie_box("NVIDIA L40S", 4)), "PWR-GPU-POWER-LIMIT").status == "ok"


# --- PWR-CLOCK-EVENTS -----------------------------------------------------------------------------


def test_hw_slowdown_under_load_in_one_instant() -> None:
    r = _one(_pasted(QUERY_TEXT), "PWR-CLOCK-EVENTS")
    assert r.status == "issue" and "HW Thermal Slowdown" in r.message and "--sample" in r.message
    assert r.severity == "medium"


def test_idle_instant_is_not_conclusive_and_power_cap_is_a_trap() -> None:
    idle_hw = hgx(count=1, clock_event_reasons=0x1 | 0x8)
    assert _one(host_for(idle_hw), "PWR-CLOCK-EVENTS").status == "unknown"
    capped = hgx(count=1, clock_event_reasons=0x4, utilization={"gpu": 100, "memory": 80})
    assert _one(host_for(capped), "PWR-CLOCK-EVENTS").status == "not-an-issue"
    r = _one(host_for(hgx(count=1)), "PWR-CLOCK-EVENTS")
    assert r.status == "ok" and "not conclusive" in r.message


def test_reasons_not_shown_cover_the_gpus_shown() -> None:
    # Corpus 1373: one GPU's `-q` excerpt cut at its clocks, before the reasons: unknown over the one GPU shown.
    r = capture_checks("1373", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "unknown" and r.coverage is not None and r.coverage.text() == "1 GPU shown"


def _samples(count: int, per_tick: list[list[dict[str, Any]]]) -> dict[str, Any]:
    return {"seconds": len(per_tick), "interval_s": 1.0, "gpu_count": count,
            "ticks": [{"t": float(t), "gpus": gpus} for t, gpus in enumerate(per_tick)]}


def _tick(reasons: int, util: int) -> dict[str, Any]:
    return {"sm": 1980, "mem": 2619, "power_mw": 650000, "reasons": reasons, "gen": 5, "width": 16, "util": util,
            "temp": 70}


def test_sampled_power_brake_under_load_is_an_issue_and_a_flash_is_not() -> None:
    ticks = [[_tick(0x80 if t % 2 else 0x0, 95), _tick(0x4, 95)] for t in range(10)]
    host = host_for(hgx(count=2), nvml_extra={"samples/10": _samples(2, ticks)})
    (r,) = run_audit(host, AuditOptions(select=["PWR-CLOCK-EVENTS"], sample_s=10)).results
    assert r.status == "issue" and "HW Power Brake Slowdown" in r.message and r.subjects == ("0000:18:00.0",)
    flash = [[_tick(0x8 if t == 0 else 0x0, 95)] for t in range(20)]
    host = host_for(hgx(count=1), nvml_extra={"samples/20": _samples(1, flash)})
    (r,) = run_audit(host, AuditOptions(select=["PWR-CLOCK-EVENTS"], sample_s=20)).results
    assert r.status == "ok"
    idle = [[_tick(0x8, 0)] for _ in range(5)]
    host = host_for(hgx(count=1), nvml_extra={"samples/5": _samples(1, idle)})
    (r,) = run_audit(host, AuditOptions(select=["PWR-CLOCK-EVENTS"], sample_s=5)).results
    assert r.status == "unknown" and "not conclusive" in r.message


# --- PWR-APP-CLOCKS -------------------------------------------------------------------------------


def test_app_clocks_below_default_and_locked() -> None:
    r = _one(_pasted(QUERY_TEXT), "PWR-APP-CLOCKS")
    assert r.status == "issue" and "nvidia-smi -i 0 -rac" in r.fix.runtime
    locked = hgx(count=1, clock_event_reasons=0x2, utilization={"gpu": 99, "memory": 70},
                 clocks={"sm": 1200, "graphics": 1200})
    r = _one(host_for(locked), "PWR-APP-CLOCKS")
    assert r.status == "issue" and "-rgc" in r.fix.runtime
    at_max = hgx(count=1, clock_event_reasons=0x2, utilization={"gpu": 99, "memory": 70},
                 clocks={"sm": 1980, "graphics": 1980})
    assert _one(host_for(at_max), "PWR-APP-CLOCKS").status == "not-an-issue"
    assert _one(host_for(hgx(count=2)), "PWR-APP-CLOCKS").status == "ok"


# --- PWR-PLATFORM-PROFILE -------------------------------------------------------------------------


def test_platform_profile_low_power_and_absent() -> None:
    files = {"/sys/firmware/acpi/platform_profile": "low-power\n",
             "/sys/firmware/acpi/platform_profile_choices": "low-power balanced performance\n",
             "/etc/tuned/active_profile": "balanced\n"}
    r = _one(host_for(pcie_box("NVIDIA GeForce RTX 4090", 2), extra_files=files), "PWR-PLATFORM-PROFILE")
    assert r.status == "issue" and "echo performance > /sys/firmware/acpi/platform_profile" in r.fix.runtime
    assert "tuned-adm profile throughput-performance" in r.fix.runtime
    r = _one(host_for(hgx(count=1)), "PWR-PLATFORM-PROFILE")
    assert r.status == "ok" and "common on servers" in r.message


def test_enforced_below_a_default_request_is_not_fixed_with_pl() -> None:
    """Requested = default, enforced lower (BMC cap / PSU brake): `nvidia-smi -pl` cannot help."""
    gpus = hgx(count=2)
    gpus[1]["power"] = {**gpus[1]["power"], "enforced_mw": 450000}
    r = _one(host_for(gpus), "PWR-GPU-POWER-LIMIT")
    assert r.status == "issue" and r.subjects == ("0000:2a:00.0",) and "-pl" not in r.fix.runtime
    assert "BMC" in r.fix.runtime and "power brake" in r.message
    gpus[0]["power"] = {**gpus[0]["power"], "limit_mw": 400000, "enforced_mw": 400000}
    r = _one(host_for(gpus), "PWR-GPU-POWER-LIMIT")
    assert r.fix.runtime.startswith("nvidia-smi -i 0 -pl 700") and "-i 1 -pl" not in r.fix.runtime


def test_platform_profile_masked_inside_a_container_is_unknown() -> None:
    host = host_for(hgx(count=1), extra_files={"/.dockerenv": "", "/proc/1/cgroup": "0::/\n"})
    r = _one(host, "PWR-PLATFORM-PROFILE")
    assert r.status == "unknown" and "container" in r.message


def test_clock_events_without_load_in_the_source_says_so() -> None:
    gpus = hgx(count=1, clock_event_reasons=0x0)
    gpus[0]["utilization"] = {"error": "not-supported"}  # as NVML answers with MIG enabled
    r = _one(host_for(gpus), "PWR-CLOCK-EVENTS")
    assert r.status == "ok" and "GPU load not in the source" in r.message and "not conclusive" in r.message


def _capture(number: str) -> str:
    from pathlib import Path
    return next(Path(__file__).parent.joinpath("data", "captures").glob(f"{number}-*.txt")).read_text()


def test_an_unknown_reason_active_under_load_is_no_ok() -> None:
    # Real: tests/data/captures/683 (a Maxwell GPU at 100 % in P2, `nvidia-smi -q` of a driver before R450):
    # `Unknown : Active` is a reason the driver does not name, so no slowdown is ruled out.
    r = _one(_pasted(_capture("683")), "PWR-CLOCK-EVENTS")
    assert r.status == "unknown" and "`Unknown` clock event reason" in r.message


@pytest.mark.parametrize(("state", "util", "status"), [("Not Active", "100", "ok"), ("Active", "0", "ok")])
def test_a_modelled_unknown_reason_not_active_or_idle_stays_ok(state: str, util: str, status: str) -> None:
    # Modelled from 683: the same section with the reason off, or with the GPU idle (an idle instant is judged
    # as before: not conclusive, said in the ok).
    text = _capture("683").replace("Unknown                     : Active", f"Unknown                     : {state}")
    text = text.replace("Gpu                         : 100 %", f"Gpu                         : {util} %")
    r = _one(_pasted(text), "PWR-CLOCK-EVENTS")
    assert r.status == status, r.message


# --- a GPU at its max operating temperature (issue 28, corpus 880) ---------------------------------

# Modelled on corpus 880's `nvidia-smi -q -d TEMPERATURE` (intel/thermal_daemon#300), the temperatures changed.
TEMPERATURE_ONLY = """==============NVSMI LOG==============

Timestamp                                 : Sat May  8 13:25:04 2021
Driver Version                            : 465.27
CUDA Version                              : 11.3

Attached GPUs                             : 1
GPU 00000000:2D:00.0
    Temperature
        GPU Current Temp                  : {current} C
        GPU Shutdown Temp                 : 102 C
        GPU Slowdown Temp                 : 97 C
        GPU Max Operating Temp            : {max_op} C
        GPU Target Temperature            : N/A
        Memory Current Temp               : N/A
        Memory Max Operating Temp         : N/A
"""


def test_a_gpu_at_its_max_operating_temperature_is_slowing_down_on_the_real_paste() -> None:
    # Corpus 880 (intel/thermal_daemon#300): an MX330 at 56 C against a Max Operating Temp of 57 C, the TEMPERATURE
    # section alone: SW thermal slowdown caps any sustained load, whatever reasons the source leaves out.
    r = capture_checks("880", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "issue" and "GPU 0 at 56 °C, max operating temperature 57 °C" in r.message
    assert r.coverage is not None and r.coverage.text() == "1 of 1 GPU shown"


def test_a_gpu_far_below_its_limits_with_no_reasons_shown_stays_unknown() -> None:
    # Modelled counter-examples: 40 C against 57 C proves nothing; 55 C (within 3 C) is at the limit; a Max Operating
    # Temp of N/A leaves the slowdown temperature (97 C) alone to judge.
    assert _one(_pasted(TEMPERATURE_ONLY.format(current=40, max_op=57)), "PWR-CLOCK-EVENTS").status == "unknown"
    assert _one(_pasted(TEMPERATURE_ONLY.format(current=54, max_op=57)), "PWR-CLOCK-EVENTS").status == "issue"
    assert _one(_pasted(TEMPERATURE_ONLY.format(current=80, max_op="N/A")), "PWR-CLOCK-EVENTS").status == "unknown"


# --- the application-clocks reason bit at idle clocks (issue 28, corpus 874) ---------------------------

def test_the_app_clocks_reason_at_p8_without_the_clocks_is_unknown_on_the_real_paste() -> None:
    # Corpus 874 (choderalab/perses#613): P8, `Applications Clocks Setting : Not Active`, the CLOCK section cut off:
    # at idle clocks no setting binds, so the bit says nothing of the application clocks.
    r = capture_checks("874", "PWR-APP-CLOCKS")["PWR-APP-CLOCKS"]
    assert r.status == "unknown" and "P8" in r.message and "nvidia-smi -q -d CLOCK" in r.hint
    # Corpus 214 (the reasons grepped, no performance state shown) keeps its verdict from the bit.
    assert capture_checks("214", "PWR-APP-CLOCKS")["PWR-APP-CLOCKS"].status == "ok"


@pytest.mark.parametrize("state, status", [("P0", "ok"), ("P2", "ok"), ("P8", "unknown"), ("P12", "unknown")])
def test_the_app_clocks_reason_alone_judges_only_off_idle_clocks(state: str, status: str) -> None:
    # Modelled on corpus 874's section, the performance state changed.
    text = ("Attached GPUs                       : 1\nGPU 00000000:84:00.0\n"
            f"    Performance State               : {state}\n    Clocks Throttle Reasons\n"
            "        Idle                        : Not Active\n        Applications Clocks Setting : Not Active\n"
            "        SW Power Cap                : Not Active\n        HW Slowdown                 : Not Active\n")
    assert _one(_pasted(text), "PWR-APP-CLOCKS").status == status


# --- an old GeForce whose table reads N/A for performance state and power (issue 28, corpus 1320) ----------------

# Modelled on corpus 1320's rows (GeForce GTX 680, driver 325.15, memory in `MB`); {perf} and {power} vary.
OLD_GEFORCE_TABLE = """\
+------------------------------------------------------+
| NVIDIA-SMI 5.325.15   Driver Version: 325.15         |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce GTX 680     Off  | 0000:03:00.0     N/A |                  N/A |
| 30%   29C  {perf}     {power} |        9MB /  4095MB |     N/A      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_an_old_geforce_with_no_perf_state_or_power_has_no_clock_readings_on_the_real_paste() -> None:
    r = capture_checks("1320", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "not-applicable" and "performance state and power" in r.message
    assert r.coverage is not None and r.coverage.text() == "3 GPUs shown"


def test_an_old_table_reads_memory_in_mb_and_a_shown_perf_state_is_no_blind_gpu() -> None:
    host = _pasted(OLD_GEFORCE_TABLE.format(perf="N/A", power="N/A /  N/A"))
    assert _one(host, "PWR-CLOCK-EVENTS").status == "not-applicable"
    (gpu,) = parse_table(OLD_GEFORCE_TABLE.format(perf="N/A", power="N/A /  N/A")).gpus
    assert (gpu.memory_used_mib, gpu.memory_total_mib) == (9.0, 4095.0) and "pstate" in gpu.unsupported
    # A performance state shown (P0) or a power reading shown: the GPU is not blind, the reasons are just not pasted.
    assert _one(_pasted(OLD_GEFORCE_TABLE.format(perf=" P0", power="N/A /  N/A")), "PWR-CLOCK-EVENTS").status == "unknown"
    assert _one(_pasted(OLD_GEFORCE_TABLE.format(perf="N/A", power="43W / 195W")), "PWR-CLOCK-EVENTS").status == "unknown"
