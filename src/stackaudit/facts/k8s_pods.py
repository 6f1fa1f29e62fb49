"""Kubernetes pods as `kubectl get pods` lists them or `kubectl describe pod` describes them, and containers `kubectl
describe pod`'s events show restarted.

`kubectl get pods` prints a table (NAME READY STATUS RESTARTS AGE, NAMESPACE first with `-A`, `-o wide` adds IP and
NODE): each row is a pod with its ready containers, its status (Running, Pending, CrashLoopBackOff, Error,
Init:CrashLoopBackOff, ...) and its restarts (`438 (3m9s ago)` since kubectl 1.22). `kubectl describe pod` ends with the
pod's events: kubelet's `Back-off restarting failed container` is a container in a restart loop, the state the table
shows as CrashLoopBackOff (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restarts).

A listing is no container spec: it says which pods run or fail, not what any of them was given. A listing cut or
filtered (`| grep nvidia`, `-n gpu-operator`) shows the pods it shows; no pod is absent from it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from stackaudit.facts._parse import ParseError
from stackaudit.facts.registry import fact, parser
from stackaudit.facts.sources import K8S_PODS, USER_MACHINE

# The table's header, with the columns `-A` and `-o wide` add; an HTML `<pre>` a GitHub issue wraps it in may open its
# line (corpus 1931).
POD_TABLE_HEAD = re.compile(r"^\s*(?:<pre>\s*)?(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b")
# `kubectl get all` and `oc get all` name each row by its resource type (`pod/nvidia-driver-daemonset-q45bl`, corpus
# 2004), as `kubectl get pods -o name` does: the type is no part of the pod's name.
# The statuses kubectl prints for a pod (its phase, or the reason of a container that waits or ended).
_STATUS = (r"(?:Init:)?(?:CrashLoopBackOff|Error|ImagePullBackOff|ErrImagePull|OOMKilled|ContainerStatusUnknown|"
           r"CreateContainerConfigError|CreateContainerError|RunContainerError|StartError|InvalidImageName|"
           r"\d+/\d+)|Running|Pending|Completed|Succeeded|Failed|Terminating|ContainerCreating|PodInitializing|"
           r"Evicted|Unknown|NodeLost|UnexpectedAdmissionError|NotReady|Unschedulable")
POD_ROW = re.compile(rf"^\s*(?:(?P<ns>[a-z0-9][a-z0-9.-]*)\s+)?(?:pods?/)?(?P<name>[a-z0-9][a-z0-9.-]*)\s+(?P<ready>\d+/\d+)\s+"
                     rf"(?P<status>{_STATUS})\s+(?P<restarts>\d+(?:\s+\([^)]*\))?)\s+(?P<age>\d[\w.]*|<unknown>)(?:\s|$)")
# A row of a pod's events (`  Warning  BackOff  39s (x71 over 14m)  kubelet  Back-off restarting failed container`).
EVENT_ROW = re.compile(r"^\s*(?P<type>Normal|Warning)\s+(?P<reason>\w+)\s+(?P<age>\S+(?:\s+\(x\d+ over \S+\))?)\s+"
                       r"(?P<source>\S+(?:,\s*\S+)?)\s+(?P<message>\S.*?)\s*$")
_BACKOFF = re.compile(r"^Back-off restarting failed container(?:\s+(?P<ctr>[a-z0-9][a-z0-9.-]*))?")
_CREATED = re.compile(r"^(?:Created|Started) container (?P<ctr>[a-z0-9][a-z0-9.-]*)")
_REPEATED = re.compile(r"\(x(?P<n>\d+) over ")
# kubelet's Failed event where the runtime refused to start a container (`Error: failed to start container
# "nvidia-device-plugin-ctr": Error response from daemon: OCI runtime create failed: ...`, corpus 1749): the state
# `kubectl get pods` shows as RunContainerError.
START_FAILED = re.compile(r'^Error: failed to start container "(?P<ctr>[a-z0-9][a-z0-9.-]*)"')
# The statuses of a pod whose container keeps failing (it exits, kubelet restarts it, it exits again) or whose image
# never arrives (kubelet backs off pulling it): either way the pod does not run.
FAILING = frozenset({"CrashLoopBackOff", "Error", "Init:CrashLoopBackOff", "Init:Error", "ImagePullBackOff",
                     "ErrImagePull", "Init:ImagePullBackOff", "Init:ErrImagePull", "RunContainerError",
                     "Init:RunContainerError"})
# The GPU Operator's pods that hand the GPUs to every other pod: its driver daemonset (`nvidia-driver-daemonset-x`,
# `nvidia-driver-daemonset-5.15.0-1034-azure-ubuntu22.04-abcde`, container nvidia-driver-ctr) loads the kernel
# modules, its toolkit daemonset (container nvidia-container-toolkit-ctr) configures the runtime that injects them.
# Its validators prove on each GPU node that they did: nvidia-operator-validator's init containers check the driver,
# the toolkit, a CUDA workload (the nvidia-cuda-validator pod) and a pod given nvidia.com/gpu through the device plugin
# (the nvidia-device-plugin-validator pod), and stay failing until each passes (NVIDIA/gpu-operator#528, #1848).
GPU_PROVIDER = re.compile(r"^nvidia-(?:driver|container-toolkit)-(?:daemonset\b|ctr$)|"
                          r"^nvidia-(?:operator|cuda|device-plugin)-validator(?:-[a-z0-9]+)?$")
# The GPU Operator's own controller (`gpu-operator-657c5b798d-xgvgc`, a Helm release's
# `gpu-operator-1676547773-...`) and the node feature discovery it deploys (`gpu-operator-node-feature-discovery-
# master-...`, OpenShift's `rhgpu-node-feature-discovery-...`, the device plugin chart's `nvdp-node-feature-discovery-
# worker-...`): NFD labels the nodes that hold an NVIDIA PCI device, and the operator deploys its driver, toolkit and
# device plugin pods on those nodes. Neither hands a GPU to a pod itself.
OPERATOR_CONTROL = re.compile(r"^gpu-operator-|^[a-z0-9-]*gpu[a-z0-9-]*-node-feature-discovery-|"
                              r"^nvdp-node-feature-discovery-")
# The operator's operands, by the pod's name: what a namespace the operator manages holds once it has deployed them.
OPERAND = re.compile(r"^nvidia-(?:driver|container-toolkit|device-plugin)-|^gpu-feature-discovery-|"
                     r"^nvidia-(?:operator|cuda)-validator-")
# The NVIDIA device plugin's pod (`nvidia-device-plugin-daemonset-csjxw` from its own DaemonSet manifest,
# `nvidia-device-plugin-9p462` from its Helm chart, container nvidia-device-plugin-ctr): it advertises the node's GPUs
# (nvidia.com/gpu) to the kubelet, and it reaches them only where the node's container runtime injects the driver's
# libraries into it (the nvidia runtime as the default one, or the GPU Operator's toolkit).
# Its image (`nvidia/k8s-device-plugin:1.8`, `nvcr.io/nvidia/k8s-device-plugin:v0.14.1`): its own ENV
# NVIDIA_VISIBLE_DEVICES=all, so a container of it run with the nvidia runtime is handed the driver and the GPUs.
DEVICE_PLUGIN_IMAGE = re.compile(r"(?:^|/)k8s-device-plugin(?:[:@]|$)")
# The operator's nvidia-device-plugin-validator pod is a validator (GPU_PROVIDER), not the plugin.
DEVICE_PLUGIN = re.compile(r"^nvidia-device-plugin(?!-validator)(?:-daemonset)?(?:-[a-z0-9]+){0,2}$|"
                           r"^nvidia-device-plugin-ctr$")


@dataclass(frozen=True)
class PodState:
    name: str  # the pod's name; a container's where an event names only the container
    status: str
    ready: str = ""
    restarts: str = ""
    line: str = ""  # the row, as pasted
    namespace: str = ""  # its NAMESPACE column (`kubectl get pods -A`); "" where the listing has none

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    @property
    def gpu_provider(self) -> bool:
        """Whether this is the GPU Operator's driver, toolkit or validator pod (or container)."""
        return GPU_PROVIDER.match(self.name) is not None

    @property
    def role(self) -> str:
        """What the GPU Operator's pod does, in a word: toolkit, validator, driver (GPU_PROVIDER), else ""."""
        if not self.gpu_provider:
            return ""
        return next(word for word in ("toolkit", "validator", "driver") if word in self.name)

    @property
    def device_plugin(self) -> bool:
        """Whether this is the NVIDIA device plugin's pod (or container)."""
        return DEVICE_PLUGIN.match(self.name) is not None


@dataclass(frozen=True)
class K8sPods:
    pods: tuple[PodState, ...]

    def failing_provider(self) -> PodState | None:
        """The GPU Operator's driver or toolkit pod shown in a restart loop (FAILING), or None."""
        return next((p for p in self.pods if p.gpu_provider and p.failing), None)

    def failing_plugin(self) -> PodState | None:
        """The NVIDIA device plugin's pod shown in a restart loop (FAILING), or None."""
        return next((p for p in self.pods if p.device_plugin and p.failing), None)

    def operator_without_operands(self) -> PodState | None:
        """The GPU Operator's controller or its node feature discovery shown failing (FAILING) where a listing of
        every namespace (`kubectl get pods -A`) shows the operator's namespace whole, none of its pods an operand
        (OPERAND), and a pod running, so no filter hid the rest: nothing the operator manages hands the nodes'
        GPUs to pods. kubectl sorts the rows by namespace, so a row of another namespace after the operator's
        shows its rows whole. None otherwise (a `-n gpu-operator` listing: its operands may be cut or filtered out)."""
        operator_ns = {p.namespace for p in self.pods if p.namespace and p.name.startswith("gpu-operator-")}
        rows = [p for p in self.pods if p.line]
        if not any(p.status == "Running" for p in rows):
            return None
        for ns in sorted(operator_ns):
            at = [i for i, p in enumerate(rows) if p.namespace == ns]
            whole = at[-1] + 1 < len(rows) and rows[at[-1] + 1].namespace not in ("", ns)
            pods = [rows[i] for i in at]
            # The controller first: NFD failing is the lesser cause where both are down.
            failing = next(iter(sorted((p for p in pods if p.failing and OPERATOR_CONTROL.match(p.name)),
                                       key=lambda p: "feature-discovery" in p.name)), None)
            if failing is not None and whole and not any(OPERAND.match(p.name) for p in pods):
                return failing
        return None


# The blank lines a paste may put between a table's rows (a copy from a terminal or a chat that doubled the line
# ends, corpus 1267): a row after at most this many blank lines is still the table's.
ROW_GAP = 2


def table_end(lines: Sequence[str], i: int) -> int:
    """The end (exclusive) of the pod table whose header is line i (rows up to the first line that is none, blank
    lines between rows, at most ROW_GAP in a run, passed over); 0 where line i is no header or no row follows it."""
    if not POD_TABLE_HEAD.match(lines[i]):
        return 0
    end = next_line = i + 1
    while next_line < len(lines):
        if POD_ROW.match(lines[next_line]):
            end = next_line = next_line + 1
        elif not lines[next_line].strip() and next_line - end < ROW_GAP:
            next_line += 1
        else:
            break
    return end if end > i + 1 else 0


def _restarted(events: Sequence[str]) -> list[PodState]:
    """The containers a run of events shows in a restart loop: the one kubelet's back-off names, or where it names
    none (kubelet before 1.26), the container it created more than once; and each one the runtime refused to start
    (START_FAILED)."""
    rows = [m for line in events if (m := EVENT_ROW.match(line))]
    looping: list[PodState] = []
    for row in rows:
        if row.group("reason") == "Failed" and (refused := START_FAILED.match(row.group("message"))):
            looping.append(PodState(refused.group("ctr"), "RunContainerError", line=row.group(0).strip()))
            continue
        back = _BACKOFF.match(row.group("message"))
        if back is None:
            continue
        named = back.group("ctr")
        if not named:
            repeated = {c.group("ctr") for r in rows if (c := _CREATED.match(r.group("message")))
                        and (n := _REPEATED.search(r.group("age"))) and int(n.group("n")) > 1}
            named = next(iter(repeated)) if len(repeated) == 1 else ""
        if named:
            looping.append(PodState(named, "CrashLoopBackOff", line=row.group(0).strip()))
    return looping


# `kubectl describe pod`'s head: `Name:` then `Namespace:` at one indentation (the whole output may be indented).
DESCRIBE_POD_NAME = re.compile(r"^(?P<base>\s*)Name:\s+(?P<name>[a-z0-9][a-z0-9.-]*)\s*$")
# A field of `kubectl describe`'s output: `Key: value` at its level, the lines under it deeper
# (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_describe/).
_DESCRIBE_FIELD = re.compile(r"^(?P<key>[A-Z][\w() -]*?):(?:\s+(?P<value>\S.*?))?\s*$")


def _indent(line: str) -> int:
    line = line.expandtabs()
    return len(line) - len(line.lstrip(" "))


def describe_sections(lines: Sequence[str], base: int) -> dict[str, tuple[str, list[str]]]:
    """The fields of a describe output at indentation `base`: name -> (value, the lines under it with `base` columns
    taken off)."""
    out: dict[str, tuple[str, list[str]]] = {}
    key = ""
    for line in lines:
        if line.strip() and _indent(line) == base and (m := _DESCRIBE_FIELD.match(line.expandtabs()[base:])):
            key = m.group("key")
            out.setdefault(key, (m.group("value") or "", []))
        elif key and line.strip():
            out[key][1].append(line.expandtabs()[base:])
    return out


def describe_items(block: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The named items of a describe section (a container, a volume: `name:` two columns in), each with its lines
    (four columns taken off: its fields at 0)."""
    items: list[tuple[str, list[str]]] = []
    for line in block:
        if _indent(line) == 2 and line.rstrip().endswith(":"):
            items.append((line.strip()[:-1], []))
        elif items and _indent(line) > 2:
            items[-1][1].append(line[4:] if _indent(line) >= 4 else line.strip())
    return items


@dataclass
class _Described:
    name: str
    state: str = ""
    reason: str = ""
    exit_code: str = ""
    restarts: int = 0
    ready: bool | None = None  # None: its Ready field not shown


def _describe_containers(block: Sequence[str]) -> list[_Described]:
    """The containers of one describe section (lines with the output's indentation taken off, describe_items), with
    the fields of each one's current State (a Last State's reason is its previous run's)."""
    out: list[_Described] = []
    for name, lines in describe_items(block):
        fields = describe_sections(lines, 0)
        state, under = fields.get("State", ("", []))
        detail = {k: v for k, (v, _) in describe_sections(under, _indent(under[0])).items()} if under else {}
        restarts, _ = fields.get("Restart Count", ("", []))
        ready = fields["Ready"][0] == "True" if "Ready" in fields else None
        out.append(_Described(name, state, detail.get("Reason", ""), detail.get("Exit Code", ""),
                              int(restarts) if restarts.isdecimal() else 0, ready))
    return out


def _described_status(phase: str, inits: Sequence[_Described], ctrs: Sequence[_Described]) -> tuple[str, str]:
    """The status `kubectl get pods` prints for a described pod: an init container that waits for a reason or ended
    in error (`Init:CrashLoopBackOff`, `Init:Error`), else one still to finish (`Init:0/1`); an init container cut
    before its State leaves the phase (what it did is not shown); then a container that
    waits or ended for a reason (CrashLoopBackOff, OOMKilled); else the pod's phase. kubectl's own order
    (printPod, k8s.io/kubernetes pkg/printers/internalversion/printers.go). With it, the container that decides it,
    as `name: State, Reason` ("" where the phase does)."""
    for n, ctr in enumerate(inits):
        said = f"{ctr.name}: {ctr.state}" + (f", {ctr.reason}" if ctr.reason else "")
        if ctr.state == "Terminated" and ctr.exit_code not in ("", "0"):
            return "Init:" + (ctr.reason or "Error"), said
        if ctr.state == "Waiting" and ctr.reason and ctr.reason != "PodInitializing":
            return "Init:" + ctr.reason, said
        if not ctr.state:  # cut before its State: what it did is not shown
            return phase, ""
        if ctr.state != "Terminated":
            return f"Init:{n}/{len(inits)}", said
    for ctr in ctrs:
        if ctr.state in ("Waiting", "Terminated") and ctr.reason and ctr.reason != "Completed":
            return ctr.reason, f"{ctr.name}: {ctr.state}, {ctr.reason}"
    return phase, ""


def described_pods(lines: Sequence[str]) -> list[PodState]:
    """The pods pasted `kubectl describe pod` outputs show: each one's name, namespace, the status `kubectl get pods`
    would print (_described_status), its ready containers and its restarts. Its row (PodState.line) is its namespace,
    name, `Status:` and the container that decides the status. A pod whose description is cut before its `Status:`
    line is not read."""
    pods: list[PodState] = []
    for i, line in enumerate(lines):
        head = DESCRIBE_POD_NAME.match(line)
        if head is None or i + 1 >= len(lines) or not re.match(rf"^{head.group('base')}Namespace:\s+\S", lines[i + 1]):
            continue
        base = _indent(head.group("base"))
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() and (
            _indent(lines[j]) < base or DESCRIBE_POD_NAME.match(lines[j]))), len(lines))
        sections = describe_sections(lines[i + 1:end], base)
        fields = {key: value for key, (value, _) in sections.items()}
        if not fields.get("Status"):
            continue
        inits = _describe_containers(sections.get("Init Containers", ("", []))[1])
        ctrs = _describe_containers(sections.get("Containers", ("", []))[1])
        status, said = _described_status(fields["Status"], inits, ctrs)
        ready = f"{sum(bool(c.ready) for c in ctrs)}/{len(ctrs)}" if ctrs and all(
            c.ready is not None for c in ctrs) else ""
        restarts = str(sum(c.restarts for c in (*inits, *ctrs))) if any(
            c.restarts for c in (*inits, *ctrs)) else ""
        # The row quoted: namespace and name first, as `kubectl get pods -A` puts them.
        namespace = fields.get("Namespace", "")
        row = f"{namespace} {head.group('name')}  Status: {fields['Status']}" + (f"  {said}" if said else "")
        pods.append(PodState(head.group("name"), status, ready, restarts, row.strip(), namespace))
    return pods


def parse_k8s_pods(text: str) -> K8sPods:
    """The pods of pasted `kubectl get pods` rows and `kubectl describe pod` outputs, and the containers pasted
    events show restarted; ParseError where there are none."""
    lines = text.splitlines()
    pods = [PodState(m.group("name"), m.group("status"), m.group("ready"), m.group("restarts"), line.strip(),
                     m.group("ns") or "")
            for line in lines if (m := POD_ROW.match(line))]
    pods += described_pods(lines)
    pods += _restarted(lines)
    if not pods:
        raise ParseError("no pod row and no restarted container")
    return K8sPods(tuple(pods))


fact("k8s_pods", K8sPods, hint=K8S_PODS.hint)


@parser(K8S_PODS, feeds="k8s_pods", kind=K8sPods, rank=10)
def k8s_pods_from_paste(text: str) -> K8sPods:
    """Pasted `kubectl get pods` rows and `kubectl describe pod` events.

    Input (tests/data/captures/1207; 1173 holds a `kubectl get pods` table)::

          Normal   Created    13m (x4 over 15m)   kubelet            Created container nvidia-driver-ctr
          Warning  BackOff    39s (x71 over 14m)  kubelet            Back-off restarting failed container
    """
    return parse_k8s_pods(text)


# One GPU to each pod or replica in the user's words (`4 replicas in this server with 1 GPU each`, corpus 2581; `every
# pod has one gpu`, corpus 2575): a question states nothing.
_ONE_GPU_EACH = re.compile(
    r"\b(?:1|one|a\s+single)\s+GPU\s+(?:each|per\s+(?:pod|replica|container|worker))\b|"
    r"\b(?:each|every)\s+(?:pod|replica|container|worker)\s+(?:has|gets|uses|with|requests?|holds)\s+"
    r"(?:only\s+)?(?:1|one|a\s+single)\s+GPU\b", re.I)


def stated_one_gpu_each(line: str) -> str:
    """The clause of a line that says each pod (replica, container) holds one GPU, in the user's words; ""."""
    m = _ONE_GPU_EACH.search(line) if "?" not in line and len(line) < 2000 else None
    return m.group(0) if m else ""


@dataclass(frozen=True)
class StatedPodGpus:
    line: str  # the user's line, as pasted


fact("stated_pod_gpus", StatedPodGpus, hint="paste the pods' specs (`kubectl get pod <pod> -o yaml`)")


@parser(USER_MACHINE, feeds="stated_pod_gpus", kind=StatedPodGpus, rank=10)
def pod_gpus_from_user_words(text: str) -> StatedPodGpus:
    """One GPU to each pod in the user's words: the first line that says so.

    Input (tests/data/captures/2581)::

        while trying to deploy NVIDIA triton service with 4 replicas in this server with 1 GPU each, 3 pods were running
    """
    line = next((x.strip() for x in text.splitlines() if stated_one_gpu_each(x)), "")
    if not line:
        raise ParseError("states no GPU per pod")
    return StatedPodGpus(line)
