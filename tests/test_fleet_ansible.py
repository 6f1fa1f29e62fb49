"""The Ansible gatherer over a real sshd on 127.0.0.1: several inventory "hosts" that are aliases of this
machine on the sshd's port, each capturing its own fake host root (`stackaudit_root`) with planted drift,
plus the faults a fleet has: a host nobody listens for, one whose capture hangs, one returning garbage.

One sshd and one gathering run for the module (about as long as the capture time limit, TIMEOUT_S).
"""

from __future__ import annotations

import glob
import os
import sys
import time
from pathlib import Path

import pytest

from fleet_nodes_support import (
    SSHD,
    Node,
    built_zipapp,
    free_port,
    link_width_path,
    start_sshd,
    stop_sshd,
    write_node,
)
from stackaudit.errors import InputError
from stackaudit.fleet.outcome import NodeOutcome
from stackaudit.fleet.reasons import node_file_name
from stackaudit.host.snapshot_reader import load_snapshot

pytest.importorskip("ansible_runner", reason="ansible-runner is not installed (the test extra installs it)")
if not os.access(SSHD, os.X_OK):
    pytest.skip("openssh-server is not installed (`make test-deps-sshd` installs it as root)", allow_module_level=True)

from stackaudit.fleet.ansible import ansible_gatherer

# The capture time limit: a healthy fake node captures in a few seconds; the hung one would take a minute.
TIMEOUT_S = 12
NODES = (
    Node("node-01"),
    Node("node-02", driver="580.65.06"),
    Node("node-03", narrow_gpu="0000:4c:00.0"),
    Node("node-04", numa_balancing="1", cmdline_extra="iommu=pt"),
)
FAULTY = ("node-down", "node-hung", "node-junk", "node-bad", "node-leaky")
SECRET = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("ansible")
    sshd = start_sshd(work / "sshd")
    try:
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        stubs = work / "stubs"
        stubs.mkdir()
        # A node whose nvidia-smi hangs (as a wedged driver makes it): the capture waits on it for a minute.
        _script(stubs / "nvidia-smi", "exec sleep 60\n")
        hung = _script(work / "python-hung", f'PATH={stubs}:$PATH exec {python} "$@" --command-timeout 60\n')
        # A node whose "Python" writes junk where the snapshot should be and says it succeeded.
        junk = _script(work / "python-junk", 'while [ $# -gt 0 ]; do [ "$1" = --output ] && '
                       'head -c 3000 /dev/urandom > "$2"; shift; done\nexit 0\n')
        # A node whose Python fails with a credential in its last words.
        leaky = _script(work / "python-leaky", f'echo "cannot reach the hub with HF_TOKEN={SECRET}" >&2\nexit 3\n')
        # Where the nodes write their snapshot before the fetch (a folder of the test's, so that the test
        # can see nothing is left there).
        (work / "node-tmp").mkdir()
        ssh = (f"ansible_host=127.0.0.1 ansible_user=root ansible_ssh_private_key_file={sshd.client_key} "
               f"stackaudit_tmpdir={work / 'node-tmp'} "
               "ansible_ssh_common_args='-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null' "
               f"ansible_python_interpreter={python} ansible_pipelining=true")
        good_root = write_node(Node("node-hung"), work / "roots" / "node-hung")
        lines = ["[gpu]"]
        for node in NODES:
            root = write_node(node, work / "roots" / node.name)
            lines.append(f"{node.name} ansible_port={sshd.port} {ssh} stackaudit_root={root}")
        lines += [
            f"node-down ansible_port={free_port()} {ssh}",
            f"node-hung ansible_port={sshd.port} {ssh} stackaudit_root={good_root} stackaudit_python={hung}",
            f"node-junk ansible_port={sshd.port} {ssh} stackaudit_python={junk}",
            f"node-bad ansible_port={sshd.port} {ssh} stackaudit_root={work / 'no-such-root'}",
            f"node-leaky ansible_port={sshd.port} {ssh} stackaudit_python={leaky}",
            "[other]",
            f"node-elsewhere ansible_port={sshd.port} {ssh}",
        ]
        inventory = work / "hosts.ini"
        inventory.write_text("\n".join(lines) + "\n")
        zipapp = built_zipapp()
        answered: list[tuple[str, int]] = []
        start = time.monotonic()
        gather = ansible_gatherer(str(inventory), limit="gpu", forks=10, zipapp=zipapp, timeout_s=TIMEOUT_S)
        outcomes = list(gather(str(work / "dest"), lambda outcome, n: answered.append((outcome.node, n))))
        yield {"outcomes": outcomes, "answered": answered, "inventory": inventory, "work": work, "zipapp": zipapp,
               "seconds": time.monotonic() - start, "by_name": {o.node: o for o in outcomes}}
    finally:
        stop_sshd(sshd)


def test_every_host_in_the_limit_answers_once_and_is_reported_as_it_answers(fleet) -> None:  # type: ignore[no-untyped-def]
    names = [o.node for o in fleet["outcomes"]]
    assert sorted(names) == sorted([n.name for n in NODES] + list(FAULTY))  # node-elsewhere is outside the limit
    assert fleet["answered"] == [(name, i) for i, name in enumerate(names, 1)]
    # The unreachable host does not wait for the others' captures.
    assert names.index("node-down") < names.index("node-hung")


def test_each_node_brings_back_its_own_snapshot_with_its_planted_values(fleet) -> None:  # type: ignore[no-untyped-def]
    for node in NODES:
        outcome: NodeOutcome = fleet["by_name"][node.name]
        assert outcome.error is None, outcome
        assert outcome.snapshot == str(fleet["work"] / "dest" / f"{node.name}.tar.gz")
        host = load_snapshot(outcome.snapshot)
        assert host.meta.hostname == node.name
        assert host.read_bytes("/sys/module/nvidia/version") == f"{node.driver}\n".encode()
        assert host.read_bytes("/proc/sys/kernel/numa_balancing") == f"{node.numa_balancing}\n".encode()
        assert host.read_bytes("/proc/cmdline") == f"{node.cmdline}\n".encode()
        narrow = host.read_bytes(link_width_path("0000:4c:00.0"))
        assert narrow == (b"8\n" if node.narrow_gpu else b"16\n")


def test_faults_are_named_with_their_reason(fleet) -> None:  # type: ignore[no-untyped-def]
    by_name = fleet["by_name"]
    down = by_name["node-down"]
    assert down.snapshot is None and down.error.startswith("unreachable: ")
    assert "Connection refused" in down.error
    assert by_name["node-hung"].error == f"capture timed out after {TIMEOUT_S} s"
    assert by_name["node-junk"].error == "returned a file that is not a snapshot (3000 bytes, no gzip or tar header)"
    # A capture that fails says so with its exit code and the last line it wrote to stderr.
    no_root = fleet["work"] / "no-such-root"
    assert by_name["node-bad"].error == f"capture failed (exit 2): stackaudit: error: --root {no_root}: not a directory"
    # What a node says goes through the redaction every report gets: no secret reaches an outcome.
    assert by_name["node-leaky"].error == "capture failed (exit 3): cannot reach the hub with HF_TOKEN=<redacted>"
    for outcome in by_name.values():
        assert outcome.error is None or ("\n" not in outcome.error and SECRET not in outcome.error)


def test_nothing_is_left_on_the_nodes(fleet) -> None:  # type: ignore[no-untyped-def]
    # The snapshot files the nodes wrote (the junk one included) are removed after the fetch or the failure.
    left = fleet["work"] / "node-tmp"
    assert glob.glob(str(left / "stackaudit-*-node-0*.tar.gz")) == []
    assert glob.glob(str(left / "stackaudit-*-node-junk.tar.gz")) == []
    assert list(left.iterdir()) == []
    assert not (fleet["work"] / "dest" / "node-elsewhere.tar.gz").exists()


def test_a_limit_that_matches_no_host_is_an_input_error(fleet) -> None:  # type: ignore[no-untyped-def]
    gather = ansible_gatherer(str(fleet["inventory"]), limit="no-such-group", zipapp=fleet["zipapp"])
    with pytest.raises(InputError, match="Ansible ran on no host"):
        list(gather(str(fleet["work"] / "dest-none")))


def test_a_missing_inventory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        ansible_gatherer(str(tmp_path / "hosts.ini"))


def _fold(gather, events: list[dict], dest: Path) -> list[NodeOutcome]:  # type: ignore[no-untyped-def]
    hosts: dict = {}  # type: ignore[type-arg]
    settled = [host for event in events for host in gather._apply(event, hosts)]
    return [gather._outcome(host, hosts[host], str(dest)) for host in settled]


def test_a_node_that_gave_its_snapshot_keeps_it_when_its_clean_up_fails(fleet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gather = ansible_gatherer(str(fleet["inventory"]), zipapp=fleet["zipapp"], timeout_s=TIMEOUT_S)
    snapshot = Path(fleet["by_name"]["node-01"].snapshot)
    (tmp_path / "node-01.tar.gz").write_bytes(snapshot.read_bytes())
    ok = {"event": "runner_on_ok", "host": "node-01", "res": {}}
    events = [{**ok, "task": "stackaudit: capture"}, {**ok, "task": "stackaudit: fetch the snapshot"},
              {"event": "runner_on_failed", "host": "node-01", "task": "stackaudit: remove the snapshot from the node",
               "res": {"msg": "Permission denied"}}]
    assert _fold(gather, events, tmp_path) == [NodeOutcome("node-01", snapshot=str(tmp_path / "node-01.tar.gz"))]
    # Ansible's own task timeout (the controller gave up on the step) reads as a timeout too.
    events = [{"event": "runner_on_failed", "host": "node-09", "task": "stackaudit: capture",
               "res": {"msg": "The script action failed to execute in the expected time frame (137) and was terminated"}},
              {"event": "runner_on_ok", "host": "node-09", "task": "stackaudit: remove the snapshot from the node"}]
    assert _fold(gather, events, tmp_path) == [NodeOutcome("node-09", error=f"capture timed out after {TIMEOUT_S} s")]


def test_a_fetch_that_left_no_file_is_named(fleet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gather = ansible_gatherer(str(fleet["inventory"]), zipapp=fleet["zipapp"], timeout_s=TIMEOUT_S)
    ok = {"event": "runner_on_ok", "host": "node-07", "res": {}}
    events = [{**ok, "task": "stackaudit: capture"}, {**ok, "task": "stackaudit: fetch the snapshot"},
              {**ok, "task": "stackaudit: remove the snapshot from the node"}]
    assert _fold(gather, events, tmp_path) == [NodeOutcome("node-07", error="the fetched snapshot is missing")]


@pytest.mark.parametrize(("node", "file_name"), [
    ("node-07", "node-07.tar.gz"), ("gpu07.rack2.example", "gpu07.rack2.example.tar.gz"),
    ("../../etc/cron.d/x", "_._.._etc_cron.d_x.tar.gz"), (".hidden", "_hidden.tar.gz"), ("a b", "a_b.tar.gz"),
])
def test_a_node_name_never_leaves_the_gathering_directory(node: str, file_name: str) -> None:
    assert node_file_name(node) == file_name
