"""Which boot loader puts the kernel command line together: GRUB or systemd-boot, so that a fix plan
gives the one persistent form that applies (GRUB_CMDLINE_LINUX_DEFAULT or /etc/kernel/cmdline).

- systemd-boot sets the EFI variable `LoaderInfo` under the Boot Loader Interface vendor GUID
  (https://systemd.io/BOOT_LOADER_INTERFACE/);
- GRUB's `linux` command puts `BOOT_IMAGE=` first on the kernel command line (/proc/cmdline);
- /etc/kernel/cmdline is the command line kernel-install and proxmox-boot-tool write into
  systemd-boot entries (read only on the host itself: a container's /etc is its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, provider
from stackaudit.host.base import read_optional, read_or_none

LOADER_INFO = "/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
BOOT_LOADERS = ("grub", "systemd-boot")


@dataclass(frozen=True)
class BootLoader:
    name: str  # one of BOOT_LOADERS
    evidence: str


fact("boot_loader", BootLoader, first_of, hint="paste `cat /proc/cmdline`")


@provider("boot_loader", BootLoader, rank=10, title="systemd-boot's EFI variable LoaderInfo")
def boot_loader_from_efivars(ctx: FactContext) -> BootLoader:
    """systemd-boot, when the firmware holds its LoaderInfo variable."""
    if read_or_none(ctx.host, LOADER_INFO) is None:
        raise FactUnavailable("no systemd-boot LoaderInfo EFI variable")
    return BootLoader("systemd-boot", "EFI variable LoaderInfo")


@provider("boot_loader", BootLoader, rank=20, title="/proc/cmdline (`BOOT_IMAGE=`)")
def boot_loader_from_cmdline(ctx: FactContext) -> BootLoader:
    """GRUB, when the running kernel's command line starts with the `BOOT_IMAGE=` GRUB adds."""
    from stackaudit.facts.system import KernelCmdline

    cmdline = ctx.fact("cmdline", KernelCmdline)
    if not cmdline.has("BOOT_IMAGE"):
        raise FactUnavailable("/proc/cmdline has no BOOT_IMAGE=")
    return BootLoader("grub", "/proc/cmdline has BOOT_IMAGE=")


@provider("boot_loader", BootLoader, rank=30, title="/etc/kernel/cmdline")
def boot_loader_from_kernel_cmdline(ctx: FactContext) -> BootLoader:
    """systemd-boot, when /etc/kernel/cmdline exists outside a container."""
    from stackaudit.facts.container import ContainerInfo

    container = ctx.optional("container", ContainerInfo)
    if container is not None and container.in_container:
        raise FactUnavailable("in a container, /etc/kernel/cmdline is not the host's")
    text = read_optional(ctx.host, "/etc/kernel/cmdline")
    if not text or not text.strip():
        raise FactUnavailable("no /etc/kernel/cmdline")
    return BootLoader("systemd-boot", "/etc/kernel/cmdline exists")
