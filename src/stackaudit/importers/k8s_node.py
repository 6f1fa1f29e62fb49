"""A Kubernetes node's description (`kubectl describe node`, `kubectl get node -o yaml|json`, `kubectl get nodes -o
wide`; facts/k8s_node.py),
recorded verbatim as the pasted document K8S_NODE."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts._parse import ParseError
from stackaudit.facts.k8s_node import (
    BARE_LABEL,
    DESCRIBE_NAME,
    GFD_GPU_LABELS,
    HAMI_KEY,
    INSTANCE_TYPE_LABELS,
    MAX_NODE_LINES,
    WIDE_HEAD,
    hami_registered,
    parse_k8s_nodes,
)
from stackaudit.facts.platform import cloud_instances
from stackaudit.facts.sources import K8S_NODE, USER_MACHINE
from stackaudit.importers._scan import FENCE, Candidates, candidate_lines
from stackaudit.importers.registry import Found, applied_each, document_appended, importer

# The headers `kubectl describe node` prints at the margin, in its order.
DESCRIBE_HEADER = re.compile(r"^(?:Name|Roles|Labels|Annotations|CreationTimestamp|Taints|Unschedulable|Lease|"
                             r"Conditions|Addresses|Capacity|Allocatable|System Info|PodCIDRs?|ProviderID|"
                             r"Non-terminated Pods|Allocated resources|Events):(?:\s|$)")
# The top-level keys of a node object (YAML or JSON), and a JSON object's braces.
OBJECT_KEY = re.compile(r"^(?:[\"']?(?:apiVersion|kind|metadata|spec|status|items)[\"']?\s*:|[{}\]\[],?\s*$)")
# The lines that start a node's resources: describe's `Capacity:` / `Allocatable:`, the object's `capacity:`.
RESOURCES_HEAD = re.compile(r"^\s*[\"']?(?:Capacity|Allocatable|capacity|allocatable)[\"']?\s*:\s*\{?\s*$")
# describe's `Allocated resources:` table pasted alone, cut out of its node (NVIDIA/k8s-device-plugin#213): it is read
# where its rows list an nvidia.com resource.
ALLOCATED_HEAD = re.compile(r"^\s*Allocated resources:\s*$")
# describe's label lines pasted alone, without the node's name (vllm-project/vllm#3564, corpus 2125): read where they
# hold GFD_GPU_LEAST of GFD's labels of the GPUs and driver, which no pod's node selector lists so many of.
GFD_GPU_LEAST = 2
# The resources that make a `capacity:` block a node's (a volume's capacity holds `storage` alone).
_NODE_RESOURCES = re.compile(r"^(?:pods|nvidia\.com/[\w.-]+)$")


def _node_line(line: str) -> bool:
    """Whether a line may belong to a node's description: indented, or a header at the margin of describe's or of
    the object's."""
    if not line.strip() or FENCE.match(line):
        return False
    return line[0].isspace() or DESCRIBE_HEADER.match(line) is not None or OBJECT_KEY.match(line) is not None


def _gfd_label(line: str) -> bool:
    """Whether a line is one of GFD's node labels alone (`  nvidia.com/gpu.count=1`), as describe's Labels show it."""
    m = BARE_LABEL.match(line)
    return m is not None and m.group("key") in GFD_GPU_LABELS


def _describe_start(lines: list[str], i: int) -> bool:
    """Whether line i is `Name: <node>` with describe's Roles or Labels right after it."""
    return DESCRIBE_NAME.match(lines[i]) is not None and any(
        re.match(r"^(?:Roles|Labels):", x) for x in lines[i + 1:i + 3])


@importer("k8s node", "a Kubernetes node's description: `kubectl describe node` (Name: with Roles: or Labels: after "
          "it; a Capacity: or Allocatable: section), or the node object's capacity / allocatable (`kubectl get node "
          "-o yaml`, `-o json`) listing pods or an nvidia.com resource, or describe's Allocated resources table alone "
          "listing an nvidia.com resource, or describe's label lines alone holding GPU feature discovery's labels of the GPU "
          "and driver (`nvidia.com/gpu.count=1`), or a node's annotations holding HAMi's register of its GPUs "
          "(`hami.io/node-nvidia-register`), or `kubectl get nodes -o wide` (its header and the rows under it)",
          needles=("Name:", "Capacity", "Allocatable", "Allocated resources", "nvidia.com/", "KERNEL-VERSION",
                   "hami.io/node-nvidia-register"),
          per_line=True)
def k8s_node(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        if i >= taken and WIDE_HEAD.match(lines[i]):
            # `kubectl get nodes -o wide`: its header and the rows under it, up to a blank line or a fence.
            end = i + 1
            while end < len(lines) and end - i < MAX_NODE_LINES and lines[end].strip() and not FENCE.match(lines[end]):
                end += 1
            text = "\n".join(lines[i:end]) + "\n"
            try:
                parse_k8s_nodes(text)
            except ParseError:
                continue
            yield Found("k8s node", i, end, document_appended(K8S_NODE.name, text))
            taken = end
            continue
        if i < taken or not (_describe_start(lines, i) or RESOURCES_HEAD.match(lines[i])
                                      or ALLOCATED_HEAD.match(lines[i]) or _gfd_label(lines[i])
                                      or HAMI_KEY.search(lines[i])):
            continue
        start = i
        while start > max(taken, i - MAX_NODE_LINES) and _node_line(lines[start - 1]) \
                and not _describe_start(lines, start):
            start -= 1
        end = i + 1
        while end < len(lines) and end - start < MAX_NODE_LINES and _node_line(lines[end]) \
                and not (end > i and _describe_start(lines, end)):
            end += 1
        text = "\n".join(lines[start:end]) + "\n"
        try:
            nodes = parse_k8s_nodes(text).nodes
        except ParseError:
            continue
        if not (_describe_start(lines, start) or any(_NODE_RESOURCES.match(e.key) for n in nodes
                                                     for e in (*n.capacity, *n.allocatable, *n.requested))
                or any(len({e.key for e in n.labels} & GFD_GPU_LABELS) >= GFD_GPU_LEAST for n in nodes)
                or (len(nodes) == 1 and hami_registered(text) is not None)):
            continue
        # The cloud's instance type label names the machine as the user's words would (`g4dn.2xlarge`: one T4 in a
        # Nitro VM, facts/platform.py), recorded beside them.
        typed = [e.line for n in nodes for e in n.labels if e.key in INSTANCE_TYPE_LABELS and cloud_instances(e.value)]
        apply = document_appended(K8S_NODE.name, text)
        if typed:
            apply = applied_each(apply, document_appended(USER_MACHINE.name, typed[0] + "\n"))
        yield Found("k8s node", start, end, apply)
        taken = end
