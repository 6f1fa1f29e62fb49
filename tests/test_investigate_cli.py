"""`stackaudit investigate` end to end on the story scenario (tests/scenarios_rtx_pro_6000.py: 8x RTX PRO 6000
under SGLang TP8 in an LXC container), against the scripted server of tests/investigate_support.py.

The golden report (text and JSON; the part investigate adds, the rest compared with `audit`'s): the KERN investigator finds one thing the catalogue has no check for
(kernel.dmesg_restrict = 0: any user reads the kernel log), kept with its quote, and makes one up (a soft
lockup the kernel log does not hold), dropped and counted. Refresh with `--update-golden` and review the diff.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai", reason="the openai SDK is in the test extras (stackaudit[investigate])")

from investigate_support import Call, Reply, ScriptedServer, call, finding, module_server, report
from report_scenarios import snapshot
from stackaudit.cli.main import main
from test_report_golden import mask

GOLDEN = Path(__file__).resolve().parent / "golden"
STORY = "rtx-pro-6000-lxc"
KEY = "local-key-0123-4567-89ab-cdef"
KEPT_QUOTE = "/proc/sys/kernel/dmesg_restrict: 0"
MADE_UP = "watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python3:4242]"


server = pytest.fixture(scope="module", name="server")(module_server)


def story_investigator(c: Call) -> Reply:
    """KERN reads a sysctl, then reports it (kept) and a lockup it never read (dropped); the others find nothing."""
    if c.domain != "KERN":
        return Reply(tool_calls=[report()], usage=(900, 12))
    if c.index == 0:
        return Reply(tool_calls=[call("read_file", path="/proc/sys/kernel/dmesg_restrict"),
                                 call("read_output", command="dmesg", match="lockup")], usage=(1200, 40))
    return Reply(tool_calls=[report(
        finding("X-KERN-dmesg-unrestricted", KEPT_QUOTE, observed="0", severity="low",
                title="any local user can read the kernel log (kernel.dmesg_restrict = 0)"),
        finding("X-KERN-soft-lockups", MADE_UP, observed="23s", severity="high",
                title="CPU soft lockups while serving"))], usage=(1500, 160))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def mask_run(text: str, url: str) -> str:
    return mask(text).replace(url, "http://127.0.0.1:<port>")


def pin_durations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The investigators' times as 0.0 s: a wall-clock value would change the golden (and its line wrapping)."""
    from stackaudit.investigate import session

    original = session.consolidate

    def pinned(*args: Any, **kwargs: Any) -> Any:
        investigation = original(*args, **kwargs)
        investigation.duration_s = 0.0
        for run in investigation.runs:
            run.duration_s = 0.0
        return investigation

    monkeypatch.setattr(session, "consolidate", pinned)


def investigation_part(fmt: str, out: str) -> str:
    """What `investigate` adds to the report: its section (text) or its `investigation` object (JSON), after the
    report's identity (the tool, its version and the time, as every golden file starts)."""
    if fmt == "json":
        doc = json.loads(out)
        return json.dumps({k: doc[k] for k in ("tool", "generated_at", "investigation")}, indent=2) + "\n"
    identity = next(line for line in out.splitlines() if line.startswith("stackaudit ") and " · " in line)
    return identity + "\n[…]\n" + out[out.index("Investigator findings (model-generated"):]


def audit_part(fmt: str, out: str) -> Any:
    """The rest: the audit's own report, as `audit --from` prints it, but for the command line."""
    if fmt == "json":
        doc = json.loads(out)
        doc.pop("investigation", None)
        doc.pop("command", None)
        return doc
    text = "\n".join(line for line in out.splitlines() if not line.startswith("$ stackaudit "))
    assert "Actionable fixes" in text
    return text.split("Investigator findings (model-generated")[0].rstrip()


@pytest.mark.parametrize("fmt,ext", [("text", "txt"), ("json", "json")])
def test_golden_story_report(server: ScriptedServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                             golden: Any, fmt: str, ext: str) -> None:
    """The golden holds what investigate adds (the rest is the audit's own report, which
    tests/test_report_golden.py keeps golden): so a check's new wording changes one golden, not two."""
    monkeypatch.setenv("COLUMNS", "80")
    pin_durations(monkeypatch)
    server.reset(story_investigator)
    snap = str(snapshot(STORY))
    code, out, _ = run(capsys, "investigate", "--llm-url", server.url, "--model", "scripted", "--from", snap,
                       "--format", fmt)
    assert code == 0
    _, audit_out, _ = run(capsys, "audit", "--from", snap, "--format", fmt)
    assert audit_part(fmt, mask(out)) == audit_part(fmt, mask(audit_out))
    got = mask_run(investigation_part(fmt, out), server.url)
    golden(GOLDEN / "rendered" / f"investigate-{STORY}.{ext}", got)
    assert MADE_UP not in out and "soft lockup" not in out  # dropped, never shown
    if fmt == "json":
        doc = json.loads(out)
        inv = doc["investigation"]
        assert [f["id"] for f in inv["findings"]] == ["X-KERN-dmesg-unrestricted"]
        assert inv["findings"][0]["evidence"] == [KEPT_QUOTE]
        assert inv["dropped"] == 1 and len(inv["investigators"]) == 10
        kern = next(r for r in inv["investigators"] if r["domain"] == "KERN")
        assert kern["dropped_reasons"] == {"quote not found in any tool output": 1}
        assert len(doc["results"]) > 50  # the rule engine's results are all there
    else:
        assert f'quote: "{KEPT_QUOTE}"' in out
        assert out.index("Actionable fixes") < out.index("Investigator findings")


def test_the_json_report_with_an_investigation_fits_the_schema(server: ScriptedServer,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "report.schema.json").read_text())
    server.reset(story_investigator)
    _, out, _ = run(capsys, "investigate", "--llm-url", server.url, "--model", "scripted", "--from",
                    str(snapshot(STORY)), "--format", "json", "--domains", "KERN")
    jsonschema.validate(json.loads(out), schema)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_endpoint_down_gives_the_deterministic_report_and_the_audit_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    snap = str(snapshot(STORY))
    url = f"http://127.0.0.1:{_closed_port()}"
    code, out, _ = run(capsys, "investigate", "--llm-url", url, "--model", "m", "--from", snap, "--format", "markdown")
    audit_code, audit_out, _ = run(capsys, "audit", "--from", snap, "--format", "markdown")
    assert code == audit_code == 0
    flat = " ".join(out.split())
    assert f"The investigators did not run: the LLM endpoint {url} could not be used (cannot connect" in flat
    # The rule engine's report, every section of it, as `audit` prints it; then the line saying what happened.
    body = out.split("## Actionable fixes")[1].split("## Investigator findings")[0]
    assert mask(body).rstrip() == mask(audit_out.split("## Actionable fixes")[1]).rstrip()
    assert audit_out.count("### P") > 0
    # --fail-on as for audit: the story has P2 findings (tests/golden/status/rtx-pro-6000-lxc.json).
    failing, _, _ = run(capsys, "investigate", "--llm-url", url, "--model", "m", "--from", snap, "--fail-on", "P2")
    assert failing == 1


def test_the_key_comes_from_the_environment_and_never_reaches_the_output(
        server: ScriptedServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    server.reset(lambda c: Reply(status=401, message=f"invalid key {c.headers.get('Authorization')}")
                 if c.index == 0 else Reply(tool_calls=[report()]))
    server.models_status = 401
    target = tmp_path / "report.json"
    code, out, err = run(capsys, "investigate", "--llm-url", server.url, "--model", "m", "--api-key-env",
                         "MY_LLM_KEY", "--from", str(snapshot(STORY)), "--format", "json", "--output", str(target))
    assert code == 0 and not out
    text = target.read_text()
    assert KEY not in text + err
    assert "HTTP 401" in json.loads(text)["investigation"]["unreachable"]


@pytest.mark.parametrize("args,message", [
    (["--domains", "FW,GPU"], "--domains: unknown domain 'GPU'"),
    (["--api-key-env", "STACKAUDIT_NO_SUCH_VAR"], "STACKAUDIT_NO_SUCH_VAR: that environment variable is not set"),
    (["--format", "html"], "--format: choose one of text, markdown, json"),
    (["--parallel", "0"], "--parallel and --max-rounds must be at least 1"),
    (["--timeout", "-1"], "--timeout must be positive"),
])
def test_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run(capsys, "investigate", "--llm-url", "http://127.0.0.1:9", "--model", "m", *args)
    assert code == 2 and not out
    assert err.count("\n") == 1 and message in err


def test_without_the_openai_sdk_it_names_the_extra(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("stackaudit.cli.investigate._have_openai", lambda: False)
    code, _, err = run(capsys, "investigate", "--llm-url", "http://127.0.0.1:9", "--model", "m")
    assert code == 2 and "pip install 'stackaudit[investigate]'" in err
