"""Issue 28, a failure in a log proves itself: the start-up check of NVIDIA's NGC images names the driver the image was
built for and, where the host's is older with no forward-compatibility path, says so (facts/symptoms.py
`ngc-driver-too-old`); the driver release it names gives the image's CUDA (facts/docker.NGC_CHECK's built-for row)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.cuda_ran import runtime_in_line
from stackaudit.facts.docker import NGC_CHECK, NGC_CHECK_LINE
from stackaudit.facts.symptoms import find_symptoms

# Real: https://github.com/NVIDIA/nvidia-docker/issues/1479 (the issue body, nvcr.io/nvidia/tensorrt:20.07.1-py3).
TENSORRT_2007 = """\
ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but
       version 440.33.01 was detected and compatibility mode is UNAVAILABLE.

       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]
"""

# Real: https://github.com/hiyouga/LlamaFactory/issues/5962 (the issue body, one line as the user pasted it).
LLAMAFACTORY = ("This container was built for NVIDIA Driver Release 545.23 or later, butversion 535.104.05 was detected "
                "and compatibility mode is UNAVAILABLE\n")

# Modelled on the same check's other outcome: forward compatibility in use on a data-center GPU.
FORWARD_COMPAT = """\
WARNING: This container was built for NVIDIA Driver Release 535.86 or later, but
         version 470.199.02 was detected and forward compatibility has been enabled in this container.
"""


def test_the_check_refusing_the_host_driver_is_the_issue(tmp_path: Path) -> None:
    for text in (TENSORRT_2007, LLAMAFACTORY):
        checks = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT", "CTR-GPU-ACCESS")
        assert checks["DRV-CUDA-COMPAT"].status == "issue", checks["DRV-CUDA-COMPAT"].message
        assert "compatibility mode is UNAVAILABLE" in checks["DRV-CUDA-COMPAT"].message
        # The check ran in the container and read the host driver: the driver is exposed.
        assert checks["CTR-GPU-ACCESS"].status == "not-an-issue"


def test_forward_compatibility_enabled_is_no_such_failure(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, FORWARD_COMPAT, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert "compatibility mode is UNAVAILABLE" not in result.message


def test_the_built_for_release_names_the_images_cuda() -> None:
    runtime = runtime_in_line("ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but")
    assert runtime is not None and runtime.cuda == "12.2" and "535.86" in runtime.where
    older = runtime_in_line("This container was built for NVIDIA Driver Release 450.51 or later")
    assert older is not None and older.cuda == "11.0"


def test_the_tensorrt_llm_thread() -> None:
    # Real: https://github.com/NVIDIA/TensorRT-LLM/issues/23, corpus 1189 (the maintainer: upgrade to >= 535.86).
    checks = capture_checks("1189", "DRV-CUDA-COMPAT", "CTR-GPU-ACCESS")
    assert checks["DRV-CUDA-COMPAT"].status == "issue"
    assert checks["CTR-GPU-ACCESS"].status == "not-an-issue"


def test_one_table_reads_every_line_of_the_check() -> None:
    """facts/docker.NGC_CHECK: every line of the check is a check line (cuda_ran's ngc_checks, the evidence reader),
    its full lines are the symptoms' (too-old, not-detected), and the banner is no line of the check."""
    lines = [*TENSORRT_2007.splitlines()[:2], FORWARD_COMPAT.splitlines()[0],
             "WARNING: CUDA Minor Version Compatibility mode ENABLED.",  # corpus
             "> ERROR: This container was built for NVIDIA Driver Release 410 or later, but",  # corpus: no minor
             "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
             "Failed to detect NVIDIA driver version."]
    assert all(NGC_CHECK_LINE.search(line) for line in lines)
    assert not NGC_CHECK_LINE.search("NVIDIA Release 23.10 (build 71422337)")  # modelled: the start banner
    assert NGC_CHECK["built-for"][1].search(lines[4]) is None  # no minor: no branch to read a CUDA from
    names = {h.symptom.name for h in find_symptoms(lines)}
    assert {"ngc-driver-too-old", "ngc-driver-not-detected"} <= names


# Real: the minor-version warning of NVIDIA's entrypoint as pasted in public repositories (an NGC PyTorch image on
# driver 530.41.03; Triton 26.01 on 580.95.05, its lines rewrapped by the user) and corpus 1864 (Triton 22.04 on 495).
MINOR_12 = """\
WARNING: CUDA Minor Version Compatibility mode ENABLED.
  Using driver version 530.41.03 which has support for CUDA 12.1.  This container
  was built with CUDA 12.2 and will be run in Minor Version Compatibility mode.
  CUDA Forward Compatibility is preferred over Minor Version Compatibility for use
  with this container but was unavailable:
  [[System has unsupported display driver / cuda driver combination (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) cuInit()=803]]
"""
MINOR_13 = """\
WARNING: CUDA Minor Version Compatibility mode ENABLED.
Using driver version 580.95.05 which has support for CUDA 13.0.
This container was built with CUDA 13.1 and will be run in Minor Version Compatibility mode.
"""
# Modelled: a driver below its major's floor (CUDA 12 needs 525.60.13), which the entrypoint would not print so; and
# a warning cut before the line naming the image's CUDA.
MINOR_BELOW_FLOOR = MINOR_12.replace("530.41.03", "520.61.05")
MINOR_CUT = "\n".join(MINOR_12.splitlines()[:2]) + "\n"


def test_the_minor_version_warning_is_no_issue(tmp_path: Path) -> None:
    for text, driver in ((MINOR_12, "530.41.03"), (MINOR_13, "580.95.05")):
        result = paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
        assert result.status == "not-an-issue", result.message
        assert driver in result.message and "minor-version compatibility" in result.message
    for text in (MINOR_BELOW_FLOOR, MINOR_CUT):
        assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "not-an-issue"
    assert capture_checks("1864", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "not-an-issue"


# Real: the same warning quoting the entrypoint's forward-compatibility probe that failed with 804, from
# https://github.com/triton-inference-server/server/issues/5197 (Triton 22.12 on driver 510.47.03, corpus 2086) and a
# public Dockerfile's comment (an NGC image on driver 510.108.03). The probe's 804 is the entrypoint's, which then
# runs the image without the compat libraries (facts/symptoms.NGC_MINOR_FALLBACK).
PROBE_804 = ("  [[Forward compatibility was attempted on non supported HW (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE) "
             "cuInit()=804]]")
MINOR_11_804 = """\
WARNING: CUDA Minor Version Compatibility mode ENABLED.
  Using driver version 510.47.03 which has support for CUDA 11.6.  This container
  was built with CUDA 11.8 and will be run in Minor Version Compatibility mode.
  CUDA Forward Compatibility is preferred over Minor Version Compatibility for use
  with this container but was unavailable:
""" + PROBE_804 + "\n"
MINOR_11_804_108 = MINOR_11_804.replace("510.47.03", "510.108.03")


def test_the_minor_warnings_own_804_probe_is_no_failure(tmp_path: Path) -> None:
    for text in (MINOR_11_804, MINOR_11_804_108):
        assert "cuda-compat-unsupported-hw" not in {h.symptom.name for h in find_symptoms(text.splitlines())}
    result = paste_checks(tmp_path, MINOR_11_804, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "not-an-issue", result.message
    # Modelled counter-examples: the probe's line without the minor-version warning, and a program's own 804 under the
    # forward-compatibility NOTE (the compat libraries loaded), stay the failure.
    for lines in ([PROBE_804], ["NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED.",
                                "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW"]):
        assert "cuda-compat-unsupported-hw" in {h.symptom.name for h in find_symptoms(lines)}
