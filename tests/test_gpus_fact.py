"""The `gpus` inventory fact on each of its sources, and merged: count, models, BDFs, "no GPU", conflicts.

Real outputs: tests/data/captures 15 (`nvidia-smi` table, 2x RTX 3090), 09 (`nvidia-smi topo -m`
excerpt, 8x B200), 11 (vLLM collect_env with its matrix, 8x A100). NVML answers and sysfs trees
are modelled (tests/nvidia_support.py, tests/scenario_builder.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import CAPTURES
from nvidia_support import hgx, host_for
from scenario_builder import Gpu, build_host, nvidia_gpus
from stackaudit.engine.collect import Collector, Missing
from stackaudit.facts.gpus import (
    COLLECT_ENV_TITLE,
    NVIDIA_TITLE,
    PCI_TITLE,
    TOPOLOGY_TITLE,
    USER_WORDS_TITLE,
    GpuInventory,
    GpuRecord,
    merge_inventories,
)
from stackaudit.facts.registry import load_all
from stackaudit.host.memory import HostRecord, MemoryHost, fake_host
from stackaudit.importers.recognition import recognise, strip_header
from test_collect_env_reports import COLLECT_ENV_OLD

load_all()


def _inventory(host: Any) -> GpuInventory:
    return Collector(host).fact("gpus", GpuInventory)


def _pasted(*texts: str) -> MemoryHost:
    record = HostRecord(meta={"source": "pasted"})
    for text in texts:
        record.merge(recognise(text).record)
    record.meta["source"] = "pasted"
    return MemoryHost(record)


def _capture(name: str) -> str:
    return strip_header((CAPTURES / name).read_text(encoding="utf-8"))


def test_nvml_and_pci_merge_per_gpu() -> None:
    inv = _inventory(host_for(hgx()))
    assert inv.count == 8 and len(inv.gpus) == 8
    assert inv.models == {i: "NVIDIA H100 80GB HBM3" for i in range(8)}
    assert inv.bdfs[0] == "0000:18:00.0" and len(inv.bdfs) == 8
    first = inv.by_index(0)
    assert first is not None and first.bdf == "0000:18:00.0" and first.numa_node == 0  # node from sysfs
    assert first.shown_by == (NVIDIA_TITLE, PCI_TITLE)
    assert inv.by_index(7) is not None and inv.by_index(7).numa_node == 1  # type: ignore[union-attr]
    assert set(inv.agreed) == {NVIDIA_TITLE, PCI_TITLE} and not inv.conflicts and not inv.none_on_bus


def _bus_without_gpu() -> dict[str, Any]:
    real = "/sys/devices/pci0000:00/0000:00:1f.0"
    return {"files": {f"{real}/vendor": "0x8086\n", f"{real}/class": "0x060100\n", f"{real}/device": "0x7a04\n"},
            "links": {"/sys/bus/pci/devices/0000:00:1f.0": "../../../devices/pci0000:00/0000:00:1f.0"}}


def test_whole_bus_without_nvidia_gpu_is_none_on_bus() -> None:
    inv = _inventory(fake_host(**_bus_without_gpu()))
    assert inv.none_on_bus and inv.count == 0 and inv.empty_in == (PCI_TITLE,) and inv.gpus == ()


def test_excerpt_of_the_bus_never_proves_no_gpu() -> None:
    parts = _bus_without_gpu()
    record = HostRecord(files={k: v.encode() for k, v in parts["files"].items()}, links=parts["links"],
                        meta={"source": "pasted"})
    inv = _inventory(MemoryHost(record, derive_dirs=True))
    assert inv.count == 0 and not inv.none_on_bus and not inv.complete


def test_pci_alone_numbers_gpus_in_bus_order() -> None:
    gpus = [Gpu("0000:c1:00.0", "0000:c0:01.1", 1), Gpu("0000:41:00.0", "0000:40:01.1", 0)]
    inv = _inventory(build_host(nvidia_gpus(gpus, iommu_type=None), "box"))
    assert inv.count == 2 and inv.models == {}
    assert [(g.index, g.bdf, g.numa_node) for g in inv.gpus] == [(0, "0000:41:00.0", 0), (1, "0000:c1:00.0", 1)]


def test_capture_15_nvidia_smi_table() -> None:
    inv = _inventory(_pasted(_capture("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt")))
    assert inv.count == 2 and inv.bdfs == ("0000:04:00.0", "0000:09:00.0")
    assert inv.models == {0: "NVIDIA GeForce RTX 3090", 1: "NVIDIA GeForce RTX 3090"}
    assert inv.counts == ((NVIDIA_TITLE, 2),) and not inv.none_on_bus


def test_capture_09_topology_excerpt() -> None:
    inv = _inventory(_pasted(_capture("09-8x-b200-gpu2-nvlink-missing-topo.txt")))
    assert inv.count == 8 and [g.index for g in inv.gpus] == list(range(8))
    assert inv.counts == ((TOPOLOGY_TITLE, 8),) and inv.bdfs == () and inv.models == {}
    assert inv.by_index(0).numa_node == 0 and inv.by_index(4).numa_node == 1  # type: ignore[union-attr]
    assert not inv.complete  # a paste: an excerpt


def test_capture_11_collect_env_tail_without_gpu_lines() -> None:
    inv = _inventory(_pasted(_capture("11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt")))
    assert inv.counts == ((TOPOLOGY_TITLE, 8),)  # the tail has no `GPU n:` lines: collect_env adds nothing
    nodes = inv.numa_nodes()
    assert (nodes[0], nodes[1], nodes[2], nodes[3], nodes[4]) == (3, 3, 1, 1, 7)  # as the rows print them


def test_capture_32_collect_env_new_format() -> None:
    inv = _inventory(_pasted(_capture("32-rtx-pro-6000-blackwell-ws-vllm-collect-env-new-format.txt")))
    assert inv.counts == ((COLLECT_ENV_TITLE, 1),)
    assert inv.models == {0: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"}


def test_collect_env_models_join_its_matrix_rows() -> None:
    inv = _inventory(_pasted(COLLECT_ENV_OLD))
    assert inv.count == 4 and inv.agreed == (TOPOLOGY_TITLE, COLLECT_ENV_TITLE) and not inv.conflicts
    assert inv.models == {i: "NVIDIA H100 80GB HBM3" for i in range(4)}
    assert [g.shown_by for g in inv.gpus] == [(TOPOLOGY_TITLE, COLLECT_ENV_TITLE)] * 4
    assert inv.numa_nodes() == {0: 0, 1: 0, 2: 1, 3: 1}


def test_sources_that_disagree_are_kept() -> None:
    table = _capture("15-2x-rtx3090-nvidia-smi-table-250w-cap-persistence-off.txt")
    inv = _inventory(_pasted(table, COLLECT_ENV_OLD))
    assert inv.count == 2  # nvidia-smi ranks first
    assert [(s, n) for s, n in inv.counts if n != inv.count] == [(TOPOLOGY_TITLE, 4), (COLLECT_ENV_TITLE, 4)]
    assert ("GPUs", "count", f"2 ({NVIDIA_TITLE})", f"4 ({COLLECT_ENV_TITLE})") in inv.conflicts
    assert ("GPU 0 (0000:04:00.0)", "model", f"NVIDIA GeForce RTX 3090 ({NVIDIA_TITLE})",
            f"NVIDIA H100 80GB HBM3 ({COLLECT_ENV_TITLE})") in inv.conflicts
    assert len(inv.gpus) == 4 and inv.by_index(3) is not None and inv.by_index(3).bdf == ""  # type: ignore[union-attr]


def test_nothing_shows_gpus_names_every_source() -> None:
    value = Collector(MemoryHost(HostRecord(meta={"source": "pasted"}))).results(["gpus"])["gpus"]
    assert isinstance(value, Missing)
    for title in (NVIDIA_TITLE, TOPOLOGY_TITLE, PCI_TITLE, COLLECT_ENV_TITLE):
        assert title in value.reason


@pytest.mark.parametrize("field,mine,theirs,conflict", [
    ("numa_node", 0, 1, True), ("numa_node", None, 1, False), ("model", "A", "A", False)])
def test_merge_fills_or_keeps_conflicts(field: str, mine: Any, theirs: Any, conflict: bool) -> None:
    a = GpuInventory(gpus=(GpuRecord(0, "0000:01:00.0", shown_by=("a",), **{field: mine}),), counts=(("a", 1),))
    b = GpuInventory(gpus=(GpuRecord(0, "0000:01:00.0", shown_by=("b",), **{field: theirs}),), counts=(("b", 1),))
    merged = merge_inventories([a, b])
    assert getattr(merged.gpus[0], field) == (mine if mine is not None else theirs)
    assert bool(merged.conflicts) is conflict


def test_an_excerpt_read_whole_yields_to_a_source_that_states_more() -> None:
    # Modelled: a table that ends after GPU 0's rows (NvidiaGpus.cut_at_border) is the host's one GPU alone; beside
    # the user's words stating two, it is one GPU of at least two.
    why = "the table ends after GPU 0's rows, before its Processes box: GPUs after it are not in this source"
    table = GpuInventory(counts=((NVIDIA_TITLE, 1),), partial=((NVIDIA_TITLE, why),), read_whole=(NVIDIA_TITLE,))
    assert table.count_unshown == "" and table.whole_count == 1
    said = GpuInventory(counts=((USER_WORDS_TITLE, 2),), partial=((USER_WORDS_TITLE, "stated"),))
    both = GpuInventory.union([table, said])
    assert both.count == 1 and both.count_unshown == why and both.at_least == 2
