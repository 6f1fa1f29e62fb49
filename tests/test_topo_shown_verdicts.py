"""Issue 28: verdicts from what a `nvidia-smi topo -m` shows, whole or cut part-way.

Rules (checks/drv.py `_nvlinks_all_up`, checks/ic.py `topology_placement`, facts/topology.py):
- DRV-NVLINK-HEALTH is ok over a matrix's whole rows when every pair shown reads NV<k> and k is every link
  a GPU has: the model's link count where the source names the model, else the most links any GPU has (18).
- A whole row bonding more NVLinks than any GPU has proves NVSwitches: the pairs a cut matrix does not show
  meet over NVLink too, so IC-TOPOLOGY-PLACEMENT is ok over the rows shown.
- Where every GPU's NUMA affinity spans several nodes and no path is SYS, the sockets are hidden: placement
  is unknown.

Real pastes: corpus files of tests/data/captures, or the public thread named beside each, verbatim (where the
stored copy of a thread ends inside a row, the rows kept are the whole ones before it). Modelled
counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise
from test_topology_parsers import make_topo

CAPTURES = Path(__file__).parent / "data" / "captures"
NVLINK, PLACEMENT = "DRV-NVLINK-HEALTH", "IC-TOPOLOGY-PLACEMENT"


def _capture(prefix: str, *checks: str) -> dict[str, Result]:
    path = next(CAPTURES.glob(prefix + "-*.txt"))
    return run_checks(load_pasted([str(path)]), list(checks))


def _run(text: str, *checks: str) -> dict[str, Result]:
    return run_checks(MemoryHost(recognise(text).record), list(checks))


def _covers(result: Result) -> str:
    return result.coverage.text() if result.coverage is not None else ""


# sgl-project/sglang#13973 (leavelet): an 8-GPU NV18 board, two NICs per socket pair; the stored copy ends inside
# the GPU6 row, so the rows kept are GPU0-GPU5.
SGLANG_13973 = """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    NIC0    NIC1    NIC2    NIC3    NIC4    NIC5    NIC6    NIC7    NIC8    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV18    NV18    NV18    NV18    NV18    NV18    NV18    PIX     NODE    NODE    SYS     SYS     SYS     SYS     SYS     SYS     0-23,96-119     0               N/A
GPU1    NV18     X      NV18    NV18    NV18    NV18    NV18    NV18    NODE    PIX     NODE    SYS     SYS     SYS     SYS     SYS     SYS     0-23,96-119     0               N/A
GPU2    NV18    NV18     X      NV18    NV18    NV18    NV18    NV18    NODE    NODE    PIX     SYS     SYS     SYS     SYS     SYS     SYS     0-23,96-119     0               N/A
GPU3    NV18    NV18    NV18     X      NV18    NV18    NV18    NV18    SYS     SYS     SYS     NODE    PIX     SYS     SYS     SYS     SYS     24-47,120-143   1               N/A
GPU4    NV18    NV18    NV18    NV18     X      NV18    NV18    NV18    SYS     SYS     SYS     SYS     SYS     PIX     NODE    NODE    SYS     48-71,144-167   2               N/A
GPU5    NV18    NV18    NV18    NV18    NV18     X      NV18    NV18    SYS     SYS     SYS     SYS     SYS     NODE    PIX     NODE    SYS     48-71,144-167   2               N/A
"""

# vllm-project/vllm#29944 (wenba0): an 8-GPU NV18 board with 10 NICs; the stored copy ends inside the GPU5 row,
# so the rows kept are GPU0-GPU4.
VLLM_29944 = """\
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    NIC0    NIC1    NIC2    NIC3    NIC4    NIC5    NIC6    NIC7    NIC8    NIC9    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV18    NV18    NV18    NV18    NV18    NV18    NV18    NODE    NODE    NODE    PIX     SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A
GPU1    NV18     X      NV18    NV18    NV18    NV18    NV18    NV18    NODE    NODE    PIX     NODE    SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A
GPU2    NV18    NV18     X      NV18    NV18    NV18    NV18    NV18    NODE    PIX     NODE    NODE    SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A
GPU3    NV18    NV18    NV18     X      NV18    NV18    NV18    NV18    PIX     NODE    NODE    NODE    SYS     SYS     SYS     SYS     SYS     SYS     0-55,112-167    0               N/A
GPU4    NV18    NV18    NV18    NV18     X      NV18    NV18    NV18    SYS     SYS     SYS     SYS     NODE    PIX     NODE    NODE    NODE    NODE    56-111,168-223  1               N/A
"""


# --- DRV-NVLINK-HEALTH: NV<k>, k every link a GPU has, on every pair shown ------------------------------------


def test_nv18_on_every_pair_is_every_link_up_over_the_rows_shown() -> None:
    # Corpus 220 (sglang#4646): all 8 rows whole. Before, unknown ("per-link states are not in this source").
    result = _capture("220", NVLINK)[NVLINK]
    assert result.status == "ok" and "NV18" in result.message and "the most any GPU has" in result.message
    assert _covers(result) == "8 of 8 GPUs shown"
    # Two more threads, each cut part-way: the whole rows are judged, the rest named.
    for text, rows, missing in ((SGLANG_13973, 6, "rows GPU6, GPU7 not shown"),
                                (VLLM_29944, 5, "rows GPU5, GPU6, GPU7 not shown")):
        result = _run(text, NVLINK)[NVLINK]
        assert result.status == "ok" and missing in result.message
        assert _covers(result) == f"{rows} of 8 GPUs shown"


def test_nv12_is_every_link_up_only_where_the_source_names_a_12_link_model() -> None:
    # Corpus 45 (sglang#965) and 130 (sglang#661): check_env names A100-SXM4-80GB, 12 NVLinks; NV12 everywhere.
    result = _capture("45", NVLINK)[NVLINK]
    assert result.status == "ok" and "A100-SXM4-80GB's 12 links" in result.message
    assert _covers(result) == "3 of 8 GPUs shown"
    assert _capture("130", NVLINK)[NVLINK].status == "ok"
    # Corpus 225 (vllm#20469): NV12 with no model in a source the tool reads, on two disjoint bridged pairs. One GPU with
    # 6 links down reads NV12 beside its peers' higher count; the same count on independent bridges is the build, a
    # bridged card's full count (test_rule_nvlink_counts): ok over the pairs.
    result = _capture("225", NVLINK)[NVLINK]
    assert result.status == "ok" and "the same NV12 on all 2 pairs" in result.message
    # Corpus 236 (nccl#1505): the user's words name a DGX A100 40GB, whose eight A100 SXM4 have 12 links each.
    result = _capture("236", NVLINK)[NVLINK]
    assert result.status == "ok" and "A100 SXM4 40GB's 12 links" in result.message


def test_fewer_links_on_one_pair_or_a_gpu_without_nvlink_is_never_ok() -> None:
    # Modelled: NV18 everywhere but GPU3-GPU5 at NV17 (a link down); not all up, so no ok (IC-TOPO-READ flags it).
    cells = [["X" if i == j else ("NV17" if {i, j} == {3, 5} else "NV18") for j in range(8)] for i in range(8)]
    assert _run(make_topo(cells, ["0-47"] * 8, ["0"] * 8), NVLINK)[NVLINK].status == "unknown"
    # Corpus 09: a B200 board whose GPU2 shows no NV# cell stays the issue the check reports.
    assert _capture("09", NVLINK)[NVLINK].status == "issue"


# The DGX-1V's hybrid cube mesh (NVIDIA WP-08437-002): GPU i's NV# to GPU j, SYS elsewhere.
_CUBE = {(0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2, (1, 2): 2, (1, 3): 1, (1, 5): 2, (2, 3): 2, (2, 6): 1,
         (3, 7): 1, (4, 5): 1, (4, 6): 1, (4, 7): 2, (5, 6): 2, (5, 7): 1, (6, 7): 2}


def _cube(bonds: dict[tuple[int, int], int]) -> list[list[str]]:
    return [["X" if i == j else (f"NV{bonds[min(i, j), max(i, j)]}" if (min(i, j), max(i, j)) in bonds else "SYS")
             for j in range(8)] for i in range(8)]


def test_a_whole_matrix_of_a_direct_boards_full_wiring_is_every_link_up() -> None:
    # Corpus 2639 (a DGX-1 in the commenter's words): every row bonds 2+2+1+1, a V100 SXM2's six links.
    result = _capture("2639", NVLINK)[NVLINK]
    assert result.status == "ok" and "2+2+1+1" in result.message and "V100 SXM2" in result.message
    # Corpus 335 (another thread's cube mesh, numbered otherwise): the same wiring, every link up.
    result = _capture("335", NVLINK)[NVLINK]
    assert result.status == "ok" and "2+2+1+1" in result.message
    assert _run(make_topo(_cube(_CUBE), ["0-19"] * 8, ["0"] * 8), NVLINK)[NVLINK].status == "ok"


def test_a_direct_board_short_of_a_link_or_covered_by_a_bigger_one_stays_open() -> None:
    # Modelled: the cube mesh with GPU0-GPU3 at NV1 (a link down): GPU0 and GPU3 sum to five, no board's row.
    down = dict(_CUBE) | {(0, 3): 1}
    assert _run(make_topo(_cube(down), ["0-19"] * 8, ["0"] * 8), NVLINK)[NVLINK].status == "unknown"
    # Modelled: four GPUs NV4 to each other, no model named: an A100 board whole, or four GPUs of an HGX A100 whose
    # NVSwitches are down but two (one count on every pair is an NVSwitch board's view too).
    cells = [["X" if i == j else "NV4" for j in range(4)] for i in range(4)]
    assert _run(make_topo(cells, ["0-15"] * 4, ["0"] * 4), NVLINK)[NVLINK].status == "unknown"
    # Corpus 2636 (vLLM collect_env, no model): NV6 on every pair of four GPUs is a Hopper board whole, but also four
    # GPUs of an NVSwitch board (a DGX-2's V100s whole, an HGX A100 with three switches down): open.
    assert _capture("2636", NVLINK)[NVLINK].status == "unknown"
    # Corpus 2632 (Summit): NV2 triads; a third of each V100's links go to the POWER9 CPU, which the matrix does not
    # show: no board of the table, so it stays open.
    assert _capture("2632", NVLINK)[NVLINK].status == "unknown"


# --- IC-TOPOLOGY-PLACEMENT: NVSwitches proven by a row, sockets hidden by NUMA affinity ------------------------


def test_a_row_with_more_nvlinks_than_a_gpu_has_settles_the_pairs_a_cut_matrix_leaves_out() -> None:
    # Corpus 236 (nccl#1505): GPU0-GPU3 whole, 7 x NV12 = 84 links in a row; before, unknown (6 pairs not shown).
    result = _capture("236", PLACEMENT)[PLACEMENT]
    assert result.status == "ok" and "NVSwitches" in result.message
    assert _covers(result) == "4 of 8 GPUs shown"
    for text, rows in ((SGLANG_13973, 6), (VLLM_29944, 5)):
        result = _run(text, PLACEMENT)[PLACEMENT]
        assert result.status == "ok" and _covers(result) == f"{rows} of 8 GPUs shown"
    # Corpus 220: the whole matrix NVLinked is ok (any group meets over NVLink), not not-applicable.
    result = _capture("220", PLACEMENT)[PLACEMENT]
    assert result.status == "ok" and _covers(result) == "8 of 8 GPUs shown"


def test_directly_linked_pairs_do_not_prove_a_switch() -> None:
    # Modelled: 4 GPUs, NV4 on every pair (12 links a row, within what one GPU has), cut after GPU1's row:
    # GPU2-GPU3 may be PCIe, so placement stays unknown.
    whole = make_topo([["X" if i == j else "NV4" for j in range(4)] for i in range(4)], ["0-15"] * 4, ["0"] * 4)
    cut = "\n".join(whole.splitlines()[:3]) + "\n"
    assert _run(cut, PLACEMENT)[PLACEMENT].status == "unknown"


def test_numa_affinity_spanning_nodes_hides_the_sockets() -> None:
    # Corpus 215 (an AWS g5.48xlarge): every A10G at NUMA affinity 0-1, all PHB: before, ok ("no group size needs
    # to cross sockets"), which the matrix cannot show.
    result = _capture("215", PLACEMENT)[PLACEMENT]
    assert result.status == "unknown" and "hides which socket" in result.message
    # Corpus 60 and 180: every GPU on node 0: the placement advice stands.
    for prefix in ("60", "180"):
        assert _capture(prefix, PLACEMENT)[PLACEMENT].status == "ok", prefix
    # Modelled: the same spanning affinity with a SYS path shows a socket boundary: not hidden (the best groups are
    # given; with no engine shown, whether its group crosses stays unknown).
    cells = [["X" if i == j else ("PHB" if i // 2 == j // 2 else "SYS") for j in range(4)] for i in range(4)]
    result = _run(make_topo(cells, ["0-31"] * 4, ["0-1"] * 4), PLACEMENT)[PLACEMENT]
    assert "hides" not in result.message and "TP2: 0,1 | 2,3" in result.message
