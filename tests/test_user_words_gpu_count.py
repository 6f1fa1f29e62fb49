"""The GPUs the user's words state, in two more forms (issue 28, blind XJ-XL run: corpus 1052, 1054).

- facts/gpus._COUNT_AFTER: a count in brackets after the model (`GPU used: Nvidia H200 (8 GPUs)`) states the host's
  GPUs, so a container given every GPU at TP 8 holds every one: IC-TOPOLOGY-PLACEMENT not an issue.
- facts/gpus._ONE_BEFORE: an article before the brand and the model (`on an NVIDIA RTX 3060 12 GB VRAM`) states one
  GPU, so there is no group to place: IC-TOPOLOGY-PLACEMENT not applicable. A machine word after the model (`a NVIDIA
  H100 node`) names a host of GPUs, not one.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpus import _COUNT_AFTER, stated_gpus


def test_count_in_brackets_after_the_model() -> None:
    """Real (vllm-project/vllm#13412, corpus 1052) and modelled forms of a count after the model in brackets."""
    assert stated_gpus("GPU used: Nvidia H200 (8 GPUs)") == [(8, "H200")]
    assert stated_gpus("A100 (2 cards)") == [(2, "A100")]
    assert stated_gpus("8 x A10G") == [(8, "A10G")]  # the form before it still reads


def test_one_gpu_named_with_an_article() -> None:
    """Real (ggml-org/llama.cpp#12237, corpus 1054); modelled machine words that name a host, not one GPU."""
    line = "on an NVIDIA RTX 3060 12 GB VRAM and an AMD Ryzen 9 7900."
    assert stated_gpus(line) == [(1, "RTX 3060")]
    assert stated_gpus("an NVIDIA H100 80GB HBM3 GPU") == [(1, "H100 SXM")]
    assert stated_gpus("we serve it on a NVIDIA H100 node") == []
    assert stated_gpus("on a NVIDIA A100 80GB server") == []
    assert stated_gpus("I have an NVIDIA DGX with 8 GPUs") == []


def test_placement_of_a_container_given_all_8_gpus_the_user_counts() -> None:
    """Real (corpus 1052): `--gpus all` and `--tensor-parallel-size 8` on the user's `Nvidia H200 (8 GPUs)`. The
    reviewer wants ok; the check's rule for a group of every GPU is not-an-issue (corpus 792, 997, 1068, 1074)."""
    r = capture_checks("1052", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-an-issue" and "the host's 8" in r.message


def test_one_rtx_3060_has_no_group_to_place() -> None:
    """Real (corpus 1054): llama-server on `an NVIDIA RTX 3060`."""
    r = capture_checks("1054", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status == "not-applicable" and "RTX 3060" in r.message


def test_a_node_of_gpus_stays_open(tmp_path: Path) -> None:
    """Modelled: a machine word after the model leaves the count unread, so placement is not settled."""
    text = "We run vLLM on a NVIDIA H100 node.\n\nvllm serve /models/llama --tensor-parallel-size 4\n"
    r = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert r.status not in ("not-applicable", "not-an-issue")


def test_an_ambiguous_name_with_the_brand_word_stays_ambiguous() -> None:
    """Real (corpus 1050, 1052): `8 NVIDIA H200 GPUs` is the user's `H200` (SXM or NVL), not the nvidia-smi name of
    the H200 SXM, so custom all-reduce over them is not settled by the model."""
    assert stated_gpus("We run vLLM on a node with 8 NVIDIA H200 GPUs") == [(8, "H200")]
    for prefix in ("1050", "1052"):
        r = capture_checks(prefix, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
        assert r.status == "unknown", prefix


def test_an_ambiguous_name_the_user_says_is_nvlinked() -> None:
    """Real (corpus 848): `a 2xH200 NVlinked instance` reads as the NVLink part, so custom all-reduce can run."""
    assert stated_gpus("on a 2xH200 NVlinked instance, using the latest source of vllm:") == [(2, "H200 SXM")]
    r = capture_checks("848", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert r.status == "ok"


def test_a_count_with_its_mixed_cards_listed_in_brackets() -> None:
    """Real: corpus 1283 (ggml-org/llama.cpp#13560), and two headers the code search found (a training script's
    `4 GPUs (2x A100 80GB + 2x L40S 44GB)`, a launch script's `4 GPUs (2x3090 + 2x5060 Ti)`): a model alone in the list
    counts one, and the list is the statement, not the first model with the outer count. Modelled: the rest."""
    assert stated_gpus("system: 3 old gpus (1080ti, 2x1070)") == [(1, "GTX 1080 Ti"), (2, "GTX 1070")]
    assert stated_gpus("- 4 GPUs (2x A100 80GB + 2x L40S 44GB)") == [(2, "A100 80GB"), (2, "L40S")]
    assert stated_gpus("# 4 GPUs (2x3090 + 2x5060 Ti), TP4 mixed") == [(2, "RTX 3090"), (2, "5060 Ti")]
    assert stated_gpus("I have 3 GPUs (RTX 3090, 2x RTX 3060)") == [(1, "RTX 3090"), (2, "RTX 3060")]
    # A sum that differs, or an item the GPU table does not name, is no list of the host's cards.
    assert stated_gpus("Example with 4 GPUs (2x2 mesh):") == []
    assert stated_gpus("Forge has 4 GPUs (2x NVIDIA 4060, 2x AMD 5700 XT)") == []


def test_1283_mixed_list_names_all_three_cards() -> None:
    """Corpus 1283: the build's ARCHS = 610 covers the GTX 1080 Ti and both GTX 1070 (3 GPUs shown, not 2)."""
    r = capture_checks("1283", "RT-KERNEL-ARCH")["RT-KERNEL-ARCH"]
    assert r.status == "ok" and "GTX 1080 Ti" in r.message and "GTX 1070" in r.message


def test_a_count_in_brackets_of_the_gpus_at_hand() -> None:
    """Real (huggingface/trl#3158, corpus 2365): `GCP VM with A100 (1 GPU available)` states the VM's one GPU, so
    FW-VM is not an issue (both readers: a VM with one GPU has no peer to lose). Modelled: a bracket that says more
    than the count (`1 GPU available of 8`, `2 GPUs unavailable`) states nothing."""
    assert stated_gpus("Platform: GCP VM with A100 (1 GPU available)") == [(1, "A100")]
    assert stated_gpus("Platform: GCP VM with A100 (1 GPU available of 8)") == []
    assert stated_gpus("H100 (2 GPUs unavailable)") == []
    r = capture_checks("2365", "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "1 GPU" in r.message


def test_a_count_in_brackets_on_a_long_line_is_quick() -> None:
    """Modelled: the bracketed count's pattern on a 200 000-character line finishes in well under a second."""
    import time

    start = time.perf_counter()
    for line in ("A100 (1 GPU" + "x" * 200_000, "(1 GPU available" * 12_500, "A100 (1 GPU avail " * 11_000):
        list(_COUNT_AFTER.finditer(line))
    assert time.perf_counter() - start < 1.0
