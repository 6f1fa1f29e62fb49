"""CTR-GPU-ACCESS over an image's own entrypoint that sees the NVIDIA GPU but not the driver's tools inside its
container (facts/symptoms.py `image-driver-tools-missing`): LocalAI's All-in-One images print `NVIDIA GPU detected,
but nvidia-smi is not installed` and fall back to the CPU. The image ships no nvidia-smi: the NVIDIA runtime mounts it
with the driver's libraries, so the runtime did not run for the container. An issue on its own, quoted, as the NGC
images' banner finding no driver is (tests/test_ctr_gpu_access_ngc_banner.py). The same script's line for an Intel
GPU is another vendor's and proves nothing here.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.symptoms import is_symptom

# Real: https://github.com/mudler/LocalAI/issues/2117 (corpus 1858), a k0s pod without `runtimeClassName: nvidia`,
# the fenced log as posted.
LOCALAI_2117 = """\
 ===> LocalAI All-in-One (AIO) container starting...
NVIDIA GPU detected
/aio/entrypoint.sh: line 52: nvidia-smi: command not found
NVIDIA GPU detected, but nvidia-smi is not installed. GPU acceleration will not be available.
GPU acceleration is not enabled or supported. Defaulting to CPU.
"""

# Real: https://github.com/mudler/LocalAI/issues/3184 (a maintainer's reply: the CPU AIO image on a machine with an
# Intel GPU), the first lines as posted, trailing blanks dropped.
LOCALAI_3184_INTEL = """\
===> LocalAI All-in-One (AIO) container starting...
Intel GPU detected
Intel GPU detected, but Intel GPU drivers are not installed. GPU acceleration will not be available.
GPU acceleration is not enabled or supported. Defaulting to CPU.
"""


def test_the_aio_entrypoint_without_nvidia_smi_is_the_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, LOCALAI_2117, "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "issue", result.message
    assert "no nvidia-smi inside its container" in result.message


def test_the_corpus_paste_is_read_and_judged() -> None:
    results = capture_checks("1858", "CTR-GPU-ACCESS", "DRV-CUDA-COMPAT", "RT-TORCH-ARCH", "CTR-SHM-SIZE")
    assert results["CTR-GPU-ACCESS"].status == "issue", results["CTR-GPU-ACCESS"].message
    # No driver version, GPU model or pod spec reaches the paste: the rest stays open.
    for check in ("DRV-CUDA-COMPAT", "RT-TORCH-ARCH", "CTR-SHM-SIZE"):
        assert results[check].status == "unknown", (check, results[check].message)


def test_the_intel_line_of_the_same_script_proves_nothing() -> None:
    assert [line for line in LOCALAI_3184_INTEL.splitlines() if is_symptom(line)] == []
    assert [line for line in LOCALAI_2117.splitlines() if is_symptom(line)] == [LOCALAI_2117.splitlines()[3]]
