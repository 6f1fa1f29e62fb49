"""Issue 28, a failure in a log proves itself: the start-up check of NVIDIA's NGC images names the driver the image was
built for and, where the host's is older with no forward-compatibility path, says so (facts/symptoms.py
`ngc-driver-too-old`); the driver release it names gives the image's CUDA (facts/docker.NGC_CHECK's built-for row)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.cuda_ran import runtime_in_line
from stackaudit.facts.docker import NGC_CHECK, NGC_CHECK_LINE, NGC_RELEASE_CUDA, ngc_driver_found
from stackaudit.facts.nvidia import driver_from_ngc_check
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


# Real lines of the check naming the host driver it read, each from its own thread: nvidia-docker#1479 (440.33.01),
# LlamaFactory#5962 (535.104.05, the user's `butversion`), the minor-version warnings above (530.41.03, 580.95.05),
# triton-inference-server/server#5197 (510.47.03), and the ERROR of server#139 (corpus 1684, 396.26).
DRIVER_LINES = {
    TENSORRT_2007.splitlines()[1]: "440.33.01",
    LLAMAFACTORY: "535.104.05",
    MINOR_12.splitlines()[1]: "530.41.03",
    MINOR_13.splitlines()[1]: "580.95.05",
    MINOR_11_804.splitlines()[1]: "510.47.03",
    ">        version 396.26 was detected and compatibility mode is UNAVAILABLE.": "396.26",
}
# Lines that name no host driver: a check that read none (modelled on fauxpilot's log, `version  was detected`), the
# forward-compatibility NOTE, whose first version is the image's compatibility library (real, an NGC Triton 23.12
# log: the kernel driver is the second), and the modelled forward-compatibility WARNING above.
NO_DRIVER_LINES = (
    "       version  was detected and compatibility mode is UNAVAILABLE.",
    "  Using CUDA 12.3 driver version 545.23.08 with kernel driver version 470.256.02.",
    FORWARD_COMPAT.splitlines()[1],
)


def test_the_check_names_the_host_driver_it_read() -> None:
    assert {line: ngc_driver_found(line) for line in DRIVER_LINES} == DRIVER_LINES
    assert not any(ngc_driver_found(line) for line in NO_DRIVER_LINES)
    found = driver_from_ngc_check(MINOR_11_804)
    assert (found.version, found.flavour, found.loaded) == ("510.47.03", None, True)
    with pytest.raises(ParseError):  # two checks naming two drivers name none
        driver_from_ngc_check(TENSORRT_2007 + MINOR_12)


def test_a_driver_before_r515_found_by_the_check_has_only_the_proprietary_module(tmp_path: Path) -> None:
    # The check read driver 510.47.03 (server#5197) or 495.29.05 (server#4406, corpus 1864): no open flavour exists.
    result = paste_checks(tmp_path, MINOR_11_804, "DRV-OPEN-MODULE", "DRV-CUDA-COMPAT")
    assert result["DRV-OPEN-MODULE"].status == "not-an-issue", result["DRV-OPEN-MODULE"].message
    assert "510.47.03" in result["DRV-OPEN-MODULE"].message
    assert result["DRV-CUDA-COMPAT"].status == "not-an-issue"  # the driver it names is the warning's own
    # Counter-example (modelled): R530 has the open flavour, and the warning does not say which is loaded.
    assert paste_checks(tmp_path, MINOR_12, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"].status == "unknown"


# Real, shortened (one copyright line left out): the NGC Triton 22.04 banner of triton-inference-server/server#6265
# (corpus 2102), the server's log after it.
BANNER_2204 = """\
=============================
== Triton Inference Server ==
=============================

NVIDIA Release 22.04 (build 36821869)
Triton Server Version 2.21.0

Copyright (c) 2018-2022, NVIDIA CORPORATION & AFFILIATES.  All rights reserved.

This container image and its contents are governed by the NVIDIA Deep Learning Container License.
By pulling and using the container, you accept the terms and conditions of this license:
https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license
"""
SERVER_LOG = "I0905 02:23:16.996647 1 libtorch.cc:1381] TRITONBACKEND_Initialize: pytorch\n"


def test_a_whole_banner_with_no_line_of_the_check_passed_it(tmp_path: Path) -> None:
    assert NGC_RELEASE_CUDA["22.04"][:2] == ("11.6", "510")
    result = paste_checks(tmp_path, BANNER_2204 + "\n" + SERVER_LOG, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and "CUDA 11.6" in result.message, result.message
    # Counter-examples (modelled): the banner cut before the server's log, and a server's log pasted above a banner
    # that ends the paste, do not show the check's end.
    for text in (BANNER_2204, SERVER_LOG + BANNER_2204):
        assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


def test_the_release_rows_follow_the_release_notes() -> None:
    # Triton's notes: 24.06 CUDA 12.5.0.23, 25.08 CUDA 13.0.0.044, 25.12 CUDA 13.1.0.36, each "driver release 545"/"575".
    assert {r: NGC_RELEASE_CUDA[r][:2] for r in ("24.06", "25.08", "25.12")} == {
        "24.06": ("12.5", "545"), "25.08": ("13.0", "575"), "25.12": ("13.1", "575")}
