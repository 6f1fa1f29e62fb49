"""A device plugin's time-slicing config: how many pods it lets share each GPU.

The NVIDIA device plugin (and the GPU Operator, which hands it the config from a ConfigMap or Helm values) advertises
each GPU `replicas` times under `sharing.timeSlicing.resources`: `replicas: 4` offers four nvidia.com/gpu per GPU, and
up to four pods then share its memory and SMs in turns, with no memory or fault isolation between them
(https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html). The config is YAML (Helm
values, the ConfigMap's data) or JSON (the plugin's `Running with config:` dump); `timeSlicing: {}` shares nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import fact, parser, union
from stackaudit.facts.sources import TIME_SLICING, USER_MACHINE

# The section's head, YAML or JSON (`timeSlicing:`, `"timeSlicing": {`).
TIME_SLICING_HEAD = re.compile(r"^(?P<indent>\s*)[\"']?timeSlicing[\"']?\s*:")
_REPLICAS = re.compile(r"^\s*(?:-\s*)?[\"']?replicas[\"']?\s*:\s*[\"']?(\d+)")
_NAME = re.compile(r"^\s*(?:-\s*)?[\"']?name[\"']?\s*:\s*[\"']?([\w./-]+)")
CONFIG_BY = "the device plugin's time-slicing config"
VGPU_VMS_BY = "the vGPU setup the user describes"
# The user's words that several VMs run on vGPUs of one physical GPU (`Two vGPU VMs using the same t4 graphics card`,
# corpus 2830). NVIDIA vGPU's time-sliced profiles give each VM a fixed slice of the board's memory and its SMs in
# turns (the scheduler's time slices: https://docs.nvidia.com/vgpu/latest/grid-vgpu-user-guide/index.html), so each
# VM is one more tenant of that GPU. A count, the VMs, vGPU and the one GPU they share, in one clause.
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_VGPU_VMS = re.compile(r"\b(?P<n>two|three|four|five|six|seven|eight|[2-9]|[1-9]\d)\s+vGPU\s+(?:VMs|virtual machines)\s+"
                       r"(?:(?:are\s+)?(?:using|on|sharing|share|with))\s+(?:the\s+)?same\s+(?:[\w-]+\s+){0,3}?"
                       r"(?:GPU|graphics\s+card|card|board)\b", re.IGNORECASE)


def stated_vgpu_vms(line: str) -> int:
    """How many VMs a line of the user's words says run on vGPUs of one GPU (_VGPU_VMS); 0 where it says none. A
    question states nothing.

    >>> stated_vgpu_vms("Two vGPU VMs using the same t4 graphics card, accessing each other using an Ethernet network")
    2
    """
    m = _VGPU_VMS.search(line) if "?" not in line else None
    if m is None:
        return 0
    n = m.group("n").lower()
    return _NUMBERS[n] if n in _NUMBERS else int(n)
MAX_SECTION_LINES = 40  # a section lists a few resources; a longer run is another document's


def section_end(lines: Sequence[str], i: int) -> int:
    """The end (exclusive) of the time-slicing section whose head is line i, where it sets a resource's `replicas`;
    0 where line i is no such head. The section is the lines indented deeper than its head."""
    m = TIME_SLICING_HEAD.match(lines[i])
    if m is None:
        return 0
    depth = len(m.group("indent").expandtabs())
    end = i + 1
    while end < len(lines) and end - i <= MAX_SECTION_LINES:
        line = lines[end]
        if line.strip() and len(line.expandtabs()) - len(line.expandtabs().lstrip()) <= depth:
            break
        end += 1
    return end if any(_REPLICAS.match(line) for line in lines[i + 1:end]) else 0


@dataclass(frozen=True)
class TimeSlicing:
    resources: tuple[tuple[str, int], ...]  # (the resource's name, its replicas), in order
    lines: tuple[str, ...]  # the section's lines that say so (each `name` and `replicas`), stripped
    # What offers the GPUs so: the device plugin's time-slicing config, or a GPU-sharing scheduler's register of the
    # node's GPUs (HAMi's, facts/k8s_node.hami_entries: each GPU's split count).
    by: str = CONFIG_BY

    @property
    def shared(self) -> tuple[tuple[str, int], ...]:
        """The resources whose GPUs are offered more than once (replicas > 1)."""
        return tuple((n, r) for n, r in self.resources if r > 1)

    @classmethod
    def union(cls, parts: list[TimeSlicing]) -> TimeSlicing:
        return cls(tuple(dict.fromkeys(r for p in parts for r in p.resources)),
                   tuple(dict.fromkeys(line for p in parts for line in p.lines)),
                   " and ".join(dict.fromkeys(p.by for p in parts)))


def parse_time_slicing(text: str) -> TimeSlicing:
    """The resources a time-slicing section names with their replicas; ParseError where none sets `replicas`."""
    lines = text.splitlines()
    resources: list[tuple[str, int]] = []
    said: list[str] = []
    name = "nvidia.com/gpu"  # the plugin's default resource
    for line in lines:
        if n := _NAME.match(line):
            name = n.group(1)
            said.append(line.strip())
        elif r := _REPLICAS.match(line):
            resources.append((name, int(r.group(1))))
            said.append(line.strip())
    if not resources:
        raise ParseError("no time-slicing resource with its replicas")
    return TimeSlicing(tuple(resources), tuple(said))


fact("time_slicing", TimeSlicing, union, hint=TIME_SLICING.hint)


@parser(TIME_SLICING, feeds="time_slicing", kind=TimeSlicing, rank=10)
def time_slicing_from_paste(text: str) -> TimeSlicing:
    """A pasted time-slicing config (Helm values, the ConfigMap, the plugin's config dump).

    Input (tests/data/captures/1172)::

        timeSlicing:
          renameByDefault: false
          resources:
            - name: nvidia.com/gpu
              replicas: 4
    """
    return parse_time_slicing(text)


@parser(USER_MACHINE, feeds="time_slicing", kind=TimeSlicing, rank=12)
def vgpu_vms_from_user_words(text: str) -> TimeSlicing:
    """The VMs the user's words say run on vGPUs of one GPU (stated_vgpu_vms): that GPU offered to as many VMs.

    Input (tests/data/captures/2830)::

        Two vGPU VMs using the same t4 graphics card, accessing each other using an Ethernet network
    """
    said = [(n, line.strip()) for line in text.splitlines() if (n := stated_vgpu_vms(line))]
    if not said:
        raise ParseError("no VMs on vGPUs of one GPU in the user's words")
    return TimeSlicing((("one GPU's vGPUs", max(n for n, _ in said)),), tuple(line for _, line in said), VGPU_VMS_BY)
