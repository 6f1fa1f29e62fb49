"""The ceiling against published single-stream measurements (src/stackaudit/data/ceiling_measurements.toml)."""

from __future__ import annotations

import pytest

from ceiling_published import (
    CONFIGS,
    EFFICIENT_ENGINES,
    EFFICIENT_FACTOR,
    KV_LOADED_CONTEXT,
    SIZE_TOLERANCE,
    Measurement,
    measurements,
    validate_one,
)
from stackaudit.ceiling.accounting import count_params
from stackaudit.ceiling.modelconfig import parse_arch
from stackaudit.gputable import lookup

RUNS = measurements()
ROWS = {m.id: validate_one(m) for m in RUNS}


def ids(m: Measurement) -> str:
    return m.id


def test_the_table_covers_the_families_formats_and_layouts() -> None:
    assert len(RUNS) >= 30 and len({m.id for m in RUNS}) == len(RUNS)
    formats = " ".join(m.format for m in RUNS)
    for word in ("bf16", "int8", "q4_0", "q4f16_1", "exl2", "gptq", "awq", "nvfp4", "mxfp4", "fp16"):
        assert word in formats, word
    assert any(not m.format for m in RUNS)  # the checkpoint's own quantization_config (FP8, MXFP4)
    archs = [parse_arch(CONFIGS[m.model]) for m in RUNS]
    assert any(a.is_mla for a in archs) and any(a.is_moe and not a.is_mla for a in archs)
    assert any(a.kv_heads == a.heads and not a.is_mla for a in archs)  # MHA
    assert any(a.kv_heads < a.heads for a in archs)  # GQA
    assert {1, 2, 4, 8, 16} <= {m.tp for m in RUNS}
    assert any(m.pp > 1 for m in RUNS)  # a layer split (pipeline)


@pytest.mark.parametrize("m", RUNS, ids=ids)
def test_every_row_is_sourced_and_consistent(m: Measurement) -> None:
    assert m.source.startswith("https://") and m.where
    assert m.model in CONFIGS
    lookup(m.gpu)  # a row of the GPU table
    assert m.measured > 0 and m.context >= 0
    assert bool(m.correction_gb) == bool(m.correction_reason)
    # "efficient" is the rule, not a choice per row: a dense model at batch 1 on an efficient engine.
    dense = not parse_arch(CONFIGS[m.model]).is_moe
    assert m.efficient == (dense and m.engine in EFFICIENT_ENGINES), m.id
    if m.published_bytes_gb is not None:
        assert m.published_bytes_source and m.embedding_format


@pytest.mark.parametrize("m", RUNS, ids=ids)
def test_the_ceiling_is_never_below_the_measurement(m: Measurement) -> None:
    row = ROWS[m.id]
    assert row.ceiling >= m.measured, (row.ceiling, m.measured)
    # With the run's own KV cache as well: the kv-loaded line is a ceiling for that workload.
    assert row.loaded_ceiling >= m.measured, (row.loaded_ceiling, m.measured)
    # The ladder only adds time: every lower rung is a lower ceiling.
    assert row.bandwidth_ceiling >= row.allreduce_ceiling >= row.overhead_ceiling >= row.loaded_ceiling


@pytest.mark.parametrize("m", [m for m in RUNS if m.efficient], ids=ids)
def test_efficient_stacks_reach_a_large_share_of_the_ceiling(m: Measurement) -> None:
    """Against the ceiling of the run's own workload: at 200k tokens the KV cache, not the weights, is read."""
    row = ROWS[m.id]
    assert row.loaded_ceiling <= EFFICIENT_FACTOR * m.measured, (row.loaded_ceiling, m.measured)


def test_five_runs_are_kv_loaded_and_their_context_matters() -> None:
    """Long-context runs: the kv-loaded line is below the context-0 ceiling, and the measurement stays under it."""
    loaded = [m for m in RUNS if m.context >= KV_LOADED_CONTEXT]
    assert len(loaded) >= 5 and len({m.source for m in loaded}) >= 3
    for m in loaded:
        row = ROWS[m.id]
        assert m.measured <= row.loaded_ceiling < row.ceiling, m.id
    # Dense GQA: 200k tokens of BF16 KV (26.8 GB) outweigh the weights (15 GB): the line falls below half.
    h800 = ROWS["vllm-llama3-8b-bf16-h800-200k"]
    assert h800.loaded_ceiling < 0.5 * h800.ceiling
    # DSA (GLM-5.1) reads index_topk latent rows, not the whole cache: 64k tokens cost under a tenth.
    glm = ROWS["vllm-glm51-nvfp4-8xpro6000-64k"]
    assert 0.9 * glm.ceiling < glm.loaded_ceiling < glm.ceiling


def test_the_rows_come_from_many_public_sources() -> None:
    assert len(RUNS) >= 30 and len({m.source for m in RUNS}) >= 20


@pytest.mark.parametrize("m", [m for m in RUNS if m.published_bytes_gb is not None], ids=ids)
def test_stored_bytes_match_the_published_size_less_embeddings(m: Measurement) -> None:
    row = ROWS[m.id]
    assert row.size_error is not None
    assert abs(row.size_error) <= SIZE_TOLERANCE, (row.stored_gb, row.independent_gb)


@pytest.mark.parametrize("m", [m for m in RUNS if m.hand_count_gb is not None], ids=ids)
def test_bytes_per_token_agree_with_the_hand_count_within_10_percent(m: Measurement) -> None:
    row = ROWS[m.id]
    assert row.bytes_error is not None and abs(row.bytes_error) <= 0.10, (row.bytes_gb, m.expected_bytes_gb)


def test_enough_rows_have_an_independent_size() -> None:
    sized = [m for m in RUNS if m.published_bytes_gb is not None]
    assert len(sized) >= 23
    assert {"llama.cpp", "gpt-fast", "vLLM", "SGLang"} <= {m.engine for m in sized}
    # The independent count reaches the MoE and MLA checkpoints too, not only dense ones.
    archs = [parse_arch(CONFIGS[m.model]) for m in sized]
    assert any(a.is_mla for a in archs) and any(a.is_moe and not a.is_mla for a in archs)


def test_gguf_attention_and_output_in_q8_0_not_the_configs_bf16() -> None:
    """gpt-oss GGUF: counting attention and output at the HF config's BF16 is 44 % too high."""
    m = next(m for m in RUNS if m.id == "llamacpp-gpt-oss-20b-mxfp4-pro6000")
    as_config = validate_one(Measurement(**{**m.__dict__, "format": ""}))
    assert as_config.bytes_gb / ROWS[m.id].bytes_gb == pytest.approx(1.44, abs=0.03)


def test_embedding_is_not_in_the_stored_count() -> None:
    m = next(m for m in RUNS if m.id == "gptfast-llama2-7b-bf16")
    arch = parse_arch(CONFIGS[m.model])
    counts = count_params(arch)
    assert ROWS[m.id].stored_gb == pytest.approx((counts.total - counts.embedding) * 2 / 1e9, rel=1e-6)


def test_a_misspelt_key_in_the_table_is_an_error() -> None:
    from stackaudit.ceiling.measurements import _measurement

    row = {"id": "x", "model": "Llama-2-7B", "format": "bf16", "gpu": "L4", "gpus": 1, "tp": 1, "engine": "vLLM",
           "context": 0, "measured_tokens_per_s": 1.0, "source": "https://example.org", "where": "w",
           "efficient": True}  # fmt: skip
    assert _measurement(row).measured == 1.0
    with pytest.raises(ValueError, match="publshed_bytes_gb"):
        _measurement({**row, "publshed_bytes_gb": 1.0})
