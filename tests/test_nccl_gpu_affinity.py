"""IC-NUMA-AFFINITY from NCCL's `Setting affinity for GPU N to <CPUs>` lines (facts/serving_logs.ServingLog.gpu_affinity).

NCCL (graph/topo.cc ncclTopoGetCpuAffinity) takes the CPUs local to a GPU, within the process's own mask (all of them
under NCCL_IGNORE_CPU_AFFINITY=1), prints the line only where that set is not empty, and makes its threads and host
buffers for the rank there (init.cc). Without the engine's processes, each line is a rank bound where it belongs: ok
over the GPUs the lines name, per host where they come from several.

Real lines: corpus 1291 (NVIDIA/nccl#1017, two nodes, masks split by socket), 1272 (a two-socket host's DDP hang,
interleaved masks), 847 (vLLM TP 2 on one node, paula09) and 1074 (verl under Ray, a cpulist mask). Modelled: the
counter-case.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.serving_logs import parse_serving_log

AFF = "IC-NUMA-AFFINITY"


def test_1291_masks_per_host_are_read() -> None:
    log = parse_serving_log(body("1291"))
    sets = {(h, g): cpus for h, g, cpus, _ in log.gpu_affinity}
    assert sets[("ib-vm-4", 0)] == "ffffff,ffffffff,ffffffff"
    assert sets[("ib-vm-3", 4)] == "ffff,ffffffff,ffffffff,ff000000,00000000,00000000"
    assert len(sets) == 13 and {h for h, _ in sets} == {"ib-vm-3", "ib-vm-4"}


def test_1291_ranks_bound_to_their_gpus_cpus_are_ok_per_host() -> None:
    r = capture_checks("1291", AFF)[AFF]
    assert r.status == "ok", r.message
    assert "CPUs local to that GPU" in r.message
    assert r.coverage is not None and "ib-vm-3 GPU 4" in r.coverage.shown and "ib-vm-4 GPU 4" in r.coverage.shown


def test_one_host_and_a_cpulist_mask() -> None:
    # 1272: one host (ava-s0), no host names in the subjects; 1074: NCCL's cpulist form `0-63,128-191`.
    r = capture_checks("1272", AFF)[AFF]
    assert r.status == "ok" and r.coverage is not None and "GPU 3" in r.coverage.shown
    assert [c for _, _, c, _ in parse_serving_log(body("1074")).gpu_affinity] == ["0-63,128-191"]


def test_without_the_lines_the_nodes_stay_unknown(tmp_path: Path) -> None:
    # Modelled: an NCCL log of the same form with no `Setting affinity` line says nothing of where the ranks run.
    text = "host-1:100:200 [0] NCCL INFO Channel 00/02 :    0   1\nhost-1:100:200 [0] NCCL INFO Connected all rings\n"
    assert paste_checks(tmp_path, text, AFF)[AFF].status != "ok"
