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

GRUB with `GRUB_ENABLE_BLSCFG=true` (RHEL, Fedora, Rocky) boots the loader entries, and expands a `$name`
word of their `options` (and of a `linux` line grub-mkconfig wrote from GRUB_CMDLINE_LINUX_DEFAULT) from
its environment: grubenv, and `set name=` lines of grub.cfg. tuned's [bootloader] plugin appends
`$tuned_params` there and writes its value into /etc/tuned/bootcmdline (`TUNED_BOOT_CMDLINE=`), which
/etc/grub.d/00_tuned turns into grub.cfg's `set tuned_params=`, and into grubenv (`tuned_params=`).
grub.cfg itself is not read (often readable by root only, and regenerated from these files): bootcmdline stands for
its `set tuned_params=`. A variable whose value neither gives is unknown, never empty. systemd-boot
expands nothing: a `$name` word there reaches the kernel as it is.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError, only_one
from stackaudit.facts.config_dirs import read_config_dirs, read_file
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, provider, read_source
from stackaudit.facts.sources import (
    EVIDENCE_LINES,
    GRUB_DEFAULT,
    GRUB_DEFAULT_D,
    GRUBENV_FILES,
    KERNEL_CMDLINE_FILE,
    LOADER_ENTRIES,
    OS_RELEASE,
    TUNED_BOOTCMDLINE,
    TUNED_GRUB_TEMPLATE,
)
from stackaudit.host.base import Host, read_optional, read_or_none

LOADER_INFO = "/sys/firmware/efi/efivars/LoaderInfo-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"


@dataclass(frozen=True)
class BootLoader:
    name: str  # "grub" or "systemd-boot"
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


# --- the tool that changes the command line for good -------------------------------------------
#
# How a kernel parameter is added for good depends on the distribution as much as on the loader:
# Debian and Ubuntu: GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub; RHEL, Fedora,
# Rocky and Alma: `grubby --update-kernel=ALL --args=…` (GRUB boots BLS entries there, and an edit of
# /etc/default/grub alone no longer reaches them); Pop!_OS: `kernelstub -a …` (systemd-boot entries it
# rewrites on every kernel update); systemd-boot elsewhere: /etc/kernel/cmdline. The fix forms are in
# fixes/kernel_cmdline.py.
# Where neither /etc/os-release nor the kernel's build names the family, a pasted environment list's OS line does
# (STATED_OS).

_DEBIAN_IDS = {"debian", "ubuntu"}
_RHEL_IDS = {"rhel", "fedora", "centos", "rocky", "almalinux", "ol"}
# The kernel's release or version string names the family: `.el9` / `.fc40` (Red Hat builds),
# `-Ubuntu` and `Debian` in `uname -v` (their kernel packages' version strings).
_RHEL_KERNEL = re.compile(r"\.(?:el\d+|fc\d+)")
_DEBIAN_KERNEL = re.compile(r"\b(Ubuntu|Debian)\b")


@dataclass(frozen=True)
class CmdlineTool:
    name: str  # "update-grub", "grubby", "kernelstub" or "systemd-boot"
    evidence: str


fact("cmdline_tool", CmdlineTool, first_of, hint="paste `cat /etc/os-release`")


def tool_of(found: CmdlineTool | None) -> str:
    """The tool's name ("" when the source does not show it): what fixes/kernel_cmdline.py takes."""
    return found.name if found is not None else ""


def parse_os_release(text: str) -> dict[str, str]:
    """`KEY=value` lines of os-release(5), quotes removed."""
    out: dict[str, str] = {}
    for line in text.splitlines()[:200]:
        key, eq, value = line.strip().partition("=")
        if eq and re.fullmatch(r"[A-Z_]+", key):
            out[key] = value.strip().strip("\"'")[:200]
    return out


def tool_of_os_release(fields: dict[str, str], loader: str = "") -> str:
    """The tool for an os-release's ID and ID_LIKE and the boot loader in use ("" when neither says)."""
    ids = {fields.get("ID", "").lower(), *fields.get("ID_LIKE", "").lower().split()}
    if "pop" in ids:
        return "kernelstub"
    if loader == "systemd-boot":
        return "systemd-boot"
    if ids & _DEBIAN_IDS:
        return "update-grub"
    if ids & _RHEL_IDS:
        return "grubby"
    return ""


@provider("cmdline_tool", CmdlineTool, rank=10, title=OS_RELEASE.title)
def cmdline_tool_from_os_release(ctx: FactContext) -> CmdlineTool:
    """The distribution's tool, from /etc/os-release outside a container (a container's is its image's)."""
    from stackaudit.facts.container import ContainerInfo

    container = ctx.optional("container", ContainerInfo)
    if container is not None and container.in_container:
        raise FactUnavailable("in a container, /etc/os-release is not the host's")
    text = read_optional(ctx.host, OS_RELEASE.path)
    if not text:
        raise FactUnavailable("no /etc/os-release")
    fields = parse_os_release(text)
    loader = ctx.optional("boot_loader", BootLoader)
    name = tool_of_os_release(fields, loader.name if loader is not None else "")
    if not name:
        raise FactUnavailable(f"/etc/os-release ID={fields.get('ID', '')!r}: no known kernel command-line tool")
    pretty = fields.get("PRETTY_NAME") or fields.get("ID", "")
    return CmdlineTool(name, f"/etc/os-release: {pretty}" + (f"; {loader.evidence}" if loader is not None else ""))


@provider("cmdline_tool", CmdlineTool, rank=20, title="`uname -a`")
def cmdline_tool_from_kernel(ctx: FactContext) -> CmdlineTool:
    """The family of the running kernel's build (the host's, also from inside a container)."""
    from stackaudit.facts.system import KernelInfo

    kernel = ctx.fact("kernel", KernelInfo)
    loader = ctx.optional("boot_loader", BootLoader)
    if loader is not None and loader.name == "systemd-boot":
        return CmdlineTool("systemd-boot", loader.evidence)
    if _RHEL_KERNEL.search(kernel.release):
        return CmdlineTool("grubby", f"kernel {kernel.release} (a Red Hat family build)")
    m = _DEBIAN_KERNEL.search(kernel.version)
    if m:
        return CmdlineTool("update-grub", f"kernel {kernel.release} ({m.group(1)} build)")
    raise FactUnavailable(f"kernel {kernel.release}: no distribution family in its release or version")



# An environment list's OS line naming the distribution (`- Os: Ubuntu 20.04`, corpus 1736; `* OS: CentOS 7`, corpus
# 1105; `OS: Ubuntu 22.04 (Jammy)`, NVIDIA/TensorRT-LLM#1507; `- OS: Ubuntu: 22.04`, tensorrtllm_backend#390), the
# version glued on or not (`OS: CentOS7`, corpus 1509). A line that places it in a container, an image or WSL
# (`- os:DISTRIB_DESCRIPTION="Ubuntu 22.04.4 LTS"(docker)`, NVIDIA/TensorRT-LLM#1860) names no host's distribution,
# and neither does one naming two systems (`- OS: Both native Ubuntu and also WSL`, corpus 1175).
STATED_OS = re.compile(r"^\W*(?:OS|Operating System|OS version|Linux distro(?:bution)?)\**\s*[:：]\**\s*"
                       r"(?P<distro>Ubuntu|Debian|Linux Mint|Pop!_OS|CentOS|Red Hat|RHEL|Rocky|AlmaLinux|Alma|Fedora|"
                       r"Oracle Linux)(?![A-Za-z])(?P<rest>.{0,120})$", re.IGNORECASE)
_STATED_ELSEWHERE = re.compile(r"docker|container|image|\bWSL|\band\b|\bor\b|/", re.IGNORECASE)
_STATED_TOOL = {"ubuntu": "update-grub", "debian": "update-grub", "linux mint": "update-grub", "pop!_os": "kernelstub"}


def stated_os_tool(line: str) -> str:
    """The kernel command-line tool of the distribution a list's OS line names (STATED_OS); "" for any other line."""
    m = STATED_OS.match(line.strip())
    if m is None or _STATED_ELSEWHERE.search(m.group("rest")):
        return ""
    return _STATED_TOOL.get(m.group("distro").lower(), "grubby")


@provider("cmdline_tool", CmdlineTool, rank=30, title="a pasted list's OS line")
def cmdline_tool_from_list(ctx: FactContext) -> CmdlineTool:
    """The distribution's tool, from the OS line of a pasted environment list, outside a container (a container's
    OS is its image's)."""
    from stackaudit.facts.container import ContainerInfo

    container = ctx.optional("container", ContainerInfo)
    if container is not None and container.in_container:
        raise FactUnavailable("in a container, a list's OS may be the image's, not the host's")
    try:
        return cmdline_tool_from_stated_os(read_source(ctx.host, EVIDENCE_LINES))
    except ParseError as exc:
        raise FactUnavailable(f"{EVIDENCE_LINES.title}: {exc}") from exc


def cmdline_tool_from_stated_os(text: str) -> CmdlineTool:
    """The distribution's tool, from the OS line of a pasted environment list (STATED_OS). Lines that name two
    families name no one tool.

    Input (tests/data/captures/1736)::

        - Os: Ubuntu 20.04
    """
    found = {tool: line.strip() for line in text.splitlines()[:2000] if (tool := stated_os_tool(line))}
    tool, line = only_one(found.items(), "no list line names the distribution" if not found else
                          f"the lines shown name distributions of several families ({', '.join(found.values())})")
    return CmdlineTool(tool, f"the OS a pasted list names ({line})")

# --- the command line the next boot gets --------------------------------------------------------

_GRUB_ASSIGN = re.compile(r"^\s*(?:export\s+)?(GRUB_CMDLINE_LINUX(?:_DEFAULT)?)=(.*)$")


_GRUB_BLSCFG = re.compile(r'^\s*GRUB_ENABLE_BLSCFG\s*=\s*"?\s*true\s*"?\s*$', re.I | re.M)
_GRUB_VARIABLE_WORD = re.compile(r"^\$(?:\{(\w+)\}|(\w+))$")
_TUNED_BOOT_CMDLINE = re.compile(r"^\s*TUNED_BOOT_CMDLINE=(.*)$")


@dataclass(frozen=True)
class CmdlineParam:
    name: str
    value: str | None  # None: a bare flag (`quiet`)
    where: str  # file:line
    via: str = ""  # the `$name` word (and its file:line) GRUB expanded into this parameter, if any
    unknown: str = ""  # a `$name` word whose value is not in the source: what is not known, in words

    @property
    def word(self) -> str:
        return self.name if self.value is None else f"{self.name}={self.value}"


@dataclass(frozen=True)
class BootCmdlineConfig:
    """The kernel parameters the boot loader in use is configured to pass at the next boot, in order (a later
    one of the same name wins, as the kernel reads them); `files` read, `unread` places not in the source."""

    loader: str  # "grub" or "systemd-boot"; "" when which is in use is not known (both configurations read)
    params: tuple[CmdlineParam, ...]
    files: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()  # `$name` words on the command line whose value is not in the source

    @property
    def complete(self) -> bool:
        return not self.unread and not self.unknown

    def last(self, name: str) -> CmdlineParam | None:
        return next((p for p in reversed(self.params) if p.name == name), None)

    def unknown_after(self, name: str) -> list[str]:
        """The `$name` words of unknown value after the last `name` parameter (all, where none sets it):
        any of them may set it again."""
        last = max((i for i, p in enumerate(self.params) if p.name == name), default=-1)
        return [p.unknown for p in self.params[last + 1:] if p.unknown]


def _shell_value(raw: str, env: dict[str, str]) -> str:
    """The value of a one-line shell assignment: quotes removed, `$VAR` / `${VAR}` of the GRUB variables
    expanded (grub.d snippets append with `GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT x"`)."""
    try:
        words = shlex.split(raw, comments=True, posix=True)
    except ValueError:
        words = [raw.strip().strip("\"'")]
    text = " ".join(words) if len(words) != 1 else words[0]
    # `${VAR:+word}`: word when VAR is set and not empty (tuned appends `${GRUB_CMDLINE_LINUX_DEFAULT:+$...} `)
    text = re.sub(r"\$\{(GRUB_CMDLINE_LINUX(?:_DEFAULT)?):\+([^}]*)\}",
                  lambda m: m.group(2) if env.get(m.group(1)) else "", text)
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


def parse_grubenv(path: str, text: str) -> dict[str, tuple[str, str]]:
    """grubenv's `name=value` lines (the block is padded with `#`): name -> (value, file:line)."""
    out: dict[str, tuple[str, str]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        name, eq, value = line.partition("=")
        if eq and not name.startswith("#") and re.fullmatch(r"\w+", name):
            out[name] = (value, f"{path}:{n}")
    return out


def parse_tuned_bootcmdline(path: str, text: str) -> tuple[str, str] | None:
    """(TUNED_BOOT_CMDLINE's value, file:line) of /etc/tuned/bootcmdline (a shell file 00_tuned sources)."""
    found = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _TUNED_BOOT_CMDLINE.match(line)
        if m:
            found = (_shell_value(m.group(1), {}), f"{path}:{n}")
    return found


def grub_variables(host: Host) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The values GRUB gives `$name` words at boot (name -> (value, file:line)), and the files not in the
    source. tuned_params: /etc/tuned/bootcmdline first (/etc/grub.d/00_tuned sets it in grub.cfg after grubenv
    is loaded, and tuned writes both together), else grubenv."""
    values: dict[str, tuple[str, str]] = {}
    unread: list[str] = []
    for path in GRUBENV_FILES:
        text, shown = read_file(host, path)
        if text is not None:
            values.update(parse_grubenv(path, text))
            break
        if not shown:
            unread.append(path)
    template, template_shown = read_file(host, TUNED_GRUB_TEMPLATE)
    if template is None and template_shown:
        # Without it grub-mkconfig writes no `set tuned_params` and tuned disables its bootloader plugin
        # (plugin_bootloader.py): a bootcmdline left behind reaches no boot.
        return values, unread
    text, shown = read_file(host, TUNED_BOOTCMDLINE.path)
    tuned = parse_tuned_bootcmdline(TUNED_BOOTCMDLINE.path, text) if text is not None else None
    if tuned is not None:
        values["tuned_params"] = tuned
    elif not shown:
        unread.append(TUNED_BOOTCMDLINE.path)
    return values, unread


def expand_grub_variables(params: list[CmdlineParam], variables: dict[str, tuple[str, str]],
                          unread: list[str]) -> tuple[list[CmdlineParam], list[str]]:
    """Each `$name` / `${name}` word replaced by the parameters of its value (their file:line, `via` the
    word's); one whose value is not in the source stays, marked `unknown`, and is named in the second list."""
    out: list[CmdlineParam] = []
    unknown: list[str] = []
    for p in params:
        m = _GRUB_VARIABLE_WORD.match(p.name) if p.value is None else None
        if m is None:
            out.append(p)
            continue
        name = m.group(1) or m.group(2)
        if name in variables:
            value, where = variables[name]
            out += [CmdlineParam(q.name, q.value, where, f"${name} in {p.where}") for q in _params(value, where)]
        else:
            read = "/etc/tuned/bootcmdline or grubenv" if name == "tuned_params" else "grubenv"
            unknown.append(f"the value of ${name} (used in {p.where}; {read} "
                           f"{'not readable' if unread else 'does not set it'})")
            out.append(CmdlineParam(p.name, None, p.where, unknown=unknown[-1]))
    return out, unknown


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
    variables, unread_vars = grub_variables(host)
    if any(_GRUB_BLSCFG.search(t) for _, t in files):
        # GRUB boots the loader entries; /etc/default/grub only seeds the entries of kernels installed later.
        entries, entries_unread = _loader_entries(host)
        expanded = [(path, *expand_grub_variables(params, variables, unread_vars)) for path, params in entries]
        return BootCmdlineConfig("grub", tuple(_common([params for _, params, _ in expanded])),
                                 tuple(p for p, _ in files) + tuple(path for path, _, _ in expanded),
                                 tuple(unread + entries_unread) or (() if entries else (LOADER_ENTRIES[0].path,)),
                                 tuple(u for _, _, unknown in expanded for u in unknown))
    params, unknown = expand_grub_variables(parse_grub_default(files), variables, unread_vars)
    return BootCmdlineConfig("grub", tuple(params), tuple(p for p, _ in files), tuple(unread), tuple(unknown))


def _loader_entries(host: Host) -> tuple[list[tuple[str, list[CmdlineParam]]], list[str]]:
    """Every loader entry's options, rescue entries left out where others exist (tuned leaves them alone,
    and they are not what a normal boot starts)."""
    entries: list[tuple[str, list[CmdlineParam]]] = []
    unread: list[str] = []
    # Each place an ESP may be mounted is read on its own: an entry of the same name in both is two entries,
    # not one hiding the other as in a stack of configuration directories.
    for source in LOADER_ENTRIES:
        found = read_config_dirs(host, (source.path,), ".conf")
        entries += [(f.path, parse_loader_entry(f.path, f.text)) for f in found.files]
        unread += found.unread
    normal = [e for e in entries if not e[0].endswith("-rescue.conf")]
    return normal or entries, unread


def _common(entries: list[list[CmdlineParam]]) -> list[CmdlineParam]:
    """The parameters every entry has (the one the next boot starts is not known here)."""
    if not entries:
        return []
    return [p for p in entries[0]
            if all(any((q.name, q.value) == (p.name, p.value) for q in params) for params in entries[1:])]


def _systemd_boot_config(host: Host) -> BootCmdlineConfig:
    """/etc/kernel/cmdline where it exists (kernel-install and proxmox-boot-tool write it into every entry),
    else the `options` every loader entry has in common."""
    text, shown = read_file(host, KERNEL_CMDLINE_FILE.path)
    if text is not None and text.strip():
        line = " ".join(text.split())
        return BootCmdlineConfig("systemd-boot", tuple(_params(line, f"{KERNEL_CMDLINE_FILE.path}:1")),
                                 (KERNEL_CMDLINE_FILE.path,))
    unread = [] if shown else [KERNEL_CMDLINE_FILE.path]
    entries, entries_unread = _loader_entries(host)
    unread += entries_unread
    if not entries:
        return BootCmdlineConfig("systemd-boot", (), (), tuple(unread) or (KERNEL_CMDLINE_FILE.path,))
    common = _common([params for _, params in entries])
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
    return BootCmdlineConfig("", grub.params + sdboot.params, grub.files + sdboot.files,
                             tuple(dict.fromkeys(unread)), grub.unknown)
