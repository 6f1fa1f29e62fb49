"""RDMA NICs (InfiniBand / RoCE HCAs): which this host has, from every source that shows them.

Sources, best first: the kernel's /sys/class/infiniband (whole: an empty directory means no RDMA
device, unless another source sights one); NCCL's own choice in a pasted NCCL_DEBUG=INFO log
(`NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE`, NVIDIA/nccl src/transport/net_ib.cc), else the
NCCL device index of its channels over an InfiniBand/RoCE plugin (`via NET/IB/9/GDRDMA`: `NET/IB/9`), else an AWS EFA
device under NCCL's OFI plugin (`NET/OFI Selected Provider is efa`, libfabric's efa provider lines);
the NIC legend of `nvidia-smi topo -m` (`NIC0: mlx5_0`). The last two only show NICs that are there:
they never prove that there is none, except NCCL's own "Failed to open libibverbs.so" / "NET/IB : No
device found" (the engine uses no RDMA NIC, whatever the host has). "Using network Socket" alone
is not read so: NCCL_IB_DISABLE or a cut excerpt gives it too, on a host whose RDMA NICs go unused
(corpus 431). Weakest, the NCCL settings that address RDMA NICs (NCCL_IB_HCA=mlx5_0, NCCL_IB_GID_INDEX, a socket
interface of IPoIB such as `ib0`, in a setting or in NCCL's own interface lines): the user's or NCCL's words, not an
inventory. Inferred too: an RDMA adapter (ConnectX, BlueField, an InfiniBand controller) in a pasted `lspci` listing,
and a peer-memory module's callback lines in the kernel log (`nv_mem nv_get_p2p_free_callback:155`),
which ib_core calls only for GPU memory an RDMA NIC registered.

Not joined: the sysfs class is this host's whole inventory, while a multi-node NCCL log also holds the other nodes'
lines. Combined by `_sighted_first`: a positive sighting in any source beats an empty answer (a fake or pasted host's
empty /sys/class/infiniband does not hide NCCL's `NET/IB : Using mlx5_0`); an answer that shows none (the empty
class, NCCL's own "No device found") beats one that only infers them (a loaded driver, settings that name an HCA).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, parser, provider
from stackaudit.facts.serving_logs import EFA_SIGHTED
from stackaudit.facts.sources import ENGINE_LOG, INFINIBAND_SYSFS
from stackaudit.facts.topology import TopoMatrix


@dataclass(frozen=True)
class RdmaDevices(Sourced):
    names: tuple[str, ...]  # mlx5_0, ... (() only from a whole source: no RDMA device)
    # Why `names` is empty, in words ("/sys/class/infiniband is empty", NCCL's own "No device found"); "" otherwise.
    absent_by: str = ""
    # The names are inferred, not an inventory: a loaded RDMA driver, settings or interfaces that address RDMA NICs
    # (NCCL_IB_HCA=mlx5_0, IPoIB `ib0`).
    said: bool = False


def _sighted_first(kind: type[Any], values: Sequence[RdmaDevices]) -> RdmaDevices:
    """The best-ranked source that sights an RDMA device (the sysfs class, NCCL's `NET/IB : Using`, the topology's
    NIC legend); else the best-ranked that shows none (an empty /sys/class/infiniband, NCCL's "No device found");
    else one that infers them (a loaded RDMA driver, NCCL settings that address an HCA)."""
    seen = [v for v in values if v.names and not v.said]
    none = [v for v in values if not v.names]
    said = [v for v in values if v.names and v.said]
    return (seen or none or said)[0]


fact("rdma", RdmaDevices, _sighted_first, hint="paste `ls /sys/class/infiniband` (or an NCCL_DEBUG=INFO log)")

_SYSFS_EMPTY = "/sys/class/infiniband is empty"


@provider("rdma", RdmaDevices, rank=10, title=INFINIBAND_SYSFS.title)
def rdma_sysfs(ctx: FactContext) -> RdmaDevices:
    """RDMA devices (InfiniBand/RoCE HCAs) known to the kernel (/sys/class/infiniband)."""
    try:
        names = tuple(ctx.host.list_dir(INFINIBAND_SYSFS.path))
    except FileNotFoundError:
        return RdmaDevices((), absent_by=_SYSFS_EMPTY)
    except PermissionError as exc:
        raise FactUnavailable(f"{INFINIBAND_SYSFS.path} is not readable", "run as root") from exc
    return RdmaDevices(names, absent_by="" if names else _SYSFS_EMPTY)


_NCCL_IB_DEVICE = re.compile(r"\[\d+\]([\w.-]+):\d+/(?:IB|RoCE)")


@parser(ENGINE_LOG, feeds="rdma", kind=RdmaDevices, rank=20)
def rdma_from_nccl_log(text: str) -> RdmaDevices:
    """RDMA NICs NCCL chose (`NCCL INFO NET/IB : Using [0]mlx5_0:1/IB` in a pasted NCCL INFO log).

    Input (tests/data/captures/205)::

        [155] host-19:5330:5330 [3] NCCL INFO Bootstrap : Using [0]eth0:10.100.62.64<0>
        [155] host-19:5330:5330 [3] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
        [155] host-19:5330:5330 [3] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [1]mlx5_3:1/IB [2]mlx5_0:1/IB [3]mlx5_2:1/RoCE [4]mlx5_4:1/IB ; OOB eth0:10.100.62.64<0>
    """
    names: list[str] = []
    for line in text.splitlines():
        if re.search(r"NET/IB\s*:\s*Using", line):
            names.extend(m.group(1) for m in _NCCL_IB_DEVICE.finditer(line))
    if not names:
        # No `NET/IB : Using` line shown: a channel over the IB plugin (or the IBext of nccl-rdma-sharp-plugins) names
        # NCCL's device index, an RDMA NIC it sends through (NVIDIA/nccl#1589: `via NET/IB/9/GDRDMA/Shared`).
        names = [f"NET/{m.group(1)}/{m.group(2)}" for m in _NCCL_IB_CHANNEL.finditer(text)]
        # Else the HCA NCCL's SHARP plugin opened (`SHARP rank 0/4 initialized on mlx5_4:1`), or the device index of a
        # rank's CollNet channel over SHARP (`via COLLNET/SHARP/5/GDRDMA`, corpus 1415): SHARP reduces in InfiniBand
        # switches, reached only through an RDMA HCA.
        names = names or [m.group(1) for m in _NCCL_SHARP_HCA.finditer(text)] \
            or [f"COLLNET/{m.group(1)}/{m.group(2)}" for m in _NCCL_SHARP_CHANNEL.finditer(text)]
    if not names and EFA_SIGHTED.search(text):
        # An AWS EFA device under NCCL's OFI plugin (aws-ofi-nccl's `Selected Provider is efa`, libfabric's efa
        # provider logging): an RDMA NIC of the job's hosts, whichever transport NCCL then took (corpus 1580).
        names = ["efa (libfabric's EFA provider)"]
    if not names and _NCCL_NO_VERBS.search(text):
        # NCCL could not load the verbs library or found no HCA (ibvwrap.cc, net_ib.cc): whatever NICs
        # the host has, this engine moves nothing over RDMA, so there is nothing for GPUDirect to serve.
        return RdmaDevices((), absent_by=NCCL_NO_DEVICE)
    if not names:
        raise ParseError("no `NET/IB : Using` line")
    return RdmaDevices(tuple(dict.fromkeys(names)))


NCCL_NO_DEVICE = "NCCL could not open libibverbs or found no InfiniBand/RoCE device"
# INFO in current NCCL; `misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]` before 2.12.
_NCCL_NO_VERBS = re.compile(r"NCCL (?:INFO|WARN) (?:Failed to open libibverbs|NET/IB\s*:\s*No device found)")
# NCCL before 2.7 wrote `Ring 00 : 1[18100000] -> 0[435e00000] [receive] via NET/IB/0/GDRDMA` (NVIDIA/nccl-tests#36).
# The ranks between the colon and `via` fit in 160 characters: a bounded span keeps a long line of channels linear.
_NCCL_IB_CHANNEL = re.compile(r"NCCL INFO (?:Channel|Ring) [\d/]+\s*:[^\n]{0,160}?\bvia NET/(IB\w*)/(\d+)")
# nccl-rdma-sharp-plugins' SHARP CollNet: its init line naming the HCA, and NCCL's CollNet channel line
# (transport/coll_net.cc `CollNet %02d/%1d : %d [receive] via COLLNET/%s/%d`); NVIDIA/nccl#1219.
_NCCL_SHARP_HCA = re.compile(r"NCCL INFO SHARP rank \d+/\d+ initialized on ([\w.-]+):\d+")
_NCCL_SHARP_CHANNEL = re.compile(r"NCCL INFO CollNet [\d/]+\s*:.*\bvia COLLNET/(SHARP\w*)/(\d+)")


@provider("rdma", RdmaDevices, rank=30, title="`nvidia-smi topo -m` NIC legend")
def rdma_from_topology(ctx: FactContext) -> RdmaDevices:
    """RDMA NICs in the NIC legend of `nvidia-smi topo -m` (NIC0: mlx5_0), else its NIC rows where the legend is cut
    (nvidia-smi lists a NIC by its RDMA device)."""
    topo = ctx.fact("gpu_topology", TopoMatrix)
    # Old drivers name the NIC columns by the RDMA device itself (`mlx5_0`), with no legend.
    names = tuple(n for n in (*topo.nic_names.values(), *topo.nics) if re.match(r"(mlx\d+|bnxt_re|irdma|efa|ionic|qedr)", n))
    if not names and not topo.nic_names and topo.nics:
        names = tuple(f"{n} (a NIC row of the topology matrix)" for n in topo.nics)
    if not names:
        raise FactUnavailable("the `nvidia-smi topo -m` legend names no RDMA NIC")
    return RdmaDevices(names)


# An RDMA-capable adapter as `lspci` names it: an InfiniBand controller (class 0x0207), or Mellanox/NVIDIA's ConnectX
# and BlueField, which do InfiniBand or RoCE on every generation (`Network controller: Mellanox Technologies MT27500
# Family [ConnectX-3]`, corpus 2430).
_RDMA_ADAPTER = re.compile(r"\b(?:ConnectX|BlueField)\b|Infiniband|InfiniBand")


@provider("rdma", RdmaDevices, rank=35, title="an RDMA adapter in a pasted `lspci` listing")
def rdma_from_lspci(ctx: FactContext) -> RdmaDevices:
    """RDMA-capable adapters in a pasted `lspci` listing (_RDMA_ADAPTER): the hardware, not the RDMA devices its driver
    made, so inferred (an empty /sys/class/infiniband outweighs it: no RDMA driver bound)."""
    from stackaudit.facts.pcie import read_lspci

    listing, why = read_lspci(ctx.host)
    if listing is None:
        raise FactUnavailable(why)
    found = [f"{d.bdf} {d.description} (lspci)" for d in listing.devices
             if d.pci_class.startswith("0x0207") or _RDMA_ADAPTER.search(d.description[:300])]
    if not found:
        raise FactUnavailable("the `lspci` listing shows no RDMA adapter")
    return RdmaDevices(tuple(found), said=True)


# RDMA drivers bind only to their own HCAs (mlx5_ib on ConnectX, bnxt_re on Broadcom NetXtreme-E, irdma on
# Intel E810, efa on AWS EFA, ionic_rdma on AMD Pensando, qedr on Marvell): loaded, the host has such a NIC.
_RDMA_MODULES = ("mlx5_ib", "mlx4_ib", "bnxt_re", "irdma", "efa", "ionic_rdma", "qedr", "hns_roce_hw_v2")


@provider("rdma", RdmaDevices, rank=40, title="RDMA driver modules (`lsmod`)")
def rdma_from_modules(ctx: FactContext) -> RdmaDevices:
    """RDMA NIC drivers among the loaded kernel modules (`lsmod`: mlx5_ib, bnxt_re, irdma, efa, ...)."""
    from stackaudit.facts.system import LoadedModules

    modules = ctx.fact("modules", LoadedModules)
    loaded = tuple(m for m in _RDMA_MODULES if m in modules)
    if not loaded:
        raise FactUnavailable("no RDMA NIC driver among the loaded modules")
    return RdmaDevices(tuple(f"{m} (driver loaded)" for m in loaded), said=True)


@provider("rdma", RdmaDevices, rank=45, title="a peer-memory module's callback lines (the kernel log)")
def rdma_from_peer_memory(ctx: FactContext) -> RdmaDevices:
    """An RDMA NIC inferred from a peer-memory module's callback lines in the kernel log (system.PEER_MEMORY_CALLBACK):
    ib_core calls them only for GPU memory an RDMA NIC registered."""
    from stackaudit.facts.system import KernelLog, peer_memory_callbacks

    found = peer_memory_callbacks(ctx.fact("kernel_log", KernelLog))
    if not found:
        raise FactUnavailable("the kernel log shows no peer-memory callback line")
    return RdmaDevices(tuple(f"an RDMA NIC registering GPU memory through {m} (its callback line in the kernel log)"
                             for m in found),
                       said=True)


@provider("rdma", RdmaDevices, rank=50, title="NCCL settings that address RDMA NICs")
def rdma_from_nccl_settings(ctx: FactContext) -> RdmaDevices:
    """RDMA NICs the NCCL settings name or tune (NCCL_IB_HCA=mlx5_0, NCCL_IB_GID_INDEX=3; not NCCL_IB_DISABLE, not an
    exclusion list `^mlx5_1`), a socket interface of IPoIB (NCCL_SOCKET_IFNAME=ib0), or an IPoIB interface NCCL's
    own bootstrap or socket lines name (`Bootstrap : Using ib0:10.0.0.1<0>`): IPoIB runs only on an InfiniBand HCA."""
    from stackaudit.facts.serving_logs import NcclConfig, ServingLog

    config = ctx.optional("nccl_config", NcclConfig)
    log = ctx.optional("serving_log", ServingLog)
    settings = config.effective if config is not None else ()
    tuned = [f"{x.name}={x.value} (an NCCL setting for RDMA NICs)" for x in settings
             if x.name.startswith("NCCL_IB_") and x.name != "NCCL_IB_DISABLE" and x.value.strip()
             and not (x.name == "NCCL_IB_HCA" and x.value.strip().startswith("^"))]
    ipoib = [f"{x.name}={x.value} (an IPoIB interface)" for x in settings if x.name == "NCCL_SOCKET_IFNAME" and x.value.strip().startswith("ib")]
    logged = [f"IPoIB interface {i}" for i, _, _ in (log.nccl_addresses if log is not None else ()) if i.startswith("ib")]
    # NCCL's other NET/IB lines (`NET/IB : GPU Direct RDMA Disabled for HCA 0`): its IB plugin opened an HCA.
    net = ["NCCL's NET/IB lines" for line in (log.nccl_net if log is not None else ())
           if "NET/IB" in line and "No device" not in line]
    said = tuned + ipoib + logged[:1] + net[:1]
    if not said:
        raise FactUnavailable("no NCCL setting or interface addresses an RDMA NIC")
    return RdmaDevices(tuple(dict.fromkeys(said)), said=True)
