"""IC-TOPOLOGY-PLACEMENT where a paste shows no better placement, or a TP group over the network (h72f).

Rules under test:
- a collect_env report goes on after torch's cuDNN file list (`cuDNN version: Probably one of the following:` then
  one path a line): the rest, its topology matrix included, is the report's (corpus 1591);
- every GPU pair SYS with one NUMA span (`0-1`) and one CPU list for every GPU ranks no group above another:
  not an issue (corpus 1617); GPUs on distinct NUMA nodes keep the NUMA question open (unknown);
- an engine command whose TP group holds one rank on each node (`--tp N --nnodes N`) runs every all-reduce over the
  network: an issue (corpus 1611); TP 1 over nodes stays not applicable;
- a pasted engine line that lost its interpreter (`CUDA_VISIBLE_DEVICES=0 -m sglang.launch_server`) is still the
  engine's command (corpus 1517).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import corpus_path
from stackaudit.engine.testing import run_checks
from stackaudit.facts.collect_env import COLLECT_ENV_ARGV
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers.pasted import load_pasted

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"


def _judge(path: Path, check: str = PLACEMENT) -> Any:
    return run_checks(load_pasted([str(path)]), [check])[check]


def _pasted(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    return path


# Verbatim, https://github.com/vllm-project/vllm/issues/13497 (issue body, `python collect_env.py`, its head):
# the report goes on after the cuDNN file list.
VLLM_13497_HEAD = """\
INFO 02-18 21:25:53 __init__.py:190] Automatically detected platform cuda.
Collecting environment information...
PyTorch version: 2.5.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.5 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.22.1
Libc version: glibc-2.35

Python version: 3.10.12 (main, Jan 17 2025, 14:35:34) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.4.0-193-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.1.105
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 535.183.01
cuDNN version: Probably one of the following:
/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_adv_train.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_cnn_train.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8.9.0
/usr/lib/x86_64-linux-gnu/libcudnn_ops_train.so.8.9.0
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True
"""

# Verbatim, https://github.com/NVIDIA/go-gpuallocator/issues/17 (issue body): eight RTX 4090, every pair SYS, GPUs 0-3
# on NUMA node 0 and GPUs 4-7 on node 1 with CPU lists of their own.
GPUALLOCATOR_17_TOPO = """\
\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-55,112-167\t0\t\tN/A
GPU1\tSYS\t X \tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-55,112-167\t0\t\tN/A
GPU2\tSYS\tSYS\t X \tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-55,112-167\t0\t\tN/A
GPU3\tSYS\tSYS\tSYS\t X \tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-55,112-167\t0\t\tN/A
GPU4\tSYS\tSYS\tSYS\tSYS\t X \tSYS\tSYS\tSYS\tSYS\tSYS\t56-111,168-223\t1\t\tN/A
GPU5\tSYS\tSYS\tSYS\tSYS\tSYS\t X \tSYS\tSYS\tSYS\tSYS\t56-111,168-223\t1\t\tN/A
GPU6\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t X \tSYS\tPHB\tPHB\t56-111,168-223\t1\t\tN/A
GPU7\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t X \tSYS\tSYS\t56-111,168-223\t1\t\tN/A
NIC0\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tPHB\tSYS\t X \tPIX
NIC1\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tPHB\tSYS\tPIX\t X
"""

# Verbatim, https://github.com/sgl-project/sglang/issues/2794 (issue body, "16 Nvidia H100 GPU nodes"): TP 16 over
# --nnodes 16, one rank on each node.
SGLANG_2794_COMMAND = ("python3 -m sglang.launch_server --model-path /mnt/blob/deepseek/ --tp 16 --dist-init-addr "
                       "$ip:20000 --nnodes 16 --node-rank 0 --enable-torch-compile --quantization fp8 --kv-cache-dtype "
                       "fp8_e5m2 --disable-cuda-graph --trust-remote-code --host 0.0.0.0 --port 40000\n")


# --- the report after the cuDNN file list ---------------------------------------------------------------------------


def test_collect_env_goes_on_after_the_cudnn_file_list(tmp_path: Path) -> None:
    host = load_pasted([str(_pasted(tmp_path, VLLM_13497_HEAD))])
    report = host.record.commands[COLLECT_ENV_ARGV].stdout
    assert "HIP runtime version: N/A" in report and "Is XNNPACK available: True" in report


def test_topology_after_the_cudnn_file_list_is_read_corpus_1591() -> None:
    r = _judge(corpus_path("1591"))
    assert r.status == "ok" and "NVSwitches" in r.message, r.message


# --- every pair SYS -------------------------------------------------------------------------------------------------


def test_every_pair_sys_with_one_numa_span_and_cpu_list_is_nothing_to_choose_corpus_1617() -> None:
    r = _judge(corpus_path("1617"))
    assert r.status == "not-an-issue" and "same NUMA affinity (0-1)" in r.message, r.message


def test_every_pair_sys_on_distinct_numa_nodes_stays_unknown(tmp_path: Path) -> None:
    r = _judge(_pasted(tmp_path, "$ nvidia-smi topo -m\n" + GPUALLOCATOR_17_TOPO))
    assert r.status == "unknown" and "only the NUMA affinity separates them" in r.message, r.message


def test_one_numa_span_with_cpu_lists_of_their_own_stays_unknown(tmp_path: Path) -> None:
    # Modelled on the matrix above: one NUMA span for every GPU, but two CPU lists, so the affinity splits them.
    topo = GPUALLOCATOR_17_TOPO.replace("\t0\t\tN/A", "\t0-1\t\tN/A").replace("\t1\t\tN/A", "\t0-1\t\tN/A")
    r = _judge(_pasted(tmp_path, "$ nvidia-smi topo -m\n" + topo))
    assert r.status == "unknown", r.message


# --- TP over nodes --------------------------------------------------------------------------------------------------


def test_tp_with_one_rank_on_each_node_is_an_issue_corpus_1611() -> None:
    r = _judge(corpus_path("1611"))
    assert r.status == "issue" and "all-reduce crosses the network" in r.message, r.message


def test_tp_16_over_16_nodes_is_an_issue(tmp_path: Path) -> None:
    r = _judge(_pasted(tmp_path, SGLANG_2794_COMMAND))
    assert r.status == "issue" and "--nnodes 16" in r.message, r.message


def test_a_pipeline_of_one_rank_per_node_stays_not_applicable(tmp_path: Path) -> None:
    # Modelled: TP 1 x PP 2 over two nodes passes activations once per stage, no all-reduce between the hosts.
    command = ("python3 -m sglang.launch_server --model-path /m --tp 1 --pp-size 2 --nnodes 2 --node-rank 0 "
               "--dist-init-addr 10.0.0.1:5000\n")
    r = _judge(_pasted(tmp_path, command))
    assert r.status == "not-applicable", r.message


# --- a command that lost its interpreter ----------------------------------------------------------------------------


def test_module_switch_after_variables_is_the_engine_command() -> None:
    command = parse_command_line("CUDA_VISIBLE_DEVICES=0 -m sglang.launch_server --model-path /m")
    assert command is not None and command.engine == "sglang" and command.env == (("CUDA_VISIBLE_DEVICES", "0"),)
    assert parse_command_line("-m sglang.launch_server --model-path /m") is None  # no variables: not a command line


def test_one_gpu_server_whose_paste_lost_python_is_not_applicable_corpus_1517() -> None:
    r = _judge(corpus_path("1517"))
    assert r.status == "not-applicable" and "TP 1" in r.message, r.message
