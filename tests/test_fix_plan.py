"""`stackaudit fix`: the plan's groups, filters, sources, output file and quoting.

Synthetic reports (the JSON shape `audit --format json` writes) hold the steps under test; the
whole-host scenarios (tests/report_scenarios.py) give the real ones. Observed values and subjects
from hypothesis (quotes, `$`, backticks, spaces, newlines, control characters) go through the plan
into bash, which must hand them back to a stub command unchanged.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from fix_plan_support import bash_syntax, calls, run_group, shellcheck, stubs
from report_scenarios import snapshot
from scenarios_rtx_pro_6000 import rtx_pro_6000_lxc
from stackaudit.cli.main import main
from stackaudit.errors import InputError
from stackaudit.fixes.model import Fix, Step, cmd, keep_line, sh, step
from stackaudit.fixes.pcie import CLEAR_VLLM_P2P_CACHE
from stackaudit.fixes.plan import build_plan, container_host_name
from stackaudit.fixes.plan_render import plan_to_json, render, render_bash
from stackaudit.fixes.shell_quote import bash_word


def result(check: str, steps: list[Step] | Fix, actual: Any = None, subjects: tuple[str, ...] = (),
           priority: str = "P2", status: str = "issue") -> dict[str, Any]:
    fix = steps if isinstance(steps, Fix) else Fix.of(*steps)
    return {"id": check, "status": status, "priority": priority if status == "issue" else None, "title": check,
            "subjects": list(subjects), "actual": actual, "waived": None,
            "fix": json.loads(json.dumps(fix.to_json())) if status == "issue" else None}


def report(*results: dict[str, Any], container: str = "none", kernel: str = "6.8.0-45-generic",
           hostname: str = "gpu-01") -> dict[str, Any]:
    return {"schema": 2, "tool": {"name": "stackaudit", "version": "0"}, "source": {"kind": "live"},
            "generated_at": "2026-01-01T00:00:00Z", "results": list(results),
            "host": {"hostname": hostname, "container": container, "kernel": kernel}}


SWAPPINESS = step("Lower swappiness", "sysctl -w vm.swappiness=10", changes="vm.swappiness",
                  keep=keep_line("vm.swappiness = 10", "/etc/sysctl.d/90-llm-serving.conf"))
PER_SUBJECT = step("Raise the limit", "prlimit --pid <pid> --nofile=1048576:1048576", per="<pid>")
GRUB = keep_line('GRUB_CMDLINE_LINUX_DEFAULT="... iommu=pt"', "/etc/default/grub", label="GRUB",
                 text="then update-grub")
IOMMU = step("Passthrough IOMMU", "grubby --update-kernel=ALL --args=iommu=pt", cost="reboot", keep=GRUB)
BIOS = step("Enable Above 4G decoding", cost="bios")
RESTART = step("Restart the engine", sh(CLEAR_VLLM_P2P_CACHE), cost="restart",
               scope="container")


def write(tmp_path: Path, text: str, name: str = "plan.sh") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- groups -------------------------------------------------------------------------------------------


def test_steps_go_to_the_group_of_their_cost() -> None:
    plan = build_plan(report(result("A", [SWAPPINESS], "60", ("vm.swappiness",)), result("B", [IOMMU]),
                             result("C", [BIOS]), result("D", [RESTART])))
    assert plan.groups == ["now", "restart", "reboot", "bios"]
    assert [s.check for s in plan.group("reboot")] == ["B"]


def test_in_a_container_host_steps_go_to_its_host_first_and_say_which(tmp_path: Path) -> None:
    doc = report(result("A", [SWAPPINESS], "60", ("vm.swappiness",)), result("D", [RESTART]),
                 container="lxc", kernel="6.8.12-4-pve")
    plan = build_plan(doc)
    assert plan.groups == ["container-host", "restart"]
    text = render_bash(plan)
    assert "# == container-host: on the container's host: the Proxmox node ==" in text
    assert text.index("group_container_host()") < text.index("group_restart()")
    assert container_host_name("docker", "6.8.0") == "the Docker host"
    assert container_host_name("kubernetes", "5.15.0") == "the Kubernetes node"
    assert container_host_name("lxc", "6.8.0-45-generic") == "the LXC host"


def test_a_restart_in_a_kubernetes_pod_is_a_redeploy() -> None:
    text = render_bash(build_plan(report(result("D", [RESTART]), container="kubernetes")))
    assert "# == restart: restart the serving engine ==" in text and "#    takes: redeploy the pod" in text
    host = render_bash(build_plan(report(result("D", [RESTART]))))
    assert "takes:" not in host


def test_bios_steps_and_unfilled_placeholders_are_comments(tmp_path: Path) -> None:
    bios_cmd = step("Update the firmware", "fwupdmgr update", cost="bios")
    text = render_bash(build_plan(report(result("A", [bios_cmd]), result("B", [PER_SUBJECT]))))
    assert "\n  fwupdmgr update" not in text and "#   fwupdmgr update" in text
    assert "# fill in <pid>, then run:" in text and "\n  prlimit" not in text
    script = write(tmp_path, text)
    bash_syntax(script)
    shellcheck(script)


def test_verification_names_the_checks_after_their_costliest_step() -> None:
    plan = build_plan(report(result("A", [SWAPPINESS, IOMMU], "60", ("vm.swappiness",)),
                             result("B", [SWAPPINESS], "60", ("vm.swappiness",))))
    assert plan.verify("now") == ["B"] and plan.verify("reboot") == ["A"]
    text = render_bash(plan)
    assert "\n  stackaudit audit --select B\n" in text
    assert "# after the reboot, these checks must pass:\n  #   stackaudit audit --select A" in text


def test_revert_takes_the_observed_value_where_the_step_is_a_sysctl() -> None:
    numa = step("Turn off NUMA balancing", "sysctl -w kernel.numa_balancing=0", revert=["sysctl -w kernel.numa_balancing=1"])
    observed = build_plan(report(result("A", [numa], actual="2", subjects=("kernel.numa_balancing",)))).steps[0]
    assert [c.line for c in observed.revert] == ["sysctl -w kernel.numa_balancing=2"]
    assert observed.revert_from == "observed"
    # Prose, or a result about other subjects: the fix's own revert, or none.
    prose = build_plan(report(result("A", [numa], actual="balancing on, 3 faults", subjects=("pid 7",)))).steps[0]
    assert [c.line for c in prose.revert] == ["sysctl -w kernel.numa_balancing=1"] and prose.revert_from == "fix"
    swap = build_plan(report(result("B", [SWAPPINESS], actual="pid 4101 VmSwap 10 kB", subjects=("4101",)))).steps[0]
    assert swap.revert == () and "undo" not in render_bash(build_plan(report(result("B", [SWAPPINESS]))))


# --- boot loader --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("loader", "grub", "systemd_boot"),
                         [("grub", True, False), ("systemd-boot", False, True), ("", True, True)])
def test_kernel_command_line_form_follows_the_boot_loader(loader: str, grub: bool, systemd_boot: bool) -> None:
    text = render_bash(build_plan(report(result("B", [IOMMU])), boot_loader=loader, boot_evidence="test"))
    assert ('GRUB_CMDLINE_LINUX_DEFAULT="... iommu=pt"' in text) is grub
    assert ("keep (systemd-boot), in /etc/kernel/cmdline:\n  #   iommu=pt" in text) is systemd_boot


def test_boot_loader_fact_reads_the_source() -> None:
    from stackaudit.cli.fix import boot_loader_of
    from stackaudit.facts.boot_loader import LOADER_INFO
    from stackaudit.host.memory import fake_host

    cmdline = "BOOT_IMAGE=/boot/vmlinuz-6.8.0 root=/dev/sda1 ro\n"
    assert boot_loader_of(fake_host(files={"/proc/cmdline": cmdline}), 10)[0] == "grub"
    efi = {"/proc/cmdline": "initrd=\\initrd.img root=/dev/sda1 ro\n", LOADER_INFO: b"\x06\0\0\0s\0d\0"}
    assert boot_loader_of(fake_host(files=efi), 10)[0] == "systemd-boot"
    kernel_cmdline = {"/proc/cmdline": "root=/dev/sda1 ro\n", "/etc/kernel/cmdline": "root=ZFS=rpool/ROOT boot=zfs\n"}
    assert boot_loader_of(fake_host(files=kernel_cmdline), 10)[0] == "systemd-boot"
    assert boot_loader_of(fake_host(files={"/proc/cmdline": "root=/dev/sda1 ro\n"}), 10) == ("", "")


# --- filters ------------------------------------------------------------------------------------------


def _plan_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["fix", "--from", str(snapshot("amd-bad-knobs")), "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _checks(doc: dict[str, Any]) -> set[str]:
    return {s["check"] for g in doc["groups"] for s in g["steps"]}


def test_only_and_priority_filters(capsys: pytest.CaptureFixture[str]) -> None:
    everything = _plan_json(capsys)
    priorities = {s["check"]: s["priority"] for g in everything["groups"] for s in g["steps"]}
    assert {"P0", "P1", "P2"} <= set(priorities.values())
    assert _checks(_plan_json(capsys, "--only", "kern-numa-balancing,KERN-THP")) == {"KERN-NUMA-BALANCING", "KERN-THP"}
    assert _checks(_plan_json(capsys, "--only", "KERN-THP", "--only", "KERN-SWAP")) == {"KERN-THP", "KERN-SWAP"}
    p0 = _checks(_plan_json(capsys, "--priority", "P0"))
    assert p0 == {c for c, p in priorities.items() if p == "P0"} and p0
    assert _checks(_plan_json(capsys, "--priority", "p1")) == {c for c, p in priorities.items() if p in ("P0", "P1")}
    assert _checks(_plan_json(capsys, "--priority", "P2")) == set(priorities)


def test_no_issue_gives_a_plan_that_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = render_bash(build_plan(report(result("A", [SWAPPINESS], status="ok"))))
    assert "# No issue to fix: the audit found none." in text and "group_" not in text
    script = write(tmp_path, text)
    bash_syntax(script)
    shellcheck(script)
    capsys.readouterr()
    # An ok check asked for by name: nothing to fix with these filters.
    assert main(["fix", "--from", str(snapshot("amd-bad-knobs")), "--only", "FW-ABOVE4G-MMIO"]) == 0
    assert "# No issue to fix with these filters." in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--priority", "P3"], ["--only", "NO-SUCH-CHECK"], ["--format", "html"],
                                  ["--boot-loader", "lilo"], ["--force"]])
def test_bad_options_are_one_line_and_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["fix", "--from", str(snapshot("amd-bad-knobs")), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("stackaudit: error:")


# --- sources ------------------------------------------------------------------------------------------


def _body(text: str) -> str:
    """The plan after its header (the source line and times differ between a report and its snapshot)."""
    return text[text.index("set -euo pipefail"):]


@pytest.mark.parametrize(("scenario", "replaced"), [("amd-bad-knobs", ["CTR-SHM-SIZE"]), ("rtx-pro-6000-lxc", [])])
def test_report_gives_the_same_plan_as_the_snapshot(scenario: str, replaced: list[str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The same plan, but for a check whose fix the audit computed from the host (CTR-SHM-SIZE for a
    container's kind): a report's text of it is not the catalogue's, so the catalogue's is given and said."""
    snap = str(snapshot(scenario))
    saved = tmp_path / "report.json"
    assert main(["audit", "--from", snap, "--format", "json", "--output", str(saved)]) == 0
    capsys.readouterr()
    outputs = {}
    for name, args in {"from": ["--from", snap], "report": ["--report", str(saved), "--boot-loader", "grub"],
                       "from-unknown": ["--from", snap, "--boot-loader", "unknown"],
                       "report-unknown": ["--report", str(saved)],
                       "from-json": ["--from", snap, "--format", "json"],
                       "report-json": ["--report", str(saved), "--boot-loader", "grub", "--format", "json"]}.items():
        assert main(["fix", *args]) == 0
        outputs[name] = capsys.readouterr().out
    plans = {k: json.loads(outputs[f"{k}-json"]) for k in ("from", "report")}
    assert plans["report"]["fix_text_ignored"] == replaced and plans["from"]["fix_text_ignored"] == []
    kept = [[s for g in plans[k]["groups"] for s in g["steps"] if s["check"] not in replaced] for k in plans]
    assert kept[0] == kept[1]
    if not replaced:
        assert _body(outputs["from"]) == _body(outputs["report"])
        assert _body(outputs["from-unknown"]) == _body(outputs["report-unknown"])
    else:
        assert f"the report's fix text is not the catalogue's for {', '.join(replaced)}" in outputs["report"]
    assert f"# source: report report.json (an audit of snapshot {scenario}.tar.gz)" in outputs["report"]


@pytest.mark.parametrize(("content", "message"), [
    (b"not json", "not a JSON report"),
    (b'{"schema": 1, "results": []}', "audit report schema 1"),
    (b'{"schema": 2}', "no results list"),
    (b'{"schema": 2, "results": [{"id": "X", "status": "issue", "fix": {"steps": [{"does": "a", '
     b'"commands": [{"line": "rm -rf / | x"}]}]}}]}', "needs a shell"),
])
def test_bad_report_is_one_line_and_exit_2(content: bytes, message: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content)
    capsys.readouterr()
    assert main(["fix", "--report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_report_and_from_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fix", "--report", "a.json", "--from", "b.tar.gz"]) == 2


# --- output file --------------------------------------------------------------------------------------


def test_output_is_exclusive_mode_0600_and_force_replaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = str(snapshot("amd-bad-knobs"))
    out = tmp_path / "plan.sh"
    assert main(["fix", "--from", snap, "--output", str(out)]) == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600 and out.read_text().startswith("#!/usr/bin/env bash\n")
    out.write_text("mine")
    capsys.readouterr()
    assert main(["fix", "--from", snap, "--output", str(out)]) == 2
    assert "exists" in capsys.readouterr().err and out.read_text() == "mine"
    link = tmp_path / "link.sh"
    link.symlink_to(tmp_path / "elsewhere.sh")
    assert main(["fix", "--from", snap, "--output", str(link)]) == 2 and not (tmp_path / "elsewhere.sh").exists()
    assert main(["fix", "--from", snap, "--output", str(out), "--force"]) == 0
    assert out.read_text().startswith("#!/usr/bin/env bash\n") and stat.S_IMODE(os.stat(out).st_mode) == 0o600


# --- setpci -------------------------------------------------------------------------------------------

_SETPCI = re.compile(r"setpci -s (\S+) (CAP_EXP\+0x08|ECAP_ACS\+0x6)\.w=([0-9a-f]{4}):([0-9a-f]{4})")


def test_setpci_lines_are_masked_writes_on_the_named_devices(capsys: pytest.CaptureFixture[str]) -> None:
    # The essay's host with NCCL_P2P_LEVEL=SYS: peer traffic crosses the root ports, so their ACS redirect is an
    # issue with its fix (without it, a conditional key negative: issue 28).
    snap = str(snapshot("rtx-pro-6000-lxc", rtx_pro_6000_lxc(p2p_level="SYS"), tag="-p2p-sys"))
    capsys.readouterr()
    assert main(["audit", "--from", snap, "--format", "json"]) == 0
    results = {r["id"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert main(["fix", "--from", snap]) == 0
    text = capsys.readouterr().out
    lines = [line.strip().lstrip("# ").strip() for line in text.splitlines() if "setpci " in line
             and "oneshot" not in line]
    assert lines and "# note: ACS isolates devices for VFIO" in text
    bridges = set(results["FW-ACS-P2P"]["subjects"])
    for line in lines:
        m = _SETPCI.fullmatch(line)
        assert m, f"not a masked write: {line}"
        bdf, register, value, mask = m.groups()
        assert int(mask, 16) and not int(value, 16) & ~int(mask, 16)
        assert register == "ECAP_ACS+0x6" and bdf in bridges, line
    # ACS cleared on the node before the engine restarts (SGLang here: no vLLM P2P cache to clear).
    assert main(["fix", "--from", snap, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    steps = [(g["id"], s["check"], s["does"]) for g in plan["groups"] for s in g["steps"] if s["check"] == "FW-ACS-P2P"]
    assert [g for g, _, _ in steps] == ["container-host", "restart"] and steps[1][2] == "Restart the engine"


# --- quoting ------------------------------------------------------------------------------------------

NASTY = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=24)


def test_bash_word_examples() -> None:
    assert bash_word("performance") == "performance"
    assert bash_word("it's a b") == "'it'\"'\"'s a b'"
    assert bash_word("done") == "'done'" and bash_word("fi") == "'fi'"
    assert bash_word("it's $HOME `id`") == "$'it\\'s $HOME `id`'"
    assert bash_word("a\nb\x1b[31m\x7f") == "$'a\\nb\\E[31m\\x7f'"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=NASTY)
@example(value="'; touch pwned; '")
@example(value="$(touch pwned) `touch pwned` ${HOME}")
@example(value="a b\tc\nd\re\x1b[2J\x07 \\ \" ' ")
@example(value="\u2028line\u0085next\x9b")
@example(value="")
@example(value="done")  # a reserved word: bash takes it as an argument, shellcheck as syntax (found by hypothesis)
@example(value="then")
@example(value="<0>")  # a placeholder-shaped subject holds every undo command: the undo body was only comments
def test_observed_values_and_subjects_round_trip_through_bash(value: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    tmp = tmp_path_factory.mktemp("q")
    bound = Fix.of(PER_SUBJECT).bind([value])
    doc = report(result("KERN-X", [SWAPPINESS], actual=value, subjects=("vm.swappiness",)),
                 result("RT-Y", bound, actual={value: value}, subjects=(value,)), hostname=value)
    plan = build_plan(doc)
    text = render_bash(plan)
    assert json.loads(json.dumps(plan_to_json(plan)))["groups"][0]["steps"][0]["observed"] == value
    script = write(tmp, text)
    bash_syntax(script)
    shellcheck(script)
    bin_dir = stubs(tmp / "bin", ["sysctl", "prlimit", "stackaudit"])
    assert run_group(script, None, bin_dir).returncode == 2 and calls(bin_dir) == []
    # A value shaped like a `<placeholder>` holds the command that carries it for a person to fill in.
    placeholder = re.search(r"<[^<>\n]+>", value)
    done = run_group(script, "undo-now", bin_dir)
    assert done.returncode == 0, done.stderr
    undone = calls(bin_dir)
    assert undone == ([] if placeholder else [["sysctl", "-w", f"vm.swappiness={value}"]])
    done = run_group(script, "now", bin_dir)
    assert done.returncode == 0, done.stderr
    ran = calls(bin_dir)[len(undone):]
    assert ["sysctl", "-w", "vm.swappiness=10"] in ran and not any(c[0] not in ("sysctl", "prlimit", "stackaudit")
                                                                   for c in ran)
    assert (["prlimit", "--pid", value, "--nofile=1048576:1048576"] in ran) is (placeholder is None)
    assert not (tmp / "bin" / "pwned").exists()
    # The Markdown for a ticket: each group one fenced block holding the script's text, whatever the value.
    fences = [t.content for t in MarkdownIt("commonmark").parse(render(plan, "markdown")) if t.type == "fence"]
    groups = [f for f in fences if "() {" in f]
    assert len(groups) == len(plan.groups) and all(f.rstrip("\n") in text for f in groups)


def test_command_with_a_subject_is_one_bash_word() -> None:
    bound = PER_SUBJECT.bind(["7 31"])
    assert bound.commands[0].line == "prlimit --pid '7 31' --nofile=1048576:1048576"
    assert bound.commands[0].argv == ("prlimit", "--pid", "7 31", "--nofile=1048576:1048576")
    assert PER_SUBJECT.bind(["a\nb"]).commands[0].shell


def test_a_report_command_with_a_newline_is_refused() -> None:
    doc = report({"id": "X", "status": "issue", "priority": "P1", "subjects": [], "actual": None,
                  "fix": {"steps": [{"does": "x", "commands": [{"line": "ls\nrm -rf /"}]}]}})
    with pytest.raises(InputError, match="one non-empty line"):
        build_plan(doc)
    assert cmd("ls").line == "ls"
