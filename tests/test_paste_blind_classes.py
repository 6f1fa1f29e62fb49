"""Classes of paste the first blind run (corpus 212-241, issue 27) refused or half-read, each a rule.

Every rule is tested on at least three real pastes from different public threads: the snippets are verbatim,
each under the thread it comes from.
"""

from __future__ import annotations

import pytest

from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia import NvidiaGpus
from stackaudit.facts.nvidia_smi import parse_table
from stackaudit.facts.platform import windows_lines
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.recognition import recognise


def _recognised(text: str) -> list[str]:
    return [kind for kind, _, _ in recognise(text, "paste.txt").recognised]


def _host(text: str) -> MemoryHost:
    return MemoryHost(recognise(text, "paste.txt").record)


def _status(text: str, check: str) -> str:
    return run_checks(_host(text), [check])[check].status


# --- nvidia-smi's line for a GPU it cannot open ---------------------------------------------------------
# nvidia-smi prints it instead of its table; it is nvidia-smi output (the GPU is there and NVML cannot open
# it), never a GPU listing to judge.

NO_HANDLE_PASTES = [
    # https://github.com/xxd3vin/workspace/issues/19
    ("[root@bh174 chenyang]# nvidia-smi \nUnable to determine the device handle for GPU 0000:0B:00.0: Unknown Error\n",
     "0000:0b:00.0", "unknown"),
    # https://github.com/pdbear/syno_nvidia_gpu_driver/issues/22
    ("```\n$ nvidia-smi\nUnable to determine the device handle for GPU0000:07:00.0: Unknown Error\n```\n",
     "0000:07:00.0", "unknown"),
    # https://github.com/NVIDIA/nvidia-docker/issues/1553
    ("`nvidia-smi -a -i 0`\n```\nUnable to determine the device handle for GPU 0000:09:00.0: Unknown Error\n```\n",
     "0000:09:00.0", "unknown"),
    # https://github.com/AlexeyAB/darknet/issues/86 (Windows: the line wrapped by the console)
    ("        C:\\Program Files\\NVIDIA Corporation\\NVSMI>nvidia-smi\n"
     "        Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot\n"
     "         the system to recover this GPU\n", "0000:03:00.0", "gpu-is-lost"),
    # https://github.com/NVIDIA/k8s-device-plugin/issues/231 (corpus 697): quoted as Markdown inline code
    (" - The output of `nvidia-smi -a` on your host:\n  `Unable to determine the device handle for GPU 0000:C1:00.0: "
     "GPU is lost.  Reboot the system to recover this GPU`\n", "0000:c1:00.0", "gpu-is-lost"),
    # Drivers of 2025-2026 print the GPU's index before the address. https://github.com/1CatAI/1Cat-vLLM/issues/6
    # (corpus 738), then two lines verbatim from public notes of 2026 found by the line's text.
    ("(base) root@HOST:~# nvidia-smi\nUnable to determine the device handle for GPU1: 0000:02:00.0: Unknown Error\n",
     "0000:02:00.0", "unknown"),
    ("```\n$ nvidia-smi\nUnable to determine the device handle for GPU1: 0000:84:00.0: Unknown Error\n```\n",
     "0000:84:00.0", "unknown"),
    ("Unable to determine the device handle for GPU1: 0000:05:00.0: GPU is lost.\n", "0000:05:00.0", "gpu-is-lost"),
]


@pytest.mark.parametrize(("text", "bdf", "why"), NO_HANDLE_PASTES)
def test_the_line_for_a_gpu_nvidia_smi_cannot_open_is_read_as_that_gpu(text: str, bdf: str, why: str) -> None:
    # Under `nvidia-smi -a` / `-q` it is that command's output (the same line: tests/test_nvsmi_fragments.py).
    assert {"nvidia-smi", "nvidia-smi -q"} & set(_recognised(text))
    from corpus import fact

    nvidia = fact(_host(text), "nvidia")
    assert isinstance(nvidia, NvidiaGpus)
    assert [(g.bdf, g.error) for g in nvidia.gpus] == [(bdf, why)]
    # Its index is not in the line, and the GPUs nvidia-smi did not list are not in the source.
    assert nvidia.gpus[0].label == f"GPU {bdf}" and nvidia.unshown
    # No check judges the GPU it could not open: persistence is not known, and not ok; on a Windows host (cmd's prompt,
    # facts/platform.WINDOWS_PROMPT) it does not apply.
    assert _status(text, "DRV-PERSISTENCE") == ("not-applicable" if windows_lines(text) else "unknown")


def test_a_lost_gpu_is_a_lost_gpu_event() -> None:
    from corpus import fact

    events = fact(_host(NO_HANDLE_PASTES[3][0]), "gpu_events")
    assert [e.bdf for e in events.events] == ["0000:03:00.0"]


def test_the_table_parser_without_such_a_line_still_refuses_prose() -> None:
    from stackaudit.facts._parse import ParseError

    with pytest.raises(ParseError):
        parse_table("Unable to determine what the GPU does\n")


# --- an empty grep that nvidia-bug-report.sh ran ---------------------------------------------------------
# The report prints each command, its output, then a line of underscores: a grep with nothing before that line
# printed nothing. Verbatim from https://github.com/marwank270/nvidia-bug-report (nvidia-bug-report.log, file
# lines 10899-10905; corpus 231); the same section is empty in other reports whose module is not named `nvidia`.
BUG_REPORT_EMPTY_MODINFO = """\
____________________________________________

/sbin/modinfo nvidia | grep vermagic


____________________________________________

Scanning kernel log files for NVIDIA kernel messages:
"""


def test_an_empty_grep_of_a_bug_report_section_is_read() -> None:
    from corpus import fact

    assert "empty grep" in _recognised(BUG_REPORT_EMPTY_MODINFO)
    greps = fact(_host(BUG_REPORT_EMPTY_MODINFO), "empty_greps")
    assert greps.shown("modinfo", "vermagic:       5.18.0-14parrot1-amd64 SMP preempt mod_unload modversions") \
        == "/sbin/modinfo nvidia | grep vermagic"
    # It says nothing of another source.
    assert greps.shown("lsmod", "vermagic") is None


def test_a_grep_with_output_before_the_separator_is_not_empty() -> None:
    # eler/git_examples nvidia-bug-report.log form (corpus 228's report) with the grep's line under it.
    text = BUG_REPORT_EMPTY_MODINFO.replace(
        "vermagic\n\n", "vermagic\nvermagic:       4.4.0-87-generic SMP mod_unload modversions \n", 1)
    assert "empty grep" not in _recognised(text)


# --- a `docker run` in inline code inside a sentence -----------------------------------------------------

DOCKER_RUN_INLINE = [
    # https://github.com/vllm-project/vllm/issues/10034 (corpus 224): after a label and a full-width colon.
    ("command：`docker run --runtime nvidia --gpus '\"device=0,1\"' -d -v /data/model/llama:/data/model/llama -p "
     "8001:8000 -e CUDA_LAUNCH_BLOCKING=1 --shm-size=24g vllm/vllm-openai:v0.6.3 --model /data/model/llama "
     "--served_model_name Llama-3.2-11B-Vision-Instruct --tensor-parallel-size 2 --gpu_memory_utilization 0.7 "
     "--max-model-len 4096 --max-num-seqs 1 --enforce-eager`", "vllm/vllm-openai:v0.6.3", 24 * 2**30),
    # https://github.com/dphnAI/sonar/issues/562: the span opens the line, prose before it on the line above.
    ("I have server with 4x3090ti. I can run llama 3 70b with vllm in docker with command:\n"
     "`sudo docker run --shm-size=32g --log-opt max-size=10m --log-opt max-file=1 --rm -it --gpus "
     "'\"device=0,1,2,3\"' -p 9000:8000 --mount type=bind,source=/home/me/.cache,target=/root/.cache "
     "vllm/vllm-openai:v0.5.3.post1 --model casperhansen/llama-3-70b-instruct-awq --tensor-parallel-size 4 --dtype "
     "half --gpu-memory-utilization 0.92 -q awq`", "vllm/vllm-openai:v0.5.3.post1", 32 * 2**30),
    # https://github.com/NVIDIA/nccl/issues/290 (corpus 193): after a list number; no --shm-size (Docker's 64 MiB).
    ("1. `docker run -it -d --rm --net=host --mount type=bind,source=/home,destination=/home --runtime nvidia "
     "nvcr.io/nvidia/tensorflow:20.01-tf1-py3 sh`", "nvcr.io/nvidia/tensorflow:20.01-tf1-py3", None),
]


@pytest.mark.parametrize(("text", "image", "shm"), DOCKER_RUN_INLINE)
def test_a_docker_run_in_inline_code_is_read_up_to_its_closing_backtick(text: str, image: str, shm: int | None) -> None:
    from corpus import fact

    # The user's sentence above the command names vLLM, and one names the GPUs (`4x3090ti.`): the words readers take
    # them, no other reader does.
    assert [k for k in _recognised(text) if k not in ("prose engine", "prose machine")] == ["docker run"]
    [container] = fact(_host(text), "docker_containers").containers
    assert (container.image, container.shm_size) == (image, shm)
    assert container.argv[-1].strip("`") == container.argv[-1]  # the closing backtick is not an argument


def test_text_after_the_inline_span_is_not_an_argument() -> None:
    from stackaudit.facts.container_specs import parse_docker_run

    run = parse_docker_run("it works with `docker run --gpus all img:1 --enforce-eager` but not with the other")
    assert run.argv == ("--enforce-eager",)


# A command a bug report sets in Markdown bold, the whole line wrapped in `**`.
DOCKER_RUN_BOLD = [
    # https://github.com/huggingface/text-generation-inference/issues/904 (corpus 1354): the template's bold lines.
    ("I launch:\n**model=meta-llama/Llama-2-7b-chat-hf**\n\n**docker run --gpus all --shm-size 1g -p 8080:80 -v "
     "$volume:/data ghcr.io/huggingface/text-generation-inference:1.0.1 --model-id $model**\n\n**and I have this "
     "error**\n**docker: Error response from daemon: could not select device driver \"\" with capabilities: "
     "[[gpu]].\n", "ghcr.io/huggingface/text-generation-inference:1.0.1", 2**30),
    # Modelled on a README's bold run line (`**docker run --gpus all -p 8888:8888 IMAGE**`): no --shm-size.
    ("Run the docker image:\n\n**docker run --gpus all -p 8888:8888 vijaydevmasters/mario:best**\n",
     "vijaydevmasters/mario:best", None),
]


@pytest.mark.parametrize(("text", "image", "shm"), DOCKER_RUN_BOLD)
def test_a_docker_run_set_in_bold_is_read_without_its_marks(text: str, image: str, shm: int | None) -> None:
    from corpus import fact

    assert "docker run" in _recognised(text)
    [container] = fact(_host(text), "docker_containers").containers
    assert (container.image, container.shm_size) == (image, shm)
    assert not any("*" in a for a in container.argv)  # the closing marks are not an argument


def test_tgi_run_in_bold_with_shm_size_1g_is_ok_for_shm() -> None:
    # Corpus 1354: --shm-size 1g meets TGI's documented 1g; without the bold run line the check could not read it.
    assert _status(DOCKER_RUN_BOLD[0][0], "CTR-SHM-SIZE") == "ok"


def test_a_docker_run_that_elides_its_image_is_advice_not_a_run() -> None:
    # https://github.com/hustvl/SparseInst/pull/69: a suggestion, its image elided.
    text = ("NOTE: use extended shared memory size when running the container, e.g. "
            "`docker run --shm-size 100g --gpus all ...`\nElse you are likely to get an error when starting training\n")
    assert "docker run" not in _recognised(text)


# --- Fabric Manager's own words without their journal tag -----------------------------------------------
# FM prints its version check's failure and exits; people quote the message alone (a fence, inline code, a
# quotation), or a driver container prints it untagged. It is the daemon's state, read as its journal is.

FM_MISMATCH = [
    # https://github.com/NVIDIA/gpu-driver-container/issues/735 (corpus 234): a driver container's output, fenced.
    "```\nfabric manager NVIDIA GPU driver interface version 590.48.01 don't match with driver version 580.126.09.\n"
    "Please update with matching NVIDIA driver package.\n```\n",
    # https://github.com/siderolabs/pkgs/issues/720: inline code after a sentence.
    "After building proprietary driver there is an error from Fabric Manager service:\n`fabric manager NVIDIA GPU "
    "driver interface version 525.85.12 don't match with driver version 530.41.03. Please update with matching "
    "NVIDIA driver package`.\n",
    # https://github.com/canonical/microk8s/issues/2119
    "I've followed the recipy and got issues with enabling nvidia-fabricmanager:\n`fabric manager NVIDIA GPU driver "
    "interface version 460.91.03 don't match with driver version 460.73.01. Please update with matching NVIDIA "
    "driver package.`\n",
    # https://github.com/NVIDIA/nvtrust/issues/55: in quotation marks, a typographic apostrophe.
    "\"fabric manager NVIDIA GPU driver interface version 550.90.07 don’t match with driver version 550.107.02. "
    "Please update with matching NVIDIA driver package\"\n",
]


@pytest.mark.parametrize("text", FM_MISMATCH)
def test_fabric_managers_version_mismatch_on_its_own_is_the_daemons_state(text: str) -> None:
    from corpus import fact

    assert _recognised(text) == ["evidence line"]
    fm = fact(_host(text), "nvidia_services").fabricmanager
    assert fm.mismatch and fm.active == "failed"
    assert _status(text, "DRV-FABRIC-MANAGER") == "issue"


def test_prose_about_fabric_manager_is_not_its_words() -> None:
    text = "I installed fabric manager version 535.104.05 from the CUDA repo and the NVSwitch driver.\n"
    assert _recognised(text) == []


# --- CUDA's peer-access answer, as the CUDA samples print it ----------------------------------------------
# Evidence of what cudaDeviceCanAccessPeer said, nothing more: the paste is read, no check is settled by it.

PEER_ACCESS = [
    # https://github.com/tinygrad/open-gpu-kernel-modules/pull/22 (corpus 239)
    "```shell\nChecking GPU(s) for support of peer to peer memory access...\n"
    "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes\n"
    "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU2) : Yes\n",
    # https://github.com/aikitoria/open-gpu-kernel-modules/pull/5
    "pancho@fedora:~/cuda-samples/build/Samples/0_Introduction/simpleP2P$ ./simpleP2P\n"
    "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : Yes\n"
    "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 5090 (GPU2) : No\n",
    # https://github.com/tensorflow/tensorflow/issues/2145
    "[@sjs_88_31 release]# ./simpleP2P \n"
    "> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU1) : Yes\n"
    "> Peer access from Tesla K40m (GPU0) -> Tesla K40m (GPU2) : No\n",
]


@pytest.mark.parametrize("text", PEER_ACCESS)
def test_a_cuda_samples_peer_access_answer_is_evidence(text: str) -> None:
    assert set(_recognised(text)) == {"evidence line"}
    # What CUDA reports is not a transfer that worked: P2P stays unknown, never ok.
    assert _status(text, "IC-P2P-FUNCTIONAL") == "unknown"


def test_prose_about_peer_access_is_not_its_answer() -> None:
    assert _recognised("Peer access from GPU0 to GPU1 should be Yes : it was before\n") == []


# --- CUDA's "system not yet initialized" (error 802) ------------------------------------------------------
# CUDA will not start until the driver's daemons run: on NVSwitch systems, Fabric Manager. Whatever program
# printed it, the line is the failure of DRV-FABRIC-MANAGER (a log symptom, facts/symptoms.py).

SYSTEM_NOT_READY = [
    # https://github.com/NVIDIA/gpu-operator/issues/375 (corpus 240): the CUDA validator pod's log.
    "[root@cl3-ac-us-hgx1 ~]# kubectl  logs  nvidia-cuda-validator-vkfv6 -n gpu-operator-resources -c "
    "cuda-validation\nFailed to allocate device vector A (error code system not yet initialized)!\n"
    "[Vector addition of 50000 elements]\n",
    # https://github.com/pytorch/pytorch/issues/35710
    "> ./bandwidthTest\n[CUDA Bandwidth Test] - Starting...\nRunning on...\n\ncudaGetDeviceProperties returned 802\n"
    "-> system not yet initialized\n"
    "CUDA error at bandwidthTest.cu:256 code=802(cudaErrorSystemNotReady) \"cudaSetDevice(currentDevice)\" \n",
    # https://github.com/wilicc/gpu-burn/issues/92
    "$ gpu_burn -d 60\nterminate called after throwing an instance of 'std::runtime_error'\n"
    "  what():  Error (gpu_burn-drv.cpp:298): system not yet initialized\n",
    # https://github.com/dstackai/dstack/issues/2348
    "/opt/conda/envs/workflow/lib/python3.9/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA "
    "initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
    "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered "
    "internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n",
]


@pytest.mark.parametrize("text", SYSTEM_NOT_READY)
def test_cuda_error_802_is_a_fabric_manager_issue(text: str) -> None:
    assert "evidence line" in _recognised(text)
    result = run_checks(_host(text), ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"]
    assert result.status == "issue" and "802" in result.message


def test_another_cuda_error_is_not_error_802() -> None:
    text = "CUDA error at bandwidthTest.cu:256 code=100(cudaErrorNoDevice) \"cudaSetDevice(currentDevice)\"\n"
    assert _status(text, "DRV-FABRIC-MANAGER") != "issue"


# --- `systemctl status` of a unit of the NVIDIA stack ----------------------------------------------------
# Fabric Manager, persistenced and DCGM have their own recogniser; the other units' status is evidence only.

UNIT_STATUS = [
    # https://github.com/Mellanox/nv_peer_memory/issues/41 (corpus 238): unindented, as pasted.
    "`service nv_peer_mem status`\nOutput\n"
    "● nv_peer_mem.service - LSB: Activates/Deactivates nv_peer_mem to \\ start at boot time.\n"
    "Loaded: loaded (/etc/init.d/nv_peer_mem; bad; vendor preset: enabled)\n"
    "Active: active (exited) since Thu 2018-06-07 16:02:45 CDT; 16h ago\n",
    # https://github.com/getsolus/packages/issues/317
    "```\n× nvidia-powerd.service - nvidia-powerd service\n"
    "     Loaded: loaded (/usr/lib/systemd/system/nvidia-powerd.service; disabled; preset: enabled)\n"
    "     Active: failed (Result: exit-code) since Sun 2023-08-27 14:15:42 CEST; 2h 7min ago\n```\n",
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/432: a masked unit has no description.
    "```\n➜ sudo systemctl status nvidia-powerd.service\n○ nvidia-powerd.service\n"
    "     Loaded: masked (Reason: Unit nvidia-powerd.service is masked.)\n     Active: inactive (dead)\n```\n",
]


@pytest.mark.parametrize("text", UNIT_STATUS)
def test_the_status_of_an_nvidia_unit_is_evidence(text: str) -> None:
    assert _recognised(text) == ["evidence line"]
    # A unit's state is not the module's: nvidia_peermem's check cannot tell from it.
    assert _status(text, "IC-NVIDIA-PEERMEM") == "unknown"


def test_a_unit_named_in_a_command_is_not_its_status() -> None:
    assert _recognised("sudo systemctl mask nvidia-powerd.service\nand it still works\n") == []


# --- syslog and journal times in another locale ----------------------------------------------------------
# journalctl and syslog print the month in the host's locale: the prefix goes whatever the language.

LOCALE_LINES = [
    # https://github.com/marwank270/nvidia-bug-report (corpus 231), French.
    ("août 25 19:38:04 fujitsu kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.73.08  Wed May 18 "
     "20:34:14 UTC 2022", "fujitsu", "kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.73.08  Wed May 18 "
     "20:34:14 UTC 2022"),
    # https://github.com/getsolus/packages/issues/317, Spanish.
    ("ago 27 14:15:42 solus systemd[1]: nvidia-powerd.service: Failed with result 'exit-code'.", "solus",
     "systemd[1]: nvidia-powerd.service: Failed with result 'exit-code'."),
    # https://github.com/duaneya/tool_man (nvidia-bug-report.log), Chinese.
    ("11月 15 15:01:47 sdu-dpai-turing-1 /usr/lib/gdm3/gdm-x-session[5118]: (II) NVIDIA dlloader X Driver  430.50  "
     "Thu Sep  5 22:43:53 CDT 2019", "sdu-dpai-turing-1", "(II) NVIDIA dlloader X Driver  430.50  Thu Sep  5 "
     "22:43:53 CDT 2019"),
]


@pytest.mark.parametrize(("line", "host", "rest"), LOCALE_LINES)
def test_a_log_prefix_in_another_locale_is_peeled(line: str, host: str, rest: str) -> None:
    from stackaudit.importers._paste import view

    got = view(line + "\n")
    assert got.lines[0] == rest and got.hosts.get(0) == host


def test_the_french_journal_of_a_bug_report_is_a_kernel_log() -> None:
    text = "\n".join(line for line, _, _ in LOCALE_LINES[:1]) + "\n"
    assert _recognised(text) == ["dmesg"]


def test_a_sentence_starting_with_a_month_word_keeps_its_words() -> None:
    from stackaudit.importers._paste import view

    line = "mai 12 10:00:00 was when it broke: the GPU fell off"
    assert view(line + "\n").lines[0] == line
