"""Issue 28 (DRV-CUDA-COMPAT): what shows a CUDA program at work, or the CUDA in use, in pastes cut or reworded.

- SGLang's check_env cut inside its `GPU 0,1 Compute Capability` line (corpus 2853) is still check_env: its
  `CUDA available: True` is torch's CUDA at work (facts/cuda_ran.py), ok with no driver line. The same lines with no
  capability line at all stay unread (tests/test_check_env_cut_after_capability.py).
- vLLM's newer collect_env pasted without its indent breaks at its `Python Environment` heading no more (corpus 2800).
- A list's `TRTLLM v0.20.0rc0` (corpus 2837) and a version with a stray closing quote (2792) name TensorRT-LLM's
  release, whose release notes name its CUDA major (python_env.RELEASE_CUDA_MAJOR).
- TensorRT-LLM's issue form pairs libraries with their versions (`Versions of TensorRT, CUDA: (10.0.1, 12.4)`,
  corpus 2877): the CUDA in use, above R535's 12.2 and of its major: not an issue.
- nvidia-smi's header flattened onto a list line (corpus 2876) is the driver's figure: above the branch's CUDA it is
  the forward-compatibility libcuda, fine on data-center GPUs, error 804 on a GeForce.
- ggml's Vulkan backend listing an AMD GPU (corpus 2845) shows another vendor's GPU and no NVIDIA one: not applicable.

Excerpts without a URL are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.collect_env import cut_capability
from stackaudit.facts.nvidia import paired_cuda
from stackaudit.facts.python_env import STATED_VERSION
from stackaudit.importers.recognition import recognise

# https://github.com/sgl-project/sglang/pull/965 (zhyncs, 2024-08-07): 8x A100-SXM4-80GB, cut here inside its
# capability line as corpus 2853 is cut.
CHECK_ENV_965_CUT = """Python: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA A100-SXM4-80GB
GPU 0,1,2,3,4,5,6,7 Compute Cap
"""
# https://github.com/sgl-project/sglang/issues/2805 (Rssevenyu's comment, 2025-01-09): one A40, cut after `Comp`.
CHECK_ENV_2805_CUT = """Python: 3.11.5 (main, Sep 11 2023, 13:54:46) [GCC 11.2.0]
CUDA available: True
GPU 0: NVIDIA A40
GPU 0 Comp
"""


def _kinds(text: str) -> list[str]:
    return [k for k, _, _ in recognise(text).recognised]


@pytest.mark.parametrize(("prefix", "checks", "status"), [
    ("2853", ("DRV-CUDA-COMPAT",), "ok"),
    ("2800", ("DRV-CUDA-COMPAT",), "ok"),
    ("2800", ("DRV-FABRIC-MANAGER",), "not-applicable"),
    ("2837", ("DRV-CUDA-COMPAT",), "ok"),
    ("2792", ("DRV-CUDA-COMPAT",), "ok"),
    ("2876", ("DRV-CUDA-COMPAT",), "not-an-issue"),
    ("2877", ("DRV-CUDA-COMPAT",), "not-an-issue"),
    ("2845", ("DRV-CUDA-COMPAT",), "not-applicable"),
])
def test_corpus_files(prefix: str, checks: tuple[str, ...], status: str) -> None:
    assert {r.status for r in capture_checks(prefix, *checks).values()} == {status}


@pytest.mark.parametrize("text", [CHECK_ENV_965_CUT, CHECK_ENV_2805_CUT])
def test_check_env_cut_inside_its_capability_line_shows_cuda_at_work(tmp_path: Path, text: str) -> None:
    assert "collect_env" in _kinds(text)
    assert fact(pasted(text), "collect_env").tool == "sglang"
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


def test_check_env_whose_torch_found_no_cuda_is_not_cuda_at_work(tmp_path: Path) -> None:
    # Modelled: the same cut report where torch answered False shows no runtime at work.
    text = CHECK_ENV_2805_CUT.replace("CUDA available: True", "CUDA available: False")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "ok"


def test_cut_capability_is_a_prefix_of_the_label_only() -> None:
    assert cut_capability("GPU 0,1 Com") and cut_capability("GPU 0,1,2,3 Compute Capabilit")
    assert not cut_capability("GPU 0,1 Cores") and not cut_capability("GPU 0,1: NVIDIA A100")
    assert not cut_capability("GPU 0,1 Compute Capability: 8.0")


# Modelled on corpus 2800: vLLM's newer collect_env with its headings' indent lost, another GPU and driver.
COLLECT_ENV_FLAT = """==============================
PyTorch Info
PyTorch version : 2.8.0+cu128
Is debug build : False
CUDA used to build PyTorch : 12.8
ROCM used to build PyTorch : N/A

==============================
Python Environment
Python version : 3.12.3 (main, Feb  4 2025, 14:48:35) [GCC 13.3.0] (64-bit runtime)
Python platform : Linux-6.8.0-60-generic-x86_64-with-glibc2.39

==============================
CUDA / GPU Info
Is CUDA available : True
CUDA runtime version : 12.8.93
GPU models and configuration :
GPU 0: NVIDIA L40S
GPU 1: NVIDIA L40S

Nvidia driver version : 575.57.08
"""


def test_collect_env_with_its_headings_unindented_is_one_report(tmp_path: Path) -> None:
    assert _kinds(COLLECT_ENV_FLAT) == ["collect_env"]
    report = fact(pasted(COLLECT_ENV_FLAT), "collect_env")
    assert report.driver_version == "575.57.08" and report.torch_cuda == "12.8"
    assert paste_checks(tmp_path, COLLECT_ENV_FLAT, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


@pytest.mark.parametrize(("line", "version"), [
    ("  -  TRTLLM v0.20.0rc0", "0.20.0rc0"),  # corpus 2837
    ("- TRT-LLM v0.18.2", "0.18.2"),  # modelled
    ('TensorRT-LLM version: 0.12.0.dev2024070200"', "0.12.0.dev2024070200"),  # corpus 2792
    ("TensorRT-LLM 0.20.0 is slower than 0.19.0", None),  # modelled: prose, not a list's line
])
def test_tensorrt_llm_release_lines(line: str, version: str | None) -> None:
    m = STATED_VERSION.match(line)
    assert (m.group("version") if m else None) == version


def test_trtllm_release_judges_the_driver(tmp_path: Path) -> None:
    # Modelled: a CUDA 12 release of TensorRT-LLM under a driver below CUDA 12's floor.
    old = "- TRTLLM v0.20.0rc0\n- Driver Version: 470.182.03\n"
    new = "- TRTLLM v0.20.0rc0\n- Driver Version: 550.54.15\n"
    assert paste_checks(tmp_path, old, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "issue"
    assert paste_checks(tmp_path, new, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


@pytest.mark.parametrize(("line", "cuda"), [
    ("Versions of TensorRT, CUDA: (10.0.1, 12.4)", "12.4"),  # corpus 2877
    ("- Versions of TensorRT, Modelopt, CUDA, cuBLAS, etc. used: 10.3, 0.15, 12.6, 12.6.3", "12.6"),  # modelled
    ("Versions of TensorRT, AMMO, CUDA, cuBLAS, etc. used", ""),  # the form's own prompt, unanswered
    ("Versions of TensorRT, CUDA: 10.0.1", ""),  # modelled: names and versions do not pair
])
def test_paired_versions(line: str, cuda: str) -> None:
    assert paired_cuda(line) == cuda


def test_paired_cuda_beside_a_driver(tmp_path: Path) -> None:
    # Modelled: the CUDA in use at or below the driver's is ok; a CUDA 12 one on R470 is not run.
    ok = "Versions of TensorRT, CUDA: (10.0.1, 12.2)\nnvidia driver version: 550.54.15\n"
    old = "Versions of TensorRT, CUDA: (10.0.1, 12.4)\nnvidia driver version: 470.182.03\n"
    assert paste_checks(tmp_path, ok, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"
    assert paste_checks(tmp_path, old, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "ok"


@pytest.mark.parametrize(("gpu", "status"), [("8x NVIDIA H100 80GB HBM3", "not-an-issue"),
                                             ("2x NVIDIA GeForce RTX 4090", "issue")])
def test_flattened_header_above_the_branch_is_forward_compatibility(tmp_path: Path, gpu: str, status: str) -> None:
    # Modelled on corpus 2876: the header's CUDA 12.4 over R535 (CUDA 12.2) is the forward-compatibility libcuda.
    text = (f"### System Info\n\n- Hardware: {gpu}\n"
            "- Software:  NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.4 \n")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == status


def test_flattened_header_of_the_branch_names_no_runtime(tmp_path: Path) -> None:
    # Modelled: the branch's own CUDA in its header is the driver's highest, no runtime in use.
    text = ("### System Info\n\n- Hardware: 8x NVIDIA H100 80GB HBM3\n"
            "- Software:  NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2 \n")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


VULKAN_NVIDIA = """$ ./build/bin/llama-bench -m models/llama-3.2-3b-q4_k_m.gguf -ngl 99
ggml_vulkan: Found 1 Vulkan devices:
ggml_vulkan: 0 = NVIDIA GeForce RTX 3090 (NVIDIA) | uma: 0 | fp16: 1 | warp size: 32 | shared memory: 49152 | matrix cores: KHR_coopmat
"""


def test_vulkan_device_of_another_vendor_is_not_nvidia() -> None:
    # Modelled from corpus 2845's line with an Intel GPU; an NVIDIA device under Vulkan is no other vendor's.
    intel = VULKAN_NVIDIA.replace("NVIDIA GeForce RTX 3090 (NVIDIA)", "Intel(R) Arc(tm) A770 Graphics (DG2)")
    assert fact(pasted(intel), "gpus").others
    shown = fact(pasted(VULKAN_NVIDIA), "gpus")
    assert not getattr(shown, "others", ())


@pytest.mark.parametrize("prefix", ["2842", "2870"])
def test_engine_shown_under_a_driver_of_the_newest_major(prefix: str) -> None:
    # 2842: a list's `- Engine: vLLM Docker image ...`; 2870: a torchrun launch; each under an R580 driver.
    assert capture_checks(prefix, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"


@pytest.mark.parametrize(("line", "engines"), [
    ("- Engine: vLLM Docker image `vllm/vllm-openai:v0.25.0`", ("vllm",)),  # corpus 2842
    ("Inference engine: SGLang", ("sglang",)),  # modelled
    ("- Engine: custom C++ server", ()),  # modelled: no engine the table names
])
def test_listed_engine_label(line: str, engines: tuple[str, ...]) -> None:
    said = fact(pasted(f"## Rig\n\n{line}\n- Driver: 580.126.20\n"), "stated_engines")
    assert getattr(said, "engines", ()) == engines


@pytest.mark.parametrize(("driver", "status"), [("580.76.05", "ok"), ("550.54.15", "unknown")])
def test_torchrun_launch_is_a_torch_program(tmp_path: Path, driver: str, status: str) -> None:
    # Modelled on corpus 2870: below the newest major's floor the torch build's CUDA decides, and it is not shown.
    text = (f"torchrun --nproc_per_node 2 train.py --epochs 1\n\n| NVIDIA-SMI {driver}   Driver Version: {driver}"
            "   CUDA Version: 13.0 |\n")
    if driver.startswith("550"):
        text = text.replace("13.0", "12.4")
    assert fact(pasted(text), "serving_log").engine == "torch"
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == status
