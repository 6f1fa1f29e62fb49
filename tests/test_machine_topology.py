"""The machine topology is one fact: the headline, the JSON and the pictures read the same GPU pairs and NUMA nodes.

The hosts are modelled (tests/nvidia_support.py): NVML answers in the shape host/nvml.py records them.
An HGX board reaches every peer through NVSwitches; H100 NVL cards are joined in twos by NVLink bridges,
so NVML names the peer GPU as each link's far end; L40S cards have no NVLink at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nvidia_support import NS, hgx, host_for, nvml_gpu, pcie_box, vllm_files
from stackaudit.capture import capture_host
from stackaudit.cli.main import main
from stackaudit.engine.testing import audit_report
from stackaudit.facts.machine_topology import MachineTopology, topology_from_facts
from stackaudit.facts.pci import PciDevice, PciDevices
from stackaudit.facts.system import NumaNode, NumaTopology
from stackaudit.facts.topology import NvlinkGpu, NvlinkLink, NvlinkStatus, parse_topo_matrix
from stackaudit.report.topology import topology_from_json


def _kinds(topology: dict[str, Any]) -> dict[str, str]:
    return {f"{p['a']}-{p['b']}": p["cell"] for p in topology["pairs"]}


def test_hgx_snapshot_draws_every_pair_over_nvlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """perf/hgx_snapshot.py's host, captured and audited from the snapshot as a user does."""
    files, procs = vllm_files("--tensor-parallel-size 8", workers=8)
    host = host_for(hgx(count=8), nvswitches=4, fabricmanager="active", fm_version="570.124.06",
                    extra_files=files, processes=procs)
    snapshot = tmp_path / "hgx.tar.gz"
    capture_host(host, str(snapshot))
    capsys.readouterr()
    assert main(["audit", "--from", str(snapshot), "--format", "json"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    topology = report["topology"]
    assert len(topology["pairs"]) == 28
    assert set(_kinds(topology).values()) == {"NV18"}
    assert topology["pairs_from"] == "NVML NVLink state"
    # The PCI bus puts four GPUs on node 1, which /sys/devices/system/node (absent here) does not list.
    assert [s["node"] for s in topology["sockets"]] == [0, 1]
    assert report["host"]["numa_nodes"] == len(topology["sockets"]) == 2


def test_nvl_bridge_pairs_are_nvlink_and_the_rest_pcie() -> None:
    buses = ["0000:01:00.0", "0000:21:00.0", "0000:41:00.0", "0000:61:00.0"]
    gpus = []
    for i, bus in enumerate(buses):
        peer = "0000" + buses[i ^ 1].upper()
        links = [{"link": n, "active": 1, "remote_bus_id": peer,
                  "errors": {"replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0}} for n in range(12)]
        gpus.append(nvml_gpu(i, "NVIDIA H100 NVL", bus, nvlink=links))
    report = audit_report(host_for(gpus), select=["DRV-NVLINK-HEALTH"])
    kinds = _kinds(report.topology)
    assert kinds == {"GPU0-GPU1": "NV12", "GPU2-GPU3": "NV12", "GPU0-GPU2": "NODE", "GPU0-GPU3": "NODE",
                     "GPU1-GPU2": "NODE", "GPU1-GPU3": "NODE"}
    assert report.topology["pairs_from"] == "NVML NVLink state and the PCI tree"
    assert report.host["numa_nodes"] == len(report.topology["sockets"])


def test_pcie_only_host_has_no_nvlink_pair() -> None:
    report = audit_report(host_for(pcie_box("NVIDIA L40S", 4)), select=["DRV-NVLINK-HEALTH"])
    assert report.topology["pairs_from"] == "the PCI tree"
    assert len(report.topology["pairs"]) == 6
    assert not any(p["kind"] == "NV" for p in report.topology["pairs"])


def test_an_inactive_link_is_not_a_pair() -> None:
    """GPU3's links are all down: it meets its peers over PCIe, the others over NVLink."""
    gpus = hgx(count=4)
    gpus[3]["nvlink"] = [{**link, "active": 0} for link in gpus[3]["nvlink"]]
    kinds = _kinds(audit_report(host_for(gpus, nvswitches=4)).topology)
    assert {k: v for k, v in kinds.items() if "GPU3" not in k} == dict.fromkeys(
        ("GPU0-GPU1", "GPU0-GPU2", "GPU1-GPU2"), "NV18")
    assert {v for k, v in kinds.items() if "GPU3" in k} == {"NODE"}


def _nvlink_s(*active: int) -> NvlinkStatus:
    return NvlinkStatus(tuple(NvlinkGpu(i, "NVIDIA H100 NVL", links=tuple(
        NvlinkLink(n, 25.0 if n < count else None) for n in range(12))) for i, count in enumerate(active)))


def test_nvlink_s_joins_two_gpus_or_those_on_an_nvswitch() -> None:
    """`nvidia-smi nvlink -s` names no far end: two GPUs can only be bridged to each other; with more, an
    NVSwitch on the bus says the links meet there; else the pairs are not guessed."""
    pair = topology_from_facts({"nvlink_status": _nvlink_s(12, 12),
                                "gpu_topology": None, "gpus": None})
    assert pair.pairs == () and pair.gpus == ()  # no GPU names: nothing to join
    two = topology_from_facts({"nvlink_status": _nvlink_s(12, 12), "pci": _bus(2)})
    assert [(p.a, p.b, p.cell) for p in two.pairs] == [("GPU0", "GPU1", "NV12")]
    assert two.pairs_from == "`nvidia-smi nvlink -s`"
    four = topology_from_facts({"nvlink_status": _nvlink_s(12, 12, 12, 12), "pci": _bus(4)})
    assert not any(p.kind == "NV" for p in four.pairs)
    switched = topology_from_facts({"nvlink_status": _nvlink_s(18, 18, 18, 0), "pci": _bus(4, nvswitch=True)})
    assert {(p.a, p.b) for p in switched.pairs if p.kind == "NV"} == {("GPU0", "GPU1"), ("GPU0", "GPU2"),
                                                                       ("GPU1", "GPU2")}


def _bus(gpus: int, nvswitch: bool = False) -> PciDevices:
    devices = [PciDevice(f"0000:{0x18 + i:02x}:00.0", vendor="0x10de", device="0x2321", pci_class="0x030200", role="gpu",
                         upstream=(f"0000:{0x10 + i:02x}:01.0",), numa_node=0) for i in range(gpus)]
    if nvswitch:
        devices.append(PciDevice("0000:50:00.0", vendor="0x10de", device="0x22a3", pci_class="0x068000", role="nvswitch",
                                 upstream=("0000:4f:01.0",), numa_node=0))
    return PciDevices(tuple(devices))


def test_the_matrix_wins_over_link_states() -> None:
    """`nvidia-smi topo -m` is the driver's own answer: a pair it prints as SYS stays SYS."""
    matrix = parse_topo_matrix("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                               "GPU0\t X \tSYS\t0-55\t0\n"
                               "GPU1\tSYS\t X \t56-111\t1\n")
    topology = topology_from_facts({"gpu_topology": matrix, "nvlink_status": _nvlink_s(12, 12), "pci": _bus(2)})
    assert [(p.cell, topology.pairs_from) for p in topology.pairs] == [("SYS", "nvidia-smi topo -m")]


def test_numa_count_is_the_sockets_drawn_and_survives_json() -> None:
    numa = NumaTopology((NumaNode(0, (0, 1)),))
    bus = PciDevices(tuple(PciDevice(f"0000:{0x18 + i:02x}:00.0", vendor="0x10de", device="0x2321", pci_class="0x030200",
                                     role="gpu", upstream=(f"0000:{0x10 + i:02x}:01.0",), numa_node=i)
                           for i in range(2)))
    topology = topology_from_facts({"numa": numa, "pci": bus})
    assert [s.node for s in topology.sockets] == [0, 1]
    assert topology.numa_nodes == 2
    assert topology_from_json(topology.to_json()) == topology
    # Without the `numa` fact the GPUs show only the nodes they sit on: no count is claimed.
    assert topology_from_facts({"pci": bus}).numa_nodes is None
    assert MachineTopology().numa_nodes is None


def test_no_nvlink_answer_is_not_a_link() -> None:
    gpus = hgx(count=2, nvlink=NS)
    assert not any(p["kind"] == "NV" for p in audit_report(host_for(gpus)).topology["pairs"])
