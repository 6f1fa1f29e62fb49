"""`fleet --format html`: the page from a fleet document built out of hand-made summaries (planted drift, a tie,
an issue every node shares, a failed node, a partial snapshot, and host strings that are markup), parsed as a
browser would; the CLI over real snapshots (tests/fleet_support.py); and one headless Chromium (tests/browser.py)
for the node filter, the toggle, and the page fetching nothing.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import browser
from fleet_support import Node, write_node
from html_scenarios import HOSTILE_NAME
from stackaudit.cli.main import main
from stackaudit.fleet.render import document, exit_code, render
from stackaudit.fleet.summary import CheckState, NodeSummary, Value
from stackaudit.render.formats import FORMATS
from test_report_html import tags
from test_report_html_browser import _only_the_page, _visible

H100 = "NVIDIA H100 80GB HBM3"
AMP = 'node "&" co'  # a node name with quotes and an ampersand
EVIL_VALUE = "570.86.15<script>window.__pwned=3</script>"
EVIL_MESSAGE = 'ACS redirects P2P "through" the root complex & <b>slows</b> it'
SHARED = CheckState("issue", "P1", message=EVIL_MESSAGE)
CROWD = 14  # nodes on the majority driver: more than the page names before "and N more"


def _node(name: str, driver: str = "580.65.06", p0: int = 0, partial: bool = False, sysctl: str = "0",
          gpus: str = "8", model: str = H100) -> NodeSummary:
    checks = {"FW-ACS-P2P": SHARED, "KERN-NUMA-BALANCING": CheckState("ok" if sysctl == "0" else "issue",
                                                                     None if sysctl == "0" else "P2")}
    return NodeSummary(name, inventory={"gpu_model": model, "gpu_count": gpus, "driver": driver,
                                        "kernel": "6.8.0-60-generic", "cpu": "EPYC"},
                       counts={"P0": p0, "P1": 1, "P2": 0 if sysctl == "0" else 1, "unknown": 2, "ok": 40},
                       checks=checks, partial=partial,
                       values={("host", "driver"): Value(driver, driver),
                               ("KERN-NUMA-BALANCING", ""): Value(sysctl, sysctl)})


def _summaries() -> list[NodeSummary]:
    crowd = [_node(f"gpu-{i:02d}") for i in range(CROWD)]
    return [*crowd,
            _node(HOSTILE_NAME, driver=EVIL_VALUE),  # the odd driver, on a node whose name is markup
            _node(AMP, sysctl="1", partial=True),
            _node("gpu-p0", p0=2),  # a P0, no drift: the toggle keeps it
            # two 4-GPU nodes: a group of their own, tied on the driver
            _node("small-a", gpus="4", driver="550.54.15"), _node("small-b", gpus="4"),
            NodeSummary("gpu-dead", error="unreachable: ssh: connect to host 10.0.0.9 port 22: <No route> & gone")]


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return document(_summaries(), "ansible", argv=["fleet", "--inventory", "hosts.ini"], fail_on="drift",
                    generated_at="2026-01-01T00:00:00Z")


@pytest.fixture(scope="module")
def page(doc: dict[str, Any]) -> str:
    return render(doc, "html")


class _Text(HTMLParser):
    """The page's text as a reader sees it (entities decoded), and the tables' rows, cell by cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "table":
            self._table = dict(attrs).get("id") or ""
            self.rows[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.rows[self._table].append([])
        elif tag == "td" and self._table is not None:
            self.rows[self._table][-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.text.append(data)
        if self._table is not None and self.rows[self._table] and self.rows[self._table][-1]:
            self.rows[self._table][-1][-1] += data


def _read(html: str) -> _Text:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser


def test_html_is_a_fleet_format() -> None:
    assert "html" in FORMATS["fleet"]


def test_the_page_has_every_part_in_the_text_reports_order(page: str) -> None:
    order = ['class="verdict"', "<h2>Groups", 'id="nodes-table"', 'id="drift-table-0"', 'id="drift-table-1"',
             'id="shared-table"', 'id="failed-table"', "--fail-on drift:"]
    at = [page.find(part) for part in order]
    assert -1 not in at and at == sorted(at), dict(zip(order, at, strict=True))
    text = " ".join(_read(page).text)
    assert "Verdict: 19 of 20 nodes audited, 1 failed, 4 differences between nodes that should be alike" in text
    assert "Drift within 8× NVIDIA H100 80GB HBM3 (17 nodes): 3" in text and "8× NVIDIA H100 80GB HBM3: 17 nodes" in text
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page


def test_each_planted_difference_is_on_the_page(doc: dict[str, Any], page: str) -> None:
    rows = _read(page).rows
    nodes = {r[0].split(" partial")[0]: r for r in rows["nodes-table"][1:]}
    assert len(nodes) == 19  # one row per audited node
    assert nodes[HOSTILE_NAME][6] == "1" and nodes[HOSTILE_NAME][7] == EVIL_VALUE  # its drift count, its driver
    assert nodes["gpu-p0"][2] == "2" and nodes["gpu-p0"][6] == "0"
    assert nodes[AMP][1].endswith("(partial snapshot)") and nodes[AMP][6] == "2"  # partial marked; status, value
    big = rows["drift-table-0"][1:]
    assert [r[1:] for r in big] == [["driver", EVIL_VALUE, "580.65.06 on 16 others"],
                                    ["KERN-NUMA-BALANCING", "issue P2", "ok on 16 others"],
                                    ["KERN-NUMA-BALANCING", "1", "0 on 16 others"]]
    assert [r[0] for r in big] == [HOSTILE_NAME, AMP, AMP]
    tie = rows["drift-table-1"][1:]  # the 4-GPU pair: no majority, both sides named
    assert tie == [["small-a, small-b", "driver", "550.54.15 on 1 (small-a); 580.65.06 on 1 (small-b)", "no majority"]]
    title = doc["shared"][0]["title"]
    assert title and rows["shared-table"][1:] == [["P1", "FW-ACS-P2P", title, EVIL_MESSAGE]]
    assert rows["failed-table"][1:] == [["gpu-dead", "unreachable: ssh: connect to host 10.0.0.9 port 22: "
                                                     "<No route> & gone"]]


def test_many_nodes_are_named_first_few_then_all_found_by_the_filter(doc: dict[str, Any]) -> None:
    # 9 odd nodes against 10: the odd value names six, "and 3 more"; the text box finds the row by any of the 9.
    split = document([*(_node(f"gpu-{i:02d}", driver="570.86.15") for i in range(9)),
                      *(_node(f"ok-{i:02d}") for i in range(10))], "directory")
    html = render(split, "html")
    row = html.split('<table id="drift-table-0">', 1)[1].split("<tbody>", 1)[1].split("</tr>", 1)[0]
    assert "gpu-05 and 3 more</td>" in row and "580.65.06 on 10 others" in row and "gpu-06" not in row.split(">", 1)[1]
    keys = re.findall(r'data-keys="([^"]+)"', row)
    assert keys == ["\n".join(f"gpu-{i:02d}" for i in range(9))]  # every odd node, each once
    gate = render(doc, "html").split("--fail-on drift:", 1)[1]
    assert gate.startswith(" failed (") and AMP.replace("&", "&amp;").replace('"', "&quot;") in gate


def test_host_strings_stay_text(page: str) -> None:
    seen = tags(page)
    names = [t for t, _ in seen]
    assert names.count("script") == 1 and "img" not in names and names.count("b") == 0
    assert not any(k.startswith("on") for _, attrs in seen for k in attrs)
    assert "<script>window" not in page and "<b>slows" not in page
    rows = [a for t, a in seen if t == "tr" and "data-keys" in a]
    assert {HOSTILE_NAME, AMP} <= {k for a in rows for k in (a["data-keys"] or "").split("\n")}  # names whole
    text = " ".join(_read(page).text)
    assert HOSTILE_NAME in text and EVIL_MESSAGE in text and AMP in text


def test_the_page_fetches_nothing(page: str) -> None:
    for tag, attrs in tags(page):
        assert tag != "link" and "src" not in attrs, (tag, attrs)
        assert not (attrs.get("href") or "#").startswith(("http:", "https:", "//")), (tag, attrs)
    script = page.split("<script>", 1)[1].split("</script>", 1)[0]
    assert "fetch" not in script and "XMLHttpRequest" not in script and "url(" not in page


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet-html")
    for node in (Node("node-01"), Node("node-02", driver="570.86.15"), Node("node-06")):
        write_node(node, str(out / f"{node.hostname}.tar.gz"))
    (out / "node-04.tar.gz").write_bytes(b"<html>502 Bad Gateway</html>\n")
    return out


def test_the_cli_writes_the_page_with_the_exit_code_of_the_other_formats(snapshots: Path, tmp_path: Path) -> None:
    out = tmp_path / "fleet.html"
    code = main(["fleet", "--from", str(snapshots), "--format", "html", "--workers", "2", "--output", str(out)])
    saved = tmp_path / "fleet.json"
    assert main(["fleet", "--from", str(snapshots), "--format", "json", "--workers", "2", "--output", str(saved)]) == code
    assert code == exit_code(json.loads(saved.read_text())) == 1  # node-04 failed
    html = out.read_text()
    rows = _read(html).rows
    assert [r[0] for r in rows["nodes-table"][1:]] == ["node-01", "node-02", "node-06"]
    assert ["node-02", "driver", "570.86.15", "580.65.06 on 2 others"] in rows["drift-table-0"]
    assert [r[0] for r in rows["failed-table"][1:]] == ["node-04"]


def test_in_chromium_the_filter_and_the_toggle_hide_rows(chromium: browser.Browser, page: str, tmp_path: Path) -> None:
    path = tmp_path / "fleet.html"
    path.write_text(page)
    requests = chromium.open(path)
    chromium.js("document.querySelectorAll('details').forEach(function(d){d.open=true;})")
    assert _only_the_page(requests + chromium.requests(), path) == [] and chromium.console_errors() == []
    assert chromium.js("return window.__pwned === undefined")
    nodes, odd, failed = "#nodes-table tbody tr", "[id^=drift-table] tbody tr", "#failed-table tbody tr"
    assert _visible(chromium, nodes) == 19
    assert chromium.js("return document.getElementById('rows-shown').textContent") == "19 of 19 rows shown"

    def type_filter(text: str) -> None:
        box = chromium.driver.find_element("css selector", "#row-filter")
        box.clear()
        if text:
            box.send_keys(text)
        else:  # clear() sends no input event
            chromium.js("document.getElementById('row-filter').dispatchEvent(new Event('input'))")

    def shown() -> list[str]:
        return list(chromium.js(f"return Array.from(document.querySelectorAll('{nodes}')).filter(function(r){{"
                                "return !r.hidden;}).map(function(r){return r.dataset.keys;})"))

    type_filter("GPU-1")  # case-insensitive: gpu-10 … gpu-13
    assert shown() == ["gpu-10", "gpu-11", "gpu-12", "gpu-13"]
    assert _visible(chromium, odd) == 0 and _visible(chromium, failed) == 0
    type_filter('"&"')
    assert _visible(chromium, nodes) == 1 and _visible(chromium, odd) == 2  # AMP's two rows
    type_filter("")
    chromium.click("#row-toggle")
    assert sorted(shown()) == sorted([HOSTILE_NAME, AMP, "gpu-p0"])
    chromium.click("#row-toggle")
    assert _visible(chromium, nodes) == 19 and chromium.console_errors() == []
