"""The topology model, the HTML report and the Markdown's Mermaid block, without a browser
(tests/test_report_html_browser.py opens the pages in Chromium): what the model draws from the facts,
escaping of host values and the JSON round trip `stackaudit report RUN.json` rests on.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from html_scenarios import (
    A0,
    A1,
    B0,
    DOWNTRAINED_GPU,
    HOSTILE_NAME,
    LOST_GPU,
    NO_NVLINK_GPU,
    ROOT,
    UP_A,
    UP_B,
    report,
    switch_tree,
    switch_tree_report,
)
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.facts.machine_topology import MachineTopology, topology_from_facts
from stackaudit.render.formats import FORMATS
from stackaudit.report.json_report import report_from_json, report_to_json
from stackaudit.report.render import render
from stackaudit.report.topology import faults, topology_from_json


class _Tags(HTMLParser):
    """Every start tag of a page, with its attributes, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def test_html_is_a_format() -> None:
    assert "html" in FORMATS["audit"]


def test_pcie_story_topology() -> None:
    t = topology_from_json(report("pcie").topology)
    assert [g.name for g in t.gpus] == [f"GPU{i}" for i in range(8)]
    assert {b.kind for b in t.bridges} == {"root-port"} and len(t.bridges) == 8
    assert {g.parent for g in t.gpus} == {b.bdf for b in t.bridges}  # each GPU on its own root port
    assert [s.node for s in t.sockets] == [0, 1]
    kinds = [p.kind for p in t.pairs]
    assert len(t.pairs) == 28 and kinds.count("NODE") == 12 and kinds.count("SYS") == 16
    assert t.tp is not None and t.tp.size == 8 and t.tp.basis == "engine TP"


def test_pcie_story_faults_sit_where_they_were_found() -> None:
    rep = report("pcie")
    t = topology_from_json(rep.topology)
    found = {(f.kind, f.target) for f in faults(t, rep.results)}
    assert ("lost", LOST_GPU) in found and ("downtrained", DOWNTRAINED_GPU) in found
    acs = {target for kind, target in found if kind == "acs-redirect"}
    assert acs == {b.bdf for b in t.bridges}  # FW-ACS-P2P's subjects: the eight root ports


def test_nvswitch_topology_and_missing_nvlink() -> None:
    rep = report("nvswitch")
    t = topology_from_json(rep.topology)
    assert len(t.gpus) == 8 and sum(d.kind == "nvswitch" for d in t.devices) == 4
    assert [d.label for d in t.devices if d.kind == "nic"] == [f"mlx5_{k}" for k in range(8)]
    nv = [p for p in t.pairs if p.kind == "NV"]
    assert len(nv) == 21 and all(p.nvlinks == 18 for p in nv)  # 28 pairs less GPU2's seven
    found = faults(t, rep.results)
    pairs = {f.target for f in found if f.kind == "missing-nvlink" and "-" in f.target}
    assert pairs == {f"{min(a, b)}-{max(a, b)}" for a, b in ((NO_NVLINK_GPU, f"GPU{i}") for i in range(8))
                     if a != b} and len(pairs) == 7
    assert t.tp is not None and t.tp.size == 4 and len(t.tp.groups) == 2


def test_no_gpu_host_has_nothing_to_draw() -> None:
    rep = report("no-gpu")
    t = topology_from_json(rep.topology)
    assert not t.gpus and not t.pairs and not t.drawable
    assert "```mermaid" not in render(rep, "markdown")
    html = render(rep, "html")
    assert 'id="topology"' not in html and 'id="no-topology"' in html  # the page says there is nothing to draw
    assert "Topology" not in render(rep, "text") and "Topology" not in render(rep, "markdown")


def test_the_topology_faults_are_listed_under_the_drawing_linked_to_their_findings() -> None:
    rep = report("pcie")
    html = render(rep, "html")
    drawing = html.index('<svg id="topology"')
    found = faults(topology_from_json(rep.topology), rep.results)
    assert {f.check for f in found} >= {"", "PCIE-LINK-DOWNTRAIN", "FW-ACS-P2P"}  # one with no check (the lost GPU)
    for f in found:
        if f.check:  # under the drawing, a link to the finding on the page
            assert html.index(f'<a href="#result-{f.check}">', drawing) and f'id="result-{f.check}"' in html
    assert "lost GPU: " in html[drawing:] and "downtrained link: " in html[drawing:]
    assert "lost GPU: " not in render(rep, "text")  # the key goes with the drawing: the page only


def test_switches_from_the_pci_tree() -> None:
    """html_scenarios.switch_tree: two cascaded switches under one root port and no matrix. The pairs'
    kinds come from the tree, as nvidia-smi names them: PIX within one switch, PXB across the two."""
    t = topology_from_facts({"pcie": switch_tree()})
    assert [(b.bdf, b.kind, b.parent, b.ports) for b in t.bridges] == [
        (ROOT, "root-port", "", ()), (UP_A, "switch", ROOT, (A0, A1)), (UP_B, "switch", UP_A, (B0,))]
    assert [g.parent for g in t.gpus] == [UP_A, UP_A, UP_B, UP_B] and t.pairs_from == "the PCI tree"
    kinds = {(p.a, p.b): p.kind for p in t.pairs}
    assert kinds[("GPU0", "GPU1")] == "PIX" and kinds[("GPU2", "GPU3")] == "PIX"
    assert kinds[("GPU0", "GPU2")] == "PXB" and kinds[("GPU1", "GPU3")] == "PXB"
    nic = [d for d in t.devices if d.kind == "nic"]
    assert len(nic) == 1 and nic[0].parent == UP_B
    rep = switch_tree_report()
    assert [(f.kind, f.target) for f in faults(t, rep.results)] == [("acs-redirect", UP_B)]  # drawn on switch B
    classes = [(a.get("class") or "").split() for tag, a in tags(render(rep, "html")) if tag == "g"]
    assert sum("switch" in c for c in classes) == 2 and sum("root-port" in c for c in classes) == 1
    assert sum("fault" in c for c in classes) == 1


def test_topology_json_round_trip() -> None:
    t = topology_from_json(report("nvswitch").topology)
    assert topology_from_json(json.loads(json.dumps(t.to_json()))) == t
    assert topology_from_json({"gpus": "nonsense", "pairs": [{"a": "GPU0", "kind": "BOGUS"}]}) == MachineTopology()


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_saved_report_renders_as_the_audit_did(fmt: str) -> None:
    import dataclasses

    # The JSON keeps the audit's duration to the millisecond, the text prints it to 10 ms: a duration such
    # as 0.9751 s (0.98) comes back as 0.975 (0.97). One the JSON keeps exactly, so everything else must match.
    rep = dataclasses.replace(report("pcie"), duration_s=0.5)
    again = report_from_json(json.loads(json.dumps(report_to_json(rep))))
    assert render(again, fmt) == render(rep, fmt)


def test_report_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "run.json"
    saved.write_text(render(report("nvswitch"), "json"))
    out = tmp_path / "run.html"
    assert main(["report", str(saved), "--format", "html", "--output", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>") and 'id="topology"' in out.read_text()
    assert main(["report", str(saved), "--format", "md"]) == 0
    assert "```mermaid" in capsys.readouterr().out
    assert main(["report", str(tmp_path / "absent.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "bench.json").write_text(json.dumps({"schema": 1, "kind": "stackaudit.bench", "levels": []}))
    assert main(["report", str(tmp_path / "bench.json")]) == 2
    assert "not a stackaudit audit report" in capsys.readouterr().err
    assert main(["report", str(saved), "--format", "pdf"]) == 2


def test_hostile_host_values_stay_text() -> None:
    """A host name, GPU model and message that are markup come out as text: one script (the page's own),
    no img, no attribute broken out of."""
    rep = report("nvswitch")
    rep.host["hostname"] = HOSTILE_NAME
    rep.topology["gpus"][0]["model"] = HOSTILE_NAME
    rep.topology["gpus"][1]["name"] = HOSTILE_NAME
    rep.results[0] = Result(rep.results[0].id, "CTR", "t", "issue", HOSTILE_NAME, priority="P0",
                            subjects=(HOSTILE_NAME,), evidence=(HOSTILE_NAME,), references=(f"https://x/{HOSTILE_NAME}",))
    html = render(rep, "html")
    seen = tags(html)
    assert [t for t, _ in seen].count("script") == 1 and "img" not in [t for t, _ in seen]
    assert not any(k.startswith("on") for _, attrs in seen for k in attrs)
    assert "window.__pwned" in html and "<img" not in html
    assert HOSTILE_NAME.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;") in html
    block = render(rep, "markdown").split("```mermaid", 1)[1]
    assert "<" not in block.split("```", 1)[0] and '"><' not in block


def test_html_has_no_external_reference() -> None:
    """No src/href that fetches anything: only the check references (https links a person may click)."""
    html = render(report("pcie"), "html")
    for tag, attrs in tags(html):
        assert "src" not in attrs, tag
        if tag == "link":
            raise AssertionError(f"<link> {attrs}")
        if "href" in attrs:
            assert tag == "a" and (attrs["href"] or "").startswith(("https://", "#")), attrs
    assert "default-src 'none'" in html and "@import" not in html and "url(" not in html


# --- bench and ceiling pages -------------------------------------------------------------------


def _chart_points(html: str, chart_id: str) -> list[tuple[float, float]]:
    """The (x, y) of every point of one chart, as drawn."""
    svg = html.split(f'id="{chart_id}"', 1)[1].split("</svg>", 1)[0]
    return [(float(x), float(y)) for x, y in re.findall(r'data-x="([\d.e+-]+)" data-y="([\d.e+-]+)"', svg)]


def test_bench_html_charts_throughput_and_tpot() -> None:
    from stackaudit.bench.render import render_result
    from test_bench_formats import level_of, result_with

    low = level_of()
    high = dict(low, concurrency=16, output_tokens_per_s=812.5, output_tokens_per_s_per_stream=50.8,
                tpot_ms=dict(low["tpot_ms"], p50=19.5, p99=41.0),
                ceiling={"tokens_per_s_per_stream": 70.0, "bandwidth_tokens_per_s": 90.0, "binding": "bandwidth",
                         "efficiency": 0.73, "bandwidth_efficiency": 0.56, "concurrency": 16,
                         "concurrency_source": "target"})
    result = result_with([low, high])
    result["server"]["model_used"] = HOSTILE_NAME
    html = render_result(result, "html")
    assert "html" in FORMATS["bench"]
    assert _chart_points(html, "chart-throughput") == [(4.0, pytest.approx(low["output_tokens_per_s"])), (16.0, 812.5)]
    tpot = _chart_points(html, "chart-tpot")
    assert (16.0, 19.5) in tpot and (16.0, 41.0) in tpot
    assert (4.0, pytest.approx(low["tpot_ms"]["p50"])) in tpot
    assert (16.0, 70.0) in _chart_points(html, "chart-per-stream")  # the ceiling per stream, where known
    seen = tags(html)
    assert [t for t, _ in seen].count("script") == 0 and "img" not in [t for t, _ in seen]
    assert 'id="levels-table"' in html and "default-src 'none'" in html


def test_ceiling_html_ladder_with_the_measured_point() -> None:
    from ceiling_published import CONFIGS
    from stackaudit.ceiling import compute
    from stackaudit.ceiling.render import render as render_ceiling
    from stackaudit.gputable import lookup

    ceiling = compute(CONFIGS["gpt-oss-120b"], lookup("H100 SXM").spec, concurrencies=[1, 64], measured={1: 150.0})
    html = render_ceiling(ceiling, "html")
    assert "html" in FORMATS["ceiling"]
    ladder = html.split('id="chart-ladder-c1"', 1)[1].split("</svg>", 1)[0]
    bars = re.findall(r'<rect class="(bar(?: binding)?)" data-ceiling="([^"]+)" data-value="([\d.e+-]+)"', ladder)
    level = ceiling.levels[0]
    assert len(bars) == len(level.ceilings)
    binding = [float(v) for cls, _, v in bars if cls == "bar binding"]
    assert binding == [pytest.approx(level.tokens_per_s, rel=1e-4)]  # the headline ceiling is the highlighted bar
    assert 'id="chart-ladder-c1-measured"' in ladder and "measured 150" in ladder
    assert 'id="chart-ladder-c64"' in html and 'id="chart-ceiling-per-stream"' in html


def test_audit_html_charts_the_measured_rate_against_the_ceiling() -> None:
    rep = report("pcie")
    ceiling = rep.host.get("ceiling_tok_s")
    assert ceiling, "the story scenario has a ceiling"
    assert 'id="chart-ceiling"' in render(rep, "html") and 'chart-ceiling-measured' not in render(rep, "html")
    rep.host["measured"] = {"decode_tok_s": 40.0, "ceiling_tok_s": ceiling, "percent_of_ceiling": 40.0 / ceiling * 100,
                            "line": "Measured: 40 tok/s"}
    html = render(rep, "html")
    assert 'id="chart-ceiling-measured"' in html and "measured 40" in html
    assert 'id="chart-ceiling"' not in render(report("no-gpu"), "html")


def test_audit_html_draws_the_measured_rate_against_the_ceilings_ladder() -> None:
    """Issue 29: a bar per rung (bandwidth, + all-reduce, + launch floor), the last one the headline's figure,
    and the measured rate drawn across them; before, one bar stood for the whole ladder."""
    import re

    rep = report("pcie")
    ladder = rep.host.get("ceiling_ladder")
    assert isinstance(ladder, list) and [r["name"] for r in ladder] == ["bandwidth", "bandwidth+allreduce", "overhead"]
    values = [r["tok_s"] for r in ladder]
    assert values == sorted(values, reverse=True) and values[-1] == rep.host["ceiling_tok_s"]
    rep.host["measured"] = {"decode_tok_s": 40.0, "ceiling_tok_s": values[-1],
                            "percent_of_ceiling": 40.0 / values[-1] * 100, "line": "Measured: 40 tok/s"}
    html = render(rep, "html")
    chart = html[html.index('id="chart-ceiling"'):]
    chart = chart[: chart.index("</svg>")]
    bars = re.findall(r'<rect class="(bar[^"]*)" data-ceiling="([^"]+)" data-value="([^"]+)"', chart)
    assert [label for _, label, _ in bars] == ["bandwidth", "bandwidth+allreduce", "overhead", "measured decode"]
    assert [cls for cls, _, _ in bars][2] == "bar binding"
    assert [float(v) for _, _, v in bars][:3] == pytest.approx(values, abs=0.01)
    assert 'id="chart-ceiling-measured"' in html


def test_audit_format_html_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from report_scenarios import snapshot

    out = tmp_path / "report.html"
    assert main(["audit", "--from", str(snapshot("rtx-pro-6000-lxc")), "--format", "html", "--output", str(out)]) == 0
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count('class="node gpu"') == 8
    assert html.count('class="pair-edge') == 28 and "stackaudit audit --from rtx-pro-6000-lxc.tar.gz" in html


def test_html_lists_waived_results_and_waivers_naming_no_check() -> None:
    from stackaudit.engine.results import Waiver

    rep = report("pcie")
    target = next(r for r in rep.results if r.status == "issue")
    rep.results = [r.with_waiver(Waiver(r.id, "accepted <risk>")) if r is target else r for r in rep.results]
    rep.unused_waivers = [Waiver("KERN-TPH", "a typo")]
    html = render(rep, "html")
    waived = html.split("<h2>Waived</h2>", 1)[1].split("</section>", 1)[0]
    assert f"{target.id} (issue) — waived: accepted &lt;risk&gt;" in waived
    assert "Waivers naming no check" in html and "KERN-TPH" in html and "KERN-THP" in html  # the nearest ID


def test_a_tampered_saved_topology_still_renders() -> None:
    """`stackaudit report` reads a file anyone may have edited: bridges whose parents loop, unknown kinds,
    a pair naming no GPU. The page and the Mermaid block come out; the loop is drawn once."""
    rep = report("no-gpu")
    rep.topology = {
        "bridges": [{"bdf": "A", "kind": "switch", "parent": "B"}, {"bdf": "B", "kind": "weird", "parent": "A"}],
        "gpus": [{"name": "GPU0", "parent": "A"}, {"name": "GPU1", "parent": "B", "numa": 7}],
        "devices": [{"name": "x", "kind": "<b>"}],
        "pairs": [{"a": "GPU0", "b": "GPU9", "kind": "SYS", "cell": "SYS"}, {"a": "GPU0", "b": "GPU1", "kind": "PIX"}],
        "tp_groups": {"size": 2, "basis": "x", "groups": [["GPU0", "GPU1"], "bad"]},
    }
    html = render(rep, "html")
    assert html.count('class="pair-edge') == 1 and 'class="node nic"' in html
    assert "```mermaid" in render(rep, "markdown")
