"""`fix --apply` / `fix --revert` for real, as root, on the real /proc/sys and /sys paths — inside a
private mount namespace (`unshare -m`) where a tmpfs over /proc/sys and one over /sys/kernel/mm hold
only the keys this test builds, so the machine's own settings are never touched. Skipped without
root or where the namespace cannot be made (a container without CAP_SYS_ADMIN).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNSHARE = shutil.which("unshare")


def _namespace_works() -> bool:
    if os.geteuid() != 0 or UNSHARE is None:
        return False
    probe = subprocess.run([UNSHARE, "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs stackaudit-probe /mnt"], capture_output=True, timeout=20)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _namespace_works(), reason="needs root and unshare -m with mount rights")

_INSIDE = r"""
import json, os, subprocess, sys
from stackaudit.cli.main import main
from stackaudit.fixes.model import Fix, sh, step
from stackaudit.fixes.apply import System, apply_plan
from stackaudit.fixes.journal import read_journal
from stackaudit.fixes.plan import build_plan

scratch = sys.argv[1]
for where in ("/proc/sys", "/sys/kernel/mm", "/run"):
    subprocess.run(["mount", "-t", "tmpfs", "stackaudit-test", where], check=True, timeout=20)
FILES = {"/proc/sys/vm/swappiness": "60\n", "/proc/sys/kernel/numa_balancing": "1\n",
         "/sys/kernel/mm/transparent_hugepage/defrag": "always defer [madvise] never\n"}
for path, text in FILES.items():
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)

def result(check, *steps):
    return {"id": check, "status": "issue", "priority": "P2", "title": check, "subjects": [], "actual": None,
            "waived": None, "fix": json.loads(json.dumps(Fix.of(*steps).to_json()))}

doc = {"schema": 2, "host": {"hostname": "h", "container": "none"}, "results": [
    result("KERN-SWAP", step("s", "sysctl -w vm.swappiness=10")),
    result("KERN-NUMA-BALANCING", step("n", "sysctl -w kernel.numa_balancing=0")),
    result("KERN-THP", step("t", sh("echo defer+madvise > /sys/kernel/mm/transparent_hugepage/defrag")))]}
WANT = {"KERN-SWAP": ("/proc/sys/vm/swappiness", "10"), "KERN-NUMA-BALANCING": ("/proc/sys/kernel/numa_balancing", "0"),
        "KERN-THP": ("/sys/kernel/mm/transparent_hugepage/defrag", "defer+madvise")}

def verify(ids):
    # KERN-NUMA-BALANCING stays an issue whatever is written: its change must be rolled back.
    return {i: "ok" if open(WANT[i][0]).read().strip() == WANT[i][1] and i != "KERN-NUMA-BALANCING" else "issue" for i in ids}

def values():
    return {p: open(p).read() for p in FILES}

out = {}
j1, j2 = os.path.join(scratch, "1.jsonl"), os.path.join(scratch, "2.jsonl")
out["apply"] = apply_plan(build_plan(doc), System("/"), j1, verify, lambda q: True, lambda s: None)
out["applied"] = values()
changes, undone = read_journal(j1)
out["journal"] = [[c.target, c.old, c.new, c.seq in undone] for c in changes]
doc["results"] = doc["results"][::2]  # a second apply of what was fixed
out["again"] = apply_plan(build_plan(doc), System("/"), j2, verify, lambda q: True, lambda s: None)
out["again_journal"] = open(j2).read()
out["revert"] = main(["fix", "--revert", j1])
out["reverted"] = values()

# The command line itself: the audit and the re-run check stand in (they would read this machine), the
# writes are the real ones of `fix --apply --yes`.
import types
import stackaudit.engine.runner as runner
import stackaudit.report.json_report as json_report
doc["results"] = [result("KERN-SWAP", step("s", "sysctl -w vm.swappiness=10"))]
runner.run_audit = lambda host, options: types.SimpleNamespace(results=[
    types.SimpleNamespace(id=i, status=s) for i, s in verify(options.select or ["KERN-SWAP"]).items()])
json_report.report_to_json = lambda report: doc
j3 = os.path.join(scratch, "3.jsonl")
out["cli"] = main(["fix", "--apply", "--yes", "--journal", j3])
out["cli_applied"] = values()["/proc/sys/vm/swappiness"]
out["cli_journal"] = [c.old for c in read_journal(j3)[0]]
print("RESULT " + json.dumps(out))
"""


def test_apply_and_revert_on_real_proc_sys_in_a_private_namespace(tmp_path: Path) -> None:
    assert UNSHARE is not None
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    done = subprocess.run([UNSHARE, "-m", "--propagation", "private", sys.executable, "-c", _INSIDE, str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT "):])
    assert out["apply"] == 1  # KERN-NUMA-BALANCING was rolled back
    assert out["applied"] == {"/proc/sys/vm/swappiness": "10\n", "/proc/sys/kernel/numa_balancing": "1\n",
                              "/sys/kernel/mm/transparent_hugepage/defrag": "defer+madvise\n"}
    # The plan takes equal findings in the report's order, by ID: NUMA balancing, swappiness, THP.
    assert out["journal"] == [["kernel.numa_balancing", "1", "0", True], ["vm.swappiness", "60", "10", False],
                              ["/sys/kernel/mm/transparent_hugepage/defrag", "madvise", "defer+madvise", False]]
    assert out["again"] == 0 and out["again_journal"] == ""
    assert out["revert"] == 0
    assert out["reverted"] == {"/proc/sys/vm/swappiness": "60\n", "/proc/sys/kernel/numa_balancing": "1\n",
                               "/sys/kernel/mm/transparent_hugepage/defrag": "madvise\n"}
    assert out["cli"] == 0 and out["cli_applied"] == "10\n" and out["cli_journal"] == ["60"]
    assert "KERN-SWAP: fixed" in done.stdout and "journal: " in done.stdout
