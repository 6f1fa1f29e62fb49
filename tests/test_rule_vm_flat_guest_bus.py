"""Issue 28, FW-VM for a guest whose GPUs and RDMA NIC sit flat on the emulated bus 00 (corpus 1294): NCCL sees no
PCIe switch or socket, so its GPU-NIC pairing is blind. Several GPUs on a flat bus without a NIC stay open."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# Modelled on corpus 1294 (NVIDIA/nccl#811): a KVM guest's `lspci`, GPUs and a ConnectX VF on bus 00.
FLAT = """\
00:09.0 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6 Virtual Function]
00:0a.0 3D controller: NVIDIA Corporation Device 20b0 (rev a1)
00:0b.0 3D controller: NVIDIA Corporation Device 20b0 (rev a1)
"""


def test_corpus_1294_flat_bus_with_gpus_and_a_cx6_vf_is_an_issue() -> None:
    result = capture_checks("1294", "FW-VM")["FW-VM"]
    assert result.status == "issue"
    assert "flat on the guest's bus 00" in result.message
    assert result.actual["nics"] == ["0000:00:09.0"]


def test_modelled_flat_bus_gpus_and_nic_is_an_issue(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, FLAT, "FW-VM")["FW-VM"].status == "issue"


def test_modelled_flat_bus_without_a_nic_stays_unknown(tmp_path: Path) -> None:
    text = "".join(line + "\n" for line in FLAT.splitlines() if "Mellanox" not in line)
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status == "unknown"


def test_modelled_one_gpu_beside_the_nic_is_no_flat_bus_issue(tmp_path: Path) -> None:
    text = "".join(line + "\n" for line in FLAT.splitlines() if "0b.0" not in line)
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status != "issue"
