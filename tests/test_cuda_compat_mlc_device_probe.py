"""DRV-CUDA-COMPAT from MLC LLM's device probe (facts/cuda_ran.py MLC_CUDA_FOUND).

mlc_llm/support/auto_device.py logs `Found device: cuda:N` where the device's `exist` attribute answered through the
CUDA runtime of MLC's TVM build (cudaDeviceGetAttribute). A driver too old for that runtime answers error 35, and the
probe logs `Not found device: cuda:0` instead. So a found CUDA device shows the runtime MLC ships running on the driver
(ok). `Not found device: cuda:0` shows nothing.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import ran_in_lines

COMPAT = "DRV-CUDA-COMPAT"

# Real: https://github.com/mlc-ai/mlc-llm/issues/3214 (the issue body, `mlc_llm serve` on CUDA), its probe as posted,
# under a driver line modelled here (the thread shows none).
MLC_3214 = """\
Driver Version: 550.54.14
[2025-04-26 20:56:02] INFO auto_device.py:79: Found device: cuda:0
[2025-04-26 20:56:03] INFO auto_device.py:90: Not found device: rocm:0
[2025-04-26 20:56:04] INFO auto_device.py:90: Not found device: metal:0
[2025-04-26 20:56:05] INFO auto_device.py:35: Using device: cuda:0
"""

# Real: https://github.com/mlc-ai/mlc-llm/issues/2758 (the issue body: no device found, every backend probed).
MLC_2758 = """\
INFO auto_device.py:88: Not found device: cuda:0
INFO auto_device.py:88: Not found device: rocm:0
INFO auto_device.py:88: Not found device: metal:0
INFO auto_device.py:88: Not found device: vulkan:0
INFO auto_device.py:88: Not found device: opencl:0
INFO auto_device.py:33: Not found: No available device detected
"""


def test_the_probe_finding_cuda_devices_is_ok() -> None:
    # Corpus 1675 (mlc-ai/mlc-llm#1324): cuda:0 and cuda:1 found, driver 535.129.03 in a cut nvidia-smi.
    result = capture_checks("1675", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "MLC LLM" in result.message and "535.129.03" in result.message


def test_the_serve_log_form_is_read(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MLC_3214, COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "cuda:0" in result.evidence[0]


def test_no_device_found_shows_nothing() -> None:
    assert ran_in_lines(MLC_2758.splitlines()) == ()
    # Modelled: another backend found is no CUDA runtime at work.
    assert ran_in_lines(["INFO auto_device.py:79: Found device: vulkan:0", "Found device: cuda:0 (cached)"]) == ()
