"""vLLM collect_env (old and new formats) and SGLang check_env: parser, importer, real captures."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackaudit.engine.collect import Collector
from stackaudit.facts._parse import ParseError
from stackaudit.facts.collect_env import CHECK_ENV_ARGV, COLLECT_ENV_ARGV, parse_collect_env
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.topology import TOPO_ARGV, TopoMatrix, parse_topo_matrix
from stackaudit.host.memory import HostRecord, MemoryHost
from stackaudit.importers.recognition import recognise, strip_header

CAPTURES = Path(__file__).resolve().parent / "data" / "captures"

_H100_TOPO = "\n".join(
    ["\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    + [f"GPU{i}\t" + "\t".join(" X " if i == j else "NV18" for j in range(4)) + "\t"
       + ("PXB\tSYS" if i < 2 else "SYS\tPXB") + f"\t{'0-47' if i < 2 else '48-95'}\t{0 if i < 2 else 1}\t\tN/A"
       for i in range(4)]
    + ["NIC0\tPXB\tPXB\tSYS\tSYS\t X \tSYS", "NIC1\tSYS\tSYS\tPXB\tPXB\tSYS\t X ", "", "Legend:", "",
       "  X    = Self", "  NV#  = Connection traversing a bonded set of # NVLinks", "", "NIC Legend:", "",
       "  NIC0: mlx5_0", "  NIC1: mlx5_1"])

COLLECT_ENV_OLD = f"""\
Collecting environment information...
PyTorch version: 2.5.1+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.30.2
Libc version: glibc-2.35

Python version: 3.12.7 (main, Oct  1 2024, 08:52:12) [GCC 11.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35
Is CUDA available: True
CUDA runtime version: 12.4.131
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:
GPU 0: NVIDIA H100 80GB HBM3
GPU 1: NVIDIA H100 80GB HBM3
GPU 2: NVIDIA H100 80GB HBM3
GPU 3: NVIDIA H100 80GB HBM3

Nvidia driver version: 550.90.07
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                         x86_64
CPU op-mode(s):                       32-bit, 64-bit
Address sizes:                        52 bits physical, 57 bits virtual
Byte Order:                           Little Endian
CPU(s):                               96
On-line CPU(s) list:                  0-95
Vendor ID:                            GenuineIntel
Model name:                           Intel(R) Xeon(R) Platinum 8468
CPU family:                           6
Model:                                143
Thread(s) per core:                   1
Core(s) per socket:                   48
Socket(s):                            2
NUMA node(s):                         2
NUMA node0 CPU(s):                    0-47
NUMA node1 CPU(s):                    48-95

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] nvidia-nccl-cu12==2.21.5
[pip3] torch==2.5.1
[pip3] transformers==4.46.2
[pip3] triton==3.1.0
[conda] Could not collect
ROCM Version: Could not collect
Neuron SDK Version: N/A
vLLM Version: 0.6.4.post1
vLLM Build Flags:
CUDA Archs: Not Set; ROCm: Disabled; Neuron: Disabled
GPU Topology:
{_H100_TOPO}

NVIDIA_VISIBLE_DEVICES=all
NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471
NCCL_VERSION=2.21.5-1
NVIDIA_DRIVER_CAPABILITIES=compute,utility
NCCL_P2P_DISABLE=1
CUDA_VERSION=12.4.1
LD_LIBRARY_PATH=/usr/local/lib/python3.12/dist-packages/cv2/../../lib64:/usr/local/nvidia/lib:/usr/local/nvidia/lib64
CUDA_MODULE_LOADING=LAZY
"""

COLLECT_ENV_NEW = """\
Collecting environment information...
==============================
        System Info
==============================
OS                           : Ubuntu 24.04.2 LTS (x86_64)
Libc version                 : glibc-2.39

==============================
       PyTorch Info
==============================
PyTorch version              : 2.7.0+cu128
Is debug build               : False
CUDA used to build PyTorch   : 12.8

==============================
      Python Environment
==============================
Python version               : 3.12.3 (main, Jun 18 2025, 17:59:45) [GCC 13.3.0] (64-bit runtime)
Python platform              : Linux-6.8.0-62-generic-x86_64-with-glibc2.39

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : 12.9.41
CUDA_MODULE_LOADING set to   : LAZY
GPU models and configuration :
GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition
GPU 1: NVIDIA RTX PRO 6000 Blackwell Server Edition

Nvidia driver version        : 575.57.08
cuDNN version                : Could not collect

==============================
          CPU Info
==============================
Architecture:                            x86_64
CPU(s):                                  128
Vendor ID:                               AuthenticAMD
Model name:                              AMD EPYC 9355 32-Core Processor
Socket(s):                               2
NUMA node(s):                            2

==============================
Versions of relevant libraries
==============================
[pip3] nvidia-nccl-cu12==2.26.2
[pip3] torch==2.7.0+cu128
[conda] Could not collect

==============================
         vLLM Info
==============================
ROCM Version                 : Could not collect
vLLM Version                 : 0.9.2
vLLM Build Flags:
  CUDA Archs: Not Set; ROCm: Disabled
GPU Topology:
  \tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tSYS\t0-31,64-95\t0\t\tN/A
GPU1\tSYS\t X \t32-63,96-127\t1\t\tN/A

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)

==============================
     Environment Variables
==============================
NVIDIA_VISIBLE_DEVICES=all
VLLM_USAGE_SOURCE=production-docker-image
CUDA_VISIBLE_DEVICES=0,1
"""

SGLANG_CHECK_ENV = """\
Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA H200
GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.4, V12.4.131
CUDA Driver Version: 560.35.03
PyTorch: 2.5.1+cu124
sglang: 0.4.3.post2
sgl_kernel: 0.0.3.post6
flashinfer: 0.2.1.post2+cu124torch2.5
triton: 3.1.0
transformers: 4.48.3
vllm: Module Not Found
NVIDIA Topology:
\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
""" + "".join(
    f"GPU{i}\t" + "\t".join(" X " if i == j else "NV18" for j in range(8)) + f"\t{'0-55' if i < 4 else '56-111'}\t"
    f"{0 if i < 4 else 1}\t\tN/A\n" for i in range(8)) + """
Legend:

  X    = Self
  NV#  = Connection traversing a bonded set of # NVLinks

Hypervisor vendor: KVM
ulimit soft: 1048576
"""


def test_old_format() -> None:
    r = parse_collect_env(COLLECT_ENV_OLD)
    assert (r.tool, r.format, r.torch_version, r.torch_cuda, r.cuda_runtime) == ("vllm", "old", "2.5.1+cu124", "12.4",
                                                                                  "12.4.131")
    assert r.gpu_models == ("NVIDIA H100 80GB HBM3",) * 4 and r.driver_version == "550.90.07"
    assert r.vllm_version == "0.6.4.post1" and r.nccl_version == "2.21.5" and r.kernel == "5.15.0-122-generic"
    assert r.env["NCCL_P2P_DISABLE"] == "1" and parse_topo_matrix(r.topology_text).link("GPU0", "GPU3") == "NV18"


def test_new_format() -> None:
    r = parse_collect_env(COLLECT_ENV_NEW)
    assert (r.format, r.vllm_version, r.nccl_version, r.driver_version) == ("new", "0.9.2", "2.26.2", "575.57.08")
    assert r.gpu_models == ("NVIDIA RTX PRO 6000 Blackwell Server Edition",) * 2
    assert r.env["CUDA_VISIBLE_DEVICES"] == "0,1" and parse_topo_matrix(r.topology_text).link("GPU0", "GPU1") == "SYS"


def test_sglang_check_env() -> None:
    r = parse_collect_env(SGLANG_CHECK_ENV)
    assert (r.tool, r.sglang_version, r.driver_version, r.cuda_runtime) == ("sglang", "0.4.3.post2", "560.35.03", "12.4")
    assert r.gpu_models == ("NVIDIA H200",) * 8 and r.vllm_version == "" and r.torch_cuda == "12.4"
    assert parse_topo_matrix(r.topology_text).has_nvlink


def test_not_a_report() -> None:
    for text in ("", "hello", "GPU 0: NVIDIA H100"):
        with pytest.raises(ParseError):
            parse_collect_env(text)


def test_importer_records_report_topology_and_leaves_lscpu() -> None:
    result = recognise("### Your current environment\n<details>\n```text\n$ python collect_env.py\n" + COLLECT_ENV_OLD
                       + "```\n</details>\n")
    kinds = [k for k, _, _ in result.recognised]
    assert "collect_env" in kinds and "lscpu" in kinds
    cmds = result.record.commands
    assert parse_collect_env(cmds[COLLECT_ENV_ARGV].stdout).vllm_version == "0.6.4.post1"
    # The matrix stays inside the report (no `nvidia-smi topo -m` invented); gpu_topology reads it there.
    assert TOPO_ARGV not in cmds
    assert _topology(result.record).nic_names == {"NIC0": "mlx5_0", "NIC1": "mlx5_1"}
    assert "Socket(s):" in cmds[("lscpu",)].stdout


def _topology(record: HostRecord) -> TopoMatrix:
    load_facts()
    value = Collector(MemoryHost(record)).results(["gpu_topology"])["gpu_topology"]
    assert isinstance(value, TopoMatrix), value
    return value


def test_importer_new_format_and_sglang() -> None:
    record = recognise(COLLECT_ENV_NEW).record
    assert COLLECT_ENV_ARGV in record.commands and _topology(record).numa_node("GPU1") == 1
    record = recognise("(sglang) root@box:~# python3 -m sglang.check_env\n" + SGLANG_CHECK_ENV).record
    assert CHECK_ENV_ARGV in record.commands and len(_topology(record).gpus) == 8


def _capture(name: str) -> str:
    return strip_header((CAPTURES / name).read_text(encoding="utf-8"))


def test_capture_32_new_format_excerpt() -> None:
    cmds = recognise(_capture("32-rtx-pro-6000-blackwell-ws-vllm-collect-env-new-format.txt")).record.commands
    r = parse_collect_env(cmds[COLLECT_ENV_ARGV].stdout)
    assert r.format == "new" and r.gpu_models == ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition",)
    assert (r.torch_version, r.cuda_runtime, r.driver_version) == ("2.7.0+cu128", "12.9.41", "575.51.03")
    assert parse_collect_env(cmds[COLLECT_ENV_ARGV].stdout).topology_text == ""  # the excerpt ends before it


def test_capture_11_old_format_tail() -> None:
    record = recognise(_capture("11-8x-a100-nv12-epyc-nps4-vllm-collect-env-topology.txt")).record
    r = parse_collect_env(record.commands[COLLECT_ENV_ARGV].stdout)
    assert r.vllm_version == "0.4.1" and r.nccl_version == "2.18.1" and len(_topology(record).gpus) == 8


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400) | st.lists(st.sampled_from([
    "PyTorch version: 2.5.1\n", "GPU models and configuration:", "GPU 0: NVIDIA H100\n", "GPU 0,1: X\n",
    "GPU Topology:\n", "GPU0\t X \tNV18\n", "[pip3] torch==2.5\n", "NCCL_P2P_DISABLE=1\n", "=====\n", "sglang: 0.4\n",
    "CUDA Driver Version: 550\n", "vLLM Version: 0.6\n", "\n", ": :"]), max_size=30).map("".join))
def test_parser_never_crashes(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_collect_env(text)


def test_openmmlab_check_env_is_a_report_naming_no_engine() -> None:
    # Real: InternLM/lmdeploy#3996 (corpus 159), `lmdeploy check_env` after its prompt line.
    from corpus import body, fact, pasted
    from stackaudit.facts.collect_env import parse_collect_env

    text = body("159")
    report = parse_collect_env(text)
    assert (report.tool, report.torch_version, report.torch_cuda) == ("openmmlab", "2.6.0+cu124", "12.4")
    assert report.gpu_models == ("NVIDIA GeForce RTX 3090",) * 4
    assert report.cuda_runtime == "11.0"  # the system nvcc, as vLLM's reports give it too
    (env,) = fact(pasted(text), "python_env").environments
    assert env.engine == "" and env.packages["torch"] == "2.6.0+cu124"


def test_sglang_check_env_of_mid_2024_with_the_driver_printed_twice() -> None:
    # Corpus 130 (sgl-project/sglang#661): `CUDA Driver Version: 535.54.03`, then `535.54.03` on its own line.
    from corpus import body
    from stackaudit.engine.testing import run_checks
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    found = recognise(body("130"))
    assert [kind for kind, *_ in found.recognised] == ["collect_env"]
    (_, start, end), = found.recognised
    assert (start, end) == (2, 44)  # the whole report, its topology included
    result = run_checks(MemoryHost(found.record), ["DRV-CUDA-COMPAT"])["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "535.54.03" in result.message  # an older runtime: ok (the lead's decision)


def test_a_bare_version_line_does_not_start_or_join_a_report_alone() -> None:
    # Modelled: a version on its own line between lines of prose is no report.
    from stackaudit.importers.recognition import recognise

    assert recognise("I upgraded the driver to\n535.54.03\nand it still hangs\n").recognised == []


def test_corpus_603_report_cut_after_the_driver_branch(tmp_path: Path) -> None:
    # vLLM collect_env cut inside `Nvidia driver version        : 535`: the branch (CUDA 12.2) is shown, so torch
    # 2.7.0+cu126 runs on it by minor-version compatibility (not an issue); two digits name no branch (modelled).
    from corpus import body, capture_checks, paste_checks

    r = capture_checks("603", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert r.status == "not-an-issue" and "driver 535 " in r.message
    text = body("603").replace("Nvidia driver version        : 535", "Nvidia driver version        : 53")
    r = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    # No branch is read, so torch's own start decides (h79a: "Is CUDA available: True" proves its runtime ran).
    assert r.status == "ok" and "driver 53 " not in r.message and "torch initialised CUDA" in r.message


def _from_libraries_heading(prefix: str) -> str:
    """A corpus report from its ruled `Versions of relevant libraries` heading on (the rule above it kept)."""
    text = strip_header(next(CAPTURES.glob(f"{prefix}-*.txt")).read_text(encoding="utf-8"))
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.strip() == "Versions of relevant libraries")
    return "\n".join(lines[at - 1:]) + "\n"


@pytest.mark.parametrize(("prefix", "torch"), [
    ("2103", "2.11.0+cu130"),  # vllm-project/vllm#50835: the piece pasted from that heading on
    ("1651", "2.9.0"),  # vllm-project/vllm#31276: its report, cut here to the same heading
])
def test_new_format_report_pasted_from_its_library_heading_is_read(prefix: str, torch: str) -> None:
    text = _from_libraries_heading(prefix)
    assert [k for k, _, _ in recognise(text).recognised][:1] == ["collect_env"]
    report = parse_collect_env(text)
    assert report.tool == "vllm" and report.format == "new"
    assert report.packages["torch"] == torch


def test_ruled_library_heading_without_its_pip_lines_is_not_a_report() -> None:
    # Modelled: the heading and its rules alone, then prose; no package is listed.
    text = "=" * 30 + "\nVersions of relevant libraries\n" + "=" * 30 + "\nI could not paste the rest.\n"
    assert "collect_env" not in [k for k, _, _ in recognise(text).recognised]


@pytest.mark.parametrize(("prefix", "os_name"), [
    # vllm-project/vllm (corpus 2441): `Collecting environment information...` then the System Info section, cut
    # inside the PyTorch section's rule.
    ("2441", "Ubuntu 22.04.5 LTS (x86_64)"),
    # Another thread (corpus 761): the System Info section alone under an engine command.
    ("761", "Ubuntu 24.04.2 LTS (x86_64)"),
])
def test_the_newer_reports_system_info_section_alone_is_the_report(prefix: str, os_name: str) -> None:
    body = strip_header(next(CAPTURES.glob(f"{prefix}-*.txt")).read_text())
    assert "collect_env" in [kind for kind, _, _ in recognise(body).recognised]
    report = parse_collect_env(body[body.index("=" * 30):])
    assert report.tool == "vllm" and report.format == "new" and report.os == os_name
    assert report.torch_version == "" and report.gpu_models == ()  # nothing of torch or the GPUs is shown


def test_a_system_info_heading_of_another_tool_is_not_the_report() -> None:
    # Modelled: another tool's `System Info` heading (no collect_env rules) and the ruled heading with no OS line.
    other = "System Info\nOS: Ubuntu 22.04.5 LTS\nKernel: 6.8.0-45-generic\nShell: bash 5.1.16\n"
    assert "collect_env" not in [kind for kind, _, _ in recognise(other).recognised]
    ruled = "=" * 30 + "\n        System Info\n" + "=" * 30 + "\nUptime                       : 3 days\n"
    with pytest.raises(ParseError):
        parse_collect_env(ruled)
