"""NCCL's GPU Direct RDMA lines, per GPU and per HCA (issue 28, blind run W: 565, 566), and `lsmod | grep NAME`.

A GPU's line (`GPU Direct RDMA Disabled for GPU 18000 / HCA 0 (distance 5 > 4)`, graph/paths.cc) weighs that GPU's
path to the NIC against NCCL_NET_GDR_LEVEL: placement, IC-NIC-GPU-AFFINITY. An HCA's line (`NET/IB : GPU Direct RDMA
Disabled for HCA 0 'mlx5_0'`, graph/topo.cc, `(no module)` in the IB plugin before 2.18) says whether the NIC reaches
GPU memory at all (nvidia_peermem's peer-memory client or DMA-BUF): IC-NVIDIA-PEERMEM. NET/Socket's `Disabled` line is
no RDMA NIC. A grep of lsmod shown with its rows proves those modules loaded and no other module absent.
Real lines are verbatim from the public thread beside each (or a corpus capture); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, fact, paste_checks
from stackaudit.facts.engine_command import stated_nodes
from stackaudit.facts.serving_logs import parse_serving_log
from stackaudit.facts.system import LoadedModules
from stackaudit.importers.pasted import load_pasted

AFFINITY, PEERMEM = "IC-NIC-GPU-AFFINITY", "IC-NVIDIA-PEERMEM"

# https://github.com/NVIDIA/nccl/issues/1151 (duanzhaol): two machines of one GPU each, the one line the body quotes.
NCCL_1151 = "NCCL INFO GPU Direct RDMA Disabled for GPU ca000 / HCA 0 (distance 7 > 4)\n"
# https://github.com/NVIDIA/nccl/issues/899 (raninbowlalala): two containers' ranks over NET/IB, no peer-memory module.
NCCL_899 = """\
21346d5cefce:5325:5337 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)
21346d5cefce:5325:5337 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 2 'mlx5_2' (no module)
21346d5cefce:5325:5337 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 3 'mlx5_3' (no module)
21346d5cefce:5325:5338 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1a000] [receive] via NET/IB/0
6a5a91752e39:74352:74372 [0] NCCL INFO Channel 00 : 1[1a000] -> 0[1a000] [receive] via NET/IB/0
21346d5cefce:5325:5338 [0] NCCL INFO Channel 01 : 0[1a000] -> 1[1a000] [receive] via NET/IB/0
"""
# The line https://github.com/NVIDIA/nccl/issues/1939 (shirinebadi, nvidia_peermem loaded) quotes, its log prefix
# modelled (the body quotes it from `INFO` on).
NCCL_1939 = "node1:2001:2101 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
# https://github.com/NVIDIA/nccl/issues/901 (junior-zsy): one host's ranks over NET/Socket, which never reaches GPU
# memory: its `Disabled` lines are no RDMA NIC's.
NCCL_901 = """\
qygpu047:411931:411931 [3] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 1 'lan3'
qygpu047:411929:411929 [1] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 3 'lan5'
qygpu047:411931:411931 [3] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 2 'lan4'
qygpu047:411930:411930 [2] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lan2'
"""
# https://github.com/NVIDIA/nccl/issues/707 (ConnollyLeon): NET channels with GDRDMA.
NCCL_707 = """\
10-90-43-152:120890:121560 [0] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA
10-90-43-152:120890:121561 [1] NCCL INFO Channel 01 : 2[c7000] -> 1[8d000] [receive] via NET/IB/5/GDRDMA
"""
# Modelled: one host, every GPU within reach of its NIC under the default level (NCCL 2.6's line shape).
ALL_NEAR = """\
gpu1:100:200 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 1a000 / HCA 0 (distance 2 <= 3), read 0
gpu1:100:200 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 1b000 / HCA 0 (distance 2 <= 3), read 0
"""
# https://github.com/spidernet-io/spiderpool (docs/usage/install/ai/index.md): two greps of lsmod, one row each.
SPIDERPOOL_LSMOD = ("""\
```shell
$ lsmod | grep nvidia_peermem
nvidia_peermem         16384  0
```
""", """\
```shell
$ lsmod | grep gdrdrv
gdrdrv                 24576  0
```
""")


def test_gpu_lines_some_near_some_far_are_an_affinity_issue() -> None:
    # NVIDIA/DeepLearningExamples#383 (corpus 565): two GPUs beyond the level set (PHB), two within it.
    results = capture_checks("565", AFFINITY, PEERMEM)
    r = results[AFFINITY]
    assert r.status == "issue", r.message
    assert set(r.subjects) == {"GPU 18000", "GPU 3b000"}
    assert "NCCL_NET_GDR_LEVEL=PHB" in r.message and any("distance 5 > 4" in line for line in r.evidence)
    # An `Enabled` line shows NCCL's NIC reaching GPU memory: the peer-memory path works.
    assert results[PEERMEM].status == "ok", results[PEERMEM].message


def test_gpu_lines_all_far_without_other_nodes_stay_unknown(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_1151, AFFINITY)[AFFINITY]
    assert r.status == "unknown" and "GPU ca000" in r.message, r.message


def test_gpu_lines_all_near_are_ok_over_the_gpus_shown(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, ALL_NEAR, AFFINITY)[AFFINITY]
    assert r.status == "ok" and r.coverage is not None and r.coverage.count == 2, r.message
    raised = "gpu1:100:200 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS\n" + ALL_NEAR
    assert paste_checks(tmp_path, raised, AFFINITY)[AFFINITY].status == "unknown"


def test_each_release_line_shape_is_read() -> None:
    # NCCL 2.26's GPU line names a rank (https://kubernetes.recipes/recipes/ai/nccl-gpudirect-rdma-distance-pix-sys/
    # quotes it without its prefix, modelled here); the old IB plugin's HCA line ends `(no module)` (nccl#899).
    log = parse_serving_log(
        "h:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 0 (distance 4 <= 4), read 0 mode Default\n"
        + NCCL_899.splitlines()[0] + "\n" + NCCL_901.splitlines()[0] + "\n")
    gpu, hca, socket = log.gdr
    assert (gpu.gpu, gpu.hca, gpu.enabled) == ("0", "0", True)
    assert (hca.gpu, hca.hca, hca.enabled, hca.net, hca.rdma) == ("", "1 'mlx5_1'", False, "IB", True)
    assert socket.net == "Socket" and not socket.rdma
    assert log.gdr_unsupported() == (hca.line,) and log.gdr_works() == () and log.gdr_far() == ()


def test_hca_disabled_is_peermem_not_placement(tmp_path: Path) -> None:
    # Between hosts over NET/IB (nccl#899): the NIC cannot reach GPU memory, so NET traffic is staged.
    results = paste_checks(tmp_path, NCCL_899, AFFINITY, PEERMEM)
    assert results[PEERMEM].status == "issue", results[PEERMEM].message
    assert results[AFFINITY].status != "issue", results[AFFINITY].message
    # One host's lines (nccl#1537, corpus 566; nccl#1939): never ok with the module loaded, unknown without traffic.
    for r in (capture_checks("566", PEERMEM)[PEERMEM], paste_checks(tmp_path, NCCL_1939, PEERMEM)[PEERMEM]):
        assert r.status == "unknown" and "GPU Direct RDMA disabled" in r.message, r.message
    assert "nvidia_peermem is loaded, yet" in capture_checks("566", PEERMEM)[PEERMEM].message


def test_socket_disabled_lines_say_nothing_of_peer_memory(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, NCCL_901, AFFINITY, PEERMEM)
    assert "GPU Direct RDMA disabled" not in results[PEERMEM].message, results[PEERMEM].message
    assert results[AFFINITY].status != "issue", results[AFFINITY].message


def test_gdrdma_channels_show_peer_memory_working(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_707, PEERMEM)[PEERMEM]
    assert r.status == "ok" and any("GDRDMA" in line for line in r.evidence), r.message


def test_one_row_under_a_shown_lsmod_grep_is_lsmod(tmp_path: Path) -> None:
    # nccl#1537 (corpus 566) and spiderpool's docs: the row proves its module loaded, nothing of the others.
    host = load_pasted([str(next(Path(__file__).parent.glob("data/captures/566-*.txt")))])
    modules = fact(host, "modules")
    assert modules.loaded("nvidia_peermem") is True and modules.loaded("nv_peer_mem") is None
    for text, name, other in zip(SPIDERPOOL_LSMOD, ("nvidia_peermem", "gdrdrv"), ("gdrdrv", "nvidia_peermem"), strict=True):
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        modules = fact(load_pasted([str(path)]), "modules")
        assert modules.loaded(name) is True and modules.loaded(other) is None and modules.loaded("nvidia") is None


def test_one_module_like_row_without_its_command_is_not_lsmod(tmp_path: Path) -> None:
    # Modelled: a lone row under prose, beside a real NCCL line (nccl#899), is not read as a module list.
    path = tmp_path / "prose.txt"
    path.write_text("I loaded the module, here it is:\nnvidia_peermem         16384  0\n\n" + NCCL_899.splitlines()[0] + "\n")
    assert not isinstance(fact(load_pasted([str(path)]), "modules"), LoadedModules)


def test_hca_disabled_on_a_job_the_user_says_spans_nodes_is_an_issue(tmp_path: Path) -> None:
    # NVIDIA/nccl#1676 (corpus 2524): the HCAs' `Disabled` lines of one host, and the user's words that the all_reduce
    # runs on 2 nodes: NCCL's traffic between the nodes is staged through host memory on both checks.
    results = capture_checks("2524", PEERMEM, "KVER-DMABUF")
    for r in results.values():
        assert r.status == "issue" and "between nodes" in r.message, r.message
    # HCA 0's line comes from ranks 3 and 4: three HCAs, not four lines.
    assert "for 3 RDMA HCA(s)" in results[PEERMEM].message, results[PEERMEM].message
    # The same lines without those words (modelled: the sentence cut) leave the job's nodes unshown.
    body = (CAPTURES_DIR / next(p.name for p in CAPTURES_DIR.glob("2524-*"))).read_text().split("-----\n", 1)[1]
    cut = "\n".join(line for line in body.splitlines() if "2 nodes" not in line) + "\n"
    assert paste_checks(tmp_path, cut, PEERMEM)[PEERMEM].status == "unknown"


def test_stated_nodes_reads_a_count_of_two_or_more() -> None:
    # Real sentences: NVIDIA/nccl#1676 (corpus 2524) and corpus 1781 (another thread, `using 2 nodes with 8 GPUs`).
    assert stated_nodes("e.g: NCCL all_reduce on 2 nodes dropped from ~180GB/s to ~10GB/s for 1GB message size.")
    assert stated_nodes("I am trying to perform all_reduce on my H100 cluster, using 2 nodes with 8 GPUs each")
    assert stated_nodes("a 2-node run over RoCE fails")
    # Modelled counter-examples: one node, or nodes without a count.
    for line in ("it works on one node but not across nodes", "on a single node with 8 GPUs",
                 "we run on multiple nodes of the cluster", "each node has 8 GPUs"):
        assert not stated_nodes(line), line
    # Bounded: a 200 000-character line is read at once.
    assert not stated_nodes("on 2 " * 40000 + "nodesx")
