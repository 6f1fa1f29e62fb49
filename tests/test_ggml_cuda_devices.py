"""llama.cpp's `ggml_cuda_init` device list names the GPUs CUDA sees: it feeds the GPU inventory as a lower bound
(CUDA_VISIBLE_DEVICES may hide GPUs), so a GeForce card rules out an NVSwitch host (Fabric Manager not applicable)
while NVLink, each GPU's own, stays open."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import parse_ggml_cuda_gpus

FM = "DRV-FABRIC-MANAGER"
NVLINK = "DRV-NVLINK-HEALTH"

# https://github.com/ikawrakow/ik_llama.cpp/pull/370 (comment by ubergarm), verbatim lines of the fenced log.
IK_370 = """llm_load_print_meta: max token length = 1024
ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes
llm_load_tensors: ggml ctx size =    0.56 MiB
llm_load_tensors: offloading 61 repeating layers to GPU
"""

# https://github.com/ikawrakow/ik_llama.cpp/issues/514 (comment by mtcl): started with CUDA_VISIBLE_DEVICES="1".
IK_514 = """ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes
"""

# https://github.com/ggml-org/llama.cpp/issues/6758 (comment by TimexPeachtree), llama-server on Windows.
LLAMA_6758 = """ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 4050 Laptop GPU, compute capability 8.9, VMM: yes
build: 4393 (d79d8f39) with MSVC 19.29.30157.0 for
"""


def test_device_lines_feed_the_inventory_as_a_lower_bound() -> None:
    gpus = parse_ggml_cuda_gpus(IK_370)
    assert gpus.models == {0: "NVIDIA GeForce RTX 3090 Ti"} and gpus.count == 1
    assert gpus.count_unshown  # CUDA_VISIBLE_DEVICES may narrow it (ik_llama.cpp#514 sets it)


def test_geforce_in_the_engine_log_rules_out_fabric_manager(tmp_path: Path) -> None:
    for text, model in ((IK_370, "RTX 3090 Ti"), (IK_514, "RTX 5090"), (LLAMA_6758, "RTX 4050 Laptop GPU")):
        r = paste_checks(tmp_path, text, FM, NVLINK)
        assert r[FM].status == "not-applicable" and model in r[FM].message, (model, r[FM].message)
        # NVLink is each GPU's own (h68l): an RTX 5090 has none, judged over the GPU CUDA lists; the GPU table does not
        # settle the links of the RTX 3090 Ti or of the RTX 4050 Laptop GPU (gputable.nvlink_links_of: None), so open.
        assert r[NVLINK].status == ("not-applicable" if model == "RTX 5090" else "unknown"), model


# Modelled counter-example: eight SXM modules in the same lines may sit on an NVSwitch.
HGX = "ggml_cuda_init: found 8 CUDA devices:\n" + "".join(
    f"  Device {i}: NVIDIA H100 80GB HBM3, compute capability 9.0, VMM: yes\n" for i in range(8))


def test_modelled_sxm_modules_leave_fabric_manager_open(tmp_path: Path) -> None:
    assert paste_checks(tmp_path, HGX, FM)[FM].status == "unknown"


# --- llama.cpp's `using device CUDA0 (NAME) - N MiB free` (issue 28, blind XH: corpus 1034) ---------------------

SHARED = "MEM-GPU-SHARED"
ACCESS = "CTR-GPU-ACCESS"
# https://github.com/abetlen/llama-cpp-python/issues/1939 (issue body by 0xb1te): two RTX 3090s in a compose service,
# verbatim lines of the log (from its second line, whose first opens an inline code span).
LCP_1939 = """llama-1  |   Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes
llama-1  | llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23590 MiB free
llama-1  | llama_model_load_from_file_impl: using device CUDA1 (NVIDIA GeForce RTX 3090) - 23858 MiB free
llama-1  | llama_model_loader: additional 4 GGUFs metadata loaded.
"""


def test_the_free_memory_at_load_against_the_cards_size_1034() -> None:
    from corpus import capture_checks

    r = capture_checks("1034", SHARED, ACCESS)
    assert r[SHARED].status == "ok" and r[SHARED].coverage is not None
    assert r[SHARED].coverage.shown == ("CUDA0 (NVIDIA GeForce RTX 4060)",)
    assert "7839 of 8192 MiB free" in str(r[SHARED].actual)
    # The user's words put the server in Kubernetes; the runner there opened the RTX 4060 through CUDA.
    assert r[ACCESS].status == "ok" and "CUDA0" in r[ACCESS].message


def test_memory_held_at_load_is_reported_not_judged(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, LCP_1939, SHARED)[SHARED]
    # 24576 - 23590 MiB: about 1 GiB held on CUDA0 before the model (a desktop, or another program): a desktop's
    # share, which leaves the engine over nine tenths of the card (corpus 1112 reads 1.8 of 23.6 GiB so).
    assert r.status == "not-an-issue" and "CUDA0 (NVIDIA GeForce RTX 3090) (1.0 of 24.0 GiB)" in r.message
    # Modelled: 4.6 GiB held is more than a desktop's share: reported, not judged.
    r = paste_checks(tmp_path, LCP_1939.replace("23590 MiB free", "19890 MiB free"), SHARED)[SHARED]
    assert r.status == "unknown" and "CUDA0 (NVIDIA GeForce RTX 3090) (4.6 GiB)" in r.message


def test_a_name_of_several_memory_sizes_gives_no_total(tmp_path: Path) -> None:
    # Modelled: the RTX 4060 Ti comes with 8 or 16 GB, so the free memory alone cannot say what was held.
    line = "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 4060 Ti) - 7600 MiB free\n"
    assert paste_checks(tmp_path, line, SHARED)[SHARED].status == "unknown"


def test_the_engine_at_work_proves_access_wherever_it_runs(tmp_path: Path) -> None:
    from corpus import body

    # Modelled: 1034's log without the user's sentence that puts the server in Kubernetes. CUDA at work on the GPU
    # shows the device nodes and the driver's library reached the process, in a container or not (corpus 1927, 1930).
    log = body("1034").split("The logs are the following: \n", 1)[1]
    result = paste_checks(tmp_path, log, ACCESS)[ACCESS]
    assert result.status == "ok" and "wherever it runs" in result.message


def test_device_lines_whose_found_line_is_cut() -> None:
    from corpus import fact, pasted

    # corpus 927: the device line alone, with its `VMM:` field; modelled: another program's device line without it.
    gpus = fact(pasted("Device 0: NVIDIA GeForce RTX 3050 Laptop GPU, compute capability 8.6, VMM: yes\n"), "gpus")
    assert gpus.models == {0: "NVIDIA GeForce RTX 3050 Laptop GPU"}
    other = fact(pasted("Device 0: NVIDIA GeForce RTX 3050 Laptop GPU, compute capability 8.6\n"), "gpus")
    # The card the line names is read as the user's words name it (its laptop part kept), not as ggml's device list.
    assert other.sources == ("prose machine",) and other.models == {0: "GeForce RTX 3050 Laptop GPU"}
    # corpus 1166: the paste starts at the list's last line, behind a journal prefix; the run starts where it does.
    line = "May 22 07:36:20 ubuntuserver ollama[1413041]:   Device 4: NVIDIA GeForce RTX 4090 D, compute capability 8.9, VMM: yes\n"
    assert fact(pasted(line), "gpus").models == {4: "NVIDIA GeForce RTX 4090 D"}


COMPAT = "DRV-CUDA-COMPAT"


def test_the_device_info_list_shows_cuda_ran_1059() -> None:
    """llama.cpp's `device_info:` list read each CUDA device's memory through its runtime (corpus 1059)."""
    from corpus import capture_checks
    r = capture_checks("1059", COMPAT)[COMPAT]
    assert r.status == "ok" and "CUDA0, CUDA1" in r.message


def test_a_device_info_list_of_no_cuda_device_proves_nothing(tmp_path: Path) -> None:
    """Modelled: only the CPU in the list (a CPU build) shows no CUDA runtime at work."""
    log = ("0.00.345.957 I device_info:\n"
           "0.00.528.109 I   - CPU     : AMD Ryzen 7 7800X3D 8-Core Processor (62151 MiB, 62151 MiB free)\n"
           "0.00.528.200 I system_info: n_threads = 8 (n_threads_batch = 8) / 16 | CPU : SSE3 = 1 | AVX = 1 |\n")
    assert paste_checks(tmp_path, log, COMPAT)[COMPAT].status == "unknown"


def test_using_device_lines_name_the_gpus_as_a_lower_bound() -> None:
    # Corpus 1093 (ollama/ollama#8377): the journal's `using device CUDA0 (NVIDIA GeForce RTX 3090)` lines name the
    # GPUs, so the ARCHS list is judged against their capabilities; the count is a lower bound (the devices used).
    from stackaudit.facts.gpus import gpus_from_ggml_using_device

    body = next((Path(__file__).parent / "data" / "captures").glob("1093-*.txt")).read_text()
    inventory = gpus_from_ggml_using_device(body)
    assert [g.model for g in inventory.gpus] == ["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4060 Ti"]
    assert inventory.partial and inventory.whole_count is None
    result = capture_checks("1093", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert result.status == "ok" and "8.6" in result.message and "8.9" in result.message


# --- llama.cpp's 2023 `ggml_cuda_set_main_device: using device N (NAME) as main device` (issue 28, h78a) ----------
# ggml-cuda.cu printed it from cudaGetDeviceProperties where it found more than one device: CUDA named the GPU.
MIG = "MEM-MIG"

# https://github.com/ggml-org/llama.cpp/issues/3616 (issue body by ruslanmustafin), the lines after the `...`.
LLAMA_3616 = """llm_load_tensors: using CUDA for GPU acceleration
ggml_cuda_set_main_device: using device 0 (NVIDIA GeForce RTX 3090) as main device
llm_load_tensors: mem required  = 4560.96 MB
llm_load_tensors: offloading 0 repeating layers to GPU
"""

# A public llama-cpp-python bot's console (a WebEx bot's write-up, 2023-11-25), the loader's lines.
A16_BOT = """llm_load_tensors: ggml ctx size =    0.11 MiB
llm_load_tensors: using CUDA for GPU acceleration
ggml_cuda_set_main_device: using device 0 (NVIDIA A16) as main device
llm_load_tensors: mem required  =  172.97 MiB
llm_load_tensors: offloading 32 repeating layers to GPU
"""


def test_the_main_device_line_names_a_gpu_cuda_ran(tmp_path: Path) -> None:
    from stackaudit.facts.gpus import gpus_from_ggml_using_device
    r = paste_checks(tmp_path, LLAMA_3616, FM, MIG)
    assert r[FM].status == "not-applicable" and "RTX 3090" in r[FM].message, r[FM].message
    assert r[MIG].status == "not-applicable" and "RTX 3090" in r[MIG].message, r[MIG].message
    # The A16 is in the inventory as CUDA named it: no MIG (not in NVIDIA's MIG user guide); whether it may sit on an
    # NVSwitch the GPU table does not say, so Fabric Manager stays open.
    assert gpus_from_ggml_using_device(A16_BOT).models == {0: "NVIDIA A16"}
    r = paste_checks(tmp_path, A16_BOT, FM, MIG)
    assert r[MIG].status == "not-applicable" and "A16" in r[MIG].message and r[FM].status == "unknown"


def test_a_whole_a100_as_main_device_is_mig_off_1665_1720() -> None:
    # Corpus 1665 (ggml-org/llama.cpp#4055): only the main device's line names the PCIe A100, whole (no `MIG 3g.40gb`).
    r = capture_checks("1665", MIG, FM)
    assert r[MIG].status == "ok" and "NVIDIA A100 80GB PCIe" in r[MIG].message and "as main device" in r[MIG].message
    assert r[FM].status == "not-applicable" and "A100 80GB PCIe" in r[FM].message
    # Corpus 1720 (ggml-org/llama.cpp#1885) names its A40 in the same line.
    assert capture_checks("1720", MIG)[MIG].status == "not-applicable"


def test_modelled_mig_instance_or_hip_device_as_main_device(tmp_path: Path) -> None:
    """Modelled: a MIG instance as the main device shows MIG on, not off; a HIP build's AMD GPU is no NVIDIA GPU."""
    mig = LLAMA_3616.replace("NVIDIA GeForce RTX 3090", "NVIDIA A100-SXM4-80GB MIG 3g.40gb")
    assert paste_checks(tmp_path, mig, MIG)[MIG].status != "ok"
    from stackaudit.facts.gpus import gpus_from_ggml_using_device
    hip = gpus_from_ggml_using_device(LLAMA_3616.replace("NVIDIA GeForce RTX 3090", "AMD Radeon RX 7900 XTX"))
    assert not hip.gpus and hip.others == ("AMD Radeon RX 7900 XTX (llama.cpp's HIP build)",)


# --- Device lines without a compute capability, and a log flattened onto one line (issue 28, blind BS: 2167) -------

# https://github.com/ggml-org/llama.cpp/issues/1899 (issue body by alfredcs): build 681 of June 2023, the name alone.
LLAMA_1899 = """main: build = 681 (a09f919)
ggml_init_cublas: found 1 CUDA devices:
  Device 0: NVIDIA A10G
llama.cpp: loading model from /model/hf/llama-65b-hf/ggml-model-q8_0.bin
"""
# https://github.com/abetlen/llama-cpp-python/issues/344 (comment by wyzhangyuhan), the same form over two cards.
LCP_344 = """ggml_init_cublas: found 2 CUDA devices:
  Device 0: NVIDIA GeForce RTX 3090
  Device 1: NVIDIA GeForce RTX 3090
llama.cpp: loading model from /data0/zhangyuhan/llama_cpp/ggml-model-q8_0.bin
"""
# https://github.com/mudler/LocalAI/issues/772 (issue body by luoweb): the log flattened onto one line, cut short here.
LOCALAI_772 = ("ggml_init_cublas: found 2 CUDA devices: Device 0: NVIDIA A100-PCIE-40GB Device 1: NVIDIA A100-PCIE-40GB "
               "llama.cpp: loading model from /models/vicuna-13b-v1.3.0.ggmlv3.q4_1.bin llama_model_load_internal: "
               "format = ggjt v3 (latest) ggml_cuda_set_main_device: using device 0 (NVIDIA A100-PCIE-40GB) as main "
               "device\n")
# https://github.com/janhq/jan/issues/7324 (issue body by donSca1): a recent build's lines flattened by the app's dialog.
JAN_7324 = ("ggml_cuda_init: GGML_CUDA_FORCE_MMQ: no ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no ggml_cuda_init: found 1 CUDA "
            "devices: Device 0: NVIDIA GeForce GTX 1060 6GB, compute capability 6.1, VMM: yes\n")


def _ggml_documents(text: str) -> list[tuple[int, int]]:
    from stackaudit.importers.ggml_cuda import ggml_cuda_devices
    return [(f.start, f.end) for f in ggml_cuda_devices(text.splitlines())]


def test_device_lines_without_compute_capability_name_the_gpus() -> None:
    assert _ggml_documents(LLAMA_1899) == [(1, 3)] and _ggml_documents(LCP_344) == [(0, 3)]
    assert parse_ggml_cuda_gpus(LLAMA_1899).models == {0: "NVIDIA A10G"}
    assert parse_ggml_cuda_gpus(LCP_344).models == {0: "NVIDIA GeForce RTX 3090", 1: "NVIDIA GeForce RTX 3090"}


def test_a_flattened_log_keeps_its_device_list() -> None:
    assert _ggml_documents(LOCALAI_772) == [(0, 1)] and _ggml_documents(JAN_7324) == [(0, 1)]
    gpus = parse_ggml_cuda_gpus(LOCALAI_772)
    assert gpus.models == {0: "NVIDIA A100-PCIE-40GB", 1: "NVIDIA A100-PCIE-40GB"} and gpus.count == 2
    assert parse_ggml_cuda_gpus(JAN_7324).models == {0: "NVIDIA GeForce GTX 1060 6GB"}


def test_a_flattened_pcie_a100_list_rules_out_fabric_manager(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, LOCALAI_772, FM, ACCESS)
    assert r[FM].status == "not-applicable" and "A100-PCIE-40GB" in r[FM].message, r[FM].message
    assert r[ACCESS].status == "ok", r[ACCESS].message


# Modelled counter-examples: another program's `Device N: <name>` lines (nvbandwidth's, corpus 1038) with no ggml
# `found` line above, and a `found` line whose next words are no device, are no llama.cpp device list.
NVBANDWIDTH_LIKE = "Device 0: NVIDIA L40S\nDevice 1: NVIDIA L40S\n"
FOUND_THEN_PROSE = "ggml_init_cublas: found 1 CUDA devices: but nothing after it\n"


def test_modelled_device_lines_alone_are_no_ggml_list() -> None:
    assert _ggml_documents(NVBANDWIDTH_LIKE) == [] and _ggml_documents(FOUND_THEN_PROSE) == []


# https://github.com/ggml-org/llama.cpp/issues/10054 (issue body by us58, corpus 1300): the copy cuts Device 1's line.
LLAMA_10054_CUT = """ggml_cuda_init: found 2 CUDA devices:
  Device 0: NVIDIA RTX A6000, compute capability 8.6, VMM: yes
  Device 1: NVIDI"""


def test_a_bare_name_under_a_build_that_prints_compute_capability_is_a_cut_line() -> None:
    assert parse_ggml_cuda_gpus(LLAMA_10054_CUT).models == {0: "NVIDIA RTX A6000"}
