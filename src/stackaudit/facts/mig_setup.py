"""Lines that show MIG slicing set up on purpose: what the Kubernetes device plugin or the GPU Operator is told.

Only an operator writes these: the device plugin's MIG strategy (`--mig-strategy=single`, `MIG_STRATEGY=mixed`,
`migStrategy: single` in its config, the GPU Operator's `mig.strategy: mixed`), the MIG manager's layout label
(`nvidia.com/mig.config=all-1g.5gb`) and MIG resources requested or offered (`nvidia.com/mig-1g.10gb: 1`).
Strategy `none` and the layout `all-disabled` turn MIG off, so they show no intent to slice.
Sources: https://github.com/NVIDIA/k8s-device-plugin#configuration-option-details (the strategies none,
single, mixed), https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html
(mig.strategy, the nvidia.com/mig.config label and the nvidia.com/mig-<slice> resources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import fact, first_of, parser
from stackaudit.facts.sources import MIG_SETUP

MIG_SETUP_LINE = re.compile(
    r"mig[-_.]?strategy[\"']?\s*[:=]\s*[\"']?(?:single|mixed)\b"
    r"|nvidia\.com/mig\.config[\"']?\s*[:=]\s*[\"']?(?!all-disabled\b)[\w.-]+"
    r"|nvidia\.com/mig-\d+g\.\d+gb\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class MigSetup:
    lines: tuple[str, ...]  # the lines that set MIG slicing up, verbatim


def parse_mig_setup(text: str) -> MigSetup:
    """The lines of a text that set MIG slicing up; ParseError when none does."""
    lines = tuple(line.strip() for line in text.splitlines() if MIG_SETUP_LINE.search(line))
    if not lines:
        raise ParseError("no line sets MIG slicing up")
    return MigSetup(lines)


fact("mig_setup", MigSetup, first_of, hint=MIG_SETUP.hint)


@parser(MIG_SETUP, feeds="mig_setup", kind=MigSetup, rank=10)
def mig_setup_from_paste(text: str) -> MigSetup:
    """MIG slicing set up on purpose, as a pasted device plugin or GPU Operator setting shows it.

    Input (tests/data/captures/284)::

        with migstrategy=single
    """
    return parse_mig_setup(text)
