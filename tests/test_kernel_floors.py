"""RT-TORCH-ARCH: a kernel library an engine runs by default has its own architecture floor (KERNEL_FLOORS).

Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from corpus import body, pasted
from stackaudit.engine.testing import run_checks

# https://github.com/sgl-project/sglang/issues/931 (SGLang's check_env, the head of it)
T4_CHECK_ENV = """```Shell
Python: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0]
CUDA available: True
GPU 0: Tesla T4
CUDA_HOME: /usr/local/cuda-12.6
NVCC: Cuda compilation tools, release 12.6, V12.6.20
CUDA Driver Version: 535.54.03
PyTorch: 2.3.1+cu121
sglang: 0.2.10
flashinfer: 0.1.3
triton: 2.3.1
requests: 2.32.3
tqdm: 4.66.4
numpy: 1.26.4
```
"""


def _torch_arch(text: str) -> tuple[str, str]:
    r = run_checks(pasted(text), ["RT-TORCH-ARCH"])["RT-TORCH-ARCH"]
    return r.status, r.message


def test_flashinfer_before_0_1_6_on_turing_under_sglang() -> None:
    # Corpus 265 (sgl-project/sglang#748): ten RTX 2080 Ti, sglang 0.2.0, flashinfer 0.1.1.
    status, message = _torch_arch(body("265"))
    assert status == "issue" and "flashinfer 0.1.1" in message and "RTX 2080 Ti (Turing)" in message
    # sgl-project/sglang#931: one Tesla T4, sglang 0.2.10, flashinfer 0.1.3.
    status, message = _torch_arch(T4_CHECK_ENV)
    assert status == "issue" and "Tesla T4 (Turing)" in message


def test_flashinfer_with_turing_kernels_is_not_below_the_floor() -> None:
    # Modelled: the T4 report with flashinfer 0.1.6, the first release with sm_75 kernels.
    status, message = _torch_arch(T4_CHECK_ENV.replace("flashinfer: 0.1.3", "flashinfer: 0.1.6"))
    assert status != "issue" and "flashinfer" not in message


def test_the_floor_is_the_architectures_not_the_versions() -> None:
    # Modelled: the same report on an A100 (Ampere): flashinfer 0.1.3 has its kernels.
    status, message = _torch_arch(T4_CHECK_ENV.replace("GPU 0: Tesla T4", "GPU 0: NVIDIA A100-SXM4-80GB"))
    assert status != "issue" and "flashinfer" not in message


def test_without_the_engine_that_runs_it_the_library_is_not_judged() -> None:
    # Modelled: flashinfer 0.1.3 installed with no SGLang: which backend the engine uses is not shown.
    _, message = _torch_arch(T4_CHECK_ENV.replace("sglang: 0.2.10\n", ""))
    assert "flashinfer" not in message


def test_check_env_names_its_packages_and_the_jit_toolkit() -> None:
    # SGLang's check_env prints `name: version` per package (`flashinfer_python` in newer ones) and CUDA_HOME's nvcc.
    from corpus import fact
    from stackaudit.facts.python_env import PythonEnv

    for text, package, version, home, nvcc in (
        (body("265"), "flashinfer", "0.1.1+cu121torch2.3", "/usr/local/cuda", "12.4"),  # sgl-project/sglang#748
        (T4_CHECK_ENV, "flashinfer", "0.1.3", "/usr/local/cuda-12.6", "12.6"),  # sgl-project/sglang#931
        (body("212"), "flashinfer-python", "0.2.9rc2", "/usr/local/cuda", "12.4"),
    ):
        env = fact(pasted(text), "python_env")
        assert isinstance(env, PythonEnv)
        e = env.environments[0]
        assert e.version(package) == version
        assert (e.cuda_home, e.cuda_home_version) == (home, nvcc)
