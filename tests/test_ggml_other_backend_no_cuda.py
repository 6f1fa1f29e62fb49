"""DRV-CUDA-COMPAT is not applicable where llama.cpp's device list offers the GPUs through another ggml backend only.

A build without ggml's CUDA backend (Vulkan, Metal, SYCL, OpenCL) loads no CUDA runtime, so no driver floor of one
applies (facts/applicability.no_cuda_runtime). A CUDA device or line beside it keeps the check open.
"""

from __future__ import annotations

from corpus import body, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts.applicability import no_cuda_runtime
from stackaudit.facts.serving_logs import parse_serving_log

# Modelled on corpus 1985's list: llama.cpp's `device_info:` rows, a Vulkan device and the CPU.
_VULKAN = """\
0.00.663.544 I   - Vulkan0 : NVIDIA GeForce RTX 5060 (7895 MiB, 7127 MiB free)
0.00.663.552 I   - CPU     : AMD Ryzen 7 7700X 8-Core Processor              (32374 MiB, 15485 MiB free)
"""


def test_vulkan_device_list_runs_no_cuda_runtime() -> None:
    """Corpus 1985 (ggml-org/llama-install.sh#20): the RTX 5060 is only `Vulkan0` in llama.cpp's device list."""
    host = pasted(body("1985"))
    assert fact(host, "serving_log").ggml_other_devices == ("Vulkan0",)
    r = run_checks(host, select=["DRV-CUDA-COMPAT"])["DRV-CUDA-COMPAT"]
    assert r.status == "not-applicable"
    assert "Vulkan0" in r.message


def test_cuda_beside_vulkan_keeps_the_check_open() -> None:
    """Modelled: a CUDA device in the same list, a Python environment, or another engine shown: a CUDA runtime may
    run."""
    both = parse_serving_log("0.00.663.540 I   - CUDA0   : NVIDIA GeForce RTX 3090 (24154 MiB, 23892 MiB free)\n"
                             "0.00.663.544 I   - Vulkan0 : NVIDIA GeForce RTX 5060 (7895 MiB, 7127 MiB free)\n")
    assert both.ggml_other_devices == ("Vulkan0",) and both.ggml_cuda_devices
    assert not no_cuda_runtime("DRV-CUDA-COMPAT", both, ("llamacpp",), False)
    vulkan = parse_serving_log(_VULKAN)
    assert vulkan.ggml_other_devices == ("Vulkan0",)
    assert no_cuda_runtime("DRV-CUDA-COMPAT", vulkan, ("llamacpp",), False)
    assert not no_cuda_runtime("DRV-CUDA-COMPAT", vulkan, ("llamacpp",), True)
    assert not no_cuda_runtime("DRV-CUDA-COMPAT", vulkan, ("llamacpp", "vllm"), False)
    assert not no_cuda_runtime("DRV-XID", vulkan, ("llamacpp",), False)
