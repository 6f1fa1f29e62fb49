"""PWR-GPU-POWER-LIMIT's default board power for models the corpus names, and MEM-GPU-SHARED on a Processes box the
paste cuts (h73d).

PWR: a cap equal to the model's default is ok once the GPU table holds the default (A30 165 W, TITAN Xp 250 W, TITAN
RTX 280 W: power-only rows of data/gpus.toml with NVIDIA's page), and a name the table cut that no full row fits takes
the board power of the one power-only row its memory size fits (`NVIDIA RTX 4000 Ada Gene...` of 20475 MiB), never a
GeForce name's (its Laptop GPU may carry the desktop card's memory) nor a workstation Laptop GPU's (`NVIDIA RTX 5000
Ada Gene...` of 16376 MiB, corpus 570).

MEM: the table's Processes box shows a GPU's processes only where it shows them: closed by its border, or past that
GPU, or with rows that account for the memory in use. A box cut in its column header (corpus 1475, 1656) shows none,
so the memory a GPU holds there is not read as no process's. A GPU with one process and nothing beside it, outside a
container, is ok (247, 1495, 1703: the blind readings' majority).

Real pastes are corpus captures (their thread in the header) or public threads (URL given); modelled text says so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.gputable import board_power, cut_board_power, cut_board_rows

POWER = "PWR-GPU-POWER-LIMIT"
SHARED = "MEM-GPU-SHARED"


def _power(prefix: str) -> tuple[str, str]:
    r = capture_checks(prefix, POWER)[POWER]
    return r.status, r.message


# --- the default board power ---------------------------------------------------------------------------------------

def test_an_a30_at_165_w_is_at_its_default() -> None:
    status, message = _power("1657")  # ollama/ollama#14658: the host's table, NVIDIA A30 28W / 165W
    assert status == "ok" and "GPU 0 165 W" in message


def test_four_titan_xp_at_250_w_are_at_their_default() -> None:
    status, message = _power("1699")  # NVIDIA/apex#443: four TITAN Xp rows without the header, each 250 W
    assert status == "ok" and "GPU 3 250 W" in message


def test_a_second_a30_host_reads_the_same_default() -> None:
    # Corpus 386 (its header names the thread): another host's A30 table at 165 W.
    gpus = parse_table(body("386")).gpus
    a30 = [g for g in gpus if g.name == "NVIDIA A30"]
    assert a30 and all(g.power_default[0] == 165.0 for g in a30)


def test_modelled_a30_below_its_default_is_the_issue(tmp_path: Path) -> None:
    # Modelled: corpus 1657's host table with the cap lowered to 120 W.
    text = body("1657").replace("28W / 165W", "28W / 120W")
    r = paste_checks(tmp_path, text, POWER)[POWER]
    assert r.status == "issue" and "GPU 0 capped at 120 W" in r.message and "165 W" in r.message


def test_the_names_nvml_gives_find_the_rows() -> None:
    assert board_power("NVIDIA A30") == (165.0, "https://www.nvidia.com/en-us/data-center/products/a30-gpu/")
    assert board_power("TITAN Xp") is not None and board_power("NVIDIA TITAN Xp") is not None
    assert board_power("TITAN Xp COLLECTORS EDITION") is not None
    assert board_power("NVIDIA TITAN RTX") == (280.0, "https://www.nvidia.com/en-us/deep-learning-ai/products/titan-rtx/")


def test_a_cut_workstation_name_takes_the_power_only_row_its_memory_fits() -> None:
    status, message = _power("1688")  # vllm-project/vllm#6147: `NVIDIA RTX 4000 Ada Gene...` 6W / 130W, 20475 MiB
    assert status == "ok" and "GPU 0 130 W" in message
    row = cut_board_power("NVIDIA RTX 4000 Ada Gene...", 20475)
    assert row is not None and row.name == "RTX 4000 Ada Generation"


def test_a_cut_name_that_may_be_a_laptop_gpu_takes_no_default() -> None:
    # Corpus 570: `NVIDIA RTX 5000 Ada Gene...` of 16376 MiB is the Laptop GPU (the desktop card has 32 GB).
    assert cut_board_power("NVIDIA RTX 5000 Ada Gene...", 16376) is None
    # A GeForce name cut after its number may be its Laptop GPU of the same memory (RTX 4060: 8 GB both).
    assert cut_board_power("NVIDIA GeForce RTX 4060 ...", 8188) is None
    # Without the memory size nothing fits.
    assert cut_board_power("NVIDIA RTX 4000 Ada Gene...", None) is None


def test_a_cut_geforce_name_whose_rows_agree_takes_their_board_power() -> None:
    # Corpus 2329 (ollama/ollama#10553): `NVIDIA GeForce RTX 4080 ...` 4W / 320W, 16376 MiB: no RTX 4080 Laptop GPU
    # (12 GB); the RTX 4080 and the RTX 4080 Super both ship at 320 W.
    status, message = _power("2329")
    assert status == "ok" and "GPU 0 320 W" in message
    # Corpus 2024 (its header names the thread): `NVIDIA GeForce RTX 4070 ...` of 16376 MiB is the RTX 4070 Ti Super.
    status, message = _power("2024")
    assert status == "ok" and "GPU 0 285 W" in message


def test_a_cut_geforce_name_whose_rows_differ_or_may_be_a_laptop_takes_no_default(tmp_path: Path) -> None:
    # 12 GB: the RTX 4070 (200 W), 4070 Super (220 W) or 4070 Ti (285 W).
    assert {row.power_w for row in cut_board_rows("NVIDIA GeForce RTX 4070 ...", 12282)} == {200.0, 220.0, 285.0}
    # 12 GB is the RTX 4080 Laptop GPU's size.
    assert cut_board_rows("NVIDIA GeForce RTX 4080 ...", 12282) == ()
    # Modelled: corpus 2329's row as a 12 GB RTX 4070 at 200 W: which card, and so its default, is not shown.
    text = body("2329").replace("NVIDIA GeForce RTX 4080 ...", "NVIDIA GeForce RTX 4070 ...") \
        .replace("4W /  320W |      39MiB /  16376MiB", "4W /  200W |      39MiB /  12282MiB")
    r = paste_checks(tmp_path, text, POWER)[POWER]
    assert r.status == "unknown" and "default is not in the source" in r.message


def test_modelled_cut_rtx_4080_below_its_board_power_is_the_issue(tmp_path: Path) -> None:
    # Modelled: corpus 2329's table with the cap lowered to 250 W.
    text = body("2329").replace("4W /  320W", "4W /  250W")
    r = paste_checks(tmp_path, text, POWER)[POWER]
    assert r.status == "issue" and "250 W" in r.message and "320 W" in r.message


def test_the_low_speed_v100_stays_unknown() -> None:
    # Corpus 409: Tesla V100-SXM2-32GB-LS, a variant whose default no NVIDIA page in the table gives: unknown wanted.
    assert _power("409")[0] == "unknown"


# --- the Processes box ---------------------------------------------------------------------------------------------

def test_a_box_cut_in_its_column_header_shows_no_process_list() -> None:
    # Corpus 1656 (ollama/ollama#4604): the box cut at `|  G` of its column header.
    gpu = parse_table(body("1656")).gpus[0]
    assert gpu.processes is None and gpu.memory_used_mib == 569.0


def test_memory_held_under_a_box_cut_after_its_title_is_not_ok() -> None:
    # Corpus 1475 (xorbitsai/inference#4045): 43193 MiB held, the box cut after `| Processes:`.
    r = capture_checks("1475", SHARED)[SHARED]
    assert r.status == "unknown" and "process box is not in this source" in r.message


def test_a_cut_box_beside_an_idle_gpu_still_reads_ok() -> None:
    # Corpus 468 (a Quadro RTX 4000 at 1 MiB with Disp.A Off, the box cut in its header): no context, no display.
    r = capture_checks("468", SHARED)[SHARED]
    assert r.status == "ok"


def test_a_closed_box_and_no_running_processes_show_every_list(tmp_path: Path) -> None:
    # Modelled: corpus 1656's table with its box closed, `No running processes found`.
    text = body("1656").rstrip() + ("M   PID   Type   Process name                            GPU Memory |\n"
                                    "|=======================================================================================|\n"
                                    "|  No running processes found                                                           |\n"
                                    "+---------------------------------------------------------------------------------------+\n")
    gpu = parse_table(text).gpus[0]
    assert gpu.processes == ()


def test_rows_that_account_for_the_memory_are_the_whole_list() -> None:
    # Corpus 33: one process row of 45232 MiB under a GPU row of 45241 MiB, no box around it.
    gpu = parse_table(body("33").split("The owning process")[0]).gpus[0]
    assert gpu.processes is not None and [p.name for p in gpu.processes] == ["VLLM::EngineCore"]


def test_one_process_a_gpu_is_ok() -> None:
    # Corpus 1703 (facebookresearch/Mask2Former#74): one /usr/bin/python3 on each GPU, consecutive PIDs.
    r = capture_checks("1703", SHARED)[SHARED]
    assert r.status == "ok" and "one process on each GPU" in r.message
    # Corpus 1495 (xorbitsai/inference): one replica on each of two GPUs.
    assert capture_checks("1495", SHARED)[SHARED].status == "ok"


def test_one_process_inside_a_container_stays_reported() -> None:
    # Corpus 33: inside a pod, NVML lists host PIDs and the GPU may be another pod's.
    r = capture_checks("33", SHARED)[SHARED]
    assert r.status == "unknown" and "VLLM::EngineCore" in r.message


def test_a_q_excerpt_without_display_active_holding_nothing_is_ok() -> None:
    # Corpus 1649 (NVIDIA/k8s-device-plugin#303): nvidia-smi -q from its PCI lines, 0 of 8129 MiB used.
    r = capture_checks("1649", SHARED)[SHARED]
    assert r.status == "ok" and "0 MiB used" in r.message


def test_a_q_excerpt_without_display_active_holding_memory_stays_unknown() -> None:
    # Corpus 1343: 523 of 4046 MiB used, neither the display nor the processes shown.
    assert capture_checks("1343", SHARED)[SHARED].status == "unknown"


def test_a_geforce_board_refitted_with_more_memory_takes_its_models_board_power(tmp_path: Path) -> None:
    # Corpus 2870: `NVIDIA GeForce RTX 4080 ...` of 32760 MiB at 320 W: more memory than any RTX 4080 board (16 GB, its
    # Laptop GPU 12 GB), a re-fitted desktop card, whose rows (the RTX 4080 and 4080 Super) both ship at 320 W.
    status, message = _power("2870")
    assert status == "ok" and "GPU 0 320 W" in message
    assert {row.name for row in cut_board_rows("NVIDIA GeForce RTX 4080 ...", 32760)} == {"RTX 4080", "RTX 4080 Super"}
    # A size between the Laptop GPU's and the desktop's (modelled) fits no row and is no re-fit: none.
    assert cut_board_rows("NVIDIA GeForce RTX 4080 ...", 14000) == ()
    # Modelled: corpus 2329's table as a re-fitted 32 GB card capped at 250 W: below the model's board power.
    text = body("2329").replace("4W /  320W |      39MiB /  16376MiB", "4W /  250W |      39MiB /  32760MiB")
    r = paste_checks(tmp_path, text, POWER)[POWER]
    assert r.status == "issue" and "250 W" in r.message and "re-fitted" in r.message
