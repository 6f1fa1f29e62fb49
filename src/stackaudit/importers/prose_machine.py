"""The machine in the user's own words: a GPU count and model (`8 x A10G GPUs`, `a 8 cards 4090 server`), a host's
cards one a line under their total (`I got 3.`, `1x RTX 4000 8Gb`, `2x RTX A4000 16Gb`: facts/gpus.listed_cards), a list's
GPU model (`GPU: NVIDIA GeForce RTX 5080`), a count the user owns without a model (`I have 2 NVIDIA cards`, a parameter
list's `gpu=2`), a model the user owns without a count (`i have 3090`), a cloud instance type (`g5.48xlarge`), a
statement that it is bare metal (`It is not running inside a VM.`) or a hypervisor's or cloud's guest (`VM in proxmox`,
`in GKE cluster`: facts/platform.PLATFORM_NAMES), another vendor's accelerators (`on Ascend NPU`:
facts/gpus.stated_npus; a list's `GPU: AMD` or an issue form's `### GPU` answered `AMD`: facts/gpus.stated_vendor_gpus),
a Windows host (`OS: Windows 11`, llama.cpp's `built with MSVC ... for Windows`, a
`C:\\...\\ggml-cuda.dll` path: facts/platform.WINDOWS_LINES), its /dev/shm size (`CPU Shared Memory: 64MB`), an
Arm CPU (`Ampere One`, `aarch64`: facts/system.py reads it as the CPU's architecture), a Jetson module (jtop's `Module:
NVIDIA Jetson Orin NX`: facts/gpus.jetson_module), the IOMMU off (`IOMMU is
disabled`: facts/system.stated_iommu_off), a vGPU limit at work (`we are noticing licensing issue`, the slowdown
after 20 minutes: facts/platform.stated_vgpu_limit), or a MIG slice in use (`H100 40GB (using MIG)`:
facts/mig_setup.stated_mig), or a peer-memory module loaded (`with `nv_peer_mem` kernel module loaded`:
facts/system.stated_peer_memory_loaded), or a laptop (`it is working on my laptop`, `Hardware model: Surface Book 3`:
facts/platform.stated_laptop).

Recorded as the pasted document USER_MACHINE (facts/sources.py), the line verbatim; facts/gpus.py reads it last,
as "the user's own words", for the model that a topology matrix or a log does not name, facts/platform.py for
the VM an instance type names or the bare metal a statement names, and facts/shm.py for the /dev/shm size.
A line that is itself a log line or `uname -a`'s output (a WSL 2 kernel names WSL) is left to its own recogniser,
and so is a list line stating the power limit of each GPU it counts (importers/rig_report.py per_gpu_limit), or a
list's GPU line with its memory (rig_report.listed_gpu).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.engine_command import stated_engines, stated_switches
from stackaudit.facts.gpus import (
    bare_listed_model,
    inline_listed_model,
    jetson_module,
    listed_cards,
    listed_model,
    owned_gpu_count,
    owned_model,
    stated_gpus,
    stated_npus,
    stated_series,
    stated_vendor_gpus,
    table_column_model,
    worded_model,
)
from stackaudit.facts.k8s_pods import stated_one_gpu_each
from stackaudit.facts.mig_setup import stated_mig
from stackaudit.facts.platform import (
    WINDOWS_PROMPT,
    cloud_instances,
    platform_words,
    stated_laptop,
    stated_vgpu_limit,
    windows_line,
)
from stackaudit.facts.question import asked_checks
from stackaudit.facts.serving_logs import is_log_line
from stackaudit.facts.shm import stated_shm
from stackaudit.facts.sources import EVIDENCE_LINES, USER_ENGINES, USER_MACHINE, USER_QUESTION
from stackaudit.facts.symptoms import is_symptom
from stackaudit.facts.system import is_uname_line, stated_arm_cpu, stated_iommu_off, stated_peer_memory_loaded
from stackaudit.facts.time_slicing import stated_vgpu_vms
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.evidence import FORM_GPU_LABELS, form_answer, headed_value, is_evidence
from stackaudit.importers.prose_engine import is_sentence
from stackaudit.importers.registry import Found, applied_each, document_appended, importer
from stackaudit.importers.rig_report import listed_gpu, per_gpu_limit

MAX_LINES = 20  # lines of words read from one paste; past a few, they state several machines anyway


# A count beside `x` (`8x`, `8 x`, `x 8`, `X4`; never `0x`, which starts hex numbers), `*`, cards or GPUs, a DGX name, an
# instance size, the brand after a count (`1 nvidia 4090`), a model number in the plural (`4090s`, `H100s`, `T4s`, `A10Gs`). A `×` line without `gpu` or `card`
# is left out: needles are ASCII.
_NEEDLES = (*(f"{d}x" for d in range(1, 10)), *(f"{d} x" for d in range(1, 10)), *(f"x {d}" for d in range(1, 10)),
            *(f"x{d}" for d in range(1, 10)),
            "*", "card", "gpu", "nvidia", "dgx", "large", "standard", "medium", "small", "micro", "nano", "metal", " vm", "wsl",
            "virtual machine", "shared memory", "shm", "0s", "4s", "0gs", "windows", "msvc", ":\\", ".exe", "$env:", "aarch64",
            "arm64", "ampere", "graviton", "iommu", "vt-d", "amd-vi", "ascend", "atlas", "i have", "i own", "i've got",
            "licens", "licenc", "minute", "20 min", "20min", " mig", "multi-instance", "i use", "i am using",
            "i'm using", "using ", "m running", "i am running", "| hardware", "|hardware", "| device", "|device", "on a ", "on my ", "on our ", "jetson", "l4t", "(release), revision", "dual ", "sm_", "sm1", "sm9", "sm8",
            # A model's memory after a count and the model (`4 A10 (each with 24G)`: facts/gpus._COUNT_MODEL_MEMORY).
            *(f"{d}g" for d in range(10)),
            # The names of PLATFORM_NAMES (facts/platform.py), a guest's word beside them states the host's VM.
            "proxmox", "vmware", "esxi", "vsphere", "hyper-v", "hyperv", "virtualbox", "kvm", "qemu", "libvirt", "xen",
            "ec2", "aws", "azure", "gcp", "google cloud", "compute engine", "gce", "ovh", "gke", "eks", "aks",
            # The user's machine said to be its GPU (`My machine is V100`: facts/gpus._OWNED_MODEL).
            "machine is", "server is", "host is", "box is", "computer is", "workstation is",
            # A peer-memory module stated loaded (facts/system.stated_peer_memory_loaded).
            "peermem", "peer_mem",
            # A laptop in the user's words (facts/platform.stated_laptop).
            "laptop", "surface book",
            # Docker Desktop named by its 4.x version beside CUDA (facts/platform.PLATFORM_WORDS: WSL 2).
            "docker",
            # A GPU's brand word alone on a list's line (facts/gpus.bare_listed_model), and the OS release beside a
            # model in a list written on one line (facts/gpus.inline_listed_model).
            "geforce", "tesla", "quadro", "ubuntu", "debian", "centos", "fedora", "rocky", "rhel",
            # A model loaded from a Windows path (facts/platform.windows_line): the model file's end.
            ".gguf", ".ggml", ".bin", "sha256-",
            # A count with a Chinese measure word for cards (`1张A100-80GB`: facts/gpus._COUNT_MEASURE), as UTF-8.
            "张", "块", "卡")


def form_gpu_answer(lines: list[str], i: int) -> tuple[str, int]:
    """The `GPU: <answer>` an issue form's GPU heading on line i (FORM_GPU_LABELS) and its short answer under it
    (evidence.form_answer, at most 40 characters) state together, and the answer's line; ("", i) where line i is no
    such heading.

    >>> form_gpu_answer(["### GPU", "", "AMD", "", "### CPU"], 0)
    ('GPU: AMD', 2)
    >>> form_gpu_answer(["### Hardware: GPU", "", "NVIDIA GeForce RTX 3080"], 0)
    ('GPU: NVIDIA GeForce RTX 3080', 2)
    """
    label, answer, at = form_answer(lines, i)
    if label not in FORM_GPU_LABELS or len(answer) > 40:
        return "", i
    return f"GPU: {answer}", at


# An issue template's operating-system question, as a form's heading (`### OS`, ollama's; `### Operating System`) or a
# Markdown template's bold question (`**Which operating system?**`, LM Studio's bug template, corpus 2913), its answer
# on the next line that is not blank.
_OS_QUESTION = re.compile(r"^\s*(?:#{2,4}\s+|\*\*)(?:Which\s+|What\s+)?(?:OS|operating\s+system)(?:\s+version|\s+and\s+"
                          r"version)?\s*\??\s*(?:\*\*)?\s*$", re.IGNORECASE)


# An answer that names a container or WSL beside the OS (ollama's form offers `Docker` and `WSL2` as answers: `Windows,
# Docker`): the engine runs in a Linux VM or container there, not on the named OS itself.
_OS_CONTAINER = re.compile(r"\b(?:WSL\w*|docker|podman|containers?|k8s|kubernetes)\b", re.IGNORECASE)


def form_os_answer(lines: list[str], i: int) -> tuple[int, str]:
    """(the question's line, `OS: <answer>`) where line i answers an issue template's operating-system question one or
    two lines above it (_OS_QUESTION), only blank lines between; (i, "") otherwise. The answer is read as a list's `OS:`
    line (facts/platform.WINDOWS_LINES reads `OS: Windows 11` as a Windows host, not one that names WSL).

    >>> form_os_answer(["**Which operating system?**", "", "Windows 11 Education 64-bit  "], 2)
    (0, 'OS: Windows 11 Education 64-bit')
    >>> form_os_answer(["### OS", "", "Linux"], 2)
    (0, 'OS: Linux')
    >>> form_os_answer(["### OS", "", "Windows, Docker"], 2)
    (2, '')
    """
    answer = lines[i].strip()
    if not answer or len(answer) > 120 or answer.startswith(("#", "*")) or _OS_CONTAINER.search(answer):
        return i, ""
    for k in (i - 1, i - 2):
        if k >= 0 and _OS_QUESTION.match(lines[k]) and all(not x.strip() for x in lines[k + 1:i]):
            return k, f"OS: {answer}"
    return i, ""


def _form_evidence(lines: list[str], i: int) -> tuple[int, str]:
    """(the heading's line, `Label: answer`) where line i answers an issue form's heading one or two lines above it
    (evidence.form_answer) and the two state evidence together (evidence.is_evidence); (i, "") otherwise."""
    for k in (i - 1, i - 2):
        if k >= 0:
            label, answer, at = form_answer(lines, k)
            if label and at == i and is_evidence(joined := f"{label}: {answer}"):
                return k, joined
    return i, ""


@importer("prose machine", "GPUs, a cloud instance or bare metal in the user's words ('8 x A10G GPUs', 'g5.48xlarge')",
          needles=_NEEDLES, per_line=True)
def prose_machine(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    windows = False  # one Windows line says it: the next ones (a library per backend) take none of the MAX_LINES
    after = 0  # the line after the last one a list of cards took
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if len(line) > 2000 or i < after:
            continue
        # A host's cards one a line under the user's line of their total (`I got 3.`, `1x RTX 4000 8Gb`, `2x RTX A4000
        # 16Gb`, corpus 2233): read as the one bracketed list they state (facts/gpus.listed_cards).
        cards, after = listed_cards(lines, i - 1) if i else ("", i)
        if cards:
            yield Found("prose machine", i - 1, after, document_appended(USER_MACHINE.name, cards + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        # A list's GPU key on its own line, its model the one item under it (`GPU:` then `- NVIDIA GeForce GTX 970
        # (Maxwell, ...)`, corpus 1209): read as the list's `GPU: <model>` line; so is another vendor's name alone.
        joined, _, end = headed_value(lines, i)
        if joined and ((listed_model(joined) and not listed_gpu(joined)) or stated_vendor_gpus(joined)):
            yield Found("prose machine", i, end, document_appended(USER_MACHINE.name, joined + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        # An issue form's GPU answer naming another vendor alone (`### GPU`, then `AMD`, corpus 1012), or an NVIDIA
        # model (`### GPU`, then `H100`, corpus 1309): the list's `GPU: <model>` line.
        answer, at = form_gpu_answer(lines, i)
        if answer and (stated_vendor_gpus(answer) or (listed_model(answer) and not listed_gpu(answer))):
            yield Found("prose machine", i, at + 1, document_appended(USER_MACHINE.name, answer + "\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        # A table of the user's runs whose hardware column names one model in every row (`| v0.10.1.1 (v0) | T4 | 38s
        # |`, corpus 2651): read as the list's `GPU: <model>` line.
        model, end = table_column_model(lines, i)
        if model:
            yield Found("prose machine", i, end, document_appended(USER_MACHINE.name, f"GPU: {model}\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            after = end
            continue
        # A hardware list's GPU line without its key (`nVidia 4090` under `Ubuntu 22.04`, over `CUDA 11.8`, corpus
        # 2480): read as the list's `GPU: <model>` line.
        if bare_listed_model(lines, i):
            item = line.strip().lstrip("-*+").strip()  # the list's bullet is no part of the model
            yield Found("prose machine", i, i + 1, document_appended(USER_MACHINE.name, f"GPU: {item}\n"))
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        states = stated_gpus(line) or listed_model(line) or owned_gpu_count(line) or owned_model(line) \
            or worded_model(line) or jetson_module(line) or inline_listed_model(line) \
            or cloud_instances(line) \
            or platform_words(line) \
            or stated_shm(line) is not None or stated_arm_cpu(line) or stated_iommu_off(line) or stated_npus(line) \
            or stated_vendor_gpus(line) or stated_vgpu_limit(line) or stated_mig(line) or stated_series(line) \
            or stated_peer_memory_loaded(line) or stated_laptop(line) or stated_one_gpu_each(line) \
            or stated_vgpu_vms(line)
        # An issue template's answer to its operating-system question (`**Which operating system?**`, then `Windows 11
        # Education 64-bit`, corpus 2913): read as the list's `OS:` line it states.
        question, os_said = form_os_answer(lines, i)
        if not states and not windows and os_said and windows_line(os_said) is not None:
            yield Found("prose machine", question, i + 1, document_appended(USER_MACHINE.name, os_said + "\n"))
            windows = True
            taken += 1
            if taken == MAX_LINES:
                return
            continue
        shows_windows = not states and not windows and windows_line(line) is not None
        if (states or shows_windows) \
                and not is_log_line(line) and not is_uname_line(line) and per_gpu_limit(line) is None \
                and not listed_gpu(line):
            words = document_appended(USER_MACHINE.name, line.strip() + "\n")
            if stated_switches(line) or (stated_engines(line) and is_sentence(line) and not is_symptom(line)):
                # The machine's sentence naming a custom all-reduce switch the run has (`After adding
                # --enable-p2p-check, why is ... two 4090s slower`, corpus 1352), or naming the engine (`With 2XL40 I
                # get shard-manager error for docker image text-generation-inference:1.0.2`, corpus 893), is the
                # engine's too: the prose engine reader yields this span to this one.
                words = applied_each(words, document_appended(USER_ENGINES.name, line.strip() + "\n"))
            if asked_checks(line) and is_sentence(line):
                # The machine's sentence asking about a setting (`when I use 2 x 2080Ti GPUs, but how could I know
                # which NCCL_P2P_LEVEL it uses?`, corpus 626) is the question too (prose question yields this span).
                words = applied_each(words, document_appended(USER_QUESTION.name, line.strip() + "\n"))
            # A line that is also evidence (`open driver 550.90.07 doesn't work in both confidential VM and normal VM`,
            # corpus 1098: the flavour and the VM) is read as both: one span, two documents. So is an issue form's
            # answer whose `Label: answer` is evidence (`### Kernel Release`, then `6.1.3+ aarch64 GNU/Linux`, corpus
            # 1786: the kernel and the Arm machine), its span from the heading.
            heading, stated = _form_evidence(lines, i)
            evidence = stated or (line.strip() if is_evidence(line) else "")
            yield Found("prose machine", heading, i + 1, applied_each(words, document_appended(
                EVIDENCE_LINES.name, evidence + "\n")) if evidence else words)
            # A prompt's line is its command's too (a `docker run`, read by its own reader, which takes the span): it
            # leaves the next Windows line its place.
            windows = windows or (shows_windows and windows_line(line) is not WINDOWS_PROMPT)
            taken += 1
            if taken == MAX_LINES:
                return
