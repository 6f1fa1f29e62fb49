"""PCI addresses: one normal form (pci_address.normalize_bdf) for every source's spelling."""

from __future__ import annotations

import pytest

from stackaudit.facts.lspci import parse_lspci
from stackaudit.pci_address import is_bdf, normalize_bdf


@pytest.mark.parametrize(("text", "normal"), [
    ("0000:01:00.0", "0000:01:00.0"),  # sysfs, lspci -D
    ("00000000:01:00.0", "0000:01:00.0"),  # NVML, nvidia-smi
    ("DA:00.0", "0000:da:00.0"),  # lspci without -D
    ("  00000000:3B:00.0 ", "0000:3b:00.0"),
    ("GPU 00000000:C1:00.0", "0000:c1:00.0"),  # the first address in a line
    ("10000:E1:00.0", "10000:e1:00.0"),  # a VMD domain keeps its digits
    ("0000:01:00", ""),  # no function
    ("not an address", ""),
    ("", ""),
])
def test_every_spelling_has_one_normal_form(text: str, normal: str) -> None:
    assert normalize_bdf(text) == normal


def test_a_sysfs_device_name_is_a_whole_address_with_its_domain() -> None:
    assert is_bdf("0000:41:00.0") and is_bdf("10000:e1:00.0")
    assert not is_bdf("41:00.0") and not is_bdf("pci0000:00") and not is_bdf("0000:41:00.0x")


def test_lspci_lists_a_device_behind_a_vmd_domain() -> None:
    # Modelled: an `lspci -nn` header line with a VMD domain (Intel VMD puts NVMe drives in domain 10000).
    text = ("10000:e1:00.0 Non-Volatile memory controller [0108]: Samsung Electronics Co Ltd NVMe SSD "
            "Controller PM9A1/PM9A3/980PRO [144d:a80a]\n\tKernel driver in use: nvme\n")
    assert list(parse_lspci(text).by_bdf()) == ["10000:e1:00.0"]
