"""MIG and ECC that cannot apply, from the model a listing or the user's words name (issue 28, h124f).

- MEM-ECC-MODE's subject is ECC (facts/applicability.SUBJECTS "ecc", gputable.without_ecc): a GeForce card before Ada
  Lovelace has no ECC, so where no nvidia-smi is shown the model another listing names makes the check not
  applicable, as MEM-MIG's subject already did. Ada's and later GeForce cards stay open (NVML offers ECC on some).
- gputable._ARCH_WORDS: `NVIDIA L2` (CUDA's name of the Ada card NVIDIA sells in China) is Ada Lovelace, so it has
  no MIG; `L2` alone (a CPU cache) is no GPU.
- The user's words name the GPU in three more shapes: a short emphasised list whose OS item has no release
  (`_Ubuntu, AMD, nVidia 3090_`), a provider's possessive before its instance (`on Azure's K80 instance`), and the
  brand and the noun before the model (`a Runpod Nvidia GPU L40s Pod`).

The pastes built here are modelled on the corpus files named beside them, not real outputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.applicability import shown_absent
from stackaudit.facts.gpus import GpuInventory, GpuRecord, inline_listed_model, owned_model
from stackaudit.gputable import architecture_of, has_mig, without_mig


def _named(*models: str) -> GpuInventory:
    return GpuInventory(sources=("prose machine",), complete=False,
                        gpus=tuple(GpuRecord(index=i, model=m, shown_by=("the user's own words",))
                                   for i, m in enumerate(models)))


@pytest.mark.parametrize(("models", "absent"), [
    (("RTX 3090",), True),  # Ampere GeForce: GDDR6X without ECC
    (("GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti"), True),
    (("RTX 4090",), False),  # Ada GeForce: NVML offers an ECC mode
    (("A100 80GB",), False),
    (("RTX 3090", "A100 80GB"), False),  # one GPU with ECC keeps the check open
])
def test_ecc_subject_is_absent_on_pre_ada_geforce_only(models: tuple[str, ...], absent: bool) -> None:
    why = shown_absent("ecc", _named(*models), False)
    assert bool(why) is absent
    if absent:
        assert why.startswith("ECC is not supported on these GPUs: ") and "GeForce card of" in why


def test_l2_is_ada_without_mig_and_a_cache_is_no_gpu() -> None:
    assert architecture_of("NVIDIA L2") == "Ada Lovelace" and has_mig("NVIDIA L2") is False
    assert without_mig("NVIDIA L2")
    assert architecture_of("L2 cache") == "" and architecture_of("NVIDIA L20") == "Ada Lovelace"


@pytest.mark.parametrize(("line", "model"), [
    ("_Ubuntu, AMD, nVidia 3090_", "RTX 3090"),  # corpus 2836
    ("**Linux, Intel, RTX 4090**", "RTX 4090"),  # modelled: bold, another OS and vendor
    ("Ubuntu, AMD, nVidia 3090, 64 GB", "RTX 3090"),
    ("Ubuntu, Debian and Fedora all show it on the RTX 3090, as I said", ""),  # prose, no list
    ("Ubuntu, AMD, nVidia 3090 running at 300 W", ""),  # the model's item holds more than the model
    ("Windows, Linux", ""),
])
def test_short_list_with_a_bare_os_names_its_gpu(line: str, model: str) -> None:
    assert inline_listed_model(line) == model


@pytest.mark.parametrize(("line", "model"), [
    ("Looks like the image `microsoft-dsvm` we're based on doesn't work on Azure's K80 instance.", "Tesla K80"),
    ("It fails on GCP's T4 VM every time", "T4"),  # modelled: another provider and noun
    ("we ran it on John's server yesterday", ""),  # no model between the possessive and the noun
    ("on a Runpod Nvidia GPU L40s Pod, `compatibility mode is UNAVAILABLE` error raise.", "L40S"),  # corpus 2884
    ("the NVIDIA GPU Operator is installed", ""),  # the word after the noun is no model
    ("WSL doesn't see Nvidia L40S card.", "L40S"),  # the brand, model, noun order still reads
])
def test_machine_named_by_provider_or_brand_first(line: str, model: str) -> None:
    assert owned_model(line) == model


@pytest.mark.parametrize(("prefix", "check", "model"), [
    ("2836", "MEM-ECC-MODE", "RTX 3090"),
    ("2836", "MEM-MIG", "RTX 3090"),
    ("2825", "MEM-MIG", "NVIDIA L2"),
    ("2884", "MEM-MIG", "L40S"),
    ("2890", "MEM-MIG", "Tesla K80"),
])
def test_corpus_feature_the_named_model_lacks(prefix: str, check: str, model: str) -> None:
    result = capture_checks(prefix, check)[check]
    assert result.status == "not-applicable" and model in result.message


# ollama's issue form as 2836 fills it: the machine's list, then the release under its heading (what makes it a paste).
_FORM = "### What is the issue?\n\nslow\n{}\n\n### Ollama version\n\n0.7.0\n"


def test_pascal_geforce_in_another_list_is_not_applicable(tmp_path: Path) -> None:
    # Modelled on 2836: another OS, CPU vendor and a Pascal GeForce, in bold.
    results = paste_checks(tmp_path, _FORM.format("**Linux, Intel, GTX 1080**"), "MEM-ECC-MODE")
    assert results["MEM-ECC-MODE"].status == "not-applicable" and "Pascal" in results["MEM-ECC-MODE"].message
    assert inline_listed_model("_Ubuntu, AMD, nVidia_") == ""  # the list cut before its model names no GPU


def test_ada_geforce_in_the_same_list_keeps_ecc_open(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, _FORM.format("_Ubuntu, AMD, nVidia 4090_"), "MEM-ECC-MODE",
                           "MEM-MIG")
    assert results["MEM-ECC-MODE"].status == "unknown"
    assert results["MEM-MIG"].status == "not-applicable"
