"""What operators paste about the NVIDIA daemons: `systemctl status/start/restart` of nvidia-fabricmanager
and nvidia-persistenced (or a status summary's Markdown row of the unit and its state), their journal or syslog
lines, and a GPU operator driver container's log (or GKE's driver installer's on Container-Optimized OS).

Every span appends its lines, in paste order, to the pasted document NVIDIA_DAEMON_LOG
(facts/sources.py), which facts/nvidia_daemons.py plays into each daemon's state. A status block
ends at a blank line (the journal tail `systemctl status` prints after it is journal lines).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.nvidia_daemons import (
    COS_INSTALLER_LINE,
    DAEMON_TAG,
    GLOG_LINE,
    MPS_LOG_LINE,
    NOT_FOUND,
    RUN_UNPACK,
    STATUS_UNITS,
    TABLE_ROW,
    daemon_event,
    status_unit,
)
from stackaudit.facts.sources import NVIDIA_DAEMON_LOG
from stackaudit.facts.symptoms import FM_FATAL
from stackaudit.importers._scan import FENCE, Candidates, Scan, run_end
from stackaudit.importers.registry import Found, document_appended, importer


def _found(kind: str, lines: list[str], start: int, end: int) -> Found:
    # A blank line after each span: a status block's `Active:` never applies to the next span's lines.
    return Found(kind, start, end, document_appended(NVIDIA_DAEMON_LOG.name, "\n".join(lines[start:end]) + "\n\n"))


_JOB = re.compile(r"^Job for (?:" + STATUS_UNITS + r")(?:\.service)? failed\b")
_SEE = re.compile(r'^See "systemctl status|^See system logs and|^Hint:')
_STATUS_FIELD = re.compile(r"^\s+(?:Loaded|Active|Drop-In|Docs|Process|Main PID|Tasks|Memory|CPU|CGroup|Status|"
                           r"TriggeredBy|IP|IO|Mem)\b|^\s+[│├└|`]|^\s{8,}\S")


# What the reader reads: systemctl's answers about the units of STATUS_UNITS (the NVIDIA daemons and docker).
_KIND = "systemctl status"


@importer(_KIND,
          "`systemctl status/start/restart` of nvidia-fabricmanager, nvidia-persistenced, nvidia-dcgm, docker and "
          "nvidia-docker, "
          "its answer "
          "for such a unit that is not installed (`Unit nvidia-fabricmanager.service could not be found.`), and a "
          "status summary's table row of one (`| nvidia-fabricmanager.service | active (running) |`)",
          needles=("fabricmanager.service", "persistenced.service", "dcgm.service", "hostengine.service", "Job for",
                   "docker.service",
                   "requested service"), per_line=True)
def systemctl_units(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        line = lines[i].strip()
        if NOT_FOUND.search(line):  # systemd has no such unit: the daemon is not installed
            yield _found(_KIND, lines, i, i + 1)
            continue
        if _JOB.match(line):
            end = run_end(lines, i + 1, lambda line: _SEE.match(line.strip()))
            yield _found(_KIND, lines, i, end)
            scan.skip(end)
            continue
        if TABLE_ROW.match(line):  # a status summary's table row: the unit and its state (`| unit | active (running) |`)
            yield _found(_KIND, lines, i, i + 1)
            continue
        if status_unit(lines[i]) is None:
            continue
        end = run_end(lines, i + 1, lambda line: line.strip() and not FENCE.match(line) and _STATUS_FIELD.match(line))
        if end > i + 1 and any(re.match(r"\s*Active:", b) for b in lines[i + 1:end]):
            yield _found(_KIND, lines, i, end)
        scan.skip(end)


# A journal/syslog line carries its program's tag; one of these names stands on every line of the daemons. Fabric
# Manager's own fatal words (FM_FATAL) are its line with or without a tag (the Talos extension prints the node's address).
_JOURNAL_NEEDLES = ("fabricmanager", "fabric manager", "persistenced", "persistence daemon", "hostengine", "dcgm",
                    "docker.service", "Docker Application Container Engine", "NVIDIA Docker plugin")
_TAGGED = re.compile(DAEMON_TAG)
# systemd's own message about a unit, pasted without its journal tag (`nvidia-docker.service: Main process exited,
# code=exited, status=1/FAILURE`, corpus 2207): the unit's name heads it.
_UNIT_MESSAGE = re.compile(r"^\s*[\w.@-]{1,80}\.service: (?:Main process exited|Control process exited|Failed with "
                           r"result|Start request repeated too quickly|Scheduled restart job)")


def _journal_line(line: str) -> bool:
    return (bool(_TAGGED.search(line)) or bool(FM_FATAL.search(line)) or bool(_UNIT_MESSAGE.match(line))) \
        and daemon_event(line) is not None


@importer("NVIDIA daemon journal",
          "journal / syslog lines of nv-fabricmanager (and the Talos extension's wrapper), nvidia-persistenced, "
          "nv-hostengine and systemd about their units, docker.service and nvidia-docker.service",
          needles=_JOURNAL_NEEDLES, per_line=True)
def daemon_journal(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not _journal_line(lines[i]):
            continue
        # A daemon's message continued on the next journal line with no text of its own stays in the run.
        end = run_end(lines, i + 1, lambda line: _journal_line(line) or re.search(
            r"(?:nv-fabricmanager|nvidia-persistenced)(?:\[\d+\])?:\s*$", line))
        yield _found("NVIDIA daemon journal", lines, i, end)
        scan.skip(end)


# The GPU operator driver container's own messages (nvidia-driver-ctr, k8s-driver-manager).
_CONTAINER = re.compile(r"^(?:Starting|Stopping) NVIDIA (?:fabric manager|persistence) daemon|"
                        r"^Mounting NVIDIA driver rootfs|^(?:Loading|Unloading|Installing) NVIDIA driver kernel modules|"
                        r"^Starting installation of NVIDIA driver version \d|" + RUN_UNPACK.pattern)


# An MPS daemon container's entrypoint (the `nvidia/mps` image that AWS's virtual GPU device plugin runs: corpus 2731)
# printing what it starts the control daemon with, above the daemon's own log (MPS_LOG_LINE).
_MPS_ENTRYPOINT = re.compile(r"^(?:Size of /dev/shm: \d+ bytes|CUDA_MPS_[A-Z_]+: \S+|Available GPUs:\s|"
                             r"Starting NVIDIA MPS control daemon\b)")


def _mps_line(line: str) -> bool:
    return MPS_LOG_LINE.match(line) is not None or _MPS_ENTRYPOINT.match(line.strip()) is not None


@importer("driver container log", "a GPU operator driver container's log (its Fabric Manager and persistenced "
          "start), GKE's driver installer's log on Container-Optimized OS (its glog lines from one about the GPU "
          "driver), or an MPS daemon container's log (its entrypoint's lines, the control daemon's and its servers')",
          needles=("NVIDIA fabric manager daemon", "NVIDIA persistence daemon", "NVIDIA driver rootfs",
                   "NVIDIA driver kernel modules", "installation of NVIDIA driver version",
                   "NVIDIA Accelerated Graphics Driver for Linux", "directory NVIDIA-Linux-", "GPU driver",
                   "linking drivers", "link command", "gpu-key", "gpu_default_version", " Control ", " Server ",
                   " Other ", "Size of /dev/shm", "CUDA_MPS_", "Available GPUs:", "NVIDIA MPS control daemon"),
          per_line=True)
def driver_container(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if COS_INSTALLER_LINE.match(lines[i]):
            end = run_end(lines, i + 1, lambda line: GLOG_LINE.match(line))
        elif _CONTAINER.match(lines[i].strip()):
            end = run_end(lines, i + 1, lambda line: line.strip() and not FENCE.match(line))
        elif _mps_line(lines[i]):
            end = run_end(lines, i + 1, _mps_line)
        else:
            continue
        yield _found("driver container log", lines, i, end)
        scan.skip(end)
