"""NVLink states from a pasted `dcgmi nvlink --link-status` (DCGM): per GPU, each link Up, Down,
Disabled or Not Supported (`U D X _`), without speeds or GPU names.

A GPU whose every link is Down is left out: DCGM lists the links of GPUs that have no NVLink in use
the same way (PCIe cards without a bridge; an A100 without NVLink in a DCGM 2.4 diag, NVIDIA/DCGM#49),
and without the GPU's model the listing cannot tell a failed fabric from no fabric. Links
`Not Supported` or `Disabled` are not links of the GPU's fabric and are left out too.
"""

from __future__ import annotations

import re

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import parser
from stackaudit.facts.sources import DCGMI_NVLINK
from stackaudit.facts.topology import NvlinkGpu, NvlinkLink, NvlinkStatus

_GPU = re.compile(r"^\s*gpuId (\d+):\s*$")
_STATES = re.compile(r"^\s*((?:[UDX_] +)*[UDX_])\s*$")


@parser(DCGMI_NVLINK, feeds="nvlink_status", kind=NvlinkStatus, rank=10)
def parse_dcgmi_nvlink(text: str) -> NvlinkStatus:
    """NVLink link states from `dcgmi nvlink --link-status` (GPUs with at least one link Up).

    Input (tests/data/captures/115)::

        +----------------------+
        |  NvLink Link Status  |
        +----------------------+
        GPUs:
            gpuId 0:
                U U U U U U U U U U U U U U U U U U
    """
    gpus: list[NvlinkGpu] = []
    index: int | None = None
    listed = 0
    for line in text.splitlines():
        m = _GPU.match(line)
        if m:
            index = int(m.group(1))
            continue
        states = _STATES.match(line)
        if states is None or index is None:
            if line.strip().startswith("NvSwitches:"):
                index = None  # the switches' links follow
            continue
        listed += 1
        letters = states.group(1).split()
        links = tuple(NvlinkLink(n, None, letter, up=letter == "U") for n, letter in enumerate(letters)
                      if letter in ("U", "D"))
        if any(link.up for link in links):
            gpus.append(NvlinkGpu(index, "", links=links, note="dcgmi nvlink --link-status"))
        index = None
    if not gpus:
        raise ParseError(f"no GPU with a link Up among the {listed} listed: every link Down is also how DCGM lists "
                         "a GPU without NVLink in use")
    return NvlinkStatus(tuple(gpus))
