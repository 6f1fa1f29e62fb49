"""NCCL's CPU affinity line for a GPU shows the GPU reached the container it ran in (CTR-GPU-ACCESS; issue 28,
blind AN: corpus 1801, both readers ok).

NCCL prints `Setting affinity for GPU N to MASK` (init.cc, after ncclTopoGetCpuAffinity) once its topology placed the
rank's GPU by the PCI bus id CUDA gave it and NVML opened the GPU: in a container the source shows, the device nodes
and the driver's libraries reached it, as its ring and channel lines show (facts/serving_logs.NCCL_RINGS). Its
communicator's `Init START` line comes before the topology and is no such proof: NCCL's NVML may still fail to open a
GPU after it (NVIDIA/nccl#1529). Without a container shown the line says nothing of one.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/NVIDIA/nccl/issues/1017 (comment by szhengac, 2023-10-06), the first lines of its log: the
# container is the thread's title only; the host names (`ib-vm-4`) show none.
NCCL_1017 = """\
ib-vm-4:689754:689868 [2] NCCL INFO Setting affinity for GPU 2 to ffffff,ffffffff,ffffffff
ib-vm-4:689761:689864 [0] NCCL INFO Setting affinity for GPU 0 to ffffff,ffffffff,ffffffff
"""
# https://github.com/NVIDIA/nccl/issues/1529 (issue body by cyberpunk-admin): two containers of one node, each given
# other GPUs; the ranks' start lines, then NVML failing to open a GPU. Lines verbatim, the container's id host name
# in place of the node's (modelled: the thread's containers are its title's).
NCCL_1529 = """\
0fed198eb8ba:6896:7103 [1] NCCL INFO ncclCommInitRank comm 0xf1486b0 rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 8a000 commId 0xc928078d70c6fe2c - Init START
0fed198eb8ba:6895:7101 [0] NCCL INFO ncclCommInitRank comm 0x101b6e80 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 89000 commId 0xc928078d70c6fe2c - Init START
0fed198eb8ba:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found
"""
# Modelled: the affinity lines of two ranks in a Docker container (its id as host name), the log cut before channels.
MODELLED_CONTAINER = """\
0fed198eb8ba:528157:528268 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.3<0>
NCCL version 2.21.5+cuda12.4
0fed198eb8ba:528157:528269 [1] NCCL INFO Setting affinity for GPU 1 to 07,00000000,00000007,00000000
0fed198eb8ba:528157:528268 [0] NCCL INFO Setting affinity for GPU 0 to f000007f,00000000,f000007f
"""


def test_corpus_1801_affinity_in_docker_container() -> None:
    """Real (capture 1801, pytorch#99669): NCCL 2.12.12 in a container named by its id, cut after the affinity lines."""
    r = capture_checks("1801", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok", r.message
    assert "Setting affinity for GPU 0 to fff000" in r.message


def test_affinity_in_container_shown(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_CONTAINER, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and "Setting affinity for GPU" in r.message


def test_no_container_shown_stays_open(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_1017, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok"


def test_init_start_is_no_proof(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_1529, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok"


# NCCL's P2P refusal names both devices by the bus ids it read through CUDA (src/transport/p2p.cc p2pCanConnect): the
# devices reached the process, the path between them did not (corpus 2114).
# https://github.com/deepspeedai/DeepSpeed/issues/1283 (corpus 283): in a container named by its id.
P2P_1283 = "9ea320dd7260:17366:17726 [2] NCCL INFO Could not enable P2P between dev 2(=67000) and dev 3(=68000)\n"
# https://github.com/pytorch/pytorch/issues/72835 (corpus 341): the host's own name, no container shown.
P2P_72835 = "host0:538740:538760 [0] NCCL INFO Could not enable P2P between dev 1(=1b000) and dev 0(=1a000)\n"


def test_corpus_2114_p2p_refusal_in_docker_container() -> None:
    """Real (capture 2114): DataParallel's NCCL in container 198b6766dc7e refuses P2P between its two GPUs."""
    r = capture_checks("2114", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok" and "Could not enable P2P between dev 1(=1b000)" in r.message


def test_p2p_refusal_in_a_container_is_ok_and_on_a_host_stays_open(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, P2P_1283, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "ok"
    assert paste_checks(tmp_path, P2P_72835, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"
    # Modelled: NCCL's NVML failing on a GPU after the refusal: the worse line leaves access in question.
    nvml = "9ea320dd7260:17366:17726 [2] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
    assert paste_checks(tmp_path, P2P_1283 + nvml, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"


# NCCL's warning that the GPU's sysfs path does not resolve (facts/serving_logs.NCCL_GPU_PATH_WARN; issue 28, h104b):
# the path is built from the bus id the rank read through CUDA, so in a container the source shows the GPU reached it.
# Modelled: the same warning in a container whose NVML then fails to open a GPU (NVIDIA/nccl#1529's line).
MODELLED_PATH_THEN_NVML = """\
0fed198eb8ba:687:748 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:03/../../0000:03:00.0
0fed198eb8ba:687:748 [0] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found
"""


def test_corpus_2385_sysfs_path_warning_in_container() -> None:
    """Real (capture 2385, horovod#3871): horovod's ranks in container ce1a35ee222c under WSL 2, NCCL 2.9.9."""
    r = capture_checks("2385", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "ok", r.message
    assert "Could not find real path of /sys/class/pci_bus/0000:03/../../0000:03:00.0" in r.message


def test_corpus_2269_sysfs_path_warning_without_container_says_nothing_of_one() -> None:
    """Real (capture 2269): the same warning on a WSL desktop, no container shown: the line is no container's."""
    r = capture_checks("2269", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok" and "real path" not in r.message


def test_sysfs_path_warning_beside_nvml_failure_is_no_proof(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_PATH_THEN_NVML, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "ok"
