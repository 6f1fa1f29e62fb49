"""Several hosts in one paste: spans of single-valued outputs that disagree.

A thread often pastes the same commands from two nodes ("node 1: ..., node 2: ..."). Merged, they
would describe a machine that does not exist. A span says which host it shows through the few values
a machine has exactly one of: the kernel it runs (`uname -a`), its boot command line, its CPU model
(`lscpu`), its GPU models (`nvidia-smi`), the hostname a log prefix (journald, syslog) gives its lines. The
first host seen is audited; a span whose value differs starts another host's part of the paste, which
runs until a span shows the first host again (its kernel, command line or journal hostname).

A host and its own container are one machine seen from two scopes, not two hosts: a container's
`uname -a` shows the host's kernel under the container's hostname, and a docker inspect or an LXC
config carries nothing compared here. So `uname -a` is compared by kernel release and build, never by
hostname alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from stackaudit.facts.system import UNAME_LINE

Identity = dict[str, str]

# Values that, seen equal again, show the first host once more (a GPU or CPU model is shared by many hosts).
CONFIRMING = frozenset({"kernel", "cmdline", "journal host"})
# Recognisers that stop at their first match; the registry looks for their later spans too.
PROBED_KINDS = ("uname -a", "/proc/cmdline")
MAX_PROBES = 8

_CMDLINE_PREFIX = re.compile(r"^.*?\b(?:Kernel command line|Command line):\s*")
_MODEL_NAME = re.compile(r"^\s*Model name:\s*(?P<v>\S.*?)\s*$")
_SMI_TABLE_GPU = re.compile(r"^\|\s+\d+\s+(?P<v>(?:NVIDIA|Tesla|Quadro|GeForce|TITAN|Titan|A\d|H\d|L\d|B\d)[^|]*?)"
                            r"\s+(?:On|Off)\s+\|")
_SMI_Q_GPU = re.compile(r"^\s*Product Name\s*:\s*(?P<v>\S.*?)\s*$")
_SMI_XML_GPU = re.compile(r"<product_name>\s*(?P<v>[^<]*?)\s*</product_name>")


def _uname(lines: list[str]) -> Identity:
    for line in lines:
        m = UNAME_LINE.match(line)
        if m:
            return {"kernel": f"{m.group('release')} {m.group('version')}", "hostname": m.group("host") or ""}
    return {}


# Boot-loader entries hold a command line too (grub.cfg's `linux /vmlinuz-... root=...`, syslinux's
# `append`, systemd-boot's `options`): a line of a config, not what a host booted with.
_BOOT_ENTRY = ("linux", "linux16", "linuxefi", "kernel", "append", "options", "set", "GRUB_")


def _cmdline(lines: list[str]) -> Identity:
    for line in lines:
        text = _CMDLINE_PREFIX.sub("", line.strip().strip("`"))
        if text.startswith(_BOOT_ENTRY):
            return {}
        tokens = sorted(t for t in text.split() if not t.startswith(("BOOT_IMAGE=", "initrd=")))
        if tokens:
            return {"cmdline": " ".join(tokens)}
    return {}


def _lscpu(lines: list[str]) -> Identity:
    for line in lines:
        m = _MODEL_NAME.match(line)
        if m:
            return {"cpu model": m.group("v")}
    return {}


def _models(pattern: re.Pattern[str], key: str) -> Callable[[list[str]], Identity]:
    def identity(lines: list[str]) -> Identity:
        models = sorted({m.group("v").strip() for line in lines for m in pattern.finditer(line)})
        return {key: ", ".join(models)} if models else {}

    return identity


IDENTITIES: dict[str, Callable[[list[str]], Identity]] = {
    "uname -a": _uname,
    "/proc/cmdline": _cmdline,
    "lscpu": _lscpu,
    "nvidia-smi": _models(_SMI_TABLE_GPU, "gpu models (nvidia-smi)"),
    "nvidia-smi -q": _models(_SMI_Q_GPU, "gpu models (nvidia-smi -q)"),
    "nvidia-smi -q -x": _models(_SMI_XML_GPU, "gpu models (nvidia-smi -q -x)"),
}


def identity(kind: str, lines: list[str], prefix_hosts: Iterable[str] = ()) -> Identity:
    """What a span shows of its host; `prefix_hosts`: the host names its lines' log prefixes gave (`_paste`)."""
    func = IDENTITIES.get(kind)
    ident = func(lines) if func else {}
    if not ident:
        host = next(iter(prefix_hosts), "")
        if host:
            ident = {"journal host": host}
    return ident


@dataclass
class HostProfile:
    """The first host's single values, kept across the files of one `--from` (a report split in files)."""

    values: Identity = field(default_factory=dict)


@dataclass
class HostSplitter:
    """Walks one file's spans in order and says which belong to another host."""

    profile: HostProfile
    other: str = ""  # the other host's name while inside its part of the paste

    def assign(self, ident: Identity) -> str:
        """'' when the span belongs to the first host; else the name of the other host it shows."""
        mine = self.profile.values
        conflicts = {k: v for k, v in ident.items() if k in mine and _differ(k, mine[k], v)}
        if conflicts:
            self.other = _name(ident, conflicts)
            return self.other
        if self.other:
            if any(k in CONFIRMING and mine.get(k) == v for k, v in ident.items()):
                self.other = ""
                return ""
            return self.other
        for k, v in ident.items():
            mine.setdefault(k, v)
        return ""


def _differ(key: str, mine: str, theirs: str) -> bool:
    """Whether two values of one key show two hosts. A hostname alone never does (a container has its
    own); GPU models do only when no model is shared (`nvidia-smi -i 0` of a mixed host is a subset)."""
    if key == "hostname":
        return False
    if key.startswith("gpu models"):
        return not set(mine.split(", ")) & set(theirs.split(", "))
    return mine != theirs


def _name(ident: Identity, conflicts: Identity) -> str:
    for key in ("hostname", "journal host"):
        if ident.get(key):
            return ident[key]
    key, value = next(iter(conflicts.items()))
    short = value if len(value) <= 60 else value[:57] + "..."
    return f"{key.split(' (')[0]} {short}"
