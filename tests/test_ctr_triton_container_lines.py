"""CTR-GPU-ACCESS over what Triton and the NGC image it ships in print inside their container.

- The NGC entrypoint's driver check (`ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but`,
  `version 440.100 was detected and compatibility mode is UNAVAILABLE.`) runs only inside the image's container: the
  paste shows a container (facts/container._ngc_check).
- Triton's metrics finding GPUs through NVML there (`found 2 GPUs supporting NVML metrics`, a paste may cut it after
  `NVML`) shows the GPU device nodes and the driver's NVML library reached the container: ok over those GPUs, whatever
  the driver check says of the driver's version (DRV-CUDA-COMPAT's). The check alone, with no NVML answer, stays the
  settled not-an-issue (tests/test_ngc_driver_check.py).
- Triton's CUDA memory manager creating its pool on a device (`CUDA memory pool is created on device 0 with size
  67108864`) is CUDA at work (facts/cuda_ran.py), unless the same log shows the manager failing after it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.cuda_ran import ran_in_lines


@pytest.mark.parametrize("prefix", ["1767", "1189", "1684"])
def test_the_ngc_driver_check_shows_its_container(prefix: str) -> None:
    """Real (triton-inference-server/server#1838, NVIDIA/TensorRT-LLM#23, triton-inference-server/server#139): the
    entrypoint's check is printed inside the image's container."""
    container = fact(pasted(body(prefix)), "container")
    assert isinstance(container, ContainerInfo) and container.in_container
    assert "NGC image's entrypoint" in container.evidence[0]


def test_tritons_nvml_inside_the_container_is_access() -> None:
    """Real (server#1838, corpus 1767): driver 440.100 fails the image's check, and Triton's NVML still finds 2 GPUs
    (its line cut after `NVML`): the GPUs reached the container; the driver's version is another check's."""
    result = capture_checks("1767", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok" and "found 2 GPU(s) through NVML" in result.message


@pytest.mark.parametrize("prefix", ["1189", "1684"])
def test_the_check_alone_stays_not_an_issue(prefix: str) -> None:
    """Real (TensorRT-LLM#23, server#139): no NVML answer is shown; the check found the driver, so the failure is its
    version: not-an-issue, as before."""
    assert capture_checks(prefix, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "not-an-issue"


def test_tritons_nvml_count_on_no_container_shown_decides_nothing(tmp_path: Path) -> None:
    """Modelled: Triton's NVML count with no container shown says nothing of a container's access."""
    text = "I0728 15:07:31.671315 1 metrics.cc:184] found 2 GPUs supporting NVML metrics\n"
    assert paste_checks(tmp_path, text, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status != "ok"


@pytest.mark.parametrize("prefix", ["1769", "1502"])
def test_tritons_cuda_pool_is_cuda_at_work(prefix: str) -> None:
    """Real (tensorrtllm_backend#129, server#8279): the pool line names the device CUDA allocated on."""
    ran = [r for r in ran_in_lines(body(prefix).splitlines()) if r.program == "Triton"]
    assert ran and ran[0].devices == (0,)


def test_a_pool_the_manager_then_fails_is_not() -> None:
    """Real (server#7955, corpus 1738): a vGPU guest refuses CUDA operations and the manager fails after its pool
    line (`Failed to finalize CUDA memory manager`): the line proves no working runtime."""
    assert not [r for r in ran_in_lines(body("1738").splitlines()) if r.program == "Triton"]


def test_the_pool_in_a_container_prompt_is_access() -> None:
    """Real (tensorrtllm_backend#129, corpus 1769): both ranks create their pools on devices 0 and 1 at a prompt whose
    host is a container's id: ok."""
    result = capture_checks("1769", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok" and "Triton created its CUDA memory pool" in result.message
