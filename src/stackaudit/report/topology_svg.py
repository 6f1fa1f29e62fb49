"""The topology as inline SVG (the HTML report) and as a Mermaid `graph` (the Markdown report).

Layout: one row per tree level (root ports, PCIe switches, then GPUs, NICs and NVSwitches), each
socket's devices side by side inside its box; under the GPU row one arc per GPU pair, coloured by its
kind; fault marks on the node or arc they concern; each recommended TP group outlined. Stable ids,
classes and data- attributes (`node-gpu-GPU0`, `pair-GPU0-GPU1` with `data-kind`, `fault` with
`data-fault`) let tests and users find each element.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackaudit.facts.machine_topology import Device, Gpu, MachineTopology
from stackaudit.render.escape import esc as escape
from stackaudit.report.topology import Fault

# The style its drawings need, on whichever page shows them.
TOPOLOGY_CSS = """
svg text{font-family:system-ui,sans-serif}.topology-wrap,.charts{overflow-x:auto}
svg.topology .socket rect{fill:#f8fafc;stroke:#cbd5e1}svg.topology .socket-label{font-size:11px;fill:#475569}
svg.topology .node rect{fill:#fff;stroke:#334155}
svg.topology .gpu rect{fill:#ecfdf5;stroke:#047857;stroke-width:1.5}
svg.topology .gpu.lost rect{fill:#fee2e2;stroke:#b91c1c;stroke-dasharray:4 2}svg.topology .nic rect{fill:#eff6ff}
svg.topology .nvswitch rect{fill:#f0fdf4}svg.topology .switch rect{fill:#f5f3ff}
svg.topology .node-name{font-size:11px;font-weight:600}
svg.topology .node-kind,svg.topology .node-detail{font-size:9.5px;fill:#475569}
svg.topology .tree-edge{stroke:#94a3b8;stroke-width:1.2}
svg.topology .pair-edge{fill:none;stroke-width:1.6;opacity:.8}svg.topology .pair-edge.kind-NV{stroke-width:2.4}
svg.topology .tp-group rect{fill:none;stroke:#7c3aed;stroke-width:1.5;stroke-dasharray:6 3}
svg.topology .tp-label{font-size:11px;fill:#6d28d9}
svg.topology .fault circle,.fault-dot{fill:#dc2626;stroke:#fff;stroke-width:1.5}
svg.topology .fault text{fill:#fff;font-size:11px;font-weight:700}svg.topology .legend text{font-size:11px}
svg.topology .legend-note{fill:#64748b}
"""

KIND_COLORS = {"NV": "#16a34a", "PIX": "#2563eb", "PXB": "#0891b2", "PHB": "#9333ea", "NODE": "#ea580c",
               "SYS": "#dc2626"}
KIND_WORDS = {"NV": "NVLink (NV#: bonded links)", "PIX": "one PCIe switch", "PXB": "several PCIe switches",
              "PHB": "a PCIe host bridge", "NODE": "host bridges within a NUMA node",
              "SYS": "across sockets (UPI/xGMI)"}
FAULT_WORDS = {"acs-redirect": "ACS redirect", "downtrained": "downtrained link", "lost": "lost GPU",
               "missing-nvlink": "missing NVLink"}
_SLOT, _NODE_W, _NODE_H = 104, 96, 34
_ROW = {"root-port": 60, "switch": 120}


def safe_id(text: str) -> str:
    """An id fragment of letters, digits and dashes (a BDF's `:` and `.` become `-`)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "x"


def node_id(kind: str, name: str) -> str:
    return f"node-{kind}-{safe_id(name)}"


def _leaves(t: MachineTopology) -> list[Gpu | Device]:
    """GPUs, NICs and NVSwitches in drawing order: by socket, then by the bridge they hang on."""
    items: list[Gpu | Device] = [*t.gpus, *t.devices]
    order = {b.bdf: i for i, b in enumerate(t.bridges)}

    def root(x: Gpu | Device) -> str:
        seen: set[str] = set()
        cur = x.parent
        by_bdf = {b.bdf: b for b in t.bridges}
        while cur in by_bdf and by_bdf[cur].parent and cur not in seen:
            seen.add(cur)
            cur = by_bdf[cur].parent
        return cur

    def key(x: Gpu | Device) -> tuple[int, int, int, int, str]:
        kind = 0 if isinstance(x, Gpu) else 1
        return (x.numa if x.numa is not None else 1 << 20, order.get(root(x), 1 << 20),
                order.get(x.parent, 1 << 20), kind, x.name)

    return sorted(items, key=key)


def render_svg(t: MachineTopology, found: Sequence[Fault]) -> str:
    leaves = _leaves(t)
    if not leaves and not t.bridges:
        return ""
    has_switch = any(b.kind == "switch" for b in t.bridges)
    leaf_y = (180 if has_switch else 120) if t.bridges else 60
    x_of: dict[str, float] = {}
    for i, leaf in enumerate(leaves):
        x_of[("gpu:" if isinstance(leaf, Gpu) else "dev:") + leaf.name] = 20 + _SLOT * i + _SLOT / 2
    # Bridges sit over the mean of their children (a bridge without children: after the last leaf).
    by_bdf = {b.bdf: b for b in t.bridges}
    children: dict[str, list[float]] = {}
    for leaf in leaves:
        key = ("gpu:" if isinstance(leaf, Gpu) else "dev:") + leaf.name
        cur, x = leaf.parent, x_of[key]
        climbed: set[str] = set()
        while cur and cur not in climbed:  # a saved report's parents may loop: each bridge once
            climbed.add(cur)
            children.setdefault(cur, []).append(x)
            cur = by_bdf[cur].parent if cur in by_bdf else ""
    spare = 20 + _SLOT * len(leaves) + _SLOT / 2
    for b in t.bridges:
        xs = children.get(b.bdf)
        if xs:
            x_of["br:" + b.bdf] = sum(xs) / len(xs)
        else:
            x_of["br:" + b.bdf] = spare
            spare += _SLOT
    width = max(int(max([*x_of.values(), 0.0]) + _SLOT / 2 + 20), 480)
    gpu_x = {g.name: x_of["gpu:" + g.name] for g in t.gpus}
    gpu_order = [leaf.name for leaf in leaves if isinstance(leaf, Gpu)]
    pos = {name: i for i, name in enumerate(gpu_order)}
    arc_base = leaf_y + _NODE_H / 2 + 4
    max_span = max((abs(pos[p.a] - pos[p.b]) for p in t.pairs if p.a in pos and p.b in pos), default=0)
    arcs_bottom = arc_base + (24 + 16 * max_span if t.pairs else 0)
    tp_pad = 16 * (len(t.tp.groups) if t.tp else 0)
    legend_y = arcs_bottom + 24 + tp_pad
    height = int(legend_y + 60)
    out = [f'<svg id="topology" class="topology" role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" xmlns="http://www.w3.org/2000/svg" data-gpus="{len(t.gpus)}" '
           f'data-pairs="{len(t.pairs)}"><title>Topology: {len(t.gpus)} GPUs, {len(t.bridges)} PCIe bridges'
           f"</title>"]
    # Sockets: a box around the devices of each NUMA node.
    for s in t.sockets:
        xs = [x_of[("gpu:" if isinstance(leaf, Gpu) else "dev:") + leaf.name] for leaf in leaves if leaf.numa == s.node]
        xs += [x_of["br:" + b.bdf] for b in t.bridges if b.numa == s.node]
        if not xs:
            continue
        x0, x1 = min(xs) - _SLOT / 2 + 4, max(xs) + _SLOT / 2 - 4
        cpus = f" · CPUs {s.cpus}" if s.cpus else ""
        out.append(f'<g id="socket-{s.node}" class="socket" data-node="{s.node}"><rect x="{x0:.0f}" y="8" '
                   f'width="{x1 - x0:.0f}" height="{leaf_y + _NODE_H / 2 + 6 - 8:.0f}" rx="10"/>'
                   f'<text x="{x0 + 8:.0f}" y="24" class="socket-label">NUMA node {s.node}{escape(cpus)}</text></g>')
    # Tree edges, then the nodes over them.
    for leaf in leaves:
        key = ("gpu:" if isinstance(leaf, Gpu) else "dev:") + leaf.name
        if leaf.parent in by_bdf:
            px, py = x_of["br:" + leaf.parent], _ROW[by_bdf[leaf.parent].kind]
            out.append(f'<line class="tree-edge" x1="{x_of[key]:.1f}" y1="{leaf_y - _NODE_H / 2}" x2="{px:.1f}" '
                       f'y2="{py + 13}"/>')
    for b in t.bridges:
        if b.parent in by_bdf:
            out.append(f'<line class="tree-edge" x1="{x_of["br:" + b.bdf]:.1f}" y1="{_ROW[b.kind] - 13}" '
                       f'x2="{x_of["br:" + b.parent]:.1f}" y2="{_ROW[by_bdf[b.parent].kind] + 13}"/>')
    marks: dict[str, list[Fault]] = {}
    for f in found:
        marks.setdefault(f.target, []).append(f)
    mark_xy: list[tuple[float, float, Fault]] = []
    for b in t.bridges:
        x, y = x_of["br:" + b.bdf], _ROW[b.kind]
        word = "root port" if b.kind == "root-port" else "PCIe switch"
        ports = f" (ports {', '.join(b.ports)})" if b.ports else ""
        out.append(f'<g id="{node_id(b.kind, b.bdf)}" class="node {b.kind}" data-bdf="{escape(b.bdf)}">'
                   f'<rect x="{x - _NODE_W / 2:.1f}" y="{y - 13}" width="{_NODE_W}" height="26" rx="4"/>'
                   f'<text x="{x:.1f}" y="{y - 1}" text-anchor="middle" class="node-kind">{word}</text>'
                   f'<text x="{x:.1f}" y="{y + 10}" text-anchor="middle" class="node-name">{escape(b.bdf)}</text>'
                   f"<title>{word} {escape(b.bdf)}{escape(ports)}</title></g>")
        mark_xy += [(x + _NODE_W / 2 - 4, y - 13, f) for f in marks.get(b.bdf, [])]
    for leaf in leaves:
        key = ("gpu:" if isinstance(leaf, Gpu) else "dev:") + leaf.name
        x, y = x_of[key], leaf_y
        if isinstance(leaf, Gpu):
            cls = "node gpu" + (" lost" if leaf.lost else "")
            detail = " · ".join(v for v in (leaf.model, leaf.bdf, leaf.link) if v)
            out.append(f'<g id="{node_id("gpu", leaf.name)}" class="{cls}" data-gpu="{escape(leaf.name)}" '
                       f'data-bdf="{escape(leaf.bdf)}"><rect x="{x - _NODE_W / 2:.1f}" y="{y - _NODE_H / 2}" '
                       f'width="{_NODE_W}" height="{_NODE_H}" rx="6"/><text x="{x:.1f}" y="{y - 2}" '
                       f'text-anchor="middle" class="node-name">{escape(leaf.name)}</text><text x="{x:.1f}" '
                       f'y="{y + 11}" text-anchor="middle" class="node-detail">{escape(leaf.link or leaf.bdf)}</text>'
                       f"<title>{escape(leaf.name)}: {escape(detail)}{escape(' · LOST: ' + leaf.lost) if leaf.lost else ''}"
                       "</title></g>")
            mark_xy += [(x + _NODE_W / 2 - 4, y - _NODE_H / 2, f) for f in marks.get(leaf.name, [])]
        else:
            word = "NVSwitch" if leaf.kind == "nvswitch" else "NIC"
            label = leaf.label or leaf.bdf or leaf.name
            out.append(f'<g id="{node_id(leaf.kind, leaf.name)}" class="node {leaf.kind}" data-bdf="{escape(leaf.bdf)}">'
                       f'<rect x="{x - _NODE_W / 2:.1f}" y="{y - 13}" width="{_NODE_W}" height="26" rx="13"/>'
                       f'<text x="{x:.1f}" y="{y - 1}" text-anchor="middle" class="node-kind">{word}</text>'
                       f'<text x="{x:.1f}" y="{y + 10}" text-anchor="middle" class="node-name">{escape(label)}</text>'
                       f"<title>{word} {escape(leaf.name)} {escape(leaf.bdf)}</title></g>")
    # One arc per GPU pair, under the GPU row, deeper the farther apart the two are drawn.
    for p in t.pairs:
        if p.a not in gpu_x or p.b not in gpu_x:
            continue
        xa, xb = gpu_x[p.a], gpu_x[p.b]
        depth = 24 + 16 * abs(pos[p.a] - pos[p.b])
        mid = (xa + xb) / 2
        pair = f"{p.a}-{p.b}"
        out.append(f'<path id="pair-{safe_id(pair)}" class="pair-edge kind-{p.kind}" data-a="{escape(p.a)}" '
                   f'data-b="{escape(p.b)}" data-kind="{p.kind}" data-cell="{escape(p.cell)}" '
                   f'd="M{xa:.1f},{arc_base:.1f} Q{mid:.1f},{arc_base + 2 * depth:.1f} {xb:.1f},{arc_base:.1f}" '
                   f'stroke="{KIND_COLORS[p.kind]}"><title>{escape(p.a)} ↔ {escape(p.b)}: {escape(p.cell)}</title></path>')
        mark_xy += [(mid, arc_base + depth, f) for f in marks.get(pair, [])]
    # TP groups: a dashed outline around each group's GPUs.
    if t.tp:
        for n, group in enumerate(t.tp.groups):
            xs = [gpu_x[g] for g in group if g in gpu_x]
            if not xs:
                continue
            x0, x1 = min(xs) - _NODE_W / 2 - 5 - n % 2 * 3, max(xs) + _NODE_W / 2 + 5 + n % 2 * 3
            y0 = leaf_y - _NODE_H / 2 - 6 - n % 2 * 3
            members = ",".join(group)
            out.append(f'<g class="tp-group" id="tp-group-{n}" data-gpus="{escape(members)}" data-size="{t.tp.size}">'
                       f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{_NODE_H + 12 + n % 2 * 6}" '
                       f'rx="8"/><text x="{x0 + 4:.1f}" y="{arcs_bottom + 18 + 16 * n:.1f}" class="tp-label">'
                       f"TP{t.tp.size} group {n + 1} ({escape(t.tp.basis)}): {escape(members)}</text></g>")
    for mx, my, f in mark_xy:
        out.append(f'<g class="fault fault-{f.kind}" data-fault="{f.kind}" data-target="{escape(f.target)}" '
                   f'data-check="{escape(f.check)}"><circle cx="{mx:.1f}" cy="{my:.1f}" r="8"/><text x="{mx:.1f}" '
                   f'y="{my + 4:.1f}" text-anchor="middle">!</text><title>{escape(FAULT_WORDS[f.kind])}: '
                   f"{escape(f.text)}{escape(' (' + f.check + ')') if f.check else ''}</title></g>")
    # Legend: the edge kinds drawn, then the fault marks.
    lx = 20.0
    out.append(f'<g class="legend" transform="translate(0 {legend_y:.0f})">')
    for kind, color in KIND_COLORS.items():
        out.append(f'<g class="legend-kind" data-kind="{kind}"><line x1="{lx:.0f}" x2="{lx + 24:.0f}" y1="0" y2="0" '
                   f'stroke="{color}" stroke-width="3"/><text x="{lx + 28:.0f}" y="4">{kind}</text>'
                   f"<title>{escape(KIND_WORDS[kind])}</title></g>")
        lx += 80
    out.append(f'<g class="legend-fault"><circle cx="{lx + 8:.0f}" cy="0" r="7" class="fault-dot"/>'
               f'<text x="{lx + 20:.0f}" y="4">finding (hover for which)</text></g>')
    out.append(f'<text x="20" y="28" class="legend-note">GPU pairs from {escape(t.pairs_from or "no source")}; '
               "a dashed outline is a recommended TP group</text></g></svg>")
    return "".join(out)


def _mermaid_label(text: str) -> str:
    """Text a Mermaid label can hold whatever the host said: letters, digits and a few marks only."""
    return re.sub(r"[^A-Za-z0-9 .,:/()+_×-]", " ", text)[:80].strip() or "?"


def mermaid_lines(t: MachineTopology, found: Sequence[Fault]) -> list[str]:
    """A Mermaid `graph` of the same picture: sockets as subgraphs, the PCI tree as arrows, one labelled
    link per GPU pair coloured by kind, fault nodes and links outlined in red."""
    by_numa: dict[int | None, list[str]] = {}
    ids: dict[str, str] = {}
    lines = ["graph TD"]
    for b in t.bridges:
        ids["br:" + b.bdf] = ("rp_" if b.kind == "root-port" else "sw_") + safe_id(b.bdf).replace("-", "_")
    for g in t.gpus:
        ids["gpu:" + g.name] = safe_id(g.name).replace("-", "_")
    for d in t.devices:
        ids["dev:" + d.name] = ("nvs_" if d.kind == "nvswitch" else "nic_") + safe_id(d.name).replace("-", "_")
    decl: dict[str, str] = {}
    for b in t.bridges:
        word = "root port" if b.kind == "root-port" else "PCIe switch"
        decl["br:" + b.bdf] = f'{ids["br:" + b.bdf]}["{word} {_mermaid_label(b.bdf)}"]'
        by_numa.setdefault(b.numa, []).append("br:" + b.bdf)
    for g in t.gpus:
        detail = _mermaid_label(g.link or g.bdf) if (g.link or g.bdf) else ""
        decl["gpu:" + g.name] = f'{ids["gpu:" + g.name]}["{_mermaid_label(g.name)}' + (f" {detail}" if detail else "") + '"]'
        by_numa.setdefault(g.numa, []).append("gpu:" + g.name)
    for d in t.devices:
        word = "NVSwitch" if d.kind == "nvswitch" else "NIC"
        decl["dev:" + d.name] = f'{ids["dev:" + d.name]}(["{word} {_mermaid_label(d.label or d.bdf or d.name)}"])'
        by_numa.setdefault(d.numa, []).append("dev:" + d.name)
    for numa, keys in sorted(by_numa.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        if numa is None:
            lines += [f"  {decl[k]}" for k in keys]
            continue
        lines.append(f'  subgraph numa{numa}["NUMA node {numa}"]')
        lines += [f"    {decl[k]}" for k in keys]
        lines.append("  end")
    by_bdf = {b.bdf for b in t.bridges}
    for b in t.bridges:
        if b.parent in by_bdf:
            lines.append(f'  {ids["br:" + b.parent]} --> {ids["br:" + b.bdf]}')
    for g in t.gpus:
        if g.parent in by_bdf:
            lines.append(f'  {ids["br:" + g.parent]} --> {ids["gpu:" + g.name]}')
    for d in t.devices:
        if d.parent in by_bdf:
            lines.append(f'  {ids["br:" + d.parent]} --> {ids["dev:" + d.name]}')
    first_pair = sum(1 for x in lines if " --> " in x)  # linkStyle counts the links in declaration order
    styles: list[str] = []
    fault_pairs = {f.target for f in found if "-" in f.target and f.target.startswith("GPU")}
    for n, p in enumerate(q for q in t.pairs if "gpu:" + q.a in ids and "gpu:" + q.b in ids):
        lines.append(f'  {ids["gpu:" + p.a]} ---|{_mermaid_label(p.cell)}| {ids["gpu:" + p.b]}')
        width = "3px" if f"{p.a}-{p.b}" in fault_pairs else "1px"
        styles.append(f"  linkStyle {first_pair + n} stroke:{KIND_COLORS[p.kind]},stroke-width:{width}")
    lines += styles
    faulty = sorted({ids[k] for f in found for k in (f"gpu:{f.target}", f"br:{f.target}") if k in ids})
    if faulty:
        lines.append("  classDef fault stroke:#dc2626,stroke-width:3px")
        lines.append(f"  class {','.join(faulty)} fault")
    return lines
