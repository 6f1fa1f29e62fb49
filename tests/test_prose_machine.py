"""Issue 28, name-implied facts: a GPU count and model in the user's own words (importers/prose_machine.py,
facts/gpus.py `stated_gpus`) names the model a topology matrix does not, as the GPU inventory's last source; the GPU
table then says what the model implies (DRV-NVLINK-HEALTH: no NVLink on an A10G or an RTX 4090)."""

from __future__ import annotations

import pytest

from corpus import body, capture_result, fact, pasted
from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import (
    USER_WORDS_TITLE,
    bare_listed_model,
    listed_model,
    listed_models,
    parse_user_gpus,
    stated_gpus,
)
from stackaudit.gputable import nvlink_links_of
from test_topology_parsers import _pcie, make_topo


@pytest.mark.parametrize(("line", "said"), [
    # NVIDIA/nccl#1298 (corpus 215)
    ("These tests have been conducted on an AWS g5.48xlarge instance which has 8 x A10G GPUs", [(8, "A10G")]),
    # NVIDIA/go-gpuallocator#17 (corpus 243)
    ("Here is a 8 cards 4090 server `nvidia topo -m` result:", [(8, "RTX 4090")]),
    # huggingface/text-generation-inference (corpus 247, 248): an ambiguous name stays in the user's words
    ("8x A100 40GB GPUs.", [(8, "A100 40GB")]),
    ("### 8xA100 80GB Falcon 40B", [(8, "A100 80GB")]),
    # phivan3008/Realtime-meeting-translator-v8 (corpus 33): NVML's product name
    ("| GPU | 1 × NVIDIA H100 80GB HBM3 |", [(1, "H100 SXM")]),
    # NVIDIA/TensorRT-LLM (corpus 168), NVIDIA/nccl#1639 and NVIDIA/nccl#1048: the model before its count
    ("        GPU name: NVIDIA RTX 4090 x 2", [(2, "RTX 4090")]),
    ("GPU: 5090 *8", [(8, "RTX 5090")]),
    ("A100 * 8, IB 200Gb * 4 (dual port),", [(8, "A100")]),
    # NVIDIA/nccl-tests#119: the CPUs and NICs counted on the same line are no GPU; `40G` is 40 GB
    ("each server has 2x Intel Xeon Platinum 8358, 8x NVIDIA A100 SXM4 40G GPU, and 4x Mellanox HDR Infiniband "
     "cards.", [(8, "A100 SXM4 40GB")]),
    # NVIDIA/nccl#1505 (corpus 236), NVIDIA/nccl#1184: a DGX system's name states its GPUs
    ("Hi, I am trying to figure out the topology on the DGX A100 40GB node that I have access to.",
     [(8, "A100 SXM4 40GB")]),
    ("On DGX-H100 the slot3 NIC, on DGX-A100 the slot4 NIC.", [(8, "A100"), (8, "H100 SXM")]),
    # ggml-org/llama.cpp#24324 (corpus 736): the form factor before the model, `X4` after it, `32G` for 32 GB
    ("PCIE Nvidia V100 32G X4", [(4, "Tesla V100 PCIe 32GB")]),
    # Modelled: the same order with the count first
    ("8x PCIe A100 80GB", [(8, "A100 PCIe 80GB")]),
    # NVIDIA/TensorRT-LLM (corpus 991, h69d): a bare `A800` is the family's declared ambiguous name, one card counted
    ("one Nvidia A800", [(1, "A800")]),
    # Modelled counter-examples: hex numbers and error codes are no count; an unknown name is no model; a number
    # that several rows' names merely contain (`4`, `200Gb`) is none.
    ("<board_id>0x100</board_id>", []),
    ("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:1941)", []),
    ("we run 2x Foo9000 accelerators", []),
    ("tp 4 x 2 nodes", []),
    ("we have 8 GPUs", []),
])
def test_stated_gpus(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


def test_words_naming_several_gpu_sets_state_none() -> None:
    """NVIDIA/nccl#1639 compares its 8 RTX 5090 with 8 RTX 4090; NVIDIA/nccl#1184 names two DGX systems."""
    for text in ("GPU: 5090 *8\nlittle difference compared to 8×RTX 4090 GPUs.\n",
                 "On DGX-H100 the slot3 NIC, on DGX-A100 the slot4 NIC.\n"):
        with pytest.raises(ParseError, match="several GPU sets"):
            parse_user_gpus(text)
    inv = parse_user_gpus("8 x A10G GPUs\nagain: 8 x A10G\n")
    assert inv.count == 8 and inv.count_unshown and inv.gpus[0].shown_by == (USER_WORDS_TITLE,)


def test_the_words_name_the_model_of_a_matrix() -> None:
    inv = fact(pasted(body("215")), "gpus")
    assert inv.count == 8 and set(inv.models.values()) == {"A10G"}


def test_no_nvlink_by_model_needs_every_gpu_named_and_no_variant_with_nvlink() -> None:
    """Real: corpus 215 (A10G) and 243 (RTX 4090) are not applicable. Modelled: `H100` (SXM with NVLink, or PCIe)
    leaves it unknown; words naming 2 of a matrix's 4 GPUs judge those two (NVLink is each GPU's own, h68l)."""
    assert nvlink_links_of("A10G") == 0 and nvlink_links_of("H100") is None and nvlink_links_of("A100") == 12
    four = make_topo(_pcie(4, lambda i, j: "PHB"), ["0-31"] * 4, ["0"] * 4)
    r = run_checks(pasted("We have 4x H100 here\n$ nvidia-smi topo -m\n" + four), ["DRV-NVLINK-HEALTH"])
    assert r["DRV-NVLINK-HEALTH"].status == "unknown"
    r = run_checks(pasted("We have 2x RTX 4090 here\n$ nvidia-smi topo -m\n" + four), ["DRV-NVLINK-HEALTH"])
    two = r["DRV-NVLINK-HEALTH"]
    assert two.status == "not-applicable" and two.coverage is not None and two.coverage.text() == "2 of 4 GPUs shown"
    r = run_checks(pasted("We have 4x RTX 4090 here\n$ nvidia-smi topo -m\n" + four), ["DRV-NVLINK-HEALTH"])
    assert r["DRV-NVLINK-HEALTH"].status == "not-applicable" and "RTX 4090" in r["DRV-NVLINK-HEALTH"].message


def test_a_named_model_settles_its_link_count_in_a_matrix() -> None:
    """Real: corpus 236 (a DGX A100's NV12 rows, ok). Modelled: the same words over NV10 rows (two links of each
    GPU down, as when an NVSwitch is lost) are not ok."""
    for cell, status in (("NV12", "ok"), ("NV10", "unknown")):
        topo = make_topo(_pcie(8, lambda i, j, c=cell: c), ["0-63"] * 8, ["0"] * 8)
        r = run_checks(pasted("on the DGX A100 40GB node\n$ nvidia-smi topo -m\n" + topo), ["DRV-NVLINK-HEALTH"])
        assert r["DRV-NVLINK-HEALTH"].status == status, cell


def test_the_count_in_the_users_words_is_the_denominator_of_a_cut_listing() -> None:
    """Real: vllm-project/vllm#9373 (corpus 408: `I have 4 A10Gs` above a table cut after GPU 0) and NVIDIA/nccl#1264
    (corpus 309: `8xH100 SXM` in the setup list above two of eight rows): a verdict over the GPUs shown says of how
    many. Modelled: words stating fewer GPUs than a listing shows leave the count unknown; words alone are no
    listing."""
    for prefix, check, coverage in (("408", "DRV-PERSISTENCE", "1 of 4 GPUs shown"),
                                    ("309", "DRV-PERSISTENCE", "2 of 8 GPUs shown")):
        host = pasted(body(prefix))
        assert fact(host, "gpus").whole_count == int(coverage.split(" of ")[1].split()[0])
        r = run_checks(host, [check])[check]
        assert r.coverage is not None and r.coverage.text() == coverage, prefix
    table = body("408").split("\n", 1)[1]  # the table without the user's sentence
    assert fact(pasted(table), "gpus").whole_count is None
    assert fact(pasted("I have 4 A10Gs\n" + table), "gpus").whole_count == 4
    # A cut listing of two GPUs under words that state one: the words are not the host's count.
    two = body("309").split("\n")
    fewer = "\n".join(line.replace("8x", "1x") for line in two)
    assert fact(pasted(fewer), "gpus").whole_count is None


def test_a_wsl_uname_line_is_unames_not_the_users_words() -> None:
    # A WSL 2 kernel's `uname -a` names WSL2, which the user's words also read as the platform: the line is uname's
    # (modelled on the kernel string of corpus 1073's collect_env), so the kernel release is read. A sentence that
    # says WSL2 is still the user's words.
    from stackaudit.importers.recognition import recognise

    line = ("Linux DESKTOP-1 5.15.167.4-microsoft-standard-WSL2 #1 SMP Tue Nov 5 00:21:55 UTC 2024 x86_64 x86_64 "
            "x86_64 GNU/Linux\n")
    assert [k for k, _, _ in recognise(line).recognised] == ["uname -a"]
    assert fact(pasted(line), "kernel").release == "5.15.167.4-microsoft-standard-WSL2"
    said = "The container is running in WSL2.\n"
    assert [k for k, _, _ in recognise(said).recognised] == ["prose machine"]


def test_one_a800_in_a_system_info_list_is_a_host_of_one_gpu() -> None:
    """corpus 991 (h69d): `one Nvidia A800` under `### System Info` is the host's one GPU, so TensorRT-LLM there has
    no group of GPUs to place and no all-reduce."""
    results = run_checks(pasted(body("991")), ["IC-TOPOLOGY-PLACEMENT", "RT-TRTLLM-ALLREDUCE"])
    assert results["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"
    assert "one GPU (A800)" in results["IC-TOPOLOGY-PLACEMENT"].message
    assert results["RT-TRTLLM-ALLREDUCE"].status == "not-applicable"


# Issue 28 (h106d): the GPU the user names in a list's plural key, a Markdown table's GPU row, a sentence starting with
# `Using`, or the host the trouble is seen `on` (facts/gpus._LIST_GPU_KEY, listed_models, _OWNED_MODEL).
@pytest.mark.parametrize(("prefix", "model"), [
    ("2419", "3060"),  # `GPUS: 3090 (24 gb) 3060 (12 gb)`: both models
    ("2422", "RTX 3090"),  # `| **GPU** | NVIDIA RTX 3090 Ti (eVGA, GA102, 24 GB VRAM) |`
    ("2418", "RTX 4070"),  # `Using RTX4070, 32 GB RAM memory`
    ("2425", "RTX A4500"),  # `an issue with latest nvidia drivers on a RTX A4500`
    ("1175", "RTX 4090"),  # another thread: `Also experiencing this issue on an RTX 4090!`
    # h111b: a list's GPU line without its key, between the OS and the CUDA lines (`nVidia 4090`), and a summary's
    # `GPU Info : Name :  Tesla V100   Driver Version: 450.51.05` (facts/gpus.bare_listed_model, _LIST_GPU_KEY)
    ("2480", "RTX 4090"),
    ("2504", "Tesla V100"),
])
def test_a_gpu_the_users_words_name_rules_out_mig(prefix: str, model: str) -> None:
    result = capture_result(prefix, "MEM-MIG")
    assert result.status == "not-applicable"
    assert model in result.message


def test_a_list_line_of_several_models_names_each_gpu() -> None:
    gpus = parse_user_gpus("GPUS: 3090 (24 gb) 3060 (12 gb)\n")
    assert [g.model for g in gpus.gpus] == ["RTX 3090", "3060"]
    assert listed_models("| **GPU** | NVIDIA RTX 3090 Ti (eVGA, GA102, 24 GB VRAM) |") == ("RTX 3090",)


@pytest.mark.parametrize("line", [
    "Using docker on a server with the drivers installed",  # no model after `Using` or `on a`
    "The model runs on a single node",
    "GPU utilisation: 95%",  # a list key whose value names no model
    "It fails on a 4090.\nIt works on my A100.",  # two models in two sentences: not one host's
])
def test_words_without_one_model_name_no_gpu(line: str) -> None:
    with pytest.raises(ParseError):
        parse_user_gpus(line + "\n")


def test_a_bare_gpu_line_is_a_gpu_only_among_a_lists_items() -> None:
    """h111b: `nVidia 4090` alone on its line names the host's GPU under or over another item of a hardware list (the
    OS release, CUDA's version: corpus 2480); between sentences, or as a sentence's words, it names none."""
    listed = ["Ubuntu 22.04 (up to date, recently installed)", "nVidia 4090", "CUDA 11.8"]
    assert bare_listed_model(listed, 1) == "RTX 4090"
    assert bare_listed_model(["- NVIDIA GeForce RTX 3090 Ti", "- Driver 550.54.14"], 0) == "RTX 3090"
    assert bare_listed_model(["It fails here.", "nVidia 4090", "Any idea?"], 1) == ""
    assert bare_listed_model(["Ubuntu 22.04", "I run it on an nVidia 4090 card", "CUDA 11.8"], 1) == ""
    assert listed_model("GPU Info : Name :  Tesla V100   Driver Version: 450.51.05    CUDA Version: 11.0") == "Tesla V100"
    assert listed_model("GPU info:") == ""


# --- One GPU named in full and again in short (h118a) -----------------------------------------------------------------

def test_2706_a_laptop_gpu_named_again_in_short_is_one_gpu() -> None:
    """Corpus 2706 (both readers: MEM-MIG not applicable): `- GPU: NVIDIA GeForce RTX 5060 Laptop GPU (Blackwell)` and
    `Use WSL2 with RTX 5060 Laptop GPU` name one GPU, the laptop's."""
    from corpus import capture_checks

    result = capture_checks("2706", "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-applicable" and "RTX 5060 Laptop GPU" in result.message, result.message


def test_modelled_a_model_and_its_ti_stay_two_models() -> None:
    """Modelled: `GTX 1080` and `GTX 1080 Ti` are two models (Ti names another card), not one named twice."""
    from stackaudit.facts._parse import ParseError
    from stackaudit.facts.gpus import parse_user_gpus

    with pytest.raises(ParseError):
        parse_user_gpus("- GPU: NVIDIA GeForce GTX 1080\nI also tried it on my GeForce GTX 1080 Ti\n")
    assert parse_user_gpus("- GPU: NVIDIA GeForce RTX 4070 Laptop GPU\n"
                           "I use WSL2 with my RTX 4070\n").gpus[0].model == "GeForce RTX 4070 Laptop GPU"
