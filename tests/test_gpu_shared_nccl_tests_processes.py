"""MEM-GPU-SHARED from nccl-tests' rank lines that put processes of one launch on one GPU (issue 28, corpus 1781).

Rank lines of different Pids that name the same host, device and bus ID, with no command line or run's end between
them, are processes of one launch on one GPU. Real lines are corpus captures or quoted from the public threads named
beside them; counter-examples are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_result, fact, pasted
from stackaudit.facts.serving_logs import NcclTestRuns, shared_devices

# https://github.com/nebius/soperator/pull/428 (2025-02-12): srun, one process per GPU; worker-0 reuses worker-1's
# Pids on other devices.
SRUN_428 = """# nThread 1 nGpus 1 minBytes 536870912 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   1887 on   worker-1 device  0 [0x8d] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid   1888 on   worker-1 device  1 [0x91] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid   1889 on   worker-1 device  2 [0x95] NVIDIA H100 80GB HBM3
#  Rank  8 Group  0 Pid   1885 on   worker-0 device  0 [0x8d] NVIDIA H100 80GB HBM3
#  Rank  9 Group  0 Pid   1886 on   worker-0 device  1 [0x91] NVIDIA H100 80GB HBM3
#  Rank 10 Group  0 Pid   1887 on   worker-0 device  2 [0x95] NVIDIA H100 80GB HBM3
"""
# https://github.com/NVIDIA/nccl-tests/issues/213 (2024-05-08): one process per host, each driving its 8 GPUs.
HOSTS_213 = """# Using devices
#  Rank  0 Group  0 Pid    798 on       hw14 device  0 [0x0f] NVIDIA H800
#  Rank  1 Group  0 Pid    798 on       hw14 device  1 [0x34] NVIDIA H800
#  Rank  0 Group  0 Pid    801 on       hw15 device  0 [0x0f] NVIDIA H800
#  Rank  1 Group  0 Pid    801 on       hw15 device  1 [0x34] NVIDIA H800
"""
# Modelled: two runs one after the other on GPU 0, each closed by its summary.
SEQUENTIAL = """#  Rank  0 Group  0 Pid   4100 on   node1 device  0 [0x1a] NVIDIA H100 80GB HBM3
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0
#  Rank  0 Group  0 Pid   4200 on   node1 device  0 [0x1a] NVIDIA H100 80GB HBM3
"""
# Modelled: a per-rank CUDA_VISIBLE_DEVICES, each process's device 0 another GPU (its bus ID).
PER_RANK_VISIBLE = """#  Rank  0 Group  0 Pid   4100 on   node1 device  0 [0x1a] NVIDIA H100 80GB HBM3
#  Rank  0 Group  0 Pid   4101 on   node1 device  0 [0x2b] NVIDIA H100 80GB HBM3
"""


def test_processes_of_one_launch_on_device_0_1781() -> None:
    """Corpus 1781 (nccl-tests#254): eight Pids on each host, every one `device 0 [0x1a]`."""
    runs = fact(pasted(body("1781")), "nccl_test_runs")
    assert isinstance(runs, NcclTestRuns)
    assert runs.shared_asked == 16  # mpirun -np 16 ... -g 1
    assert {(host, device) for host, device, *_ in runs.shared} == {("dgx01", "device 0 [0x1a]"),
                                                                    ("dgx02", "device 0 [0x1a]")}
    assert {host: pids for host, _, pids, _ in runs.shared}["dgx01"] == ("544816", "544818")
    assert capture_result("1781", "MEM-GPU-SHARED").status == "issue"


def test_one_process_per_gpu_not_shared() -> None:
    assert shared_devices(SRUN_428) == ((), None)
    assert shared_devices(HOSTS_213) == ((), None)


def test_sequential_runs_and_other_buses_not_shared() -> None:
    assert shared_devices(SEQUENTIAL) == ((), None)
    assert shared_devices(PER_RANK_VISIBLE) == ((), None)

