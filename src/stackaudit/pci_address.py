"""PCI addresses (domain:bus:device.function, "BDF"): the one pattern and the one normal form.

Sources spell an address differently: sysfs and `lspci -D` write `0000:01:00.0`, lspci without -D
`01:00.0`, NVML and nvidia-smi `00000000:01:00.0`, and a VMD domain has five digits (`10000:e1:00.0`).
Every fact, check and fix keys devices by the sysfs form that `normalize_bdf` returns.
"""

from __future__ import annotations

import re

_BUS_DEVICE_FUNCTION = r"[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
# A regular-expression fragment (no group) for an address with its domain, as sysfs, NVML and the kernel
# log write it; and one whose domain may be left out, as lspci without -D writes it.
BDF = rf"[0-9a-fA-F]{{4,8}}:{_BUS_DEVICE_FUNCTION}"
BDF_OPTIONAL_DOMAIN = rf"(?:[0-9a-fA-F]{{4,8}}:)?{_BUS_DEVICE_FUNCTION}"

_PARTS = re.compile(r"(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])")
_WHOLE = re.compile(BDF)


def normalize_bdf(text: str) -> str:
    """The sysfs form of the first address in `text`, "" when it holds none.

    `00000000:01:00.0` -> `0000:01:00.0` (NVML); `DA:00.0` -> `0000:da:00.0` (lspci without -D);
    `10000:E1:00.0` -> `10000:e1:00.0` (a VMD domain keeps its digits).
    """
    m = _PARTS.search(text or "")
    if not m:
        return ""
    domain = int(m.group(1) or "0", 16)
    return f"{domain:04x}:{m.group(2)}:{m.group(3)}.{m.group(4)}".lower()


def is_bdf(text: str) -> bool:
    """Whether `text` is one whole address with its domain (a sysfs device directory's name)."""
    return _WHOLE.fullmatch(text) is not None


def from_nccl_bus_id(value: str) -> str:
    """The sysfs form of an NCCL log's `busId` field, "" when it is not one.

    NCCL prints the address's hex digits without separators (busIdToInt64 in NCCL's utils.cc): `e9000` is
    0000:e9:00.0, `100000` is 0001:00:00.0, `80` is 0000:00:08.0.
    """
    digits = value.strip().lower().rjust(9, "0")
    if not re.fullmatch(r"[0-9a-f]{9,12}", digits) or int(digits[-1], 16) > 7:
        return ""
    return f"{int(digits[:-5], 16):04x}:{digits[-5:-3]}:{digits[-3:-1]}.{digits[-1]}"


def on_root_bus(bdf: str) -> bool:
    """Whether an address sits on bus 00 of its domain (`0000:00:08.0`, `0001:00:00.0`)."""
    m = _PARTS.fullmatch(bdf)
    return m is not None and m.group(2) == "00"


def off_link_slot(bdf: str) -> bool:
    """Whether an address names a device other than 0 on a bus other than 00 (`0000:06:10.0`, `0000:80:02.0`).

    A PCIe link joins one port to one device: the card below a root port or a switch's downstream port is device 0
    of that port's secondary bus (PCI Express Base Specification, "Device Number" of a downstream port's link; ARI
    renumbers functions, not devices). A card at another device number sits on a shared, conventional PCI bus, which
    a hypervisor's virtual PCI bridge gives its passed-through devices (QEMU's pci-bridge, EC2's `10:1c.0`).
    """
    m = _PARTS.fullmatch(bdf)
    return m is not None and m.group(2) != "00" and m.group(3) != "00"

