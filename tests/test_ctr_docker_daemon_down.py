"""CTR-GPU-ACCESS over Docker's own daemon shown failed (facts/nvidia_daemons.py, unit `docker.service`): after a
change to /etc/docker/daemon.json (the nvidia runtime, `default-runtime`) dockerd does not start, so no container
starts, GPU or not: an issue, the line quoted. A later line of it running, or a stop that succeeded, is no failure.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia_daemons import DOCKERD, NVDOCKER, daemon_event, parse_daemon_log

# Real: https://github.com/NVIDIA/nvidia-container-runtime/issues/16 (the issue body, Ubuntu 16.04, Docker 17.12.1,
# the unit's --add-runtime=nvidia): the restart's error, then `systemctl status docker.service`, cut in its journal tail.
RUNTIME_16 = """\
Job for docker.service failed because the control process exited with error code. See "systemctl status docker.service" and "journalctl -xe" for details.

This is the output of systemctl status docker.service:

● docker.service - Docker Application Container Engine
   Loaded: loaded (/lib/systemd/system/docker.service; enabled; vendor preset: enabled)
  Drop-In: /etc/systemd/system/docker.service.d
           └─override.conf
   Active: inactive (dead) (Result: exit-code) since Mon 2018-03-05 17:55:44 CET; 17s ago
     Docs: https://docs.docker.com
  Process: 25885 ExecStart=/usr/bin/dockerd --host=fd:// --add-runtime=nvidia=/usr/bin/nvidia-container-runtime (code=exited, status=1/FAILURE)
 Main PID: 25885 (code=exited, status=1/FAILURE)

Mar 05 17:55:44 svstation systemd[1]: Failed to start Docker Application Container Engine.
Mar 05 17:55:44 svstation systemd[1]: docker.service: Unit entered failed state.
Mar 05 17:55:44 svstation systemd[1]: docker.service: Failed with result 'exit-code'.
"""

# Real: https://github.com/NVIDIA/nvidia-container-runtime/issues/45 (a comment by wheemzy1, 2019-01-06): the
# journal after `systemctl restart docker` fails, the unit's --add-runtime for nvidia-container-runtime; cut.
RUNTIME_45 = """\
Jan 05 17:15:37 matthew-System-Product-Name systemd[1]: Failed to start Docker Application Container Engine.
Jan 05 17:15:37 matthew-System-Product-Name systemd[1]: docker.service: Unit entered failed state.
Jan 05 17:15:37 matthew-System-Product-Name systemd[1]: docker.service: Failed with result 'exit-code'.
"""

# Real: https://github.com/NVIDIA/cloud-native-stack/issues/1 (a comment quoting the issue, Xavier JP4.4 with
# "default-runtime": "nvidia" in daemon.json): journalctl -xe's lines, cut.
CNS_1 = """\
7月 30 22:48:41 xavier systemd[1]: docker.service: Start request repeated too quickly.
7月 30 22:48:41 xavier systemd[1]: docker.service: Failed with result 'exit-code'.
7月 30 22:48:41 xavier systemd[1]: Failed to start Docker Application Container Engine.
-- Subject: Unit docker.service has failed
"""

# Modelled: the same unit restarted after the fix; its status shows it running.
RECOVERED = """\
Job for docker.service failed because the control process exited with error code. See "systemctl status docker.service" and "journalctl -xe" for details.

● docker.service - Docker Application Container Engine
   Loaded: loaded (/lib/systemd/system/docker.service; enabled; vendor preset: enabled)
   Active: active (running) since Tue 2018-03-06 09:12:01 CET; 5s ago
     Docs: https://docs.docker.com
 Main PID: 31002 (dockerd)
"""


def test_status_of_failed_restart_is_an_issue(tmp_path: Path) -> None:
    # `inactive (dead) (Result: exit-code)`: the last start failed; the Job line says so too.
    r = paste_checks(tmp_path, RUNTIME_16, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue"
    assert "Docker's daemon does not start" in r.message and "docker.service" in r.message


def test_journal_of_failed_start_is_an_issue(tmp_path: Path) -> None:
    for text in (RUNTIME_45, CNS_1):
        r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "issue", text
        assert "Failed" in r.message


def test_later_running_status_is_no_failure(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, RECOVERED, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "issue"
    assert parse_daemon_log(RECOVERED).dockerd is not None
    assert parse_daemon_log(RECOVERED).dockerd.active == "active"  # type: ignore[union-attr]


def test_events_name_docker_only_by_its_unit() -> None:
    assert daemon_event("Job for docker.service failed because the control process exited") == (DOCKERD, "failed")
    assert daemon_event("   Active: inactive (dead) (Result: exit-code) since Mon", DOCKERD) == (DOCKERD, "active:failed")
    assert daemon_event("   Active: inactive (dead) (Result: success) since Mon", DOCKERD) == (DOCKERD, "active:inactive")
    # dockerd's own log lines are not read: only systemd's words about its unit.
    assert daemon_event('time="2019-06-26" level=error msg="failed to start daemon"') is None


def test_corpus_1910_ec2_p2_default_runtime() -> None:
    # NVIDIA/nvidia-docker#1002: `Active: failed (Result: start-limit)` after default-runtime nvidia in daemon.json.
    r = capture_checks("1910", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status == "issue" and "start-limit" in r.message


# Real: https://github.com/NVIDIA/nvidia-docker/issues/500 (the issue body, nvidia-docker 1's plugin on Ubuntu):
# `service nvidia-docker status` after its start failed, the journal tail cut.
PLUGIN_500 = """\
● nvidia-docker.service - NVIDIA Docker plugin
   Loaded: loaded (/lib/systemd/system/nvidia-docker.service; enabled; vendor preset: enabled)
   Active: inactive (dead) (Result: exit-code) since Tue 2017-10-17 14:46:44 EDT; 1min 30s ago
     Docs: https://github.com/NVIDIA/nvidia-docker/wiki
  Process: 2192 ExecStopPost=/bin/rm -f $SPEC_FILE (code=exited, status=0/SUCCESS)
  Process: 2190 ExecStartPost=/bin/sh -c /bin/echo unix://$SOCK_DIR/nvidia-docker.sock > $SPEC_FILE (code=exited, status=0/SUCCESS)
  Process: 2169 ExecStartPost=/bin/sh -c /bin/mkdir -p $( dirname $SPEC_FILE ) (code=exited, status=0/SUCCESS)
  Process: 2168 ExecStart=/usr/bin/nvidia-docker-plugin -s $SOCK_DIR (code=exited, status=1/FAILURE)
 Main PID: 2168 (code=exited, status=1/FAILURE)

Oct 17 14:46:43 machine systemd[1]: Failed to start NVIDIA Docker plugin.
Oct 17 14:46:43 machine systemd[1]: nvidia-docker.service: Unit entered failed state.
Oct 17 14:46:43 machine systemd[1]: nvidia-docker.service: Failed with result 'exit-code'.
Oct 17 14:46:44 machine systemd[1]: nvidia-docker.service: Service hold-off time over, scheduling restart.
Oct 17 14:46:44 machine systemd[1]: Stopped NVIDIA Docker plugin.
"""

# Real: https://github.com/NVIDIA/nvidia-docker/issues/394 (the issue body, its journal lines cut by the user).
PLUGIN_394 = """\
Job for nvidia-docker.service failed because the control process exited with error code

6月 04 09:52:21  xxx systemd[1]: Failed to start NVIDIA Docker plugin.
6月 04 09:52:21 xxx systemd[1]: nvidia-docker.service: Unit entered failed sta
6月 04 09:52:21 xxx systemd[1]: nvidia-docker.service: Failed with result 'exi
6月 04 09:52:23 xxx systemd[1]: nvidia-docker.service: Service hold-off time o
6月 04 09:52:23 xxx systemd[1]: Stopped NVIDIA Docker plugin.
6月 04 09:52:23 xxx systemd[1]: nvidia-docker.service: Start request repeated
6月 04 09:52:23 xxx systemd[1]: Failed to start NVIDIA Docker plugin.
"""

# Modelled: the plugin's status once it runs.
PLUGIN_RUNNING = """\
● nvidia-docker.service - NVIDIA Docker plugin
   Loaded: loaded (/lib/systemd/system/nvidia-docker.service; enabled; vendor preset: enabled)
   Active: active (running) since Tue 2017-10-17 14:50:01 EDT; 5s ago
 Main PID: 3011 (nvidia-docker-p)
"""


def test_nvidia_docker_plugin_line_is_its_own_daemon() -> None:
    assert daemon_event("nvidia-docker.service: Main process exited, code=exited, status=1/FAILURE") == (
        NVDOCKER, "failed")
    assert daemon_event("Mar 05 17:55:44 svstation systemd[1]: docker.service: Failed with result 'exit-code'.") == (
        DOCKERD, "failed")


def test_nvidia_docker_plugin_failed_is_an_issue(tmp_path: Path) -> None:
    """Corpus 2207 (NVIDIA/nvidia-docker#182, both readers: issue): the plugin's unit exits with a failure beside the
    kernel's NVRM API mismatch; nvidia-docker#500 and #394: its status and journal after a failed start. The
    `nvidia-docker` CLI takes each container's GPUs and driver volume from the plugin, so none gets a GPU."""
    result = capture_checks("2207", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue" and "nvidia-docker.service" in result.evidence[0]
    for text in (PLUGIN_500, PLUGIN_394):
        r = paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
        assert r.status == "issue", text
        assert "nvidia-docker's plugin daemon does not run" in r.message


def test_nvidia_docker_plugin_running_is_no_failure(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, PLUGIN_RUNNING, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert r.status != "issue"
    services = parse_daemon_log(PLUGIN_RUNNING)
    assert services.nvidia_docker is not None and services.nvidia_docker.active == "active"
