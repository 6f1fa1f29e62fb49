"""`stackaudit compare A B` on pairs of snapshots built at test time from the whole-host scenarios.

Pairs (tests/scenario_builder.py parts over tests/test_scenarios_host.py's scenarios):

- amd-fix: the bare-metal EPYC host with bad knobs, before and after `kernel.numa_balancing` 1 → 0
  and the governor powersave → performance on every CPU;
- intel-drift: two nodes of the well-tuned Xeon host, the second with a planted driver 570.86.15 and
  one GPU's link trained at x8;
- intel-samples: the Xeon host with NVML answers, then the same host busy: CPU pressure 0.4 % → 37.5 %,
  GPU temperature, utilisation, current clocks and power draw up, CPU clocks moved.

The expected lists are written by hand from the planted changes. The goldens (tests/golden/README.md) hold what
changed in each pair (tests/golden/status/compare-PAIR.json) and the three renders of amd-fix
(tests/golden/rendered/compare-amd-fix.*, time and version masked): refresh them with
`pytest tests/test_compare_cli.py --update-golden` after an intended change and review the diff.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

import nvidia_support
from scenario_builder import Parts, build_host, merge, nvidia_driver, nvml_userspace, pressure, sysctls
from stackaudit import __version__
from stackaudit.capture import capture_host
from stackaudit.compare.render import show
from stackaudit.host.memory import fake_host
from test_scenarios_host import amd_bad_knobs, intel_well_tuned

GOLDEN = Path(__file__).resolve().parent / "golden"
EXTENSIONS = {"text": "txt", "markdown": "md", "json": "json"}
INTEL_ROOTS = ["15", "2a", "3d", "64", "97", "aa", "bd", "e4"]
INTEL_BDFS = [f"0000:{int(r, 16) + 1:02x}:00.0" for r in INTEL_ROOTS]


def mask(text: str) -> str:
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)", "<time>", text)
    text = text.replace(f"stackaudit {__version__}", "stackaudit <version>")
    return re.sub(rf'"(version|tool_version)": "{re.escape(__version__)}"', r'"\1": "<version>"', text)


def _set_files(parts: Parts, suffix: str, value: str) -> Parts:
    """Every file whose path ends with `suffix` set to `value` (e.g. each CPU's scaling_governor)."""
    hits = [path for path in parts.files if path.endswith(suffix)]
    assert hits, f"the scenario has no file ending {suffix}"
    return parts + Parts(files=dict.fromkeys(hits, value))


def _nvml(**over: Any) -> dict[str, Any]:
    gpus = [nvidia_support.nvml_gpu(i, "NVIDIA H100 80GB HBM3", bdf, **over) for i, bdf in enumerate(INTEL_BDFS)]
    return {"system": nvidia_support.system(len(gpus), "570.133.20"), **{f"gpu/{g['index']}": g for g in gpus}}


def _with_nvml(parts: Parts, hostname: str, nvml: dict[str, Any]):  # type: ignore[no-untyped-def]
    return fake_host(files=parts.files, links=parts.links, dirs=parts.dirs, commands=parts.commands,
                     which=parts.which, docs=parts.docs, nvml=nvml, hostname=hostname, uid=0)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    top = tmp_path_factory.mktemp("compare")

    def snap(name: str, host: Any) -> str:
        path = top / f"{name}.tar.gz"
        capture_host(host, str(path))
        return str(path)

    # Fixed for good: at runtime and in the configuration the next boot applies (else KERN-PERSIST-BOOT
    # reports both as lost at reboot: a new issue).
    kept = Parts(files={"/etc/sysctl.d/90-llm-serving.conf": "kernel.numa_balancing = 0\n",
                        "/etc/default/grub": 'GRUB_CMDLINE_LINUX_DEFAULT="quiet cpufreq.default_governor=performance"\n'})
    fixed = _set_files(merge(amd_bad_knobs(), sysctls(kernel__numa_balancing=0), kept), "/scaling_governor",
                       "performance\n")
    drifted = merge(intel_well_tuned(), nvidia_driver("570.86.15"), nvml_userspace("570.86.15"))
    third_gpu_width = f"/0000:{INTEL_ROOTS[2]}:01.0/{INTEL_BDFS[2]}/current_link_width"
    drifted = _set_files(drifted, third_gpu_width, "8\n")
    busy = _set_files(merge(intel_well_tuned(), pressure(37.5)), "/scaling_cur_freq", "3412000\n")
    busy_gpus = _nvml(temperature={"gpu": 71}, utilization={"gpu": 97, "memory": 60},
                      clocks={"graphics": 1755, "sm": 1755}, power={"usage_mw": 310000})
    return {
        "amd-fix": (snap("before", build_host(amd_bad_knobs(), "gpu-amd-01")), snap("after", build_host(fixed, "gpu-amd-01"))),
        "intel-drift": (snap("node-02", build_host(intel_well_tuned(), "gpu-intel-02")),
                        snap("node-03", build_host(drifted, "gpu-intel-03"))),
        "intel-samples": (snap("idle", _with_nvml(intel_well_tuned(), "gpu-intel-02", _nvml())),
                          snap("busy", _with_nvml(busy, "gpu-intel-02", busy_gpus))),
    }


def _json(cli: Any, *args: str) -> tuple[int, dict[str, Any]]:
    run = cli("compare", *args, "--format", "json")
    assert run.err == "", run.err
    return run.rc, json.loads(run.out)


def _ids(doc: dict[str, Any], group: str) -> list[str]:
    return [entry["id"] for entry in doc[group]]


def _values(entries: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[Any, Any]]:
    return {(e["id"], e["subject"]): (e.get("a", "(absent)"), e.get("b", "(absent)")) for e in entries}


PAIRS = ("amd-fix", "intel-drift", "intel-samples")
RENDERED = "amd-fix"  # the one pair rendered in every format
CHANGES = ("regressed", "fixed", "still_wrong", "newly_unknown", "newly_known", "other", "configuration",
           "only_in_a", "only_in_b")


def changes(doc: dict[str, Any]) -> dict[str, object]:
    """`{group: [ID, or "ID subject" for a configuration value]}` of a JSON comparison, samples included."""
    out: dict[str, object] = {g: sorted(" ".join(filter(None, (e["id"], e.get("subject")))) for e in doc[g])
                              for g in CHANGES}
    for kind, entries in doc["samples"].items():
        out[f"samples {kind}"] = sorted(" ".join(filter(None, (e["id"], e.get("subject")))) for e in entries)
    return out


@pytest.mark.parametrize("pair", PAIRS)
def test_golden_changes(pair: str, pairs: dict[str, tuple[str, str]], cli: Any, golden: Any) -> None:
    _, doc = _json(cli, *pairs[pair])
    golden(GOLDEN / "status" / f"compare-{pair}.json", changes(doc))


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_golden_render(fmt: str, pairs: dict[str, tuple[str, str]], cli: Any, golden: Any) -> None:
    run = cli("compare", *pairs[RENDERED], "--format", fmt)
    assert run.rc == 0 and run.err == "", run.err
    golden(GOLDEN / "rendered" / f"compare-{RENDERED}.{EXTENSIONS[fmt]}", mask(run.out))


def test_before_and_after_a_fix(pairs: dict[str, tuple[str, str]], cli: Any) -> None:
    rc, doc = _json(cli, *pairs["amd-fix"], "--fail-on", "regressed")
    assert rc == 0
    # numa_balancing 1 -> 0 fixes KERN-NUMA-BALANCING; the governor fixes KERN-CPUFREQ-GOVERNOR (KERN-AMD-PSTATE
    # is a key negative on both sides: it does not repeat the governor's finding with a reboot).
    assert sorted(_ids(doc, "fixed")) == ["KERN-CPUFREQ-GOVERNOR", "KERN-NUMA-BALANCING"]
    assert doc["regressed"] == [] and doc["newly_unknown"] == [] and doc["newly_known"] == []
    numa = next(e for e in doc["fixed"] if e["id"] == "KERN-NUMA-BALANCING")
    assert numa["a"] == {"status": "issue", "priority": "P2", "waived": False}
    assert numa["b"]["status"] == "ok"
    values = _values(doc["configuration"])
    assert values[("KERN-NUMA-BALANCING", "kernel.numa_balancing")] == ("1", "0")
    assert "governor powersave" in values[("KERN-CPUFREQ-GOVERNOR", "")][0]
    assert "governor performance" in values[("KERN-CPUFREQ-GOVERNOR", "")][1]
    # Untouched issues stay wrong: the IOMMU mode, --enforce-eager, THP.
    assert {"FW-IOMMU-MODE", "RT-CUDA-GRAPHS", "KERN-THP"} <= set(_ids(doc, "still_wrong"))
    # Kept across reboots as well (sysctl.d, the GRUB command line): KERN-PERSIST-BOOT has something to judge, ok.
    assert [(e["id"], e["b"]["status"]) for e in doc["other"]] == [("KERN-PERSIST-BOOT", "ok")]
    assert doc["verdict"] == "2 fixed, 1 other status change, 3 configuration values changed"
    assert doc["fail_on"] == {"on": "regressed", "failed": False, "regressed": []}


def test_two_nodes_with_planted_drift(pairs: dict[str, tuple[str, str]], cli: Any) -> None:
    rc, doc = _json(cli, *pairs["intel-drift"], "--fail-on", "regressed")
    assert rc == 1
    assert _ids(doc, "regressed") == ["PCIE-LINK-DOWNTRAIN"]
    assert doc["regressed"][0]["b"]["priority"] == "P1"
    assert doc["fail_on"]["failed"] is True and doc["fail_on"]["regressed"] == ["PCIE-LINK-DOWNTRAIN"]
    values = _values(doc["configuration"])
    assert values[("DRV-CUDA-COMPAT", "driver")] == ("570.133.20", "570.86.15")
    width = values[(("PCIE-LINK-DOWNTRAIN", INTEL_BDFS[2]))]
    assert width[0] == "Gen4 x16" and width[1].startswith("Gen4 x8")
    # The other seven links did not move; an issue lists its bad link only, which is no change.
    assert [k for k in values if k[0] == "PCIE-LINK-DOWNTRAIN"] == [("PCIE-LINK-DOWNTRAIN", INTEL_BDFS[2])]
    # The hostname tells the nodes apart; it is not drift.
    assert doc["source"]["a"]["hostname"] == "gpu-intel-02" and doc["source"]["b"]["hostname"] == "gpu-intel-03"
    assert not any(e["id"] == "host" for e in doc["configuration"])


def test_only_sampled_values_differ(pairs: dict[str, tuple[str, str]], cli: Any) -> None:
    a, b = pairs["intel-samples"]
    run = cli("compare", a, b, "--fail-on", "regressed")
    assert run.rc == 0, run.out
    assert "Verdict: no difference" in run.out
    rc, doc = _json(cli, a, b, "--fail-on", "regressed")
    assert rc == 0 and doc["difference"] is False and doc["verdict"] == "no difference"
    assert doc["configuration"] == [] and doc["regressed"] == [] and doc["fail_on"]["failed"] is False
    # PSI at 37.5 % turns KERN-SCHED-KNOBS (a sample check) into an issue: listed apart, not a regression.
    assert [e["id"] for e in doc["samples"]["status"]] == ["KERN-SCHED-KNOBS"]
    assert doc["samples"]["status"][0]["b"]["status"] == "issue"
    assert "37.5" in json.dumps(doc["samples"]["values"])
    assert "Sampled values" in run.out


def test_a_report_against_the_snapshot_it_came_from(pairs: dict[str, tuple[str, str]], cli: Any,
                                                    tmp_path: Path) -> None:
    snapshot = pairs["amd-fix"][0]
    report = tmp_path / "before.json"
    assert cli("audit", "--from", snapshot, "--format", "json", "--output", str(report)).rc == 0
    for args in ((str(report), snapshot), (snapshot, str(report))):
        rc, doc = _json(cli, *args, "--fail-on", "regressed")
        assert rc == 0 and doc["verdict"] == "no difference" and doc["difference"] is False
        assert doc["configuration"] == [] and doc["samples"] == {"status": [], "values": []}
        # Every issue of the host is wrong in both, except those of the sample checks (swap in use, CPU
        # pressure), which are never compared as configuration.
        issues = {r["id"] for r in json.loads(report.read_text())["results"] if r["status"] == "issue"}
        assert {"KERN-SWAP", "KERN-SCHED-KNOBS"} <= issues
        assert set(_ids(doc, "still_wrong")) == issues - {"KERN-SWAP", "KERN-SCHED-KNOBS"}
    kinds = [doc["source"][side]["kind"] for side in ("a", "b")]
    assert kinds == ["snapshot", "report"]
    # Names only: no directory of the machine that ran it reaches the output.
    assert doc["source"]["files"] == ["before.tar.gz", "before.json"]
    assert str(tmp_path) not in json.dumps(doc) and str(Path(snapshot).parent) not in json.dumps(doc)


def test_envelope(pairs: dict[str, tuple[str, str]], cli: Any) -> None:
    _, doc = _json(cli, *pairs["intel-drift"])
    assert list(doc)[:4] == ["schema", "tool", "source", "generated_at"]
    assert doc["schema"] == 1 and doc["tool"] == {"name": "stackaudit", "version": __version__}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["generated_at"])
    assert doc["command"] == "stackaudit compare node-02.tar.gz node-03.tar.gz --format json"


def _code_spans(markdown: str) -> list[str]:
    spans = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        spans += [child.content for child in token.children or [] if child.type == "code_inline"]
    return spans


def test_markdown_keeps_every_value_verbatim(pairs: dict[str, tuple[str, str]], cli: Any, tmp_path: Path) -> None:
    # A report whose observed values hold everything Markdown could eat: pipes, backticks, HTML, emphasis.
    a, _ = pairs["intel-drift"]
    report = tmp_path / "a.json"
    assert cli("audit", "--from", a, "--format", "json", "--output", str(report)).rc == 0
    hostile = json.loads(report.read_text())
    planted = {"KVER-NVIDIA-KERNEL-COMBOS": "nvidia 570 | `open` <b>*x*</b> _y_ [z](u) & \\",
               "DRV-CUDA-COMPAT": {"driver": "``570``|86", "torch_cuda": ["12.8", "a|b"]},
               "IC-NUMA-AFFINITY": {"GPU0": "line one\nline two", "GPU|1": " padded "}}
    for result in hostile["results"]:
        if result["id"] in planted:
            result["actual"] = planted[result["id"]]
    changed = tmp_path / "b.json"
    changed.write_text(json.dumps(hostile))
    for pair in ((str(report), str(changed)), pairs["intel-drift"]):
        _, doc = _json(cli, *pair)
        run = cli("compare", *pair, "--format", "markdown")
        spans = _code_spans(run.out)
        shown = [show(e[side]) for e in doc["configuration"] for side in ("a", "b") if side in e]
        assert shown and all(value in spans for value in shown), [v for v in shown if v not in spans]
        assert all(e["subject"] in spans for e in doc["configuration"] if e["subject"])


def test_a_regression_that_is_waived_does_not_fail_the_gate(pairs: dict[str, tuple[str, str]], cli: Any,
                                                            tmp_path: Path) -> None:
    a, b = pairs["intel-drift"]
    report = tmp_path / "b.json"
    assert cli("audit", "--from", b, "--format", "json", "--output", str(report)).rc == 0
    doc = json.loads(report.read_text())
    for result in doc["results"]:
        if result["id"] == "PCIE-LINK-DOWNTRAIN":
            result["waived"] = {"id": "PCIE-LINK-DOWNTRAIN", "subject": "", "reason": "x8 riser, known",
                                "expires": "", "source": "stackaudit.toml"}
    report.write_text(json.dumps(doc))
    rc, out = _json(cli, a, str(report), "--fail-on", "regressed")
    assert rc == 0 and _ids(out, "regressed") == ["PCIE-LINK-DOWNTRAIN"]
    assert out["regressed"][0]["b"]["waived"] is True and out["fail_on"]["failed"] is False


def _one_line_error(run: Any, *words: str) -> None:
    assert run.rc == 2, (run.rc, run.out, run.err)
    assert run.out == ""
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("stackaudit: error: "), run.err
    assert "Traceback" not in run.err
    for word in words:
        assert word in lines[0], lines[0]


def test_bad_input(pairs: dict[str, tuple[str, str]], cli: Any, tmp_path: Path) -> None:
    good = pairs["amd-fix"][0]
    _one_line_error(cli("compare", str(tmp_path / "missing.json"), good), "no such file")
    text = tmp_path / "notes.txt"
    text.write_text("kernel.numa_balancing = 1\n")
    _one_line_error(cli("compare", good, str(text)), "not valid JSON")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"name": "not a report"}))
    _one_line_error(cli("compare", str(other), good), "not a stackaudit report")
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"schema": 2, "levels": []}))
    _one_line_error(cli("compare", str(bench), good), "not a stackaudit audit report")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema": 1, "host": {}, "results": []}))
    _one_line_error(cli("compare", str(old), good), "schema 1", "schema 2")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema": 2, "results": [{"title": "no id"}]}))
    _one_line_error(cli("compare", str(broken), good), "no check ID")
    empty_dir = tmp_path / "not-a-snapshot"
    empty_dir.mkdir()
    _one_line_error(cli("compare", good, str(empty_dir)), "not a stackaudit snapshot")
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(Path(good).read_bytes()[:2000])
    _one_line_error(cli("compare", str(cut), good), "cut.tar.gz")
    log = tmp_path / "nvidia-bug-report.log.gz"
    log.write_bytes(gzip.compress(b"____________________________________________\n\n*** /proc/cmdline\n"))
    _one_line_error(cli("compare", good, str(log)), "not a stackaudit snapshot")
    _one_line_error(cli("compare", good, good, "--format", "html"), "--format")
    _one_line_error(cli("compare", good, good, "--fail-on", "P1"), "--fail-on")


def test_compare_of_a_compare_output_is_refused(pairs: dict[str, tuple[str, str]], cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "cmp.json"
    assert cli("compare", *pairs["intel-drift"], "--format", "json", "--output", str(out)).rc == 0
    _one_line_error(cli("compare", str(out), pairs["intel-drift"][0]), "not a stackaudit audit report")
