"""Builders for the PCIe tests: config-space bytes laid out as pci_regs.h says, and sysfs trees."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

SPEED_CODE = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5}
MPS_CODE = {128: 0, 256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}
PORT_CODE = {"endpoint": 0, "root-port": 4, "upstream-port": 5, "downstream-port": 6}


def express(port: str = "endpoint", *, version: int = 2, devcap_mps: int = 256, mps: int = 256, mrrs: int = 512,
            ro: bool = True, ext_tag: bool = True, cap_speed: float = 16.0, cap_width: int = 16, aspm_support: int = 0,
            aspm_ctl: int = 0, speed: float = 16.0, width: int = 16, tag10_comp: bool = True, tag10_req: bool = True,
            tag10_en: bool = False) -> bytes:
    """The PCI Express capability body after its ID/next bytes (offsets from the capability start - 2)."""
    body = bytearray(0x3C - 2)

    def put(fmt: str, off: int, value: int) -> None:
        struct.pack_into(fmt, body, off - 2, value)

    put("<H", 0x02, version | PORT_CODE[port] << 4)
    put("<I", 0x04, MPS_CODE[devcap_mps] | (1 << 5 if ext_tag else 0))
    put("<H", 0x08, (0x10 if ro else 0) | MPS_CODE[mps] << 5 | (0x100 if ext_tag else 0) | MPS_CODE[mrrs] << 12)
    put("<I", 0x0C, SPEED_CODE[cap_speed] | cap_width << 4 | aspm_support << 10)
    put("<H", 0x10, aspm_ctl)
    put("<H", 0x12, SPEED_CODE.get(speed, 0) | width << 4)
    if version >= 2:
        put("<I", 0x24, (1 << 16 if tag10_comp else 0) | (1 << 17 if tag10_req else 0))
        put("<H", 0x28, 0x1000 if tag10_en else 0)
    return bytes(body)


def acs(cap: int = 0x5F, ctl: int = 0) -> bytes:
    return struct.pack("<HH", cap, ctl)


def rebar(entries: list[tuple[int, int, list[int]]]) -> bytes:
    """[(bar, current_size_code, [supported size codes 0..27 (1 MiB << code)])]."""
    out = b""
    for n, (bar, current, supported) in enumerate(entries):
        capword = sum(1 << (c + 4) for c in supported if c < 28)
        ctl = bar | (len(entries) << 5 if n == 0 else 0) | current << 8
        out += struct.pack("<II", capword, ctl)
    return out


def aer(uncorrectable: int = 0, correctable: int = 0) -> bytes:
    return struct.pack("<IIIIII", uncorrectable, 0, 0, correctable, 0, 0)


def config_space(vendor: int = 0x10DE, device: int = 0x2330, class_code: int = 0x030200, header_type: int = 0,
                 caps: list[tuple[int, bytes]] | None = None, ext: list[tuple[int, bytes]] | None = None,
                 size: int = 4096) -> bytes:
    """Config space with a standard capability chain from 0x40 and extended capabilities from 0x100."""
    data = bytearray(4096)
    struct.pack_into("<HH", data, 0, vendor, device)
    struct.pack_into("<I", data, 8, class_code << 8 | 0xA1)
    data[0x0E] = header_type
    caps = caps or []
    if caps:
        struct.pack_into("<H", data, 6, 0x10)
        data[0x34] = 0x40
    off = 0x40
    for n, (cap_id, body) in enumerate(caps):
        nxt = off + ((2 + len(body) + 3) & ~3)
        data[off] = cap_id
        data[off + 1] = nxt if n + 1 < len(caps) else 0
        data[off + 2:off + 2 + len(body)] = body
        off = nxt
    where = 0x100
    for n, (ext_id, body) in enumerate(ext or []):
        nxt = where + ((4 + len(body) + 3) & ~3)
        struct.pack_into("<I", data, where, ext_id | 1 << 16 | ((nxt if n + 1 < len(ext or []) else 0) << 20))
        data[where + 4:where + 4 + len(body)] = body
        where = nxt
    return bytes(data[:size])


@dataclass
class Dev:
    bdf: str
    path: list[str]  # bridges from the root port down to the parent
    vendor: str = "0x10de"
    device: str = "0x2bb1"
    pci_class: str = "0x030200"
    config: bytes | None = None
    speed: str = "32.0 GT/s PCIe"
    max_speed: str = "32.0 GT/s PCIe"
    width: str = "16"
    max_width: str = "16"
    numa: str = "0"
    extra: dict[str, str] = field(default_factory=dict)


def sysfs(devs: list[Dev], domain_root: str = "pci0000:00") -> tuple[dict[str, str | bytes], dict[str, str]]:
    """files and links of /sys for these devices (real paths under /sys/devices, links in /sys/bus/pci/devices)."""
    files: dict[str, str | bytes] = {}
    links: dict[str, str] = {}
    for d in devs:
        real = "/sys/devices/" + "/".join([domain_root, *d.path, d.bdf])
        links[f"/sys/bus/pci/devices/{d.bdf}"] = "../../.." + real[4:]
        files.update({f"{real}/vendor": d.vendor + "\n", f"{real}/device": d.device + "\n",
                      f"{real}/class": d.pci_class + "\n", f"{real}/numa_node": d.numa + "\n",
                      f"{real}/current_link_speed": d.speed + "\n", f"{real}/max_link_speed": d.max_speed + "\n",
                      f"{real}/current_link_width": d.width + "\n", f"{real}/max_link_width": d.max_width + "\n"})
        if d.config is not None:
            files[f"{real}/config"] = d.config
        for name, value in d.extra.items():
            files[f"{real}/{name}"] = value
    return files, links


def gpu_config(**kw: object) -> bytes:
    rebar_entries = kw.pop("rebar", None)
    aer_body = kw.pop("aer", None)
    ext: list[tuple[int, bytes]] = [(0x0001, aer_body if isinstance(aer_body, bytes) else aer())]
    if rebar_entries is not None:
        ext.append((0x0015, rebar(rebar_entries)))  # type: ignore[arg-type]
    return config_space(caps=[(0x01, b"\x03\x00" + bytes(4)), (0x10, express("endpoint", **kw))], ext=ext)  # type: ignore[arg-type]


def bridge_config(port: str = "downstream-port", acs_ctl: int | None = 0, **kw: object) -> bytes:
    ext: list[tuple[int, bytes]] = [(0x0001, aer())]
    if acs_ctl is not None:
        ext.append((0x000D, acs(ctl=acs_ctl)))
    return config_space(vendor=0x1000, device=0xC030, class_code=0x060400, header_type=1,
                        caps=[(0x10, express(port, **kw))], ext=ext)  # type: ignore[arg-type]
