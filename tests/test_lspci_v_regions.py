"""Issue 28: `lspci -v` (one -v) prints each BAR as `Memory at … [size=…]` without its `Region N:` index; they are
read in order, a 64-bit BAR taking two indices, as lspci prints them.

The outputs are real, verbatim from the public thread named beside each.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.lspci import parse_lspci
from stackaudit.importers.pasted import load_pasted

CAPTURES = Path(__file__).parent / "data" / "captures"

# https://github.com/pciutils/pciutils/issues/151 (CarterLi, quoting fastfetch#495): an RTX 3070 Ti Laptop GPU.
PCIUTILS_151 = """\
01:00.0 VGA compatible controller: NVIDIA Corporation GA104 [Geforce RTX 3070 Ti Laptop GPU] (rev a1) (prog-if 00 [VGA controller])
        Subsystem: Micro-Star International Co., Ltd. [MSI] Device 1324
        Flags: bus master, fast devsel, latency 0, IRQ 191, IOMMU group 16
        Memory at 83000000 (32-bit, non-prefetchable) [size=16M]
        Memory at 6000000000 (64-bit, prefetchable) [size=8G]
        Memory at 6200000000 (64-bit, prefetchable) [size=32M]
        I/O ports at 5000 [size=128]
        Expansion ROM at 84000000 [virtual] [disabled] [size=512K]
        Capabilities: <access denied>
        Kernel driver in use: nvidia
        Kernel modules: nouveau, nvidia_drm, nvidia
"""


def _bars(text: str) -> list[tuple[int, int | None, int | None, bool]]:
    [dev] = [d for d in parse_lspci(text).devices if d.vendor == "0x10de"]
    return [(b.index, b.start, b.size, b.is_io) for b in dev.bars]


def test_lspci_v_regions_are_indexed_in_order() -> None:
    assert _bars(PCIUTILS_151) == [(0, 0x83000000, 16 << 20, False), (1, 0x6000000000, 8 << 30, False),
                                   (3, 0x6200000000, 32 << 20, False), (5, 0x5000, 128, True)]
    # Corpus 255 (kata-containers/runtime#2546): a GT 1030 passed into a Kata VM, its BAR1 above 4 GiB.
    text = next(CAPTURES.glob("255-*.txt")).read_text()
    body = text[text.index("00:08.0 VGA"):text.index("Kernel driver in use: nvidia") + 30]
    assert [b[:2] for b in _bars(body)] == [(0, 0xc0000000), (1, 0x1ac0000000), (3, 0x1ad0000000), (5, 0x1000)]


def test_bars_read_from_lspci_v_settle_above_4g(tmp_path: Path) -> None:
    path = tmp_path / "lspci.txt"
    path.write_text(PCIUTILS_151)
    r = run_checks(load_pasted([str(path)]), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"]
    assert r.status == "ok", r.message
    r = run_checks(load_pasted([str(next(CAPTURES.glob("255-*.txt")))]), ["FW-ABOVE4G-MMIO"])["FW-ABOVE4G-MMIO"]
    assert r.status == "ok", r.message
