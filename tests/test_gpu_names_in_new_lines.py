"""GPU models named in lines no reader took before h74b: the user's words with the count after the model (`A10 4 cards`,
`A10G Host with 8 GPU Cards`), a memory size glued to the model by a hyphen (`4x A40-48G`), and gpustat's rows.
Where every model named lacks MIG or an NVSwitch, MEM-MIG and DRV-FABRIC-MANAGER say not-applicable; a model that
has them is never `ok` from its name alone.

Real lines: corpus 1637 (huggingface/text-generation-inference#814), 1664 (vllm-project/vllm#878), 1720
(ggml-org/llama.cpp#1885), 1700 (open-mmlab/mmdetection#159), vllm-project/vllm#18378 (`env: 8*A100-80G`),
XLabs-AI/x-flux#86 (`A100-40G or A100-80G?`, a question with no count), szilard/GBM-perf#10 (gpustat on a V100),
wookayin/gpustat#97 and #132 (the maintainer's own rows, `'C` and `°C`). Modelled: the comparisons and counter-cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.gpus import stated_gpus
from stackaudit.importers.recognition import recognise

MIG, FM = "MEM-MIG", "DRV-FABRIC-MANAGER"


@pytest.mark.parametrize(("line", "said"), [
    ("the same issue, but i used cmd with A10 4 cards", [(4, "A10")]),  # corpus 1637
    ("Kubernetes Pod running on A10G Host with 8 GPU Cards ", [(8, "A10G")]),  # corpus 1664
    ("Running with command, on 4x A40-48G", [(4, "A40")]),  # corpus 1720
    ("data: hiyouga/geometry3k env: 8*A100-80G", [(8, "A100 80GB")]),  # vllm-project/vllm#18378
    ("an H100 node with 8 GPUs", [(8, "H100")]),  # modelled
])
def test_the_users_words_name_the_hosts_gpus(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


@pytest.mark.parametrize("line", [
    "A100-40G or A100-80G?",  # XLabs-AI/x-flux#86: a question, no count
    "it is slower than an A100 server with 8 GPUs",  # modelled: a comparison
    "the same as vs H100 8 GPUs",  # modelled: a comparison
    "I tested with CUDA 12 4 GPUs",  # modelled: a version before the count is no model
    "vLLM 0.5.1 with 4 GPUs",  # modelled
])
def test_compared_or_unnamed_models_are_not_the_hosts(line: str) -> None:
    assert stated_gpus(line) == []


def test_a_compared_model_leaves_the_one_the_user_runs(tmp_path: Path) -> None:
    # Modelled: both models in one sentence, the user's own RTX 3090 read, the A100 compared with.
    r = paste_checks(tmp_path, "it is slower than an A100 server with 8 GPUs, on my RTX 3090 2 cards\n", MIG, FM)
    assert r[MIG].status == "not-applicable" and "RTX 3090" in r[MIG].message and "A100" not in r[MIG].message
    assert r[FM].status == "not-applicable"


@pytest.mark.parametrize("prefix", ["1637", "1664", "1720"])
def test_corpus_models_without_mig(prefix: str) -> None:
    assert capture_checks(prefix, MIG)[MIG].status == "not-applicable"


@pytest.mark.parametrize("prefix", ["1664", "1720"])
def test_corpus_pcie_boards_need_no_fabric_manager(prefix: str) -> None:
    assert capture_checks(prefix, FM)[FM].status == "not-applicable"


def test_1700_gpustat_titan_xp_rows() -> None:
    r = capture_checks("1700", MIG)[MIG]
    assert r.status == "not-applicable" and "TITAN Xp" in r.message


# szilard/GBM-perf#10, one row of the user's gpustat loop, verbatim.
GBM_PERF_V100 = "[0] Tesla V100-SXM2-16GB | 26'C,   0 % |     0 / 16160 MB |\n"
# wookayin/gpustat#132 (the maintainer's, gpustat 1.0's `°C`) and #97 (the README's row), verbatim.
GPUSTAT_132 = "[0] NVIDIA GeForce GTX TITAN X | 22°C,   0 % |     0 / 12212 MB |\n"
GPUSTAT_97 = "[0] GeForce GTX Titan X | 77'C,  96 % | 11848 / 12287 MB | python/52046(11821M)\n"


@pytest.mark.parametrize("text", [GBM_PERF_V100, GPUSTAT_132, GPUSTAT_97])
def test_gpustat_rows_name_gpus_without_mig_or_nvswitch(tmp_path: Path, text: str) -> None:
    assert [s[0] for s in recognise(text).recognised] == ["nvtop"]
    r = paste_checks(tmp_path, text, MIG, FM)
    assert r[MIG].status == "not-applicable", r[MIG].message
    assert r[FM].status == "not-applicable", r[FM].message


def test_gpustat_names_of_mig_and_nvswitch_parts_give_no_ok(tmp_path: Path) -> None:
    # Modelled: an A100 SXM4 board's rows name a model with MIG on an NVSwitch baseboard; a name alone shows neither
    # the MIG mode nor the fabric.
    text = ("[0] NVIDIA A100-SXM4-80GB | 34'C,   0 % |     4 / 81920 MB |\n"
            "[1] NVIDIA A100-SXM4-80GB | 33'C,   0 % |     4 / 81920 MB |\n")
    r = paste_checks(tmp_path, text, MIG, FM)
    assert r[MIG].status == "unknown" and r[FM].status == "unknown"


def test_bracketed_lines_that_are_not_gpustat() -> None:
    # Modelled: a log's `[0]` rank prefix and a table row with no temperature or memory column.
    text = "[0] rank 0 | loss 1.25 | 865 / 12196 samples |\n[1] TITAN Xp | busy |\n"
    assert not [s for s in recognise(text).recognised if s[0] == "nvtop"]


# --- a bare workstation number, and a host's cards one a line under their total (h100c, corpus 2233) ---------------

def test_a_bare_workstation_number_is_a_workstation_card_without_mig() -> None:
    from stackaudit.gputable import family_of, has_mig

    # Corpus 2233 (oobabooga/textgen#2923): `1x RTX 4000 8Gb`, Turing's Quadro RTX 4000 or Ada's RTX 4000.
    assert stated_gpus("1x RTX 4000 8Gb") == [(1, "RTX 4000")]
    family = family_of("RTX 4000")
    assert family is not None and family.name == "workstation" and has_mig("RTX 4000") is False
    # Modelled: a GeForce series named by its number is no model, and `RTX 6000` stays the table's ambiguous name.
    assert stated_gpus("I have 2 RTX 4000 series cards") == []
    assert stated_gpus("2x GeForce RTX 3000 series") == []
    assert stated_gpus("2x RTX 6000") == [(2, "RTX 6000")]


def test_2233_three_cards_of_two_models_under_their_total() -> None:
    # `I got 3.`, `1x RTX 4000 8Gb`, `2x RTX A4000 16Gb`: one host's three cards, not two of one model.
    r = capture_checks("2233", "IC-TOPOLOGY-PLACEMENT", MIG)
    assert r["IC-TOPOLOGY-PLACEMENT"].status == "unknown", r["IC-TOPOLOGY-PLACEMENT"].message
    # MIG is settled by the Windows host (its K:\\ paths) before the cards; the three are one host's all the same.
    assert r[MIG].status == "not-applicable", r[MIG].message
    assert "3 GPUs (" in recognise(body("2233")).record.docs.get("user_machine", "")


@pytest.mark.parametrize("total", ["I got 4.", "Tested on:"])
def test_cards_under_no_matching_total_are_not_one_hosts(total: str) -> None:
    # Modelled on 2233: a total the cards do not add up to, or none, leaves the lines as several GPU sets.
    text = f"{total}\n1x RTX 4000 8Gb\n2x RTX A4000 16Gb\n"
    assert "3 GPUs (" not in recognise(text).record.docs.get("user_machine", "")
