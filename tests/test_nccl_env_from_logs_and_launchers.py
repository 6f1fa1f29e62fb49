"""IC-NCCL-ENV and IC-TOPO-READ from NCCL logs and test launchers (h57e): an indented nccl-tests program under an
`mpirun ... \\` command, a launcher named by its path, NCCL_IB_DISABLE=1 on ranks a log shows on one host, the
settings of a one-GPU container, NCCL_NET_GDR_LEVEL below PXB on a multi-node run, and NCCL's sysfs path failure."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.importers.nccl_tests import COMMAND

CHECK = "IC-NCCL-ENV"


def test_indented_program_under_a_continued_mpirun_is_read() -> None:
    # Corpus 1195: `mpirun -np 16 -N 8 \` over `-x NCCL_... \` lines over `  /opt/nccl-tests/build/all_reduce_perf`.
    r = capture_checks("1195", CHECK)[CHECK]
    assert r.status != "unknown", r.message
    assert "NCCL_SOCKET_IFNAME=bond0" in r.message and "NCCL_IB_HCA=mlx5_0," in r.message, r.message
    assert '"' not in r.message  # the quotes of -x NCCL_IB_HCA="..." are the shell's, not the value's


# Modelled on corpus 773: a launcher named by its path, the nccl-tests binary built for MPI, and GDR at PIX over
# four hosts whose rank list the paste cuts on the first.
GDR_PIX = """```bash
/opt/ompi/bin/mpirun --np 32 -H n01:8,n02:8,n03:8,n04:8 -x NCCL_NET_GDR_LEVEL=1 -x NCCL_IB_HCA=mlx5_0:1 /opt/nccl-tests/build/all_reduce_perf_mpi -b 8 -e 16g -f 2 -g 1
# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  13919 on        n01 device  0 [0000:04:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  13920 on        n01 device  1 [0000:04:02] NVIDIA H100 80GB HBM3
```
"""


def test_gdr_level_pix_on_a_launch_over_four_hosts_is_an_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, GDR_PIX, CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "NCCL_NET_GDR_LEVEL=1" in r.message and "multi-node" in r.message, r.message


def test_gdr_level_pix_on_one_host_run_is_not(tmp_path: Path) -> None:
    # The same run launched on one host: the network carries no GPU-to-GPU traffic there.
    text = GDR_PIX.replace("--np 32 -H n01:8,n02:8,n03:8,n04:8", "--np 2")
    text = text.replace("NVIDIA H100 80GB HBM3\n```", "NVIDIA H100 80GB HBM3\n#\n```")
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "on one host" in r.message


def test_corpus_773_gdr_level_1_over_four_vms() -> None:
    r = capture_checks("773", CHECK)[CHECK]
    assert r.status == "issue", r.message
    assert "GPUDirect RDMA" in r.message


def test_ib_disabled_on_ranks_of_one_host_is_a_key_negative() -> None:
    # Corpus 853: five ranks of a torchrun job log `NCCL_IB_DISABLE set by environment to 1` from one host.
    r = capture_checks("853", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "no other node is shown" in r.message


def test_interleaved_prefix_is_not_a_second_host() -> None:
    # Corpus 1238: `adp-uadp-us-llm-...` is two processes' writes run together, not a second pod: the job's ranks
    # are on one host, and NCCL_IB_DISABLE=1 costs nothing there.
    r = capture_checks("1238", CHECK, "IC-P2P-FUNCTIONAL")
    assert r[CHECK].status == "not-an-issue", r[CHECK].message
    assert "multi-node" not in r[CHECK].message
    assert "2 GPUs shown" in r["IC-P2P-FUNCTIONAL"].coverage.text()


def test_modelled_two_hosts_with_ib_disabled_stay_multi_node(tmp_path: Path) -> None:
    # Modelled: two real host names (neither the other's tail): the job spans nodes, the one-host reading does not apply.
    text = "".join(f"{h}:{p}:{p} [{d}] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                   for h, p, d in (("node-a", 101, 0), ("node-a", 102, 1), ("node-b", 201, 0), ("node-b", 202, 1)))
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status != "not-an-issue", r.message
    assert "multi-node" in r.message


def test_settings_of_a_one_gpu_container_change_nothing() -> None:
    # Corpus 1163: compose gives the vLLM container device_ids ['1']; its NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and
    # NCCL_IB_DISABLE act on no GPU-to-GPU traffic.
    r = capture_checks("1163", CHECK)[CHECK]
    assert r.status == "not-an-issue", r.message
    assert "given one GPU" in r.message


COMPOSE_TWO_GPUS = """```yaml
services:
  vllm:
    image: vllm/vllm-openai:v0.8.5
    environment:
      - NCCL_P2P_DISABLE=1
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ['{ids}']
              capabilities: [gpu]
```
"""


def test_modelled_container_with_two_gpus_is_judged_as_before(tmp_path: Path) -> None:
    one = paste_checks(tmp_path, COMPOSE_TWO_GPUS.format(ids="1"), CHECK)[CHECK]
    assert "given one GPU" in one.message, one.message
    two = paste_checks(tmp_path, COMPOSE_TWO_GPUS.format(ids="0', '1"), CHECK)[CHECK]
    assert "given one GPU" not in two.message, two.message


def test_nccl_sysfs_path_failure_proves_topo_read() -> None:
    # Corpus 1236: `graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/fffffff/../../fffffff:ffff`
    # then init's error 2: NCCL could not read the host's PCI topology.
    r = capture_checks("1236", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert r.status == "issue", r.message
    assert "PCI topology" in r.message


def test_modelled_nested_host_names_of_other_processes_stay_two_hosts(tmp_path: Path) -> None:
    # Modelled: `nnode1` reads as `n` + `node1`, but its processes never log as node1: a host of its own.
    text = "".join(f"{h}:{p}:{p} [{d}] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                   for h, p, d in (("node1", 101, 0), ("node1", 102, 1), ("nnode1", 201, 0), ("nnode1", 202, 1)))
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert "multi-node" in r.message, r.message


def test_a_command_line_of_many_assignments_is_read_in_one_pass() -> None:
    # Modelled hostile line: `\S*=\S*` words before the program backtracked through every `=` (exponential).
    assert COMMAND.match("a=b=c=d " * 40 + "all_reduce_perf -b 8 x") is None
    assert COMMAND.match("NCCL_DEBUG=INFO CUDA_VISIBLE_DEVICES=0,1 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2")


def test_a_soft_roce_device_named_by_nccl_ib_hca_is_the_issue() -> None:
    # Corpus 1529 (NVIDIA/nccl#1297): NCCL's net_ib.cc says `NCCL_IB_HCA set to rxe0`, then cannot find the device's
    # real path: Soft-RoCE has no PCI device behind it.
    r = capture_checks("1529", CHECK)[CHECK]
    assert r.status == "issue" and "rxe0" in r.message and "kernel-emulated" in r.message, r.message


def test_a_real_hca_named_in_the_ib_code_own_words_stays_a_selector(tmp_path: Path) -> None:
    # Modelled on 1529's lines with a ConnectX HCA: a selector NCCL works over is not an issue.
    log = ("node1:608:608 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0\n"
           "node1:608:608 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB ens121f1:192.168.10.13<0>\n")
    r = paste_checks(tmp_path, log, CHECK)[CHECK]
    assert r.status == "ok" and "NCCL_IB_HCA=mlx5_0" in r.message, r.message
    r = paste_checks(tmp_path, log.replace("mlx5_0", "siw_eth0"), CHECK)[CHECK]
    assert r.status == "issue" and "siw_eth0" in r.message, r.message


def test_mpi_launcher_exports_in_a_container_command_are_its_ranks_settings(tmp_path: Path) -> None:
    from corpus import capture_result, paste_checks

    # Horovod's docker run (corpus 2389): `mpirun ... -x NCCL_SOCKET_IFNAME=ib0 -x NCCL_IB_HCA=mlx5_0 -x
    # NCCL_DEBUG=ERROR`: they name the interface and the HCA and set logging, turning no fast path off.
    r = capture_result("2389", "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "NCCL_IB_HCA=mlx5_0" in r.message
    # Modelled: the same launcher exporting NCCL_P2P_DISABLE=1 turns P2P off for every rank.
    run = ("docker run --rm -it --network=host horovod/horovod:0.20.0 mpirun -np 8 -H IP1:4,IP2:4 "
           "-x NCCL_P2P_DISABLE=1 python train.py\n")
    assert paste_checks(tmp_path, run, "IC-NCCL-ENV")["IC-NCCL-ENV"].status == "issue"
