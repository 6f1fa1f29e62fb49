""""To judge more, run next": computed from the unknown results' missing facts and the sources that
supply them, ranked by how many checks each step settles; it follows the source."""

from __future__ import annotations

from report_scenarios import parts, snapshot, without_command
from stackaudit.engine.results import Result
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.report.next_steps import DEFAULT_STEPS, run_next
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions

CPU_DOMAINS = ["KERN", "KVER", "CTR", "RT"]


def _audit(name: str, without: str = "", select: list[str] | None = None) -> Report:
    scenario = without_command(parts(name), without) if without else None
    snap = snapshot(name, scenario, tag=f"-without-{without}" if without else "")
    return run_audit(load_snapshot(str(snap)), AuditOptions(select=select or []))


def _unknown(rid: str, missing: tuple[str, ...] = (), hint: str = "") -> Result:
    return Result(id=rid, domain=rid.split("-")[0], title=rid, status="unknown", message="?", hint=hint,
                  facts_missing=missing)


def test_removing_lscpu_puts_lscpu_first() -> None:
    before = run_next(_audit("amd-bad-knobs", select=CPU_DOMAINS).results)
    after_report = _audit("amd-bad-knobs", without="lscpu", select=CPU_DOMAINS)
    after = run_next(after_report.results)
    assert "lscpu" not in [s.text for s in before]
    assert after[0].text == "lscpu" and after[0].command
    # It settles exactly the checks that lack the cpu fact (the only fact lscpu alone supplies here).
    lacking_cpu = {r.id for r in after_report.results if r.status == "unknown" and "cpu" in r.facts_missing}
    # ... and the checks whose own unknown names lscpu as what would settle them (an optional cpu fact).
    hinted = {r.id for r in after_report.results if r.status == "unknown" and "lscpu" in r.hint}
    assert lacking_cpu and set(after[0].settles) == lacking_cpu | hinted


def test_whole_audit_list_changes_with_the_source_and_is_ranked() -> None:
    full = run_next(_audit("amd-bad-knobs").results)
    cut = run_next(_audit("amd-bad-knobs", without="lscpu").results)
    assert [s.text for s in full] != [s.text for s in cut] and "lscpu" in [s.text for s in cut]
    for steps in (full, cut):
        assert len(steps) <= DEFAULT_STEPS
        counts = [len(s.settles) for s in steps]
        assert counts == sorted(counts, reverse=True), counts


def test_a_check_missing_two_facts_is_settled_by_the_steps_that_supply_both() -> None:
    by_fact = {"cpu": ["lscpu"], "numa": ["numactl -H", "lscpu"], "nvidia": ["nvidia-smi -q -x"]}
    results = [_unknown("A-ONE", ("cpu", "numa")), _unknown("A-TWO", ("numa",)), _unknown("A-THREE", ("nvidia",))]
    steps = run_next(results, by_fact=by_fact)
    assert [(s.text, s.settles) for s in steps] == [("lscpu", ("A-ONE", "A-TWO")), ("nvidia-smi -q -x", ("A-THREE",))]


def test_hints_name_commands_and_prose_steps_come_after_commands_that_settle_as_many() -> None:
    results = [_unknown("B-ONE", hint="paste `sudo lspci -vvv` or `nvidia-smi -q`"),
               _unknown("B-TWO", hint="run `lspci -vvv` as root"),
               _unknown("B-THREE", hint="run on the host")]
    steps = run_next(results, by_fact={})
    # `sudo lspci -vvv` and `lspci -vvv` are one step, shown with sudo.
    assert steps[0].text == "sudo lspci -vvv" and steps[0].settles == ("B-ONE", "B-TWO")
    assert (steps[1].text, steps[1].command) == ("run on the host", False)
    assert len(steps) == 2  # `nvidia-smi -q` would settle nothing more


def test_a_fact_without_a_command_source_is_supplied_by_a_snapshot() -> None:
    steps = run_next([_unknown("C-ONE", ("sysctls",))], by_fact={"sysctls": []})
    assert steps[0].text.startswith("sudo stackaudit capture") and steps[0].settles == ("C-ONE",)


def test_default_output_lists_steps_and_verbose_lists_every_unknown() -> None:
    rep = _audit("proxmox-lxc")
    unknown = [r for r in rep.results if r.status == "unknown"]
    assert len(unknown) > DEFAULT_STEPS
    text = render(rep, "text")
    assert "To judge more, run next" in text and "Could not check" not in text
    verbose = render(rep, "text", options=RenderOptions(verbose=True))
    assert "Could not check" in verbose and all(r.id in verbose for r in unknown)
    markdown = render(rep, "markdown")
    details = markdown[markdown.index("<details><summary>Could not check"):]
    assert all(r.id in details for r in unknown)
    # Not applicable leaves the default output; --verbose shows it.
    na = [r.id for r in rep.results if r.status == "not-applicable"]
    assert na and "Not applicable" not in text and "Not applicable" not in markdown
    assert "Not applicable" in verbose and all(i in verbose for i in na)
