"""Issue 28: a fast governor whose CPUs read below their policy's lowest frequency (facts/cpufreq.py
CpuFreq.below_floor) is not what holds the clock: KERN-CPUFREQ-GOVERNOR says not an issue there, and ok where the
clock is inside the policy's range. cpufreq-info's `current CPU frequency is 400 MHz.` (no colon) is read."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cpufreq import parse_frequency_info
from test_cpu_boost_turbo_switch import SRSRAN_918 as CPU_10_918

GOV = "KERN-CPUFREQ-GOVERNOR"

# https://github.com/srsran/srsRAN_4G/issues/918 (cpufreq-info, intel_pstate, performance, inside the range).
# The same cpufreq-info block as test_cpu_boost_turbo_switch's, with the tool's two banner lines above it.
SRSRAN_918 = ("cpufrequtils 008: cpufreq-info (C) Dominik Brodowski 2004-2009\n"
              "Report errors and bugs to cpufreq@vger.kernel.org, please.\n" + CPU_10_918)

# https://github.com/SolidRun/lx2160a_build/issues/46 (cpupower, qoriq_cpufreq, its policy 1000-1000 MHz).
SOLIDRUN_46 = """\
analyzing CPU 0:
  driver: qoriq_cpufreq
  CPUs which run at the same hardware frequency: 0 1
  CPUs which need to have their frequency coordinated by software: 0 1
  maximum transition latency: 9 ns
  hardware limits: 1000 MHz - 2.00 GHz
  available frequency steps:  1000 MHz, 1000 MHz
  available cpufreq governors: conservative ondemand userspace powersave performance schedutil
  current policy: frequency should be within 1000 MHz and 1000 MHz.
                  The governor "ondemand" may decide which speed to use
                  within this range.
  current CPU frequency: 1000 MHz (asserted by call to hardware)
"""


def test_cpufreq_info_current_frequency_is_read() -> None:
    blocks = parse_frequency_info(SRSRAN_918.splitlines())
    assert blocks[0].cur == 4_100_000


def test_below_the_floor_under_performance_365() -> None:
    """Corpus 365 (LostRuins/koboldcpp#318): 400 MHz against an 800 MHz floor, governor performance."""
    r = capture_checks("365", GOV)[GOV]
    assert r.status == "not-an-issue"
    assert "400 MHz, below the policy's 800 MHz floor" in r.message


def test_inside_the_range_is_ok(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, SRSRAN_918, GOV)[GOV].status == "ok"


def test_at_the_floor_is_not_below_it(tmp_path: Path) -> None:
    """SolidRun/lx2160a_build#46 (its governor set to performance, modelled): 1000 MHz at a 1000 MHz floor."""
    r = paste_checks(tmp_path, SOLIDRUN_46.replace('"ondemand"', '"performance"'), GOV)[GOV]
    assert r.status == "ok"


def test_slow_governor_still_an_issue_below_the_floor(tmp_path: Path) -> None:
    """Modelled: acpi-cpufreq with ondemand, 400 MHz under an 800 MHz floor: the slow governor is the finding."""
    text = SRSRAN_918.replace("intel_pstate", "acpi-cpufreq").replace('"performance"', '"ondemand"').replace(
        "1.20 GHz", "800 MHz").replace("4.10 GHz.", "400 MHz.")
    assert paste_checks(tmp_path, text, GOV)[GOV].status == "issue"
