"""The GPU table (data/gpus.toml) and lookup by the names people write."""

from __future__ import annotations

import pytest

from stackaudit.gputable import UnknownGpuError, all_gpus, lookup, normalize, parse_table

REQUIRED_ROWS = [
    "H100 SXM", "H100 PCIe", "H100 NVL", "H200 SXM", "H200 NVL", "B200", "GB200", "A100 SXM4 40GB",
    "A100 SXM4 80GB", "A100 PCIe 40GB", "A100 PCIe 80GB", "L40S", "L40", "L4", "A10", "A40", "RTX 3090",
    "RTX 4090", "RTX 5090", "RTX PRO 6000 Blackwell Workstation", "RTX PRO 6000 Blackwell Max-Q",
    "RTX PRO 6000 Blackwell Server", "RTX 6000 Ada", "MI300X",
]  # fmt: skip


def test_every_required_gpu_has_a_sourced_row() -> None:
    names = {gpu.name for gpu in all_gpus()}
    assert set(REQUIRED_ROWS) <= names
    for gpu in all_gpus():
        assert gpu.source.startswith("https://"), gpu.name
        assert gpu.memory_bandwidth_gbs > 0 and gpu.memory_gib > 0 and gpu.power_w > 0
        assert gpu.dense_tflops("bf16") > 0 or gpu.dense_tflops("fp16") > 0
        if gpu.has_nvlink:
            assert gpu.nvlink_total_gbs == pytest.approx(gpu.nvlink_links * gpu.nvlink_gbs_per_link, rel=0.01)
        else:
            assert gpu.nvlink_total_gbs == 0


def test_flops_are_dense_not_the_sparse_headline() -> None:
    # H100 SXM: 989.4 dense BF16 (1979 is the sparse headline; research section 1.3 pitfall).
    assert lookup("H100 SXM").spec.dense_tflops("bf16") == pytest.approx(989.4)
    assert lookup("MI300X").spec.dense_tflops("bf16") == pytest.approx(1307.4)
    # GeForce BF16 runs FP32 accumulation at half rate: 165.2 for the 4090.
    assert lookup("RTX 4090").spec.dense_tflops("bf16") == pytest.approx(165.2)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("H100 SXM", "H100 SXM"),
        ("NVIDIA H100 80GB HBM3", "H100 SXM"),
        ("nvidia a100-sxm4-80gb", "A100 SXM4 80GB"),
        ("RTX 4090", "RTX 4090"),
        ("NVIDIA GeForce RTX 4090", "RTX 4090"),
        ("rtx4090", "RTX 4090"),
        ("B200", "B200"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000 Blackwell Server"),
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX PRO 6000 Blackwell Max-Q"),
        ("l40s", "L40S"),
        ("L4", "L4"),
        ("mi300x", "MI300X"),
    ],
)
def test_names_people_write(query: str, expected: str) -> None:
    match = lookup(query)
    assert match.spec.name == expected
    assert match.note == ""


@pytest.mark.parametrize(
    ("query", "default", "other"),
    [
        ("H100", "H100 SXM", "H100 PCIe"),
        ("A100 80GB", "A100 SXM4 80GB", "A100 PCIe 80GB"),
        ("RTX PRO 6000", "RTX PRO 6000 Blackwell Workstation", "RTX PRO 6000 Blackwell Server"),
        ("h200", "H200 SXM", "H200 NVL"),
        ("H100 80GB", "H100 SXM", "H100 PCIe"),
    ],
)
def test_ambiguous_name_picks_the_common_variant_and_says_so(query: str, default: str, other: str) -> None:
    match = lookup(query)
    assert match.spec.name == default
    assert "ambiguous" in match.note and default in match.note and other in match.note


def test_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(UnknownGpuError) as info:
        lookup("RTX 4909")
    assert "RTX 4090" in info.value.suggestions
    assert "did you mean" in str(info.value)


def test_normalize_ignores_vendor_words_case_and_punctuation() -> None:
    assert normalize("NVIDIA GeForce RTX-4090") == normalize("rtx 4090")


def test_table_refuses_a_name_shared_by_two_rows() -> None:
    row = """
[[gpu]]
name = "{name}"
aliases = ["same"]
nvidia_smi_names = []
vendor = "NVIDIA"
architecture = "x"
compute_capability = "1.0"
form_factor = "PCIe"
memory_gib = 1
memory_type = "GDDR6"
memory_bus_bits = 64
memory_bandwidth_gbs = 1
pcie_gen = 4
pcie_width = 16
nvlink_kind = "none"
nvlink_links = 0
nvlink_gbs_per_link = 0
nvlink_total_gbs = 0
p2p = true
power_w = 1
tflops = {{ bf16 = 1 }}
source = "https://example.org"
"""
    with pytest.raises(ValueError, match="same"):
        parse_table(row.format(name="A") + row.format(name="B"))


def test_exact_nvidia_smi_name_is_not_ambiguous() -> None:
    match = lookup("NVIDIA H200")
    assert match.spec.name == "H200 SXM" and match.note == ""
