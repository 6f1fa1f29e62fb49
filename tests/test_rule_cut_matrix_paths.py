"""The paths a cut `nvidia-smi topo -m` leaves out, read from a switch sibling's row (facts/topology.TopoMatrix.path).

PIX and PXB say two GPUs hang below one host bridge without crossing it, so every path out of that subtree is
the same for both: where GPU0's row shows GPU1 over PIX and GPU4 over SYS, GPU1 meets GPU4 over SYS too.
IC-TOPOLOGY-PLACEMENT judges a TP group whose pairs a cut matrix does not show through that reading, and says
unknown where no row settles a pair (never `ok` over a path it did not read). Real matrices are corpus captures
(their threads in their headers); modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, load_corpus, paste_checks
from stackaudit.facts.topology import parse_topo_matrix


def _matrix(prefix: str):  # type: ignore[no-untyped-def]
    entry = next(e for e in load_corpus() if e.path.name.startswith(f"{prefix}-"))
    return parse_topo_matrix("\n".join(entry.lines_of("topo -m")))


def test_a_switch_siblings_row_gives_the_paths_out_of_the_switch() -> None:
    # 199 (rows GPU0-GPU4 of an 8-GPU two-socket host): GPU4-GPU5 PIX and GPU4-GPU6 PHB, so GPU5-GPU6 is PHB.
    topo = _matrix("199")
    assert topo.link("GPU5", "GPU6") is None and topo.path("GPU5", "GPU6") == "PHB"
    # 575 (vLLM thread, rows GPU0-GPU1 of six): GPU0-GPU2 PXB, GPU0-GPU3 SYS, so GPU2-GPU3 is SYS.
    topo = _matrix("575")
    assert topo.path("GPU2", "GPU3") == "SYS"
    # 642 (SGLang thread, GPU0's row alone): GPU1-3 PIX with GPU0, GPU4 SYS: GPU1-GPU4 SYS, GPU1-GPU2 inside the
    # switch tree (at worst PXB).
    topo = _matrix("642")
    assert (topo.path("GPU1", "GPU4"), topo.path("GPU1", "GPU2")) == ("SYS", "PXB")
    # 484 (SGLang check_env, 8x RTX 5090, cut): the inferred pairs are all read from a PIX/PXB sibling.
    topo = _matrix("484")
    assert all(topo.path(a, b) in ("PHB", "NODE", "SYS", "PXB") for a, b in topo.inferred_pairs(topo.gpus))
    assert topo.inferred_pairs(topo.gpus)


def test_placement_reads_the_group_through_the_sibling_rows() -> None:
    # 642: `CUDA_VISIBLE_DEVICES=1,2,3,4 ... --tp 4` puts GPU4 across the sockets from GPUs 1-3, while 0-3 share
    # GPU0's PCIe switch.
    result = capture_checks("642", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "issue", result.message
    assert "GPU1, GPU2, GPU3, GPU4 crosses sockets (SYS) while GPU0, GPU1, GPU2, GPU3 share a socket" in result.message
    assert "read from the row of a GPU behind the same PCIe switch" in result.message


# Modelled: GPU0's row alone, GPU1 over NVLink (no PCIe subtree is shown), GPU2 over SYS.
NVLINKED_ROW = """\
\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV4\tSYS\tSYS\t0-15\t0
"""


def test_nvlink_or_a_missing_row_settles_nothing(tmp_path: Path) -> None:
    topo = parse_topo_matrix(NVLINKED_ROW)
    assert topo.path("GPU1", "GPU2") is None and topo.path("GPU2", "GPU3") is None
    # A TP group over pairs nothing settles is unknown, never `ok` over paths the matrix does not show.
    command = "CUDA_VISIBLE_DEVICES=1,2 vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n"
    result = paste_checks(tmp_path, command + "\n" + NVLINKED_ROW, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "unknown", result.message
    assert "GPU1-GPU2" in result.message
