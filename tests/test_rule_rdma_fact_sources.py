"""Whether the host has RDMA NICs, read once (facts/rdma.py) and used by every check that turns on it (issue 28,
blind XK/XN runs: corpus 1070, 1095, 1101, 645).

- A sighting of an RDMA device in any source beats an empty /sys/class/infiniband; an empty listing beats a sighting
  that is only inferred (a loaded RDMA driver, an NCCL setting that names an HCA). IC-NCCL-ENV reads the fact (its
  own helper, `_rdma_shown`, is gone).
- NCCL's own word that a process opened no HCA (NCCL_IB_DISABLE=1, `NET/IB : No device found`) holds on a job shown
  spanning nodes too: KVER-DMABUF and IC-NIC-GPU-AFFINITY are not applicable (corpus 1095).
- A `topo -m` matrix cut to its NIC rows parses (NICk's `X` follows every GPU column), and NCCL_IB_HCA naming a NIC
  that every GPU reaches only beyond PXB is an IC-NIC-GPU-AFFINITY issue (corpus 1101).
- NCCL settings that only choose devices, with NCCL's log at work over them, are ok for IC-NCCL-ENV (corpus 645,
  1070); without the log they stay a key negative (corpus 1101).
"""

from __future__ import annotations

from corpus import capture_checks, fact
from stackaudit.facts.topology import parse_topo_matrix
from test_ic_checks import host, one

# Modelled (said so): two hosts behind Ray's prefix, IB disabled, and NCCL naming its HCA on a third line.
RAY_IB_USING = ("(RayWorkerWrapper pid=5120, ip=10.0.0.11) node-a:5120:5301 [0] NCCL INFO NCCL_IB_DISABLE set by "
                "environment to 1.\n"
                "(RayWorkerWrapper pid=5120, ip=10.0.0.11) node-a:5120:5301 [0] NCCL INFO NET/IB : Using "
                "[0]mlx5_0:1/IB ; OOB eth0:10.0.0.11<0>\n"
                "(RayWorkerWrapper pid=7311, ip=10.0.0.12) node-b:7311:7490 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] "
                "[send] via NET/Socket/0\n")


def test_a_sighting_in_the_nccl_log_beats_an_empty_sysfs_class() -> None:
    h = host(None, log=RAY_IB_USING, dirs={"/sys/class/infiniband": []})
    assert fact(h, "rdma").names == ("mlx5_0",)
    r = one(h, "IC-NCCL-ENV")
    assert r.status == "issue" and "mlx5_0" in r.message


def test_an_empty_sysfs_class_beats_a_loaded_driver() -> None:
    h = host(None, files={"/proc/modules": "mlx5_ib 425984 0 - Live 0x0\nib_core 434176 1 mlx5_ib, Live 0x0\n"},
             dirs={"/sys/class/infiniband": []})
    rdma = fact(h, "rdma")
    assert rdma.names == () and rdma.absent_by == "/sys/class/infiniband is empty"


def test_ib_disable_on_a_multi_node_job_without_rdma_nics_is_not_an_issue() -> None:
    # Modelled: the same two-host job on hosts whose sysfs class is empty: disabling IB removes no path.
    log = RAY_IB_USING.splitlines(keepends=True)
    h = host(None, log=log[0] + log[2], dirs={"/sys/class/infiniband": []})
    r = one(h, "IC-NCCL-ENV")
    assert r.status == "not-an-issue" and "no RDMA NIC" in r.message


def test_nccl_ib_disable_on_two_nodes_means_no_rdma_traffic() -> None:
    # Corpus 1095 (NVIDIA/nccl-tests#284): two RTX 4090 hosts over sockets, NCCL_IB_DISABLE set by environment.
    r = capture_checks("1095", "KVER-DMABUF", "IC-NIC-GPU-AFFINITY", "IC-NCCL-ENV")
    assert r["KVER-DMABUF"].status == "not-applicable" and "NCCL_IB_DISABLE=1" in r["KVER-DMABUF"].message
    assert r["IC-NIC-GPU-AFFINITY"].status == "not-applicable"
    # Whether the hosts have RDMA NICs the paste does not show: the setting's cost stays conditional.
    assert r["IC-NCCL-ENV"].status == "unknown"


def test_a_matrix_cut_to_its_nic_row_names_the_gpus() -> None:
    # Corpus 1101 (vllm-project/vllm#44878): the collect_env matrix cut down to its NIC0 row.
    topo = parse_topo_matrix("NIC0    NODE    PHB     NODE    NODE     X\n\nNIC Legend:\n\n  NIC0: mlx5_0\n")
    assert topo.gpus == ("GPU0", "GPU1", "GPU2", "GPU3") and topo.nics == ("NIC0",)
    assert topo.link("GPU1", "NIC0") == "PHB"


def test_nccl_ib_hca_beyond_pxb_from_every_gpu_is_an_issue() -> None:
    r = capture_checks("1101", "IC-NIC-GPU-AFFINITY", "IC-NCCL-ENV")
    assert r["IC-NIC-GPU-AFFINITY"].status == "issue" and "NCCL_IB_HCA=mlx5_0" in r["IC-NIC-GPU-AFFINITY"].message
    assert set(r["IC-NIC-GPU-AFFINITY"].subjects) == {"GPU0", "GPU1", "GPU2", "GPU3"}
    # The same settings without NCCL's log: a key negative, not a verdict that they work.
    assert r["IC-NCCL-ENV"].status == "not-an-issue"


def test_device_selectors_with_nccl_at_work_are_ok() -> None:
    # Corpus 645 (`NET/IB : Using [0]mlx5_bond_0:1/RoCE ...`) and 1070 (`Init COMPLETE` after NCCL_IB_GID_INDEX=3).
    for prefix in ("645", "1070"):
        r = capture_checks(prefix, "IC-NCCL-ENV")["IC-NCCL-ENV"]
        assert r.status == "ok", (prefix, r.message)


def test_a_protocol_named_in_prose_is_a_forced_nccl_proto() -> None:
    # Corpus 1102 (NVIDIA/nccl-tests#179): 'logs for proto=LL. does not stuck but failes.' after wrong values.
    from stackaudit.facts.serving_logs import stated_nccl

    assert stated_nccl("logs for proto=LL. does not stuck but failes.") == ("NCCL_PROTO", "LL")
    assert stated_nccl("run with -x NCCL_PROTO=Simple") is None  # the variable named: its own forms only, as before
    assert stated_nccl("proto=LLX") is None
    r = capture_checks("1102", "IC-NCCL-ENV")["IC-NCCL-ENV"]
    assert r.status == "issue" and "NCCL_PROTO=LL" in r.message


def test_an_rdma_adapter_in_a_pasted_lspci_is_an_inferred_rdma_nic(tmp_path) -> None:
    """Corpus 2430 (Mellanox/nv_peer_memory#43: `lspci | grep -i mellanox`, a ConnectX-3) and 1294 (a ConnectX-6
    virtual function in a VM's lspci): an RDMA NIC inferred from the hardware. A modelled listing with only an Intel
    Ethernet controller shows none."""
    from corpus import body, paste_checks, pasted

    for prefix, part in (("2430", "ConnectX-3"), ("1294", "ConnectX-6")):
        rdma = fact(pasted(body(prefix)), "rdma")
        assert rdma.said and any(part in n for n in rdma.names), (prefix, rdma)
    plain = ("$ lspci | grep -i eth\n"
             "3b:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710 for 10GbE SFP+ (rev 02)\n")
    result = paste_checks(tmp_path, plain, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert result.status == "unknown" and "RDMA NICs is not in the source" in result.message
