"""Power, clock and ECC verdicts from the nvidia-smi table's cells (h63f), as rules for the class.

- A power cell `ERR! / 250W`: the draw is unreadable, the cap still reads and is judged (PWR-GPU-POWER-LIMIT).
- The volatile uncorrectable ECC cell 0 is MEM-ROW-REMAP-ECC ok, naming the remap state as not shown (the blind
  readings of the class: ok 6, unknown 2, not-an-issue 1).
- PWR-CLOCK-EVENTS with no clock event reasons in the source: a GPU within 3 °C of its model's max operating
  temperature (the GPU table's, a full row's or a power-only row's, where the source has no thresholds) is the issue; busy GPUs, cool, drawing at least
  half of a cap they stay below, rule a slowdown out (not an issue); a busy GPU drawing less stays unknown.

The pastes are real corpus files (tests/data/captures names each one's public thread in its header); modelled
variants are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.gputable import load_table


def _body(prefix: str) -> str:
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    return text.split("# ----- end of header", 1)[1].split("\n", 1)[1]


# --- ERR! in the power cell -----------------------------------------------------------------------


def test_err_draw_keeps_the_cap() -> None:
    # azhpc-diagnostics#77: `| N/A   29C    P0   ERR! / 250W |` on a Tesla V100-PCIE 16 GB.
    gpu = parse_table(_body("1365")).gpus[0]
    assert gpu.power_limit_w == 250 and gpu.power_draw_w is None and gpu.unreadable == ("power-draw",)
    assert gpu.memory_used_mib == 593 and gpu.utilization_gpu == 0


def test_err_draw_power_limit_ok_naming_the_draw() -> None:
    r = capture_checks("1365", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "ok" and "GPU 1 250 W" in r.message and "reads ERR!" in r.message


# --- a cut name whose rows differ in their default ----------------------------------------------------------------


def test_cap_at_the_highest_default_of_a_cut_name_is_ok() -> None:
    # janhq/jan#1975 (2368): `NVIDIA GeForce ...` of 24564 MiB at 450 W, an RTX 3090 (350 W) or RTX 4090 (450 W).
    r = capture_checks("2368", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "ok" and "RTX 3090 (350 W) or RTX 4090 (450 W)" in r.message
    # Another thread (2285): `NVIDIA RTX PRO 6000 Blac...` at 600 W, the Workstation's and Server's default.
    r = capture_checks("2285", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "ok" and "Max-Q (300 W)" in r.message


def test_cap_below_the_highest_default_of_a_cut_name_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 2368's card at 400 W, below the RTX 4090's 450 W: lowered if it is one, raised if an RTX 3090.
    text = _body("2368").replace("17W / 450W", "17W / 400W")
    r = paste_checks(tmp_path, text, "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"]
    assert r.status == "unknown"
    # The RTX PRO 6000 Blackwell at 325 W (655): below the Workstation's 600 W, above the Max-Q's 300 W.
    assert capture_checks("655", "PWR-GPU-POWER-LIMIT")["PWR-GPU-POWER-LIMIT"].status == "unknown"


# --- the ECC cell ------------------------------------------------------------------------------------


def test_ecc_cell_zero_is_ok_with_what_is_not_shown() -> None:
    for prefix in ("1363", "1365"):
        r = capture_checks(prefix, "MEM-ROW-REMAP-ECC")["MEM-ROW-REMAP-ECC"]
        assert r.status == "ok", prefix
        assert "volatile count 0" in r.message and "page-retirement state is not in this source" in r.message


# --- PWR-CLOCK-EVENTS from the table's cells ---------------------------------------------------------


def test_v100_rows_carry_their_max_operating_temperature() -> None:
    rows = {g.name: g.max_operating_temp_c for g in load_table().gpus}
    assert rows["Tesla V100S PCIe"] == rows["Tesla V100 PCIe 32GB"] == rows["Tesla V100 PCIe 16GB"] == 83


def test_hot_gpu_at_its_table_limit_is_the_issue() -> None:
    # ollama#9974: one V100S at 100 % utilisation, 61 W of 250 W, 82 °C, no clock event reasons.
    r = capture_checks("1347", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "issue" and "82 °C" in r.message and "in the GPU table 83 °C" in r.message
    assert "clock event reasons are not in this source" in r.message


def test_same_gpu_cool_and_drawing_little_stays_unknown(tmp_path: Path) -> None:
    # Modelled: 1347's table with the GPU at 60 °C: 100 % busy at a quarter of its cap may be held down or waiting.
    text = _body("1347").replace("| N/A   82C    P0", "| N/A   60C    P0")
    r = paste_checks(tmp_path, text, "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "unknown" and "clock event reasons are not in this source" in r.message


def test_2414_rtx_3060_at_91c_within_its_power_only_rows_limit_is_the_issue() -> None:
    # dcgm-exporter#398: an RTX 3060 at 91 °C, fan 100 %, 89 % busy; its power-only row gives 93 °C (NVIDIA's page).
    r = capture_checks("2414", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "issue" and "91 °C" in r.message and "RTX 3060 max operating temperature in the GPU table 93 °C" \
        in r.message


def test_same_rtx_3060_a_few_degrees_cooler_is_not_at_its_limit(tmp_path: Path) -> None:
    # Modelled: 2414's table at 85 °C, 8 °C below the limit: nothing in the readings settles a slowdown either way.
    text = _body("2414").replace("|100%   91C    P2", "|100%   85C    P2")
    r = paste_checks(tmp_path, text, "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "unknown" and "clock event reasons are not in this source" in r.message


def test_power_only_rows_limit_is_the_desktop_cards_not_a_laptops() -> None:
    from stackaudit.facts.nvidia import GpuInfo
    from stackaudit.gputable import board_row

    row = board_row("NVIDIA GeForce RTX 3060")
    assert row is not None and row.max_operating_temp_c == 93 and row.power_w == 170
    assert GpuInfo(index=0, name="NVIDIA GeForce RTX 3060", temp_c=91).max_operating_temp[0] == 93
    # A Laptop GPU's limit is its own (87 °C on a GA106 laptop): the desktop row never answers for it.
    assert GpuInfo(index=0, name="NVIDIA GeForce RTX 3060 Laptop GPU", temp_c=91).max_operating_temp == (None, "")


def test_busy_cool_gpus_near_their_cap_rule_a_slowdown_out() -> None:
    # lmdeploy#329: three A100-SXM 80GB at 95-97 %, 39-40 °C, 262-278 W of 400 W.
    r = capture_checks("1357", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "not-an-issue" and "GPU 1 96 % busy at 39 °C, 278 W of 400 W" in r.message
    assert "gaps between the engine's batches" in r.message


def test_busy_gpus_at_half_their_cap_stay_unknown(tmp_path: Path) -> None:
    # 1273: RTX 3090s at 100 % drawing 150-166 W of 350 W; and, modelled, 1357's rows at 120 W of 400 W.
    assert capture_checks("1273", "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"].status == "unknown"
    text = _body("1357")
    for watts in ("278W", "276W", "262W"):
        text = text.replace(f"P0 {watts} / 400W", "P0 120W / 400W")
    r = paste_checks(tmp_path, text, "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert r.status == "unknown"
