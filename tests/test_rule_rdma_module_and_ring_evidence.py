"""What RDMA and GPUDirect RDMA evidence shows in NCCL logs and `lsmod` (issue 28, blind run DD: 664-674).

Four rules, each on real pastes from different public threads (verbatim, under the thread each comes from, or a
corpus capture) and a modelled counter-example (said so):

- NCCL before 2.7 names its channels `Ring 00 : 1[18100000] -> 0[435e00000] [receive] via NET/IB/0/GDRDMA`: an
  RDMA NIC NCCL sends through (facts/rdma.py), as a `Channel` line does.
- A `GDRDMA` channel or a `GPU Direct RDMA Enabled` line covers the GPUs whose ranks show it, out of the GPUs the log
  shows (ServingLog.gpus_total): one host's device tags, or the ranks of a job logged from several hosts.
- A module's users in `lsmod` (`ib_core ... nv_peer_mem,mlx5_ib`) are loaded modules (parse_proc_modules). mlx5_ib
  among them is a bound Mellanox HCA. MLNX_OFED's nv_peer_mem is a peer-memory client like nvidia_peermem.
- NCCL's `P2P is disabled between connected GPUs 1 and 0` is NVML refusing P2P on a pair its topology connects below
  SYS (facts/peer_access.REFUSALS).
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, fact, paste_checks
from stackaudit.facts.peer_access import find_refusals
from stackaudit.facts.rdma import rdma_from_nccl_log
from stackaudit.facts.system import parse_proc_modules
from stackaudit.importers.pasted import load_pasted

GDR = ("KVER-DMABUF", "IC-NVIDIA-PEERMEM")

# --- `Ring` channel lines name an RDMA NIC ------------------------------------------------------------------------

# https://github.com/Mellanox/nv_peer_memory/issues/56 (vilmara, NCCL 2.4): Ring lines over NET/IB without GDRDMA.
NV_PEER_MEMORY_56 = """\
master_node:11717:11986 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)
master_node:11717:11986 [2] NCCL INFO Ring 00 : 6 -> 2 [receive] via NET/IB/0
master_node:11715:11984 [0] NCCL INFO Ring 00 : 0[0] -> 2[2] via P2P/IPC
secondary_node:11791:12057 [2] NCCL INFO Ring 00 : 6 -> 2 [send] via NET/IB/0
"""
# https://github.com/NVIDIA/nccl/issues/226 (Luo-Liang): Ring lines over sockets only, no RDMA NIC named.
NCCL_226 = """\
ip-172-31-12-210:45305:45310 [0] NCCL INFO Ring 00 : 43 -> 44 [receive] via NET/Socket/0
ip-172-31-4-37:45379:45384 [0] NCCL INFO Ring 00 : 32 -> 33 [receive] via NET/Socket/0
"""


def test_ring_lines_over_ib_name_the_rdma_nic() -> None:
    # Corpus 664 (nccl-tests#36) and nv_peer_memory#56, with no `NET/IB : Using` line in either.
    text_664 = next(CAPTURES_DIR.glob("664-*.txt")).read_text()
    assert rdma_from_nccl_log(text_664).names == ("NET/IB/0",)
    assert rdma_from_nccl_log(NV_PEER_MEMORY_56).names == ("NET/IB/0",)


def test_ring_lines_over_sockets_name_no_rdma_nic(tmp_path: Path) -> None:
    # nccl#226: NET/Socket rings neither show an RDMA NIC nor prove there is none.
    r = paste_checks(tmp_path, NCCL_226, "KVER-DMABUF")["KVER-DMABUF"]
    assert r.status == "unknown", r.message
    assert "NET/IB : Using" in r.message


# --- GDRDMA and `Enabled` lines: ok over the GPUs whose ranks show it ----------------------------------------------


def test_gdrdma_is_ok_for_both_paths_over_the_gpus_the_log_shows() -> None:
    # Three threads: nccl-tests#36 (664, two VMs, `Ring` lines), aks-rdma-infiniband#36 (667, one pod's 8 devices),
    # aks-rdma-infiniband#30 (668, two workers, 16 ranks).
    for prefix, shown in (("664", "2 of 2 GPUs shown"), ("667", "4 of 8 GPUs shown"), ("668", "4 of 16 GPUs shown")):
        results = capture_checks(prefix, *GDR)
        for cid in GDR:
            r = results[cid]
            assert r.status == "ok", (prefix, cid, r.message)
            assert r.coverage is not None and r.coverage.text() == shown, (prefix, cid, r.coverage)


def test_one_host_log_counts_its_device_tags_not_the_peer_hosts_ranks() -> None:
    # Corpus 667: channel lines name ranks 9-15 of the other pod, whose GPUs are not this host's.
    log = fact(load_pasted([str(next(CAPTURES_DIR.glob("667-*.txt")))]), "serving_log")
    assert log.nccl_hosts == ("leader-h2nng",)
    assert log.gpus_total() == 8


# Modelled: a two-host socket-only log, the counter-example: no RDMA NIC, no GDR proof.
SOCKET_ONLY = """\
node0:100:200 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>
node0:100:200 [0] NCCL INFO Using network Socket
node0:100:200 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/Socket/0
node1:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0
"""


def test_a_socket_only_log_proves_no_gpudirect(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, SOCKET_ONLY, *GDR)
    for cid in GDR:
        assert results[cid].status != "ok", (cid, results[cid].message)


# --- `lsmod` users are loaded modules; nv_peer_mem is a peer-memory client ----------------------------------------

# https://github.com/NVIDIA/nccl/issues/1737 (SzymonOzog): `lsmod | grep nvidia`, mlx5_ib only in ib_core's users.
NCCL_1737 = """\
(base) [szymon.ozog@gh-3714u06 ~]$ lsmod | grep nvidia
nvidia_uvm           1523712  0
nvidia_drm             73728  0
nvidia_modeset       1306624  1 nvidia_drm
nvidia_peermem         16384  0
nvidia              56598528  147 nvidia_uvm,nvidia_peermem,gdrdrv,nvidia_modeset
drm_kms_helper        167936  7 drm_vram_helper,ast,drm_display_helper,nvidia_drm,nouveau
ib_core               442368  9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm
drm                   577536  10 drm_kms_helper,drm_vram_helper,ast,drm_display_helper,nvidia,drm_ttm_helper,nvidia_drm,ttm,nouveau
"""
# https://github.com/leptonai/gpud/pull/39 (gyuho): the raw `lsmod` lines gpud's peermem check reads.
GPUD_39 = """\
nvidia_peermem         16384  0
ib_core               434176  9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm
nvidia              56717312  550 nvidia_uvm,nvidia_peermem,nvidia_modeset
"""
# Modelled counter-example: an `lsmod` excerpt whose lines name no RDMA driver and no peer-memory client.
NO_IB_USERS = """\
nvidia_uvm           1376256  0
nvidia_modeset       1245184  1 nvidia_drm
nvidia              56467456  106 nvidia_uvm,gdrdrv,nvidia_modeset
"""


def test_users_of_a_module_are_loaded_modules() -> None:
    assert {"mlx5_ib", "rdma_cm", "nvidia_peermem"} <= parse_proc_modules(NCCL_1737).names
    assert {"mlx5_ib", "ib_uverbs"} <= parse_proc_modules(GPUD_39).names
    assert "mlx5_ib" not in parse_proc_modules(NO_IB_USERS).names


def test_a_loaded_peer_memory_client_beside_mlx5_ib_is_ok_for_both_paths(tmp_path: Path) -> None:
    # Three threads: ucx#6327 (674, MLNX_OFED's nv_peer_mem), nccl#1737, gpud#39 (nvidia_peermem); no kernel shown.
    for results, module in ((capture_checks("674", *GDR), "nv_peer_mem"), (paste_checks(tmp_path, NCCL_1737, *GDR),
                            "nvidia_peermem"), (paste_checks(tmp_path, GPUD_39, *GDR), "nvidia_peermem")):
        for cid in GDR:
            assert results[cid].status == "ok", (module, cid, results[cid].message)
        assert f"{module} is loaded" in results["KVER-DMABUF"].message
        assert "mlx5_ib" in results["KVER-DMABUF"].message


def test_an_lsmod_without_rdma_users_shows_no_rdma_nic(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, NO_IB_USERS, *GDR)
    assert results["KVER-DMABUF"].status == "unknown", results["KVER-DMABUF"].message
    assert results["IC-NVIDIA-PEERMEM"].status not in ("ok", "issue"), results["IC-NVIDIA-PEERMEM"].message


# --- NCCL's `P2P is disabled between connected GPUs` --------------------------------------------------------------

# https://github.com/pytorch/pytorch/issues/130113 (wht0948): three ranks of node155.
PYTORCH_130113 = """\
node155:3052669:3052713 [1] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
node155:3052668:3052715 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
node155:3052670:3052714 [2] NCCL INFO P2P is disabled between connected GPUs 2 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
"""
# https://github.com/sgl-project/sglang/issues/565 (keepitsane): one rank's lines for four GPUs.
SGLANG_565 = """\
ip-172-16-1-166:32493:32644 [0] NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
ip-172-16-1-166:32493:32644 [0] NCCL INFO P2P is disabled between connected GPUs 3 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
ip-172-16-1-166:32493:32644 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 2. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.
"""
# Modelled counter-example: the same host's NCCL with P2P channels and no refusal.
P2P_CONNECTED = """\
node155:3052668:3052715 [0] NCCL INFO Channel 00/0 : 0[1a000] -> 1[1b000] via P2P/IPC
node155:3052669:3052713 [1] NCCL INFO Channel 00/0 : 1[1b000] -> 2[1c000] via P2P/IPC
"""


def test_nvml_p2p_disabled_lines_are_refusals() -> None:
    pairs = {r.pair for r in find_refusals(PYTORCH_130113.splitlines())}
    assert pairs == {frozenset((1, 2)), frozenset((0, 1)), frozenset((0, 2))}


def test_p2p_disabled_between_connected_gpus_is_an_issue_over_those_gpus(tmp_path: Path) -> None:
    # Three threads: vllm#11139 (670, wrapped Ray lines), pytorch#130113, sglang#565.
    for results, shown in ((capture_checks("670", "IC-P2P-FUNCTIONAL"), 3),
                           (paste_checks(tmp_path, PYTORCH_130113, "IC-P2P-FUNCTIONAL"), 3),
                           (paste_checks(tmp_path, SGLANG_565, "IC-P2P-FUNCTIONAL"), 4)):
        r = results["IC-P2P-FUNCTIONAL"]
        assert r.status == "issue", r.message
        assert "P2P is disabled between connected GPUs" in r.message
        assert r.coverage is not None and r.coverage.count == shown, r.coverage


def test_p2p_channels_without_a_refusal_are_not_an_issue(tmp_path: Path) -> None:
    # Set-up without a refusal: no issue, and no proof either (the channel lines are not a data test, h61c).
    r = paste_checks(tmp_path, P2P_CONNECTED, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"]
    assert r.status == "unknown" and "set-up, not data crossing" in r.message, r.message
