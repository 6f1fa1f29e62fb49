"""PCIe fixes computed from what a check found: masked setpci writes on the devices it named.

setpci writes `VALUE:MASK` as "only the bits set in MASK change" (pciutils setpci(8)), so a write
to one field of Device Control leaves the rest of the register alone — unlike the common
`CAP_EXP+0x08.w=5937`, which rewrites the whole register (relaxed ordering, no-snoop, extended
tags, MPS and error reporting with it). Device Control (PCIe capability + 0x08): Max_Payload_Size
is bits 7:5 and Max_Read_Request_Size bits 14:12, both encoded as 128 << n bytes, n = 0..5
(PCI_EXP_DEVCTL_PAYLOAD 0x00e0 and PCI_EXP_DEVCTL_READRQ 0x7000 in linux/pci_regs.h).
ACS Control (ACS capability + 0x06): P2P Request Redirect bit 2, P2P Completion Redirect bit 3,
P2P Egress Control bit 5 — the three bits `pci=disable_acs_redir=` clears (drivers/pci/pci.c).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from stackaudit.fixes.kernel_cmdline import cmdline_forms
from stackaudit.fixes.model import Command, Fix, Step, cmd, keep_line, keep_text, sh, step

DEVCTL_MPS_MASK = 0x00E0
DEVCTL_MPS_SHIFT = 5
DEVCTL_MRRS_MASK = 0x7000
DEVCTL_MRRS_SHIFT = 12
ACS_CTRL_REDIRECT_MASK = 0x0004 | 0x0008 | 0x0020  # ReqRedir, CmpltRedir, EgressCtrl
_SIZES = (128, 256, 512, 1024, 2048, 4096)


def size_code(size: int) -> int:
    """128 -> 0, 256 -> 1, … 4096 -> 5: the 3-bit encoding of MPS and MRRS."""
    if size not in _SIZES:
        raise ValueError(f"{size} bytes is not a PCIe payload/read-request size ({', '.join(map(str, _SIZES))})")
    return _SIZES.index(size)


def devctl_write(mrrs: int | None = None, mps: int | None = None) -> tuple[int, int]:
    """(value, mask) for a Device Control write that sets only the given fields."""
    value = mask = 0
    if mrrs is not None:
        value |= size_code(mrrs) << DEVCTL_MRRS_SHIFT
        mask |= DEVCTL_MRRS_MASK
    if mps is not None:
        value |= size_code(mps) << DEVCTL_MPS_SHIFT
        mask |= DEVCTL_MPS_MASK
    if not mask:
        raise ValueError("devctl_write: name MRRS or MPS")
    return value, mask


def setpci_devctl(bdf: str, mrrs: int | None = None, mps: int | None = None) -> Command:
    value, mask = devctl_write(mrrs, mps)
    return cmd(f"setpci -s {bdf} CAP_EXP+0x08.w={value:04x}:{mask:04x}")


WHOLE_REGISTER_NOTE = ("not `setpci … CAP_EXP+0x08.w=5937`: that rewrites the whole Device Control register "
                       "(relaxed ordering, no-snoop, extended tags, MPS 256 and error reporting with MRRS); "
                       "the value:mask form changes bits 14:12 only")
_UDEV_RULE = ('ACTION=="add", SUBSYSTEM=="pci", ATTR{vendor}=="0x10de", ATTR{class}=="0x030*", '
              'RUN+="<setpci path> -s %k CAP_EXP+0x08.w=5000:7000"')


def mrrs_fix(bdfs: Iterable[str] = (), size: int = 4096) -> Fix:
    """Raise MaxReadReq to `size` on the named devices (all of them `<bdf>` when none is named yet)."""
    targets = list(bdfs)
    commands = [setpci_devctl(b, mrrs=size) for b in targets] or [setpci_devctl("<bdf>", mrrs=size)]
    return Fix.of(
        step(f"Set Max Read Request Size to {size} bytes on the device(s) (re-apply after a GPU reset)", *commands,
             changes="Device Control bits 14:12 (MaxReadReq)" + (f" of {', '.join(targets)}" if targets else ""),
             per="" if targets else "<bdf>",
             keep=(keep_text('"Max Read Request Size" Auto/4096', label="BIOS"),
                   keep_line(_UDEV_RULE, "/etc/udev/rules.d/90-pcie-mrrs.rules", label="udev",
                             text="<setpci path> from `command -v setpci` (/usr/sbin on RHEL, /usr/bin on Debian)"))),
        note=WHOLE_REGISTER_NOTE,
    )


_MPS_NOTE = ("`pci=pcie_bus_safe`: the largest MPS every device below the root complex supports; not `pcie_bus_perf` "
             "on GPU P2P hosts (it lowers MRRS); `pcie_bus_peer2peer` sets 128 B everywhere on purpose (P2P safety): "
             "it does not raise MPS")


def mps_fix(plan: Mapping[str, int] | None = None, tool: str = "") -> Fix:
    """Raise MaxPayload to what the whole path supports. `plan`: {BDF: bytes} in write order, upstream
    bridges before the GPU below them (a device must never send TLPs larger than its link partner's MPS);
    `tool`: the host's kernel-command-line tool (fixes/kernel_cmdline.py)."""
    commands = [setpci_devctl(b, mps=size) for b, size in (plan or {}).items()]
    bios = keep_text("MPS Auto/maximum", label="BIOS")
    boot = step("Set MaxPayload at boot to what the path supports", cost="reboot",
                changes="Device Control bits 7:5 (MaxPayload) of the GPUs and the bridges above them",
                keep=(bios, *cmdline_forms("pci=pcie_bus_safe", tool), keep_text(_MPS_NOTE, label="kernel command line")))
    if not commands:
        return Fix.of(boot)
    live = step("Or now, with no GPU traffic: write MaxPayload upstream first, then the GPU", *commands,
                changes="Device Control bits 7:5 (MaxPayload) of " + ", ".join(plan or {}), cost="runtime")
    return Fix.of(boot, live, note="a P2P peer with a smaller MPS would flag larger TLPs as malformed: set every GPU "
               "that talks P2P to the same size")


VFIO_WARNING = ("ACS isolates devices for VFIO: on a host that passes these GPUs (or devices behind these bridges) "
                "to VMs, clearing it merges their IOMMU groups — keep ACS there")


def acs_fix(bridges: Mapping[str, int | None] | Iterable[str], engines: Iterable[str] | None = None,
            tool: str = "") -> Fix:
    """Clear ACS P2P redirect on the named bridges only (those on GPU-to-GPU paths), then restart the engine
    (clearing vLLM's P2P cache where vLLM may run: see restart_clearing_p2p_cache). `bridges`: {BDF: ACSCtl
    as read} (the revert puts the bits back)."""
    ctl: dict[str, int | None] = dict(bridges) if isinstance(bridges, Mapping) else dict.fromkeys(bridges)
    named = list(ctl) or ["<bridge>"]
    mask = ACS_CTRL_REDIRECT_MASK
    clear = [cmd(f"setpci -s {b} ECAP_ACS+0x6.w=0000:{mask:04x}") for b in named]
    revert = [cmd(f"setpci -s {b} ECAP_ACS+0x6.w={(v & mask):04x}:{mask:04x}") for b, v in ctl.items() if v is not None]
    devs = ";".join(named) if ctl else "<bdf>;<bdf>"
    return Fix.of(
        step("Clear ACS P2P redirect (ReqRedir, CmpltRedir, EgressCtrl) on the bridges between the GPUs, before the "
             "engine starts; lost at reboot and after hotplug/reset", *clear,
             changes="ACS Control bits 2, 3 and 5" + (f" of {', '.join(named)}" if ctl else ""),
             per="" if ctl else "<bridge>", revert=revert,
             keep=(*cmdline_forms(f"pci=disable_acs_redir={devs}", tool),
                   keep_text('"ACS Control" / "PCIe ACS" disabled', label="BIOS"),
                   keep_text("a systemd oneshot unit Before=nvidia-persistenced.service running the setpci commands",
                             label="systemd"))),
        restart_clearing_p2p_cache(engines),
        note=VFIO_WARNING + "; `pci=noacs` is not a mainline parameter and `pcie_acs_override=` does not clear ACS bits",
    )


# vLLM's cached P2P probes: under $VLLM_CACHE_ROOT, else ~/.cache/vllm; -f so that a plan run under
# `set -e` goes on where there is no cache yet.
CLEAR_VLLM_P2P_CACHE = 'rm -f "${VLLM_CACHE_ROOT:-$HOME/.cache/vllm}"/gpu_p2p_access_cache_for_*.json'


def restart_clearing_p2p_cache(engines: Iterable[str] | None = None) -> Step:
    """The step after a P2P platform fix: vLLM caches its P2P probe per GPU set, so a stale `false` keeps
    custom all-reduce off until the file is deleted. `engines`: the serving engines the source shows (None:
    not known); where they are known and vLLM is not among them, the step is a plain restart."""
    if engines is not None and "vllm" not in set(engines):
        return step("Restart the engine", cost="restart", scope="container")
    return step("Restart the engine, clearing vLLM's P2P cache first", sh(CLEAR_VLLM_P2P_CACHE), cost="restart",
                scope="container")


def acs_scan_fix(engines: Iterable[str] | None = None, tool: str = "") -> Fix:
    """Where the source has no device addresses: NCCL's loop over every bridge, then the same next step."""
    loop = sh('for BDF in $(lspci -d "*:*:*" | awk \'{print $1}\'); do setpci -v -s $BDF ECAP_ACS+0x6.w '
              '>/dev/null 2>&1 || continue; setpci -v -s $BDF ECAP_ACS+0x6.w=0000; done')
    find = sh("lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'")
    return Fix.of(
        step("Find the ports with ACS redirect on, then clear it (NCCL troubleshooting's loop clears every ACS "
             "bridge)", find, loop, changes="ACS Control of every bridge with an ACS capability",
             keep=(*cmdline_forms("pci=disable_acs_redir=<bdf>;<bdf>", tool),
                   keep_text("the ACS option disabled", label="BIOS"))),
        restart_clearing_p2p_cache(engines),
        note=VFIO_WARNING,
    )


__all__ = ["Step", "acs_fix", "acs_scan_fix", "devctl_write", "mps_fix", "mrrs_fix", "restart_clearing_p2p_cache",
           "setpci_devctl", "size_code"]
