"""Lines that show MIG slicing set up on purpose: what the Kubernetes device plugin or the GPU Operator is told, and
the MIG instances a listing shows.

Only an operator writes these: the device plugin's MIG strategy (`--mig-strategy=single`, `MIG_STRATEGY=mixed`,
`migStrategy: single` in its config, the GPU Operator's `mig.strategy: mixed`), the MIG manager's layout label
(`nvidia.com/mig.config=all-1g.5gb`) and MIG resources requested or offered (`nvidia.com/mig-1g.10gb: 1`).
Strategy `none` and the layout `all-disabled` turn MIG off, so they show no intent to slice.
A MIG instance listed exists, so MIG is on for its GPU, and it was created by hand (`nvidia-smi mig -cgi`): a MIG
device under its GPU in `nvidia-smi -L` or collect_env's GPU list (`  MIG 1g.10gb     Device  0:`), a row of
`nvidia-smi mig -lgi` (`|   0  MIG 1g.10gb   19   9   2:1 |`, its GPU first), a GPU instance of `dcgmi discovery -c`
(`| -> I 0/1 | GPU Instance (EntityID: 0) |`).
Sources: https://github.com/NVIDIA/k8s-device-plugin#configuration-option-details (the strategies none,
single, mixed), https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html
(mig.strategy, the nvidia.com/mig.config label and the nvidia.com/mig-<slice> resources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, parser, provider, read_source, union
from stackaudit.facts.sources import (
    COLLECT_ENV,
    DCGMI_DISCOVERY,
    EVIDENCE_LINES,
    K8S_SPEC,
    MIG_SETUP,
    NVSMI_LIST,
    USER_MACHINE,
)
from stackaudit.host.base import NotCaptured

MIG_SETUP_LINE = re.compile(
    r"mig[-_.]?strategy[\"']?\s*[:=]\s*[\"']?(?:single|mixed)\b"
    r"|nvidia\.com/mig\.config[\"']?\s*[:=]\s*[\"']?(?!all-disabled\b)[\w.-]+"
    r"|nvidia\.com/mig-\d+g\.\d+gb\b",
    re.IGNORECASE)
# A MIG instance listed: a MIG device line of `nvidia-smi -L` (collect_env prints the same), or a row of `nvidia-smi
# mig -lgi` with the GPU's index first.
# A program's CUDA device list naming a device after its MIG slice (`Device 0: NVIDIA A800-SXM4-80GB MIG 7g.80gb,
# compute capability 8.0`, llama.cpp's ggml_cuda_init, corpus 2620): CUDA names a MIG instance so, never a whole GPU.
# Read through the `gpus` fact's records (mig_devices_named), whose line this form is.
MIG_INSTANCE_LINE = re.compile(r"^\s+MIG\s+\d+g\.\d+gb\S*\s+Device\s+\d+:"
                               r"|^\s*CUDA device \d+: [^\n]{1,120}? MIG \d+g\.\d+gb\b"
                               r"|^\s*\|\s*(?P<gpu>\d+)\s+MIG\s+\d+g\.\d+gb\S*\s+\d+\s+\d+\s+\d+:\d+\s*\|"
                               r"|^\s*\|\s*->\s*I\s+(?P<dcgm>\d+)/\d+\s*\|\s*GPU Instance\b")

# A MIG partition GKE's device plugin found on its GPU (`I0518 15:07:32.547969  1 mig.go:175] Discovered GPU partition:
# nvidia0/gi0`, corpus 1458): GKE creates the node pool's partitions (its `gpu-partition-size`, the plugin's `Using gpu
# config: {7g.40gb ...}`) before the plugin starts, so a partition found exists, is MIG on for that GPU, and was asked for.
GKE_PARTITION_LINE = re.compile(r"^[IWE]\d{4} [\d:.]+\s+\d+ mig\.go:\d+\]\s+Discovered GPU partition: "
                                r"nvidia(?P<gpu>\d+)/gi\d+\s*$")


def _instance(line: str) -> re.Match[str] | None:
    """A listed MIG instance's match (MIG_INSTANCE_LINE, GKE_PARTITION_LINE), or None."""
    return MIG_INSTANCE_LINE.match(line) or GKE_PARTITION_LINE.match(line)


# The user's words that their work runs on a MIG slice: `H100 40GB (using MIG)` (vllm-project/vllm#9824, corpus 1323),
# `On using A100 - 80GB in MIG Mode` (Stability-AI/sd3.5#18), `GPU: NVIDIA H100 NVL, MIG slice 3g.47gb`
# (vllm-project/vllm#40920), `a container assigned to an NVIDIA Multi-Instance GPU (MIG) slice` (pytorch/pytorch#197312),
# `allocate VLLM with tensor_parallelism=2 onto two MIG partitions` (ray-project/ray#32778, corpus 2735).
# A slice in use exists, so MIG is on and was sliced by hand, as a listed instance shows. A negation (`not using MIG`),
# MIG said off (`with MIG disabled`) or a question states nothing.
_STATED_MIG = re.compile(
    r"(?<!not )(?<!n't )(?<!never )\b(?:using|on|onto|across|with|via|inside|in) "
    r"(?:an? |one |the |(?:two|three|four|[2-8]) )?(?:MIG|Multi-Instance GPU)\b"
    r"(?!\s*(?:mode\s+)?(?:is\s+|was\s+)?(?:disabled|off)\b)"
    r"|\bMIG (?:slice|instance|partition)s?\s+\d+g\.\d+gb\b"
    r"|\bMulti-Instance GPU \(MIG\) slice\b", re.IGNORECASE)


def stated_mig(line: str) -> bool:
    """Whether a line of the user's words says the work runs on a MIG slice (_STATED_MIG)."""
    return "?" not in line and _STATED_MIG.search(line) is not None


@dataclass(frozen=True)
class MigSetup:
    lines: tuple[str, ...]  # the lines that set MIG slicing up, verbatim

    @property
    def instances(self) -> tuple[str, ...]:
        """The lines that list a MIG instance (MIG_INSTANCE_LINE): MIG is on for its GPU, sliced by hand."""
        return tuple(line for line in self.lines if _instance(line))

    @property
    def stated(self) -> tuple[str, ...]:
        """The user's words that the work runs on a MIG slice (stated_mig): MIG is on, sliced by hand."""
        return tuple(line for line in self.lines if not _instance(line) and stated_mig(line))

    @property
    def instance_gpus(self) -> tuple[int, ...]:
        """The GPUs whose instances a `nvidia-smi mig -lgi` row or GKE's device plugin names, in order; () where no
        line names its GPU."""
        found = (m.groupdict().get("gpu") or m.groupdict().get("dcgm") for line in self.lines if (m := _instance(line)))
        return tuple(dict.fromkeys(int(g) for g in found if g is not None))

    @classmethod
    def union(cls, parts: list[MigSetup]) -> MigSetup:
        """The lines of every source, once each, in rank order."""
        return cls(tuple(dict.fromkeys(line for part in parts for line in part.lines)))


def parse_mig_setup(text: str) -> MigSetup:
    """The lines of a text that set MIG slicing up; ParseError when none does."""
    lines = tuple(line.rstrip() if MIG_INSTANCE_LINE.match(line) else line.strip() for line in text.splitlines()
                  if MIG_SETUP_LINE.search(line) or MIG_INSTANCE_LINE.match(line))
    if not lines:
        raise ParseError("no line sets MIG slicing up")
    return MigSetup(lines)


fact("mig_setup", MigSetup, union, hint=MIG_SETUP.hint)


@parser(MIG_SETUP, feeds="mig_setup", kind=MigSetup, rank=10)
def mig_setup_from_paste(text: str) -> MigSetup:
    """MIG slicing set up on purpose, as a pasted device plugin or GPU Operator setting shows it.

    Input (tests/data/captures/284)::

        with migstrategy=single
    """
    return parse_mig_setup(text)


def parse_mig_instances(text: str) -> MigSetup:
    """The MIG instances a GPU listing shows (MIG_INSTANCE_LINE); ParseError when it shows none."""
    lines = tuple(line.rstrip() for line in text.splitlines() if MIG_INSTANCE_LINE.match(line))
    if not lines:
        raise ParseError("no MIG instance listed")
    return MigSetup(lines)


# The pasted listings that show MIG devices under their GPU: `nvidia-smi -L`, collect_env's GPU list (a paste's
# only: live, NVML reads each GPU's MIG mode first-hand, and collect_env imports torch), `dcgmi discovery -c`.
_LISTINGS = (NVSMI_LIST, COLLECT_ENV, DCGMI_DISCOVERY)


@provider("mig_setup", MigSetup, rank=12, title="the MIG instances a pasted GPU listing shows")
def mig_instances_listed(ctx: FactContext) -> MigSetup:
    """The MIG instances pasted GPU listings show (MIG_INSTANCE_LINE).

    Input (tests/data/captures/476, collect_env's GPU list; 181, `dcgmi discovery -c`)::

        GPU 0: NVIDIA H100 80GB HBM3
          MIG 1g.10gb     Device  0:
        | -> I 0/1          | GPU Instance (EntityID: 0)                                         |
    """
    if ctx.host.meta.source == "live":
        raise FactUnavailable("live, NVML reads each GPU's MIG mode (fact `nvidia`)")
    lines: list[str] = []
    for source in _LISTINGS:
        try:
            lines.extend(parse_mig_instances(read_source(ctx.host, source)).lines)
        except (NotCaptured, FactUnavailable, ParseError):
            continue
    if not lines:
        raise FactUnavailable("no pasted GPU listing shows a MIG instance")
    return MigSetup(tuple(lines))


_MIG_DEVICE_MODEL = re.compile(r"\bMIG \d+g\.\d+gb\b")


@provider("mig_setup", MigSetup, rank=16, title="the MIG instances a CUDA device list names after their slice")
def mig_devices_named(ctx: FactContext) -> MigSetup:
    """The devices the `gpus` fact's sources name after a MIG slice (`NVIDIA A800-SXM4-80GB MIG 7g.80gb`, a CUDA device
    list's name of a MIG instance): each a MIG instance listed, as `CUDA device N: <name>`.

    Input (tests/data/captures/2620, llama.cpp's ggml_cuda_init)::

          Device 0: NVIDIA A800-SXM4-80GB MIG 7g.80gb, compute capability 8.0, VMM: yes
    """
    from stackaudit.facts.gpus import GpuInventory

    gpus = ctx.optional("gpus", GpuInventory)
    lines = tuple(f"CUDA device {r.index}: {r.model}" for r in (gpus.gpus if gpus is not None else ())
                  if r.index is not None and _MIG_DEVICE_MODEL.search(r.model))
    if not lines:
        raise FactUnavailable("no device named after a MIG slice")
    return MigSetup(lines)


@parser(EVIDENCE_LINES, feeds="mig_setup", kind=MigSetup, rank=13)
def mig_partitions_discovered(text: str) -> MigSetup:
    """The MIG partitions GKE's device plugin found (GKE_PARTITION_LINE).

    Input (tests/data/captures/1458)::

        I0518 15:07:32.547969       1 mig.go:175] Discovered GPU partition: nvidia0/gi0
    """
    lines = tuple(line.strip() for line in text.splitlines() if GKE_PARTITION_LINE.match(line.strip()))
    if not lines:
        raise ParseError("GKE's device plugin names no MIG partition")
    return MigSetup(lines)


@parser(USER_MACHINE, feeds="mig_setup", kind=MigSetup, rank=14)
def mig_stated_by_user(text: str) -> MigSetup:
    """The user's words that the work runs on a MIG slice (stated_mig).

    Input (tests/data/captures/1323)::

        H100 40GB (using MIG)
    """
    lines = tuple(line.strip() for line in text.splitlines() if stated_mig(line))
    if not lines:
        raise ParseError("the user's words say nothing of a MIG slice")
    return MigSetup(lines)


@parser(K8S_SPEC, feeds="mig_setup", kind=MigSetup, rank=15)
def mig_setup_from_spec(text: str) -> MigSetup:
    """The MIG slices a pasted pod or deployment spec requests (MIG_SETUP_LINE): the spec claims the lines the
    paste's MIG setup reader would read alone, whole or as a container's `resources:` piece.

    Input (the GPU Operator's MIG guide)::

        resources:
          limits:
            nvidia.com/mig-1g.5gb: 1
    """
    return parse_mig_setup(text)

