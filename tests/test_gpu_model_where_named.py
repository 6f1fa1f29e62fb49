"""The GPU's model read where a paste names it (task h120a): an app's device line (ComfyUI's `Device: cuda:0 ...`), an
engine's warning (vLLM's different devices), an MPS container's `Available GPUs:` rows, a hardware list written on one
line or item by item, a branded card in a sentence, an issue form's Hardware answer, a key whose value stands in a
one-line code block; so MEM-MIG and RT-TORCH-ARCH judge the GPU they name. Each corpus file is checked beside modelled
variants (another wording, another GPU, a cut line): a fixture that is no real output says so."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.gpus import (
    inline_listed_model,
    owned_model,
    parse_comfy_gpus,
    parse_mps_gpus,
    parse_user_gpus,
    parse_vllm_different_devices,
    stated_gpus,
)
from stackaudit.facts.mig_setup import stated_mig
from stackaudit.gputable import capability_name, capability_of, other_vendor, without_mig
from stackaudit.importers.evidence import headed_value

MIG = "MEM-MIG"
ARCH = "RT-TORCH-ARCH"


# --- app and engine device lines -------------------------------------------------------------------


def test_comfyui_device_line_names_the_gpu_2660_2665() -> None:
    # A vGPU guest's profile (GRID P40-8Q) is read by its board: Pascal, no MIG.
    assert capture_checks("2660", MIG)[MIG].status == "not-applicable"
    r = capture_checks("2665", ARCH)[ARCH]
    assert r.status == "ok" and "RTX 4090" in r.message


def test_comfyui_device_line_variants() -> None:
    # Modelled: another index and an A100 named by CUDA's product name; an AMD name (torch's ROCm build) is none.
    assert parse_comfy_gpus("Device: cuda:1 NVIDIA A100-SXM4-80GB : cudaMallocAsync").models == {
        1: "NVIDIA A100-SXM4-80GB"}
    inventory = fact(pasted("Device: cuda:0 AMD Radeon RX 7900 XTX : native\n"), "gpus")
    assert not getattr(inventory, "gpus", ())


def test_comfyui_whole_product_name_is_mig_off(tmp_path: Path) -> None:
    # Modelled: torch names a MIG instance after its slice, so an A100 named by its product runs whole.
    text = "Total VRAM 81051 MB, total RAM 257000 MB\nDevice: cuda:0 NVIDIA A100-SXM4-80GB : native\n"
    assert paste_checks(tmp_path, text, MIG)[MIG].status == "ok"


def test_vllm_different_devices_complete_a_cut_name_2681() -> None:
    # collect_env is cut inside `GPU 4: NVIDIA GeForce GTX 10`; vLLM's warning names it in full.
    r = capture_checks("2681", ARCH)[ARCH]
    assert r.status == "ok" and "GTX 1080 Ti" in r.message
    # Modelled: a warning cut inside its list names nothing.
    assert not getattr(fact(pasted("WARNING 06-03 01:55:23 [cuda.py:409] Detected different devices in the system: "
                                   "NVIDIA A10, NVIDIA L4, NVI\n"), "gpus"), "gpus", ())
    assert parse_vllm_different_devices("Detected different devices in the system: NVIDIA A10, NVIDIA L4. Please make "
                                        "sure to set").count == 2


def test_mps_container_rows_name_the_gpus_2731() -> None:
    assert capture_checks("2731", MIG)[MIG].status == "not-applicable"
    # Modelled: two rows, an A100 among them: MIG stays open.
    gpus = parse_mps_gpus("Available GPUs:\t- 0, 00000000:00:1E.0, Tesla T4, Exclusive_Process\n"
                          "\t- 1, 00000000:00:1F.0, NVIDIA A100-PCIE-40GB, Default\nStarting NVIDIA MPS control daemon\n")
    assert [g.model for g in gpus.gpus] == ["Tesla T4", "NVIDIA A100-PCIE-40GB"]
    assert gpus.gpus[1].bdf == "0000:00:1f.0"


# --- the user's words and lists ------------------------------------------------------------------------


def test_hardware_list_on_one_line_2663_2712() -> None:
    for prefix in ("2663", "2712"):
        assert capture_checks(prefix, MIG)[MIG].status == "not-applicable", prefix
    # Modelled: no list item beside the model (an OS release, a CUDA or driver version), or a model inside a longer
    # item, names nothing; a data-centre model keeps the check open.
    assert inline_listed_model("Ubuntu 22.04, NVIDIA A100 80GB, CUDA 12.1") == "A100 80GB"
    assert inline_listed_model("Hi all, 4090, thanks") == ""
    assert inline_listed_model("Ubuntu 22.04, I use a 4090, CUDA 12.1") == ""


def test_bare_list_lines_2707_2678() -> None:
    # A list's GeForce line under the driver's (2707); Unraid's GPU list, a name beside its PCI address (2678).
    for prefix in ("2707", "2678"):
        assert capture_checks(prefix, MIG)[MIG].status == "not-applicable", prefix


def test_sentence_and_owned_count_2671_2713_2718() -> None:
    for prefix in ("2671", "2713", "2718"):
        assert capture_checks(prefix, MIG)[MIG].status == "not-applicable", prefix
    assert stated_gpus("I have 4 tesla M40 24GB gpu,") == [(4, "Tesla M40")]
    assert stated_gpus("a nvidia GTX 1660 SUPER") == [(1, "GTX 1660 SUPER")]
    # Modelled: a compared card is not the host's; a brand without a model names none.
    assert owned_model("WSL doesn't see Nvidia L40S card.") == "L40S"
    assert owned_model("it runs faster than an NVIDIA A100 GPU") == ""
    assert owned_model("the NVIDIA GPU card is missing") == ""
    assert "Maxwell" in without_mig("Tesla M40")


def test_a_laptop_gpu_in_words_keeps_its_laptop_part() -> None:
    """An RTX 4090 Laptop GPU is another part than the desktop RTX 4090 (less memory, a laptop's power): the words
    that name it keep `Laptop GPU`, as NVML's name does. Real: corpus 2824's user line; modelled: the others."""
    assert fact(pasted("Device 0: NVIDIA GeForce RTX 3050 Laptop GPU, compute capability 8.6\n"), "gpus").models == {
        0: "GeForce RTX 3050 Laptop GPU"}
    assert owned_model("I have an NVIDIA GeForce RTX 4090 Laptop GPU") == "GeForce RTX 4090 Laptop GPU"
    assert owned_model("I seem to be having this same issue with a 5080 Laptop GPU") == "RTX 5080 Laptop GPU"
    assert stated_gpus("a nvidia RTX 4060 Laptop GPU") == [(1, "RTX 4060 Laptop GPU")]
    assert owned_model("I have one RTX 4060 GPU") == "RTX 4060"


def test_form_hardware_answer_and_fenced_value_2760_2756() -> None:
    assert capture_checks("2760", MIG)[MIG].status == "not-applicable"
    assert capture_checks("2756", MIG)[MIG].status == "not-applicable"
    assert headed_value(["- GPU:", "", "  ```text", "  NVIDIA L4", "  ```"], 0) == ("GPU: NVIDIA L4", 3, 5)
    # Modelled: a block of two lines is no single value.
    assert headed_value(["- GPU:", "", "```", "NVIDIA L4", "NVIDIA L4", "```"], 0)[0] == ""


def test_amd_model_in_words_is_another_vendor_2698() -> None:
    r = capture_checks("2698", MIG)[MIG]
    assert r.status == "not-applicable" and "MI300X" in r.message
    assert other_vendor("MI300X") and not other_vendor("H100")
    # Modelled: the AMD cards alone are another vendor's; beside an NVIDIA model they stay apart from it.
    assert parse_user_gpus("I have 8 cards MI300X").others == ("MI300X (the user's words)",)
    mixed = parse_user_gpus("I have 8 cards MI300X\nGPU: NVIDIA H100 80GB HBM3")
    assert mixed.gpus and "MI300X" not in mixed.models.values() and mixed.others


def test_work_onto_mig_partitions_is_mig_stated_2735() -> None:
    assert capture_checks("2735", MIG)[MIG].status == "issue"
    assert stated_mig("allocate VLLM with tensor_parallelism=2 onto two MIG partitions")
    assert not stated_mig("not using MIG")


# --- RT-TORCH-ARCH from the GPU named ------------------------------------------------------------------


def test_unlisted_model_by_its_capability_2762() -> None:
    r = capture_checks("2762", ARCH)[ARCH]
    assert r.status == "ok" and "10.3" in r.message
    assert stated_gpus("| GPU | 8× NVIDIA B30Z, compute capability **(10, 3)** / sm_103 |") == [
        (8, capability_name("10.3"))]
    assert capability_of(capability_name("12.0")) == "12.0"
    # Modelled: an unknown name without a capability names nothing.
    assert stated_gpus("8× NVIDIA B30Z") == []


def test_tei_image_built_for_the_gpu_2668_2674(tmp_path: Path) -> None:
    for prefix in ("2668", "2674"):
        assert capture_checks(prefix, ARCH)[ARCH].status == "ok", prefix
    # Modelled: the 89 build beside an RTX 3090 (8.6) is not called covered.
    text = ("gpu: RTX 3090\n\n```\ndocker run --gpus all -p 8080:80 "
            "ghcr.io/huggingface/text-embeddings-inference:89-1.5 --model-id BAAI/bge-large-en-v1.5\n```\n")
    assert paste_checks(tmp_path, text, ARCH)[ARCH].status == "unknown"


def test_cut_run_names_no_engine_2687() -> None:
    # The cut `docker run` of GPUStack's own container shows no engine: llama.cpp's device list is the one shown.
    assert capture_checks("2687", ARCH)[ARCH].status == "not-applicable"
