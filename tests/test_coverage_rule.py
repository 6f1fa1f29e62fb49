"""Issue 28, one coverage rule for every check over subjects (checks/registry.py `over_subjects`): issue when any
shown subject has it, ok with `K of N shown` when the shown ones are fine, unknown only when none is shown; more
evidence never turns an issue into ok and never lowers the number of checks with a verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpus import CAPTURES_DIR
from coverage_pastes import BUSES, body, essay, lspci_list, lspci_vvv
from gap_pastes import PRO_6000_BUSES, nvidia_smi_table
from stackaudit.checks.registry import Coverage, issue, ok, over_subjects, unknown
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

# The checks over GPUs the essay's paste (`nvidia-smi -q -i 0` of 8 GPUs, one GPU's `lspci -vvv`) can judge.
OVER_GPUS = ("DRV-PERSISTENCE", "PWR-GPU-POWER-LIMIT", "MEM-ECC-MODE", "PCIE-LINK-DOWNTRAIN", "FW-REBAR-BAR1",
             "PCIE-RELAXED-ORDERING", "PCIE-ASPM", "PCIE-MRRS", "DRV-COMPUTE-MODE", "DRV-GSP-FIRMWARE",
             "MEM-ROW-REMAP-ECC", "PWR-APP-CLOCKS", "PWR-CLOCK-EVENTS", "FW-ABOVE4G-MMIO")
VERDICTS = ("issue", "ok", "not-an-issue")


def _results(path: Path) -> dict[str, Result]:
    return run_checks(load_pasted([str(path)]))


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the rule itself (modelled outcomes) --------------------------------------------------------------


def test_an_issue_on_one_shown_subject_is_the_checks_issue_whatever_the_others() -> None:
    out = over_subjects(issue("persistence off on GPU 3", subjects=["GPU 3"]), ["GPU 3"], 8)
    assert out.status == "issue" and out.coverage == Coverage(("GPU 3",), 8)


def test_fine_shown_subjects_are_ok_with_their_coverage_and_the_missing_part_named() -> None:
    out = over_subjects(ok("fine"), ["0000:61:00.0"], 8, ask="nvidia-smi -q")
    assert out.status == "ok" and out.coverage is not None
    assert out.coverage.text() == "1 of 8 GPUs shown"
    assert out.hint == "`nvidia-smi -q` for all 8 GPUs; the source has 0000:61:00.0 only"
    blind = over_subjects(ok("fine"), ["a"], 3, ask="sudo lspci -vvv", blind=["b", "c"])
    assert blind.hint == "`sudo lspci -vvv` for the 2 GPUs not shown (b, c); the source has a only"


def test_without_a_count_the_coverage_is_k_shown_and_with_every_subject_there_is_nothing_to_run() -> None:
    out = over_subjects(ok("fine"), ["GPU 0", "GPU 1"], None, ask="nvidia-smi -q")
    assert out.coverage is not None and out.coverage.text() == "2 GPUs shown" and not out.coverage.complete
    assert "how many the host has is not in the source" in out.hint
    whole = over_subjects(ok("fine"), ["GPU 0", "GPU 1"], 2, ask="nvidia-smi -q")
    assert whole.coverage is not None and whole.coverage.complete and whole.hint == ""
    # A count below what was judged is not the host's: the judged subjects are.
    assert over_subjects(ok("fine"), ["a", "b", "c"], 2).coverage == Coverage(("a", "b", "c"), 3)


def test_unknown_only_when_no_subject_is_shown() -> None:
    none = over_subjects(ok("nothing to say"), [], 8, ask="nvidia-smi -q", blind=["GPU 0"])
    assert none.status == "unknown" and "`nvidia-smi -q`" in none.hint
    # Shown subjects that do not settle it themselves (an idle link) stay unknown, with their own hint first.
    idle = over_subjects(unknown("idle, not conclusive", hint="sample under load"), ["GPU 0"], 8)
    assert idle.status == "unknown" and idle.hint == "sample under load"


def test_the_rule_applied_again_with_a_better_count_names_the_new_gap() -> None:
    first = over_subjects(ok("fine"), ["GPU 0"], None, ask="nvidia-smi -q")
    again = over_subjects(first, ["GPU 0"], 8, ask="nvidia-smi -q")
    assert again.coverage is not None and again.coverage.text() == "1 of 8 GPUs shown"
    assert again.hint == "`nvidia-smi -q` for all 8 GPUs; the source has GPU 0 only"


# -- the essay's machine (modelled from real captures: tests/coverage_pastes.py) ----------------------


def test_the_essays_paste_judges_every_check_over_gpus_on_the_gpu_shown(tmp_path: Path) -> None:
    """Before the rule: persistence, power limit and ECC said unknown while link width, BAR1 and relaxed ordering
    said ok, from the same one GPU of 8."""
    res = _results(essay(tmp_path))
    for cid in OVER_GPUS:
        r = res[cid]
        # The application-clocks reason alone at P8 (idle clocks) is a shown GPU that does not settle it (874).
        idle = cid == "PWR-APP-CLOCKS" and r.status == "unknown" and "at P8 (idle clocks)" in r.message
        assert r.status in ("ok", "not-an-issue") or idle, (cid, r.status, r.message)
        assert r.coverage is not None and r.coverage.text() == "1 of 8 GPUs shown", (cid, r.coverage)


def test_an_lspci_list_of_all_8_gpus_keeps_every_verdict_and_names_the_7_not_shown(tmp_path: Path) -> None:
    """Before the rule, adding the list lowered the checks with a verdict (PCIe ones turned unknown)."""
    one = _results(essay(tmp_path))
    listed = _results(essay(tmp_path, lspci_list()))
    for cid in OVER_GPUS:
        assert listed[cid].status == one[cid].status, (cid, one[cid].status, listed[cid].status, listed[cid].message)
    lspci = listed["PCIE-RELAXED-ORDERING"]
    assert lspci.coverage is not None and lspci.coverage.blind[:2] == ("0000:01:00.0", "0000:21:00.0")
    assert lspci.hint.startswith("`sudo lspci -vvv` for the 7 GPUs not shown (0000:01:00.0, 0000:21:00.0, ")


def test_a_new_subject_with_an_issue_turns_the_check_into_an_issue(tmp_path: Path) -> None:
    """The counter-example the consistency rule allows: the added GPU's own link is narrow (x8 of x16)."""
    res = _results(essay(tmp_path, lspci_list(), lspci_vvv("21", width=8)))
    link = res["PCIE-LINK-DOWNTRAIN"]
    assert link.status == "issue" and link.subjects == ("0000:21:00.0",), link.message
    assert link.coverage is not None and link.coverage.text() == "2 of 8 GPUs shown"
    ro = res["PCIE-RELAXED-ORDERING"]
    assert ro.status == "ok" and ro.coverage is not None and ro.coverage.text() == "2 of 8 GPUs shown"


def test_every_format_shows_the_coverage_and_run_next_names_the_missing_part(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paste = essay(tmp_path, lspci_list())

    def run(*flags: str) -> str:
        capsys.readouterr()
        assert main(["audit", "--from", str(paste), *flags]) in (0, 1)
        return capsys.readouterr().out

    text = run()
    assert "DRV-PERSISTENCE (1 of 8 GPUs shown)" in text
    assert "for all 8 GPUs; the source has 0000:61:00.0 only" in " ".join(text.split())  # wrapped at the width
    assert "judged on part of the host" in " ".join(text.split())  # in a heading, wrapped at the width
    assert "PCIE-MRRS] (1 of 8 GPUs shown)" in text  # a key negative result says it too
    assert "(1 of 8 GPUs shown)" in run("--format", "markdown")
    assert "(1 of 8 GPUs shown)" in run("--format", "html")
    doc: dict[str, Any] = json.loads(run("--format", "json"))
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["PWR-GPU-POWER-LIMIT"]["coverage"] == {"shown": 1, "total": 8, "of": "GPU",
                                                        "subjects": ["0000:61:00.0"]}
    adds = {s["step"]: s.get("adds", "") for s in doc["run_next"]}
    assert adds["nvidia-smi -q"] == "for all 8 GPUs; the source has 0000:61:00.0 only"
    assert adds["sudo lspci -vvv"].startswith("for the 7 GPUs not shown (0000:01:00.0")
    settled = next(s["settles"] for s in doc["run_next"] if s["step"] == "nvidia-smi -q")
    assert {"DRV-PERSISTENCE", "PWR-GPU-POWER-LIMIT", "MEM-ECC-MODE"} <= set(settled)


# -- consistency: more evidence for more subjects ----------------------------------------------------

A100 = "NVIDIA Corporation GA100 [A100 SXM4 80GB] [10de:20b2] (rev a1)"
TITAN = "NVIDIA Corporation TU102 [TITAN RTX] [10de:1e02] (rev a1)"
RTX4090 = "NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)"
A100_PCIE = "NVIDIA Corporation GA100 [A100 PCIe 80GB] [10de:20b5] (rev a1)"


def _listing(name: str, buses: list[str]) -> str:
    """A modelled `lspci -nn` list of the host's GPUs (the line format of 05-…), at the buses the paste shows."""
    return "$ lspci -nn | grep -i nvidia\n" + "".join(f"{b}:00.0 3D controller [0302]: {name}\n" for b in buses)


# (real paste, what is added): pastes from different threads, each with more GPUs than it shows.
MORE = {
    "01-": _listing(A100, ["01", "41", "81", "c1"]),  # attached_gpus 4, one <gpu> kept
    "21-": _listing(TITAN, ["1a", "68"]),  # the tail of one GPU's section and the head of the next
    "92-": _listing(RTX4090, ["4b", "65"]),  # the table cut before GPU 1's cap
    "128-": _listing(A100_PCIE, ["17", "65", "ca"]),  # the table cut inside GPU 2's rows
    "essay": lspci_list(),
    "essay+table": nvidia_smi_table("NVIDIA RTX PRO 6000 Blackwell Server Edition", PRO_6000_BUSES, 600, 97887),
}


def _base(tmp: Path, key: str) -> str:
    if key.startswith("essay"):
        return essay(tmp).read_text(encoding="utf-8")
    return body(key)


@pytest.mark.parametrize("key", sorted(MORE))
def test_more_subjects_never_turn_an_issue_into_ok_nor_lower_the_verdicts(tmp_path: Path, key: str) -> None:
    base = _base(tmp_path, key)
    before = _results(_write(tmp_path, "before.txt", base))
    after = _results(_write(tmp_path, "after.txt", base + "\n" + MORE[key]))
    for cid, r in before.items():
        if r.status == "issue":
            assert after[cid].status == "issue", (cid, after[cid].status, after[cid].message)
    lost = sorted(cid for cid, r in before.items() if r.status in VERDICTS and after[cid].status not in VERDICTS)
    assert not lost, {cid: (before[cid].status, after[cid].status, after[cid].message) for cid in lost}
    assert sum(r.status in VERDICTS for r in after.values()) >= sum(r.status in VERDICTS for r in before.values())


def test_the_buses_of_the_essay_listing_are_the_essays() -> None:
    """The modelled list names the 8 GPUs of tests/gap_pastes.py's essay (one machine across the tests)."""
    assert [b[9:11].lower() for b in PRO_6000_BUSES] == BUSES


def test_nvlink_health_is_judged_on_the_gpus_whose_links_are_shown() -> None:
    """Real pastes: `nvidia-smi nvlink -s` with two links down on GPU 3 (61-…), `dcgmi nvlink -s` of 8 H100s all
    up (115-…). Neither shows how many GPUs the host has: `K shown`, never a made-up total."""
    down = run_checks(load_pasted([str(next(CAPTURES_DIR.glob("61-*")))]), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
    assert down.status == "issue" and down.coverage is not None and down.coverage.text() == "1 GPU shown"
    up = run_checks(load_pasted([str(next(CAPTURES_DIR.glob("115-*")))]), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
    assert up.status == "ok" and up.coverage is not None and up.coverage.text() == "8 GPUs shown"
    assert up.hint.startswith("`nvidia-smi nvlink -s` for every GPU of the host")
