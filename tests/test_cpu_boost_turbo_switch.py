"""KERN-CPU-BOOST: an uncapped cpufreq policy is no ok while the driver's turbo switch is not in the source.

intel_pstate turns turbo off by intel_pstate/no_turbo, acpi-cpufreq by cpufreq/boost (facts/cpufreq.TURBO_SWITCH);
`cpufreq-info` (cpufrequtils) and a `cpupower frequency-info` cut before "boost state support" show neither.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

CHECK = "KERN-CPU-BOOST"

# https://github.com/SeptemberHX/dde-pstate/issues/5 (comment by noyyyy, 2020-05-19): cpufreq-info, CPU 0 and 1.
DDE_PSTATE_5 = """\
jerrywang@jerrywang-PC:~$ cpufreq-info
cpufrequtils 008: cpufreq-info (C) Dominik Brodowski 2004-2009
Report errors and bugs to cpufreq@vger.kernel.org, please.
analyzing CPU 0:
  driver: intel_pstate
  CPUs which run at the same hardware frequency: 0
  CPUs which need to have their frequency coordinated by software: 0
  maximum transition latency: 4294.55 ms.
  hardware limits: 1.20 GHz - 3.20 GHz
  available cpufreq governors: performance, powersave
  current policy: frequency should be within 1.20 GHz and 3.20 GHz.
                  The governor "performance" may decide which speed to use
                  within this range.
  current CPU frequency is 2.99 GHz.
analyzing CPU 1:
  driver: intel_pstate
  CPUs which run at the same hardware frequency: 1
  CPUs which need to have their frequency coordinated by software: 1
  maximum transition latency: 4294.55 ms.
  hardware limits: 1.20 GHz - 3.20 GHz
  available cpufreq governors: performance, powersave
  current policy: frequency should be within 1.20 GHz and 3.20 GHz.
                  The governor "performance" may decide which speed to use
                  within this range.
  current CPU frequency is 2.87 GHz.
"""

# https://github.com/srsran/srsRAN_4G/issues/918 (issue body by jancoej): one CPU's block of a cpufreq-info.
SRSRAN_918 = """\
analyzing CPU 10:
  driver: intel_pstate
  CPUs which run at the same hardware frequency: 10
  CPUs which need to have their frequency coordinated by software: 10
  maximum transition latency: 4294.55 ms.
  hardware limits: 1.20 GHz - 4.60 GHz
  available cpufreq governors: performance, powersave
  current policy: frequency should be within 1.20 GHz and 4.60 GHz.
                  The governor "performance" may decide which speed to use
                  within this range.
  current CPU frequency is 4.10 GHz.
"""

# https://github.com/damentz/liquorix-package/issues/62 (comment by varlesh, 2021-08-08): cpupower shows the switch.
LIQUORIX_62 = """\
cpupower frequency-info
analyzing CPU 0:
  driver: intel_pstate
  CPUs which run at the same hardware frequency: 0
  CPUs which need to have their frequency coordinated by software: 0
  maximum transition latency:  Cannot determine or is not supported.
  hardware limits: 800 MHz - 4.30 GHz
  available cpufreq governors: performance powersave
  current policy: frequency should be within 4.30 GHz and 4.30 GHz.
                  The governor "powersave" may decide which speed to use
                  within this range.
  current CPU frequency: Unable to call hardware
  current CPU frequency: 4.09 GHz (asserted by call to kernel)
  boost state support:
    Supported: yes
    Active: yes
"""


def test_cpufreq_info_under_load_in_the_corpus_is_unknown() -> None:
    result = capture_checks("365", CHECK)[CHECK]  # LostRuins/koboldcpp#318
    assert result.status == "unknown"
    assert "intel_pstate/no_turbo" in result.message and "no cap in the policy" in result.message


def test_cpufreq_info_of_two_cpus_is_unknown(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, DDE_PSTATE_5, CHECK)[CHECK]
    assert result.status == "unknown"
    assert "intel_pstate/no_turbo" in (result.hint or "")


def test_one_cpu_block_is_unknown(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, SRSRAN_918, CHECK)[CHECK].status == "unknown"


def test_cpupower_that_shows_the_boost_state_stays_ok(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, LIQUORIX_62, CHECK)[CHECK]
    assert result.status == "ok"
    assert "no_turbo=0" in result.message


def test_modelled_acpi_cpufreq_without_boost_file_is_unknown(tmp_path: Path) -> None:
    # Modelled: the same report from acpi-cpufreq, whose switch is cpufreq/boost.
    text = DDE_PSTATE_5.replace("intel_pstate", "acpi-cpufreq")
    result = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert result.status == "unknown"
    assert "cpufreq/boost" in result.message
