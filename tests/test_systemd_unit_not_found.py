"""systemd's answer for an NVIDIA unit it has no file for: the daemon is not installed (facts/nvidia_daemons.NOT_FOUND).

Real lines, verbatim from their threads; the nvidia-smi tables are modelled (tests/gap_pastes.py) and marked so.
"""

from __future__ import annotations

import pytest

from gap_pastes import nvidia_smi_table
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia_daemons import daemon_event, parse_daemon_log
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise

# Blind 1765 (https://github.com/NVIDIA/gpu-operator/issues/286): `systemctl status` on an A100 HGX node.
STATUS_1765 = """\
[root@HOST ~]# sudo systemctl status nvidia-fabricmanager
Unit nvidia-fabricmanager.service could not be found.
[root@HOST ~]#
"""
# https://github.com/pytorch/pytorch/issues/35710#issuecomment-901013741: `service ... start` on an A100-SXM4 host
# whose bandwidthTest failed with error 802.
START_PYTORCH = """\
> sudo service nvidia-fabricmanager start
Failed to start nvidia-fabricmanager.service: Unit nvidia-fabricmanager.service not found.
"""
# https://github.com/bayasdev/envycontrol/issues/150: envycontrol enabling persistenced on a laptop.
ENABLE_ENVYCONTROL = "Failed to enable unit: Unit file nvidia-persistenced.service does not exist.\n"
# https://github.com/NVIDIA/DCGM/issues/57: DCGM built from source has no unit file.
ENABLE_DCGM = "Failed to enable unit: Unit file nvidia-dcgm.service does not exist.\n"
# https://github.com/NVIDIA/deepops/issues/877: Ansible's service module on a DGX Station A100 (four A100, no NVSwitch).
ANSIBLE_DEEPOPS = """\
failed: [local] (item=nvidia-fabricmanager) => changed=false
  ansible_loop_var: item
  item: nvidia-fabricmanager
  msg: 'Could not find the requested service nvidia-fabricmanager: host'
"""
# https://github.com/NVIDIA/nvidia-docker/issues/1003: another unit not found (counter-example).
OTHER_UNIT = """\
Failed to start nvidia-docker.service: Unit nvidia-docker.service not found.
● nvidia-docker.service
   Loaded: not-found (Reason: No such file or directory)
   Active: inactive (dead)
"""
# https://github.com/NVIDIA/gpu-monitoring-tools/issues/56: is-enabled from inside a container with no systemd to ask.
UNKNOWN_ERROR = "Failed to get unit file state for nvidia-fabricmanager.service: Unknown error 1540613216\n"

A100_BUSES = [f"00000000:{b}:00.0" for b in ("07", "0F", "47", "4E", "87", "90", "B7", "BD")]


def _host(text: str) -> MemoryHost:
    return MemoryHost(recognise(text, "paste.txt").record)


def _judge(text: str, cid: str) -> tuple[str, str]:
    result = run_checks(_host(text), [cid])[cid]
    return result.status, result.message


@pytest.mark.parametrize(("line", "unit"), [
    ("Unit nvidia-fabricmanager.service could not be found.", "fm"),
    ("Failed to start nvidia-fabricmanager.service: Unit nvidia-fabricmanager.service not found.", "fm"),
    ("Failed to restart nvidia-persistenced.service: Unit nvidia-persistenced.service not found.", "persistenced"),
    ("Failed to enable unit: Unit file nvidia-persistenced.service does not exist.", "persistenced"),
    ("Failed to enable unit: Unit file nvidia-dcgm.service does not exist.", "hostengine"),
    ("Failed to get unit file state for nvidia-fabricmanager.service: No such file or directory", "fm"),
    ("Unit nv-hostengine.service not found.", "hostengine"),
    ("  msg: 'Could not find the requested service nvidia-fabricmanager: host'", "fm"),
    # nvidia-docker#1003: nvidia-docker 1's plugin unit, read as its own daemon (no driver daemon missing)
    ("Failed to start nvidia-docker.service: Unit nvidia-docker.service not found.", "nvidia-docker"),
])
def test_each_spelling_of_the_answer_says_not_installed(line: str, unit: str) -> None:
    assert daemon_event(line) == (unit, "not-found")


@pytest.mark.parametrize("line", [
    # Modelled: DCGM's exporter unit, whose name starts with DCGM's.
    "Unit nvidia-dcgm-exporter.service could not be found.",
    UNKNOWN_ERROR.strip(),
    # `systemctl is-active` answers `inactive` for a unit that does not exist, as for a stopped one.
    "inactive",
    # Modelled: a masked unit exists.
    "Failed to enable unit: Unit file /etc/systemd/system/nvidia-persistenced.service is masked.",
])
def test_other_answers_are_not_a_missing_nvidia_unit(line: str) -> None:
    found = daemon_event(line)
    assert found is None or found[1] != "not-found"


def test_a_status_block_of_a_unit_without_a_file_is_not_installed() -> None:
    # Modelled on nvidia-docker#1003's block (systemd 237's words), for Fabric Manager's unit.
    block = ("● nvidia-fabricmanager.service\n   Loaded: not-found (Reason: No such file or directory)\n"
             "   Active: inactive (dead)\n")
    assert [k for k, _, _ in recognise(block, "paste.txt").recognised] == ["systemctl status"]
    fm = parse_daemon_log(block).fabricmanager
    assert fm.installed is False and fm.running is False and fm.state == "not installed"


def test_a_later_start_means_the_unit_was_installed() -> None:
    # Modelled: the pytorch#35710 comment's sequence, the package installed, then the unit started.
    fm = parse_daemon_log(START_PYTORCH + "Dec 01 10:00:00 h systemd[1]: Started NVIDIA fabric manager service.\n")
    assert fm.fabricmanager.installed is True and fm.fabricmanager.running is True


@pytest.mark.parametrize("text", [STATUS_1765, START_PYTORCH, ANSIBLE_DEEPOPS])
def test_fabric_manager_missing_without_gpus_is_unknown(text: str) -> None:
    status, message = _judge(text, "DRV-FABRIC-MANAGER")
    assert status == "unknown" and "not installed" in message


def test_fabric_manager_missing_on_eight_sxm_gpus_is_an_issue() -> None:
    # Modelled table: eight A100-SXM4, more than a board without NVSwitch holds.
    text = nvidia_smi_table("NVIDIA A100-SXM4-80GB", A100_BUSES, 400, 81920) + "\n" + STATUS_1765
    status, message = _judge(text, "DRV-FABRIC-MANAGER")
    assert status == "issue" and "not installed" in message


def test_fabric_manager_missing_on_four_sxm_gpus_or_pcie_cards_is_not_an_issue() -> None:
    # Modelled: four idle A100-SXM4 (a 4-GPU board has direct NVLinks, no NVSwitch), then two PCIe L40S.
    busy = nvidia_smi_table("NVIDIA A100-SXM4-80GB", A100_BUSES[:4], 400, 81920) + "\n" + STATUS_1765
    four = busy.replace(f"{81920 - 2000:>5}MiB /", f"{4:>5}MiB /")
    status, message = _judge(four, "DRV-FABRIC-MANAGER")
    assert status == "unknown" and "not installed" in message
    # Memory held on them is CUDA at work (facts/cuda_ran.held_in_table): no NVSwitch, or its fabric up.
    assert _judge(busy, "DRV-FABRIC-MANAGER")[0] == "ok"
    pcie = nvidia_smi_table("NVIDIA L40S", A100_BUSES[:2], 350, 46068) + "\n" + STATUS_1765
    assert _judge(pcie, "DRV-FABRIC-MANAGER")[0] == "not-applicable"


def test_persistenced_missing_is_judged_by_the_gpus_persistence_mode() -> None:
    status, message = _judge(ENABLE_ENVYCONTROL, "DRV-PERSISTENCE")
    assert status == "unknown" and "not installed" in message
    table = nvidia_smi_table("NVIDIA A100-SXM4-80GB", A100_BUSES[:2], 400, 81920)
    assert _judge(table + "\n" + ENABLE_ENVYCONTROL, "DRV-PERSISTENCE")[0] == "ok"
    off = table.replace("         On  |", "        Off  |")
    status, message = _judge(off + "\n" + ENABLE_ENVYCONTROL, "DRV-PERSISTENCE")
    assert status == "issue" and "nvidia-persistenced is not installed" in message


def test_the_dcgm_unit_missing_is_read_into_the_host_engine() -> None:
    engine = parse_daemon_log(ENABLE_DCGM).hostengine
    assert engine is not None and engine.installed is False


def test_another_units_answer_is_not_read() -> None:
    # nvidia-docker 1's plugin unit is read as its own daemon (tests/test_ctr_docker_daemon_down.py): not found, it is
    # no NVIDIA driver daemon missing, and no plugin shown failing.
    services = parse_daemon_log(OTHER_UNIT)
    assert all(d.installed is None for d in (services.persistenced, services.fabricmanager, services.hostengine))
    assert services.nvidia_docker is not None and services.nvidia_docker.installed is False
    assert _judge(OTHER_UNIT, "CTR-GPU-ACCESS")[0] != "issue"
    assert not any(k == "systemctl status" for k, _, _ in recognise(UNKNOWN_ERROR, "paste.txt").recognised)
