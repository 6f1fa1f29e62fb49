"""Parameter, byte and all-reduce accounting (docs/ceiling.md)."""

from __future__ import annotations

import pytest

from ceiling_published import CONFIGS, HAND_COUNTED_ACTIVE_PARAMS
from stackaudit.ceiling import compute, parse_arch
from stackaudit.ceiling.accounting import (
    count_params,
    expected_distinct_experts,
    expected_max_experts_per_rank,
)
from stackaudit.ceiling.interconnect import allreduce_model
from stackaudit.ceiling.weights import parse_weights, plan_from_config
from stackaudit.errors import InputError, UsageError
from stackaudit.gputable import lookup


@pytest.mark.parametrize(
    "model", ["DeepSeek-V3", "Qwen3-30B-A3B", "gpt-oss-120b", "Mixtral-8x7B", "GLM-4.5", "GLM-5"]
)
def test_active_params_match_the_hand_count_within_3_percent(model: str) -> None:
    # Active incl. lm_head, excluding the embedding, counted by hand from the published configs.
    counts = count_params(parse_arch(CONFIGS[model]))
    assert counts.active == pytest.approx(HAND_COUNTED_ACTIVE_PARAMS[model], rel=0.03)


def test_deepseek_v3_component_split() -> None:
    counts = count_params(parse_arch(CONFIGS["DeepSeek-V3"]))
    assert counts.lm_head == pytest.approx(0.93e9, rel=0.01)  # "including 0.9B for the output Head"
    assert counts.attention == pytest.approx(11.41e9, rel=0.01)
    assert counts.experts_active == pytest.approx(20.44e9, rel=0.01)
    assert counts.total == pytest.approx(671.0e9, rel=0.01)


def test_tied_embeddings_still_read_lm_head() -> None:
    config = {**CONFIGS["Qwen3-8B"], "tie_word_embeddings": True}
    arch = parse_arch(config)
    counts = count_params(arch)
    assert counts.lm_head == 151936 * 4096
    assert counts.embedding == 0
    assert any("tied" in note for note in arch.notes)


def test_expected_distinct_experts() -> None:
    # Research section 2.6: gpt-oss-120b (E = 128, k = 4) at B = 64 touches about 111.2 experts.
    assert expected_distinct_experts(128, 4, 64) == pytest.approx(111.2, abs=0.1)
    assert expected_distinct_experts(256, 8, 1) == pytest.approx(8)
    # EP 8 over 256 experts, k = 8 at batch 1: the busiest rank holds 2-3 experts, not 1 (balls-in-bins).
    assert 2.0 < expected_max_experts_per_rank(256, 8, 1, 8) < 3.0


def test_moe_bytes_grow_with_concurrency() -> None:
    report = compute(CONFIGS["gpt-oss-120b"], lookup("H100 SXM").spec, concurrencies=[1, 64], context=1024)
    one, many = report.levels
    assert one.experts_read_per_layer == pytest.approx(4)
    assert many.experts_read_per_layer == pytest.approx(111.2, abs=0.1)
    assert many.bytes_per_step_per_gpu > 10 * one.bytes_per_step_per_gpu


def test_sliding_window_layers_cap_the_kv_read() -> None:
    arch = parse_arch(CONFIGS["gpt-oss-120b"])
    assert arch.sliding_layers == 18 and arch.sliding_window == 128
    short = compute(arch, lookup("H100 SXM").spec, context=128).levels[0].bytes_breakdown["kv_cache"]
    long = compute(arch, lookup("H100 SXM").spec, context=128 * 100).levels[0].bytes_breakdown["kv_cache"]
    # Only the 18 full-attention layers grow with context.
    assert long == pytest.approx(short * (18 * 100 + 18) / 36)


def test_mla_kv_is_replicated_across_tp_but_gqa_is_sharded() -> None:
    h200 = lookup("H200").spec
    mla = [
        compute(CONFIGS["DeepSeek-V3"], h200, gpus=n, context=8192).levels[0].bytes_breakdown["kv_cache"]
        for n in (2, 8)
    ]
    assert mla[0] == pytest.approx(mla[1])
    assert mla[0] == pytest.approx(61 * 576 * 2 * 8192)
    gqa = [
        compute(CONFIGS["Llama-2-70B"], h200, gpus=n, context=8192).levels[0].bytes_breakdown["kv_cache"]
        for n in (2, 8)
    ]
    assert gqa[0] == pytest.approx(4 * gqa[1])


def test_gpt_oss_quantization_config_keeps_attention_and_head_in_bf16() -> None:
    arch = parse_arch(CONFIGS["gpt-oss-120b"])
    plan = plan_from_config(arch.quantization, arch.torch_dtype)
    assert plan.formats["experts"].name == "mxfp4"
    assert plan.formats["attention"].name == "bf16"
    assert plan.formats["lm_head"].name == "bf16"
    assert plan.formats["router"].name == "bf16"


def test_deepseek_fp8_block_config() -> None:
    arch = parse_arch(CONFIGS["DeepSeek-V3"])
    plan = plan_from_config(arch.quantization, arch.torch_dtype)
    assert plan.formats["experts"].name == "fp8-block"
    assert plan.formats["lm_head"].name == "bf16"


def test_weights_spec_mixed_forms() -> None:
    plan = parse_weights("nvfp4,attention=bf16")
    assert plan.formats["experts"].bytes_per_param == pytest.approx(0.5625)
    assert plan.formats["attention"].name == "bf16"
    assert parse_weights("int4-awq-g128").formats["dense_mlp"].bits == pytest.approx(4 + 20 / 128)
    assert parse_weights("int4-gptq-g32").formats["dense_mlp"].bits == pytest.approx(4.5)
    assert parse_weights("q4_k_m").formats["lm_head"].name == "q6_k"
    assert parse_weights("experts=mxfp4,all=fp8").formats["experts"].name == "fp8"
    with pytest.raises(UsageError, match="unknown format"):
        parse_weights("int4-foo")
    with pytest.raises(UsageError, match="unknown class"):
        parse_weights("nvfp4,heads=bf16")


def test_custom_allreduce_rules_follow_vllm() -> None:
    pro = lookup("RTX PRO 6000").spec
    assert allreduce_model(pro, 2, "pcie").implementation == "custom"
    eight = allreduce_model(pro, 8, "pcie")
    assert eight.implementation == "nccl" and "more than two PCIe-only GPUs" in eight.reason
    assert allreduce_model(lookup("H100").spec, 8, "nvlink").implementation == "custom"
    assert allreduce_model(lookup("H100").spec, 3, "nvlink").implementation == "nccl"  # world size 3
    assert allreduce_model(lookup("RTX 4090").spec, 2, "pcie-no-p2p").implementation == "nccl"


def test_allreduce_count_is_two_per_layer_plus_two() -> None:
    report = compute(CONFIGS["Llama-2-70B"], lookup("H100").spec, gpus=8)
    assert report.n_allreduce == 2 * 80 + 2
    assert compute(CONFIGS["Llama-3-8B"], lookup("H100").spec, gpus=1).n_allreduce == 0


def test_compute_binds_at_large_batch() -> None:
    report = compute(CONFIGS["Llama-3-8B"], lookup("H100").spec, context=0, concurrencies=[1, 2048])
    assert report.levels[0].binding == "bandwidth"
    assert report.levels[1].binding == "compute"


def test_missing_fields_are_named() -> None:
    config = {"model_type": "mystery", "hidden_size": 4096, "vocab_size": 32000}
    with pytest.raises(InputError, match="num_hidden_layers, num_attention_heads, intermediate_size"):
        parse_arch(config)


def test_linear_attention_is_refused_not_miscounted() -> None:
    config = {**CONFIGS["Qwen3-8B"], "layer_types": ["linear_attention", "full_attention"] * 18}
    with pytest.raises(InputError, match="linear_attention"):
        parse_arch(config)


def test_layout_contradictions() -> None:
    gpu = lookup("H100").spec
    with pytest.raises(UsageError, match="--tp 3 does not divide --gpus 8"):
        compute(CONFIGS["Llama-2-70B"], gpu, gpus=8, tp=3)
    with pytest.raises(UsageError, match="64 attention heads"):
        compute(CONFIGS["Llama-2-70B"], gpu, gpus=6, tp=6)
    with pytest.raises(UsageError, match="MoE"):
        compute(CONFIGS["Llama-2-70B"], gpu, gpus=8, ep=2)


def test_pipeline_adds_stage_times_and_checks_memory_per_stage() -> None:
    gpu = lookup("RTX 3090").spec
    one = compute(CONFIGS["Llama-2-70B"], gpu, weights="q4_0").levels[0]
    piped = compute(CONFIGS["Llama-2-70B"], gpu, gpus=4, tp=1, pp=4, weights="q4_0")
    level = piped.levels[0]
    assert level.times_us["memory"] == pytest.approx(one.times_us["memory"])
    assert level.times_us["allreduce"] == pytest.approx(3 * piped.stage_hop_us) and piped.stage_hop_us > 0
    assert not any("does not fit" in w for w in piped.warnings)
    too_big = compute(CONFIGS["Llama-2-70B"], gpu, gpus=2, tp=1, pp=2, weights="bf16")
    assert any("does not fit" in w for w in too_big.warnings)
    # At concurrency >= PP the stages work on different micro-batches at once.
    busy = compute(CONFIGS["Llama-2-70B"], gpu, gpus=4, tp=1, pp=4, weights="q4_0", context=4096,
                   concurrencies=[1, 4])  # fmt: skip
    assert busy.levels[1].aggregate_tokens_per_s > 3 * busy.levels[0].aggregate_tokens_per_s
    with pytest.raises(UsageError, match="--pp 3"):
        compute(CONFIGS["Llama-2-70B"], gpu, gpus=4, tp=1, pp=3)


def test_allreduce_across_nodes_uses_the_network_latency() -> None:
    h100 = lookup("H100 SXM").spec
    inside = compute(CONFIGS["Llama-2-70B"], h100, gpus=8)
    across = compute(CONFIGS["Llama-2-70B"], h100, gpus=16)
    assert inside.allreduce.interconnect == "nvlink" and inside.allreduce.implementation == "custom"
    assert across.allreduce.interconnect == "network" and across.allreduce.latency_us == pytest.approx(19)
    assert across.warnings and "node network" in across.warnings[0]
    # GB200 NVL72: one domain of 72, TP 16 stays on NVLink.
    assert compute(CONFIGS["DeepSeek-V3"], lookup("GB200").spec, gpus=16).allreduce.interconnect == "nvlink"


def test_exl2_and_mlc_formats() -> None:
    plan = parse_weights("exl2-2.5bpw")
    assert plan.formats["dense_mlp"].bits == 2.5 and plan.formats["lm_head"].bits == 6
    assert parse_weights("exl2-3.0bpw-h8").formats["lm_head"].bits == 8
    mlc = parse_weights("q4f16_1")
    assert mlc.formats["lm_head"].bits == pytest.approx(4.5)  # quantize_final_fc
    assert parse_weights("q3f16_1").formats["attention"].bits == pytest.approx(3.2 + 16 / 40)
    exl2 = plan_from_config({"quant_method": "exl2", "bits": 4.65, "head_bits": 8}, "float16")
    assert exl2.formats["experts"].bits == 4.65 and exl2.formats["lm_head"].bits == 8
    with pytest.raises(UsageError, match="exl2-BITSbpw"):
        parse_weights("exl2-fast")
