"""Fabric Manager's own log: its fatal words with or without a journal tag (facts/symptoms.FM_FATAL) prove
DRV-FABRIC-MANAGER; the Talos extension's wrapper lines are read as the daemon's (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia_daemons import daemon_event, parse_daemon_log
from stackaudit.importers.recognition import recognise

CHECK = "DRV-FABRIC-MANAGER"
JOURNAL = "NVIDIA daemon journal"

# https://github.com/siderolabs/extensions/issues/511 (issue body): after an update the same check named DATABASE_PATH;
# the line is modelled on the one the comment quotes (capture 706).
DATABASE_PATH = "10.0.0.7: fabric manager config file item: DATABASE_PATH has an invalid value\n"

# https://github.com/NVIDIA/nvrc/issues/203 (issue body): FM "exits with `failed to open fabric topology file`"; the
# journal line around the quoted words is modelled.
TOPOLOGY = """\
Jul 22 10:01:02 guest nv-fabricmanager[311]: failed to open fabric topology file
Jul 22 10:01:02 guest systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE
"""

# Modelled on the wrapper's source (siderolabs/extensions nvidia-fabricmanager-wrapper/main.go): its own exit line.
WRAPPER_EXIT = ("10.10.10.10: 2025/11/25 14:02:11 nvidia-fabricmanager-wrapper: command /usr/bin/nv-fabricmanager "
                "[2113] exited with code 1\n")
# Modelled counter-example: the wrapper found its socket and started both programs; nothing failed.
WRAPPER_HEALTHY = """\
10.10.10.10: 2025/11/25 13:58:49 nvidia-fabricmanager-wrapper: socket found at /var/run/nvidia-fabricmanager/fm_sm_ipc.socket
10.10.10.10: 2025/11/25 13:58:50 nvidia-fabricmanager-wrapper: running command: /usr/bin/nv-fabricmanager --config /usr/share/nvidia/nvswitch/fabricmanager.cfg
10.10.10.10: 2025/11/25 13:58:50 nvidia-fabricmanager-wrapper: initialization completed
"""


def _kinds(text: str) -> list[str]:
    return [kind for kind, _, _ in recognise(text, "paste.txt").recognised]


def test_untagged_config_refusal_is_an_issue() -> None:
    """Real (siderolabs/extensions#511, capture 706): the Talos extension's line, the node address first."""
    r = capture_checks("706", CHECK, "DRV-NVLINK-HEALTH")
    assert r[CHECK].status == "issue"
    assert any("FABRIC_NODE_CONFIG_FILE has an invalid value" in line for line in r[CHECK].evidence)
    assert r["DRV-NVLINK-HEALTH"].status == "unknown"


@pytest.mark.parametrize("text", [DATABASE_PATH, TOPOLOGY], ids=["database-path", "topology-file"])
def test_fm_fatal_words_are_read_and_proven(tmp_path: Path, text: str) -> None:
    """siderolabs/extensions#511's other item and NVIDIA/nvrc#203's topology file (lines modelled on the threads)."""
    assert JOURNAL in _kinds(text)
    assert parse_daemon_log(text).fabricmanager.active == "failed"
    r = paste_checks(tmp_path, text, CHECK)[CHECK]
    assert r.status == "issue" and "refused its configuration" in r.message


def test_wrapper_lines_show_an_nvswitch_host() -> None:
    """Real (siderolabs/extensions#893, capture 703): the wrapper's LPF lines are an NVSwitch host's; the paste ends
    before Fabric Manager runs, so the check stays unknown and names the switches."""
    r = capture_checks("703", CHECK, "DRV-NVLINK-HEALTH")
    assert r[CHECK].status == "unknown" and "this host has NVSwitches" in r[CHECK].message
    assert r["DRV-NVLINK-HEALTH"].status == "unknown"


def test_wrapper_exit_is_a_failure() -> None:
    """Modelled on the wrapper's source: nv-fabricmanager exiting non-zero is the daemon failing."""
    assert daemon_event(WRAPPER_EXIT.strip()) == ("fm", "failed")


def test_healthy_wrapper_lines_prove_nothing(tmp_path: Path) -> None:
    """Modelled counter-example: the wrapper's start lines are read, and no failure is made of them."""
    assert JOURNAL in _kinds(WRAPPER_HEALTHY)
    fm = parse_daemon_log(WRAPPER_HEALTHY).fabricmanager
    assert fm.active != "failed"
    assert paste_checks(tmp_path, WRAPPER_HEALTHY, CHECK)[CHECK].status != "issue"
