"""Which boot loader puts the kernel command line together: GRUB or systemd-boot, so that a fix plan
gives the one persistent form that applies (GRUB_CMDLINE_LINUX_DEFAULT or /etc/kernel/cmdline).

- systemd-boot sets the EFI variable `LoaderInfo` under the Boot Loader Interface vendor GUID
  (https://systemd.io/BOOT_LOADER_INTERFACE/);
- GRUB's `linux` command puts `BOOT_IMAGE=` first on the kernel command line (/proc/cmdline);
- /etc/kernel/cmdline is the command line kernel-install and proxmox-boot-tool write into
  systemd-boot entries (read only on the host itself: a container's /etc is its own).

`boot_cmdline_config` is what the next boot gets from that loader: GRUB_CMDLINE_LINUX and
GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub and /etc/default/grub.d/*.cfg (sourced in that order by
grub-mkconfig, https://www.gnu.org/software/grub/manual/grub/html_node/Simple-configuration.html), or
/etc/kernel/cmdline / the loader entries' `options` lines
(https://uapi-group.org/specifications/specs/boot_loader_specification/).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from stackaudit.facts.config_dirs import read_config_dirs, read_file
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, provider
from stackaudit.facts.sources import GRUB_DEFAULT, GRUB_DEFAULT_D, KERNEL_CMDLINE_FILE, LOADER_ENTRIES
from stackaudit.host.base import Host, read_optional, read_or_none

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


# --- the command line the next boot gets --------------------------------------------------------

_GRUB_ASSIGN = re.compile(r"^\s*(?:export\s+)?(GRUB_CMDLINE_LINUX(?:_DEFAULT)?)=(.*)$")


@dataclass(frozen=True)
class CmdlineParam:
    name: str
    value: str | None  # None: a bare flag (`quiet`)
    where: str  # file:line


@dataclass(frozen=True)
class BootCmdlineConfig:
    """The kernel parameters the boot loader in use is configured to pass at the next boot, in order (a later
    one of the same name wins, as the kernel reads them); `files` read, `unread` places not in the source."""

    loader: str  # one of BOOT_LOADERS; "" when which is in use is not known (both configurations read)
    params: tuple[CmdlineParam, ...]
    files: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.unread

    def last(self, name: str) -> CmdlineParam | None:
        found = None
        for p in self.params:
            if p.name == name:
                found = p
        return found


def _shell_value(raw: str, env: dict[str, str]) -> str:
    """The value of a one-line shell assignment: quotes removed, `$VAR` / `${VAR}` of the GRUB variables
    expanded (grub.d snippets append with `GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT x"`)."""
    try:
        words = shlex.split(raw, comments=True, posix=True)
    except ValueError:
        words = [raw.strip().strip("\"'")]
    text = " ".join(words) if len(words) != 1 else words[0]
    return re.sub(r"\$\{?(GRUB_CMDLINE_LINUX(?:_DEFAULT)?)\}?", lambda m: env.get(m.group(1), ""), text)


def _params(text: str, where: str) -> list[CmdlineParam]:
    """Words as the kernel splits them: double quotes group and are dropped (`"pci=a;b"`, `x="a b"`)."""
    try:
        words = shlex.split(text, posix=True)
    except ValueError:
        words = text.split()
    out = []
    for word in words:
        name, eq, value = word.partition("=")
        out.append(CmdlineParam(name, value if eq else None, where))
    return out


def parse_grub_default(files: list[tuple[str, str]]) -> list[CmdlineParam]:
    """GRUB_CMDLINE_LINUX then GRUB_CMDLINE_LINUX_DEFAULT (grub-mkconfig puts both, in that order, on the
    normal entries), after every file is sourced in order (/etc/default/grub, then grub.d/*.cfg)."""
    env: dict[str, str] = {}
    origin: dict[str, str] = {}
    for path, text in files:
        for n, line in enumerate(text.splitlines(), 1):
            m = _GRUB_ASSIGN.match(line)
            if m:
                env[m.group(1)] = _shell_value(m.group(2), env)
                origin[m.group(1)] = f"{path}:{n}"
    out: list[CmdlineParam] = []
    for var in ("GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT"):
        if var in env:
            out += _params(env[var], origin[var])
    return out


def parse_loader_entry(path: str, text: str) -> list[CmdlineParam]:
    """`options …` lines of a Boot Loader Specification entry (several are joined)."""
    out: list[CmdlineParam] = []
    for n, line in enumerate(text.splitlines(), 1):
        key, _, rest = line.strip().partition(" ")
        if key == "options":
            out += _params(rest, f"{path}:{n}")
    return out


def _grub_config(host: Host) -> BootCmdlineConfig:
    files: list[tuple[str, str]] = []
    unread: list[str] = []
    text, shown = read_file(host, GRUB_DEFAULT.path)
    if not shown:
        unread.append(GRUB_DEFAULT.path)
    elif text is not None:
        files.append((GRUB_DEFAULT.path, text))
    dropins = read_config_dirs(host, (GRUB_DEFAULT_D.path,), ".cfg")  # sourced in name order after it
    files += [(f.path, f.text) for f in dropins.files]
    unread += dropins.unread
    return BootCmdlineConfig("grub", tuple(parse_grub_default(files)), tuple(p for p, _ in files), tuple(unread))


def _systemd_boot_config(host: Host) -> BootCmdlineConfig:
    """/etc/kernel/cmdline where it exists (kernel-install and proxmox-boot-tool write it into every entry),
    else the `options` every loader entry has in common."""
    text, shown = read_file(host, KERNEL_CMDLINE_FILE.path)
    if text is not None and text.strip():
        line = " ".join(text.split())
        return BootCmdlineConfig("systemd-boot", tuple(_params(line, f"{KERNEL_CMDLINE_FILE.path}:1")),
                                 (KERNEL_CMDLINE_FILE.path,))
    unread = [] if shown else [KERNEL_CMDLINE_FILE.path]
    entries: list[tuple[str, list[CmdlineParam]]] = []
    # Each place an ESP may be mounted is read on its own: an entry of the same name in both is two entries,
    # not one hiding the other as in a stack of configuration directories.
    for source in LOADER_ENTRIES:
        found = read_config_dirs(host, (source.path,), ".conf")
        entries += [(f.path, parse_loader_entry(f.path, f.text)) for f in found.files]
        unread += found.unread
    if not entries:
        return BootCmdlineConfig("systemd-boot", (), (), tuple(unread) or (KERNEL_CMDLINE_FILE.path,))
    common = [p for p in entries[0][1]
              if all(any((q.name, q.value) == (p.name, p.value) for q in params) for _, params in entries[1:])]
    return BootCmdlineConfig("systemd-boot", tuple(common), tuple(path for path, _ in entries), tuple(unread))


@provider("boot_cmdline_config", BootCmdlineConfig, title="the boot loader's configuration",
          hint=GRUB_DEFAULT.hint)
def boot_cmdline_config(ctx: FactContext) -> BootCmdlineConfig:
    """The kernel command line the boot loader in use is configured with (/etc/default/grub or /etc/kernel/cmdline)."""
    from stackaudit.facts.container import ContainerInfo

    container = ctx.optional("container", ContainerInfo)
    if container is not None and container.in_container:
        raise FactUnavailable("in a container, the boot loader's configuration is the host's")
    loader = ctx.optional("boot_loader", BootLoader)
    if loader is not None:
        return _grub_config(ctx.host) if loader.name == "grub" else _systemd_boot_config(ctx.host)
    # Which one is in use is not known: both, loader "" (a parameter either sets cannot be placed).
    grub, sdboot = _grub_config(ctx.host), _systemd_boot_config(ctx.host)
    unread = [*grub.unread, *(u for u in sdboot.unread if u != KERNEL_CMDLINE_FILE.path or sdboot.files)]
    return BootCmdlineConfig("", grub.params + sdboot.params, grub.files + sdboot.files, tuple(unread))
