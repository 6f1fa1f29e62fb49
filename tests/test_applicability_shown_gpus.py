"""Fabric Manager not applicable from the GPUs a paste names: p2pBandwidthLatencyTest's device lines, DCGM diag's PCI
device ids and a branded model in the user's words feed the GPU inventory, and one PCIe card rules out an NVSwitch
host (facts/applicability.py), while NVLink and MIG, each GPU's own, are judged over the GPUs shown."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks
from stackaudit.facts.gpus import stated_gpus
from stackaudit.gputable import by_pci_device_id
from stackaudit.importers.pasted import load_pasted

FM = "DRV-FABRIC-MANAGER"
NVLINK = "DRV-NVLINK-HEALTH"


def _inventory(prefix: str) -> object:
    from corpus import corpus_path

    return fact(load_pasted([str(corpus_path(prefix))]), "gpus")


def test_p2p_test_device_lines_name_every_cuda_gpu_361() -> None:
    # stas00/ml-engineering#1: three RTX A6000 (workstation cards) on PCIe.
    gpus = _inventory("361")
    assert gpus.count == 3 and gpus.whole_count is None  # CUDA's list: CUDA_VISIBLE_DEVICES may hide GPUs
    assert set(gpus.models.values()) == {"NVIDIA RTX A6000"}
    assert gpus.bdfs == ("0000:03:00.0", "0000:21:00.0", "0000:49:00.0")  # pciBusID is hex
    r = capture_checks("361", FM)[FM]
    assert r.status == "not-applicable" and "RTX A6000" in r.message


def test_branded_model_the_table_lacks_in_the_users_words_359() -> None:
    # NVIDIA/nccl#342: "4 GeForce RTX 2080 GPUs" under "Hardware:"; the GPU table has no RTX 2080 row.
    assert stated_gpus("4 GeForce RTX 2080 GPUs") == [(4, "GeForce RTX 2080")]
    r = capture_checks("359", FM, NVLINK)
    assert r[FM].status == "not-applicable" and "GeForce RTX 2080" in r[FM].message
    # The user's words are a count, not a listing: NVLink (each GPU's own; an RTX 2080 takes a bridge) stays open.
    assert r[NVLINK].status == "unknown"


def test_dcgm_diag_device_ids_name_the_gpus_114() -> None:
    # NVIDIA/DCGM#198: `dcgmi diag -r 2` on the default group, `GPU Device IDs Detected | 2321,2321` (H100 NVL).
    gpus = _inventory("114")
    assert gpus.count == 2 and set(gpus.models.values()) == {"NVIDIA H100 NVL"}
    r = capture_checks("114", FM)[FM]
    assert r.status == "not-applicable" and "H100 NVL" in r.message


def test_chosen_dcgm_group_rules_out_nvswitch_and_nvlink_over_its_gpus_151() -> None:
    # NVIDIA/go-dcgm#52: `dcgmi diag -r 2 -g 7`, device id 1eb8 (T4): a chosen group may leave GPUs out.
    gpus = _inventory("151")
    assert gpus.count_unshown and set(gpus.models.values()) == {"Tesla T4"}
    r = capture_checks("151", FM, NVLINK)
    assert r[FM].status == "not-applicable"
    # A T4 has no NVLink: not applicable over the GPU the group names, the rest of the host not shown (h68l).
    assert r[NVLINK].status == "not-applicable" and r[NVLINK].coverage is not None


def test_nvswitch_class_device_ids_leave_fabric_manager_open_149() -> None:
    # NVIDIA/nccl-tests#264: eight 2330 (H100 SXM5 80GB): NVSwitch-class, and FM's state is not pasted.
    gpus = _inventory("149")
    assert gpus.count == 8 and set(gpus.models.values()) == {"NVIDIA H100 80GB HBM3"}
    assert capture_checks("149", FM)[FM].status == "unknown"


def test_pci_device_ids_of_the_table() -> None:
    assert by_pci_device_id("0x2330").name == "H100 SXM"
    assert by_pci_device_id("2321").name == "H100 NVL"
    assert by_pci_device_id("ffff") is None


# Modelled counter-example: p2pBandwidthLatencyTest on an HGX H100 board names SXM modules, which may sit on an
# NVSwitch: the device lines never make Fabric Manager not applicable.
HGX_P2P = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n" + "".join(
    f"Device: {i}, NVIDIA H100 80GB HBM3, pciBusID: {bus}, pciDeviceID: 0, pciDomainID:0\n"
    for i, bus in enumerate(("18", "2a", "3a", "5d", "9a", "ab", "ba", "db"))) + "".join(
    f"Device=0 CAN Access Peer Device={j}\n" for j in range(1, 8))


def test_modelled_sxm_device_lines_keep_fabric_manager_open(tmp_path: Path) -> None:
    # The device lines alone leave it open; the peer-access answers after them are CUDA at work on the board, which
    # CUDA refuses (802) until Fabric Manager has set the fabric up (facts/cuda_ran.py, corpus 1222): ok, never n/a.
    devices = "".join(line + "\n" for line in HGX_P2P.splitlines() if "Access Peer" not in line)
    assert paste_checks(tmp_path, devices, FM)[FM].status == "unknown"
    assert paste_checks(tmp_path, HGX_P2P, FM)[FM].status == "ok"


def test_unbranded_or_unnumbered_names_state_nothing() -> None:
    # Modelled: a brand word without a model number, or a count word before the name, is no model.
    assert stated_gpus("4 x GeForce 8GB") == []
    assert stated_gpus("3 x RTX A4000 cards") == [(3, "RTX A4000")]
