"""Write a tiny random-weight Llama model as GGUF with the `gguf` package's writer (no download).

Two layers, 64-wide, a byte-level BPE vocabulary (the 256 GPT-2 byte symbols, no merges) plus
<s>, </s> and one merge. The output layer only has weight on printable ASCII and on </s>, so streamed
text is valid UTF-8 one byte per token (one token per chunk), and the </s> row is scaled up so
that greedy decoding stops early unless EOS is suppressed — as random weights do.
"""

from __future__ import annotations

import numpy as np

N_EMBD = 64
N_HEAD = 4
N_FF = 128
N_LAYER = 2
BOS_ID = 256
EOS_ID = 257


def _byte_symbols() -> list[str]:
    """GPT-2's reversible byte → unicode mapping (https://github.com/openai/gpt-2/blob/master/src/encoder.py)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    codes = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            codes.append(256 + extra)
            extra += 1
    mapping = dict(zip(printable, codes, strict=True))
    return [chr(mapping[b]) for b in range(256)]


def write_tiny_llama(path: str, seed: int = 0, eos_scale: float = 3.0) -> None:
    import gguf

    rng = np.random.default_rng(seed)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("stackaudit-tiny-random")
    writer.add_context_length(2048)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    # llama.cpp refuses a BPE vocabulary without merges: one merge (space + "t"), whose token
    # the output layer never picks, keeps generated tokens one byte each.
    tokens = [*_byte_symbols(), "<s>", "</s>", "\u0120t"]
    types = [gguf.TokenType.NORMAL] * 256 + [gguf.TokenType.CONTROL, gguf.TokenType.CONTROL, gguf.TokenType.NORMAL]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(["\u0120 t"])
    writer.add_bos_token_id(BOS_ID)
    writer.add_eos_token_id(EOS_ID)
    writer.add_add_bos_token(True)

    vocab = len(tokens)
    scale = 1.0 / np.sqrt(N_EMBD)

    def rand(*shape: int, s: float = scale) -> np.ndarray:
        return (rng.standard_normal(shape) * s).astype(np.float32)

    # Dimension 0 of every embedding is a large constant: it survives the layers and the final
    # norm as a positive "bias" feature the output layer uses to rank printable bytes first.
    embeddings = rand(vocab, N_EMBD, s=1.0)
    embeddings[:, 0] = 8.0
    writer.add_tensor("token_embd.weight", embeddings)
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    output = np.zeros((vocab, N_EMBD), dtype=np.float32)
    output[:, 0] = -1.0  # everything else is never the best token
    ascii_rows = list(range(ord(" "), ord("~") + 1))
    output[ascii_rows] = rand(len(ascii_rows), N_EMBD)
    output[ascii_rows, 0] = 1.0
    output[EOS_ID] = rand(N_EMBD) * eos_scale
    output[EOS_ID, 0] = 1.5  # ahead of most bytes: greedy decoding soon stops
    writer.add_tensor("output.weight", output)
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"blk.{i}.{name}.weight", rand(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", rand(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", rand(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", rand(N_EMBD, N_FF, s=1.0 / np.sqrt(N_FF)))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
