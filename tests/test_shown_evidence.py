"""Issue 28: verdicts from what the text shows, and absence only from whole sources.

A topology matrix cut part-way is judged on the rows that are there: a GPU pair is shown by either
GPU's row, so only the pairs no row shows stay unknown, and the verdict names them.

Real pastes: corpus files of tests/data/captures, or the public thread named beside each, verbatim
(where the stored copy of a thread ends inside a row, that cut is the paste's). Modelled
counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.topology import parse_topo_matrix
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise
from test_topology_parsers import make_topo

CAPTURES = Path(__file__).parent / "data" / "captures"


def _capture(prefix: str, *checks: str) -> dict[str, tuple[str, str]]:
    path = next(CAPTURES.glob(prefix + "-*.txt"))
    results = run_checks(load_pasted([str(path)]), list(checks))
    return {cid: (r.status, r.message) for cid, r in results.items()}


def _run(text: str, *checks: str) -> dict[str, tuple[str, str]]:
    results = run_checks(MemoryHost(recognise(text).record), list(checks))
    return {cid: (r.status, r.message) for cid, r in results.items()}


# --- a cut topology matrix: judge the rows shown, name the pairs missing -----------------------

# vllm-project/vllm-omni#432 (Bounty-hunter): collect_env's 'GPU Topology:' of 8 NV12 GPUs; the stored copy of the
# thread ends inside the GPU1 row, after that row's GPU cells.
OMNI_432 = (
    "GPU Topology:\n"
    "  \tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tNIC2\tNIC3\tNIC4\tNIC5\tNIC6\tNIC7\tNIC8\tNIC9"
    "\tNIC10\tNIC11\tNIC12\tNIC13\tNIC14\tNIC15\tNIC16\tNIC17\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNODE\tNODE\tNODE\tNODE\tPXB\tPXB\tPXB\tPXB\tSYS\tSYS\tSYS"
    "\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-47,96-143\t0\n"
    "GPU1\tNV12\t X \tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNODE\tNODE\tNODE\tNODE\tPXB\tPXB\tPXB\tPXB\tSYS\tSYS\tSYS"
    "\tSYS\tSYS\tSYS\tSYS\tSYS\n"
)


def test_a_pair_is_shown_by_either_row_of_a_cut_matrix() -> None:
    # Corpus 11: cut inside the GPU5 row (after its GPU cells); GPU6 and GPU7 have no row.
    text = next(CAPTURES.glob("11-*.txt")).read_text().split("-----\n", 1)[1]
    topo = parse_topo_matrix(text[text.index("GPU0    GPU1"):])
    assert topo.rows_not_shown() == ("GPU5", "GPU6", "GPU7")
    assert topo.unshown_pairs() == (("GPU6", "GPU7"),)  # GPU5-GPU6 and GPU5-GPU7 are in GPU5's row


def test_a_cut_matrix_names_the_one_pair_it_does_not_show() -> None:
    status, message = _capture("11", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "unknown"
    assert "1 GPU pair(s) not shown: GPU6-GPU7" in message and "rows GPU5, GPU6, GPU7 not shown" in message
    assert "fully" not in message  # 27 NV12 pairs shown are not a full mesh


def test_rows_missing_without_a_short_row_are_not_an_ok() -> None:
    # Corpus 45: the stored copy ends after the GPU2 row (complete): 10 pairs among GPU3-7 are in no row. The old
    # code saw no short row and said ok "8 GPUs fully NVLink-connected", and placement not-applicable.
    results = _capture("45", "IC-TOPO-READ", "IC-TOPOLOGY-PLACEMENT", "IC-P2P-FUNCTIONAL")
    status, message = results["IC-TOPO-READ"]
    assert status == "unknown" and "10 GPU pair(s) not shown: GPU3-GPU4" in message
    status, message = results["IC-TOPOLOGY-PLACEMENT"]
    assert status == "unknown" and "every GPU pair shown is NVLink-connected" in message
    assert results["IC-P2P-FUNCTIONAL"][0] == "unknown"


def test_the_rows_shown_still_prove_an_issue() -> None:
    # Corpus 09: headerless, cut inside the GPU6 row, no GPU7 row; GPU2's NODE/SYS cells are in the rows shown.
    status, message = _capture("09", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "issue" and "GPU2 has no NVLink" in message
    assert "rows GPU6, GPU7 not shown" in message


def test_a_row_cut_after_its_gpu_cells_leaves_only_the_other_rows_pairs_unknown() -> None:
    results = _run(OMNI_432, "IC-TOPO-READ", "IC-TOPOLOGY-PLACEMENT")
    status, message = results["IC-TOPO-READ"]
    assert status == "unknown" and "15 GPU pair(s) not shown: GPU2-GPU3" in message
    assert results["IC-TOPOLOGY-PLACEMENT"][0] == "unknown"


def test_a_matrix_cut_after_every_pair_is_judged_ok_with_the_missing_rows_named() -> None:
    # Modelled: 4 NV4 GPUs (make_topo), the paste cut after the GPU2 row: GPU3's row is missing, but each of its
    # pairs is in GPU0-2's rows. The cut no longer makes it unknown; the missing row is named.
    whole = make_topo([["X" if i == j else "NV4" for j in range(4)] for i in range(4)], ["0-15"] * 4, ["0"] * 4)
    lines = whole.splitlines()
    cut = "\n".join(lines[:4]) + "\n"
    status, message = _run(cut, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "ok" and "4 GPUs fully NVLink-connected" in message and "row GPU3 not shown" in message
    # The same cut one row earlier leaves GPU2-GPU3 in no row: unknown, with the pair named.
    status, message = _run("\n".join(lines[:3]) + "\n", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "unknown" and "GPU2-GPU3" in message
