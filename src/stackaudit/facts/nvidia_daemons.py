"""What the NVIDIA daemons said about themselves, from pasted status and journal lines.

Operators paste `systemctl status/start/restart` of nvidia-fabricmanager, nvidia-persistenced and
nvidia-dcgm (DCGM's host engine, nv-hostengine),
`journalctl -u` of those units, syslog lines of the daemons, and a GPU operator driver container's
log. `daemon_event(line)` says which daemon a line is about and what it shows; `parse_daemon_log`
plays the events in paste order into each daemon's state (`Daemon.active`, as `systemctl
is-active` words). A failure stays until a later line shows the daemon started: `Starting` alone,
after a failure, is not a recovery.

Fabric Manager's own words settle two more things: a driver version mismatch (it exits at start,
a P0 on NVSwitch systems) and whether the host has NVSwitches (`NV_WARN_NOTHING_TO_DO` from the
NVSwitch driver: none; switches configured or an NVLink5+ start: some).
"""

from __future__ import annotations

import re

from stackaudit.facts._parse import ParseError, only_one
from stackaudit.facts.nvidia import Daemon, NvidiaDriver, NvidiaServices
from stackaudit.facts.registry import parser
from stackaudit.facts.sources import NVIDIA_DAEMON_LOG
from stackaudit.facts.symptoms import FM_FATAL
from stackaudit.facts.system import KernelInfo

FM, PERSISTENCED, HOSTENGINE, DOCKERD, NVDOCKER = "fm", "persistenced", "hostengine", "dockerd", "nvidia-docker"

# A syslog/journal line's tag: the program, its pid in brackets, a colon.
# The journal tags of the programs that speak of the daemons; a paste's normalisation keeps them (`_paste`).
# The Talos extension's wrapper (siderolabs/extensions, nvidia-fabricmanager-wrapper) starts NVLSM and nv-fabricmanager.
DAEMON_TAGS = ("systemd", "nv-fabricmanager", "nvidia-fabricmanager-start.sh", "nvidia-fabricmanager-wrapper",
               "nvidia-persistenced", "nv-hostengine")
DAEMON_TAG = "(?:" + "|".join(re.escape(t) for t in DAEMON_TAGS) + r")(?:\[\d+\])?:"
_TAG = re.compile(r"(?:^|\s)(?P<tag>" + "|".join(re.escape(t) for t in DAEMON_TAGS) + r")(?:\[\d+\])?:\s?(?P<msg>.*)$")
_FM_WORDS = re.compile(r"nvidia-fabricmanager|nv-fabricmanager|fabric ?manager", re.IGNORECASE)
# Fabric Manager's own words when its driver interface and the loaded driver differ, which it prints before it exits
# (`fabric manager NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15. Please
# update with matching NVIDIA driver package.`): its line with or without its tag and its leading `fabric manager`,
# as a user quotes it in prose (corpus 2390). No other program words a version mismatch so.
FM_MISMATCH = re.compile(r"\bGPU driver interface version \d+\.\d+(?:\.\d+)? don'?t match with driver version \d+\.\d+")
_PERSIST_WORDS = re.compile(r"nvidia-persistenced|persistence daemon", re.IGNORECASE)
_DCGM_WORDS = re.compile(r"nv-hostengine|nvidia-dcgm|DCGM host engine", re.IGNORECASE)
# Docker's daemon, which the NVIDIA runtime plugs into (`default-runtime` / `runtimes` in /etc/docker/daemon.json): its
# unit `docker.service` ("Docker Application Container Engine"), as `systemctl status docker` and a failed restart
# (`Job for docker.service failed`) name it; its own log lines are not read.
_DOCKER_WORDS = re.compile(r"^docker(?:\.service)?$|\bdocker\.service\b|Docker Application Container Engine")
# nvidia-docker 1's plugin daemon (nvidia-docker-plugin, run as the unit nvidia-docker.service): the `nvidia-docker` CLI
# asks it for the GPU devices and the driver volume of every container it starts, so with it down no such container
# gets a GPU (NVIDIA/nvidia-docker#182, corpus 2207). Read before docker.service, whose words its unit's name holds.
_NVDOCKER_WORDS = re.compile(r"\bnvidia-docker(?:\.service\b|-plugin\b|$)|NVIDIA Docker plugin")
# The units whose `systemctl status` block and failed `Job for X.service` line are read (importers/nvidia_daemons.py).
STATUS_UNITS = r"nvidia-fabricmanager|nvidia-persistenced|nvidia-dcgm|nvidia-docker|docker"
# `systemctl status`'s first line: `● nvidia-fabricmanager.service - NVIDIA fabric manager service`; a unit systemd
# has no file for has no description (`○ nvidia-fabricmanager.service`, then `Loaded: not-found`).
_STATUS_HEAD = re.compile(r"^\s*(?:[●○×*]\s*)?(?P<unit>" + STATUS_UNITS + r")\.service(?:\s+-\s|\s*$)")
_ACTIVE = re.compile(r"^\s*Active:\s+(?P<word>[a-z]+)\b")
# systemd's result of the unit's last run beside its state: `Active: inactive (dead) (Result: exit-code)` is a unit
# whose start failed and that is not restarting (systemd.exec(5), "Result"); `success` is a clean stop.
_FAILED_RESULT = re.compile(r"\(Result: (?!success\))[a-z-]+\)")
_LOADED_NOT_FOUND = re.compile(r"^\s*Loaded:\s+not-found\b")
# systemd's answer for a unit it has no file for, which says the daemon is not installed on the host: `Unit
# X.service could not be found.` (status), `Failed to start X.service: Unit X.service not found.` (start, restart,
# stop), `Failed to enable unit: Unit file X.service does not exist.`, `Failed to get unit file state for X.service:
# No such file or directory` (is-enabled), and Ansible's `Could not find the requested service X: host`.
# `systemctl is-active` prints `inactive` for a unit that does not exist, as for a stopped one: not read so; nor is
# is-enabled's `Unknown error N` (systemctl without a systemd to ask, in a container: NVIDIA/gpu-monitoring-tools#56).
_UNITS = r"nvidia-fabricmanager|nvidia-persistenced|nvidia-dcgm|nv-hostengine|nvidia-docker"
NOT_FOUND = re.compile(r"\bUnit (?:file )?(?:/\S+/)?(?P<unit>" + _UNITS + r")\.service (?:could not be found|not found|"
                       r"does not exist)|^Failed to get unit file state for (?P<state>" + _UNITS + r")\.service: No such "
                       r"file or directory|\bCould not find the requested service (?P<ansible>" + _UNITS + r"): host\b")
# A status summary's Markdown table row: the unit in its first cell, systemd's state in the next, as `systemctl status`
# words it (`| `nvidia-fabricmanager.service` | ✅ active (running); NVSwitch fabric initialized |`, corpus 237).
TABLE_ROW = re.compile(r"^\s*\|\s*`?(?P<unit>nvidia-fabricmanager|nvidia-persistenced|nvidia-dcgm)\.service`?\s*"
                       r"\|[^\w|]*(?P<word>active|inactive|failed|activating|deactivating)\s+\((?:Result: )?[a-z-]+\)")
_JOB_FAILED = re.compile(r"^Job for (?P<unit>[\w.@-]+?)(?:\.service)? failed\b")
# Events, tested in this order on a line's message.
_EVENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("mismatch", re.compile(r"driver interface version\s+[\d.]+\s+don|version[^.]*(?:does not|doesn'?t|don'?t) match",
                            re.IGNORECASE)),
    ("no-nvswitch", re.compile(r"NV_WARN_NOTHING_TO_DO")),
    # The Talos wrapper's `found NVSwitch LPF: device=mlx5_10 guid=0x…`: an NVSwitch management port (NVLink5+).
    ("nvswitch", re.compile(r"configured all the available NVSwitches|fabric manager daemon for NVLink5\+|"
                            r"Detected NVL5\+? system|found NVSwitch LPF", re.IGNORECASE)),
    # The wrapper's `command /usr/bin/nv-fabricmanager [123] exited with code 1` (a non-zero code; NVLSM's too).
    # systemd before v230 says it in its own words: `Unit nvidia-persistenced.service entered failed state.` and
    # `nvidia-persistenced.service failed.` (Amazon Linux 2's systemd 219, corpus 2470).
    ("failed", re.compile(r"Failed to start|Failed with result|status=\d+/FAILURE|failed! Exit code|"
                          r"\.service entered failed state\b|^[\w.@-]{1,80}\.service failed\.?$|"
                          r"^Unknown option|failed to start|exited with error|"
                          r"(?:nv-fabricmanager|nvlsm) \[\d+\] exited with code [1-9]|" + FM_FATAL.pattern, re.IGNORECASE)),
    ("stopped", re.compile(r"^Stopped\b|Deactivated successfully|^Shutdown \(|^Received signal 15\b")),
    # The GPU operator driver container's installer stops the daemon before it unloads the modules, on every start
    # (its _unload_driver: corpus 268, 1364, 1457): a step of the install, not the daemon's state once a driver is
    # loaded, which its `Starting NVIDIA persistence daemon...` after the load shows.
    ("note", re.compile(r"^Stopping NVIDIA persistence daemon\.\.\.$")),
    ("stopping", re.compile(r"^Stopping\b")),
    ("started", re.compile(r"^Started\b")),
    ("starting", re.compile(r"^Starting\b")),
)


def _unit_of(text: str) -> str | None:
    if _FM_WORDS.search(text) or FM_MISMATCH.search(text):
        return FM
    if _PERSIST_WORDS.search(text):
        return PERSISTENCED
    if _DCGM_WORDS.search(text):
        return HOSTENGINE
    if _NVDOCKER_WORDS.search(text):
        return NVDOCKER
    if _DOCKER_WORDS.search(text):
        return DOCKERD
    return None


def daemon_event(line: str, current: str | None = None) -> tuple[str, str] | None:
    """(daemon, event) for a line about nv-fabricmanager or nvidia-persistenced, None for any other line.

    `current`: the daemon of the `systemctl status` block the line stands in (its `Active:` line names no
    unit; a summary table's row names both, TABLE_ROW). Events: "active:WORD", "failed", "started", "starting",
    "stopping", "stopped", "mismatch", "nvswitch", "no-nvswitch", "not-found" (systemd has no such unit, NOT_FOUND),
    or "note" (a line of the daemon that changes nothing)."""
    text = line.strip()
    head = _STATUS_HEAD.match(text)
    if head:
        return _unit_of(head.group("unit")) or FM, "note"
    row = TABLE_ROW.match(text)
    if row:
        return _unit_of(row.group("unit")) or FM, "active:" + row.group("word")
    if current is not None and _LOADED_NOT_FOUND.match(text):
        return current, "not-found"
    active = _ACTIVE.match(text)
    if active and current is not None:
        return current, "active:" + ("failed" if _FAILED_RESULT.search(text) else active.group("word"))
    missing = NOT_FOUND.search(text)
    if missing:
        return _unit_of(missing.group("unit") or missing.group("state") or missing.group("ansible")) or FM, "not-found"
    job = _JOB_FAILED.match(text)
    if job:
        unit = _unit_of(job.group("unit"))
        return (unit, "failed") if unit else None
    tagged = _TAG.search(text)
    if tagged:
        tag, msg = tagged.group("tag"), tagged.group("msg").strip()
        unit = _unit_of(tag) if tag != "systemd" else _unit_of(msg)
    else:
        msg, unit = text, _unit_of(text)
    if unit is None:
        return None
    for name, pattern in _EVENTS:
        if pattern.search(msg):
            return unit, name
    return unit, "note"


def status_unit(line: str) -> str | None:
    """The daemon whose `systemctl status` block the line opens, else None."""
    head = _STATUS_HEAD.match(line.strip())
    return None if head is None else _unit_of(head.group("unit"))


class _State:
    def __init__(self) -> None:
        self.active: str | None = None
        self.mismatch: str | None = None
        self.nvswitch: bool | None = None
        self.installed: bool | None = None
        self.log: list[str] = []

    def play(self, event: str, line: str) -> None:
        if event == "note":
            return
        self.log.append(line.strip())
        if event == "not-found":
            self.installed, self.active = False, None
            return
        if event != "active:inactive":  # a not-found unit's status says `inactive (dead)`; any other state is a unit's
            self.installed = True
        if event.startswith("active:"):
            self.active = event.split(":", 1)[1]
        elif event == "mismatch":
            self.mismatch, self.active = line.strip(), "failed"  # FM exits when the versions differ
        elif event == "no-nvswitch":
            self.nvswitch = False
        elif event == "nvswitch":
            self.nvswitch = True if self.nvswitch is None else self.nvswitch
            if "daemon for NVLink5" in line:  # the driver container's `Starting NVIDIA fabric manager daemon ...`
                self._starting()
        elif event == "failed":
            self.active = "failed"
        elif event == "started":
            self.active = "active"
        elif event == "starting":
            self._starting()
        elif event == "stopping":
            self.active = "deactivating"
        elif event == "stopped":
            self.active = "inactive"

    def _starting(self) -> None:
        if self.active != "failed":  # a start after a failure is not a recovery until it is `Started`
            self.active = "activating"

    def daemon(self, name: str) -> Daemon:
        return Daemon(name, self.active, mismatch=self.mismatch, nvswitch=self.nvswitch, log=tuple(self.log[-8:]),
                      installed=self.installed)


# The MPS control daemon's own log (nvidia-cuda-mps-control's control.log, and the servers it starts, server.log): each
# line `[DATE TIME.ms ROLE PID] message`, ROLE `Control` for the control daemon, `Server` or `Other` for a server
# (`[2021-12-19 16:22:21.847 Control     1] Starting control daemon using socket /tmp/nvidia-mps/control`,
# corpus 2731). A control line is the daemon at work with that pid: CUDA clients reach the GPU through its servers.
MPS_LOG_LINE = re.compile(r"^\s*\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? (?P<role>Control|Server|Other) {1,12}"
                          r"(?P<pid>\d{1,9})\] ")


def mps_control_pids(lines: list[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The pids of the MPS control daemon whose log lines stand in `lines` (MPS_LOG_LINE), in order, each once, and
    its first lines (stripped, at most 8: what MEM-GPU-SHARED quotes)."""
    pids: dict[int, None] = {}
    said: list[str] = []
    for line in lines:
        if "Control" in line and (m := MPS_LOG_LINE.match(line)) is not None and m.group("role") == "Control":
            pids[int(m.group("pid"))] = None
            said.append(line.strip())
    return tuple(pids), tuple(said[:8])


@parser(NVIDIA_DAEMON_LOG, feeds="nvidia_services", kind=NvidiaServices, rank=10)
def parse_daemon_log(text: str) -> NvidiaServices:
    """nv-fabricmanager and nvidia-persistenced from pasted `systemctl status` and journal lines; the MPS control
    daemon from its own log lines (MPS_LOG_LINE).

    Input (tests/data/captures/100)::

        Feb 24 09:28:18 ip-172-31-92-157 systemd[1]: Starting NVIDIA fabric manager service...
        Feb 24 09:28:28 ip-172-31-92-157 nv-fabricmanager[1507]: fabric manager NVIDIA GPU driver interface version 535.183.01 don'
    """
    states = {FM: _State(), PERSISTENCED: _State(), HOSTENGINE: _State(), DOCKERD: _State(), NVDOCKER: _State()}
    current: str | None = None
    seen = False
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        found = daemon_event(line, current)
        if found is None:
            continue
        unit, event = found
        seen = True
        current = status_unit(line) or current
        states[unit].play(event, line)
    mps, mps_log = mps_control_pids(text.splitlines())
    if not seen and not mps:
        raise ParseError("no line of nv-fabricmanager, nvidia-persistenced, nv-hostengine or the MPS control daemon")
    return NvidiaServices(states[PERSISTENCED].daemon("nvidia-persistenced"), states[FM].daemon("nv-fabricmanager"),
                          Daemon("nvidia-cuda-mps-control", "active" if mps else None, pids=mps, log=mps_log),
                          hostengine=states[HOSTENGINE].daemon("nv-hostengine"),
                          dockerd=states[DOCKERD].daemon("dockerd") if states[DOCKERD].log else None,
                          nvidia_docker=states[NVDOCKER].daemon("nvidia-docker") if states[NVDOCKER].log else None)


# The GPU operator driver container's banner: `Starting installation of NVIDIA driver version 418.40.04 for Linux
# kernel version 4.15.0-66-generic`, then `Proceeding with Linux kernel version …` once it resolved `uname -r`.
INSTALL_BANNER = re.compile(r"^Starting installation of NVIDIA driver version (?P<driver>\d+\.\d+(?:\.\d+)?)"
                            r"(?: for Linux kernel version (?P<kernel>\S+))?", re.MULTILINE)
# The .run installer unpacking itself (makeself's `Creating directory NVIDIA-Linux-x86_64-460.32.03`, then
# `Uncompressing NVIDIA Accelerated Graphics Driver for Linux-x86_64 460.32.03....`), as a driver container runs it
# before it builds the module (corpus 1897): the driver it installs, which is not yet loaded.
RUN_UNPACK = re.compile(r"^(?:Creating directory NVIDIA-Linux-[a-z0-9_]+-|"
                        r"Uncompressing NVIDIA Accelerated Graphics Driver for Linux-[a-z0-9_]+ )"
                        r"(?P<driver>\d{3}\.\d+(?:\.\d+)?)", re.MULTILINE)
# GKE's driver installer on Container-Optimized OS (cos-gpu-installer, the init container `nvidia-driver-installer` of
# GKE's DaemonSet), its glog lines: `I0301 13:36:08.299982    3993 install.go:246] Installing GPU driver version
# 535.104.05`, `installer.go:234] Done linking drivers`, `modules.go:71] Loading gpu-key to keyring ...`
# (GoogleCloudPlatform/container-engine-accelerators#302, kubernetes/kubernetes#123491; corpus 2395, 2396). One of its
# own messages about the GPU driver starts its log; the glog lines after it (GLOG_LINE) are the same log.
GLOG_LINE = re.compile(r"^\s*[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,6}\s{1,12}\d{1,9} ")
COS_INSTALLER_LINE = re.compile(GLOG_LINE.pattern + r"[a-z_]{1,40}\.go:\d{1,6}\] (?:Installing GPU driver version \d|"
                                r"(?:Verifying|failed to verify) GPU driver installation|Running GPU driver installer|"
                                r"Running link command: \S{0,200}ld|Done linking drivers|Loading gpu-key to keyring|"
                                r"Failed to load kernel module, err: failed to load GPU drivers|"
                                r"Downloading gpu_default_version)")
_PROCEEDING = re.compile(r"^Proceeding with Linux kernel version (?P<kernel>\d+\.\d+\S*)", re.MULTILINE)


@parser(NVIDIA_DAEMON_LOG, feeds="kernel", kind=KernelInfo, rank=60)
def kernel_from_driver_container(text: str) -> KernelInfo:
    """The running kernel a GPU operator driver container builds for (it resolves `uname -r` of the node).

    Input (tests/data/captures/268)::

        Starting installation of NVIDIA driver version 418.40.04 for Linux kernel version 4.15.0-66-generic
    """
    m = _PROCEEDING.search(text) or INSTALL_BANNER.search(text)
    if m is None or not m.group("kernel"):
        raise ParseError("no kernel version in the driver container's log")
    return KernelInfo(m.group("kernel"))


@parser(NVIDIA_DAEMON_LOG, feeds="nvidia_driver", kind=NvidiaDriver, rank=60)
def driver_from_driver_container(text: str) -> NvidiaDriver:
    """The driver a GPU operator driver container installs (its banner, or the .run installer it unpacks: RUN_UNPACK):
    its version, not yet loaded (the log says whether the load then worked). Two versions name none.

    Input (tests/data/captures/268)::

        Starting installation of NVIDIA driver version 418.40.04 for Linux kernel version 4.15.0-66-generic
    """
    found = {m.group("driver") for m in (*INSTALL_BANNER.finditer(text), *RUN_UNPACK.finditer(text))}
    return NvidiaDriver(only_one(found, "no installation banner in the driver container's log" if not found else
                                 f"the driver container's log installs {len(found)} driver versions"), None, loaded=None)
