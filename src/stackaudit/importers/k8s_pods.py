"""`kubectl get pods` tables, a pod's events that show a container restarted or the pod not scheduled or refused
admission, and a pod's YAML `status:` block (facts/k8s_pods.py), recorded verbatim as the pasted document K8S_PODS."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.k8s_pods import EVENT_ROW, POD_ROW, START_FAILED, table_end
from stackaudit.facts.sources import EVIDENCE_LINES, K8S_PODS
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.evidence import folded_value, is_evidence
from stackaudit.importers.registry import Found, applied_each, document_appended, importer

# The events only a pod gets, from the scheduler, the cluster autoscaler or the kubelet admitting it: a row of one is a
# piece of a pod's `kubectl describe pod` (its Events table), pasted with or without the table (corpus 1958, 1945).
_POD_EVENTS = ("FailedScheduling", "NotTriggerScaleUp", "TriggeredScaleUp", "UnexpectedAdmissionError")
# The events kubelet gives a pod's containers as it pulls, creates, starts and stops them
# (`  Normal   Started  27m  kubelet  Started container driver-validation`, corpus 2030): kubelet gives a node none of
# these reasons (its own are Starting, NodeReady, NodeHasSufficientMemory, ...), so a row of one from kubelet is a piece
# of a pod's Events table.
_KUBELET_CONTAINER_EVENTS = ("Pulling", "Pulled", "Created", "Started", "Killing", "SandboxChanged")
# Any row of the table, its message cut off too (`  Normal   NotTriggerScaleUp  1s`), and the table's own head.
_ANY_EVENT_ROW = re.compile(r"^\s*(?:Normal|Warning)\s+[A-Z]\w+\b")
_EVENTS_HEAD = re.compile(r"^\s*(?:Events:\s*|Type\s+Reason\s+Age\s+From\s+Message\s*|-{4}\s+-{6}\s+-{3}.*)$")
# A pod's YAML `status:` block (`kubectl get pod -o yaml`), pasted alone: its keys, one of them its phase (corpus 1932).
_STATUS_HEAD = re.compile(r"^(?P<indent>\s*)status:\s*$")
_STATUS_KEY = re.compile(r"^\s+(?:message|phase|reason|startTime|conditions|containerStatuses|hostIP|podIP|podIPs|"
                         r"qosClass|nominatedNodeName|initContainerStatuses)\s*:")
_POD_PHASE = re.compile(r"^\s+phase:\s*(?:Pending|Running|Succeeded|Failed|Unknown)\s*$")
# How many lines a status block is read over.
_STATUS_LINES = 200


def _with_evidence(lines: list[str], start: int, end: int) -> Found:
    """A piece of a pod from line start to end: its lines recorded as K8S_PODS, and those of them that are known
    evidence (a folded YAML message read as its one line) as EVIDENCE_LINES, where the symptom readers find them as
    they did before the piece was read as a pod's."""
    said: list[str] = []
    k = start
    while k < end:
        folded, after = folded_value(lines, k) if ":" in lines[k] else ("", k)
        if folded and after <= end and is_evidence(folded):
            said.append(folded.strip())
            k = after
            continue
        if is_evidence(lines[k]):
            said.append(lines[k].strip())
        k += 1
    pod = document_appended(K8S_PODS.name, "\n".join(lines[start:end]) + "\n")
    apply = applied_each(pod, document_appended(EVIDENCE_LINES.name, "\n".join(said) + "\n")) if said else pod
    return Found("k8s pod listing", start, end, apply)


# A row of `kubectl get events` about a pod (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; columns left out where the
# user cut them: `FailedScheduling    pod/model-2-79d7d6786c-bprm8    0/1 nodes are available: ...`, corpus 2581).
_GET_EVENTS_ROW = re.compile(r"^\s*(?:\S+\s+){0,2}?(?P<reason>[A-Z]\w+)\s+pod/[a-z0-9][a-z0-9.-]*\s+\S")


def _pod_events(lines: list[str], i: int) -> tuple[int, int] | None:
    """The span of the pod's event rows around line i where it is a row of an event only a pod gets (_POD_EVENTS, or
    kubelet's _KUBELET_CONTAINER_EVENTS), with the table's `Events:` and column heads above them, or a run of
    `kubectl get events` rows about a pod, one of them such an event (_GET_EVENTS_ROW); None otherwise."""
    got = _GET_EVENTS_ROW.match(lines[i])
    if got is not None and got.group("reason") in _POD_EVENTS:
        start, end = i, i + 1
        while start > 0 and _GET_EVENTS_ROW.match(lines[start - 1]):
            start -= 1
        while end < len(lines) and _GET_EVENTS_ROW.match(lines[end]):
            end += 1
        return start, end
    event = EVENT_ROW.match(lines[i])
    if event is None or (event.group("reason") not in _POD_EVENTS and not (
            event.group("reason") in _KUBELET_CONTAINER_EVENTS and event.group("source").startswith("kubelet"))):
        return None
    start = i
    while start > 0 and (_ANY_EVENT_ROW.match(lines[start - 1]) or _EVENTS_HEAD.match(lines[start - 1])):
        start -= 1
    end = i + 1
    while end < len(lines) and _ANY_EVENT_ROW.match(lines[end]):
        end += 1
    return start, end


def _status_block(lines: list[str], i: int) -> int:
    """The end of a pod's YAML `status:` block at line i (its keys deeper than it, one a pod's phase); 0 where line i
    is none."""
    head = _STATUS_HEAD.match(lines[i])
    if head is None:
        return 0
    depth, end = len(head.group("indent")), i + 1
    while end < min(len(lines), i + 1 + _STATUS_LINES) and lines[end].strip() \
            and len(lines[end]) - len(lines[end].lstrip()) > depth:
        end += 1
    block = lines[i + 1:end]
    if not block or not _STATUS_KEY.match(block[0]) or not any(_POD_PHASE.match(x) for x in block):
        return 0
    return end


@importer("k8s pod listing", "a `kubectl get pods` table (NAME READY STATUS RESTARTS AGE, with its rows), or the "
          "Events of `kubectl describe pod` with kubelet's `Back-off restarting failed container` or its `Error: "
          "failed to start container \"<name>\"`, or rows of the table without its header where one shows a pod in "
          "CrashLoopBackOff or held in its init containers (Init:), or a pod's events that only a pod gets "
          "(FailedScheduling, NotTriggerScaleUp, UnexpectedAdmissionError; kubelet's Pulled, Created, Started, Killing) "
          "with or without their table, or a pod's "
          "YAML `status:` block with its phase",
          needles=("READY", "Back-off restarting failed container", "CrashLoopBackOff", "Init:",
                   "failed to start container", *_POD_EVENTS, *_KUBELET_CONTAINER_EVENTS, "status:"), per_line=True)
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
        if span := _pod_events(lines, i):
            yield _with_evidence(lines, *span)
            taken = span[1]
            continue
        if status_end := _status_block(lines, i):
            yield _with_evidence(lines, i, status_end)
            taken = status_end
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
