"""DRV-CUDA-COMPAT reads the CUDA runtime in use from every source that shows it (facts/cuda_ran.py `cuda_runtime`,
facts/docker.py `nvidia_image_cuda`, facts/nvidia.py STATED_DRIVER, facts/python_env.py STATED_VERSION and
STATED_TORCH_BUILD, facts/symptoms.py `cuda-driver-api-missing`).

Real pastes: corpus 1057 (NVIDIA/TensorRT-LLM#7364: the NGC TensorRT-LLM 1.1.0rc1 release image under driver
570.133.20), 1118 (a report's `nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader` rows and its
`torch=2.11.0+cu130`), 1145 (NVIDIA/gpu-operator: the validator image `cuda-sample:vectoradd-cuda10.2-ubi8` under
driver 450.80.02). Modelled text is marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.cuda_ran import CUDA_BANNER, cuda_runtime_in_evidence_lines, runtime_in_line
from stackaudit.facts.docker import image_cuda, nvidia_image_cuda
from stackaudit.facts.nvidia import driver_from_evidence_lines
from stackaudit.facts.python_env import python_env_from_stated_versions, release_cuda_major

COMPAT = "DRV-CUDA-COMPAT"
# Corpus 1145's lines, verbatim.
VALIDATOR = ("It's just that the nvidia-driver-validation pod (cuda-sample:vectoradd-cuda10.2-ubi8) is CrashLooping "
             "indefinitely with the following error\n")
# Corpus 1161's first line, verbatim but for its two trailing spaces.
UPGRADE = ("Hi! After upgrading from `lmsysorg/sglang:v0.4.6.post5-cu124` to `lmsysorg/sglang:v0.4.8-cu126`, I've "
           "noticed a **significant drop in generation speed** and GPU utilization on my setup with 2x4090 (48Gb each).\n")
SMI_450 = "| NVIDIA-SMI 450.80.02    Driver Version: 450.80.02    CUDA Version: 11.0     |\n"


def test_1145_the_validator_image_names_its_runtime() -> None:
    result = capture_checks("1145", COMPAT)[COMPAT]
    assert result.status == "ok" and "cuda-sample:vectoradd-cuda10.2-ubi8 (CUDA 10.2)" in result.message


def test_cuda_sample_and_cuda_images_name_their_runtime() -> None:
    assert nvidia_image_cuda("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda10.2-ubi8") == "10.2"
    assert nvidia_image_cuda("cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04") == "11.7"
    assert nvidia_image_cuda("nvcr.io/nvidia/k8s/cuda-sample:nbody") == ""  # names no CUDA
    # A tag written with `cuda` before the version (corpus 2075) names the same CUDA.
    assert nvidia_image_cuda("nvidia/cuda:cuda11.8.0-cudnn8-devel-ubuntu20.04") == "11.8"
    assert nvidia_image_cuda("nvidia/cuda:cudnn8-devel") == ""  # names no CUDA
    assert image_cuda("nvidia/cuda:12.8.0-devel-ubuntu22.04") == "12.8"
    # An engine image's suffix is the engine's torch (python_env reads it), not one of NVIDIA's CUDA images.
    assert nvidia_image_cuda("lmsysorg/sglang:v0.5.12-cu130") == "" and image_cuda("lmsysorg/sglang:v0.5.12-cu130")


def test_the_runtime_in_a_line() -> None:
    found = cuda_runtime_in_evidence_lines(VALIDATOR)
    assert [(r.cuda, r.where) for r in found.runtimes] == [("10.2", "cuda-sample:vectoradd-cuda10.2-ubi8")]
    # NVIDIA's CUDA image banner (corpus 1021's line), and prose without a CUDA image.
    assert CUDA_BANNER.match("CUDA Version 12.4.1") and runtime_in_line("CUDA Version 12.4.1").cuda == "12.4"
    assert runtime_in_line("the CUDA version is 12.4 and torch runs") is None
    # An engine image whose tag suffix names torch's CUDA ships that runtime, named in prose too (h56b).
    assert runtime_in_line("docker pull vllm/vllm-openai:v0.11.1-cu130").cuda == "13.0"
    assert runtime_in_line("docker pull vllm/vllm-openai:latest") is None  # a tag naming no CUDA


def test_1161_an_upgrade_names_both_engine_images() -> None:
    # Corpus 1161 (sgl-project/sglang): 'After upgrading from `lmsysorg/sglang:v0.4.6.post5-cu124` to
    # `lmsysorg/sglang:v0.4.8-cu126`', both measured, under driver 565.57.01 (CUDA 12.7): both runtimes are read.
    found = cuda_runtime_in_evidence_lines(UPGRADE)
    assert [(r.cuda, r.where) for r in found.runtimes] == [("12.4", "lmsysorg/sglang:v0.4.6.post5-cu124"),
                                                           ("12.6", "lmsysorg/sglang:v0.4.8-cu126")]
    result = capture_checks("1161", COMPAT)[COMPAT]
    assert result.status == "ok" and "lmsysorg/sglang:v0.4.8-cu126 (CUDA 12.6)" in result.message


def test_an_engine_image_newer_than_the_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled: corpus 1161's upgrade line to a cu130 image under corpus 1145's driver for CUDA 11.0.
    result = paste_checks(tmp_path, UPGRADE.replace("cu126", "cu130") + SMI_450, COMPAT)[COMPAT]
    assert result.status == "unknown" and "cuda>=" in result.message


def test_an_image_newer_than_the_driver_is_not_ok(tmp_path: Path) -> None:
    # Modelled: the same validator line naming a CUDA 12.5 sample under corpus 1145's driver for CUDA 11.0.
    newer = VALIDATOR.replace("cuda10.2", "cuda12.5.0")
    result = paste_checks(tmp_path, newer + SMI_450, COMPAT)[COMPAT]
    assert result.status == "unknown" and "cuda>=" in result.message


def test_1057_the_trtllm_release_image_names_the_release() -> None:
    env = python_env_from_stated_versions("- TensorRT-LLM version: nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc1\n")
    assert env.environments[0].packages == {"tensorrt-llm": "1.1.0rc1"}
    assert release_cuda_major("tensorrt-llm", "1.1.0rc1") == 12 and release_cuda_major("tensorrt-llm", "1.2.0") is None
    result = capture_checks("1057", COMPAT)[COMPAT]
    assert result.status == "ok" and "CUDA 12.x" in result.message and "570.133.20" in result.message


def test_1118_a_headerless_query_row_names_the_driver() -> None:
    assert driver_from_evidence_lines("  0, NVIDIA GeForce RTX 3090, 595.58.03\n"
                                      "  1, NVIDIA GeForce RTX 3090, 595.58.03\n").version == "595.58.03"
    env = python_env_from_stated_versions("- **PyTorch:** `torch=2.11.0+cu130 torch_cuda_build=13.0 cudnn=91900`\n")
    assert env.environments[0].torch_cuda == "13.0"
    result = capture_checks("1118", COMPAT)[COMPAT]
    assert result.status == "ok" and "595.58.03" in result.message


def test_pip_requirement_is_not_the_installed_torch() -> None:
    with pytest.raises(ParseError):
        python_env_from_stated_versions("pip install torch==2.7.0+cu128\n")


def test_a_green_context_symbol_missing_proves_an_old_driver(tmp_path: Path) -> None:
    # Modelled on sgl-project/sglang#8432's title (corpus 1084) beside its check_env's driver line.
    line = ("ImportError: /usr/local/lib/python3.11/site-packages/sgl_kernel/common_ops.abi3.so: undefined symbol: "
            "cuGreenCtxDestroy\n")
    smi = "| NVIDIA-SMI 535.86.10    Driver Version: 535.86.10    CUDA Version: 12.2     |\n"
    result = paste_checks(tmp_path, smi + line, COMPAT)[COMPAT]
    assert result.status == "issue" and "green-context" in result.message
    # A symbol every driver exports is another fault (corpus 1085's title): no driver verdict from it.
    other = line.replace("cuGreenCtxDestroy", "cuModuleGetFunction")
    assert paste_checks(tmp_path, smi + other, COMPAT)[COMPAT].status != "issue"


def test_2002_libcuda_without_cuctxcreate_v3_is_a_driver_too_old() -> None:
    # ollama/ollama#5493: ollama 0.1.40's discovery finds only libcuda 418.74, which lacks cuCtxCreate_v3.
    result = capture_checks("2002", COMPAT)[COMPAT]
    assert result.status == "issue" and "libcuda" in result.message


@pytest.mark.parametrize("line", [
    # ollama/ollama#6626 (ollama 0.3.9), verbatim up to the stored excerpt's cut; its tail is modelled.
    'Sep 04 14:28:41 ip ollama[22329]: time=2024-09-04T14:28:41.837+08:00 level=INFO source=gpu.go:568 msg="unable '
    'to load cuda driver library" library=/usr/lib64/libcuda.so.460.106.00 error="symbol lookup for cuCtxCreate_'
    'v3 failed: /usr/lib64/libcuda.so.460.106.00: undefined symbol: cuCtxCreate_v3"\n',
    # ollama/ollama#6604 (Windows, ollama 0.3.9), verbatim: the OS's message after the colon is garbled in the thread.
    'time=2024-09-03T16:36:00.677+08:00 level=INFO source=gpu.go:568 msg="unable to load cuda driver library" '
    'library=C:\\WINDOWS\\system32\\nvcuda.dll error="symbol lookup for cuCtxCreate_v3 failed: \\xd5\u4e5f\\xbb"\n',
])
def test_ollama_skipping_an_old_libcuda_is_a_driver_too_old(tmp_path: Path, line: str) -> None:
    assert paste_checks(tmp_path, line, COMPAT)[COMPAT].status == "issue"


def test_a_missing_driver_symbol_outside_libcuda_proves_nothing(tmp_path: Path) -> None:
    # xmrig/xmrig-cuda#108, verbatim: the program's own library lacks cuInit, it was not linked against libcuda.
    # Its driver line is modelled.
    unlinked = ("./xmrig: symbol lookup error: /root/xmrig/xmrig-cuda/libxmrig-cuda.so: undefined symbol: cuInit\n")
    assert paste_checks(tmp_path, SMI_450 + unlinked, COMPAT)[COMPAT].status != "issue"


# Hugging Face's environment reports: torch's version with torch.cuda.is_available()'s answer, or the accelerator
# found, after it (facts/python_env.HF_AVAILABLE). The corpus holds one (2266, `accelerate env`); the others are
# modelled on the reports' sources (huggingface/accelerate src/accelerate/commands/env.py, huggingface/transformers
# src/transformers/commands/env.py), and say so.
HF_TORCH_LINES = [
    ("- PyTorch version (GPU?): 2.3.1+cu121 (True)", "2.3.1+cu121", "12.1"),  # corpus 2266, verbatim
    ("- PyTorch version (accelerator?): 2.6.0+cu124 (CUDA)", "2.6.0+cu124", "12.4"),  # modelled: transformers-cli env
    ("- PyTorch version (GPU?): 2.1.0+cu118 (False)", "2.1.0+cu118", "11.8"),  # modelled: CUDA unavailable
]


@pytest.mark.parametrize(("line", "version", "cuda"), HF_TORCH_LINES)
def test_hugging_face_env_reports_name_torch_and_its_cuda(line: str, version: str, cuda: str) -> None:
    env = python_env_from_stated_versions(line + "\n").environments[0]
    assert env.version("torch") == version and env.torch_cuda == cuda


def test_hugging_face_env_lines_of_other_frameworks_name_no_torch() -> None:
    # Modelled on transformers-cli env: TensorFlow's line and a torch not installed name no torch build.
    for line in ("- Tensorflow version (GPU?): 2.15.0 (True)", "- PyTorch version (GPU?): not installed (NA)"):
        with pytest.raises(ParseError):
            python_env_from_stated_versions(line + "\n")


def test_2266_accelerate_env_torch_under_a_newer_driver_is_ok() -> None:
    # huggingface/accelerate#2942: `accelerate env`'s torch 2.3.1+cu121 beside nvidia-smi's driver 555.42.06 (CUDA 12.5).
    result = capture_checks("2266", COMPAT)[COMPAT]
    assert result.status == "ok", result.message
    assert "torch's CUDA 12.1" in result.message and "555.42.06" in result.message


def test_2393_a_rapids_image_under_a_header_without_cuda_is_judged_by_the_branch(tmp_path: Path) -> None:
    # Both readers: the image's CUDA 11.0 (its tag) under driver 450.36.06, whose header the user set in bold and which
    # reads `CUDA Version: N/A` (no libcuda in the container): R450's CUDA 11.0 runs it.
    r = capture_checks("2393", COMPAT)[COMPAT]
    assert r.status == "ok" and "driver 450.36.06 supports CUDA up to 11.0" in r.message, r.message
    assert image_cuda("rapidsai/base:24.10-cuda12.5-py3.12") == "12.5"  # RAPIDS' newer image
    assert image_cuda("rapidsai/base:latest") == "" and image_cuda("someone/rapidsai:cuda11.0") == ""
    # Modelled: the same header under a RAPIDS image of CUDA 12.5: above R450's CUDA 11.0, not ok.
    body = (CAPTURES_DIR / next(p.name for p in CAPTURES_DIR.glob("2393-*"))).read_text().split("verbatim -----\n")[1]
    newer = paste_checks(tmp_path, body.replace("21.10-cuda11.0", "24.10-cuda12.5"), COMPAT)[COMPAT]
    assert newer.status != "ok", newer.message
    # Another thread's header without a CUDA runtime shown (corpus 1293) stays the host driver offering no CUDA.
    assert capture_checks("1293", COMPAT)[COMPAT].status == "issue"
