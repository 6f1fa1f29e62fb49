"""KVER-INTEL-PSTATE from lscpu alone (corpus 1868).

lscpu 2.38 and later print `CPU(s) scaling MHz:` from a loaded cpufreq driver, with `Frequency boost:` between it
and `Stepping:` wherever /sys/devices/system/cpu/cpufreq/boost exists. On an Intel CPU only acpi-cpufreq creates that
file, so `Stepping:` followed by `CPU(s) scaling MHz:` is intel_pstate at work: the OS controls P-states, ok.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

PSTATE = "KVER-INTEL-PSTATE"

REAL = {
    # linux-man mailing list, Alejandro Colomar, 2023-04-09 ("Re: Compressed man pages"): a desktop Broadwell.
    "i7-5775C": """\
$ lscpu
  Model name:            Intel(R) Core(TM) i7-5775C CPU @ 3.30GHz
    CPU family:          6
    Model:               71
    Thread(s) per core:  1
    Core(s) per socket:  4
    Socket(s):           1
    Stepping:            1
    CPU(s) scaling MHz:  44%
    CPU max MHz:         3700.0000
    CPU min MHz:         800.0000
""",
    # A RAPL energy tool's lscpu fixture (Rust, `test_parse_cpu_vendor_from_lscpu`): a Meteor Lake laptop with HWP.
    "core-ultra-5-135U": """\
Architecture:             x86_64
  CPU op-mode(s):         32-bit, 64-bit
CPU(s):                   14
  On-line CPU(s) list:    0-13
Vendor ID:                GenuineIntel
  Model name:             Intel(R) Core(TM) Ultra 5 135U
    CPU family:           6
    Model:                170
    Thread(s) per core:   2
    Core(s) per socket:   12
    Socket(s):            1
    Stepping:             4
    CPU(s) scaling MHz:   40%
    CPU max MHz:          4400.0000
    CPU min MHz:          400.0000
    BogoMIPS:             5376.00
""",
}

# A load-test report's few lscpu lines (a Xeon Gold 6226R host): the lines around the boost line are not shown.
GREPPED = """\
CPU(s):                                  64
Model name:                              Intel(R) Xeon(R) Gold 6226R CPU @ 2.90GHz
Thread(s) per core:                      2
Socket(s):                               2
CPU(s) scaling MHz:                      31%
"""


def test_real_lscpu_without_boost_line(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, REAL["core-ultra-5-135U"], PSTATE)[PSTATE]
    assert r.status == "ok" and "intel_pstate" in r.message


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_lscpu_read_as_intel_pstate(name: str) -> None:
    """The mailing list's excerpt (`[...]` for the lines it leaves out) names no vendor: read at the fact."""
    from stackaudit.facts.cpufreq import intel_driver_from_lscpu
    from stackaudit.facts.system import parse_lscpu

    cpu = parse_lscpu(REAL[name])
    assert cpu.cpufreq_scaling and not cpu.frequency_boost
    assert intel_driver_from_lscpu("GenuineIntel", cpu.frequency_boost, cpu.cpufreq_scaling) == "intel_pstate"


def test_capture_1868_broadwell_xeon() -> None:
    """Real (capture 1868, ggml-org/llama.cpp#3780): lscpu of a dual Xeon E5-2680 v4."""
    r = capture_checks("1868", PSTATE)[PSTATE]
    assert r.status == "ok" and "no `Frequency boost:` line" in r.message


def test_real_grepped_lines_stay_open(tmp_path: Path) -> None:
    text = "Vendor ID:                               GenuineIntel\n" + GREPPED
    assert paste_checks(tmp_path, text, PSTATE)[PSTATE].status == "unknown"


def test_modelled_boost_line_is_acpi_cpufreq() -> None:
    """Modelled: the same Xeon with `Frequency boost: enabled` between the two lines runs acpi-cpufreq."""
    from stackaudit.facts.cpufreq import intel_driver_from_lscpu
    from stackaudit.facts.system import parse_lscpu

    with_boost = REAL["core-ultra-5-135U"].replace("    CPU(s) scaling MHz:", "    Frequency boost:      enabled\n"
                                                    "    CPU(s) scaling MHz:")
    cpu = parse_lscpu(with_boost)
    assert not cpu.cpufreq_scaling
    assert intel_driver_from_lscpu(cpu.vendor, cpu.frequency_boost, cpu.cpufreq_scaling) == "acpi-cpufreq"
    bare = parse_lscpu(REAL["core-ultra-5-135U"])
    assert bare.cpufreq_scaling
    assert intel_driver_from_lscpu(bare.vendor, bare.frequency_boost, bare.cpufreq_scaling) == "intel_pstate"
