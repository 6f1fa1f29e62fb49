"""The denominator of a verdict over GPUs (`K of N GPUs shown`): N is the most GPUs any source shows for the host or
the job (engine/evaluate.host_count), K the GPUs whose field the check read.

- an nvidia-smi table cut inside a GPU's rows shows that GPU and the fields before the cut (facts/nvidia_smi.py
  _ROW1_CUT, _ROW2_CUT);
- where every listing is an excerpt, the most GPUs any shows is N, a lower bound (Coverage.at_least);
- where no source lists the host whole and the engine's TP x PP is more GPUs than any shows, the job's world is N;
- an NCCL log of several hosts counts the most ranks one host shows, not the job's world.

Real pastes are corpus captures (the source in each file's header); the modelled cuts say so.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from corpus import CAPTURES_DIR, body, capture_checks, fact, pasted
from stackaudit.checks.registry import Coverage, ok, over_subjects
from stackaudit.cli.main import main
from stackaudit.facts.gpus import NCCL_LOG_TITLE
from stackaudit.report.json_report import report_from_json

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs" / "report.schema.json").read_text())


def _coverage(prefix: str, check: str) -> Coverage:
    coverage = capture_checks(prefix, check)[check].coverage
    assert coverage is not None
    return coverage


# -- a cut row's GPU -------------------------------------------------------------------------------


def test_corpus_1064_a_first_row_cut_after_persistence_shows_the_gpu_and_its_persistence() -> None:
    # ggml-org/llama.cpp#11132: the copy ends at `|   1  NVIDIA GeForce RTX 3090        On`.
    gpus = fact(pasted(body("1064")), "nvidia").gpus
    assert [(g.index, g.persistence, g.power_limit_w) for g in gpus] == [(0, True, 420.0), (1, True, None)]
    assert _coverage("1064", "DRV-PERSISTENCE").text() == "2 GPUs shown"
    assert _coverage("1064", "PWR-GPU-POWER-LIMIT").text() == "1 of 2 GPUs shown"


def test_corpus_1144_a_second_row_cut_in_its_memory_cell_shows_the_power_cap() -> None:
    # NVIDIA/gpu-operator#259: GPU 1's second row ends at `0MiB / 32510Mi`, after its `26W / 250W |`.
    gpus = fact(pasted(body("1144")), "nvidia").gpus
    assert [g.power_limit_w for g in gpus] == [250.0, 250.0]
    assert gpus[1].memory_total_mib is None
    assert _coverage("1144", "PWR-GPU-POWER-LIMIT").text() == "2 GPUs shown"


def test_a_second_row_cut_inside_its_power_cell_reads_no_cap() -> None:
    # Modelled: 1144's table cut inside GPU 1's cap (`26W / 25`): the cap is not shown.
    text = body("1144").rstrip()
    cut = text[:text.rindex("26W / 250W") + len("26W / 25")] + "\n"
    assert [g.power_limit_w for g in fact(pasted(cut), "nvidia").gpus] == [250.0, None]


# -- excerpts: the most GPUs any shows, a lower bound -----------------------------------------------


def test_corpus_1108_the_cut_gpu_counts_in_the_denominator_as_a_lower_bound() -> None:
    # NVIDIA/TensorRT-LLM#10824: cut inside GPU 1's rows, before its MIG M. cell.
    mig = capture_checks("1108", "MEM-MIG")["MEM-MIG"]
    assert mig.coverage is not None and mig.coverage.text() == "1 of 2 GPUs shown"
    assert mig.coverage.at_least and not mig.coverage.complete
    persistence = capture_checks("1108", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert persistence.coverage is not None and persistence.coverage.text() == "2 GPUs shown"
    assert "at least 2" in persistence.hint and "how many the host has is not in the source" in persistence.hint


def test_a_lower_bound_reached_is_stated_as_k_shown_and_never_complete() -> None:
    out = over_subjects(ok("fine"), ["GPU 0", "GPU 1"], 2, ask="nvidia-smi -q", at_least=True)
    assert out.coverage is not None and out.coverage.text() == "2 GPUs shown" and not out.coverage.complete
    assert out.coverage.to_json()["at_least"] is True
    assert over_subjects(ok("fine"), ["GPU 0"], 2, at_least=True).coverage == Coverage(("GPU 0",), 2,
                                                                                       at_least=True)


# -- a job across nodes ---------------------------------------------------------------------------


def test_corpus_1114_one_row_of_a_tp16_job_over_two_nodes_is_one_of_sixteen() -> None:
    # sgl-project/sglang#5429: one GPU's row of `2 nodes * 8 * H100`, `--tp 16`.
    for check in ("DRV-PERSISTENCE", "MEM-MIG", "PWR-GPU-POWER-LIMIT"):
        coverage = _coverage("1114", check)
        assert coverage.text() == "1 of 16 GPUs shown" and not coverage.at_least


def test_a_whole_host_listing_keeps_the_hosts_count_under_a_wider_job() -> None:
    # Corpus 1091: vLLM TP 16 over two nodes, the whole topology matrix of one node: per-host checks count 8.
    assert _coverage("1091", "IC-TOPOLOGY-PLACEMENT").text() == "5 of 8 GPUs shown"


def test_corpus_384_an_nccl_log_of_two_pods_counts_one_pods_ranks() -> None:
    # The maintainer's quote of two pods' NCCL INFO lines, two ranks each: the host has two GPUs shown, not four.
    inventory = fact(pasted(body("384")), "gpus")
    assert inventory.count_in(NCCL_LOG_TITLE) == 2
    assert _coverage("384", "IC-TOPOLOGY-PLACEMENT").text() == "2 GPUs shown"


def test_corpus_1108_json_states_the_lower_bound_within_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(CAPTURES_DIR.glob("1108-*.txt"))
    capsys.readouterr()
    main(["audit", "--from", str(path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    jsonschema.validate(data, SCHEMA)
    mig = next(r for r in data["results"] if r["id"] == "MEM-MIG")
    assert mig["coverage"]["total"] == 2 and mig["coverage"]["at_least"] is True
    # The saved report reads back with its bound (report/json_report.py).
    assert report_from_json(data).results[[r["id"] for r in data["results"]].index("MEM-MIG")].coverage == \
        Coverage(("0000:04:00.0",), 2, at_least=True)
