"""The host's name, from every source that shows it: `uname -a`, /proc/sys/kernel/hostname,
/etc/hostname, then a pasted log's line prefixes (journalctl / syslog `Mar  1 10:00:00 gpu-node
kernel: ...`, NCCL's `gpu-node:3381:3427 [0] NCCL INFO ...`, nccl-tests' `... on gpu-node device 0`).

A log from several hosts (a multi-node NCCL log) names none of them as *the* host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, first_of, provider
from stackaudit.host.base import read_optional

_REDACTED = {"<redacted>", "redacted", "localhost", "(none)", ""}


@dataclass(frozen=True)
class Hostname(Sourced):
    name: str


fact("hostname", Hostname, first_of, hint="paste `uname -a`")


def _named(name: str, source: str) -> Hostname:
    name = name.strip()
    if name.lower() in _REDACTED:
        raise FactUnavailable(f"{source} names no host")
    return Hostname(name)


@provider("hostname", Hostname, rank=10, title="`uname -a`")
def hostname_from_uname(ctx: FactContext) -> Hostname:
    """The node name `uname -a` prints."""
    from stackaudit.facts.system import KernelInfo

    kernel = ctx.fact("kernel", KernelInfo)
    return _named(kernel.hostname, "uname -a")


@provider("hostname", Hostname, rank=20, title="/proc/sys/kernel/hostname, /etc/hostname")
def hostname_from_files(ctx: FactContext) -> Hostname:
    """/proc/sys/kernel/hostname, else /etc/hostname."""
    for path in ("/proc/sys/kernel/hostname", "/etc/hostname"):
        text = read_optional(ctx.host, path)
        if text and text.strip():
            return _named(text.splitlines()[0], path)
    raise FactUnavailable("no hostname file")


_SYSLOG_HOST = re.compile(r"^\w{3}\s+\d+\s+[\d:]+\s+(\S+)\s+kernel:|^\d{4}-\d\d-\d\dT\S+\s+(\S+)\s+kernel:")


@provider("hostname", Hostname, rank=30, title="the kernel log's line prefixes")
def hostname_from_kernel_log(ctx: FactContext) -> Hostname:
    """The host a journal / syslog kernel line names (`Mar  1 10:00:00 gpu-node kernel: ...`)."""
    from stackaudit.facts.system import KernelLog

    names = {m.group(1) or m.group(2) for line in ctx.fact("kernel_log", KernelLog).lines
             if (m := _SYSLOG_HOST.match(line))}
    if len(names) != 1:
        raise FactUnavailable("the kernel log names no single host")
    return _named(names.pop(), "kernel log line prefixes")


@provider("hostname", Hostname, rank=40, title="the NCCL log's line prefixes")
def hostname_from_nccl_log(ctx: FactContext) -> Hostname:
    """The host NCCL's lines name (`gpu-node:3381:3427 [0] NCCL INFO ...`), when they name one only."""
    from stackaudit.facts.serving_logs import ServingLog

    hosts = set(ctx.fact("serving_log", ServingLog).nccl_hosts)
    if len(hosts) != 1:
        raise FactUnavailable("the NCCL log names no single host")
    return _named(hosts.pop(), "NCCL log line prefixes")
