"""The HTML report in a real headless Chromium (tests/browser.py): on the 8-GPU PCIe story, an 8-GPU
NVSwitch board and a host with no GPU (tests/html_scenarios.py), the page makes no request and logs no
console error; the filters change what is shown; the SVG has one node per GPU, one edge per GPU pair
with its kind, the switch nodes and the planted fault marks. A screenshot of each page is kept under
the pytest basetemp. The `bench compare` page loads as cleanly. The Markdown's Mermaid blocks parse
with `mermaid.parse` from the npm `mermaid` package (tests/.node, `make test-deps-mermaid`), loaded
from file:// in the same browser.

One browser for the session; the packages are installed by `make test-deps-browser test-deps-mermaid`
(a prerequisite of `make test`), so these skip only where they could not be installed.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

import browser
from html_scenarios import (
    DOWNTRAINED_GPU,
    HOSTILE_NAME,
    LOST_GPU,
    NO_NVLINK_GPU,
    SCENARIOS,
    UP_B,
    report,
    switch_tree_report,
)
from stackaudit.report.render import render
from stackaudit.report.topology import topology_from_json

MERMAID = Path(__file__).resolve().parent / ".node" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


@pytest.fixture(scope="session")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("html-report")
    out = {}
    for name in SCENARIOS:
        out[name] = folder / f"{name}.html"
        out[name].write_text(render(report(name), "html"))
    out["switches"] = folder / "switches.html"
    out["switches"].write_text(render(switch_tree_report(), "html"))
    return out


NETWORK_SCHEMES = ("http:", "https:", "ws:", "wss:", "ftp:")


def _only_the_page(requests: list[dict[str, str]], page: Path) -> list[str]:
    """What the page fetched besides itself, and any network request at all (whoever made it). The
    browser's own chrome:// pages (its start page, loading while the first test runs) are neither."""
    me = page.resolve().as_uri()
    return [r["url"] for r in requests
            if (r["document"] == me and r["url"] != me) or r["url"].startswith(NETWORK_SCHEMES)]


@pytest.mark.parametrize("name", SCENARIOS)
def test_page_fetches_nothing_and_logs_no_error(name: str, chromium: browser.Browser, pages: dict[str, Path],
                                                tmp_path_factory: pytest.TempPathFactory) -> None:
    requests = chromium.open(pages[name])
    assert chromium.js("return document.readyState") == "complete"
    # Open every result and the topology's titles: nothing inside may fetch either.
    chromium.js("document.querySelectorAll('details').forEach(function(d){d.open=true;})")
    if chromium.js("return document.querySelectorAll('button.copy').length"):
        chromium.click("button.copy")  # the copy button works offline too (no error, no request)
    requests += chromium.requests()
    assert _only_the_page(requests, pages[name]) == []
    assert chromium.console_errors() == []
    assert chromium.js("return window.__pwned === undefined")
    shots = tmp_path_factory.getbasetemp() / "screenshots"
    shots.mkdir(exist_ok=True)
    chromium.js("document.querySelectorAll('details').forEach(function(d){d.open=false;})")
    chromium.screenshot(shots / f"{name}.png")
    assert (shots / f"{name}.png").stat().st_size > 10_000


def test_the_check_catches_a_request(chromium: browser.Browser, tmp_path: Path) -> None:
    """The request log is not blind: a page with an image from the network shows its request."""
    page = tmp_path / "fetching.html"
    page.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"></body></html>')
    assert "http://127.0.0.1:9/x.png" in _only_the_page(chromium.open(page), page)


def test_bench_compare_page_fetches_nothing_and_logs_no_error(chromium: browser.Browser, tmp_path: Path) -> None:
    """`bench compare --format html` over a store holding a hostile label and model, a regression
    planted: the page loads with no request, no console error, and no markup from the store run."""
    from stackaudit.bench.render import render_compare
    from test_bench_history_html import HOSTILE_LABEL, compare_report, hostile_store

    page = tmp_path / "compare.html"
    page.write_text(render_compare(compare_report(hostile_store(tmp_path), "1", "2", 0.05), "html"))
    requests = chromium.open(page)
    assert chromium.js("return document.readyState") == "complete"
    assert _only_the_page(requests + chromium.requests(), page) == []
    assert chromium.console_errors() == []
    assert chromium.js("return window.__pwned === undefined && document.scripts.length === 0")
    assert HOSTILE_LABEL in chromium.js("return document.body.innerText")
    assert chromium.js("return document.querySelectorAll('svg.pair-chart rect.regression').length") == 1


def _visible(chromium: browser.Browser, selector: str) -> int:
    return int(chromium.js(f"return Array.from(document.querySelectorAll({json.dumps(selector)}))"
                           ".filter(function(e){return !e.hidden && e.offsetParent !== null;}).length"))


def test_filters_change_what_is_shown(chromium: browser.Browser, pages: dict[str, Path]) -> None:
    chromium.open(pages["pcie"])
    total = _visible(chromium, ".result")
    p2 = _visible(chromium, '.result[data-priority="P2"]')
    ok = _visible(chromium, '.result[data-status="ok"]')
    kern = _visible(chromium, '.result[data-domain="KERN"]')
    assert total > 0 and p2 > 0 and ok > 0 and kern > 0
    chromium.click("#filter-priority-P2")
    assert _visible(chromium, '.result[data-priority="P2"]') == 0 and _visible(chromium, ".result") == total - p2
    chromium.click("#filter-status-ok")
    assert _visible(chromium, ".result") == total - p2 - ok
    assert chromium.js("return document.getElementById('shown').textContent") == f"{total - p2 - ok} of {total} results shown"
    chromium.click("#filter-priority-P2")
    chromium.click("#filter-status-ok")
    chromium.click("#filter-domain-KERN")
    assert _visible(chromium, ".result") == total - kern and _visible(chromium, '.result[data-domain="KERN"]') == 0
    chromium.click("#filter-domain-KERN")
    assert _visible(chromium, ".result") == total
    assert chromium.console_errors() == []


def _svg_facts(chromium: browser.Browser) -> dict[str, object]:
    return dict(chromium.js("""
      var q=function(s){return Array.from(document.querySelectorAll(s));};
      return {
        gpus: q('svg#topology g.node.gpu').map(function(g){return g.dataset.gpu;}),
        lost: q('svg#topology g.node.gpu.lost').map(function(g){return g.dataset.gpu;}),
        pairs: q('svg#topology path.pair-edge').map(function(p){return [p.dataset.a,p.dataset.b,p.dataset.kind];}),
        rootPorts: q('svg#topology g.node.root-port').length,
        switches: q('svg#topology g.node.switch').length,
        nvswitches: q('svg#topology g.node.nvswitch').length,
        nics: q('svg#topology g.node.nic').length,
        faults: q('svg#topology g.fault').map(function(f){return [f.dataset.fault,f.dataset.target];}),
        tp: q('svg#topology g.tp-group').map(function(g){return g.dataset.gpus;}),
        legend: q('svg#topology g.legend-kind').map(function(g){return g.dataset.kind;}),
        drawn: q('svg#topology path.pair-edge').every(function(p){return p.getTotalLength()>0;})
      };"""))


@pytest.mark.parametrize("name", ["pcie", "nvswitch"])
def test_svg_draws_the_topology(name: str, chromium: browser.Browser, pages: dict[str, Path]) -> None:
    chromium.open(pages[name])
    svg = _svg_facts(chromium)
    model = topology_from_json(report(name).topology)
    gpus = [f"GPU{i}" for i in range(8)]
    assert svg["gpus"] == gpus
    pairs = svg["pairs"]
    assert isinstance(pairs, list) and len(pairs) == 28
    assert {(a, b) for a, b, _ in pairs} == set(itertools.combinations(gpus, 2))  # one edge per GPU pair
    assert sorted(map(tuple, pairs)) == sorted((p.a, p.b, p.kind) for p in model.pairs)
    assert svg["legend"] == ["NV", "PIX", "PXB", "PHB", "NODE", "SYS"] and svg["drawn"]
    faults = {tuple(f) for f in svg["faults"]}  # type: ignore[attr-defined]
    if name == "pcie":
        assert {k for _, _, k in pairs} == {"NODE", "SYS"} and svg["rootPorts"] == 8 and svg["nvswitches"] == 0
        assert svg["lost"] == [LOST_GPU]
        assert ("lost", LOST_GPU) in faults and ("downtrained", DOWNTRAINED_GPU) in faults
        assert sum(k == "acs-redirect" for k, _ in faults) == 8
        assert svg["tp"] == [",".join(gpus)]
    else:
        assert svg["nvswitches"] == 4 and svg["nics"] == 8 and svg["rootPorts"] == 12
        assert sum(k == "NV" for _, _, k in pairs) == 21
        missing = {t for k, t in faults if k == "missing-nvlink"}
        assert NO_NVLINK_GPU in missing and sum("-" in t for t in missing) == 7
        assert len(svg["tp"]) == 2  # type: ignore[arg-type]


def test_svg_draws_pcie_switches(chromium: browser.Browser, pages: dict[str, Path]) -> None:
    requests = chromium.open(pages["switches"])
    assert _only_the_page(requests, pages["switches"]) == [] and chromium.console_errors() == []
    svg = _svg_facts(chromium)
    assert svg["switches"] == 2 and svg["rootPorts"] == 1 and svg["nics"] == 1
    assert sorted(k for _, _, k in svg["pairs"]) == ["PIX", "PIX", "PXB", "PXB", "PXB", "PXB"]  # type: ignore[union-attr]
    assert svg["faults"] == [["acs-redirect", UP_B]]


def test_no_gpu_page_says_so(chromium: browser.Browser, pages: dict[str, Path]) -> None:
    chromium.open(pages["no-gpu"])
    assert chromium.js("return document.querySelectorAll('svg#topology').length") == 0
    assert chromium.js("return document.getElementById('no-topology').innerText").startswith("No GPU")
    assert HOSTILE_NAME in chromium.js("return document.body.innerText")  # shown, as text
    assert chromium.js("return document.querySelectorAll('img').length") == 0
    assert chromium.js("return document.scripts.length") == 1


def test_priority_badges_are_coloured_and_faults_link_to_their_findings(chromium: browser.Browser,
                                                                        pages: dict[str, Path]) -> None:
    chromium.open(pages["pcie"])
    seen = chromium.js("""
      function bg(e){return getComputedStyle(e).backgroundColor;}
      var q=function(s){return Array.from(document.querySelectorAll(s));};
      return {badges: q('details.finding span.badge').map(function(b){return [b.textContent, bg(b)];}),
              links: q('a[href^="#result-"]').map(function(a){
                return document.getElementById(a.getAttribute('href').slice(1))!==null;})};""")
    colours = dict(map(tuple, seen["badges"]))  # type: ignore[call-overload]
    assert colours.get("P1") == "rgb(194, 65, 12)" and colours.get("P2") == "rgb(161, 98, 7)", colours
    assert seen["links"] and all(seen["links"])  # type: ignore[call-overload]  # each fault's finding is on the page


def _mermaid_page(tmp_path: Path) -> Path:
    page = tmp_path / "mermaid.html"
    page.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><script src="{MERMAID.as_uri()}"></script>'
                    "</head><body></body></html>")
    return page


def _parse(chromium: browser.Browser, text: str) -> dict[str, object]:
    return dict(chromium.js_async("""
      var done=arguments[arguments.length-1];
      try{mermaid.initialize({startOnLoad:false});
        Promise.resolve(mermaid.parse(arguments[0])).then(function(r){done({ok:!!r,type:r&&r.diagramType});},
          function(e){done({ok:false,error:String(e&&e.message||e)});});}
      catch(e){done({ok:false,error:String(e)});}""", text))


def test_mermaid_blocks_parse(chromium: browser.Browser, tmp_path: Path) -> None:
    if not MERMAID.exists():
        pytest.skip("npm mermaid is not installed in tests/.node (make test-deps-mermaid)")
    page = _mermaid_page(tmp_path)
    requests = chromium.open(page)
    mine = [r["url"] for r in requests if r["document"] == page.resolve().as_uri()]
    assert MERMAID.as_uri() in mine and all(u.startswith("file://") for u in mine)  # mermaid, from file://
    assert not [r for r in requests if r["url"].startswith(NETWORK_SCHEMES)]
    assert chromium.js("return typeof mermaid") == "object"
    for name in ("pcie", "nvswitch"):
        md = render(report(name), "markdown")
        block = md.split("```mermaid\n", 1)[1].split("```", 1)[0]
        parsed = _parse(chromium, block)
        assert parsed == {"ok": True, "type": "flowchart-v2"}, (name, parsed)
    broken = _parse(chromium, "graph TD\n  A[\"open --> \n")
    assert broken["ok"] is False  # the parser does reject a broken block
