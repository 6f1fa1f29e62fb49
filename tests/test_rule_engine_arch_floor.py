"""A GPU older than the engine's floor: vLLM ships no kernels before Volta (compute capability 7.0).

RT-KERNEL-ARCH says issue where the source shows vLLM (its collect_env report, a command line, a log, a
process) beside a GPU of an older architecture (checks/rt.py ENGINE_FLOORS); a GPU at or above the floor, or
CUDA_VISIBLE_DEVICES shown for the engine (which may leave the old GPU out), keeps the check's other verdicts.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

# https://github.com/vllm-project/vllm/issues/4500 (issue body by fxavier-maf, 2024-04-30), the start of it.
VLLM_4500_M60 = """\
### Your current environment

```text
The output of `python collect_env.py`
```
Collecting environment information...
PyTorch version: 2.2.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Amazon Linux 2 (x86_64)
GCC version: (GCC) 9.2.0
Clang version: Could not collect
CMake version: version 3.29.2
Libc version: glibc-2.26

Python version: 3.9.19 (main, Mar 21 2024, 17:11:28)  [GCC 11.2.0] (64-bit runtime)
Python platform: Linux-4.14.336-257.568.amzn2.x86_64-x86_64-with-glibc2.26
Is CUDA available: True
CUDA runtime version: 11.4.152
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: GPU 0: Tesla M60
Nvidia driver version: 550.54.17
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True
"""

# https://github.com/vllm-project/vllm/issues/8626 (issue body by Stargate256, 2024-09-19), the start of it.
VLLM_8626_P100 = """\
### Your current environment

```text
Collecting environment information...
PyTorch version: 2.3.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Debian GNU/Linux 12 (bookworm) (x86_64)
GCC version: (Debian 12.2.0-14) 12.2.0
Clang version: Could not collect
CMake version: version 3.25.1
Libc version: glibc-2.36

Python version: 3.11.2 (main, Mar 13 2023, 12:18:29) [GCC 12.2.0] (64-bit runtime)
Python platform: Linux-6.1.0-21-amd64-x86_64-with-glibc2.36
Is CUDA available: True
CUDA runtime version: 12.5.40
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration:<SP>
GPU 0: Tesla P100-PCIE-16GB
GPU 1: Tesla P100-PCIE-16GB

Nvidia driver version: 550.90.07
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True
```
""".replace("<SP>", " ")  # the report prints a space after the colon


def _issue(results: dict[str, object], *names: str) -> None:
    result = results["RT-KERNEL-ARCH"]
    assert result.status == "issue", result.message  # type: ignore[attr-defined]
    assert "below vLLM's floor, compute capability 7.0" in result.message  # type: ignore[attr-defined]
    for name in names:
        assert name in result.message  # type: ignore[attr-defined]


def test_mixed_a30_and_maxwell_quadro() -> None:
    # Corpus 403: https://github.com/vllm-project/vllm/issues/3639 (A30 beside a Quadro M2000), cut before its
    # vLLM lines: the head names no engine (PyTorch prints the same head), so vLLM's floor does not apply.
    assert capture_checks("403", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"].status != "issue"


# The heads above stop before the report's `vLLM Version:` line; PyTorch's own collect_env prints the same head,
# so they name no engine. The line the full reports carry is appended (modelled from vLLM's collect_env format).
VLLM_VERSION_LINE = "vLLM Version: 0.4.1\n"


def test_a_head_without_vllm_names_no_engine(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, VLLM_8626_P100, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status != "issue", result.message
    # Without vLLM's form line above it (`The output of `python collect_env.py``), vllm#4500's head names no engine
    # either; with it, the report is vLLM's (facts/collect_env.VLLM_FORM, corpus 2795).
    bare = VLLM_4500_M60.replace("```text\nThe output of `python collect_env.py`\n```\n", "")
    assert "The output of" not in bare
    result = paste_checks(tmp_path, bare, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status != "issue", result.message
    _issue(paste_checks(tmp_path, VLLM_4500_M60, "RT-KERNEL-ARCH"), "Tesla M60 (Maxwell)")


def test_maxwell_tesla_m60(tmp_path: Path) -> None:
    _issue(paste_checks(tmp_path, VLLM_4500_M60 + VLLM_VERSION_LINE, "RT-KERNEL-ARCH"), "Tesla M60 (Maxwell)")


def test_two_pascal_p100(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, VLLM_8626_P100.replace("```\n", "") + VLLM_VERSION_LINE, "RT-KERNEL-ARCH")
    _issue(results, "Tesla P100-PCIE-16GB (Pascal)")
    assert "can serve" not in results["RT-KERNEL-ARCH"].message


def test_modelled_turing_is_above_the_floor(tmp_path: Path) -> None:
    # Modelled (not from a thread): the same report on a Tesla T4 (Turing, 7.5).
    text = VLLM_8626_P100.replace("Tesla P100-PCIE-16GB", "Tesla T4").replace("```\n", "") + VLLM_VERSION_LINE
    assert paste_checks(tmp_path, text, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"].status == "unknown"


def test_modelled_visible_devices_may_leave_the_old_gpu_out(tmp_path: Path) -> None:
    # Modelled (not from a thread): the report's shell sets CUDA_VISIBLE_DEVICES, which may leave the M60 out.
    text = VLLM_4500_M60 + VLLM_VERSION_LINE + "\nEnvironment Variables\nCUDA_VISIBLE_DEVICES=0\n"
    result = paste_checks(tmp_path, text, "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status != "issue", result.message
