"""Run the Ray gatherer on a 3-node `ray.cluster_utils.Cluster` inside a fresh network namespace.

tests/test_fleet_ray.py starts this as a subprocess: `python fleet_ray_driver.py WORKDIR`. It enters a
network namespace of its own with only the loopback interface up (Ray otherwise advertises the
machine's outward address and probes a public resolver to find it), starts a head and two worker nodes
with their own fake roots (STACKAUDIT_ROOT in each node's environment), gathers, and removes the third
node while its capture is stuck on a hung nvidia-smi. It writes WORKDIR/result.json; exit 77 means the
namespace could not be made (not root).
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import shutil
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
SKIP = 77
OBJECT_STORE_BYTES = 80 * 1024 * 1024  # Ray's smallest object store is 75 MiB


def enter_loopback_namespace() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, ifreq))[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def main(work: Path) -> int:
    try:
        enter_loopback_namespace()
    except OSError as exc:
        print(f"no network namespace: {exc}", file=sys.stderr)
        return SKIP
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ray.cluster_utils import Cluster

    from fleet_nodes_support import Node, write_node
    from stackaudit.fleet.ray_nodes import ray_gatherer

    nodes = (Node("ray-head"), Node("ray-worker", driver="580.65.06"), Node("ray-stuck"))
    roots = [write_node(n, work / "roots" / n.name) for n in nodes]
    stubs = work / "stubs"
    stubs.mkdir()
    (stubs / "nvidia-smi").write_text("#!/bin/sh\nexec sleep 30\n")
    (stubs / "nvidia-smi").chmod(0o755)
    common = {"num_cpus": 1, "object_store_memory": OBJECT_STORE_BYTES, "include_dashboard": False}
    temp_dir = tempfile.mkdtemp(prefix="ray-sa-", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    # Ray writes its address file to $RAY_TMPDIR/ray (else $TMPDIR/ray) without making the folder; point it
    # at a folder of this run's own, so a fresh machine (no $TMPDIR/ray from an earlier run) works the same.
    os.environ["RAY_TMPDIR"] = temp_dir
    os.mkdir(os.path.join(temp_dir, "ray"))
    start = time.monotonic()
    def node_env(i: int) -> dict[str, str]:
        # TMPDIR: the task's scratch directory lands in WORKDIR (the removed node's task never cleans up).
        (work / f"tmp{i}").mkdir()
        return {"STACKAUDIT_ROOT": str(roots[i]), "TMPDIR": str(work / f"tmp{i}")}

    cluster = Cluster(initialize_head=True, head_node_args={**common, "temp_dir": temp_dir, "env_vars": node_env(0)})
    result: dict[str, object] = {}
    try:
        worker = cluster.add_node(**common, env_vars=node_env(1))
        stuck = cluster.add_node(**common, env_vars={**node_env(2), "PATH": f"{stubs}:{os.environ.get('PATH', '')}"})
        cluster.wait_for_nodes()
        result["startup_s"] = time.monotonic() - start
        ids = {cluster.head_node.node_id: "ray-head", worker.node_id: "ray-worker", stuck.node_id: "ray-stuck"}
        outcomes, answered = [], []
        gather = ray_gatherer(address=cluster.address, timeout_s=60)
        for outcome in gather(str(work / "dest"), lambda o, n: answered.append([o.node, n])):
            outcomes.append({"node": outcome.node, "snapshot": outcome.snapshot, "error": outcome.error})
            if len(outcomes) == 2:  # the two healthy nodes answered; the third is still in nvidia-smi
                cluster.remove_node(stuck)
        result.update(outcomes=outcomes, answered=answered, gather_s=time.monotonic() - start,
                      names={node_id: name for node_id, name in ids.items()})
    finally:
        cluster.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
        (work / "result.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
