"""PCIE-LINK-DOWNTRAIN on a consumer desktop CPU whose 16 graphics lanes two GPUs share (facts/gpu_links.py
DESKTOP_LANES, split_lanes): an x16 GPU at x8 with two or more GPUs on the host is the board's x8/x8 split,
not-an-issue. A link below x8, one GPU alone, an HEDT or server CPU, or a slot whose own width is shown is judged
as before. Pastes are club-3090 rig reports (the CPU bullet and the GPU bullets), verbatim from the thread beside
each; modelled variants are marked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.gpu_links import DESKTOP_LANES, MOBILE_LANES, GpuLink, split_lanes
from test_corpus_statuses import _coverage

CHECK = "PCIE-LINK-DOWNTRAIN"

# https://github.com/noonghunna/club-3090/issues/474 ("Dual 5090 FE / Ryzen X3D2 / Cards on PCIe 5.0 x8"); the
# retrieved copy ends after GPU 1's link width, before its bus.
CLUB_474 = """\
## CPU + RAM

- **CPU:** AMD Ryzen 9 9950X3D2 16-Core Processor (32 threads)
- **RAM:** 185Gi total, 154Gi available
- **Swap:** 185Gi

## GPU hardware

- **GPU 0:** NVIDIA GeForce RTX 5090 | 32607 MiB | driver 610.43.02 | VBIOS 98.02.2E.00.03 | persistence=Disabled
  - **Power:** limit=575.00 W (default=575.00 W, max=600.00 W) | current_draw=10.56 W
  - **PCIe:** x8 lanes negotiated (GPU max x16, Gen up to 5) | bus 00000000:01:00.0 ⚠ slot is narrower than GPU capability — affects load + all-reduce bandwidth
- **GPU 1:** NVIDIA GeForce RTX 5090 | 32607 MiB | driver 610.43.02 | VBIOS 98.02.2E.00.03 | persistence=Disabled
  - **Power:** limit=575.00 W (default=575.00 W, max=600.00 W) | current_draw=11.62 W
  - **PCIe:** x8 lanes negotiated (GPU max x16, Gen up to 5)
"""

# https://github.com/noonghunna/club-3090/pull/594 (a Ryzen 5 5600X with two RTX 3090: GPU 0 in a chipset slot at
# x4, GPU 1 at x16).
CLUB_594 = """\
## CPU + RAM

- **CPU:** AMD Ryzen 5 5600X 6-Core Processor (12 threads)
- **RAM:** 31Gi total, 22Gi available
- **Swap:** 8.0Gi

## GPU hardware

- **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 610.43.02 | VBIOS 94.02.42.80.88 | persistence=Enabled
  - **Power:** limit=250.00 W (default=370.00 W, max=390.00 W) | current_draw=27.96 W ⚠ user-capped below default
  - **PCIe:** x4 lanes negotiated (GPU max x16, Gen up to 4) | bus 00000000:05:00.0 ⚠ slot is narrower than GPU capability — affects load + all-reduce bandwidth
- **GPU 1:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 610.43.02 | VBIOS 94.02.42.40.B7 | persistence=Enabled
  - **Power:** limit=250.00 W (default=370.00 W, max=390.00 W) | current_draw=34.34 W ⚠ user-capped below default
  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 4) | bus 00000000:0A:00.0
"""


def _run(tmp_path: Path, text: str) -> object:
    return paste_checks(tmp_path, text, CHECK)[CHECK]


# -- the split: real pastes -----------------------------------------------------------------------


def test_ryzen_7_5800x_two_gpus_634() -> None:
    # Corpus 634 (club-3090#642): GPU 0 at x8 of x16, GPU 1's first bullet shown.
    r = capture_checks("634", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "AMD Ryzen 7 5800X" in r.message and "x8/x8" in r.message and "2 GPUs" in r.message


def test_core_i9_11900kf_two_gpus_633() -> None:
    # Corpus 633 (club-3090#73): an 11th-generation desktop Core, GPU 0 at x8 of x16.
    r = capture_checks("633", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "an Intel Core desktop CPU" in r.message and "x8/x8" in r.message


def test_ryzen_9_9950x3d2_two_5090s_both_at_x8(tmp_path: Path) -> None:
    r = _run(tmp_path, CLUB_474)
    assert r.status == "not-an-issue", r.message  # type: ignore[attr-defined]
    assert "0000:01:00.0" in r.message and "GPU 1" in r.message  # type: ignore[attr-defined]
    assert _coverage(r) == "2 GPUs shown"


def test_threadripper_at_full_width_stays_ok_646() -> None:
    # Corpus 646 (club-3090#758): a TRX40 Threadripper 3960X, both GPUs at x16.
    r = capture_checks("646", CHECK)[CHECK]
    assert r.status == "ok" and _coverage(r) == "2 GPUs shown", r.message


# -- counter-examples: the rule must not fire ------------------------------------------------------


def test_x4_on_a_ryzen_with_two_gpus_stays_an_issue(tmp_path: Path) -> None:
    r = _run(tmp_path, CLUB_594)
    assert r.status == "issue" and "x4 (capable x16" in r.message  # type: ignore[attr-defined]


def test_x4_without_a_cpu_stays_an_issue_444() -> None:
    r = capture_checks("444", CHECK)[CHECK]
    assert r.status == "issue" and "x4 (capable x16" in r.message


def test_modelled_one_gpu_at_x8_on_a_desktop_stays_an_issue(tmp_path: Path) -> None:
    # Modelled on 474: GPU 1's bullets left out, so one GPU is listed: x8 on the only card is no split.
    text = CLUB_474.split("- **GPU 1:**")[0]
    r = _run(tmp_path, text)
    assert r.status == "issue", r.message  # type: ignore[attr-defined]


@pytest.mark.parametrize("cpu", [
    "AMD Ryzen Threadripper 3960X 24-Core Processor",
    "AMD Ryzen Threadripper PRO 5975WX 32-Cores",
    "AMD EPYC 7443P 24-Core Processor",
    "Intel(R) Core(TM) i9-10980XE CPU @ 3.00GHz",
    "Intel(R) Xeon(R) w7-2495X",
])
def test_modelled_hedt_or_server_at_x8_stays_an_issue(tmp_path: Path, cpu: str) -> None:
    # Modelled on 474 with the CPU bullet of a part of 48 to 128 lanes: x8 there is a question.
    text = CLUB_474.replace("AMD Ryzen 9 9950X3D2 16-Core Processor", cpu)
    r = _run(tmp_path, text)
    assert r.status == "issue", r.message  # type: ignore[attr-defined]


def test_modelled_lscpu_and_nvidia_smi_q(tmp_path: Path) -> None:
    # Modelled: lscpu's Model name and an `nvidia-smi -q` of two GPUs at 8x of 16x read the same way.
    gpu = """\
GPU 00000000:{bus}:00.0
    Product Name                          : NVIDIA GeForce RTX 4090
    PCI
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
            Link Width
                Max                       : 16x
                Current                   : 8x
"""
    lscpu = """\
Architecture:                    x86_64
CPU op-mode(s):                  32-bit, 64-bit
Byte Order:                      Little Endian
CPU(s):                          32
On-line CPU(s) list:             0-31
Thread(s) per core:              2
Core(s) per socket:              24
Socket(s):                       1
NUMA node(s):                    1
Vendor ID:                       GenuineIntel
CPU family:                      6
Model:                           183
Model name:                      13th Gen Intel(R) Core(TM) i9-13900K
"""
    text = (lscpu + "\n"
            "Driver Version                            : 550.54.14\nAttached GPUs                             : 2\n"
            + gpu.format(bus="01") + gpu.format(bus="02"))
    r = _run(tmp_path, text)
    assert r.status == "not-an-issue", r.message  # type: ignore[attr-defined]
    assert "i9-13900K" in r.message and _coverage(r) == "2 of 2 GPUs shown"  # type: ignore[attr-defined]
    # The same host with a 128-lane EPYC: the x8 links stay an issue.
    r = _run(tmp_path, text.replace("13th Gen Intel(R) Core(TM) i9-13900K", "AMD EPYC 9354 32-Core Processor"))
    assert r.status == "issue", r.message  # type: ignore[attr-defined]


# -- the table and the function -------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "11th Gen Intel(R) Core(TM) i9-11900KF @ 3.50GHz",
    "Intel(R) Core(TM) i9-9900K CPU @ 3.60GHz",
    "Intel(R) Core(TM) i7-4790K CPU @ 4.00GHz",
    "12th Gen Intel(R) Core(TM) i5-12400F",
    "Intel(R) Core(TM) Ultra 9 285K",
    "AMD Ryzen 7 5800X 8-Core Processor",
    "AMD Ryzen 9 7950X3D 16-Core Processor",
    "AMD Ryzen 5 5600 6-Core Processor",
])
def test_desktop_parts_are_in_the_table(name: str) -> None:
    assert any(re.search(d.pattern, name) for d in DESKTOP_LANES), name


@pytest.mark.parametrize("name", [
    "Intel(R) Core(TM) i7-6850K CPU @ 3.60GHz",  # Broadwell-E, 40 lanes
    "Intel(R) Core(TM) i7-5820K CPU @ 3.30GHz",  # Haswell-E, 28 lanes
    "Intel(R) Core(TM) i9-7900X CPU @ 3.30GHz",  # Skylake-X, 44 lanes
    "Intel(R) Core(TM) i7-12700H",  # a laptop
    "AMD Ryzen 5 3400G with Radeon Vega Graphics",  # an APU: x8 for graphics
    "AMD Ryzen 9 7945HX with Radeon Graphics",  # a laptop
    "AMD Ryzen Threadripper 1900X 8-Core Processor",
])
def test_hedt_laptop_and_apu_parts_are_not(name: str) -> None:
    assert not any(re.search(d.pattern, name) for d in DESKTOP_LANES), name


def test_the_slots_own_width_decides_where_shown() -> None:
    # Modelled: the port's LnkCap says x16, so an x8 link is a link below its slot, desktop or not.
    cpu = "AMD Ryzen 9 5950X 16-Core Processor"
    link = GpuLink("0000:01:00.0", cur_width=8, max_width=16)
    assert "x8/x8" in split_lanes(link, cpu, 2)
    assert split_lanes(GpuLink("0000:01:00.0", cur_width=8, max_width=16, port_max_width=16), cpu, 2) == ""
    assert split_lanes(GpuLink("0000:01:00.0", cur_width=4, max_width=16), cpu, 2) == ""
    assert split_lanes(link, cpu, 1) == ""


# -- a laptop CPU: every GPU link is x4 at most (MOBILE_LANES) ------------------------------------


def test_tiger_lake_laptop_cpu_x4_egpu_is_the_platforms_width_2498() -> None:
    # Corpus 2498 (club-3090#347): an i5-1135G7, the RTX A5000 at x4 of x16 (the title: TB3 eGPUs).
    r = capture_checks("2498", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "i5-1135G7" in r.message and "x4 is the platform's width" in r.message


def test_modelled_laptop_cpu_rules() -> None:
    # x4 on an x16 GPU is the laptop's width, one GPU or two; below x4, or a slot's own width shown, it is not.
    cpu = "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz"
    assert "platform's width" in split_lanes(GpuLink("0000:04:00.0", cur_width=4, max_width=16), cpu, 1)
    assert split_lanes(GpuLink("0000:04:00.0", cur_width=2, max_width=16), cpu, 1) == ""
    assert split_lanes(GpuLink("0000:04:00.0", cur_width=4, max_width=16, port_max_width=16), cpu, 1) == ""


def test_modelled_x4_on_a_desktop_core_stays_an_issue(tmp_path: Path) -> None:
    # Modelled on 2498's rig report with a desktop i5-11400's CPU bullet: x4 there is a link below its slot.
    text = body("2498").replace("i5-1135G7", "i5-11400")
    assert _run(tmp_path, text).status == "issue"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [
    "11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz",
    "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz",
])
def test_laptop_parts_of_four_lanes_are_in_the_mobile_table(name: str) -> None:
    assert any(re.search(d.pattern, name) for d in MOBILE_LANES), name
    assert not any(re.search(d.pattern, name) for d in DESKTOP_LANES), name


@pytest.mark.parametrize("name", ["12th Gen Intel(R) Core(TM) i7-12700H", "11th Gen Intel(R) Core(TM) i9-11900KF",
                                  "11th Gen Intel(R) Core(TM) i7-11800H @ 2.30GHz"])
def test_other_parts_are_not_in_the_mobile_table(name: str) -> None:
    assert not any(re.search(d.pattern, name) for d in MOBILE_LANES), name


# -- a Strix Halo APU: its lanes come out as x4 links only (MOBILE_LANES) -----------------------------


@pytest.mark.parametrize("number", ["2904", "2325"])
def test_strix_halo_egpu_at_x4_is_the_platforms_width(number: str) -> None:
    # Corpus 2904 (an RTX 3090 over OCuLink) and 2325 (an RTX 3090 on USB4, an RTX 5070 Ti on OCuLink): rig reports
    # of an AMD RYZEN AI MAX+ 395, each GPU at x4 of x16.
    r = capture_checks(number, CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "Strix Halo" in r.message and "x4 is the platform's width" in r.message


def test_modelled_strix_halo_variants(tmp_path: Path) -> None:
    # Modelled on 2904's rig report: another wording of the part (lscpu's case, a PRO 390) keeps x4 the platform's;
    # x2 of x16 is a link below it; a desktop Ryzen at x4 with one GPU stays an issue.
    text = body("2904")
    link = GpuLink("0000:65:00.0", cur_width=4, max_width=16)
    for cpu in ("AMD Ryzen AI Max+ PRO 395 w/ Radeon 8060S", "AMD Ryzen AI Max 390 w/ Radeon 8050S",
                "AMD RYZEN AI MAX 385 w/ Radeon 8050S"):
        assert "platform's width" in split_lanes(link, cpu, 1), cpu
    assert split_lanes(GpuLink("0000:65:00.0", cur_width=2, max_width=16), "AMD RYZEN AI MAX+ 395", 1) == ""
    cut = text.replace("x4 lanes negotiated", "x2 lanes negotiated")
    assert _run(tmp_path, cut).status == "issue"  # type: ignore[attr-defined]
    desktop = text.replace("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", "AMD Ryzen 9 7950X 16-Core Processor")
    assert _run(tmp_path, desktop).status == "issue"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["AMD Ryzen AI 9 HX 370 w/ Radeon 890M", "AMD Ryzen 9 7950X 16-Core Processor",
                                  "AMD Ryzen AI 7 350 w/ Radeon 860M"])
def test_other_ryzen_ai_parts_are_not_strix_halo(name: str) -> None:
    assert not any(re.search(d.pattern, name) for d in MOBILE_LANES), name
