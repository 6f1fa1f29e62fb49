"""`--model file.gguf`: a GGUF file written at test time by the `gguf` package, read back for its bytes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from stackaudit.cli.main import main

gguf = pytest.importorskip("gguf")
np = pytest.importorskip("numpy")
T = gguf.GGMLQuantizationType

HIDDEN, LAYERS, FF, VOCAB, EXPERTS, EXPERT_FF = 256, 2, 512, 1024, 4, 256


def _raw(rows: int, cols: int, kind: object) -> object:
    """Zero bytes shaped as the quantized tensor (rows x cols elements) the writer expects."""
    block, size = gguf.GGML_QUANT_SIZES[kind]
    return np.zeros((rows, cols // block * size), dtype=np.uint8)


def write_gguf(path: Path, moe: bool = False, tied: bool = False) -> dict[str, int]:
    """A tiny llama-family GGUF with mixed types; returns the bytes written per class."""
    writer = gguf.GGUFWriter(str(path), "qwen3moe" if moe else "llama")
    writer.add_name("tiny-moe" if moe else "tiny-dense")
    writer.add_block_count(LAYERS)
    writer.add_embedding_length(HIDDEN)
    writer.add_feed_forward_length(FF)
    writer.add_head_count(8)
    writer.add_head_count_kv(2)
    writer.add_key_length(32)
    writer.add_vocab_size(VOCAB)
    if moe:
        writer.add_expert_count(EXPERTS)
        writer.add_expert_used_count(2)
        writer.add_expert_feed_forward_length(EXPERT_FF)
    sizes = dict.fromkeys(("embedding", "lm_head", "attention", "dense_mlp", "experts", "router"), 0)

    def add(name: str, rows: int, cols: int, kind: object, cls: str | None) -> None:
        data = _raw(rows, cols, kind)
        writer.add_tensor(name, data, raw_dtype=kind)
        if cls:
            sizes[cls] += data.nbytes

    add("token_embd.weight", VOCAB, HIDDEN, T.Q4_K, "embedding")
    if not tied:
        add("output.weight", VOCAB, HIDDEN, T.Q6_K, "lm_head")
    writer.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    for i in range(LAYERS):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        add(f"blk.{i}.attn_q.weight", 8 * 32, HIDDEN, T.Q8_0, "attention")
        add(f"blk.{i}.attn_k.weight", 2 * 32, HIDDEN, T.Q8_0, "attention")
        add(f"blk.{i}.attn_v.weight", 2 * 32, HIDDEN, T.Q6_K, "attention")
        add(f"blk.{i}.attn_output.weight", HIDDEN, 8 * 32, T.Q8_0, "attention")
        if moe:
            add(f"blk.{i}.ffn_gate_inp.weight", EXPERTS, HIDDEN, T.F32, "router")
            for part in ("gate", "up"):
                add(f"blk.{i}.ffn_{part}_exps.weight", EXPERTS * EXPERT_FF, HIDDEN, T.MXFP4, "experts")
            add(f"blk.{i}.ffn_down_exps.weight", EXPERTS * HIDDEN, EXPERT_FF, T.MXFP4, "experts")
        else:
            for part in ("gate", "up"):
                add(f"blk.{i}.ffn_{part}.weight", FF, HIDDEN, T.Q4_K, "dense_mlp")
            add(f"blk.{i}.ffn_down.weight", HIDDEN, FF, T.Q6_K, "dense_mlp")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return sizes


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["ceiling", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_dense_gguf_exact_bytes_per_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tiny-Q4_K_M.gguf"
    sizes = write_gguf(path)
    rc, out, err = run(capsys, "--model", str(path), "--gpu", "RTX 4090", "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"]["name"] == "tiny-dense" and doc["source"]["model"].endswith("tiny-Q4_K_M.gguf")
    by_class = doc["levels"][0]["bytes_by_class"]
    # Exact: the bytes the writer put in each class (the params the config implies match the tensors).
    assert by_class["attention"] == pytest.approx(sizes["attention"])
    assert by_class["dense_mlp"] == pytest.approx(sizes["dense_mlp"])
    assert by_class["lm_head"] == pytest.approx(sizes["lm_head"])
    assert doc["weights_stored"]["embedding_bytes"] == pytest.approx(sizes["embedding"])
    # Mixed types are named and averaged, not replaced by the config's dtype.
    assert doc["weights"]["attention"] == "Q8_0+Q6_K" and doc["weights"]["lm_head"] == "Q6_K"
    assert 8.0 < doc["weights_bits"]["attention"] < 8.5
    assert doc["weights_origin"].startswith("GGUF")


def test_moe_gguf_counts_active_experts_and_a_tied_head_reads_the_embedding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny-moe.gguf"
    sizes = write_gguf(path, moe=True, tied=True)
    rc, out, err = run(capsys, "--model", str(path), "--gpu", "H100", "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"]["model_type"] == "qwen3_moe"
    level = doc["levels"][0]
    assert level["experts_read_per_layer"] == pytest.approx(2)
    assert level["bytes_by_class"]["experts"] == pytest.approx(sizes["experts"] * 2 / EXPERTS)
    assert doc["weights_stored"]["bytes_without_embedding"] >= sizes["experts"] + sizes["attention"]
    assert doc["weights"]["experts"] == "MXFP4" and doc["weights_bits"]["experts"] == pytest.approx(4.25)
    # No output.weight: the logits GEMV reads token_embd, at the embedding's type.
    assert level["bytes_by_class"]["lm_head"] == pytest.approx(sizes["embedding"])


def test_weights_flag_overrides_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tiny.gguf"
    write_gguf(path)
    rc, out, _ = run(capsys, "--model", str(path), "--gpu", "RTX 4090", "--weights", "bf16", "--format", "json")
    assert rc == 0 and json.loads(out)["weights_bits"]["dense_mlp"] == 16


def test_directory_with_one_gguf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_gguf(tmp_path / "model.gguf")
    rc, out, _ = run(capsys, "--model", str(tmp_path), "--gpu", "L4", "--format", "json")
    assert rc == 0 and json.loads(out)["model"]["name"] == "tiny-dense"


def test_without_the_gguf_package_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tiny.gguf"
    write_gguf(path)
    monkeypatch.setitem(sys.modules, "gguf", None)
    rc, _, err = run(capsys, "--model", str(path), "--gpu", "L4")
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "pip install 'stackaudit[gguf]'" in err


def test_not_a_gguf_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF but not really")
    rc, _, err = run(capsys, "--model", str(path), "--gpu", "L4")
    assert rc == 2 and err.count("\n") == 1 and "broken.gguf" in err


def test_split_gguf_needs_every_shard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_gguf(tmp_path / "big-00001-of-00002.gguf")
    rc, _, err = run(capsys, "--model", str(tmp_path / "big-00001-of-00002.gguf"), "--gpu", "L4")
    assert rc == 2 and "big-00002-of-00002.gguf" in err


def test_state_space_layers_are_refused_not_miscounted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hybrid.gguf"
    writer = gguf.GGUFWriter(str(path), "qwen3next")
    writer.add_block_count(1)
    writer.add_embedding_length(HIDDEN)
    writer.add_head_count(8)
    writer.add_feed_forward_length(FF)
    writer.add_tensor("token_embd.weight", np.zeros((VOCAB, HIDDEN), dtype=np.float16))
    writer.add_tensor("blk.0.ssm_conv1d.weight", np.zeros((4, HIDDEN), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    rc, _, err = run(capsys, "--model", str(path), "--gpu", "L4")
    assert rc == 2 and "ssm" in err and "not modelled" in err and err.count("\n") == 1
