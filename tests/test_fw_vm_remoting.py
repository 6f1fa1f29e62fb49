"""FW-VM on a GPU behind a CUDA API-remoting frontend (h97a): a pasted line naming the frontend that stands in for
libcuda (facts/platform.py REMOTING_FRONTENDS) makes the GPU a remoted one, and a failure the frontend printed is an
issue (corpus 2021, where both readers say issue). FW-VM on a Windows host whose sources show one GPU: not an issue,
bare or a VM (corpus 2143)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.platform import remoting_frontend, virtualization_from_evidence_lines

# InternLM/lmdeploy#1169 (corpus 2021): harp's frontend libcuda aborts lmdeploy's api_server.
HARP_LMDEPLOY = """\
[AMP ERROR][CudaFrontend.cpp:94][1708433270:80921]failed to call cuCtxGetDevice(&device), error code: CUDA_ERROR_INVALID_CONTEXT
/usr/local/harp/lib/libvirtdev-frontend.so.0(LogStream::PrintBacktrace()+0x52) [0x7fb4d70fa302]
"""
# sgl-project/sglang#5999: sglang on the same platform, the frontend's library missing at import.
HARP_SGLANG = "ImportError: libharpcuda.so.0: cannot open shared object file: No such file or directory\n"
# cjg/GVirtuS#1: a CUDA program linked against GVirtuS's frontend libraries (ldd's line), no failure in it.
GVIRTUS_LDD = ("\tlibgvirtus-frontend.so => /root/GVirtuS/lib/libgvirtus-frontend.so (0x00007fc12cdc9000)\n"
               "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fc12d09e000)\n")
# Modelled: a CUDA driver error on an ordinary host, its libcuda NVIDIA's own (no frontend named).
PLAIN_CUDA_ERROR = ("RuntimeError: CUDA error: invalid device context (CUDA_ERROR_INVALID_CONTEXT)\n"
                    "/lib/x86_64-linux-gnu/libcuda.so.1(+0x2a1f3e) [0x7f3b2c8a1f3e]\n")


def test_harp_frontend_and_its_failure_are_read() -> None:
    what, line, failed = remoting_frontend(HARP_LMDEPLOY) or ("", "", "")
    assert "harp" in what and "CudaFrontend.cpp" in line
    assert "CUDA_ERROR_INVALID_CONTEXT" in failed


def test_a_missing_frontend_library_is_its_failure() -> None:
    found = remoting_frontend(HARP_SGLANG)
    assert found is not None and "cannot open shared object file" in found[2]


def test_a_frontend_with_no_failure_shown_is_a_remoted_gpu_only() -> None:
    vm = virtualization_from_evidence_lines(GVIRTUS_LDD)
    assert vm.vm == "remoting" and "GVirtuS" in vm.source
    assert "libgvirtus-frontend.so" in vm.remoted and vm.remote_failure == ""


def test_nvidias_own_libcuda_is_no_frontend() -> None:
    assert remoting_frontend(PLAIN_CUDA_ERROR) is None


def test_corpus_2021_harp_failure_is_an_issue() -> None:
    result = capture_checks("2021", "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "API-remoting frontend" in result.message and "CUDA_ERROR_INVALID_CONTEXT" in result.message


def test_a_plain_cuda_error_names_no_remoted_gpu(tmp_path: Path) -> None:
    listing = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-3f2a1b4c-5d6e-7f80-91a2-b3c4d5e6f708)\n"
    result = paste_checks(tmp_path, listing + PLAIN_CUDA_ERROR, "FW-VM")["FW-VM"]
    assert result.status != "issue" and "remoted" not in result.message


# A Windows host's nvidia-smi table (its TCC/WDDM column) says the operating system, not whether the machine is a VM
# (h97a). With one GPU it loses nothing either way: bare Windows, a Windows VM or WSL 2 on it each hold that one GPU.
# Real tables of the class: corpus 2143 (ollama/ollama#1929), 1494 (PromtEngineer/localGPT#456), 1500 (localGPT#14),
# 2019 (InternLM/lmdeploy#514); 1975 (LostRuins/koboldcpp#634, two GPUs) stays open.
WINDOWS_TWO_GPUS = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 546.33                 Driver Version: 546.33       CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                     TCC/WDDM  | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 4060 Ti   WDDM  | 00000000:03:00.0  On |                  N/A |
|  0%   29C    P8               7W / 180W |    581MiB / 16380MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA GeForce RTX 4090      WDDM  | 00000000:04:00.0 Off |                  Off |
|  0%   31C    P8              12W / 450W |      0MiB / 24564MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""


def test_windows_host_with_one_gpu_is_not_an_issue() -> None:
    result = capture_checks("2143", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message
    assert "Windows host" in result.message and "one GPU" in result.message


def test_windows_host_with_two_gpus_stays_open(tmp_path: Path) -> None:
    """Modelled on 2143's table with a second GPU (as 1975 shows): whether a VM sits between them is not shown."""
    result = paste_checks(tmp_path, WINDOWS_TWO_GPUS, "FW-VM")["FW-VM"]
    assert result.status == "unknown", result.message
    assert "Windows host" in result.message
