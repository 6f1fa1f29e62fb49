"""DRV-CUDA-COMPAT from the NGC release an NGC framework container names (facts/docker.py `NGC_RELEASE_CUDA`,
`ngc_image_cuda`, `NGC_BANNER`; facts/cuda_ran.py `runtimes_in_line`).

NVIDIA's framework containers (PyTorch, TensorFlow, Triton, TensorRT, MXNet) share one CUDA per YY.MM release, which
the release notes state with the driver it requires. The release's tag (`nvcr.io/nvidia/tritonserver:20.03.1-py3`) or
the container's start banner (`NVIDIA Release 24.03 (build 86102893)`) names it.

Real pastes: corpus 1739 (triton-inference-server/server#2311: `tritonserver:20.03.1-py3` beside driver 440.64.00);
triton-inference-server/server#1838 (`nvcr.io/nvidia/tritonserver:20.06-py3`, nvidia-smi's header for driver 440.100
and the container's own start-up check); triton-inference-server/server#3773 (`docker run ... tritonserver:21.10-py3-sdk`
beside `Driver Version: 455.45.01`); NVIDIA/TensorRT-LLM#1413 (`tritonserver:24.03-trtllm-python-py3` and its banner,
a release the table does not hold).
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from gap_pastes import H100_BUS, nvidia_smi_table
from stackaudit.facts.cuda_ran import runtimes_in_line
from stackaudit.facts.docker import NGC_RELEASE_CUDA, image_cuda, ngc_image_cuda

COMPAT = "DRV-CUDA-COMPAT"
# triton-inference-server/server#1838, the issue body's lines.
TRITON_1838 = """**Output of nvidia-smi:**
NVIDIA-SMI 440.100      Driver Version: 440.100      CUDA Version: 10.2

**Triton Information**
nvcr.io/nvidia/tritonserver:20.06-py3
"""
TRITON_1838_CHECK = """**Output of the container:**
ERROR: This container was built for NVIDIA Driver Release 450.36 or later, but
       version 440.100 was detected and compatibility mode is UNAVAILABLE.
"""
# triton-inference-server/server#3773, the issue body's lines.
TRITON_3773 = """docker run -it --rm  --runtime=nvidia -v $(pwd):$(pwd) -w $(pwd) nvcr.io/nvidia/tritonserver:21.10-py3-sdk bash

**Machine Environment**

Driver Version: 455.45.01
"""
# NVIDIA/TensorRT-LLM#1413, the issue body's lines.
TRTLLM_1413 = ("docker run -it --gpus all nvcr.io/nvidia/tritonserver:24.03-trtllm-python-py3 bash\n",
               "NVIDIA Release 24.03 (build 86102893)\n")


def _table(driver: str, cuda: str) -> str:
    # Modelled: the default table of one GPU under the driver named.
    return "\n" + nvidia_smi_table("NVIDIA H100 80GB HBM3", H100_BUS, 700, 81559).replace(
        "570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8",
        f"{driver}             Driver Version: {driver}     CUDA Version: {cuda}")


def test_release_tags_name_their_release_cuda() -> None:
    assert [ngc_image_cuda("nvcr.io/nvidia/" + image) for image in (
        "tritonserver:20.03.1-py3", "tritonserver:24.06-trtllm-python-py3", "pytorch:25.02-py3",
        "tensorflow:20.03-tf1-py3", "tritonserver:21.10-py3-sdk", "tritonserver:25.08-vllm-python-py3")] == [
        "10.2", "12.5", "12.8", "10.2", "11.4", "13.0"]
    assert image_cuda("nvcr.io/nvidia/tritonserver:20.03.1-py3") == "10.2"
    # Each row names its CUDA, the driver the notes require and where the notes were read.
    assert all(cuda and driver and source.startswith("https://") for cuda, driver, source in NGC_RELEASE_CUDA.values())


def test_tags_outside_the_table_or_other_builds_name_none() -> None:
    # Modelled counter-examples: a release whose notes were not read, a CPU-only and a Jetson build, `latest`, an
    # image of the same name outside NGC's registry, an NGC image that is no framework container.
    for image in ("nvcr.io/nvidia/tritonserver:24.03-py3", "nvcr.io/nvidia/tritonserver:20.03-cpu-only-py3",
                  "nvcr.io/nvidia/tritonserver:24.06-py3-igpu", "nvcr.io/nvidia/pytorch:latest",
                  "tritonserver:20.03.1-py3", "nvcr.io/nvidia/driver:515-signed-ubuntu20.04",
                  "nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc7"):
        assert ngc_image_cuda(image) == "" and image_cuda(image) == "", image


def test_1739_triton_20_03_under_driver_440_is_ok() -> None:
    result = capture_checks("1739", COMPAT)[COMPAT]
    assert result.status == "ok" and "tritonserver:20.03.1-py3 (CUDA 10.2)" in result.message


def test_1838_a_triton_20_06_image_under_a_cuda_10_2_driver_is_not_ok(tmp_path: Path) -> None:
    runtimes = runtimes_in_line("nvcr.io/nvidia/tritonserver:20.06-py3")
    assert [(r.cuda, r.where) for r in runtimes] == [("11.0", "nvcr.io/nvidia/tritonserver:20.06-py3")]
    result = paste_checks(tmp_path, TRITON_1838, COMPAT)[COMPAT]
    assert result.status == "unknown" and "ships CUDA 11.0" in result.message
    # The container's own start-up check settles it.
    assert paste_checks(tmp_path, TRITON_1838 + TRITON_1838_CHECK, COMPAT)[COMPAT].status == "issue"


def test_3773_a_triton_sdk_image_newer_than_driver_455(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, TRITON_3773, COMPAT)[COMPAT]
    assert result.status == "unknown" and "21.10-py3-sdk ships CUDA 11.4" in result.message


def test_1413_a_release_outside_the_table_stays_unknown(tmp_path: Path) -> None:
    command, banner = TRTLLM_1413
    assert runtimes_in_line(command.strip()) == () and runtimes_in_line(banner.strip()) == ()
    # Modelled: the thread's A100 under a driver for CUDA 12.4.
    result = paste_checks(tmp_path, command + banner + _table("550.54.15", "12.4"), COMPAT)[COMPAT]
    assert result.status == "unknown" and "torch's CUDA version is not in this source" in result.message


def test_the_banner_names_its_release(tmp_path: Path) -> None:
    # Modelled: the banner of a 24.06 container, with a build number of the banner's form.
    banner = "NVIDIA Release 24.06 (build 96418977)"
    (runtime,) = runtimes_in_line(banner)
    assert runtime.cuda == "12.5" and "NGC release 24.06" in runtime.where and "545" in runtime.where
    assert paste_checks(tmp_path, banner + "\n" + _table("555.42.06", "12.5"), COMPAT)[COMPAT].status == "ok"
    result = paste_checks(tmp_path, banner + "\n" + _table("535.183.01", "12.2"), COMPAT)[COMPAT]
    assert result.status != "ok"


def test_rows_read_from_the_release_notes() -> None:
    # Each from its release's Driver Requirements (the table's pages): 19.12 CUDA 10.2.89, 21.03 11.2.1, 22.09 11.8.0,
    # 24.12 12.6.3, 25.06 12.9.1.
    assert [NGC_RELEASE_CUDA[r][0] for r in ("19.12", "21.03", "22.09", "24.12", "25.06")] == [
        "10.2", "11.2", "11.8", "12.6", "12.9"]
    assert "22.08" not in NGC_RELEASE_CUDA  # its notes were not read


def test_corpus_2106_ngc_2209_on_r515_is_minor_version_compatible() -> None:
    # triton-inference-server/server#4947: tritonserver:22.09-py3 (CUDA 11.8) on driver 515.65.01 (CUDA 11.7); the NGC
    # image requires only cuda>=9.0, and its entrypoint runs 11.8 on an 11.x driver by minor-version compatibility.
    result = capture_checks("2106", COMPAT)[COMPAT]
    assert result.status == "not-an-issue", result.message
    assert "22.09-py3 ships CUDA 11.8" in result.message


def test_an_ngc_image_of_a_newer_major_is_not_let_through(tmp_path: Path) -> None:
    # Modelled: the same run of a CUDA 12.1 release (23.05) on the CUDA 11.7 driver: no minor-version compatibility.
    text = "docker run --gpus=1 --rm nvcr.io/nvidia/tritonserver:23.05-py3 tritonserver\n" + _table("515.65.01", "11.7")
    result = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert result.status != "not-an-issue", result.message


def test_releases_24_09_and_23_02_name_their_cuda() -> None:
    # Issue 28 (h106d): corpus 2417 (`tritonserver:24.09-py3` and its banner, driver 560.35.03) and 2418 (compose's
    # `tritonserver:23.02-py3`, driver 535.154.05 in the user's words) are ok; 1639 names 23.02 as CUDA 12.0 too.
    assert image_cuda("nvcr.io/nvidia/tritonserver:24.09-py3") == "12.6"
    assert image_cuda("nvcr.io/nvidia/tritonserver:23.02-py3") == "12.0"
    for prefix in ("2417", "2418"):
        r = capture_checks(prefix, COMPAT)[COMPAT]
        assert r.status == "ok", (prefix, r.message)


def test_a_driver_below_the_releases_own_is_no_ok(tmp_path: Path) -> None:
    # Modelled counter-example: a GeForce host's 535 driver (CUDA 12.2) under the 24.09 image (CUDA 12.6).
    text = ("docker run --gpus all -it --rm nvcr.io/nvidia/tritonserver:24.09-py3 tritonserver --model-repository=/m\n\n"
            "- GPU driver version is **535.154.05**\n")
    r = paste_checks(tmp_path, text, COMPAT)[COMPAT]
    assert r.status != "ok", r.message
