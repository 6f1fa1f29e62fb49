"""What NCCL's own INFO log and nccl-tests' header prove about a host (issue 28, blind run YN: 1415, 1409).

- A rank's CollNet channel (`CollNet 05/0 : 5 [receive] via COLLNET/SHARP/5/GDRDMA`, NCCL transport/coll_net.cc) is
  a channel through an RDMA NIC: `GDRDMA` on it is NCCL's ncclTopoCheckGdr answer, as on a NET channel, so it serves
  KVER-DMABUF and IC-NIC-GPU-AFFINITY over that rank (ServingLog.net_gdr), and the SHARP plugin's HCA line sights the
  RDMA NIC (facts/rdma.py).
- nccl-tests prints each rank's GPU from cudaGetDeviceProperties: a GH200 or Blackwell GPU on that list ran under the
  open kernel module (DRV-OPEN-MODULE ok), as on llama.cpp's or simpleP2P's device lists.

Real lines are corpus captures (the public thread beside each); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.rdma import rdma_from_nccl_log
from stackaudit.facts.serving_logs import parse_serving_log

CHECKS = ("KVER-DMABUF", "IC-NIC-GPU-AFFINITY")
# NVIDIA/nccl#1219 (corpus 1415), line 11 of the capture.
COLLNET_LINE = "node:176:4360 [5] NCCL INFO CollNet 05/0 : 5 [receive] via COLLNET/SHARP/5/GDRDMA"


def test_collnet_channel_is_read_as_an_rdma_channel_with_gdr() -> None:
    log = parse_serving_log(COLLNET_LINE + "\n")
    (channel,) = log.channels
    assert (channel.transport, channel.src, channel.dst, channel.direction) == ("COLLNET", 5, 5, "receive")
    assert channel.rdma and channel.gdr
    assert log.net_gdr() == {5: True}


def test_collnet_channel_without_gdr_keeps_the_rank_off() -> None:
    # Modelled: the same line where NCCL did not register the buffer with the NIC.
    log = parse_serving_log(COLLNET_LINE.removesuffix("/GDRDMA") + "\n")
    assert log.net_gdr() == {5: False}


def test_sharp_plugin_names_its_hca() -> None:
    assert rdma_from_nccl_log(body("1415")).names == ("mlx5_4",)
    # Modelled: the CollNet channel alone still sights an RDMA NIC by its device index.
    assert rdma_from_nccl_log(COLLNET_LINE + "\n").names == ("COLLNET/SHARP/5",)


def test_collnet_gdrdma_is_ok_for_dmabuf_and_affinity_over_its_rank() -> None:
    results = capture_checks("1415", *CHECKS)
    for cid in CHECKS:
        r = results[cid]
        assert r.status == "ok", (cid, r.message)
        assert "rank 5" in r.message and any("COLLNET/SHARP/5/GDRDMA" in line for line in r.evidence)


def test_collnet_without_gdrdma_is_no_ok(tmp_path: Path) -> None:
    # Modelled on 1415: the CollNet channel without GDRDMA says GDR is off for the rank: neither check is ok.
    text = body("1415").replace("COLLNET/SHARP/5/GDRDMA", "COLLNET/SHARP/5")
    results = paste_checks(tmp_path, text, *CHECKS)
    for cid in CHECKS:
        assert results[cid].status == "unknown", (cid, results[cid].message)


def test_nccl_tests_device_list_of_gh200_shows_the_open_module() -> None:
    r = capture_checks("1409", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and r.actual == "open (inferred)", r.message
    assert "NVIDIA GH200 480GB" in r.message and "nccl-tests header" in r.message


def test_nccl_tests_device_list_of_hopper_needs_neither_flavour(tmp_path: Path) -> None:
    # Modelled on 1409: H100s run under either flavour, so neither is required (ok, which one is loaded not shown).
    text = body("1409").replace("NVIDIA GH200 480GB", "NVIDIA H100 80GB HBM3")
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "which one is loaded is not shown" in r.message, r.message
