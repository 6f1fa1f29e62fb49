"""Issue 28 (h73a): pastes refused as "nothing recognisable" although they hold output an expert reads, each now a row
of its existing reader; prose and a plain Python traceback stay refused.

Real pastes are the corpus's (each under its public thread, tests/data/captures/). The other shapes come from a
sample of public GitHub issues (URL beside each); their lines here are modelled on those pastes (host names, paths and
numbers changed) and marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container import gpu_stack_pod
from stackaudit.facts.serving_logs import ServingLog, is_log_line
from stackaudit.facts.sources import ENGINE_LOG, EVIDENCE_LINES, USER_MACHINE
from stackaudit.facts.system import NumaTopology
from stackaudit.importers.evidence import is_evidence
from stackaudit.importers.recognition import recognise


def _kinds(text: str) -> list[str]:
    return [kind for kind, _, _ in recognise(text).recognised]


# --- corpus 937: a vGPU device plugin's PCI walk, lspci headers behind an index --------------------------------------


def test_an_indexed_pci_walk_is_read_as_lspci_headers() -> None:
    # 4paradigm/k8s-vgpu-scheduler#36: ` 11 = 00:08.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 SXM2 32GB]`.
    result = recognise(body("937"))
    assert "lspci" in [kind for kind, _, _ in result.recognised]
    text = result.record.commands[("lspci",)].stdout
    assert "00:08.0 3D controller: NVIDIA Corporation GV100GL [Tesla V100 SXM2 32GB] (rev a1)" in text
    assert " = " not in text  # the plugin's index is not part of the header
    assert capture_checks("937", "FW-VM")["FW-VM"].status == "not-an-issue"


def test_modelled_an_index_before_prose_is_not_an_lspci_header() -> None:
    # Modelled: a numbered list whose item is no bus address.
    assert "lspci" not in _kinds(" 1 = the first thing I tried\n 2 = reinstalling the driver\n")


# --- corpus 1239: numactl -H's distance table alone ------------------------------------------------------------------


def test_a_distance_table_alone_gives_every_node_of_its_column_row() -> None:
    # numactl/numactl#224: a 4x GH200's 36-column table, cut after row 5.
    numa = fact(pasted(body("1239")), "numa")
    assert isinstance(numa, NumaTopology)
    assert numa.count == 36
    assert numa.nodes[4].distances[:6] == (80, 120, 120, 120, 10, 255)


def test_unreachable_nodes_are_memory_only_nodes_not_an_nps_split() -> None:
    result = capture_checks("1239", "FW-NUMA-NPS")["FW-NUMA-NPS"]
    assert result.status == "not-an-issue"
    assert "4-5" in result.message and "255" in result.message


def test_modelled_a_distance_table_of_reachable_nodes_stays_a_layout(tmp_path: Path) -> None:
    # Modelled: a two-socket host's table alone: both nodes reach each other, nothing for the memory-node rule.
    text = "node   0   1\n  0:  10  21\n  1:  21  10\n"
    assert paste_checks(tmp_path, text, "FW-NUMA-NPS")["FW-NUMA-NPS"].status == "ok"


# --- corpus 1309: ollama lines cut to msg=, an issue form's `### GPU` ------------------------------------------------


def test_ollama_lines_cut_to_their_message_are_ollamas_log() -> None:
    # ollama/ollama#12797: `msg="skipping available library at users request" requested=cuda libDir=/usr/lib/ollama/...`.
    host = pasted(body("1309"))
    log = fact(host, "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "ollama"
    assert "GPU: H100" in host.record.docs[USER_MACHINE.name]


def test_modelled_a_go_programs_cut_line_without_ollama_is_not_ollamas() -> None:
    # Modelled: Go's slog prints the same form for any program.
    assert not is_log_line('msg="starting controller" component=scheduler path=/var/lib/app')
    assert is_log_line('msg="skipping available library at users request" requested=cuda libDir=/usr/lib/ollama/x')


# --- corpus 1624 and TensorRT-LLM: backtrace frames inside the GPU stack's libraries ----------------------------------


def test_open_mpi_frames_inside_libnccl_are_read() -> None:
    # NVIDIA/TensorRT-LLM#963: `[6f75f4d87c8b:20590] [ 1] .../nvidia/nccl/lib/libnccl.so.2(+0x878e7)[0x7f030de878e7]`.
    assert "server log" in _kinds(body("1624"))


@pytest.mark.parametrize("line", [
    # Modelled on NVIDIA/TensorRT-LLM#395 (an Open MPI backtrace inside TensorRT).
    "[node-7:4411] [ 4] /usr/local/tensorrt/lib/libnvinfer.so.10(+0x10aa7b2)[0x7f11aa0d97a2]",
    # Modelled on NVIDIA/TensorRT-LLM#1826 (the runtime's exception and its own stack).
    "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /src/cpp/tensorrt_llm/common/mpiUtils.cpp:211",
    "2       0x7f22bbcc1999 /opt/venv/lib/python3.12/site-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x7a1999) [0x7f22]",
    "4       0x7f22aa11dcec tensorrt_llm::plugins::AllreducePlugin::initialize() + 204",
])
def test_modelled_frames_of_tensorrt_and_trtllm_are_log_lines(line: str) -> None:
    assert is_log_line(line)


def test_modelled_frames_of_other_libraries_stay_unread() -> None:
    # Modelled: the same backtrace's libc and python frames.
    assert not is_log_line("[node-7:4411] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f0402601520]")
    assert not is_log_line("[node-7:4411] [12] python3(_PyObject_MakeTpCall+0x25b)[0x56317acfca7b]")


# --- vLLM: a worker's line under its engine core's tag ----------------------------------------------------------------


def test_modelled_a_vllm_worker_line_under_two_process_tags_is_vllms() -> None:
    # Modelled on vllm-project/vllm#27067: `(EngineCore_DP0 pid=…) (Worker_PP3 pid=…) ERROR … [multiproc_executor.py:…]`.
    text = ("(EngineCore_DP0 pid=31200) (Worker_PP1 pid=31288) ERROR 11-02 07:15:40 [multiproc_executor.py:671] "
            "WorkerProc hit an exception.\n")
    assert is_log_line(text.rstrip("\n"))
    assert ENGINE_LOG.name in recognise(text).record.docs


# --- evidence lines: CUDA's error, libnvidia-container's debug log, a GPU stack pod described ---------------------------


@pytest.mark.parametrize("line", [
    # Modelled on SystemPanic/vllm-windows#72 and vllm-project/vllm#6725 (torch's CUDA error and its pointer).
    "RuntimeError: Worker failed with error 'CUDA error: an illegal memory access was encountered",
    "Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
    "torch.AcceleratorError: CUDA error: unspecified launch failure",
    # Modelled on NVIDIA/nvidia-container-toolkit#260 (`nvidia-container-cli -k -d /dev/tty info`).
    "I0611 09:01:12.100200 5512 nvc.c:376] initializing library context (version=1.14.3, build=abc)",
    # Modelled on NVIDIA/gpu-operator#258 (`kubectl describe pod` of the driver daemonset's pod).
    "Controlled By:  DaemonSet/nvidia-driver-daemonset",
    "    Image:         nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.6.2",
    # Modelled on NVIDIA/gpu-operator#579 (a second, unseen describe: the validator's image).
    "    Image:         nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0",
    # Modelled on NVIDIA/gpu-operator#285 (`kubectl logs --prefix` of the driver container).
    "[pod/nvidia-driver-daemonset-x2k9q/nvidia-driver-ctr] Done, now waiting for signal",
])
def test_modelled_evidence_lines_of_the_gpu_stack(line: str) -> None:
    assert is_evidence(line)
    assert EVIDENCE_LINES.name in recognise(line + "\n").record.docs


def test_modelled_the_validators_driver_check_is_the_gpu_operators_validator() -> None:
    # Modelled on NVIDIA/gpu-operator#378 (`kubectl logs ... -c driver-validation`).
    line = "running command chroot with args [/run/nvidia/driver nvidia-smi]"
    assert gpu_stack_pod(line) == "the GPU Operator's validator"
    assert not gpu_stack_pod("running command chroot with args [/mnt/rootfs ls]")


# --- what stays refused -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    # Modelled: the user's words alone.
    "I tried everything and the model still runs slowly on my machine. Any idea what to check next?\n",
    # Modelled: a Python traceback with no GPU or engine content.
    "Traceback (most recent call last):\n  File \"/home/user/app/main.py\", line 12, in <module>\n"
    "    import requests\nModuleNotFoundError: No module named 'requests'\n",
    # Modelled: a CUDA-looking word that is no CUDA error string, and a container's other image.
    "CUDA error: my script prints this when I forget the flag\n    Image:         docker.io/library/redis:7\n",
])
def test_prose_and_unrelated_output_stay_refused(text: str) -> None:
    assert recognise(text).recognised == []
