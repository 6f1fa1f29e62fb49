"""NCCL's network between nodes: TCP-only jobs (NCCL's socket transport, Google's FastSocket plugin) against a host
that has an RDMA NIC (AWS EFA under aws-ofi-nccl) and falls back to sockets; KVER-DMABUF, IC-NIC-GPU-AFFINITY and
facts/serving_logs.py no_rdma_traffic, facts/rdma.py (issue 28, blind batch ZB: corpus 1578, 1580)."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.rdma import RdmaDevices, rdma_from_nccl_log
from stackaudit.facts.serving_logs import NcclNodes, no_rdma_traffic, parse_serving_log

# https://github.com/NVIDIA/nccl/issues/1519 (issue body, "nccl debug logs with fastsocket"): NCCL loads Google's
# FastSocket net plugin; verbatim lines.
NCCL_1519 = """\
nathan-h100-1:14492:14492 [0] NCCL INFO Bootstrap : Using enp0s12:10.0.0.6<0>
nathan-h100-1:14492:14492 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.
nathan-h100-1:14492:14492 [0] NCCL INFO NET/Plugin: Loaded net plugin FastSocket (v6)
nathan-h100-1:14492:14605 [0] NCCL INFO NET/FastSocket : Tx CPU start: -2
nathan-h100-1:14492:14605 [0] NCCL INFO NET/FastSocket : Rx CPU start: -2
nathan-h100-1:14492:14605 [0] NCCL INFO NET/FastSocket : Flow placement enabled.
"""

# https://github.com/aws/aws-ofi-nccl/issues/715 (comment): aws-ofi-nccl picks libfabric's efa provider on a
# SageMaker host; verbatim lines (the console's timestamp lines between them left out).
OFI_715 = """\
algo-1:18568:18640 [6] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)
libfabric:18564:1733296782::efa:ep_ctrl:efa_rdm_ep_set_shared_memory_permitted():1410<warn> FI_OPT_SHARED_MEMORY_PERMITTED set to false
algo-1:18564:18638 [2] NCCL INFO Using network AWS Libfabric
"""

# https://github.com/NVIDIA/nccl/issues/229 (comment of 2019-06-03): on EFA instances the efa provider is chosen
# (`efa;ofi_rxr`); verbatim lines.
NCCL_229 = """\
ip-192-168-16-255:25655:25655 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.16.255<0>
ip-192-168-16-255:25655:25655 [0] NCCL INFO NET/OFI Selected Provider is efa;ofi_rxr
ip-192-168-29-243:24512:24512 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.29.243<0>
"""

# https://github.com/aws/aws-ofi-nccl/issues/803 (issue body): aws-ofi-nccl in a container without the EFA device
# takes libfabric's tcp provider; verbatim line.
OFI_803 = "6f2d8a82d208:1287:1328 [0] NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)\n"

# https://github.com/aws/aws-ofi-nccl/issues/889 (comment): libfabric's core finds no EFA device for the efa
# provider; verbatim line (the console's prefix left out).
OFI_889 = "libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list\n"

# Modelled on corpus 1580: an EFA device shown at work, NCCL's channel between the two hosts over sockets, and no line
# that says whether the NIC can reach GPU memory.
EFA_SOCKET_FALLBACK = """\
node-a:20:67 [0] NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)
node-a:20:67 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [send] via NET/Socket/0
node-b:20:67 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/Socket/0
"""


def _nodes(text: str) -> NcclNodes:
    value = fact(pasted(text), "nccl_nodes")
    assert isinstance(value, NcclNodes)
    return value


# --- AWS EFA: an RDMA NIC of the job's hosts -------------------------------------------------------------------


def test_efa_refusing_gpu_memory_on_a_job_across_nodes_is_an_issue() -> None:
    """Real (corpus 1580, aws/aws-k8s-tester#473): libfabric cannot register CUDA buffers with the EFA device on two
    p5.48xlarge nodes, and NCCL's channel between them goes `via NET/Socket`: GPUDirect RDMA is off, not absent."""
    r = capture_checks("1580", "KVER-DMABUF", "IC-NIC-GPU-AFFINITY")
    assert r["KVER-DMABUF"].status == "issue"
    assert "cannot register GPU memory" in r["KVER-DMABUF"].message and "NET/Socket" in r["KVER-DMABUF"].message
    # The NIC was there but unused, so where it sits next to the GPUs is not shown (not "no NIC to place").
    assert r["IC-NIC-GPU-AFFINITY"].status == "unknown"


def test_mpirun_tag_output_prefix_keeps_the_host() -> None:
    """Real (corpus 1580): Open MPI's `[1,9]<stdout>:` prefix before `host:pid:tid [dev] NCCL`: two hosts shown."""
    nodes = _nodes(body("1580"))
    assert nodes.several and "multi-node-nccl-test-worker-0" in nodes.several[0]
    assert not nodes.no_rdma


def test_efa_lines_sight_an_rdma_nic() -> None:
    """Real (aws-ofi-nccl#715, nccl#229): the efa provider chosen, or libfabric's efa provider logging, is an RDMA
    NIC sighted, not one inferred from settings."""
    for text in (OFI_715, NCCL_229):
        found = rdma_from_nccl_log(text)
        assert found.names and found.names[0].startswith("efa") and not found.said


def test_other_libfabric_providers_sight_no_efa() -> None:
    """Real (aws-ofi-nccl#803, #889): the tcp provider, or libfabric's core saying the efa provider found nothing,
    show no EFA device."""
    assert not parse_serving_log(OFI_803).efa_lines()
    assert not parse_serving_log(OFI_889).efa_lines()


def test_sockets_beside_an_efa_device_are_a_fallback_not_a_tcp_job(tmp_path: Path) -> None:
    """Modelled on 1580: with the EFA device shown at work, channels `via NET/Socket` are no word that the job has no
    RDMA NIC, so KVER-DMABUF does not say not-applicable (what the NIC does with GPU memory is not shown)."""
    assert no_rdma_traffic(parse_serving_log(EFA_SOCKET_FALLBACK), spans_nodes=True) == ("", ())
    r = paste_checks(tmp_path, EFA_SOCKET_FALLBACK, "KVER-DMABUF", "IC-NIC-GPU-AFFINITY")
    assert r["KVER-DMABUF"].status == "unknown"
    assert r["IC-NIC-GPU-AFFINITY"].status == "unknown"


# --- TCP only: FastSocket ------------------------------------------------------------------------------------


def test_fastsocket_plugin_is_tcp_only() -> None:
    """Real (nccl#1519): `Loaded net plugin FastSocket`: NCCL's network is the plugin, TCP sockets."""
    log = parse_serving_log(NCCL_1519)
    assert log.tcp_plugin() and "FastSocket" in no_rdma_traffic(log)[0]


def test_fastsocket_job_has_no_rdma_to_judge() -> None:
    """Real (corpus 1578, nccl#651): four GCP A100 VMs over FastSocket on gVNIC: GPUDirect RDMA and NIC placement play
    no part."""
    r = capture_checks("1578", "KVER-DMABUF", "IC-NIC-GPU-AFFINITY")
    assert r["KVER-DMABUF"].status == "not-applicable" and "FastSocket" in r["KVER-DMABUF"].message
    assert r["IC-NIC-GPU-AFFINITY"].status == "not-applicable"


def test_fastsocket_beside_an_efa_device_is_not_tcp_only() -> None:
    """Modelled: a FastSocket line beside an EFA device shown at work says nothing of a job without RDMA NICs."""
    log = parse_serving_log(NCCL_1519 + OFI_715)
    assert no_rdma_traffic(log) == ("", ())


def test_rdma_fact_of_the_fallback_paste_is_efa() -> None:
    """Real (corpus 1580): the rdma fact names the EFA device libfabric logged."""
    value = fact(pasted(body("1580")), "rdma")
    assert isinstance(value, RdmaDevices) and value.names == ("efa (libfabric's EFA provider)",)


# --- CTR-IPC-ISOLATION: one host-IPC container per node ---------------------------------------------------------


def test_host_ipc_container_of_a_multi_rank_engine_is_ok() -> None:
    """Real (corpus 1579): `--ipc host` on the one vLLM container of each node, TP 2 x PP 4 over Ray: every rank on
    the host sees the host's /dev/shm."""
    r = capture_checks("1579", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"]
    assert r.status == "ok" and "--ipc=host" in r.message


def test_private_ipc_container_per_node_stays_not_applicable() -> None:
    """Real (corpus 790): one Ray head container per node without host IPC: nothing split on this host."""
    assert capture_checks("790", "CTR-IPC-ISOLATION")["CTR-IPC-ISOLATION"].status == "not-applicable"


def test_ib_disabled_on_hosts_with_ipoib_leaves_nic_placement_unknown() -> None:
    """Real (corpus 1369): NCCL_IB_DISABLE=1 on nodes whose IPoIB interface ib-bond0 NCCL bootstraps over: the IB
    NICs are there but unused, and where they sit next to the GPUs is not shown."""
    r = capture_checks("1369", "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"]
    assert r.status == "unknown" and "ib-bond0" in r.message


def test_sockets_with_no_rdma_nic_shown_stay_not_applicable() -> None:
    """Real (corpus 1095): two nodes over NCCL_IB_DISABLE=1 sockets and no RDMA NIC shown: no NIC to place."""
    assert capture_checks("1095", "IC-NIC-GPU-AFFINITY")["IC-NIC-GPU-AFFINITY"].status == "not-applicable"
