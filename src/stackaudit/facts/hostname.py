"""The host's name, from every source that shows it: `uname -a`, /proc/sys/kernel/hostname,
/etc/hostname, then a pasted log's line prefixes (journalctl / syslog `Mar  1 10:00:00 gpu-node
kernel: ...`, which the paste's normalisation takes off and records, NCCL's `gpu-node:3381:3427 [0] NCCL INFO ...`, nccl-tests' `... on gpu-node device 0`).

A log from several hosts (a multi-node NCCL log) names none of them as *the* host.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import FactContext, FactUnavailable, Sourced, fact, first_of, parser, provider
from stackaudit.facts.sources import LOG_LINE_HOSTS
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


@parser(LOG_LINE_HOSTS, feeds="hostname", kind=Hostname, rank=30)
def hostname_from_log_prefixes(text: str) -> Hostname:
    """The host a pasted journal / syslog line's prefix names (`Mar  1 10:00:00 gpu-node kernel: ...`).

    Input (tests/data/captures/100; the importer hands this parser the names, `ip-172-31-92-157`)::

        Feb 24 09:28:18 ip-172-31-92-157 systemd[1]: Starting NVIDIA fabric manager service...
        Feb 24 09:28:28 ip-172-31-92-157 nv-fabricmanager[1507]: fabric manager NVIDIA GPU driver interface version 535.183.01 don'
    """
    names = set(text.split())
    if len(names) != 1:
        raise ParseError("the log's line prefixes name no single host")
    try:
        return _named(names.pop(), "log line prefixes")
    except FactUnavailable as exc:
        raise ParseError(str(exc)) from exc


@provider("hostname", Hostname, rank=40, title="the NCCL log's line prefixes")
def hostname_from_nccl_log(ctx: FactContext) -> Hostname:
    """The host NCCL's lines name (`gpu-node:3381:3427 [0] NCCL INFO ...`), when they name one only."""
    from stackaudit.facts.serving_logs import ServingLog

    log = ctx.fact("serving_log", ServingLog)
    hosts = set(log.nccl_hosts)
    if len(hosts) != 1 or log.multi_host:  # one name, two network stacks (ServingLog.hosts_apart): two hosts
        raise FactUnavailable("the NCCL log names no single host")
    return _named(hosts.pop(), "NCCL log line prefixes")
