"""`kubectl get pods` tables and a pod's events that show a container restarted (facts/k8s_pods.py), recorded
verbatim as the pasted document K8S_PODS."""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.k8s_pods import EVENT_ROW, POD_ROW, START_FAILED, table_end
from stackaudit.facts.sources import K8S_PODS
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer


@importer("k8s pod listing", "a `kubectl get pods` table (NAME READY STATUS RESTARTS AGE, with its rows), or the "
          "Events of `kubectl describe pod` with kubelet's `Back-off restarting failed container` or its `Error: "
          "failed to start container \"<name>\"`, or rows of the table without its header where one shows a pod in "
          "CrashLoopBackOff or held in its init containers (Init:)",
          needles=("READY", "Back-off restarting failed container", "CrashLoopBackOff", "Init:",
                   "failed to start container"), per_line=True)
def k8s_pod_listing(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        if i < taken:
            continue
        if end := table_end(lines, i):
            yield Found("k8s pod listing", i, end, document_appended(K8S_PODS.name, "\n".join(lines[i:end]) + "\n"))
            taken = end
            continue
        # Rows pasted without the table's header (`kubectl get pods -A -o wide | grep nvidia`, corpus 1393): the run
        # of rows around a pod in CrashLoopBackOff, the status that names a row of this table and no other output, or in
        # its init containers (`Init:0/2`, kubectl's own word for them; corpus 1585).
        row = POD_ROW.match(lines[i])
        if row is not None and ("CrashLoopBackOff" in row.group("status") or row.group("status").startswith("Init:")):
            start = i
            while start > taken and POD_ROW.match(lines[start - 1]):
                start -= 1
            end = i + 1
            while end < len(lines) and POD_ROW.match(lines[end]):
                end += 1
            yield Found("k8s pod listing", start, end,
                        document_appended(K8S_PODS.name, "\n".join(lines[start:end]) + "\n"))
            taken = end
            continue
        event = EVENT_ROW.match(lines[i])
        if event is None or ("Back-off restarting failed container" not in lines[i]
                             and START_FAILED.match(event.group("message")) is None):
            continue
        # The run of event rows around it: the rows that say which container kubelet created again and again.
        start = i
        while start > 0 and EVENT_ROW.match(lines[start - 1]):
            start -= 1
        end = i + 1
        while end < len(lines) and EVENT_ROW.match(lines[end]):
            end += 1
        yield Found("k8s pod listing", start, end, document_appended(K8S_PODS.name, "\n".join(lines[start:end]) + "\n"))
        taken = end
