"""GPU identity and applicability (issue 28, h83b): a Windows host from llama.cpp's `build: N (hash) with MSVC` line,
IC-P2P-FUNCTIONAL where the program sees one GPU, MEM-MIG over the MIG cells a cut table shows, DRV-OPEN-MODULE with
a GPU the open module left unopened, and the RTX PRO Blackwell boards NVIDIA's MIG user guide lists."""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, paste_checks
from stackaudit.facts.platform import windows_lines
from stackaudit.gputable import has_mig, nvgpu_jetson, without_mig

P2P = "IC-P2P-FUNCTIONAL"
PERSIST = "DRV-PERSISTENCE"
MIG = "MEM-MIG"
OPEN = "DRV-OPEN-MODULE"


def test_llama_cpp_build_line_with_msvc_is_a_windows_host() -> None:
    # ggml-org/llama.cpp#14826 (Vulkan on Windows 10), corpus 1825 (CUDA), and a `for Windows AMD64` target.
    for line in ("build: 5966 (14c28dfc) with MSVC 19.39.33523.0 for x64",
                 "build: 0 (unknown) with MSVC 19.44.35207.1 for x64",
                 "build: 6123 (79c1160b0) with MSVC 19.44.35213.0 for Windows AMD64",
                 "built with MSVC 19.40.33811.0 for"):  # ggml-org/llama.cpp#7752: the older words still read
        assert "llama.cpp built for Windows" in windows_lines(line), line
    # Modelled counter-examples: a Linux build prints its compiler and target, which name no Windows.
    assert windows_lines("build: 5730 (efd67c2a) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu") == ""
    assert windows_lines("build: 4771 (abcdef12) with clang version 19.1.7 for aarch64-unknown-linux-gnu") == ""


def test_windows_llama_server_one_gpu_1825() -> None:
    r = capture_checks("1825", PERSIST, P2P)
    assert r[PERSIST].status == "not-applicable" and "MSVC" in r[PERSIST].message
    assert r[P2P].status == "not-applicable" and "found 1 CUDA device" in r[P2P].message


_GGML = """ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found {n} CUDA devices:
{devices}
build: 5730 (efd67c2a) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu
"""


def test_p2p_not_applicable_only_where_the_program_sees_one_gpu(tmp_path: Path) -> None:
    one = _GGML.format(n=1, devices="  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes")
    r = paste_checks(tmp_path, one, P2P)[P2P]
    assert r.status == "not-applicable"
    # Modelled counter-example: two devices in the same list split the model's layers over a pair; it stays open.
    two = _GGML.format(n=2, devices="  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
                                    "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes")
    assert paste_checks(tmp_path, two, P2P)[P2P].status == "unknown"


_TABLE = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.05              Driver Version: 560.35.05      CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H200                    On  |   00000000:01:00.0 Off |                    0 |
| N/A   31C    P0             76W /  700W |     114MiB / 143771MiB |      0%      Default |
|                                         |                        |                  {mig0} |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA H200                    On  |   00000000:02:00.0 Off |                    0 |
| N/A   28C    P0             74W /  700W |     132MiB / 143771MiB |      0%      Default |
"""


def test_mig_cell_na_decides_for_its_gpu_when_the_next_is_cut_1826(tmp_path: Path) -> None:
    r = capture_checks("1826", MIG)[MIG]
    assert r.status == "not-applicable" and r.coverage is not None and r.coverage.text() == "1 of 8 GPUs shown"
    # Modelled: the same cut table without the user's count covers GPU 0 of the GPUs shown.
    cut = paste_checks(tmp_path, _TABLE.format(mig0="N/A"), MIG)[MIG]
    assert cut.status == "not-applicable" and "GPU 1" in cut.message
    # Modelled counter-example: GPU 0's cell reads Disabled, so the check reads the mode, not an absence.
    assert paste_checks(tmp_path, _TABLE.format(mig0="Disabled"), MIG)[MIG].status == "ok"


_OPEN = """cat /proc/driver/nvidia/version
NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  515.43.04  Release Build  (root@host)
GCC version:  gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)
$ nvidia-smi
{smi}
"""


def test_open_module_with_a_gpu_it_left_unopened_is_unknown_1823(tmp_path: Path) -> None:
    # NVIDIA/open-gpu-kernel-modules#259 (corpus 1823) and #246 (corpus 1787): open 515.43.04 loaded, nvidia-smi cannot
    # open the GPU, its model not named; #387: the same line on 520.61.05.
    assert capture_checks("1823", OPEN)[OPEN].status == "unknown"
    assert capture_checks("1787", OPEN)[OPEN].status == "unknown"
    lost = paste_checks(tmp_path, _OPEN.format(smi="Unable to determine the device handle for GPU 0000:0B:00.0: "
                                                   "Unknown Error"), OPEN)[OPEN]
    assert lost.status == "unknown" and "0000:0b:00.0" in lost.message.lower()


def test_rtx_pro_blackwell_boards_of_the_mig_guide_are_not_read_as_lacking_mig() -> None:
    # NVIDIA's MIG user guide, R610: RTX PRO 6000 (three editions), 5000 and 4500 Blackwell have MIG (corpus 1855).
    for name in ("NVIDIA RTX PRO 4500 Blackwell", "NVIDIA RTX PRO 5000 Blackwell",
                 "NVIDIA RTX PRO 6000 Blackwell Server Edition"):
        assert has_mig(name) is not False and without_mig(name) == "", name
    assert has_mig("NVIDIA GeForce RTX 5060 Ti") is False  # GeForce: none
    r = capture_checks("1855", MIG)[MIG]
    assert r.status == "ok" and "RTX PRO 4500 Blackwell" in r.message


# --- DRV-PERSISTENCE: a Jetson before Thor runs its GPU on the nvgpu driver, without persistence mode (h113a) -------


def test_a_jetsons_nvgpu_driver_has_no_persistence_mode_2521_2158(tmp_path: Path) -> None:
    # ollama's probe names the Xavier's GPU by its capability 7.2 (2521), a Jetson module's only.
    assert nvgpu_jetson("GPU of compute capability 7.2") and nvgpu_jetson("GPU of compute capability 8.7")
    r = capture_checks("2521", "DRV-PERSISTENCE")["DRV-PERSISTENCE"]
    assert r.status == "not-applicable" and "nvgpu" in r.message
    # Another thread (2158): llama-bench's `NVIDIA Tegra X2`.
    assert capture_checks("2158", "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "not-applicable"
    # Modelled: a discrete GPU's capability (8.6, 8.0), a Thor, and a discrete card stay open.
    for name in ("GPU of compute capability 8.6", "GPU of compute capability 8.0", "NVIDIA Jetson AGX Thor",
                 "NVIDIA GeForce RTX 3090"):
        assert not nvgpu_jetson(name), name
    text = body("2521").replace("Compute Capability 7.2", "Compute Capability 8.6")
    assert paste_checks(tmp_path, text, "DRV-PERSISTENCE")["DRV-PERSISTENCE"].status == "unknown"
