"""Issue 28: an `lspci -v` display device pasted with its bus address cut off (corpus 1552: `VGA compatible controller:
NVIDIA Corporation Device 2684 ...` over its detail lines) is read, keyed as a device whose address is not shown, and
lspci -v's `Flags:` line gives its NUMA node and IOMMU group.

The outputs are real, verbatim from the public thread named beside each, except where a test says it models one.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.lspci import UNADDRESSED_KEY, parse_lspci, unaddressed_header
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"
CORPUS_1552 = next(CAPTURES.glob("1552-*.txt"))

# https://github.com/tinygrad/open-gpu-kernel-modules/issues/28 (mylesgoose, 2025-01-05): an RTX 4090's 32G BAR1, the
# same unprivileged `lspci -v` shape as corpus 1552, with its address.
TINYGRAD_28 = """\
tiny@tiny14:~$ lspci -s 01:00.0 -v
01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1) (prog-if 00 [VGA controller])
        Subsystem: Micro-Star International Co., Ltd. [MSI] Device 510b
        Physical Slot: 49
        Flags: bus master, fast devsel, latency 0, IRQ 377
        Memory at b2000000 (32-bit, non-prefetchable) [size=16M]
        Memory at 28800000000 (64-bit, prefetchable) [size=32G]
        Memory at 28400000000 (64-bit, prefetchable) [size=32M]
        I/O ports at 3000 [size=128]
        Expansion ROM at b3000000 [virtual] [disabled] [size=512K]
        Capabilities: <access denied>
        Kernel driver in use: nvidia
        Kernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
"""

# https://github.com/ilya-zlobintsev/LACT/pull/948 (revonateB0T, 2026-03-30): an AMD Phoenix iGPU, its Flags line with
# its IOMMU group.
LACT_948 = """\
63:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Phoenix1 (rev c2) (prog-if 00 [VGA controller])
        Subsystem: AIstone Global Limited Device 140b
        Flags: bus master, fast devsel, latency 0, IRQ 47, IOMMU group 16
        Memory at 7c00000000 (64-bit, prefetchable) [size=256M]
        Memory at 78000000 (64-bit, prefetchable) [size=2M]
        I/O ports at 1000 [size=256]
        Memory at 78500000 (32-bit, non-prefetchable) [size=512K]
        Capabilities: <access denied>
        Kernel driver in use: amdgpu
        Kernel modules: amdgpu
"""


def _capture(path: Path) -> str:
    text = path.read_text()
    return text[text.index("verbatim -----\n") + len("verbatim -----\n"):]


def test_a_display_device_without_its_address_is_read() -> None:
    [dev] = parse_lspci(_capture(CORPUS_1552)).devices
    assert dev.bdf == UNADDRESSED_KEY.format(n=1)
    assert (dev.vendor, dev.device, dev.driver) == ("0x10de", "0x2684", "nvidia")
    assert (dev.numa_node, dev.iommu_group) == (1, 7)
    assert [(b.index, b.size) for b in dev.bars if not b.is_io] == [(0, 16 << 20), (1, 32 << 30), (3, 32 << 20)]
    assert dev.config is not None and not dev.config.readable  # `Capabilities: <access denied>`


def test_two_unaddressed_devices_keep_two_keys() -> None:
    # Modelled: tinygrad#28's device twice, each with its address cut off as corpus 1552's user cut theirs.
    body = TINYGRAD_28.split("\n", 2)[2]
    one = "VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)\n" + body
    keys = [d.bdf for d in parse_lspci(one + "\n" + one).devices]
    assert keys == [UNADDRESSED_KEY.format(n=1), UNADDRESSED_KEY.format(n=2)]


def test_the_flags_line_gives_the_iommu_group_and_numa_node() -> None:
    [amd] = parse_lspci(LACT_948).devices
    assert (amd.iommu_group, amd.numa_node) == (16, None)
    [gpu] = parse_lspci(TINYGRAD_28.split("\n", 1)[1]).devices
    assert (gpu.bdf, gpu.iommu_group, gpu.numa_node) == ("0000:01:00.0", None, None)


def test_the_paste_is_recognised_and_judged() -> None:
    results = run_checks(load_pasted([str(CORPUS_1552)]), ["FW-REBAR-BAR1", "FW-IOMMU-MODE", "FW-ACS-P2P"])
    bar1 = results["FW-REBAR-BAR1"]
    assert bar1.status == "ok" and "32 GiB" in bar1.message, bar1.message
    iommu = results["FW-IOMMU-MODE"]
    # lspci puts the GPU in IOMMU group 7: an IOMMU is on, its mode (DMA or identity) is not shown.
    assert iommu.status == "unknown" and "group 7" in iommu.message, iommu.message
    acs = results["FW-ACS-P2P"]
    # `Capabilities: <access denied>`: lspci ran without root, so no port's ACS could show.
    assert acs.status == "unknown" and "<access denied>" in acs.message, acs.message


def test_the_same_shape_with_its_address_reads_the_32g_bar1(tmp_path: Path) -> None:
    path = tmp_path / "lspci.txt"
    path.write_text(TINYGRAD_28)
    r = run_checks(load_pasted([str(path)]), ["FW-REBAR-BAR1"])["FW-REBAR-BAR1"]
    assert r.status == "ok" and "0000:01:00.0 32 GiB" in r.message, r.message


def test_a_class_name_in_prose_is_no_device() -> None:
    # Modelled: a sentence that starts with a class name, with no lspci detail line under it, is not read as a device.
    lines = ["VGA compatible controller: the NVIDIA card is the second one", "it is in slot 2"]
    assert unaddressed_header(lines, 0) is None
    assert unaddressed_header(["VGA compatible controller: NVIDIA Corporation Device 2684",
                               "        Subsystem: NVIDIA Corporation Device 16f3"], 0) is not None
