"""Kinds with no importer before issue 27: the NVIDIA daemons' status and journal lines, a driver
container's log, dcgmi outputs, nvidia-smi -q sections cut out of their GPU, lines of evidence alone.

Sample lines are verbatim from the corpus pastes named (tests/data/captures, with their threads).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks
from stackaudit.engine.testing import run_checks
from stackaudit.errors import InputError
from stackaudit.facts._parse import ParseError
from stackaudit.facts.dcgmi import parse_dcgmi_nvlink
from stackaudit.facts.nvidia_daemons import DOCKERD, daemon_event, parse_daemon_log
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise


def _host(text: str) -> MemoryHost:
    return MemoryHost(recognise(text, "paste.txt").record)


def _kinds(text: str) -> list[str]:
    return [kind for kind, _, _ in recognise(text, "paste.txt").recognised]


# 108 (ollama/ollama#11932): a failed start, then a restart the paste cuts before its outcome.
POPOS = """\
2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE
2025-08-16T00:03:03.959639-04:00 localhost systemd[1]: Failed to start nvidia-persistenced.service - NVIDIA Persistence Daemon.
2025-08-16T00:03:04.244899-04:00 localhost systemd[1]: Starting nvidia-persistenced.service - NVIDIA Persistence Daemon...
2025-08-16T00:03:04.247328-04:00 localhost nvidia-persistenced: Verbose syslog connection opened
"""

# 107 (NVIDIA/nvidia-persistenced#2): started, then stopped by signal 15.
SHUTDOWN = """\
May 31 05:33:40 kino1 nvidia-persistenced[19176]: Started (19176)
May 31 05:33:40 kino1 nvidia-persistenced[19176]: device 0000:3d:00.0 - registered
May 31 05:33:41 kino1 nvidia-persistenced[19176]: Received signal 15
May 31 05:33:41 kino1 nvidia-persistenced[19176]: Shutdown (19176)
"""

# 100 (dstackai/dstack#2348): FM's version-mismatch message, cut by the retrieved copy.
MISMATCH = """\
Feb 24 09:28:18 ip-172-31-92-157 systemd[1]: Starting NVIDIA fabric manager service...
Feb 24 09:28:28 ip-172-31-92-157 nv-fabricmanager[1507]: fabric manager NVIDIA GPU driver interface version 535.183.01 don'
"""

# 102 (NVIDIA/gpu-operator#610): no NVSwitch on the host.
NOTHING_TO_DO = """\
11月 15 14:15:47 <redacted> nv-fabricmanager[4177]: request to query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]
11月 15 14:15:47 <redacted> systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE
"""

# 105 (bottlerocket-os/bottlerocket#3873).
STATUS_ACTIVE = """\
nvidia-fabricmanager.service - NVIDIA fabric manager service
     Loaded: loaded (/x86_64-bottlerocket-linux-gnu/sys-root/usr/lib/systemd/system/nvidia-fabricmanager.service; enabled; preset: enabled)
     Active: active (running) since Thu 2024-05-16 23:22:02 UTC; 7s ago
   Main PID: 128549 (nv-fabricmanage)
"""

# 101 (NVIDIA/gpu-operator#356): a failed start on a host whose NVSwitches the paste does not show.
JOB_FAILED = """\
Job for nvidia-fabricmanager.service failed because the control process exited with error code.
See "systemctl status nvidia-fabricmanager.service" and "journalctl -xe" for details.
"""


def test_a_failure_stays_until_the_daemon_is_started_again() -> None:
    services = parse_daemon_log(POPOS)
    assert services.persistenced.active == "failed" and services.persistenced.running is False
    assert services.fabricmanager.active is None


def test_signal_15_and_shutdown_leave_persistenced_inactive() -> None:
    assert parse_daemon_log(SHUTDOWN).persistenced.active == "inactive"


def test_fabric_manager_mismatch_and_switches_are_read_from_its_journal() -> None:
    fm = parse_daemon_log(MISMATCH).fabricmanager
    assert fm.mismatch is not None and "535.183.01" in fm.mismatch and fm.running is False
    assert parse_daemon_log(NOTHING_TO_DO).fabricmanager.nvswitch is False
    assert parse_daemon_log(STATUS_ACTIVE).fabricmanager.active == "active"


def test_other_systemd_lines_are_not_the_daemons() -> None:
    # Docker's own unit is read as dockerd (CTR-GPU-ACCESS: tests/test_ctr_docker_daemon_down.py), no NVIDIA daemon.
    docker = "May 31 05:33:20 kino1 systemd[1]: Starting Docker Application Container Engine..."
    assert daemon_event(docker) == (DOCKERD, "starting")
    services = parse_daemon_log(docker + "\n")
    assert services.persistenced.active is None and services.fabricmanager.active is None
    with pytest.raises(ParseError):
        parse_daemon_log("May 31 05:33:20 kino1 systemd[1]: Started Session 4 of user root.\n")


@pytest.mark.parametrize(("text", "status"), [
    (MISMATCH, "issue"), (NOTHING_TO_DO, "not-applicable"), (STATUS_ACTIVE, "ok"),
    # A failed FM on a host whose NVSwitches no line shows: a GeForce host fails the same way.
    (JOB_FAILED, "unknown"),
])
def test_fabric_manager_judged_from_its_pasted_lines_alone(text: str, status: str) -> None:
    assert run_checks(_host(text), ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"].status == status


def test_fabric_manager_mismatch_quoted_in_prose_is_its_line() -> None:
    # 2390 (pytorch/pytorch#129749): a failed status, then the user quotes FM's words without its name or tag.
    fm = capture_checks("2390", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert fm.status == "issue" and "550.90.07 don't match with driver version 550.54.15" in fm.evidence[0]
    # Another thread (2348, siderolabs/pkgs): the same words with their `fabric manager`, in backticks.
    assert capture_checks("2348", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"].status == "issue"
    line = "due to `NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15`\n"
    assert _kinds(line) == ["evidence line"]  # read where the fabric manager words are (FM_MISMATCH)
    # Modelled: other programs' version mismatches in prose name no daemon and are not read as Fabric Manager's.
    for other in ("the CUDA driver version 12.2 don't match with runtime version 12.4",
                  "NVML: driver/library version mismatch (interface version 550.90.07 doesn't match)"):
        assert daemon_event(other) is None and _kinds(other + "\n") == [], other


def test_persistenced_stopped_is_an_issue_without_a_gpu_listing() -> None:
    result = run_checks(_host(SHUTDOWN), ["DRV-PERSISTENCE"])["DRV-PERSISTENCE"]
    assert result.status == "issue" and "inactive" in result.message


# Modelled on 2470's lines (systemd 219 of Amazon Linux 2): the old failure words, then a restart that succeeds.
OLD_SYSTEMD_RECOVERED = """\
Jun 11 08:11:03 gpu-host systemd[1]: Unit nvidia-persistenced.service entered failed state.
Jun 11 08:11:03 gpu-host systemd[1]: nvidia-persistenced.service failed.
Jun 11 08:11:09 gpu-host systemd[1]: Starting NVIDIA Persistence Daemon...
Jun 11 08:11:09 gpu-host systemd[1]: Started NVIDIA Persistence Daemon.
"""


def test_old_systemds_failure_words_are_a_failed_daemon() -> None:
    # 2470 (aws/amazon-ecs-ami#256): systemd 219's `entered failed state` and `.service failed.` after the NVRM API
    # mismatch, relayed by cloud-init into the kernel log.
    result = capture_checks("2470", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert result.status == "issue", result.message
    assert any("entered failed state" in e for e in result.evidence), result.evidence
    # Modelled: a start after the failure that systemd reports `Started` is a daemon running again.
    assert parse_daemon_log(OLD_SYSTEMD_RECOVERED).persistenced.active == "active"
    # Modelled: another unit's failure in the same words is no NVIDIA daemon's.
    assert daemon_event("Jun 11 08:11:03 gpu-host systemd[1]: Unit cloud-final.service entered failed state.") is None
    assert daemon_event("Jun 11 08:11:03 gpu-host systemd[1]: cloud-final.service failed.") is None


def test_without_daemon_lines_the_nvidia_fact_reason_stays() -> None:
    # A paste with no GPU and no daemon line: judged as a check whose required `nvidia` fact is missing.
    host = _host("Linux gpu-host 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024 x86_64 GNU/Linux\n")
    for cid, result in run_checks(host, ["DRV-FABRIC-MANAGER", "DRV-PERSISTENCE"]).items():
        assert result.status == "unknown" and result.facts_missing == ("nvidia",), cid


def test_status_journal_and_driver_container_are_their_own_kinds() -> None:
    assert _kinds(STATUS_ACTIVE) == ["systemctl status"]
    assert _kinds(JOB_FAILED) == ["systemctl status"]
    assert _kinds(SHUTDOWN) == ["NVIDIA daemon journal"]
    # 109 (NVIDIA/gpu-operator#1595)
    container = ("Starting NVIDIA fabric manager daemon for NVLink5+...\n"
                 "Unknown option: /usr/share/nvidia/nvswitch/fabricmanager.cfg\n")
    assert _kinds(container) == ["driver container log"]
    fm = run_checks(_host(container), ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"]
    assert fm.status == "issue" and "failed" in fm.message


# 115 (NVIDIA/dcgm-exporter#576) and 114 (NVIDIA/DCGM#198), two GPUs each.
def _dcgmi(letters: str) -> str:
    row = " ".join([letters] * 18)
    return ("+----------------------+\n|  NvLink Link Status  |\n+----------------------+\nGPUs:\n"
            f"    gpuId 0:\n        {row}\n    gpuId 1:\n        {row}\nNvSwitches:\n    No NvSwitches found.\n")


def test_dcgmi_nvlink_up_feeds_the_link_state() -> None:
    status = parse_dcgmi_nvlink(_dcgmi("U"))
    assert [g.active for g in status.gpus] == [18, 18]
    assert run_checks(_host(_dcgmi("U")), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"].status == "ok"


def test_dcgmi_nvlink_all_down_is_no_evidence_of_a_fault() -> None:
    # DCGM lists every link of a GPU without NVLink in use as Down (NVIDIA/DCGM#49): not a failed link.
    with pytest.raises(ParseError):
        parse_dcgmi_nvlink(_dcgmi("D"))
    assert _kinds(_dcgmi("D")) == ["dcgmi nvlink"]
    assert run_checks(_host(_dcgmi("D")), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"].status == "unknown"


# 181 (NVIDIA/dcgm-exporter#507): `dcgmi discovery -c`, the MIG instance hierarchy, one GPU of two.
HIERARCHY = """\
dcgmi discovery -c
+-------------------+--------------------------------------------------------------------+
| Instance Hierarchy                                                                     |
+===================+====================================================================+
| GPU 0             | GPU GPU-e48e2dd6-5b6f-f75b-9d3b-39d6ac744225 (EntityID: 0)         |
| -> I 0/1          | GPU Instance (EntityID: 0)                                         |
|    -> CI 0/1/0    | Compute Instance (EntityID: 0)                                     |
+-------------------+--------------------------------------------------------------------+
"""


def test_dcgmi_discovery_c_the_instance_hierarchy_is_read_from_its_command_line() -> None:
    # Every row of the hierarchy names a GPU or an instance: the whole table is one dcgmi discovery output.
    assert recognise(HIERARCHY, "paste.txt").recognised == [("dcgmi discovery", 1, 8)]
    # Without its command line and its title row it is a box of `|` lines, not recognised as discovery.
    assert "dcgmi discovery" not in _kinds("\n".join(HIERARCHY.splitlines()[4:]) + "\n")


def test_a_fabric_section_at_column_0_is_read_as_a_gpu_section() -> None:
    # 111 (Azure/azhpc-images#506)
    text = ("Fabric\n    State                             : Completed\n"
            "    Status                            : Insufficient Resources\n")
    assert _kinds(text) == ["nvidia-smi -q"]
    fm = run_checks(_host(text), ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"]
    assert fm.status == "issue" and "Insufficient Resources" in fm.message


def test_a_line_of_evidence_alone_is_read_and_a_text_without_one_is_refused(tmp_path: Path) -> None:
    # 129 (1Panel-dev/1Panel#10990): an -q -x fragment without <nvidia_smi_log> or <gpu>.
    xml = tmp_path / "xml.txt"
    xml.write_text("<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>\n")
    assert load_pasted([str(xml)]).record.meta["recognised"] == ["evidence line (lines 1-1)"]
    prose = tmp_path / "prose.txt"
    prose.write_text("The GPU is slow after the upgrade, any idea?\n")
    with pytest.raises(InputError, match="nothing recognisable"):
        load_pasted([str(prose)])


def test_evidence_lines_yield_to_a_block_recogniser() -> None:
    text = ("==============NVSMI LOG==============\n\nDriver Version                    : 535.104.05\n"
            "CUDA Version                      : 12.2\n\nAttached GPUs                     : 1\n")
    assert _kinds(text) == ["nvidia-smi -q"]


def test_dcgm_host_engine_lines_are_read_as_its_own_daemon() -> None:
    # Modelled on systemd's and nv-hostengine's own wording (no corpus paste of it yet).
    text = ("Jun 02 10:00:01 gpu-node systemd[1]: Started nvidia-dcgm.service - NVIDIA DCGM service.\n"
            "Jun 02 10:05:09 gpu-node systemd[1]: nvidia-dcgm.service: Main process exited, code=exited, "
            "status=1/FAILURE\n")
    services = parse_daemon_log(text)
    assert services.hostengine is not None and services.hostengine.active == "failed"
    assert services.fabricmanager.active is None and services.persistenced.active is None
    assert _kinds(text) == ["NVIDIA daemon journal"]


@pytest.mark.parametrize("line", [
    "max locked memory       (kbytes, -l) 64",  # bash's `ulimit -a` form (modelled)
    "open files                      (-n) 1024",
    # (nvidia-smi's `NVIDIA-SMI has failed because ...` line is its own output now: test_nvml_failure_under_nvidia_smi.)
    "- NVIDIA driver version: 535.161.07",  # a hardware summary's bullet (NVIDIA/TensorRT-LLM#2694, corpus 175)
])
def test_a_lone_line_of_evidence_in_prose_is_read(line: str) -> None:
    assert _kinds("Hello, on my box:\n" + line + "\nany idea?\n") == ["evidence line"]


@pytest.mark.parametrize("line", ["This version: works for me", "open files are many here", "Mode: fast"])
def test_prose_with_the_same_words_is_not_evidence(line: str) -> None:
    assert _kinds("Hello, on my box:\n" + line + "\nany idea?\n") == []


# A status summary's Markdown row of a unit and its state (facts/nvidia_daemons.TABLE_ROW). Real: corpus 237
# (spectrocloud/CanvOS#700, a comment's health-check table on an HGX B200 after `modprobe ib_umad`).
FM_ROW = "| `nvidia-fabricmanager.service` | ✅ active (running); NVSwitch fabric initialized |"


def test_a_summary_table_row_gives_the_units_state() -> None:
    assert daemon_event(FM_ROW) == ("fm", "active:active")
    assert parse_daemon_log(FM_ROW + "\n").fabricmanager.running is True
    # Modelled: the same row of a unit that failed (systemd's `failed (Result: exit-code)`), of persistenced stopped.
    assert daemon_event("| nvidia-fabricmanager.service | ❌ failed (Result: exit-code) |") == ("fm", "active:failed")
    assert daemon_event("| `nvidia-persistenced.service` | inactive (dead) |") == ("persistenced", "active:inactive")


def test_a_row_that_states_no_systemd_state_is_not_read() -> None:
    # Modelled: a row about the unit whose cell is not `WORD (SUB)`, and prose naming the unit.
    assert daemon_event("| `nvidia-fabricmanager.service` | should be running on NVSwitch hosts |") == ("fm", "note")
    assert daemon_event("check that nvidia-fabricmanager.service is active (running) after the upgrade") == ("fm", "note")


def test_the_fabric_manager_row_of_a_health_table_is_ok() -> None:
    """Real (capture 237): the HGX B200 health table's Fabric Manager row, read from the corpus file."""
    from corpus import capture_checks
    r = capture_checks("237", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert r.status == "ok" and "active" in r.message


# 1457 (NVIDIA/gpu-operator#15): the driver container's installer, which stops the daemon before it unloads the
# modules on every start, then fails compiling them.
INSTALLER = """\
========== NVIDIA Software Installer ==========

Starting installation of NVIDIA driver version 418.87.01 for Linux kernel version 5.0.0-36-generic

Stopping NVIDIA persistence daemon...
Unloading NVIDIA driver kernel modules...
"""


def test_the_installers_stop_of_the_daemon_is_a_step_of_the_install() -> None:
    assert daemon_event("Stopping NVIDIA persistence daemon...") == ("persistenced", "note")
    assert parse_daemon_log(INSTALLER).persistenced.active is None
    result = run_checks(_host(INSTALLER), ["DRV-PERSISTENCE"])["DRV-PERSISTENCE"]
    assert result.status == "unknown"
    # systemd's own stop of the unit is still the daemon's state.
    assert daemon_event("Dec 01 10:00:00 h systemd[1]: Stopping nvidia-persistenced.service - NVIDIA Persistence "
                        "Daemon...") == ("persistenced", "stopping")


# kubernetes-sigs/dra-driver-nvidia-gpu#1153 (Phillezi): the DRA driver's MPS control daemon's log, one space before
# the pid.
DRA_1153_MPS = """\
[2026-05-31 23:46:49.893 Control 11107] Starting control daemon using socket /tmp/nvidia-mps/control
[2026-05-31 23:46:49.893 Control 11107] To connect CUDA applications to this daemon, set env CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps
[2026-05-31 23:46:49.893 Control 11107] CUDA MPS Control binary version: 13030
"""


def test_corpus_2731_an_mps_daemon_containers_log_is_read_with_its_entrypoint() -> None:
    # NVIDIA/nvidia-container-toolkit#277: the nvidia/mps container's entrypoint lines (5-8) above the control
    # daemon's log and its first server's (9-17), one span; the daemon at work is pid 1.
    result = recognise(body("2731"), "paste.txt")
    assert [k for k in result.recognised if k[0] == "driver container log"] == [("driver container log", 5, 17)]
    services = parse_daemon_log(body("2731"))
    assert services.mps.pids == (1,) and services.mps.active == "active"


def test_the_mps_control_daemons_log_alone_is_its_daemon_at_work() -> None:
    assert _kinds(DRA_1153_MPS) == ["driver container log"]
    assert parse_daemon_log(DRA_1153_MPS).mps.pids == (11107,)


def test_lines_in_the_mps_form_of_another_program_are_not_the_daemon() -> None:
    # Modelled counter-examples: a bracketed date and a word that is no MPS role, and the role without its pid.
    text = "[2026-05-31 23:46:49.893 Client 11107] Starting\n[2026-05-31 23:46:49.893 Control] Starting control daemon\n"
    assert "driver container log" not in _kinds(text)
    with pytest.raises(ParseError):
        parse_daemon_log(text)
