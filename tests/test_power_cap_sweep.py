"""PWR-CLOCK-EVENTS from club-3090's power-cap sweep (`scripts/power-cap-sweep.sh`, importers/rig_report.py): each
cap's `[result]` line holds what nvidia-smi read in the samples taken under load (peak temperature, median SM clock,
P-state, and the share of samples with clocks_throttle_reasons.sw_power_cap and .hw_thermal_slowdown Active), read
as the `nvidia-smi -q` section of each GPU its `=== Cap: … (GPUs …) ===` banner names."""

from __future__ import annotations

import time
from pathlib import Path

from corpus import capture_report, capture_result, paste_checks
from stackaudit.importers.rig_report import _SWEEP_RESULT, power_cap_sweep

CLK = "PWR-CLOCK-EVENTS"

# Real: https://github.com/noonghunna/club-3090/issues/698 (two RTX 3090s at TP=2, the first two caps of the sweep;
# its `[bench]` lines, which name the script's log files, left out).
CLUB_698 = """\
```text
================================================
=== Cap: 330W (GPUs 0,1) @ 2026-07-13T15:16:12Z ===
================================================
[verify] limit set to: 330.00W

[result] cap=330W actual_W=617.78 temp=75 sm_clk=1920 mem_clk=9501 pstate=P2 throttle_pwr=97 throttle_thermal=0 narr=29.07 code=29.07 tps_per_w=0.047
[time] 330W cap wall=23.3s start=2026-07-13T15:16:12Z end=2026-07-13T15:16:35Z

================================================
=== Cap: 340W (GPUs 0,1) @ 2026-07-13T15:16:35Z ===
================================================
[verify] limit set to: 340.00W

[result] cap=340W actual_W=615.98 temp=76 sm_clk=1905 mem_clk=9501 pstate=P2 throttle_pwr=80 throttle_thermal=0 narr=28.57 code=28.91 tps_per_w=0.046
```
"""


def test_corpus_2599_no_throttle_is_ok() -> None:
    assert "power-cap sweep (lines 11-30)" in capture_report("2599").source["recognised"]
    r = capture_result("2599", CLK)
    assert r.status == "ok" and r.coverage is not None and r.coverage.text() == "1 GPU shown"


def test_two_gpu_sweep_at_the_cap_is_the_power_cap(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, CLUB_698, CLK)[CLK]
    assert r.status == "not-an-issue" and "SW Power Cap" in r.message
    assert r.coverage is not None and r.coverage.text().startswith("2 ")


def test_thermal_share_is_not_ok(tmp_path: Path) -> None:
    # Modelled: the same sweep where the samples show HW thermal slowdown at one cap.
    hot = CLUB_698.replace("throttle_pwr=80 throttle_thermal=0", "throttle_pwr=80 throttle_thermal=35")
    assert paste_checks(tmp_path, hot, CLK)[CLK].status == "issue"


def test_unread_samples_and_other_key_value_lines_are_not_read() -> None:
    # Modelled: a cap whose sampler caught nothing under load prints `?`; another tool's key=value line.
    unread = ["[result] cap=330W actual_W=? temp=? sm_clk=? mem_clk=? pstate=? throttle_pwr=? throttle_thermal=? "
              "narr=29.07 code=29.07 tps_per_w=?"]
    assert list(power_cap_sweep(unread)) == []
    assert list(power_cap_sweep(["result cap=330W temp=43 throttle_pwr=0"])) == []


def test_result_regex_is_linear() -> None:
    line = "[result] cap=1W actual_W=" + "1" * 200_000
    start = time.perf_counter()
    assert _SWEEP_RESULT.match(line) is None
    assert time.perf_counter() - start < 0.5
