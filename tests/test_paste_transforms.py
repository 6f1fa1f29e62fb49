"""The property of the whole corpus (issue 27): how a paste was pasted changes nothing that is read.

Every real paste of tests/data/captures, quoted (`> `), double-quoted (`> > `), with Windows line ends
(`\\r\\n` and `\\r\\r\\n`), inside a code fence, after a shell prompt line, or with a log collector's
prefix on every line (the kubelet's CRI form, `docker logs -t`, `docker compose`, a unit's journal), gives the same record
as the paste itself: the same outputs, read as the same kinds, on the lines the user's file has them.
Each file goes through a fifth of these ways, rotating with its name, so that each way meets a fifth of the corpus.
A kernel log behind a syslog, journal or Talos prefix gives the same verdicts, and names its host.
Cut at a line (a deterministic pseudo-random one per file), it never gives an `ok` the whole paste
does not give: what was cut away can only take evidence away. With old Mac line ends (`\\r` alone) it
gives the same record too. Its `nvidia-smi -q` output flattened onto one line (a chat or a forum joins
the `Key : value` fields with spaces), it gives the same GPU facts, read from that one line, and no new `ok`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from corpus import CorpusEntry, corpus_gaps, load_corpus
from stackaudit.engine.runner import Report
from stackaudit.engine.testing import run_checks
from stackaudit.facts.sources import LOG_LINE_HOSTS, LOG_LINE_PROGRAMS, PROMPT_ENVS, PROMPT_HOSTS
from stackaudit.host.memory import HostRecord, MemoryHost
from stackaudit.importers._paste import LOG_PREFIXES, view
from stackaudit.importers.recognition import ImportResult, recognise

ENTRIES = load_corpus()

# Cuts that do give a new `ok` today: an excerpt judged as if whole (issue 28, rule 4). Each must still give
# it (the test fails when one stops: remove it), so the list only shrinks.
KNOWN_NEW_OK: dict[tuple[str, str], str] = {
    ("2380-k8s-two-pods-2x-a100-nv12-topo-m-mlx5-pod1-nearest-nic-node-ipc-lock-shm-10gi.txt", "CTR-IPC-ISOLATION"):
        "h105c: cut after line 46 only pod 8pxb's prompt is left, so the pod held open with two GPUs keeps its ranks "
        "inside it (ok); the second pod's prompt (9pxb, line 57) that makes the whole paste unknown is cut away, and "
        "the user's words of two pods (line 4) are not read",
    ("1787-open-515-43-04-built-from-source-nvidia-smi-no-handle-lsmod.txt", "DRV-OPEN-MODULE"):
        "h83b: the open module loaded on a GPU no source names is judged ok; the whole paste is unknown because "
        "nvidia-smi cannot open that GPU (the open module leaves unsupported GPUs unopened); the cut removes that line",
    ("1823-centos-7-6-kernel-3-10-open-module-515-43-04-nvidia-smi-device-handle-not-found.txt", "DRV-OPEN-MODULE"):
        "h83b: as 1787, the cut removes nvidia-smi's failure to open the GPU that leaves the open module's fit unknown",
    ("780-2-nodes-x8-nccl-log-p2p-ipc-net-socket-no-ib.txt", "CTR-IPC-ISOLATION"):
        "first blind run KK: one `via P2P/IPC/read` line is judged ok (ranks of one host share an IPC namespace), the "
        "whole log unknown (its NET/Socket lines span nodes); the blind expectation (ok) is the cut's: for the lead",
    ("07-nccl-illegal-memory-access-acsctl-redirect-enabled.txt", "FW-ACS-P2P"):
        "issue 28 (corpus 346): ACSCtl lines cut out of a listing are judged over the lines shown (`K bridges shown`, "
        "the coverage rule); the cut after line 2 keeps one line without redirect and drops the four with it",
    ("2260-rtx-5090-container-ddp-nccl-2-14-3-cuda11-8-named-symbol-not-found-p2p-level-loc.txt", "DRV-CUDA-COMPAT"):
        "h102c: NCCL's CUDA 11.8 build under a driver for CUDA 12.8 is ok by the two versions (as 2265 wants); the "
        "whole paste is an issue because torch's warning lists the RTX 5090, which no CUDA 11 build has code for, and "
        "the cut removes that warning",
}


def _lines(text: str) -> list[str]:
    return text.split("\n")


def quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in _lines(text))


def double_quoted(text: str) -> str:
    return quoted(quoted(text))


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def crlf_twice(text: str) -> str:
    return text.replace("\n", "\r\r\n")


def cr_only(text: str) -> str:
    return text.replace("\n", "\r")


def fenced(text: str) -> str:
    return "```text\n" + text + "\n```"


def prompted(text: str) -> str:
    return "user@gpu-host:~$ cat paste.txt\n" + text


# Each log prefix form of `_paste.LOG_PREFIXES`: a real line, where it was pasted, what the recognisers
# read of it, and the host its prefix names.
PREFIX_SAMPLES: list[tuple[str, str, str, str]] = [
    ("kubelet CRI",  # capture 145 (NVIDIA/k8s-device-plugin#444)
     "2023-10-19T14:25:03.801614288+08:00 stderr F I1019 06:25:03.801505       1 main.go:154] Starting FS watcher.",
     "I1019 06:25:03.801505       1 main.go:154] Starting FS watcher.", ""),
    ("Talos",  # capture 121 (vllm-project/vllm#40652)
     "192.168.11.119: kern: warning: [2026-04-22T21:27:51.291882381Z]: NVRM: kflcnCoreDumpNondestructive_IMPL: "
     "TRACE: 30 = 0x0000000004d9cacc",
     "NVRM: kflcnCoreDumpNondestructive_IMPL: TRACE: 30 = 0x0000000004d9cacc", "192.168.11.119"),
    ("journal short-iso",  # capture 108 (pop-os/pop)
     "2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: Control process exited, "
     "code=exited, status=1/FAILURE",
     "systemd[1]: nvidia-persistenced.service: Control process exited, code=exited, status=1/FAILURE", "localhost"),
    ("syslog / journal short",  # capture 76 (MrMEEE/ironhide#97): kern.log, dmesg's uptime after `kernel:`
     "Oct  3 14:01:56 <redacted> kernel: [   12.442423] NVRM: loading NVIDIA UNIX x86 Kernel Module  285.03  "
     "Mon Aug 15 02:36:51 PDT 2011",
     "[   12.442423] NVRM: loading NVIDIA UNIX x86 Kernel Module  285.03  Mon Aug 15 02:36:51 PDT 2011", "<redacted>"),
    ("syslog / journal short",  # capture 144 (Neroued/ninfer#12): journalctl -o short-precise, no uptime
     "Aug 10 22:40:59.893888 anthill kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status "
     "0x0000000f for fn 10 sequence 800!",
     "kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 10 sequence 800!",
     "anthill"),
    ("syslog / journal short",  # capture 131 (NVIDIA/DCGM#244): a zh_CN journal
     "7月 15 17:26:48 b76d14397.cloud.et15 nv-hostengine[481761]: DCGM initialized",
     "nv-hostengine[481761]: DCGM initialized", "b76d14397.cloud.et15"),
    ("syslog date",  # capture 1850 (NVIDIA/open-gpu-kernel-modules#673): a forwarder's date, no host, `kernel:[`
     "2024-07-02 18:46:08.681559 kernel:[   21.766727] NVRM kgspExecuteBooterUnloadIfNeeded_TU102: failed to execute "
     "Booter Unload: 0xffff",
     "[   21.766727] NVRM kgspExecuteBooterUnloadIfNeeded_TU102: failed to execute Booter Unload: 0xffff", ""),
    ("syslogd broadcast",  # a Debian forum post ("System failure on the horizon?", 2015): syslogd's wall message
     " kernel:[ 3648.883001] CPU: 0 PID: 1965 Comm: Xorg Not tainted 3.16.0-4-686-pae #1 Debian 3.16.7-ckt11-1+deb8u3",
     "[ 3648.883001] CPU: 0 PID: 1965 Comm: Xorg Not tainted 3.16.0-4-686-pae #1 Debian 3.16.7-ckt11-1+deb8u3", ""),
    ("docker logs -t",  # huggingface/text-generation-inference#2763
     '2024-11-20T14:37:16.307700574Z     master_addr: "localhost",', '    master_addr: "localhost",', ""),
    ("docker compose",  # a public README's `docker compose logs ollama` (found by the code search)
     'ollama  | time=2025-06-19T17:09:30.103Z level=INFO source=gpu.go:217 msg="looking for compatible GPUs"',
     'time=2025-06-19T17:09:30.103Z level=INFO source=gpu.go:217 msg="looking for compatible GPUs"', ""),
    ("Python logging",  # capture 174 (open-mmlab/mmdeploy#17): a check_env report through logging.info
     "INFO:root:GPU 0,1,2,3: Tesla P40", "GPU 0,1,2,3: Tesla P40", ""),
    ("Python logging asctime",  # capture 2127 (allenai/olmocr#105): olmocr logs SGLang's lines as its own
     "2025-03-07 23:50:27,727 - __main__ - INFO - [2025-03-07 23:50:27 TP0] Load weight begin. avail mem=22.46 GB",
     "[2025-03-07 23:50:27 TP0] Load weight begin. avail mem=22.46 GB", ""),
    ("Python logging asctime",  # allenai/olmocr#105, a later comment: the scheduler's failure
     "2025-03-08 02:04:48,693 - __main__ - INFO - [2025-03-08 02:04:48 TP0] Scheduler hit an exception: Traceback "
     "(most recent call last):",
     "[2025-03-08 02:04:48 TP0] Scheduler hit an exception: Traceback (most recent call last):", ""),
    ("Ray worker",  # capture 601 (ray-project/ray#25246): a Ray task's nvidia-smi
     "(test_func pid=16253, ip=10.0.2.120) |   0  Tesla T4            On   | 00000000:00:1B.0 Off |",
     "|   0  Tesla T4            On   | 00000000:00:1B.0 Off |", ""),
    ("Ray worker",  # capture 540 (vllm-project/vllm#1801): a Ray actor's NCCL watchdog line
     "(RayWorker pid=4751) [E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out.",
     "[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out.", ""),
    ("journal tag",  # capture 919 (ollama/ollama#7597): a journal line posted without its time and host
     'ollama[1773]: time=2024-11-10T21:32:56.440+08:00 level=INFO source=server.go:105 msg="system memory" '
     'total="15.4 GiB" free="11.3 GiB" free_swap="12.2 GiB"',
     'time=2024-11-10T21:32:56.440+08:00 level=INFO source=server.go:105 msg="system memory" total="15.4 GiB" '
     'free="11.3 GiB" free_swap="12.2 GiB"', ""),
]

# Lines that start like a prefix and are not one: they stay as they are.
NOT_PREFIXES = [
    "2024-05-01T01:17:02.618817Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=1",
    # capture 2646 (huggingface/text-generation-inference#1695): Rust tracing's ERROR, one space wide, where a
    # journal's host stands; DEBUG likewise (modelled)
    "2024-04-02T17:31:23.524470Z ERROR text_generation_launcher: Decode cuda graph warmup failed",
    "2024-04-02T17:31:23.524470Z DEBUG text_generation_router: Loaded tokenizer",
    "Timestamp                                 : Thu Nov  3 05:46:34 2022",
    "GPU0     | value",  # one table row: a compose prefix stands on every line of a service
    "Feb 14 2026 the node rebooted",
    "INFO:     Started server process [1]",  # modelled: uvicorn's level column, not a logger's name
    "ERROR: Could not find a version that satisfies the requirement vllm",  # modelled: pip's message
    "(pid=123)",  # modelled: a bare worker tag with no message after it
    "(note: pid=123 was the engine) it hung",  # modelled: prose in brackets
    "2024-07-02 18:46:08,123 root: INFO loaded",  # modelled: a program's tag after a date with a space stays
    "2024-07-02 18:46:08,123 - started the job",  # modelled: a date and a dash, no logger name or level
    # allenai/olmocr#129: the wrapper's own message, no engine line behind the prefix
    "2025-03-18 10:23:43,110 - __main__ - WARNING - Attempt 1: Please wait for sglang server to become ready...",
    # allenai/olmocr#159: a traceback's line the wrapper logged
    '2025-04-03 12:05:56,595 - __main__ - INFO -     ssl_sock = ssl_wrap_socket(',
    # capture 1641 (InternLM/lmdeploy#2229): lmdeploy's own line, read whole by the log readers
    "2024-08-05 05:40:52,191 - lmdeploy - WARNING - model_source: hf_model",
]


def _prefixed(prefix: str) -> Callable[[str], str]:
    def transform(text: str) -> str:
        return "\n".join(prefix + line for line in _lines(text))

    return transform


# Each transform, and how many lines it adds above the paste's first line.
TRANSFORMS: dict[str, tuple[Callable[[str], str], int]] = {
    "quoted": (quoted, 0), "double-quoted": (double_quoted, 0), "crlf": (crlf, 0), "crlf-twice": (crlf_twice, 0),
    "cr-only": (cr_only, 0), "fenced": (fenced, 1), "prompted": (prompted, 1),
    "prefixed (kubelet CRI)": (_prefixed("2023-10-19T14:25:03.801614288+08:00 stderr F "), 0),
    "prefixed (docker logs -t)": (_prefixed("2024-11-20T14:37:16.307700574Z "), 0),
    "prefixed (docker compose)": (_prefixed("ollama  | "), 0),
    "prefixed (a unit's journal)": (_prefixed("Oct  8 00:40:36 gpu-node-7 myjob[1450]: "), 0),
    "prefixed (Python logging)": (_prefixed("INFO:root:"), 0),
}
# Each file goes through one transform in TRANSFORM_SHARE (test_how_it_was_pasted_changes_nothing_read).
TRANSFORM_SHARE = 5
# The host each transform's prefix names ('' for none): recorded once for the hostname, beside the outputs.
PREFIX_HOSTS = {"prefixed (a unit's journal)": "gpu-node-7"}
# Prefixes a kernel log gets from a node's syslog, journal or Talos: each names the host.
KERNEL_PREFIXES = {
    "syslog": "Oct  3 14:01:56 megatron kernel: ",
    "journal short-precise": "Aug 10 22:40:59.893888 anthill kernel: ",
    "journal short-iso": "2025-08-16T00:03:03.937586-04:00 gpu-node-7 kernel: ",
    "Talos": "192.168.11.119: kern: warning: [2026-04-22T21:27:51.291882381Z]: ",
}


def _content(record: HostRecord) -> dict[str, Any]:
    """What the facts read: every recorded command's output, file and pasted document."""
    return {"commands": {argv: r.stdout for argv, r in record.commands.items()},
            "files": dict(record.files),
            # The prompts the paste was typed at, and their users: the "prompted" transform adds one of its own.
            "docs": {k: v for k, v in record.docs.items()
                     if k not in (LOG_LINE_HOSTS.name, LOG_LINE_PROGRAMS.name, PROMPT_HOSTS.name, PROMPT_ENVS.name)}}


def _spans(result: ImportResult, shift: int) -> list[tuple[str, int, int]]:
    return [(kind, a - shift, b - shift) for kind, a, b in result.recognised]


def _transforms_of(entry: CorpusEntry) -> list[str]:
    """The transforms one file is put through: a fifth of them, rotating with the file's name, so that each
    transform meets a fifth of the corpus (near 520 pastes of every kind) at a fifth of the cost."""
    start = zlib.crc32(entry.name.encode())
    return [name for i, name in enumerate(TRANSFORMS) if (start + i) % TRANSFORM_SHARE == 0]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_how_it_was_pasted_changes_nothing_read(entry: CorpusEntry, corpus_recognised: dict[str, ImportResult]) -> None:
    # What the audit recognised in the file, shared by the tests that read every report (conftest.py).
    base = corpus_recognised[entry.name]
    for name in _transforms_of(entry):
        transform, shift = TRANSFORMS[name]
        if name == "fenced" and view(entry.body).open_fence >= 0:
            continue  # the wrapper's closing fence closes the block the paste leaves open (cut): another paste
        got = recognise(transform(entry.body), entry.name)
        assert _content(got.record) == _content(base.record), f"{entry.name}, {name}: another record"
        assert _spans(got, shift) == _spans(base, 0), f"{entry.name}, {name}: other kinds or lines"
        host = PREFIX_HOSTS.get(name)
        if host and base.recognised:
            assert got.record.docs[LOG_LINE_HOSTS.name] == host + "\n", f"{entry.name}, {name}: the host"
            assert got.record.docs[LOG_LINE_PROGRAMS.name] == "myjob[1450]\n", f"{entry.name}, {name}: the program"


def test_what_the_audit_recognised_is_what_the_paste_itself_gives(corpus_recognised: dict[str, ImportResult]) -> None:
    """The tests above compare against what the audit of each file recognised (tests/corpus.py read_capture): on
    a rotating sample, that is what recognising the paste's body gives (nothing the audit did changed it)."""
    sample = ENTRIES[zlib.crc32(str(len(ENTRIES)).encode()) % 50::50]
    for entry in sample:
        base, fresh = corpus_recognised[entry.name], recognise(entry.body, entry.name)
        assert _content(base.record) == _content(fresh.record) and base.record.meta == fresh.record.meta, entry.name
        assert (base.recognised, base.set_aside) == (fresh.recognised, fresh.set_aside), entry.name
        assert base.record.provenance == fresh.record.provenance, entry.name


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.path.name[:48])
def test_a_cut_paste_never_gives_a_new_ok(entry: CorpusEntry, corpus_reports: dict[str, Report | None]) -> None:
    lines = _lines(entry.body)
    cut = random.Random(entry.name).randrange(1, max(len(lines), 2))
    checks = list(entry.expect)
    # The whole paste's audit, shared with the other tests that read every report (conftest.py).
    report = corpus_reports[entry.name]
    if report is None:
        assert not any((entry.name, cid) in KNOWN_NEW_OK for cid in checks)
        return  # the whole paste is refused, and so is any part of it: no verdict at all
    whole = {r.id: r for r in report.results}
    part = recognise("\n".join(lines[:cut]), entry.name)
    if not part.recognised:
        assert not any((entry.name, cid) in KNOWN_NEW_OK for cid in checks)
        return  # nothing left to read: the paste would be refused, no verdict at all
    got = run_checks(MemoryHost(part.record), checks)
    # A new `ok` is one the whole paste does not allow: where it gives an issue or cannot tell. A key negative
    # (not-an-issue: looks wrong, is fine) that a cut leaves as plain `ok` says the same: nothing to fix. So does an
    # `ok` where the whole paste shows more that makes the check not apply (corpus 2709: CUDA ran, and the lines
    # cut away show it ran on Windows, where no container is).
    new_ok = [cid for cid in checks if got[cid].status == "ok"
              and whole[cid].status not in ("ok", "not-an-issue", "not-applicable")]
    known = [cid for cid in checks if (entry.name, cid) in KNOWN_NEW_OK]
    assert [c for c in new_ok if c not in known] == [], \
        f"{entry.name} cut after line {cut}: {new_ok} ok where the whole paste is not"
    assert [c for c in known if c not in new_ok] == [], f"{entry.name}: {known} no longer ok: remove from KNOWN_NEW_OK"


# --- flattened `Key : value` runs ----------------------------------------------------------------------

QUERY_KINDS = ("nvidia-smi -q", "nvidia-smi -q section")
QUERY_ENTRIES = [(e, kind) for e in ENTRIES for kind in QUERY_KINDS if kind in e.kinds]
# Pastes whose joined run cannot say what their lines say: the file -> why.
FLAT_AMBIGUOUS = {
    "2405-ec2-8x-a10g-535-161-dcgm-exporter-hook-nvml-unknown-error-gpu0-brand-unknown.txt":
        "the paste ends in a field name cut after its first word (`Display`); joined onto `Product Architecture : "
        "Ampere` it is a word of the value, as 872's `Ut` is",
    "872-gtx-1080-ti-nvidia-smi-q-busy-p2-gen3-x16-no-throttle.txt":
        "the paste ends in a field name cut after two letters (`Ut`); joined onto `Compute Mode : Default` it is a "
        "word of the value, as `Ti` is of `Product Name : GeForce GTX 1080 Ti`",
    "1326-4x-a100-pcie-535-129-llama-cpp-7b-71-tok-s-nvidia-smi-q-clock-at-defaults.txt":
        "the run is a quoted reply: joined, each line's `>` marker lands after the value before it (`CUDA Version : "
        "12.2 > >`)",
    "1372-okd-vmware-vgpu-compute-server-unlicensed-gpu-alloc-throttled-after-minutes.txt":
        "the run is three lines of a vGPU licence block and no GPU section: read line by line it is `-q` with no GPU "
        "to parse, joined it is no `-q` at all; neither gives a GPU, and only the reason's words differ",
    "2400-vsphere-vgpu-k8s-gpu-operator-driver-ctr-vcs-unlicensed-restricted.txt":
        "held-out batch CL: the run is a vGPU licence block under its command and no GPU section, as 1372's: line by "
        "line it gives no GPU, joined its `Product Name : NVIDIA Virtual Compute Server` (the licensed product) reads "
        "as a GPU's name; neither gives a GPU the paste shows",
    "1821-ubuntu-thinkpad-6-5-oem-driver-535-183-docker-unknown-runtime-nvidia-daemon-json-nvsmi-q-cut.txt":
        "the paste ends in a field name cut after one letter (`A` of `Attached GPUs`); joined onto `CUDA Version : "
        "12.2` it is a word of the value, as 872's `Ut` is",
    "1835-rtx-2060-open-515-gsp-missing-nvdec0-dmesg-then-proprietary-nvsmi-q-cut.txt":
        "the run joins two stored pieces at a field name with no value (`CUDA Version`, line 23): joined, the name is "
        "a word of the driver version before it, where the line end ends that value",
    "1343-4gb-gpu-host-docker-gpus-1-driver-error-failed-to-process-request-q-at-p8.txt":
        "the run starts inside PCIe Generation's block with its `Current : 1`: joined, nothing places the `Link "
        "Width` after it under a GPU's PCI section, where indentation does",
    "2261-h800-nvidia-smi-q-tail-fabric-state-in-progress-app-clocks-at-default.txt":
        "the paste ends in a field name cut after two letters (`Product Br`); joined onto `Product Name : NVIDIA H800` "
        "it is a word of the value, as 872's `Ut` is",
    "2353-thinkpad-mx330-nvidia-smi-q-performance-465-idle-p0-cut-at-sw-thermal.txt":
        "held-out batch CH: line by line, the `-d PERFORMANCE` log indented four spaces under its typed command gives "
        "no GPU (the reader takes a shifted log back only under a GPU header), where joined the indent is gone and "
        "its fields are read; a reader gap, left with its PWR-CLOCK-EVENTS (the reasons block is cut in SW Thermal "
        "Slowdown, which read whole would not yet leave the verdict open)",
    "2487-9x-rtx3090-3995wx-slots-split-x8-ghes-pcie-hardware-error-gpu-01-00-0.txt":
        "the range starts with the typed `nvidia-smi -a | grep ... 'Current +\\: +[0-9]+x'` and holds only the `Current "
        ": 8x` lines it printed: joined, the command leads the line and the bare `Current` fields have no block to "
        "place them, where line by line the grep's command introduces its output",
    "2488-4x-rtx3090-h12d-8d-p2p-modules-595-58-bar1-256mib-simplep2p-fails.txt":
        "the range starts with a prompt and its typed `nvidia-smi -q | grep -i bar -A 3`: joined, the prompt leads the "
        "line and the BAR1 fields after it are words of a command line, where line by line they are its output",
    "2515-k8s-rke2-dgx-spark-gb10-580-95-05-hami-device-plugin-panic-nvsmi-padding-collapsed-cut.txt":
        "line by line, the three `Product ...` fields are read as evidence lines beside the nvidia-smi table, whose "
        "GPU and driver the nvidia fact reads; joined, they read as an `nvidia-smi -q` excerpt, which ranks above the "
        "table and holds no driver (a reader gap: a three-field -q excerpt shadows a whole table)",
    "2198-hami-pod-process-1660mib-host-v100s-pcie-nvidia-smi-a-cut.txt":
        "the range is a Processes block alone, pasted from inside a pod: joined, nothing places its `Process ID` and "
        "`Used GPU Memory` under a GPU's Processes section, where indentation does",
}


def flattened(entry: CorpusEntry, kind: str) -> tuple[str, list[int]]:
    """The paste with each range of `kind` joined onto one line, whitespace collapsed; the 1-based line
    numbers of those joined lines in the new text."""
    lines = list(entry.body_lines)
    joined = []
    for a, b in reversed(entry.kinds[kind]):
        lines[a - 1:b] = [" ".join(" ".join(lines[a - 1:b]).split())]
        joined = [a] + [n - (b - a) for n in joined]
    return "\n".join(lines), joined


def test_the_corpus_has_query_pastes_to_flatten() -> None:
    assert len(QUERY_ENTRIES) >= 8


@pytest.mark.parametrize(("entry", "kind"), QUERY_ENTRIES, ids=lambda x: x.path.name[:48] if hasattr(x, "path") else x)
def test_flattened_query_fields_give_the_same_facts(entry: CorpusEntry, kind: str,
                                                   corpus_recognised: dict[str, ImportResult]) -> None:
    from corpus import fact

    if entry.name in FLAT_AMBIGUOUS:
        pytest.skip(FLAT_AMBIGUOUS[entry.name])
    if all(a == b for a, b in entry.kinds[kind]):
        pytest.skip("every range of this kind is one line: nothing to join")
    text, joined = flattened(entry, kind)
    base = corpus_recognised[entry.name]
    if not base.recognised or any(label.startswith(kind + " ") for label in corpus_gaps("kind_gap").get(entry.name, {})):
        pytest.skip("not read as this kind: a gap of tests/data/corpus_gaps.toml, nothing read to compare")
    flat = recognise(text, entry.name)
    assert fact(MemoryHost(flat.record), "nvidia") == fact(MemoryHost(base.record), "nvidia"), entry.name
    # Read as `-q` on the joined line itself, where the lines were read as `-q` (not only as evidence lines, as
    # corpus 2601's four power-limit fields without a GPU are): a provenance line points at what the user pasted.
    if any(k == "nvidia-smi -q" for k, _, _ in base.recognised):
        spans = [(a, b) for k, a, b in flat.recognised if k == "nvidia-smi -q"]
        assert any(a <= n <= b for n in joined for a, b in spans), (entry.name, joined, flat.recognised)
    checks = list(entry.expect)
    whole = run_checks(MemoryHost(base.record), checks)
    got = run_checks(MemoryHost(flat.record), checks)
    assert [c for c in checks if got[c].status == "ok" and whole[c].status != "ok"] == [], entry.name


# Modelled (no real paste of a joined run was found in public threads): the fields of a GPU section as a chat
# joins them, around a line of prose, with old Mac line ends between the lines.
MODELLED_FLAT = ("my GPU:\r"
                 "GPU 00000000:3B:00.0 Product Name : NVIDIA A100-SXM4-80GB Persistence Mode : Disabled "
                 "MIG Mode Current : Disabled Pending : Disabled Compute Mode : Default "
                 "Clocks Event Reasons Idle : Not Active SW Power Cap : Active HW Slowdown : Not Active "
                 "GPU Power Readings Current Power Limit : 300.00 W Requested Power Limit : 300.00 W "
                 "Default Power Limit : 400.00 W Max Clocks Graphics : 1410 MHz SM : 1410 MHz Memory : 1593 MHz\r"
                 "thanks")


def test_a_flattened_process_list_keeps_each_process() -> None:
    """Modelled on corpus 878's lines: `Processes` opens a section where processes run and stays a field in
    `Processes : None`; a process's type and name sit under its ID."""
    from corpus import fact

    run = ("GPU 00000000:03:00.0 Product Name : GeForce GTX 1080 Ti Compute Mode : Default Processes "
           "Process ID : 1139 Type : G Name : /usr/lib/xorg/X Used GPU Memory : 10 MiB Process ID : 2210 Type : C "
           "Name : python3")
    gpus = fact(MemoryHost(recognise(run, "modelled").record), "nvidia").gpus
    assert [(p.pid, p.kind, p.name, p.used_mib) for p in gpus[0].processes] == [
        (1139, "G", "/usr/lib/xorg/X", 10.0), (2210, "C", "python3", None)]
    none = run.split(" Processes ")[0] + " Processes : None Bus Id : 00000000:03:00.0"
    gpus = fact(MemoryHost(recognise(none, "modelled").record), "nvidia").gpus
    assert (gpus[0].processes, gpus[0].compute_mode) == ((), "Default")


def test_a_modelled_flattened_gpu_section_is_read_field_by_field() -> None:
    from corpus import fact

    result = recognise(MODELLED_FLAT, "modelled")
    assert [k for k, _, _ in result.recognised] == ["nvidia-smi -q"]
    assert {(a, b) for _, a, b in result.recognised} == {(2, 2)}  # the user's second line
    gpus = fact(MemoryHost(result.record), "nvidia").gpus
    assert len(gpus) == 1
    g = gpus[0]
    assert (g.name, g.bdf, g.persistence, g.compute_mode, g.mig_current) == (
        "NVIDIA A100-SXM4-80GB", "0000:3b:00.0", False, "Default", False)
    assert (g.power_limit_w, g.power_enforced_w, g.power_default_w) == (300.0, 300.0, 400.0)
    assert g.clock_events == ("sw_power_cap",)
    assert (g.max_sm_clock_mhz, g.max_mem_clock_mhz) == (1410, 1593)


def test_the_brief_run_and_what_is_not_a_run() -> None:
    from stackaudit.importers._paste import unflatten, view

    assert unflatten("Persistence Mode : Enabled Power Limit : 300.00 W") == [
        "    Persistence Mode : Enabled", "    Power Limit : 300.00 W"]
    # Two ` : ` without two names nvidia-smi prints: not a run, left as it is.
    assert unflatten("Model : llama-3 Backend : cuda") is None
    paste = view("a\nDriver Version : 550.54.15 CUDA Version : 12.4\nb")
    assert paste.lines == ["a", "Driver Version : 550.54.15", "CUDA Version : 12.4", "b"]
    assert list(paste.origin) == [0, 1, 1, 2]


def test_a_name_printed_under_several_sections_stays_in_the_one_open_before_it() -> None:
    """Modelled on corpus 207's PCI section: `Current` is GPU Operation Mode's field at depth 2 and PCIe
    Generation's at depth 4; after `PCIe Generation` it is the link's generation, not an operation mode."""
    from stackaudit.importers._paste import unflatten

    lines = unflatten("PCI Bus : 0x01 GPU Link Info PCIe Generation Max : 2 Current : 1 Device Current : 1 "
                      "Device Max : 2 Host Max : 3 Link Width Max : 16x Current : 16x")
    assert lines is not None
    assert "                Current : 1" in lines and "                Device Current : 1" in lines
    assert "                Current : 16x" in lines
    mode = unflatten("GPU Operation Mode Current : N/A Pending : N/A GSP Firmware Version : N/A")
    assert mode == ["    GPU Operation Mode", "        Current : N/A", "        Pending : N/A",
                    "    GSP Firmware Version : N/A"]


def test_every_prefix_form_has_a_real_line_and_leaves_its_message() -> None:
    assert {name for name, _ in LOG_PREFIXES} == {name for name, *_ in PREFIX_SAMPLES}
    for name, line, message, host in PREFIX_SAMPLES:
        # A compose prefix counts when a neighbour line has it too (compose writes it on every line).
        paste = view(line + "\n" + line)
        assert paste.lines[0] == message, name
        assert paste.hosts.get(0, "") == host, name
        assert list(paste.origin) == [0, 1]


def test_interleaved_compose_services_lose_their_prefixes() -> None:
    # Modelled on the README line of PREFIX_SAMPLES: compose pads each service's name to one width.
    paste = view("ollama  | time=2025-06-19T17:09:30.103Z level=INFO msg=a\n"
                 "webui   | INFO:     Started server process [1]\n"
                 "ollama  | time=2025-06-19T17:09:30.338Z level=INFO msg=b")
    assert paste.lines == ["time=2025-06-19T17:09:30.103Z level=INFO msg=a", "INFO:     Started server process [1]",
                           "time=2025-06-19T17:09:30.338Z level=INFO msg=b"]


def test_a_line_that_only_starts_like_a_prefix_stays() -> None:
    for line in NOT_PREFIXES:
        assert view(line).lines == [line]


KERNEL_ENTRIES = [e for e in ENTRIES if "dmesg" in e.kinds or "journal" in e.kinds]


@pytest.mark.parametrize("entry", KERNEL_ENTRIES, ids=lambda e: e.path.name[:48])
def test_a_kernel_log_behind_a_node_prefix_gives_the_same_verdicts(entry: CorpusEntry,
                                                                  corpus_recognised: dict[str, ImportResult]) -> None:
    checks = list(entry.expect)
    base = corpus_recognised[entry.name]
    want = {cid: r.status for cid, r in run_checks(MemoryHost(base.record), checks).items()}
    for name, prefix in KERNEL_PREFIXES.items():
        # The node's prefix goes on the kernel lines (a prompt, a fence or a daemon's line has none).
        kernel = {n for kind, a, b in base.recognised if kind == "dmesg" for n in range(a, b + 1)}
        paste = view(entry.body)
        node = {host for i, host in paste.hosts.items() if paste.origin[i] + 1 in kernel}
        read = {n for kind, a, b in base.recognised if kind != "dmesg" for n in range(a, b + 1)}
        if any(host in node and paste.origin[i] + 1 in read for i, host in paste.hosts.items()):
            # The host its kernel lines name has another output read too (corpus 231's daemon line): another
            # node's prefix on the kernel lines alone makes the paste two hosts.
            continue
        # Kernel lines that all carry a node's prefix already are that case: no log writes a second one.
        hosted = {paste.origin[i] + 1 for i in paste.hosts}
        if kernel <= hosted:
            pytest.skip("every kernel line already carries a node's prefix")
        text = "\n".join(prefix + line if n in kernel and line.strip() else line
                         for n, line in enumerate(_lines(entry.body), start=1))
        got = recognise(text, entry.name)
        assert _spans(got, 0) == _spans(base, 0), f"{entry.name}, {name}: other kinds or lines"
        statuses = {cid: r.status for cid, r in run_checks(MemoryHost(got.record), checks).items()}
        assert statuses == want, f"{entry.name}, {name}: other verdicts"


def test_a_worker_prefix_that_names_its_rank_stays() -> None:
    """Real: vllm-project/vllm PR 45150's `(RayWorkerProc pid=…) (Worker_DP0_TP1_EP1 pid=…)`: the Ray tag goes, the
    vLLM worker's tag, which names its rank, stays for the log readers."""
    line = ("(RayWorkerProc pid=3865417) (Worker_DP0_TP1_EP1 pid=3865417) INFO 06-10 11:11:10 "
            "[custom_all_reduce.py:211] Registering 5590 cuda graph addresses")
    assert view(line + "\n").lines[0] == line.split(" ", 2)[2]
