"""A CUDA program that ran on the GPUs (facts/cuda_ran.py) as one fact: DRV-CUDA-COMPAT ok for the runtime that ran
where the source shows one side of the driver/runtime pair, DRV-FABRIC-MANAGER ok on the GPUs it ran on, and a
refused start in the same paste (35, 802, 803, 804) winning."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.errors import InputError
from stackaudit.facts.cuda_ran import hf_torch_cuda, ran_in_lines, torch_answered
from stackaudit.facts.gpus import parse_torch_oom

FM = "DRV-FABRIC-MANAGER"
COMPAT = "DRV-CUDA-COMPAT"


def _body(prefix: str) -> str:
    """A corpus file's capture, without its header (for a modelled variant of a real paste)."""
    text = next(CAPTURES_DIR.glob(prefix + "-*.txt")).read_text()
    return text.split("everything below this line is the capture, verbatim -----\n", 1)[1]


def test_lines_of_a_program_at_work() -> None:
    # Corpus 1045 (torch's OOM message) and 1060 (TensorRT-LLM's ledger).
    found = ran_in_lines(["GPU 0 has a total capacity of 94.97 GiB of which 164.81 MiB is free. Including non-PyTorch",
                          "Free GPU memory before component creation attempt (GiB): 16.95"])
    assert [r.program for r in found] == ["torch", "TensorRT-LLM"] and found[0].devices == (0,)
    assert ran_in_lines(["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB."]) == ()


OOM_BEFORE_2_1 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB (GPU 0; 23.65 GiB total "
                  "capacity; 19.91 GiB already allocated; 265.81 MiB free; 19.91 GiB reserved in total by PyTorch)")


def test_torch_oom_before_2_1_is_cuda_at_work(tmp_path: Path) -> None:
    # Corpus 2257: text-generation-webui's torch (before 2.1) runs out of memory on GPU 0; nothing else is recognisable.
    found = ran_in_lines([OOM_BEFORE_2_1])
    assert [(r.program, r.devices) for r in found] == [("torch", (0,))]
    oom = parse_torch_oom(_body("2257"))
    assert (oom.gpu, oom.total_mib, oom.free_mib, oom.processes) == (0, 23.65 * 1024, 265.81, ())
    assert oom.allocator_mib == 19.91 * 1024 and oom.asked_mib == 448.0 and oom.own_mib is None
    results = capture_checks("2257", COMPAT, "CTR-GPU-ACCESS", "MEM-GPU-SHARED")
    assert results[COMPAT].status == "ok" and "the CUDA runtime torch ships runs on the driver" in results[COMPAT].message
    assert results["CTR-GPU-ACCESS"].status == "ok"
    # The message names no process: whose the 3.5 GiB outside torch's pool is stays open.
    assert results["MEM-GPU-SHARED"].status == "unknown"
    # Modelled: the same message wrapped over lines, with a memory fraction set (`N allowed;`), is read whole.
    wrapped = OOM_BEFORE_2_1.replace("19.91 GiB already", "19.91 GiB already\n").replace(
        "free; 19.91", "free; 20.00 GiB allowed; 19.91")
    assert parse_torch_oom(wrapped).allocator_mib == 19.91 * 1024
    # Modelled counter-examples: a fork's message for another backend in the same words, and the same words for a
    # failing start: neither shows CUDA at work.
    assert ran_in_lines([OOM_BEFORE_2_1.replace("CUDA out of", "MUSA out of")]) == ()
    with pytest.raises(InputError, match="nothing recognisable"):
        paste_checks(tmp_path, OOM_BEFORE_2_1.replace("CUDA out of", "MUSA out of") + "\n", COMPAT)
    refused = paste_checks(tmp_path, "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"
                           + OOM_BEFORE_2_1 + "\n", COMPAT)[COMPAT]
    assert refused.status == "issue"


@pytest.mark.parametrize(("prefix", "program", "driver"), [
    ("1045", "torch", "driver 580.159.03"),  # a hardware list's driver, torch's OOM message
    ("1060", "TensorRT-LLM", "the driver"),  # no driver shown, TensorRT-LLM's ledger after loading the model
    ("1072", "torch", "driver 595.58.03"),  # check_env's driver, its torch (a source build) initialised CUDA
])
def test_a_program_that_ran_is_cuda_compat_ok(prefix: str, program: str, driver: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert f"the CUDA runtime {program} ships runs on {driver}" in r.message


def test_a_refused_start_in_the_same_paste_wins(tmp_path: Path) -> None:
    # Modelled on corpus 1045: the same paste with the runtime refusing the driver before the OOM.
    text = _body("1045")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "ok"
    refused = text.replace("torch.OutOfMemoryError", "RuntimeError: CUDA driver version is insufficient for CUDA "
                           "runtime version\ntorch.OutOfMemoryError")
    assert paste_checks(tmp_path, refused, COMPAT)[COMPAT].status == "issue"


@pytest.mark.parametrize("prefix", ["1035", "1039"])
def test_an_nvbandwidth_test_on_eight_sxm_gpus_is_fabric_manager_ok(prefix: str) -> None:
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok", r.message
    assert "nvbandwidth ran" in r.message and "error 802" in r.message


def test_nvbandwidth_that_only_listed_its_devices_says_nothing(tmp_path: Path) -> None:
    # Modelled on corpus 1035: the device list without a test (gpu_burn lists its GPUs, then fails with 802).
    text = _body("1035").split("Running device_to_device")[0]
    assert paste_checks(tmp_path, text, FM)[FM].status != "ok"


@pytest.mark.parametrize("prefix", ["1063", "1082"])
def test_cuda_initialised_on_four_sxm_gpus_is_fabric_manager_ok_either_way(prefix: str) -> None:
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok", r.message
    assert "needs no Fabric Manager" in r.message and "error 802" in r.message


def test_an_engine_run_names_its_gpus_by_the_model_and_its_tp_size(tmp_path: Path) -> None:
    # Corpus 1060: TensorRT-LLM's ledger under `trtllm-serve --tp_size "8"` with `GPU: Nvidia H20 96GB`.
    r = capture_checks("1060", FM)[FM]
    assert r.status == "ok" and "TP x PP of 8" in r.message and "error 802" in r.message, r.message
    # Modelled: the same paste at TP 2: two H20, ok either way (a board without NVSwitch, or a fabric that was up).
    text = _body("1060").replace('--tp_size "8"', '--tp_size "2"')
    assert "TP x PP of 2" in paste_checks(tmp_path, text, FM)[FM].message


def test_ollama_shown_without_its_release_picks_its_runner_from_the_driver(tmp_path: Path) -> None:
    # Corpus 1094: a `docker ps` row of ollama/ollama:0.4.0-rc6 beside nvidia-smi's driver 550.120 (CUDA 12.4).
    r = capture_checks("1094", COMPAT)[COMPAT]
    assert r.status == "ok" and "picks the runner this driver runs" in r.message, r.message
    # Modelled: the same paste under a driver for CUDA 12.0, where an ollama of unread release may have no runner.
    text = _body("1094").replace("Driver Version: 550.120        CUDA Version: 12.4",
                                 "Driver Version: 525.60.13      CUDA Version: 12.0")
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status == "unknown"


def test_trtllm_cluster_info_sm_count_shows_its_runtime_ran(tmp_path: Path) -> None:
    # Corpus 1208: trtllm-serve's cluster info, no driver shown. The SM count is cudaGetDeviceProperties' answer; the
    # compute capability and the total memory beside it are NVML's and show no CUDA at work.
    r = capture_checks("1208", COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert "the CUDA runtime TensorRT-LLM ships runs on the driver" in r.message and "170 SMs" in r.message
    # Modelled on 1208: the call failed (its error unchecked, the count 0), or only NVML's lines are shown.
    assert ran_in_lines(["[06/28/2025-17:32:17] [TRT-LLM] [I] SM count: 0"]) == ()
    nvml_only = "".join(line for line in _body("1208").splitlines(keepends=True) if "SM count" not in line)
    assert paste_checks(tmp_path, nvml_only, COMPAT)[COMPAT].status != "ok"


def test_a_gpu_container_on_a_driver_that_runs_every_runtime(tmp_path: Path) -> None:
    # Corpus 1209: `Driver:` then `- 580.173.02` (a list's item under its heading), `GPU:` then the GTX 970, and a
    # `docker run --gpus all linuxserver/ffmpeg` whose cuInit failed with CUDA_ERROR_UNKNOWN (no version refusal).
    r = capture_checks("1209", COMPAT, "MEM-MIG")
    assert r[COMPAT].status == "ok" and "driver 580.173.02" in r[COMPAT].message
    assert "GPU container linuxserver/ffmpeg:latest" in r[COMPAT].message
    assert r["MEM-MIG"].status == "not-applicable" and "GTX 970" in r["MEM-MIG"].message
    # Modelled on 1209: the same container under an R570 driver, whose CUDA 12.8 does not run every runtime.
    older = _body("1209").replace("580.173.02", "570.133.07")
    assert paste_checks(tmp_path, older, COMPAT)[COMPAT].status != "ok"


def test_a_gpu_container_running_a_shell_shows_no_cuda_program() -> None:
    # Corpus 229: `docker run --gpus all IMAGE bash`, then nvidia-smi --version inside (driver 590.48.01): no program
    # of the image's ran, so there is no runtime to judge; corpus 1016's GPUStack service runs its image's entrypoint.
    assert capture_checks("229", COMPAT)[COMPAT].status == "unknown"
    assert capture_checks("1016", COMPAT)[COMPAT].status == "ok"


@pytest.mark.parametrize(("prefix", "program", "driver", "line"), [
    # llama.cpp's count, the paste cut before its device lines (no driver shown).
    ("1283", "llama.cpp", "the driver", "ggml_cuda_init: found 3 CUDA devices:"),
    # ollama 0.1.x's discovery after its bundled libcudart set device 0 (no driver shown).
    ("1261", "ollama", "the driver", "Nvidia GPU detected via cudart"),
    # nvvs's memory test passing on GPU 0 under a driver shown (the stated CUDA 9.0 alone settles nothing).
    ("1266", "nvvs", "driver 384.111", "Memory GPU0 ....................................... PASS"),
])
def test_a_line_printed_after_a_cuda_call_succeeded_is_cuda_compat_ok(prefix: str, program: str, driver: str,
                                                                        line: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert f"the CUDA runtime {program} ships runs on {driver}" in r.message and line in r.message


def test_lines_that_show_no_cuda_call_succeeding_say_nothing(tmp_path: Path) -> None:
    # Modelled on corpus 1283: a count of 0, and llama.cpp's failed start (cudaGetDeviceCount refused: error 35).
    text = _body("1283")
    none_found = text.replace("found 3 CUDA devices:", "found 0 CUDA devices:")
    assert paste_checks(tmp_path, none_found, COMPAT)[COMPAT].status == "unknown"
    failed = text.replace("> ggml_cuda_init: found 3 CUDA devices:", "> ggml_cuda_init: failed to initialize CUDA: "
                          "CUDA driver version is insufficient for CUDA runtime version")
    assert paste_checks(tmp_path, failed, COMPAT)[COMPAT].status == "issue"
    # Modelled on corpus 1266: nvvs's memory test failing on every GPU shows no context created.
    assert ran_in_lines(["\t\tMemory GPU6 ....................................... FAIL",
                         "\t\t   *** Unable to create CUDA context"]) == ()
    # Modelled on corpus 1261: ollama finding the library without initialising it.
    assert ran_in_lines(['msg="Discovered GPU libraries: [/usr/local/lib/ollama/cuda_v11/libcudart.so.11.0]"']) == ()


# vLLM 0.1's scheduler line (corpus 1446) and SGLang's decode batch line (corpus 1454): an engine generating tokens.
VLLM_V01 = ("INFO 08-01 03:08:45 scheduler.py:271] Throughput: 181.6 tokens/s, Running: 1 reqs, Swapped: 0 reqs, "
            "Pending: 0 reqs, GPU KV cache usage: 100.0%, CPU KV cache usage: 0.0%")
SGLANG = ("Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, gen throughput (token/s): 1397.13, "
          "#queue-req: 12279")


def test_engines_decoding_are_cuda_at_work() -> None:
    found = ran_in_lines([VLLM_V01, SGLANG])
    assert [(r.program, r.decoded) for r in found] == [("vLLM", True), ("SGLang", True)]
    # Nothing generated (a window at 0 tokens/s, an empty batch) shows nothing.
    assert ran_in_lines([VLLM_V01.replace("181.6 tokens/s", "0.0 tokens/s")]) == ()
    assert ran_in_lines([SGLANG.replace("1397.13", "0.00")]) == ()
    assert ran_in_lines([SGLANG.replace("#running-req: 1010", "#running-req: 0")]) == ()
    # SGLang on its CPU device (modelled: the flag beside the line) shows no GPU at work.
    assert ran_in_lines(["python -m sglang.launch_server --model-path m --device cpu", SGLANG]) == ()


@pytest.mark.parametrize(("prefix", "said"), [
    ("1445", "vLLM generated 45.5 tokens/s"),  # v0's llm_engine.py line at a cache usage of 0.0%
    ("1446", "vLLM generated 181.6 tokens/s"),  # vLLM 0.1's scheduler.py line (August 2023)
    ("1454", "SGLang decoded 1010 running request(s) at 1397.13 tokens/s"),
])
def test_an_engine_decoding_with_no_driver_shown_is_ok(prefix: str, said: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert said in r.message


def test_an_engine_decoding_beside_a_refused_start_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 1454: a CUDA refusal in the same paste wins over the decode line (facts/cuda_ran.failed).
    text = _body("1454") + "CUDA driver version is insufficient for CUDA runtime version\n"
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


# lmdeploy's check_env, which prints no driver line, from three threads: InternLM/lmdeploy#3996 (four RTX 3090, torch
# 2.6.0+cu124), #3825 (Windows, an RTX 4060 Laptop GPU, 2.6.0+cu126) and #654 (an A100, 2.0.0+cu117).
CHECK_ENV = """sys.platform: {platform}
Python: 3.9.23 (main, Jun  5 2025, 13:40:20) [GCC 11.2.0]
CUDA available: {available}
MUSA available: False
numpy_random_seed: 2147483648
GPU 0{more}: {gpu}
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release {nvcc}
GCC: gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0
PyTorch: {torch}
PyTorch compiling details: PyTorch built with:
  - GCC 9.3
  - C++ Version: 201703
"""
CHECK_ENVS = [
    dict(platform="linux", available="True", more=",1,2,3", gpu="NVIDIA GeForce RTX 3090", nvcc="11.0, V11.0.194",
         torch="2.6.0+cu124"),
    dict(platform="win32", available="True", more="", gpu="NVIDIA GeForce RTX 4060 Laptop GPU",
         nvcc="12.8, V12.8.93", torch="2.6.0+cu126"),
    dict(platform="linux", available="True", more="", gpu="NVIDIA A100-SXM4-80GB", nvcc="11.4, V11.4.152",
         torch="2.0.0+cu117"),
]


@pytest.mark.parametrize("fields", CHECK_ENVS, ids=["lmdeploy-3996", "lmdeploy-3825", "lmdeploy-654"])
def test_torch_initialising_cuda_with_no_driver_line_is_ok(tmp_path: Path, fields: dict[str, str]) -> None:
    # torch.cuda.is_available() counts devices only where cudaGetDeviceCount succeeded (35 on a driver too old).
    r = paste_checks(tmp_path, CHECK_ENV.format(**fields), COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert "the CUDA runtime torch ships runs on the driver" in r.message and "CUDA available: True" in r.message


@pytest.mark.parametrize("prefix", ["1652", "1774", "1770"])  # collect_env cut before its driver line; check_env
def test_both_readers_read_torch_initialising_cuda_as_ok(prefix: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok", r.message


def test_torch_not_initialising_cuda_or_refused_says_nothing_ok(tmp_path: Path) -> None:
    # Modelled on lmdeploy#3996: CUDA unavailable, a CPU wheel, and torch's too-old-driver refusal beside `True`.
    fields = CHECK_ENVS[0]
    assert paste_checks(tmp_path, CHECK_ENV.format(**{**fields, "available": "False"}), COMPAT)[COMPAT].status \
        == "unknown"
    assert paste_checks(tmp_path, CHECK_ENV.format(**{**fields, "torch": "2.6.0+cpu"}), COMPAT)[COMPAT].status \
        == "unknown"
    refused = ("RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n\n"
               + CHECK_ENV.format(**fields))
    assert paste_checks(tmp_path, refused, COMPAT)[COMPAT].status != "ok"


# Triton's CUDA memory pool, from triton-inference-server/server#5349 (r22 and earlier, unquoted) and #7906 (quoted).
TRITON_POOLS = [
    "I0501 10:50:06.552750 11894 cuda_memory_manager.cc:105] CUDA memory pool is created on device 0 with size 67108864",
    'I1225 10:41:12.661708 138 cuda_memory_manager.cc:107] "CUDA memory pool is created on device 0 with size 67108864"',
]


def test_triton_creating_its_cuda_memory_pool_is_cuda_at_work(tmp_path: Path) -> None:
    for line in TRITON_POOLS:
        found = ran_in_lines([line])
        assert [(r.program, r.devices) for r in found] == [("Triton", (0,))], line
    # Modelled: its refusal (GetSupportedGPUs failing on error 35) and the pinned pool, which is no device's.
    assert ran_in_lines(["E0501 10:50:06.552750 1 server.cc:250] Failed to initialize CUDA memory manager: unable to "
                         "get number of CUDA devices: CUDA driver version is insufficient for CUDA runtime version",
                         "I0501 10:50:06.550601 1 pinned_memory_manager.cc:240] Pinned memory pool is created at "
                         "'0x7f882a000000' with size 268435456"]) == ()
    # Corpus 1738: the pool line, then the manager failing (a vGPU guest refusing cnmemInit's allocation).
    assert ran_in_lines([TRITON_POOLS[1], 'E0121 11:26:33.231424 1 server.cc:236] "Failed to finalize CUDA memory '
                         'manager: CNMEM_STATUS_CUDA_ERROR"']) == ()
    assert capture_checks("1738", COMPAT)[COMPAT].status == "unknown"
    # Corpus 1769: two ranks create pools on devices 0 and 1, no driver shown.
    r = capture_checks("1769", COMPAT)[COMPAT]
    assert r.status == "ok" and "Triton created its CUDA memory pool on device 0" in r.message, r.message
    # Modelled on triton-inference-server/server#5349: the pool line after a refusal in the same log is not ok.
    log = "\n".join([TRITON_POOLS[0], "CUDA driver version is insufficient for CUDA runtime version"]) + "\n"
    assert paste_checks(tmp_path, log, COMPAT)[COMPAT].status != "ok"


def test_a_kernel_launch_refused_for_want_of_code_is_cuda_at_work() -> None:
    # Real lines: nccl-tests' (NVIDIA/nccl-tests#79, corpus 2076), torch's in vLLM's image (vllm-project/vllm#18995,
    # corpus 798), llama.cpp's (ggml-org/llama.cpp#4215). Error 209 comes back from a launch on a live context.
    lines = ["           8             2   float     sumzlabs-trainer: Test CUDA failure common.cu:253 'no kernel image "
             "is available for execution on the device'",
             "RuntimeError: CUDA error: no kernel image is available for execution on the device",
             "CUDA error 209 at ggml-cuda.cu:6701: no kernel image is available for execution on the device"]
    for line in lines:
        assert [r.program for r in ran_in_lines([line])] == ["the failing program"], line
    assert ran_in_lines(["Fails with no kernel ima"]) == ()  # a cut message names no error


def test_2076_nccl_tests_failing_on_a_kernel_image_ran_on_the_driver(tmp_path: Path) -> None:
    # Corpus 2076: both readers say ok; driver 460.27.04 ran nccl-tests' CUDA 11 runtime up to the launch.
    r = capture_checks("2076", COMPAT)[COMPAT]
    assert r.status == "ok" and "driver 460.27.04" in r.message and "error 209" in r.message, r.message
    # Modelled counter-example: the same run beside a refused start (error 35) is not ok; the refusal wins.
    refused = _body("2076") + "CUDA driver version is insufficient for CUDA runtime version\n"
    assert paste_checks(tmp_path, refused, COMPAT)[COMPAT].status != "ok"


# --- torch printing a tensor it holds on a CUDA device (facts/cuda_ran.TORCH_CUDA_TENSOR) ---------------------------

def test_a_tensor_printed_on_a_cuda_device_is_cuda_at_work() -> None:
    # Corpus 2234 (a Ray worker's line, ray-project/ray#12492) and 912 (a copy's result, another thread).
    for line, device in [("(pid=28612) tensor([1., 2., 3.], device='cuda:0')", 0),
                         ("tensor([0., 0.], device='cuda:1')", 1)]:
        assert [(r.program, r.devices) for r in ran_in_lines([line])] == [("torch", (device,))], line
    # Modelled: torch's keywords after the device, and a line that builds the tensor rather than prints it.
    assert ran_in_lines(["tensor(3.5000, device='cuda:0', grad_fn=<AddBackward0>)"])
    assert ran_in_lines(["x = torch.tensor([1., 2.], device='cuda:0')"]) == ()
    assert ran_in_lines(["tensor([1., 2., 3.])"]) == ()  # a tensor on the CPU


def test_2234_a_ray_workers_tensor_on_cuda_runs_torchs_runtime_on_the_driver() -> None:
    # Both readers: torch 1.6.0's tensor reached cuda:0 under driver 450.36.06 (`NVIDIA driver version:` in the list).
    r = capture_checks("2234", COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert "cuda:0" in r.message and "runs on driver 450.36.06" in r.message, r.message


def test_a_tensor_printed_by_torchs_rocm_build_is_not_cuda_at_work(tmp_path: Path) -> None:
    # Modelled on a Python session: ROCm's torch names its HIP devices `cuda:0` too.
    session = (">>> import torch\n>>> torch.__version__\n'{version}'\n>>> torch.tensor([1., 2.]).cuda()\n"
               "tensor([1., 2.], device='cuda:0')\n")
    assert paste_checks(tmp_path, session.format(version="2.1.0+cu121"), COMPAT)[COMPAT].status == "ok"
    assert paste_checks(tmp_path, session.format(version="2.1.0+rocm5.6"), COMPAT)[COMPAT].status == "unknown"


# Modelled on huggingface/accelerate#2942's `accelerate env` (corpus 2266), cut before its nvidia-smi table.
HF_ENV = ("- `Accelerate` version: 0.32.1\n- Platform: Linux-6.2.0-1014-aws-x86_64-with-glibc2.35\n"
          "- Python version: 3.12.2\n- PyTorch version (GPU?): {torch} ({answer})\n- System RAM: 186.70 GB\n")


def test_a_hugging_face_env_report_whose_cuda_torch_answered_true_is_cuda_at_work(tmp_path: Path) -> None:
    # torch.cuda.is_available() of a CUDA wheel counts the devices cudaGetDeviceCount found through the NVIDIA driver.
    r = paste_checks(tmp_path, HF_ENV.format(torch="2.3.1+cu121", answer="True"), COMPAT)[COMPAT]
    assert r.status == "ok" and "Hugging Face environment report" in r.message, r.message
    newer = HF_ENV.format(torch="2.6.0+cu124", answer="CUDA").replace("(GPU?)", "(accelerator?)")
    assert paste_checks(tmp_path, newer, COMPAT)[COMPAT].status == "ok"  # transformers-cli env's form


def test_a_hugging_face_env_report_of_rocms_torch_is_not_cudas() -> None:
    # ROCm's torch answers torch.cuda.is_available() for HIP's devices.
    line = "- PyTorch version (GPU?): 2.4.0+rocm6.1 (True)"
    assert not hf_torch_cuda(line) and torch_answered(HF_ENV.format(torch="2.4.0+rocm6.1", answer="True")
                                                      .splitlines()) is None
    assert torch_answered(HF_ENV.format(torch="2.3.1+cu121", answer="True").splitlines()) is not None


@pytest.mark.parametrize(("torch", "answer"), [
    ("2.3.1", "True"),  # no label: the build is not named
    ("2.3.1+cu121", "False"),  # CUDA did not start
    ("2.3.1+cpu", "False"),
])
def test_a_hugging_face_env_report_of_no_cuda_torch_at_work_says_nothing(tmp_path: Path, torch: str,
                                                                          answer: str) -> None:
    r = paste_checks(tmp_path, HF_ENV.format(torch=torch, answer=answer), COMPAT)[COMPAT]
    assert r.status == "unknown", r.message


def test_cudas_nvlink_error_is_work_run_across_gpus_2271(tmp_path: Path) -> None:
    """CUDA's uncorrectable NVLink error (220) is of work the runtime ran across NVLink, after its context started:
    corpus 2271's B200 HGX (the user's `GPU: B200 HGX`) ran CUDA, which an NVSwitch board refuses (802) until Fabric
    Manager has set the fabric up (both readers: ok). The error alone names no GPU: two of the model named at least."""
    from stackaudit.facts.symptoms import CUDA_NVLINK_UNCORRECTABLE

    [ran] = ran_in_lines(["  what():  CUDA error: uncorrectable NVLink error detected during the execution"])
    assert ran.peers and not ran.models and CUDA_NVLINK_UNCORRECTABLE.search(ran.line)
    r = capture_checks("2271", FM)[FM]
    assert r.status == "ok" and "two at least" in r.message and "error 802" in r.message, r.message
    # Modelled: the same error beside a model of a PCIe card (an A100 PCIe's bridge), or no model at all.
    line = "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution\n"
    assert paste_checks(tmp_path, "- GPU: A100 PCIe 80GB\n" + line, FM)[FM].status != "ok"
    assert paste_checks(tmp_path, line, FM)[FM].status == "unknown"


# --- torch.cuda.is_available() answered after a blank line (an IDE's console: Spyder, IPython) -----------------------

def test_2397_torch_answering_true_after_a_blank_line_runs_on_the_driver(tmp_path: Path) -> None:
    # Both readers: torch initialised CUDA under driver 435.21 (Spyder's console sets `True` off by a blank line).
    r = capture_checks("2397", COMPAT)[COMPAT]
    assert r.status == "ok" and "runs on driver 435.21" in r.message, r.message
    # Another thread's session, answered on the next line (corpus 1898), still reads.
    assert capture_checks("1898", COMPAT)[COMPAT].status == "ok"
    # Modelled: a False after the blank, and a True that is not the first line after it (another command's output).
    assert torch_answered(["torch.cuda.is_available()", "", "True"]) is not None
    assert torch_answered(["torch.cuda.is_available()", "", "False"]) is None
    assert torch_answered(["print(torch.cuda.is_available())", "", "print(x)", "True"]) is None


# --- llama.cpp's CUDA backend refused an allocation for memory (facts/cuda_ran.GGML_CUDA_OOM) --------------------------

JAN_OOM = ("20250430 21:55:01.443740 UTC 8354 ERROR ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7203.17 MiB "
           "on device 0: cudaMalloc failed: out of memory")


def test_2373_llama_cpps_cudamalloc_out_of_memory_runs_on_the_driver() -> None:
    # Both readers: Jan's Cortex llama.cpp reached cudaMalloc on device 0 and got out of memory (no driver shown).
    checks = capture_checks("2373", f"{COMPAT},RT-TORCH-ARCH")
    r = checks[COMPAT]
    assert r.status == "ok" and "cudaMalloc failed: out of memory" in r.message, r.message
    assert "the CUDA runtime llama.cpp ships runs on the driver" in r.message, r.message
    # The line is ggml's own: the engine shown runs no torch.
    assert checks["RT-TORCH-ARCH"].status == "not-applicable", checks["RT-TORCH-ARCH"].message
    # Another thread's llama-server (corpus 1059, ggml-org/llama.cpp build 9439): the same line, its log's prefix.
    line = next(x for x in _body("1059").splitlines() if "cudaMalloc failed" in x)
    [ran] = ran_in_lines([line])
    assert ran.program == "llama.cpp" and ran.devices == (0,), ran


def test_a_cudamalloc_failing_otherwise_or_under_hip_says_nothing() -> None:
    # Modelled: cudaMalloc refused for the driver (error 35), not for memory, shows no runtime at work; the same line
    # beside ggml's HIP build's devices (`ROCm0`) is HIP's hipMalloc.
    assert ran_in_lines([JAN_OOM.replace("out of memory", "CUDA driver version is insufficient for CUDA runtime "
                                         "version")]) == ()
    assert ran_in_lines(["load_tensors:        ROCm0 model buffer size =  4403.49 MiB", JAN_OOM]) == ()
    assert ran_in_lines([JAN_OOM]) and ran_in_lines([JAN_OOM.replace("out of memory", "initialization error")]) == ()


# nvidia-smi's memory held on NVSwitch-class GPUs (h108b, facts/cuda_ran.held_in_table): allocated through a live
# context, which CUDA refuses on an NVSwitch board until Fabric Manager set up the fabric; counted for the fabric only.
_IDLE_H100 = ("+-----------------------------------------------------------------------------------------+\n"
              "| NVIDIA-SMI 570.172.08             Driver Version: 570.172.08     CUDA Version: 12.8     |\n"
              "|-----------------------------------------+------------------------+----------------------+\n"
              "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
              "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
              "|                                         |                        |               MIG M. |\n"
              "|=========================================+========================+======================|\n")
_H100_ROW = ("|   {i}  NVIDIA H100 80GB HBM3          On  |   00000000:{b}:00.0 Off |                    0 |\n"
             "| N/A   30C    P0             70W /  700W |   {used}MiB /  81559MiB |      0%      Default |\n"
             "|                                         |                        |             Disabled |\n"
             "+-----------------------------------------+------------------------+----------------------+\n")


@pytest.mark.parametrize("prefix", ["2447", "355"])
def test_memory_held_on_nvswitch_gpus_is_fabric_manager_ok(prefix: str) -> None:
    # Corpus 2447 (NVIDIA/TensorRT-LLM#10278: 166593MiB on two of eight B200; both readers ok) and 355 (another
    # thread: SGLang's memory held on two H200).
    r = capture_checks(prefix, FM)[FM]
    assert r.status == "ok", r.message
    assert "memory held" in r.message and "error 802" in r.message


def test_idle_nvswitch_gpus_show_no_fabric(tmp_path: Path) -> None:
    # Modelled: the same table with a bare context's memory in use says nothing; with 60 GiB held on each GPU, ok.
    idle = _IDLE_H100 + "".join(_H100_ROW.format(i=i, b=f"{0x18 + i:02X}", used="    1") for i in range(2))
    assert paste_checks(tmp_path, idle, FM)[FM].status == "unknown"
    busy = _IDLE_H100 + "".join(_H100_ROW.format(i=i, b=f"{0x18 + i:02X}", used="61234") for i in range(2))
    assert paste_checks(tmp_path, busy, FM)[FM].status == "ok"


def test_memory_held_speaks_for_no_runtime(tmp_path: Path) -> None:
    # Modelled: nvidia-smi's held memory names no program: DRV-CUDA-COMPAT does not read it as a runtime that ran.
    busy = _IDLE_H100 + "".join(_H100_ROW.format(i=i, b=f"{0x18 + i:02X}", used="61234") for i in range(2))
    assert paste_checks(tmp_path, busy, COMPAT)[COMPAT].status == "unknown"


# A refused start (802) that CUDA at work after it in the same source shows behind (h108b, cuda_ran.ran_after).
_QUOTED_802 = "> ggml_cuda_init: failed to initialize CUDA: system not yet initialized\n"
_OLLAMA_H100 = ('time=2025-11-12T03:11:01.218Z level=INFO source=types.go:42 msg="inference compute" '
                'id=GPU-0a1b2c3d-675f-077e-3bf7-99d79213d062 filter_id="" library=CUDA compute=9.0 name=CUDA0 '
                'description="NVIDIA H100 80GB HBM3" libdirs=ollama driver=12.9 pci_id=0000:19:00.0 type=discrete '
                'total="79.6 GiB" available="79.2 GiB"\n')


def test_a_quoted_802_before_the_working_run_is_the_past_2443() -> None:
    # Corpus 2443 (ollama/ollama#12136): the user quotes the earlier 802, reinstalls Fabric Manager, and ollama's
    # discovery then lists the H100 under CUDA: both readers read DRV-FABRIC-MANAGER and DRV-CUDA-COMPAT ok.
    results = capture_checks("2443", FM, COMPAT)
    assert results[FM].status == "ok", results[FM].message
    assert "earlier with error 802" in results[FM].message
    assert results[COMPAT].status == "ok", results[COMPAT].message


def test_an_802_after_the_working_run_is_the_hosts_state(tmp_path: Path) -> None:
    # Modelled: the same lines in the other order: the failure is the last word, an issue.
    after = "Fixed it, I thought:\n\n" + _OLLAMA_H100 + "\nthen a day later:\n\n" + _QUOTED_802
    assert paste_checks(tmp_path, after, FM)[FM].status == "issue"
    before = _QUOTED_802 + "\nreinstalled the fabric manager, now:\n\n" + _OLLAMA_H100
    assert paste_checks(tmp_path, before, FM)[FM].status == "ok"


def test_ran_after_names_only_failures_that_cuda_at_work_follows() -> None:
    from stackaudit.facts.cuda_ran import ran_after

    failed = "ggml_cuda_init: failed to initialize CUDA: system not yet initialized"
    assert ran_after([failed, _OLLAMA_H100.strip()], [failed]) == (failed,)
    assert ran_after([_OLLAMA_H100.strip(), failed], [failed]) == ()
    nccl = "host:1:1 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE"
    assert ran_after([failed, nccl], [failed]) == (failed,)


@pytest.mark.parametrize(("prefix", "program", "line"), [
    # TensorRT's error recorder in a NIM on a MIG slice: the runtime's out-of-memory answer, no driver shown.
    ("2563", "the failing program", "Cuda Runtime (out of memory)"),
    # lmdeploy's TurboMind allocator on an L40: the same answer in its check_cuda_error's words.
    ("2565", "the failing program", "CUDA runtime error: out of memory"),
    # CTranslate2's CUDA_CHECK in faster-whisper's container on a GTX 1650: cudaGetErrorString's words for the same.
    ("2671", "the failing program", "CUDA failed with error out of memory"),
    # vLLM V0's weight load measured on the GPU by its memory profiler.
    ("2568", "vLLM", "Loading model weights took 5.2032 GB"),
    # TGI's shard reached flash-attn's architecture check on a T4 (the driver named only as a package).
    ("2557", "torch", "FlashAttention only supports Ampere GPUs or newer"),
])
def test_cuda_answering_with_memory_or_the_gpus_arch_is_cuda_at_work(prefix: str, program: str, line: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok", r.message
    assert f"the CUDA runtime {program} ships runs on the driver" in r.message and line in r.message


def test_the_same_words_without_cuda_at_work_say_nothing() -> None:
    # Modelled: a vLLM weight line of 0 GB, the same on vLLM's CPU or ROCm platform, a HIP build's out-of-memory line.
    weights = "INFO 02-26 09:54:02 model_runner.py:1115] Loading model weights took 0.0000 GB"
    assert ran_in_lines([weights]) == ()
    loaded = weights.replace("0.0000", "5.2032")
    assert [r.program for r in ran_in_lines([loaded])] == ["vLLM"]
    assert [r.program for r in ran_in_lines(["Model loading took 14.9915 GiB and 5.3 seconds"])] == ["vLLM"]
    assert ran_in_lines(["INFO 02-26 09:54:00 __init__.py:207] Automatically detected platform cpu.", loaded]) == ()
    assert ran_in_lines(["INFO 02-26 09:54:00 __init__.py:207] Automatically detected platform rocm.", loaded]) == ()
    assert ran_in_lines(["torch 2.4.0+rocm6.1", "[TM][ERROR] CUDA runtime error: out of memory"]) == ()
    # TGI's import check read the GPU's capability through torch (modelled on text-generation-inference#983's title).
    tgi = "Could not import Flash Attention enabled models: GPU with CUDA capability 7 0 is not supported"
    assert [r.program for r in ran_in_lines([tgi])] == ["torch"]
    # A driver too old answers the first call with 35, not out of memory: TensorRT's words for it show nothing.
    assert ran_in_lines(["Error Code 1: Cuda Runtime (CUDA driver version is insufficient for CUDA runtime version)"]) == ()
    assert ran_in_lines(["RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime "
                         "version"]) == ()


def test_cuda_answering_out_of_memory_beside_a_refused_start_is_not_ok(tmp_path: Path) -> None:
    # Modelled on corpus 2565: a refusal in the same paste wins (facts/cuda_ran.failed).
    text = _body("2565") + "CUDA driver version is insufficient for CUDA runtime version\n"
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


@pytest.mark.parametrize("prefix", ["2627", "2629", "2514"])  # TRL's env naming CUDA devices; torch's capability warning
def test_torch_naming_or_warning_of_its_cuda_devices_is_ok(prefix: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok" and "torch initialised CUDA" in r.message, r.message


def test_devices_torch_did_not_name_through_cuda_say_nothing() -> None:
    # Modelled: TRL's report with no CUDA device, an AMD device (a ROCm torch names HIP's), and torch's capability
    # warning without CUDA's index (the newer sentence, which two readers of 607 and 859 left unknown).
    assert torch_answered(["- CUDA device(s): not available"]) is None
    assert torch_answered(["- CUDA device(s): AMD Instinct MI300X"]) is None
    assert torch_answered(["NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the "
                           "current PyTorch installation."]) is None
    warned = ["    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1."]
    assert torch_answered(warned) is not None
    assert torch_answered([*warned, "PyTorch version: 2.9.1+rocm6.4"]) is None


@pytest.mark.parametrize(("prefix", "device"), [
    ("2664", "Tesla K80"),  # Fooocus's copy of ComfyUI's model management on a K80, no driver shown
    ("2665", "NVIDIA GeForce RTX 4090"),  # ComfyUI 0.3.33's start-up under Windows
    ("2660", "GRID P40-8Q"),  # Fooocus in a VMware guest on a P40-8Q vGPU, with cudaMallocAsync
])
def test_comfyui_naming_its_cuda_device_is_cuda_at_work(prefix: str, device: str) -> None:
    r = capture_checks(prefix, COMPAT)[COMPAT]
    assert r.status == "ok" and "ComfyUI's model management named cuda:0" in r.message and device in r.message, r.message


def test_comfyui_devices_not_named_through_cuda_say_nothing(tmp_path: Path) -> None:
    # Modelled: ComfyUI on the CPU, on DirectML, on an AMD GPU (torch's ROCm build calls it cuda:0), and on a ROCm
    # torch whose version the log shows; a line quoted inside prose is not the line as logged.
    assert ran_in_lines(["Total VRAM 32694 MB, total RAM 32694 MB", "Device: cpu"]) == ()
    assert ran_in_lines(["Device: privateuseone"]) == ()
    assert ran_in_lines(["Device: cuda:0 AMD Radeon RX 7900 XTX : native"]) == ()
    assert ran_in_lines(["pytorch version: 2.5.1+rocm6.2", "Device: cuda:0 Some GPU : native"]) == ()
    assert ran_in_lines(["it says Device: cuda:0 NVIDIA GeForce RTX 4090 : native but fails"]) == ()
    text = _body("2665") + "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
    assert paste_checks(tmp_path, text, COMPAT)[COMPAT].status != "ok"


def test_ollama_probe_reading_total_memory_is_cuda_at_work() -> None:
    # Corpus 2690: ollama's OLLAMA_DEBUG probe read the driver's CUDA 12.7 and each GPU's memory through nvcuda.dll
    # (`CUDA totalMem`), cut before the freeMem line: the discovery reached a GPU, so its runner choice is judged.
    r = capture_checks("2690", COMPAT)[COMPAT]
    assert r.status == "ok" and "driver=12.7" in r.message, r.message
    assert [x.program for x in ran_in_lines(["[GPU-4e64b2bc-98b0-d948-a660-7668c70aba4f] CUDA totalMem 24563 mb"])] \
        == ["ollama"]
    # ROCm's probe prints its total in bytes under an index: not CUDA's.
    assert ran_in_lines(["[0] ROCm totalMem 12868124672"]) == ()
