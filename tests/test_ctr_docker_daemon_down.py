"""CTR-GPU-ACCESS over Docker's own daemon shown failed (facts/nvidia_daemons.py, unit `docker.service`): after a
change to /etc/docker/daemon.json (the nvidia runtime, `default-runtime`) dockerd does not start, so no container
starts, GPU or not: an issue, the line quoted. A later line of it running, or a stop that succeeded, is no failure.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia_daemons import DOCKERD, daemon_event, parse_daemon_log

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
