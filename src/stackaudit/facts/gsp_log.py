"""GSP firmware in use, as the kernel log shows it: the driver's lines that name its RPCs to the GSP.

With GSP firmware the driver sends its resource-manager calls to the GSP as RPCs, and its `NVRM:`
lines name them: a call's GSP form (`rpcRmApiFree_GSP`), the driver's GSP functions (`_kgspRpcRecvPoll`,
`kgspBootstrap_TU102`, `_kgspProcessRpcEvent`), the RPC sender (`_issueRpcAndWait`), `GSP RPC`, Xid 119's `Timeout waiting for RPC from
GSP`, the `RPC history (CPU -> GSP)` dump, the RPC names (`GSP_RM_CONTROL`). Such a line proves that
the driver runs the GSP firmware: on the GPU it names (`GPU0`, `PCI:0000:61:00`), and the driver's
setting (`NVreg_EnableGpuFirmware`) is one for all its GPUs. No such line proves nothing: the driver
names RPCs mostly when one fails. The RPC history dump is also a GSP failure: facts/symptoms.py proves it
(`gsp-rpc-history-dump`).

GSP firmware: https://download.nvidia.com/XFree86/Linux-x86_64/latest/README/gsp.html
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, provider, union
from stackaudit.facts.system import KernelLog

# Case kept: `_GSP` and `kgsp` are the driver's names; `gsp` alone is in file names of init failures.
_GSP_RPC = re.compile(r"NVRM:.*(?:\b\w+_GSP\b|\b_?kgsp[A-Z]\w*|\bGSP RPC\b|\bRPC from GSP\b|\(CPU [-<>]+ GSP\)|"
                      r"\bGSP_RM_[A-Z_]+|\b_issueRpcAndWait\b)")
# An RPC the driver could not send because the GPU is gone: status 0x0000000F is NV_ERR_GPU_IS_LOST ("GPU lost from
# the bus", nvstatuscodes.h), which the same log states in words beside it (NVIDIA/open-gpu-kernel-modules#688:
# `_issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!` next to `GPU lost from the bus
# [NV_ERR_GPU_IS_LOST] (0x0000000F)`).
GPU_LOST_RPC = re.compile(r"rpcSendMessage failed with status 0x0*f\b", re.I)
# The GPU a line names: `NVRM: GPU0 …` (or `… event from GPU0`), `NVRM: Xid (PCI:0000:61:00): …`,
# `NVRM: GPU 0000:61:00.0: …`.
_GPU = re.compile(r"\b(GPU\d+)\b|Xid \(PCI:([0-9a-fA-F:.]+)\)|\bGPU ([0-9a-fA-F]{4}:[0-9a-fA-F:.]+)")
# The most lines kept to quote: a GSP timeout dumps hundreds.
MAX_LINES = 20


@dataclass(frozen=True)
class GspLog(Sourced):
    """Kernel-log lines that name GSP RPCs, and the GPUs they name."""

    lines: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()

    @property
    def first(self) -> str:
        """The line to quote: the first that names the GSP itself (`rpcRmApiFree_GSP`), else the first RPC line."""
        return next((line for line in self.lines if "GSP" in line or "kgsp" in line), self.lines[0])

    @property
    def lost(self) -> tuple[str, ...]:
        """The lines of RPCs that failed because the GPU is gone (GPU_LOST_RPC): the GPU's loss, not the GSP's."""
        return tuple(line for line in self.lines if GPU_LOST_RPC.search(line))

    @classmethod
    def union(cls, parts: Sequence[GspLog]) -> GspLog:
        return cls(tuple(dict.fromkeys(x for p in parts for x in p.lines))[:MAX_LINES],
                   tuple(dict.fromkeys(x for p in parts for x in p.gpus)))


fact("gsp_log", GspLog, union, hint="paste `sudo dmesg | grep NVRM`")


def find_gsp_lines(lines: Sequence[str]) -> GspLog:
    """The lines of `lines` that name GSP RPCs (at most MAX_LINES) and every GPU they name."""
    # Each of _GSP_RPC's names holds `GSP` or `kgsp`: the pattern's `.*` backtracks over a whole line without one.
    found = [line.strip() for line in lines if "NVRM" in line and ("GSP" in line or "kgsp" in line
                                                                 or "_issueRpcAndWait" in line)
             and _GSP_RPC.search(line)]
    gpus = [next(g for g in m.groups() if g) for line in found if (m := _GPU.search(line))]
    return GspLog(tuple(found[:MAX_LINES]), tuple(dict.fromkeys(gpus)))


@provider("gsp_log", GspLog, rank=10, title="the kernel log (`dmesg`)")
def gsp_log_from_kernel_log(ctx: FactContext) -> GspLog:
    """GSP RPC lines of the kernel log."""
    log = ctx.fact("kernel_log", KernelLog)
    found = find_gsp_lines(log.grep(r"NVRM", flags=0, needles=("NVRM",)))
    if not found.lines:
        raise FactUnavailable("no line of the kernel log names a GSP RPC")
    return found
