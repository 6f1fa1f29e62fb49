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
    # H100 SXM: 989.4 dense BF16 (1979 is the sparse headline that some calculators use).
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
family = "datacenter-pcie"
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


def test_dense_rates_are_half_the_published_sparse_rates() -> None:
    checked = 0
    for gpu in all_gpus():
        for dtype, sparse in gpu.tflops_sparse.items():
            assert gpu.dense_tflops(dtype) == pytest.approx(sparse / 2, rel=0.02), (gpu.name, dtype)
            checked += 1
    assert checked >= 60


def test_fp8_is_at_least_fp16_where_the_gpu_has_fp8() -> None:
    for gpu in all_gpus():
        if gpu.dense_tflops("fp8") > 0:
            assert gpu.dense_tflops("fp8") >= gpu.dense_tflops("bf16"), gpu.name
        if gpu.dense_tflops("fp4") > 0:
            assert gpu.dense_tflops("fp4") >= gpu.dense_tflops("fp8"), gpu.name


def test_geforce_blackwell_fp4_is_halved_like_fp16_and_fp8() -> None:
    """FP32 accumulation at half rate applies to every dtype: 3352 FP4 'AI TOPS' (sparse, FP16 accumulate) -> 838."""
    spec = lookup("RTX 5090").spec
    assert spec.dense_tflops("fp4") / spec.dense_tflops("fp8") == pytest.approx(2, rel=0.01)
    assert spec.dense_tflops("fp8") / spec.dense_tflops("bf16") == pytest.approx(2, rel=0.01)
    assert spec.dense_tflops("fp4") == pytest.approx(3352 / 4, rel=0.01)


def test_every_nvswitch_product_has_its_domain_size() -> None:
    from stackaudit.gputable import table_text, tomllib

    rows = tomllib.loads(table_text())["gpu"]
    for row in rows:
        if row.get("nvlink_kind") in ("switch", "mesh", "infinity-fabric"):
            assert row.get("nvlink_domain", 0) >= 4, row["name"]
    assert lookup("H100 SXM").spec.nvlink_domain == 8
    assert lookup("GB200").spec.nvlink_domain == 72
    assert lookup("L40S").spec.nvlink_domain == 1


def test_every_row_has_a_datasheet_url() -> None:
    for gpu in all_gpus():
        assert gpu.datasheet.startswith("https://"), gpu.name


def test_a10g_is_in_the_table() -> None:
    spec = lookup("NVIDIA A10G").spec
    assert spec.name == "A10G" and spec.memory_bandwidth_gbs == 600 and spec.memory_gib == 24
    assert lookup("A10").spec.name == "A10"


def test_rtx_pro_6000_server_bandwidth_differs_from_the_workstation() -> None:
    assert lookup("RTX PRO 6000 Blackwell Server").spec.memory_bandwidth_gbs == 1597
    assert lookup("RTX PRO 6000 Blackwell Workstation").spec.memory_bandwidth_gbs == 1792
    assert "aws.amazon.com" in lookup("RTX PRO 6000 Blackwell Server").spec.notes


def test_table_refuses_a_switch_row_without_a_domain() -> None:
    row = """
[[gpu]]
name = "X"
aliases = []
nvidia_smi_names = []
vendor = "NVIDIA"
architecture = "x"
compute_capability = "1.0"
form_factor = "SXM"
memory_gib = 1
memory_type = "HBM"
memory_bus_bits = 64
memory_bandwidth_gbs = 1
pcie_gen = 5
pcie_width = 16
nvlink_kind = "switch"
nvlink_links = 18
nvlink_gbs_per_link = 50
nvlink_total_gbs = 900
p2p = true
power_w = 1
tflops = { bf16 = 1 }
source = "https://example.org"
"""
    with pytest.raises(ValueError, match="nvlink_domain"):
        parse_table(row)
