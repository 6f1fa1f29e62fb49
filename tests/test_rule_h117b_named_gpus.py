"""GPUs named where the tool did not read them (issue 28, h117b).

- facts/nvidia_smi._ROW1_CUT: a table's first GPU row cut inside its Bus-Id cell (`|   0  NVIDIA GeForce RTX 3090
  On  |   00000000:5E:00`) shows the GPU, its name and persistence mode, as a row cut before that cell does.
- facts/gpus._COUNT_MEASURE: a Chinese numeral before the measure word counts the cards (`两张A800`: two A800s).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from corpus import capture_result, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import parse_user_gpus, stated_gpus
from stackaudit.facts.nvidia_smi import _ROW1_CUT, parse_table


@pytest.mark.parametrize(("prefix", "name", "persistence"), [
    ("2655", "NVIDIA GeForce RTX 4060 Ti", False),  # YanWenKun/ComfyUI-Docker#60: cut after `00000000:`
    ("2674", "NVIDIA GeForce RTX 3090", True),  # huggingface/text-embeddings-inference#533: cut inside the bus id
])
def test_first_row_cut_inside_its_bus_id_shows_the_gpu(prefix: str, name: str, persistence: bool) -> None:
    assert capture_result(prefix, "MEM-MIG").status == "not-applicable"
    assert name in capture_result(prefix, "MEM-MIG").message


def test_persistence_read_from_a_row_cut_inside_its_bus_id() -> None:
    assert capture_result("2674", "DRV-PERSISTENCE").status == "ok"
    # Corpus 2493 (another thread): GPU 1's row is cut after its whole bus id, the Persistence-M Off read on both.
    result = capture_result("2493", "DRV-PERSISTENCE")
    assert result.status == "issue" and "0,1" in result.message


def test_whole_bus_id_kept_and_partial_one_dropped() -> None:
    rows = ("|   0  NVIDIA GeForce RTX 3090        On  |   00000000:5E:00\n"
            "|   1  NVIDIA GeForce RTX 3090        Off |   00000000:0B:00.0\n")
    gpus = parse_table(rows).gpus
    assert [(g.index, g.persistence, g.bdf) for g in gpus] == [(0, True, ""), (1, False, "0000:0b:00.0")]


def test_a_row_cut_inside_its_name_is_no_gpu() -> None:
    # Modelled: the persistence word is cut away, so the row shows no persistence and no whole name.
    with pytest.raises(ParseError):
        parse_table("|   0  NVIDIA GeForce RTX 30\n")


def test_row_cut_regex_is_linear() -> None:
    line = "|   0  NVIDIA " + "a " * 100_000 + " On  |   0000"
    start = time.perf_counter()
    _ROW1_CUT.match(line)
    assert time.perf_counter() - start < 1.0


def test_chinese_numeral_counts_the_cards(tmp_path: Path) -> None:
    # Corpus 2683 (hiyouga/LLaMA-Factory): `两张A800` beside `3张3090`: two models on one server, so the 3090s alone
    # do not decide MIG (an A800 has it).
    assert stated_gpus("服务器上有两张A800，编号是2，4") == [(2, "A800")]
    with pytest.raises(ParseError):
        parse_user_gpus("服务器上有两张A800，编号是2，4\n另外3张3090 编号是0，1，3\n")
    assert capture_result("2683", "MEM-MIG").status == "unknown"
    # Modelled counter-example: one model counted with a numeral stays one set, which decides MIG.
    checks = paste_checks(tmp_path, "我的服务器上有两张3090，跑不起来\n", "MEM-MIG")
    assert checks["MEM-MIG"].status == "not-applicable"


def test_a_numeral_without_a_measure_word_counts_nothing() -> None:
    # Modelled: `二` inside other words before a model is no count of cards.
    assert stated_gpus("第二个问题是A800上的显存") == []


def test_invokeai_form_gpu_model_answer() -> None:
    # Corpus 2666 (invoke-ai/InvokeAI): `### GPU model`, then `RTX 4080 Super`: a GeForce, no MIG.
    result = capture_result("2666", "MEM-MIG")
    assert result.status == "not-applicable" and "RTX 4080 Super" in result.message


def test_form_gpu_model_answer_names_the_model() -> None:
    from stackaudit.importers.prose_machine import form_gpu_answer
    assert form_gpu_answer(["### GPU model", "", "RTX 4080 Super", "", "### Version number"], 0) == \
        ("GPU: RTX 4080 Super", 2)
    # Modelled counter-example: another heading's answer names no GPU.
    assert form_gpu_answer(["### GPU vendor", "", "Nvidia (CUDA)"], 0) == ("", 0)


def test_fastertransformer_form_gpu_name_answer() -> None:
    # Corpus 2742 (NVIDIA/FasterTransformer's bug form): `### GPU name`, then `TITAN RTX`: Turing, no MIG.
    result = capture_result("2742", "MEM-MIG")
    assert result.status == "not-applicable" and "TITAN RTX" in result.message, result.message


def test_form_gpu_name_answer_names_the_model() -> None:
    from stackaudit.importers.prose_machine import form_gpu_answer
    # Corpus 2743, the same form: `### GPU name`, then `A30` (a GPU with MIG, so MEM-MIG stays open there).
    assert form_gpu_answer(["### GPU name", "", "A30", "", "### CUDA Driver"], 0) == ("GPU: A30", 2)
    assert capture_result("2743", "MEM-MIG").status == "unknown"
    # Modelled counter-example: the same form's driver heading names no GPU.
    assert form_gpu_answer(["### CUDA Driver", "", "470.141.03"], 0) == ("", 0)
