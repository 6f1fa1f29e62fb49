"""MEM-MIG and RT-TORCH-ARCH decided by what the paste names: a GPU model without MIG wherever its name stands (a DCGM
device id, a mining board's name, nvidia-smi's csv rows, the user's own count of cards), the program that runs (a
kernel or Xid line naming llama.cpp's process, Jan's llama.cpp plugin log) and the torch build (its NVCC architecture
flags, a bare release beside its CUDA). Pastes marked `(verbatim, <thread>)` are real ones the corpus does not hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, capture_result, paste_checks
from stackaudit.checks.rt import official_build
from stackaudit.facts.collect_env import arch_flags
from stackaudit.facts.gpus import (
    jetson_module,
    jetson_platform,
    listed_model,
    owned_model,
    parse_query_rows,
    stated_gpus,
)
from stackaudit.gputable import by_pci_device_id, has_mig, nvlink_links_of, without_mig

MIG = "MEM-MIG"
ARCH = "RT-TORCH-ARCH"


# --- MEM-MIG: the model named, wherever it stands ------------------------------------------------------------------


def test_mig_parts_follow_the_mig_user_guide() -> None:
    # docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html: A100, A30, H100, H200, H20, B200 have MIG.
    for model in ("A100 SXM4 80GB", "A30", "H100 SXM", "H200 SXM", "H20", "B200", "A800 PCIe 80GB"):
        assert has_mig(model) is not False, model
    for model in ("L40S", "L4", "A10G", "RTX 4090", "T4", "Tesla V100 SXM2 32GB", "NVIDIA P104-100"):
        assert has_mig(model) is False, model


def test_pascal_mining_boards_have_no_mig_1634() -> None:
    # nvidia-smi's `NVIDIA P104-100` (GP104): Pascal, no MIG.
    assert "Pascal" in without_mig("NVIDIA P104-100")
    assert "Pascal" in without_mig("P106-100")
    assert capture_checks("1634", MIG)[MIG].status == "not-applicable"


def test_dcgm_device_id_of_an_l40s_1558() -> None:
    # `GPU Device IDs Detected | 26b9, 26b9, 26b9, 26b9`: pci.ids' `AD102GL [L40S]`.
    spec = by_pci_device_id("26b9")
    assert spec is not None and spec.name == "L40S"
    r = capture_checks("1558", MIG)[MIG]
    assert r.status == "not-applicable" and "L40S" in r.message


def test_users_count_of_cards_before_the_brand_1629_1625() -> None:
    assert stated_gpus("Two NVIDIA GeForce RTX 5090  ") == [(2, "RTX 5090")]
    assert stated_gpus("on 2 RTX4090, but it ran failed") == [(2, "RTX 4090")]
    # A machine word after the model names hosts of GPUs, not cards; an unknown model states nothing.
    assert stated_gpus("we have two NVIDIA H100 servers") == []
    assert stated_gpus("It has two GTX cards") == []
    for prefix in ("1629", "1625"):
        assert capture_checks(prefix, MIG)[MIG].status == "not-applicable"


def test_users_two_rtx_5090_gpus(tmp_path: Path) -> None:
    # (verbatim, vllm-project/vllm#14628) the issue body's sentence and vLLM's version line.
    text = ("I’m trying to run vLLM on a machine with two RTX 5090 GPUs, specifically using tensor parallelism with a "
            "size of 2. Inference on a single 5090 works fine, but I’m having trouble with two GPUs.\n"
            "INFO 03-11 17:07:45 [api_server.py:912] vLLM API server version 0.7.4.dev254+ged6ea065.d20250311\n")
    r = paste_checks(tmp_path, text, MIG)[MIG]
    assert r.status == "not-applicable" and "RTX 5090" in r.message


def test_nvidia_smi_query_rows_name_the_gpus_1118() -> None:
    gpus = parse_query_rows("  0, NVIDIA GeForce RTX 3090, 595.58.03\n  1, NVIDIA GeForce RTX 3090, 595.58.03\n")
    assert gpus.models == {0: "NVIDIA GeForce RTX 3090", 1: "NVIDIA GeForce RTX 3090"} and gpus.count == 2
    r = capture_checks("1118", MIG, ARCH)
    assert r[MIG].status == "not-applicable"
    assert r[ARCH].status == "ok" and "sm_86" in r[ARCH].message


def test_query_rows_of_a_mig_capable_gpu_stay_open(tmp_path: Path) -> None:
    # Modelled on corpus 1118's rows: an A100 may run in MIG mode, which the rows do not show.
    r = paste_checks(tmp_path, "  0, NVIDIA A100-SXM4-80GB, 550.54.15\n", MIG)[MIG]
    assert r.status == "unknown"


# --- RT-TORCH-ARCH: the program shown runs no torch ----------------------------------------------------------------


def test_kernel_segfault_line_names_koboldcpp_1587() -> None:
    r = capture_checks("1587", ARCH)[ARCH]
    assert r.status == "not-applicable" and "llama.cpp" in r.message


def test_xid_line_names_koboldcpp(tmp_path: Path) -> None:
    # (verbatim, LostRuins/koboldcpp#1362, a later comment than corpus 1587's) the driver's Xid lines name the process.
    text = ("Mar  7 10:58:20 tuxaio kernel: [62781.901234] NVRM: Xid (PCI:0000:83:00): 62, 0000147c 0000159c 00023468 "
            "000232a6 00001d50 00023e2b 00000011 00000000\n"
            "Mar  7 10:58:20 tuxaio kernel: [62781.907112] NVRM: Xid (PCI:0000:83:00): 45, pid=109288, name=koboldcpp, "
            "Ch 00000010\n"
            "Mar  7 10:58:21 tuxaio kernel: [62782.911346] NVRM: Xid (PCI:0000:83:00): 45, pid=109288, name=koboldcpp, "
            "Ch 00000011\n")
    r = paste_checks(tmp_path, text, ARCH)[ARCH]
    assert r.status == "not-applicable" and "llama.cpp" in r.message


def test_a_python_process_in_an_xid_line_names_no_engine(tmp_path: Path) -> None:
    # Modelled on the line above: `python3` may run torch, so the check stays open.
    text = ("Mar  7 10:58:20 host kernel: [62781.907112] NVRM: Xid (PCI:0000:83:00): 45, pid=109288, name=python3, "
            "Ch 00000010\n")
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status == "unknown"


def test_jan_llamacpp_plugin_log_1590() -> None:
    r = capture_checks("1590", ARCH)[ARCH]
    assert r.status == "not-applicable" and "llama.cpp" in r.message


def test_jan_router_log(tmp_path: Path) -> None:
    # (verbatim, janhq/jan#8373) Jan's llama.cpp plugin relaying its router's lines.
    text = ("[2026-07-06][19:20:52][tauri_plugin_llamacpp::router][INFO] [llamacpp-router] warn: LLAMA_ARG_MODELS_MAX "
            "environment variable is set, but will be overwritten by command line argument --models-max\n"
            "[2026-07-06][19:20:52][tauri_plugin_llamacpp::router][INFO] [llamacpp-router] 0.00.136.224 I srv          "
            "init: running without SSL\n"
            "[2026-07-06][19:20:52][tauri_plugin_llamacpp::router][INFO] [llamacpp-router] 0.00.136.276 I srv          "
            "init: using 15 threads for HTTP server\n")
    r = paste_checks(tmp_path, text, ARCH)[ARCH]
    assert r.status == "not-applicable" and "llama.cpp" in r.message


# --- RT-TORCH-ARCH: the torch build named --------------------------------------------------------------------------


def test_nvcc_architecture_flags_are_the_arch_list_1089() -> None:
    line = ("  - NVCC architecture flags: -gencode;arch=compute_70,code=sm_70;-gencode;arch=compute_75,code=sm_75;"
            "-gencode;arch=compute_120,code=sm_120")
    assert arch_flags(line) == ("sm_70", "sm_75", "sm_120")
    assert arch_flags(line[:-8]) is None  # cut inside its last target: not the whole list
    r = capture_checks("1089", ARCH)[ARCH]
    assert r.status == "ok" and "NVCC architecture flags" in r.message and "sm_70" in r.message


def test_flags_without_the_gpus_arch_are_an_issue(tmp_path: Path) -> None:
    # Modelled on corpus 1089's check_env: the same V100s with a build whose flags start at sm_75.
    text = ("sys.platform: linux\nPython: 3.10.12 (main, Aug 15 2025, 14:32:43) [GCC 11.4.0]\nCUDA available: True\n"
            "MUSA available: False\nnumpy_random_seed: 2147483648\nGPU 0,1: Tesla V100-SXM2-32GB\n"
            "CUDA_HOME: /usr/local/cuda\nNVCC: Cuda compilation tools, release 12.4, V12.4.131\n"
            "GCC: x86_64-linux-gnu-gcc (Ubuntu 11.4.0-1ubuntu1~22.04.2) 11.4.0\nPyTorch: 2.8.0+cu128\n"
            "PyTorch compiling details: PyTorch built with:\n  - CUDA Runtime 12.8\n"
            "  - NVCC architecture flags: -gencode;arch=compute_75,code=sm_75;-gencode;arch=compute_80,code=sm_80;"
            "-gencode;arch=compute_90,code=sm_90;-gencode;arch=compute_120,code=sm_120\n")
    r = paste_checks(tmp_path, text, ARCH)[ARCH]
    assert r.status == "issue" and "Tesla V100" in r.message


def test_bare_release_beside_its_cuda_915_340() -> None:
    assert official_build("1.10.2", "11.3") == "1.10.2+cu113"
    assert official_build("2.7.0a0+ecf3bae40a.nv25.02", "12.8") == ""  # an NGC build names its own list
    assert official_build("1.10.0a0+git36449ea", "11.3") == ""  # a source build
    for prefix in ("915", "340"):
        assert capture_checks(prefix, ARCH)[ARCH].status == "ok", prefix


def test_volta_on_cu128_and_cu129_stays_open_1019_1380() -> None:
    # torch 2.8 to 2.10 kept sm_70 in the CUDA 12.8 and 12.9 x86_64 wheels (pytorch/pytorch#160269; dropped from
    # cu128 for 2.11: pytorch/pytorch#172352), but not on aarch64: no flags line, no verdict.
    for prefix in ("1019", "1380"):
        assert capture_checks(prefix, ARCH)[ARCH].status == "unknown", prefix


def test_a_cut_name_that_names_no_architecture_is_dropped_1061() -> None:
    # `GPU 2: NVIDIA R` under two RTX PRO 6000 Blackwell Server Editions: an RTX 6000 Ada, RTX A6000 or RTX PRO 6000
    # Blackwell, so no model; the two whole names decide, over those two GPUs.
    from stackaudit.facts.collect_env import parse_collect_env

    report = parse_collect_env("PyTorch version              : 2.9.0+cu129\nIs CUDA available            : True\n"
                               "GPU models and configuration : \n"
                               "GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition\n"
                               "GPU 1: NVIDIA RTX PRO 6000 Blackwell Server Edition\nGPU 2: NVIDIA R\n")
    assert report.gpu_models == ("NVIDIA RTX PRO 6000 Blackwell Server Edition",) * 2
    # A fragment whose rows agree (`NVIDIA B3`: the B300) stays, marked cut (corpus 825).
    kept = parse_collect_env("PyTorch version: 2.9.0+cu129\nIs CUDA available: True\nGPU models and configuration:\n"
                             "GPU 0: NVIDIA B300 SXM6 AC\nGPU 1: NVIDIA B3\n")
    assert kept.gpu_models == ("NVIDIA B300 SXM6 AC", "NVIDIA B3...")
    r = capture_checks("1061", ARCH)[ARCH]
    assert r.status == "ok" and "sm_120" in r.message


def test_pip_list_of_llama_cpp_python_1542() -> None:
    # `Python 3.10.12` over `llama_cpp_python         0.2.7`: the binding runs llama.cpp's ggml kernels, no torch.
    from stackaudit.facts.python_env import PIP_LIST_GGML

    assert PIP_LIST_GGML.match("llama_cpp_python         0.2.7")
    assert not PIP_LIST_GGML.match("llama_cpp_python 0.2.7 is slow")  # a sentence, not pip's padded columns
    r = capture_checks("1542", ARCH)[ARCH]
    assert r.status == "not-applicable" and "llama.cpp" in r.message


def test_pip_list_with_torch_beside_llama_cpp_python_stays_open(tmp_path: Path) -> None:
    # Modelled on corpus 1542's list: torch stated beside it may serve through another program.
    text = "llama_cpp_python         0.2.7\nPyTorch: 2.1.0+cu121\n"
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status != "not-applicable"


# --- a pod spec's nodeSelector naming its nodes' GPU model (facts/gpus.gpus_from_node_selector) ----------------------

# Real: the Kubernetes documentation's "Schedule GPUs" page (kubernetes/website, content/en/docs/tasks/manage-gpus/
# scheduling-gpus.md, the v1.10-era version), its pod verbatim.
K8S_DOCS_P100_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda-vector-add
spec:
  restartPolicy: OnFailure
  containers:
    - name: cuda-vector-add
      # https://github.com/kubernetes/kubernetes/blob/v1.7.11/test/images/nvidia-cuda/Dockerfile
      image: "k8s.gcr.io/cuda-vector-add:v0.1"
      resources:
        limits:
          nvidia.com/gpu: 1
  nodeSelector:
    accelerator: nvidia-tesla-p100 # or nvidia-tesla-k80 etc.
"""


def test_a_node_selector_naming_a_model_without_mig_2124(tmp_path: Path) -> None:
    """A pod pinned by its nodeSelector to nodes labelled with a GPU model gets GPUs of that model: the label's value,
    read by the GPU table, decides MIG for the GPUs it asks. Real: corpus 2124 (NVIDIA/k8s-device-plugin#119,
    `accelerator: gtx-1050`; both readers not-applicable) and the Kubernetes documentation's pod."""
    result = capture_checks("2124", MIG)[MIG]
    assert result.status == "not-applicable" and "gtx 1050" in result.message, result.message
    result = paste_checks(tmp_path, K8S_DOCS_P100_POD, MIG)[MIG]
    assert result.status == "not-applicable" and "P100" in result.message, result.message


@pytest.mark.parametrize("selector, limit", [
    ("cloud.google.com/gke-accelerator: nvidia-tesla-a100", "1"),  # a model with MIG: its own mode decides
    ("kubernetes.azure.com/accelerator: nvidia", "1"),  # AKS's label names the vendor, no model
    ("accelerator: nvidia-tesla-p100", "0"),  # no GPU asked: pinned there for another reason
    ("kubernetes.io/hostname: gtx-1050", "1"),  # not a GPU label, whatever its value
])
def test_a_node_selector_naming_no_model_without_mig_stays_open(tmp_path: Path, selector: str, limit: str) -> None:
    """Modelled on the documentation's pod: a label of a model with MIG, a label naming no model, a pod asking no GPU
    and another label key leave MEM-MIG open."""
    text = K8S_DOCS_P100_POD.replace("accelerator: nvidia-tesla-p100", selector).replace(
        "nvidia.com/gpu: 1", f"nvidia.com/gpu: {limit}")
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "unknown", selector


# A kernel log's PCI enumeration lines (corpus 2277, HeyMeco/Rockchip-pcie-devices#2), modelled around its GPU line.
ENUMERATED = """\
dmesg | grep 0000:01:00
[    2.819204] pci 0000:01:00.0: [10de:2204] type 00 class 0x030000 PCIe Legacy Endpoint
[    2.819246] pci 0000:01:00.0: BAR 0 [mem 0x00000000-0x00ffffff]
[    2.820334] pci 0000:01:00.0: vgaarb: VGA device added: decodes=io+mem,owns=none,locks=none
[    2.821204] pci 0000:01:00.1: [10de:1aef] type 00 class 0x040300 PCIe Legacy Endpoint
"""


def test_the_kernels_pci_enumeration_line_names_the_gpu_2277() -> None:
    """The kernel's own line for a function it found (`pci 0000:01:00.0: [10de:2204] type 00 class 0x030000`) is an
    NVIDIA display controller at that address, its device id read by the GPU table (2204: the RTX 3090, no MIG)."""
    from corpus import body
    from stackaudit.facts.gpus import kernel_pci_gpus

    assert kernel_pci_gpus(body("2277").splitlines()) == {"0000:01:00.0": "2204"}
    assert by_pci_device_id("2204") is not None and by_pci_device_id("2204").name == "RTX 3090"
    result = capture_checks("2277", MIG)[MIG]
    assert result.status == "not-applicable" and "RTX 3090" in result.message, result.message


def test_an_enumerated_function_that_is_no_gpu_names_none(tmp_path: Path) -> None:
    """The GPU's audio function (class 0x0403), another vendor's display controller and an id the GPU table lacks
    name no model without MIG: MEM-MIG stays open."""
    from stackaudit.facts.gpus import kernel_pci_gpus

    audio = "\n".join(line for line in ENUMERATED.splitlines() if "0000:01:00.0" not in line) + "\n"
    assert kernel_pci_gpus(audio.splitlines()) == {}
    assert paste_checks(tmp_path, audio, MIG)[MIG].status == "unknown"
    intel = ENUMERATED.replace("[10de:2204]", "[8086:56a0]")
    assert paste_checks(tmp_path, intel, MIG)[MIG].status == "unknown"
    assert paste_checks(tmp_path, ENUMERATED, MIG)[MIG].status == "not-applicable"


# skypilot-org/skypilot#253 (gmittal, "Fix A100 default instance type on GCP"): its tested launches, verbatim.
SKYPILOT_253 = """\
sky gpunode -c t1 --cloud gcp --gpus A100
sky gpunode -c t2 --cloud gcp --gpus A100:8
"""


def test_a_launchers_accelerator_request_states_the_gpus_2246(tmp_path: Path) -> None:
    """SkyPilot's `--gpus <model>:<count>` asks the cloud for a machine with those GPUs, where the job then runs (corpus
    2246: `--gpus T4:4` on Azure; T4s have no MIG). A request of a model with MIG leaves MIG open; Docker's own
    `--gpus` values name no model."""
    line = "» sky launch compose_example.yaml -c dbg --cloud azure --cpus 2+ --down --gpus T4:4"
    assert stated_gpus(line) == [(4, "T4")]
    result = capture_checks("2246", MIG)[MIG]
    assert result.status == "not-applicable" and "T4" in result.message, result.message
    assert stated_gpus(SKYPILOT_253.splitlines()[1]) == [(8, "A100")]
    assert stated_gpus("  accelerators: {L4:1}") == [(1, "L4")]
    assert paste_checks(tmp_path, SKYPILOT_253, MIG)[MIG].status == "unknown"
    for docker in ("docker run --gpus all nvidia/cuda nvidia-smi", "docker run --gpus 2 img",
                   "docker run --gpus '\"device=0,1\"' img", "docker run --gpus device=1 img"):
        assert stated_gpus(docker) == [], docker


# --- MEM-MIG: mining boards, a bare V100 in an inline key, a Jetson's CSV mode (h103b) ----------------------------


def test_cmp_mining_boards_have_no_mig_2327(tmp_path: Path) -> None:
    # llm_benchmark's report names `gpu_info: NVIDIA CMP 30HX` (TU116: Turing); the Ampere boards are GA10x, outside
    # the MIG user guide; the GA100 board (CMP 170HX) stays open.
    # The vendor's name before a brand word is no part of the model (gpus._model_in).
    assert listed_model("gpu_info: NVIDIA CMP 30HX") == "CMP 30HX"
    assert "Turing" in without_mig("NVIDIA CMP 30HX") and "Turing" in without_mig("CMP 30HX")
    assert has_mig("NVIDIA CMP 90HX") is False
    assert has_mig("NVIDIA CMP 170HX") is None
    r = capture_checks("2327", MIG)[MIG]
    assert r.status == "not-applicable" and "CMP 30HX" in r.message
    # Modelled: the same report on an A100 keeps MIG open; a key that is no GPU's names no model.
    text = "-------Linux----------\ngpu_info: NVIDIA A100-SXM4-80GB\nos_version: Ubuntu 22.04 LTS\n"
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "unknown"
    assert listed_model("gpu_infos: NVIDIA CMP 30HX") == ""


def test_a_bare_v100_in_the_users_inline_keys_2333(tmp_path: Path) -> None:
    # `I have ubuntu-22.04, cuda==12.1, nvidia driver == 530, gpu==V100`: the table's ambiguous `V100` (every candidate
    # Volta: no MIG; NVLink differs between SXM2 and PCIe, so it stays open).
    line = "I have ubuntu-22.04, cuda==12.1, nvidia driver == 530, gpu==V100"
    assert owned_model(line) == "V100"
    assert has_mig("V100") is False and nvlink_links_of("V100") is None
    r = capture_checks("2333", MIG)[MIG]
    assert r.status == "not-applicable" and "V100" in r.message
    # Modelled: a flag, a variable or a count is no model; an A100 keeps MIG open.
    for other in ("--gpu=0 --model x", "num_gpu=1", "gpu=2", "GPU == 1"):
        assert owned_model(other) == "", other
    text = "I have ubuntu-22.04, cuda==12.1, nvidia driver == 530, gpu==A100\n"
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "unknown"


def test_the_container_toolkits_csv_mode_is_a_jetson_before_thor_2338(tmp_path: Path) -> None:
    # The hook's `Auto-detected mode as 'csv'`: a Tegra host on the nvgpu driver, which Thor does not run.
    line = ("docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create "
            "failed: unable to start container process: error during container init: error running hook #0: error "
            "running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'csv'")
    assert "nvgpu" in jetson_platform(line)
    assert "Jetson" in without_mig(jetson_platform(line))
    r = capture_checks("2338", MIG)[MIG]
    assert r.status == "not-applicable" and "Jetson" in r.message
    # Corpus 2333 (another thread): the same hook in its legacy mode on a V100 host names no Jetson; modelled: the nvml
    # mode Thor resolves names none either.
    assert jetson_platform(line.replace("'csv'", "'legacy'")) == ""
    assert jetson_platform(line.replace("'csv'", "'nvml'")) == ""
    text = body("2338").replace("'csv'", "'nvml'")
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "unknown"


# --- MEM-MIG: an SoC's integrated GPU, the DGX Spark's GB10 (h113a) ----------------------------------------------


def test_the_gb10_has_no_mig_2511_2514_2515_1912(tmp_path: Path) -> None:
    # collect_env's `GPU 0: NVIDIA GB10` (2511), torch's capability warning naming it (2514), a cut nvidia-smi table
    # (2515), and another thread's collect_env (1912): the MIG user guide lists no GB10 (INTEGRATED_GPUS).
    assert has_mig("NVIDIA GB10") is False and "GB10" in without_mig("NVIDIA GB10")
    for prefix in ("2511", "2514", "2515", "1912"):
        r = capture_checks(prefix, MIG)[MIG]
        assert r.status == "not-applicable" and "GB10" in r.message, prefix
    # Modelled: the GB100 and GB200 boards are not the GB10, and a GH200 in the same collect_env keeps MIG open.
    assert has_mig("NVIDIA GB100") is not False and has_mig("NVIDIA GB200") is not False
    assert without_mig("NVIDIA GB200") == ""
    text = body("2511").replace("NVIDIA GB10", "NVIDIA GH200 480GB")
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "unknown"


def test_a_jetson_module_named_in_the_users_case_is_one_module_2518_1773(tmp_path: Path) -> None:
    # The title's `Nvidia Jetson AGX ORIN` beside jtop's `Module: NVIDIA Jetson AGX Orin (64GB ram)`: one module in
    # NVIDIA's spelling, so the user's words name one GPU, a Jetson's before Thor.
    assert jetson_module("Getting Error in installing vllm on Nvidia Jetson AGX ORIN ") == "NVIDIA Jetson AGX Orin"
    r = capture_checks("2518", MIG)[MIG]
    assert r.status == "not-applicable" and "Jetson AGX Orin" in r.message
    # Corpus 1773 (another thread): jtop's `Module: NVIDIA Jetson Orin NX(16GB ram)` keeps its name.
    assert jetson_module("Module: NVIDIA Jetson Orin NX(16GB ram)") == "NVIDIA Jetson Orin NX"
    assert capture_checks("1773", MIG)[MIG].status == "not-applicable"
    # Modelled: a host name is no module; a Thor in any case keeps MIG open (its iGPU has MIG).
    assert jetson_module("Hostname: jetson-desktop") == ""
    assert jetson_module("my nvidia jetson THOR") == "NVIDIA Jetson Thor" and without_mig("NVIDIA Jetson Thor") == ""
    text = "Getting Error on Nvidia Jetson AGX THOR\nModule: NVIDIA Jetson AGX Thor Developer Kit\n"
    assert paste_checks(tmp_path, text, MIG)[MIG].status != "not-applicable"


def test_a_gpu_named_in_backticks_or_after_a_single_is_the_users() -> None:
    # Real (corpus 2587, llama.cpp): "failed on `RTX3090` GPU with `Driver Version: ...`".
    assert owned_model("Quantizing gguf model failed on `RTX3090` GPU with `Driver Version: 525.105.17`.") == "RTX 3090"
    # Real (corpus 2562, SGLang): "can be ran on a single H20 GPU".
    assert owned_model("gpt-oss-120b model can be ran on a single H20 GPU and throughput is almost 200tokens/s.") == "H20"
    # Modelled: backticks around a word that is no GPU, and `on a` before no model, name none.
    assert owned_model("it fails on `main` GPU branch builds") == ""
    assert owned_model("it runs on a single node") == ""


@pytest.mark.parametrize("check", ["MEM-MIG", "DRV-FABRIC-MANAGER"])
def test_an_rtx_3090_in_the_users_words_has_no_mig_and_no_nvswitch(check: str) -> None:
    # Corpus 2587: the one GPU is named in the user's words only.
    assert capture_result("2587", check).status == "not-applicable"
