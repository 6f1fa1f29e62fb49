"""A report that reads in ten seconds, and a fix plan that fits the host (issue 31), asserted on structure
over the whole-host scenarios (tests/report_scenarios.py) and the corpus of real pastes
(tests/data/captures), not on prose goldens:

- a finding's title states the fault and its value; a reason is never cut and never repeated;
- no rendered text holds a value as JSON;
- a lost or faulted GPU is the verdict whenever present, and one log line is one finding;
- every run-next command is one shell line, runnable as pasted, naming only an engine the source shows;
- fix steps name only the engine that is there, the C-state limit matches the cpuidle driver, and the
  plan's order within a group is the report's order.
"""

from __future__ import annotations

import itertools
import re
import shlex
from functools import cache
from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, parse_header
from report_scenarios import BUILDERS, report
from stackaudit.engine.results import Result
from stackaudit.engine.runner import Report, run_audit
from stackaudit.errors import InputError
from stackaudit.facts._parse import engine_of
from stackaudit.fixes.model import PLACEHOLDER
from stackaudit.fixes.plan import Plan, build_plan
from stackaudit.importers.pasted import load_pasted
from stackaudit.render.document import Document, draw
from stackaudit.report.bounds import bounded_report
from stackaudit.report.document import audit_document
from stackaudit.report.header import evidence_line, finding_title, value_text, verdict
from stackaudit.report.json_report import report_to_json
from stackaudit.report.next_steps import run_next
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions, sections, top_finding

SCENARIOS = sorted(BUILDERS)
CAPTURES = sorted(p.name.split("-", 1)[0] for p in CAPTURES_DIR.glob("*.txt"))


# Every capture's report by its number, from the run's shared audits (the `captured` fixture).
_CAPTURED: dict[str, Report | None] = {}


@pytest.fixture
def captured(corpus_reports: dict[str, Report | None]) -> None:
    """Every capture's report for _all and _read: audited once per run, shared by the workers (conftest.py)."""
    _CAPTURED.update({name.split("-", 1)[0]: rep for name, rep in corpus_reports.items()})


@cache
def _capture(prefix: str) -> Report:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    if prefix in _CAPTURED:
        found = _CAPTURED[prefix]
        if found is None:
            raise InputError(f"{path.name}: refused")
        return found
    return run_audit(load_pasted([str(path)]))


def _read(prefix: str) -> Report | None:
    """The capture's report; None for a paste the tool refuses (the corpus tests list why, as gaps)."""
    try:
        return _capture(prefix)
    except InputError:
        return None


def _all() -> list[tuple[str, Report]]:
    assert len(_CAPTURED) == len(CAPTURES), "a test that reads every report asks for the `captured` fixture"
    return [(n, report(n)) for n in SCENARIOS] + [(p, r) for p in CAPTURES if (r := _read(p)) is not None]


def _report(name: str) -> Report:
    found = report(name) if name in BUILDERS else _read(name)
    assert found is not None
    return found


@cache
def _document(name: str, verbose: bool) -> Document:
    """A report's document, as render() builds it (bounded, then laid out), once for the three formats drawn."""
    return audit_document(bounded_report(_report(name)), RenderOptions(verbose=verbose))


@cache
def _rendered(name: str, fmt: str, verbose: bool = False) -> str:
    """A report as a reader gets it (text 100 columns wide), drawn once for the tests that read it."""
    return draw(_document(name, verbose), fmt, width=100 if fmt == "text" else None)


@pytest.mark.parametrize("name", ["k8s-pod", "amd-bad-knobs", "72", "44"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_the_shared_document_draws_what_render_gives(name: str, fmt: str) -> None:
    """_rendered shares one document among the formats: it must be what render() gives a reader."""
    options = RenderOptions(verbose=name == "72", width=100 if fmt == "text" else None)
    assert _rendered(name, fmt, name == "72") == render(_report(name), fmt, options=options)


@cache
def _plan(name: str) -> Plan:
    """A report's fix plan, built once for the tests that read it."""
    return build_plan(report_to_json(_report(name)))


# --- titles: the fault and its value -----------------------------------------------------------------

_VALUE_TOKEN = re.compile(r"[\w.+=/-]*\d[\w.+=/-]*|--[\w-]+|\b[A-Z]{3,}\b")


def _value_tokens(r: Result) -> set[str]:
    """The parts of a result's value a title could carry: numbers, flags, settings, matrix words (NODE, SYS),
    less the subjects and the check's own title (they say where and what, not the value). A value that
    is the quoted source lines themselves is the quote's, not the title's."""
    if r.actual in (None, "", [], {}):
        return set()
    items = r.actual if isinstance(r.actual, list) else [r.actual]
    if all(isinstance(i, str) and any(i in e for e in r.evidence) for i in items):
        return set()
    subjects = " ".join(r.subjects)
    return {t for t in _VALUE_TOKEN.findall(value_text(r.actual, 10**6)) if t not in subjects and t not in r.title}


@pytest.mark.usefixtures("captured")
def test_every_title_states_its_value_whole() -> None:
    lacking, cut = [], []
    for name, rep in _all():
        for r in rep.issues():
            title = finding_title(r)
            tokens = _value_tokens(r)
            if tokens and not any(t in title for t in tokens):
                lacking.append(f"{name} {r.id}: {title!r} lacks any of {sorted(tokens)[:6]}")
            # The title is the message's first clause, whole: never cut, so never ending in `…`.
            if title.endswith("…") or not r.message.startswith(title.split(" — ")[0]):
                cut.append(f"{name} {r.id}: {title!r}")
    assert not lacking, "\n".join(lacking)
    assert not cut, "\n".join(cut)


def test_the_docker_shm_title_names_the_size_and_the_container() -> None:
    r = next(r for r in _capture("72").issues() if r.id == "CTR-SHM-SIZE")
    assert finding_title(r) == "/dev/shm is 64 MiB in container vllm-container (IpcMode private)"


@pytest.mark.usefixtures("captured")
def test_an_evidence_line_never_repeats_the_finding() -> None:
    """A value after a quote, or an observed value, says what the message does not; a reason (the message after
    the title, shown where no line is quoted) says what the title does not."""
    repeated = []
    for name, rep in _all():
        for r in rep.issues():
            line = evidence_line(r)
            reason = bool(line) and not line.startswith(("“", "observed: "))
            shown = line.split("” → ", 1)[1] if "” → " in line else line.removeprefix("observed: ")
            if line and (not line.startswith("“") or "” → " in line):
                words = set(re.findall(r"\w+", shown.lower().removesuffix("…")))
                said = finding_title(r) if reason else r.message
                if words <= set(re.findall(r"\w+", said.lower())):
                    repeated.append(f"{name} {r.id}: {line!r}")
    assert not repeated, "\n".join(repeated)


# --- no JSON in prose -----------------------------------------------------------------------------------

@pytest.mark.usefixtures("captured")
@pytest.mark.parametrize("verbose", [False, True])
def test_no_rendered_report_holds_a_value_as_json(verbose: bool) -> None:
    """Each format's own drawing is read on every report as shown by default; the blocks `--verbose` adds are
    read in Markdown, which draws every block's text (the formats draw the same blocks)."""
    bad = []
    formats = ("markdown",) if verbose else ("text", "markdown", "html")
    for (name, _), fmt in itertools.product(_all(), formats):
        out = _rendered(name, fmt, verbose)
        if fmt == "html":
            out = re.sub(r"<script.*?</script>", "", out, flags=re.S).replace("&quot;", '"').replace("&#x27;", "'")
        # A pasted line quoted verbatim (“…”) is the user's text, JSON and all (vLLM's `compilation_config={"…`,
        # corpus 1713): the rule is about values the report itself writes.
        out = re.sub(r"“[^”]*”", "“”", out)
        for mark in ('{"', "{'"):  # a dict as JSON or repr (a list in brackets is valid config: `cap_add: ["X"]`)
            if mark in out:
                at = out.index(mark)
                bad.append(f"{name}: …{out[max(0, at - 60):at + 40]!r}")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.usefixtures("captured")
def test_no_fix_plan_holds_an_observed_value_as_json() -> None:
    from stackaudit.fixes.plan_render import render as render_plan

    for name, _ in _all():
        plan = _plan(name)
        for fmt in ("text", "markdown"):
            observed = [line for line in render_plan(plan, fmt).splitlines() if "observed:" in line]
            assert not any('{"' in line or "{'" in line for line in observed), (name, fmt, observed)


# --- a lost GPU first, one log line one finding -----------------------------------------------------

def _lines(prefix: str, kind: str) -> list[str]:
    [path] = CAPTURES_DIR.glob(f"{prefix}-*.txt")
    return parse_header(path).lines_of(kind)


def _shm_and_lost_gpu(tmp_path: Path) -> Report:
    """Capture 72's pod spec (no /dev/shm mount: 64 MiB, a P0 fixed by a restart) and capture 44's dmesg
    (Xid 79, fixed by a reboot) in one paste, as a bug report holds them (the pairing is modelled)."""
    paste = tmp_path / "bug-report.txt"
    paste.write_text("\n".join(["```yaml", *_lines("72", "k8s pod"), "```", "", "```",
                                *_lines("44", "dmesg"), "```", ""]))
    return run_audit(load_pasted([str(paste)]))


def test_a_lost_gpu_is_the_verdict_above_a_cheaper_p0(tmp_path: Path) -> None:
    rep = _shm_and_lost_gpu(tmp_path)
    p0 = [r.id for r in sections(rep).fixes["P0"]]
    assert "CTR-SHM-SIZE" in p0 and "DRV-XID" in p0, p0
    top = top_finding(sections(rep))
    assert top is not None and top.id == "DRV-XID" and top.gpu_lost
    assert verdict(rep, top).startswith(f"fix first: {finding_title(top)} [DRV-XID, P0]")
    # Saved as JSON and read back (`stackaudit report`, `fix --from`), the order holds.
    doc = report_to_json(rep)
    assert [r.get("gpu_lost") for r in doc["results"] if r["id"] == "DRV-XID"] == [True]


_KERNEL_LOG = re.compile(r"NVRM|AER|pcieport|PCIe Bus Error|kernel:|^\[\s*[\d.+]+\]")


@pytest.mark.usefixtures("captured")
def test_one_kernel_log_line_is_one_finding() -> None:
    twice = []
    for name, rep in _all():
        seen: dict[str, str] = {}
        for r in rep.issues():
            for line in dict.fromkeys(e for e in r.evidence if _KERNEL_LOG.search(e)):
                if line in seen and seen[line] != r.id:
                    twice.append(f"{name}: {line[:90]!r} in {seen[line]} and {r.id}")
                seen.setdefault(line, r.id)
    assert not twice, "\n".join(twice)
    # The Xid 79 lines of capture 44 are DRV-XID's; the AER lines beside them are FW-AER-ERRORS'.
    by_id = {r.id: r for r in _capture("44").issues()}
    assert any("Xid" in e for e in by_id["DRV-XID"].evidence)
    assert by_id["FW-AER-ERRORS"].evidence and not any("Xid" in e for e in by_id["FW-AER-ERRORS"].evidence)


# --- run next: one runnable line each, the engine that is there -------------------------------------

@pytest.mark.usefixtures("captured")
def test_every_run_next_command_is_one_runnable_line_of_an_engine_present() -> None:
    bad = []
    for name, rep in _all():
        # The renderers' engines: those the source shows; none named where it could not tell.
        engines = rep.host.get("engines") or []
        for step in run_next(sections(rep).unknown, limit=None, host=rep.host):
            if not step.command:
                continue
            # One command (a pipeline at most) a line: no `a / b` alternative, no `<placeholder>`, no `;` or `&&`.
            lexer = shlex.shlex(step.text, posix=True, punctuation_chars=True)
            words = list(lexer)  # raises on an unbalanced quote
            if ("\n" in step.text or "/" in words or PLACEHOLDER.search(step.text)
                    or any(w in (";", "&&", "||", "<", ">", "&") for w in words)):
                bad.append(f"{name}: {step.text!r} is not one runnable command")
            if engine_of(step.text) not in ("", *engines):
                bad.append(f"{name}: {step.text!r} names an engine the source does not show ({engines})")
    assert not bad, "\n".join(bad)


def test_the_collect_env_step_follows_the_engine(tmp_path: Path) -> None:
    # RT-VERSION-MATRIX unknown on a vLLM host and on an SGLang host: each gets its own engine's command.
    from stackaudit.engine.results import Result as R

    unknown = R("RT-VERSION-MATRIX", "RT", "t", "unknown", "no torch found",
                hint="`python -m vllm.collect_env` (vLLM) or `python -m sglang.check_env` (SGLang)")
    assert [s.text for s in run_next([unknown], host={"engines": ["vllm"]}, by_fact={})] == ["python -m vllm.collect_env"]
    assert [s.text for s in run_next([unknown], host={"engines": ["sglang"]}, by_fact={})] == ["python -m sglang.check_env"]
    assert run_next([unknown], host={}, by_fact={}) == []


@pytest.mark.usefixtures("captured")
def test_markdown_run_next_blocks_parse_as_shell() -> None:
    for name, _ in _all():
        out = _rendered(name, "markdown", False)  # the key the JSON test caches under: rendered once
        tail = out.split("run next", 1)[1] if "run next" in out else ""
        for block in re.findall(r"```sh\n(.*?)```", tail, flags=re.S):
            for line in block.strip().splitlines():
                assert shlex.split(line) and " / " not in line, (name, line)


# --- fix plans that fit the host ---------------------------------------------------------------------

_ENGINE_WORDS = {"vllm": re.compile(r"vllm", re.I), "sglang": re.compile(r"sglang", re.I)}


def _step_texts(r: Result) -> list[str]:
    assert r.fix is not None
    return [s.does + " " + " ".join(c.line for c in s.commands) for s in r.fix.steps]


@pytest.mark.usefixtures("captured")
def test_fix_steps_name_only_the_engine_that_is_there() -> None:
    # A step that names an engine (its cache, its flags) appears only where the source shows that engine; the
    # few steps written for every engine at once (`--enforce-eager (vLLM) / --disable-cuda-graph (SGLang)`)
    # name all three and are advice, not commands.
    bad = []
    for name, rep in _all():
        engines = set(rep.host.get("engines") or [])
        if not engines:
            continue
        for r in rep.issues():
            for text in _step_texts(r):
                named = {e for e, rx in _ENGINE_WORDS.items() if rx.search(text)}
                if len(named) == 1 and not named <= engines:
                    bad.append(f"{name} {r.id}: {text[:100]!r} on a host with {sorted(engines)}")
    assert not bad, "\n".join(bad)


def test_the_sglang_host_restart_after_acs_does_not_clear_a_vllm_cache() -> None:
    # NCCL_P2P_LEVEL=SYS makes the root ports' ACS redirect an issue with its fix (issue 28: conditional findings).
    from scenarios_rtx_pro_6000 import rtx_pro_6000_lxc

    rep = report("rtx-pro-6000-lxc", rtx_pro_6000_lxc(p2p_level="SYS"), tag="-p2p-sys")
    assert rep.host["engines"] == ["sglang"]
    acs = next(r for r in rep.issues() if r.id == "FW-ACS-P2P")
    assert not any("vllm" in t.lower() for t in _step_texts(acs))
    vllm = next(r for r in report("amd-bad-knobs").results if r.id == "FW-ACS-P2P")
    assert report("amd-bad-knobs").host["engines"] == ["vllm"] and vllm.status != "issue"


@pytest.mark.parametrize(("name", "driver", "key", "not_key"), [
    ("amd-bad-knobs", "acpi_idle", "processor.max_cstate=1", "intel_idle"),
    ("k8s-pod", "intel_idle", "intel_idle.max_cstate=1", "processor.max_cstate"),
])
def test_the_cstate_limit_matches_the_cpuidle_driver(name: str, driver: str, key: str, not_key: str) -> None:
    r = next(r for r in report(name).issues() if r.id == "KERN-CSTATES")
    assert r.fix is not None and driver in r.message
    forms = " ".join(p.line for s in r.fix.steps for p in s.persistent)
    assert key in forms and not_key not in forms


@pytest.mark.usefixtures("captured")
def test_the_plan_follows_the_reports_order() -> None:
    for name, rep in _all():
        ranked = [r.id for p in ("P0", "P1", "P2") for r in sections(rep).fixes[p]]
        plan = _plan(name)
        for group in plan.groups:
            checks = list(dict.fromkeys(s.check for s in plan.group(group)))
            assert checks == sorted(checks, key=ranked.index), (name, group, checks, ranked)


def test_a_step_written_for_one_engine_goes_where_that_engine_is_absent() -> None:
    from stackaudit.checks.registry import load_all as load_checks
    from stackaudit.fixes.model import engines_named

    fix = load_checks()["IC-CUSTOM-ALLREDUCE"].fix  # a vLLM P2P-cache step, then an SGLang flag step
    named = [engines_named(s.does + " ".join(c.line for c in s.commands)) for s in fix.steps]
    assert named == [{"vllm"}, {"sglang"}]
    assert [engines_named(s.does) for s in fix.for_engines(["sglang"]).steps] == [{"sglang"}]
    assert fix.for_engines(["vllm"]).steps == fix.steps[:1]
    assert fix.for_engines(["vllm", "sglang"]) is fix
    # A fix never loses its last step: with neither engine there, it stays whole.
    assert fix.for_engines([]) is fix
