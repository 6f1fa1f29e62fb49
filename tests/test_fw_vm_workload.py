"""FW-VM judges what the virtual machine costs the workload the source shows (h53b): WSL 2 with several GPUs, WSL 2
with a Linux driver library installed inside it, a guest whose driver refuses the GPU it is handed, and a pod given
one GPU (facts/platform.py wsl_foreign_library, PLATFORM_WORDS; facts/parallelism.py one_gpu_workload)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.platform import driver_branch, platform_words, wsl_foreign_library

# Modelled on corpus 1075 (NVIDIA/nccl#1567): a WSL 2 nvidia-smi table of two GPUs.
WSL_TWO_GPUS = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 565.57.02              Driver Version: 566.03         CUDA Version: 12.7     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA RTX 6000 Ada Gene...    On  |   00000000:01:00.0 Off |                  Off |
| 30%   22C    P8             12W /  300W |       0MiB /  49140MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA RTX 6000 Ada Gene...    On  |   00000000:C1:00.0  On |                  Off |
| 30%   22C    P8             11W /  300W |     838MiB /  49140MiB |      4%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


@pytest.mark.parametrize(("version", "branch"), [("580.105.08", 580), ("581.80", 580), ("572.16", 570),
                                                 ("566.03", 565), ("565.57.02", 565), ("551.76", 550)])
def test_driver_branch(version: str, branch: int) -> None:
    assert driver_branch(version) == branch


def test_wsl_library_of_the_drivers_branch_is_wsls_own() -> None:
    assert wsl_foreign_library("565.57.02", "566.03") == ""
    assert wsl_foreign_library("595.71.01", "596.36") == ""
    assert wsl_foreign_library("570.00", "570.00") == ""  # not WSL 2 at all: one version


def test_wsl_library_of_another_branch_is_a_linux_driver_inside_wsl() -> None:
    assert "R580" in wsl_foreign_library("580.105.08", "572.16")


@pytest.mark.parametrize("number", ["1073", "1075", "768"])
def test_wsl2_with_two_gpus_is_an_issue(number: str) -> None:
    """Corpus 1073 (the WSL 2 kernel in collect_env), 1075 and 768 (the header's library over the Windows driver)."""
    result = capture_checks(number, "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "WSL 2" in result.message and "2 GPUs" in result.message


def test_wsl2_where_cuda_did_not_start_stays_open() -> None:
    """Corpus 957: seven GPUs under WSL 2, but `Is CUDA available: False`: the workload never reached them."""
    result = capture_checks("957", "FW-VM")["FW-VM"]
    assert result.status == "unknown"
    assert "Is CUDA available: False" in result.message


def test_modelled_wsl2_table_of_two_gpus(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, WSL_TWO_GPUS, "FW-VM")["FW-VM"].status == "issue"


def test_modelled_wsl2_table_of_two_gpus_one_container_gpu(tmp_path: Path) -> None:
    """Modelled: the same table, with the container given one GPU: no GPU pair for the VM to cost."""
    text = WSL_TWO_GPUS + "\n$ docker run --gpus '\"device=0\"' vllm/vllm-openai --model m\n"
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status != "issue", result.message


def test_wsl2_linux_driver_inside_is_an_issue() -> None:
    """Corpus 1141: `NVIDIA-SMI 580.105.08  Driver Version: 572.16` copied into the user's list."""
    result = capture_checks("1141", "FW-VM")["FW-VM"]
    assert result.status == "issue"
    assert "R580" in result.message and "R570" in result.message


def test_guest_whose_driver_refuses_the_gpu_is_an_issue() -> None:
    """Corpus 1098: 'in both confidential VM and noramal VM' names the VM; the NVRM lines refuse 10de:2330."""
    result = capture_checks("1098", "FW-VM")["FW-VM"]
    assert result.status == "issue"
    assert "refuses" in result.message and "2330" in result.message


@pytest.mark.parametrize("line", ["open driver 550.90.07 doesn't wroks in both confidential VM and noramal VM",
                                  "the driver fails inside a passthrough VM"])
def test_a_guest_named_by_its_kind_is_a_vm(line: str) -> None:
    words = platform_words(line)
    assert words is not None and words.vm == "vm"


@pytest.mark.parametrize("line", ["It is not in a guest VM.", "Does it work in a passthrough VM?"])
def test_a_negated_or_asked_guest_is_no_statement(line: str) -> None:
    assert platform_words(line) is None


def test_pod_given_one_gpu_is_a_one_gpu_workload() -> None:
    """Corpus 1119: a pod limited to `nvidia.com/gpu: 1` runs nvidia-smi; the table it printed is cut, but the pod
    sees the one GPU it was given."""
    result = capture_checks("1119", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    # The table ends at the border after GPU 0 and no source shows more: its one GPU settles it before the pod's.
    assert "given one GPU" in result.message or "with 1 GPU" in result.message


def test_vm_whose_gpus_reach_each_other_is_not_an_issue() -> None:
    """Corpus 1042 (Azure/azurehpc-health-checks#162): Azure's health check names the VM, and its nvbandwidth P2P
    figure between GPU 0 and GPU 1 shows peer access at work. The blind expectation wants ok; the class reads a VM
    shown with working GPU-to-GPU traffic as not-an-issue (846, 369, 1153)."""
    result = capture_checks("1042", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "virtual machine (microsoft)" in result.message and "256.63" in result.message


def test_azure_health_check_names_an_azure_vm() -> None:
    from stackaudit.facts.platform import virtualization_from_azure_health_check

    line = ("ERROR:  nhc:  Health check failed:  check_gpu_bw: P2P test on GPU 1 to GPU 0 failed. Bandwidth 256.63 is "
            "less than 335. FaultCode: NHC2020\n")
    assert virtualization_from_azure_health_check(line).vm == "microsoft"


# Modelled on simpleP2P's output (cuda-samples Samples/0_Introduction/simpleP2P) in an EC2 VM.
SIMPLE_P2P_FAILED_IN_VM = """\
These tests run on an AWS g6.48xlarge instance.

[./simpleP2P] - Starting...
Checking for multiple GPUs...
CUDA-capable device count: 8
Checking GPU(s) for support of peer to peer memory access...
> Peer access from NVIDIA L4 (GPU0) -> NVIDIA L4 (GPU1) : Yes
> Peer access from NVIDIA L4 (GPU1) -> NVIDIA L4 (GPU0) : Yes
Enabling peer access between GPU0 and GPU1...
Allocating buffers (64MB on GPU0, GPU1 and CPU Host)...
Creating event handles...
cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 12.61GB/s
Preparing host buffer and memcpy to GPU0...
Run kernel on GPU1, taking source data from GPU0 and writing to GPU1...
Run kernel on GPU0, taking source data from GPU1 and writing to GPU0...
Copy data back to host from GPU0 and verify results...
Verification error @ element 1: val = 0.000000, ref = 4.000000
Verification error @ element 2: val = 0.000000, ref = 8.000000
Disabling peer access...
Shutting down...
Test failed!
"""


def test_vm_whose_p2p_data_test_fails_is_an_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, SIMPLE_P2P_FAILED_IN_VM, "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "Verification error" in result.message


# h61f: a VM whose sources show one GPU and state no more is judged over that GPU (the majority of blind readings:
# corpus 255, 504, 507, 567, 656, 950, 1168, 1270), unless a source shows more GPUs (601: JAX's list of four).
@pytest.mark.parametrize("number", ["255", "504", "507", "567", "1168"])
def test_vm_excerpt_of_one_gpu_is_judged_over_it(number: str) -> None:
    result = capture_checks(number, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message
    assert result.coverage is not None and result.coverage.text() == "1 GPU shown"


def test_wsl2_hardware_list_of_one_gpu_is_judged_over_it() -> None:
    # 950: a list's one model, no count and no listing: one GPU shown.
    result = capture_checks("950", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message
    assert "1 GPU shown" in result.message


def test_laptop_gpu_settles_the_only_gpu() -> None:
    # 1270: `nvidia-container-cli info` (an excerpt) names a GTX 1660 Ti with Max-Q Design: a laptop's one GPU.
    result = capture_checks("1270", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "laptop" in result.message, result.message
    assert result.coverage is None


def test_vm_excerpt_beside_a_longer_device_list_stays_open() -> None:
    # 601: the table is cut after GPU 0, and JAX's device list in the same paste shows four GPUs.
    result = capture_checks("601", "FW-VM")["FW-VM"]
    assert result.status == "unknown" and "4 GPUs" in result.message, result.message


# Modelled on corpus 507: a cloud VM's table cut inside GPU 0's rows, then the engine's TP 2 on the command line.
VM_ONE_ROW_TP2 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 515.105.01   Driver Version: 515.105.01   CUDA Version: 11.7     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:1E.0 Off |                    0 |
"""


def test_vm_excerpt_of_one_gpu_with_a_wider_engine_stays_open(tmp_path: Path) -> None:
    text = VM_ONE_ROW_TP2 + "\nvllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n"
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status == "unknown" and "TP x PP is 2" in result.message, result.message


def test_modelled_vm_excerpt_of_one_gpu(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VM_ONE_ROW_TP2, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message


def test_vmware_guest_whose_kernel_log_names_one_gpu() -> None:
    # 656: `NVRM: GPU 0000:13:00.0: RmInitAdapter failed!` names the guest's one GPU (facts/gpu_events.nvrm_gpu_bdfs).
    from stackaudit.facts.gpu_events import nvrm_gpu_bdfs

    assert nvrm_gpu_bdfs(["Feb 09 15:47:06 debian kernel: NVRM: GPU 0000:13:00.0: RmInitAdapter failed! (0x26:0x56:1463)",
                          "Feb 09 15:47:06 debian kernel: NVRM: GPU 0000:13:00.0: rm_init_adapter failed, device minor "
                          "number 0"]) == ("0000:13:00.0",)
    result = capture_checks("656", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message
    assert result.coverage is not None and result.coverage.text() == "1 GPU shown"


# --- WSL 2 with a Linux driver's own library beside WSL's (h101a) ---------------------------------------------------

# Modelled on corpus 2250's log (NixOS/nixpkgs#389898): ollama's discovery under WSL 2, with the Linux driver's
# library reported missing (the package removed), or not there at all.
_WSL_ONLY = ('time=2025-03-14T19:04:56.792Z level=INFO source=gpu.go:602 msg="no nvidia devices detected by library '
             '/usr/lib/wsl/lib/libcuda.so.1"\n')
_LINUX_MISSING = ('time=2025-03-14T19:04:56.786Z level=INFO source=gpu.go:612 msg="Unable to load cudart library '
                  '/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01: cannot open shared object file"\n')


def test_wsl_library_line_of_a_linux_driver_is_a_linux_driver_inside_wsl() -> None:
    line = ('msg="no nvidia devices detected by library /usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"')
    said = wsl_foreign_library(None, None, line)
    assert "libcuda.so.535.183.01" in said and "R535" in said and "/usr/lib/x86_64-linux-gnu" in said
    assert wsl_foreign_library(None, None, "/usr/lib/wsl/lib/libcuda.so.1.1") == ""  # WSL's own, unversioned
    assert wsl_foreign_library(None, None, "/usr/lib/wsl/lib/libcuda.so.1") == ""
    assert wsl_foreign_library("565.57.02", "566.03", "") == ""


def test_2250_wsl2_with_a_linux_libcuda_beside_wsls_is_an_issue() -> None:
    """Corpus 2250 (both readers): ollama under WSL 2 probes /usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01 beside
    /usr/lib/wsl/lib's libcuda, finds no device through any, and the driver store's libcuda fails with 500."""
    result = capture_checks("2250", "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "libcuda.so.535.183.01" in result.message and "R535" in result.message, result.message


def test_wsl2_with_only_wsls_libraries_keeps_its_reading() -> None:
    """Corpus 1916 (ollama/ollama#2012): WSL 2 whose log names only /usr/lib/wsl's libnvidia-ml (the user's words name
    the Linux one they removed, with no path): one GPU, not an issue."""
    from corpus import body, fact, pasted

    assert fact(pasted(body("1916")), "virtualization").linux_library == ""
    assert capture_checks("1916", "FW-VM")["FW-VM"].status == "not-an-issue"


def test_a_linux_driver_library_outside_wsl_names_no_vm() -> None:
    """Corpus 2107 (a Linux host, ollama's `no nvidia devices detected by library /usr/lib64/libcuda.so.550.144.03`):
    no WSL library beside it, so no VM is read from it (its ollama, splitting by layers, loses nothing to a VM
    either way: not an issue, h122c)."""
    from corpus import fact, pasted
    from stackaudit.engine.collect import Missing

    assert isinstance(fact(pasted(body("2107")), "virtualization"), Missing)
    assert capture_checks("2107", "FW-VM")["FW-VM"].status == "not-an-issue"


@pytest.mark.parametrize("extra", ["", _LINUX_MISSING])
def test_modelled_wsl_log_without_a_linux_library_loaded_is_no_foreign_library(tmp_path: Path, extra: str) -> None:
    result = paste_checks(tmp_path, extra + _WSL_ONLY, "FW-VM")["FW-VM"]
    assert "Linux driver" not in result.message, result.message
    assert result.status != "issue", result.message


def test_modelled_wsl_log_with_a_linux_library_loaded_is_an_issue(tmp_path: Path) -> None:
    loaded = ('time=2025-03-14T19:04:56.786Z level=INFO source=gpu.go:602 msg="no nvidia devices detected by library '
              '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14"\n')
    result = paste_checks(tmp_path, loaded + _WSL_ONLY, "FW-VM")["FW-VM"]
    assert result.status == "issue" and "R550" in result.message, result.message


def test_2250_a_linux_libcuda_beside_wsls_names_no_driver() -> None:
    """Corpus 2250 (both readers: DRV-CUDA-COMPAT unknown): under WSL 2 the Windows driver runs the GPU, so the Linux
    package's libcuda.so.535.183.01 beside WSL's mount names no driver in use (nvidia.libcuda_versions)."""
    from corpus import body, fact, pasted
    from stackaudit.engine.collect import Missing

    assert isinstance(fact(pasted(body("2250")), "nvidia_driver"), Missing)
    result = capture_checks("2250", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "unknown" and "535.183.01" not in result.message, result.message


def test_a_linux_libcuda_outside_wsl_still_names_the_driver(tmp_path: Path) -> None:
    """Corpus 2107 (a Linux host whose ollama names /usr/lib64/libcuda.so.550.144.03) and 2250's Linux line modelled
    without WSL's: the library's version is the driver's."""
    from corpus import body, fact, pasted

    assert fact(pasted(body("2107")), "nvidia_driver").version == "550.144.03"
    line = ('time=2025-03-14T19:04:56.786Z level=INFO source=gpu.go:602 msg="no nvidia devices detected by library '
            '/usr/lib/x86_64-linux-gnu/libcuda.so.535.183.01"\n')
    assert fact(pasted(line), "nvidia_driver").version == "535.183.01"
    assert getattr(fact(pasted(line + _WSL_ONLY), "nvidia_driver"), "version", None) is None


# --- WSL named beside CUDA, and a Linux driver's package installed in its distro (h103c) -----------------------------

@pytest.mark.parametrize("line", [
    # Corpus 2337 (NVIDIA/nvidia-docker#1551).
    "I install WSL ubuntu18.04, Docker Desktop for windows, CUDA Toolkit and nvidia-docker2 to prepare environment.",
    # Modelled.
    "Running ollama in WSL with my GPU.",
    # Corpus 2705 (NVIDIA/nccl#442): NCCL, CUDA's collectives library, set up in WSL.
    "I've installed NCCL and its tests on WSL. When trying to run a test like this:",
])
def test_wsl_named_beside_cuda_is_wsl2(line: str) -> None:
    words = platform_words(line)
    assert words is not None and words.wsl and words.vm == "microsoft"


@pytest.mark.parametrize("line", [
    "I tried WSL 1 with CUDA first.",  # WSL 1 has no GPU
    "I use WSL for git and the CUDA box for training, not in WSL.",  # a negation: a comparison
    "Does CUDA work in WSL?",  # a question
    "I also have WSL installed on this laptop.",  # no GPU stack named
    "I run NCCL on the Linux cluster, not in WSL.",  # NCCL placed elsewhere: a negation
])
def test_other_wsl_mentions_state_no_wsl2(line: str) -> None:
    words = platform_words(line)
    assert words is None or not words.wsl


def test_2337_a_linux_driver_package_in_the_wsl_distro_is_an_issue() -> None:
    """Corpus 2337 (both readers): WSL 2 with libnvidia-compute-470 470.57.02 installed (`ii` in `dpkg -l`)."""
    result = capture_checks("2337", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "libnvidia-compute-470" in result.message


def test_a_driver_package_row_on_bare_linux_names_no_vm() -> None:
    """Corpus 1066 (its header names the thread): `ii  nvidia-driver-570 ...` on a Linux server, no WSL."""
    result = capture_checks("1066", "FW-VM")["FW-VM"]
    assert result.status != "issue"


def test_modelled_2337_without_the_package_rows_is_no_foreign_library(tmp_path: Path) -> None:
    """Modelled: corpus 2337 with its `dpkg -l` rows of installed 470 packages marked removed (`rc`)."""
    text = body("2337").replace("ii  libnvidia-", "rc  libnvidia-")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert "package" not in result.message


# --- The nvidia-smi header's library version as a list's item (h118a) --------------------------------------------------

def test_2706_a_listed_nvidia_smi_library_of_another_branch_is_a_linux_driver_inside_wsl() -> None:
    """Corpus 2706 (both readers): `- NVIDIA-SMI: 535.309.01` over `- Windows Driver Version: 610.47` under WSL 2; the
    list's `- CUDA Version: 13.3` under it is the driver's figure, not the runtime's (DRV-CUDA-COMPAT stays open)."""
    results = capture_checks("2706", "FW-VM", "DRV-CUDA-COMPAT")
    assert results["FW-VM"].status == "issue", results["FW-VM"].message
    assert "R535" in results["FW-VM"].message and "R610" in results["FW-VM"].message
    assert results["DRV-CUDA-COMPAT"].status == "unknown", results["DRV-CUDA-COMPAT"].message


def test_1016_nvidia_smi_versions_own_block_names_no_wsl_library() -> None:
    """Corpus 1016: `nvidia-smi --version`'s `NVIDIA-SMI version  : 580.95.05` over the same `DRIVER version`: one
    version, no WSL 2 and no library of another branch."""
    from corpus import fact, pasted

    driver = fact(pasted(body("1016")), "nvidia_driver")
    assert driver.version == "580.95.05" and driver.smi_version in (None, "580.95.05")
    assert capture_checks("1016", "FW-VM")["FW-VM"].status != "issue"


def test_modelled_a_listed_nvidia_smi_of_the_drivers_branch_is_wsls_own(tmp_path: Path) -> None:
    """Modelled: the same list, with the library of the Windows driver's branch (R610 over R610): no foreign library."""
    text = ("- WSL Version: 2.7.3.0\n- Windows Driver Version: 610.47\n- NVIDIA-SMI: 610.43.01\n"
            "- CUDA Version: 13.3\nCUDA is completely inaccessible from within WSL2.\n")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert "Linux driver package" not in result.message, result.message


# --- WSL 2's paravirtualisation failing the workload: dxgkrnl's refused allocations, NVML blocked (h118a) -------------

def test_2714_dxgkrnl_refusing_residency_is_an_fw_vm_issue() -> None:
    """Corpus 2714 (both readers): `misc dxg: dxgk: dxgkio_make_resident: Ioctl failed: -12` beside CUDA's `device not
    ready` on a two-GPU server under WSL 2."""
    from corpus import symptom_names

    assert "wsl-dxg-allocation" in symptom_names(body("2714"))
    result = capture_checks("2714", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "dxgkrnl" in result.message, result.message


def test_2706_dxgkrnl_adapter_queries_at_boot_are_no_allocation_failure() -> None:
    """Corpus 2706: `dxgkio_query_adapter_info: Ioctl failed: -2` at boot, which healthy WSL 2 VMs log too."""
    from corpus import symptom_names

    assert "wsl-dxg-allocation" not in symptom_names(body("2706"))


def test_2713_nvml_blocked_under_wsl2_is_an_fw_vm_issue() -> None:
    """Corpus 2713 (both readers): WSL 2 (its kernel) where nvidia-smi answers `Failed to initialize NVML: GPU access
    blocked by the operating system` (an L40S in Data Center mode on Windows Server 2025)."""
    result = capture_checks("2713", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "blocks GPU access" in result.message, result.message


def test_modelled_nvml_blocked_on_a_linux_host_is_no_fw_vm_issue(tmp_path: Path) -> None:
    """Modelled: the same NVML answer in a container on a Linux host (no WSL shown): the line alone proves no VM."""
    text = ("$ docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
            "Failed to initialize NVML: GPU access blocked by the operating system\n")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status != "issue", result.message


def test_2705_nccl_in_wsl_without_a_pci_path_is_an_fw_vm_issue() -> None:
    """Corpus 2705 (both readers): NCCL set up in WSL finds no sysfs PCI path for its GPU and fails its init."""
    result = capture_checks("2705", "FW-VM")["FW-VM"]
    assert result.status == "issue" and "no PCI path" in result.message, result.message
