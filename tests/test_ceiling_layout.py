"""`--weights` with a bare base keeps what the checkpoint keeps unquantised, and says so; `--context` puts the
KV-loaded bytes in the JSON (issue 29, ceiling fixes)."""

from __future__ import annotations

import pytest

from ceiling_published import CONFIGS
from stackaudit.ceiling import compute
from stackaudit.gputable import lookup

PRO_6000 = lookup("RTX PRO 6000 Blackwell Server Edition").spec
H100 = lookup("H100 SXM").spec


def _rung(report: object, name: str = "bandwidth") -> float:
    return report.levels[0].ceiling(name).tokens_per_s  # type: ignore[attr-defined]


def test_bare_nvfp4_on_a_moe_model_keeps_attention_in_bf16_and_says_so() -> None:
    bare = compute(CONFIGS["GLM-5"], PRO_6000, gpus=8, tp=8, weights="nvfp4")
    explicit = compute(CONFIGS["GLM-5"], PRO_6000, gpus=8, tp=8, weights="nvfp4,attention=bf16")
    all_fp4 = compute(CONFIGS["GLM-5"], PRO_6000, gpus=8, tp=8, weights="nvfp4,attention=nvfp4")
    assert _rung(bare) == pytest.approx(_rung(explicit))
    assert _rung(all_fp4) > 1.8 * _rung(bare)  # the 376 vs 174 tok/s
    assert bare.to_dict()["weights"]["attention"] == "bf16"
    assert any("attention kept in bf16" in a and "assumed" in a for a in bare.assumptions)
    assert not any("kept in" in a for a in all_fp4.assumptions)


def test_bare_nvfp4_on_a_dense_model_quantises_attention() -> None:
    report = compute(CONFIGS["Llama-3-8B"], H100, weights="nvfp4")
    assert report.to_dict()["weights"]["attention"] == "nvfp4"


def test_a_checkpoints_ignore_list_decides_under_a_bare_base() -> None:
    config = {**CONFIGS["Llama-3-8B"], "quantization_config": {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "exclude_modules": ["lm_head", "*self_attn*"]}}
    report = compute(config, H100, weights="nvfp4")
    weights = report.to_dict()["weights"]
    assert weights["attention"] == "bf16" and weights["dense_mlp"] == "nvfp4"
    assert any("ignore list" in a for a in report.assumptions)


def test_kv_loaded_in_the_json_carries_bytes_and_rate_only_with_a_context() -> None:
    plain = compute(CONFIGS["Llama-3-8B"], H100).to_dict()["levels"][0]
    loaded = compute(CONFIGS["Llama-3-8B"], H100, kv_context=32768).to_dict()["levels"][0]
    assert plain["kv_loaded"] is None
    kv = loaded["kv_loaded"]
    # Llama-3-8B: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 128 KiB per token of context.
    assert kv["bytes_per_token_per_gpu"] - loaded["bytes_per_token_per_gpu"] == pytest.approx(32768 * 131072, rel=1e-6)
    assert kv["tokens_per_s"] < loaded["tokens_per_s"]
