"""`--model file.gguf`: the architecture and the exact bytes per component class from a GGUF header.

A GGUF file says what no config.json does: the storage type of every tensor. llama.cpp's
quantizations keep attention, the output matrix and sometimes the embedding in other types than
the bulk (a gpt-oss GGUF has Q8_0 attention and output with MXFP4 experts; Q4_K_M raises attn_v and
half of ffn_down to Q6_K), so bytes per class are summed from the tensors themselves. Only the
header and the tensor index are read (the `gguf` package memory-maps the file; no tensor data is
touched, nothing is downloaded).

Tensor names follow llama.cpp's conventions (gguf-py `gguf/constants.py`, MODEL_TENSOR names):
`token_embd`, `output`, `blk.N.attn_*`, `blk.N.ffn_{gate,up,down}[_exps|_shexp]`, `blk.N.ffn_gate_inp`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from stackaudit.errors import InputError, UsageError

# llama.cpp architecture names -> the Hugging Face model_type the accounting knows.
_MODEL_TYPES = {
    "llama": "llama", "mistral3": "mistral", "qwen2": "qwen2", "qwen3": "qwen3", "qwen2moe": "qwen2_moe",
    "qwen3moe": "qwen3_moe", "gpt-oss": "gpt_oss", "deepseek2": "deepseek_v3", "glm4moe": "glm4_moe",
    "minimax-m2": "minimax_m2", "gemma2": "gemma2", "gemma3": "gemma3", "phi3": "phi3", "granite": "granite",
    "glm-dsa": "glm_moe_dsa", "glm4": "glm4", "mistral4": "mistral",
}  # fmt: skip
# Tensors of recurrent / state-space layers (gguf-py MODEL_TENSOR names): their parameters and
# state are not modelled, so such files are refused rather than mis-counted.
_UNMODELLED_TENSORS = re.compile(r"\.(ssm_|time_mix_|channel_mix_|shortconv\.)")
# Split files: `name-00001-of-00003.gguf` (llama.cpp gguf-split).
_SHARD = re.compile(r"^(?P<stem>.*)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$")
_LAYER = re.compile(r"^blk\.\d+\.(?P<rest>.+)$")
# Header counts past these are a hostile or broken file, not a model (docs/design.md, "Bounds"): the
# largest public GGUFs hold about 1 100 tensors (experts are merged per layer) and under 100 keys.
MAX_GGUF_TENSORS = 65_536
MAX_GGUF_KEYS = 65_536
MAX_GGUF_SHARDS = 256


def tensor_class(name: str) -> str | None:
    """The component class a GGUF tensor belongs to; None for norms, MTP layers and other small state."""
    if name in ("token_embd.weight",):
        return "embedding"
    if name.startswith("output.") and not name.startswith("output_norm"):
        return "lm_head"
    match = _LAYER.match(name)
    if not match:
        return None
    rest = match.group("rest")
    if "norm" in rest or rest.startswith(("nextn.", "eh_proj", "enorm", "hnorm")):
        return None
    if rest.startswith("attn_") or rest.startswith("indexer"):
        return "attention"
    if rest.startswith(("ffn_gate_inp", "exp_probs_b", "ffn_exp_probs_b")):
        return "router"
    if "_exps" in rest:
        return "experts"
    if "_shexp" in rest or "ffn_gate_inp_shexp" in rest:
        return "shared_experts"
    if rest.startswith("ffn_"):
        return "dense_mlp"
    return None


def _import_gguf() -> Any:
    try:
        import gguf
    except ImportError:
        raise UsageError("reading a GGUF file needs the gguf package: pip install 'stackaudit[gguf]'") from None
    return gguf


def _field_value(field: Any) -> Any:
    """A GGUF key's value as a Python scalar, string or list (gguf >= 0.10 ReaderField)."""
    contents = getattr(field, "contents", None)
    if callable(contents):
        return contents()
    # Older gguf: the value parts are indexed by `data`.
    parts = [field.parts[i] for i in field.data]
    if len(parts) == 1:
        value = parts[0]
        if getattr(value, "dtype", None) is not None and value.dtype.kind == "u" and value.dtype.itemsize == 1:
            return bytes(value).decode("utf-8", errors="replace")
        return value.tolist()[0] if hasattr(value, "tolist") else value
    return [p.tolist()[0] if hasattr(p, "tolist") else p for p in parts]


def shard_paths(path: Path) -> list[Path]:
    """All files of a split GGUF (the first shard names the others), else [path]."""
    match = _SHARD.match(path.name)
    if not match:
        return [path]
    count = int(match.group("count"))
    if count > MAX_GGUF_SHARDS:
        raise InputError(f"{path.name}: names {count} shards, over the limit of {MAX_GGUF_SHARDS}")
    paths = [path.with_name(f"{match.group('stem')}-{i:05d}-of-{count:05d}.gguf") for i in range(1, count + 1)]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise InputError(f"{path.name}: split GGUF lacks {', '.join(missing)} next to it")
    return paths


def check_header(path: Path) -> None:
    """The fixed GGUF header (magic, version, tensor and key counts) within bounds, before the gguf
    package parses the rest: a count of 10^12 would otherwise be looped over."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(24)
    except OSError as exc:
        raise InputError(f"{path.name}: cannot read: {exc.strerror or exc}") from None
    if len(head) < 24 or head[:4] != b"GGUF":
        raise InputError(f"{path.name}: not a GGUF file (no GGUF magic)")
    version, tensors, keys = struct.unpack("<IQQ", head[4:24])
    if version < 2:
        raise InputError(f"{path.name}: GGUF version {version} is not read (version 2 and later are)")
    if tensors > MAX_GGUF_TENSORS or keys > MAX_GGUF_KEYS:
        raise InputError(f"{path.name}: GGUF header counts {tensors} tensors and {keys} keys, over the limits of "
                         f"{MAX_GGUF_TENSORS} and {MAX_GGUF_KEYS}")


def read_gguf(path: Path) -> tuple[dict[str, Any], list[tuple[str, str, int, int]]]:
    """(metadata key -> value, [(tensor name, type name, elements, bytes)]) of a GGUF file or split set."""
    parts = shard_paths(path)
    for part in parts:
        if not part.is_file():
            raise InputError(f"{part.name}: not a regular file")
        check_header(part)
    gguf = _import_gguf()
    metadata: dict[str, Any] = {}
    tensors: list[tuple[str, str, int, int]] = []
    for index, part in enumerate(parts):
        try:
            reader = gguf.GGUFReader(str(part), "r")
        except (OSError, ValueError, KeyError, IndexError) as exc:
            raise InputError(f"{part.name}: not a readable GGUF file ({exc})") from None
        if index == 0:
            for key, field in reader.fields.items():
                if key.startswith("tokenizer."):
                    continue  # vocabularies and merges are large; the vocab size comes from the tensors
                try:
                    metadata[key] = _field_value(field)
                except (ValueError, IndexError, UnicodeDecodeError):
                    continue
        for tensor in reader.tensors:
            kind = getattr(tensor.tensor_type, "name", str(tensor.tensor_type))
            tensors.append((str(tensor.name), kind, int(tensor.n_elements), int(tensor.n_bytes)))
    if "general.architecture" not in metadata:
        raise InputError(f"{path.name}: GGUF header has no general.architecture")
    return metadata, tensors


def _first(value: Any) -> Any:
    if isinstance(value, list):
        numbers = [v for v in value if isinstance(v, (int, float))]
        return max(numbers) if numbers else None
    return value


def class_bytes(tensors: Iterable[tuple[str, str, int, int]]) -> dict[str, dict[str, Any]]:
    """Per class: elements, bytes, and bytes per storage type."""
    out: dict[str, dict[str, Any]] = {}
    for name, kind, elements, size in tensors:
        cls = tensor_class(name)
        if cls is None:
            continue
        entry = out.setdefault(cls, {"elements": 0, "bytes": 0, "types": {}})
        entry["elements"] += elements
        entry["bytes"] += size
        entry["types"][kind] = entry["types"].get(kind, 0) + size
    return out


def config_from_gguf(path: Path) -> dict[str, Any]:
    """A config dict in Hugging Face terms (what parse_arch reads), with `quantization_config`
    {"quant_method": "gguf", "classes": {class: {"bits", "types"}}} holding the exact bits per class."""
    metadata, tensors = read_gguf(path)
    arch = str(metadata["general.architecture"])

    def key(name: str) -> Any:
        return _first(metadata.get(f"{arch}.{name}"))

    odd = sorted({m.group(1).rstrip("._") for name, *_ in tensors if (m := _UNMODELLED_TENSORS.search(name))})
    if odd:
        raise InputError(
            f"{path.name}: architecture {arch!r} has {', '.join(odd)} tensors (recurrent or state-space layers); "
            "not modelled by the ceiling yet"
        )
    by_class = class_bytes(tensors)
    embedding = by_class.get("embedding")
    vocab = key("vocab_size")
    hidden = key("embedding_length")
    if vocab is None and embedding and hidden:
        vocab = embedding["elements"] // int(hidden)
    experts = key("expert_count") or 0
    model_type = _MODEL_TYPES.get(arch, arch.replace("-", "_"))
    if model_type == "llama" and experts:
        model_type = "mixtral"
    cfg: dict[str, Any] = {
        "model_type": model_type,
        "hidden_size": hidden,
        "num_hidden_layers": key("block_count"),
        "num_attention_heads": key("attention.head_count"),
        "num_key_value_heads": key("attention.head_count_kv"),
        "intermediate_size": key("feed_forward_length"),
        "vocab_size": vocab,
        "torch_dtype": "float16",
        "tie_word_embeddings": "lm_head" not in by_class,
        "_source": str(path),
        "_name_or_path": str(metadata.get("general.name") or path.stem),
    }
    head_dim = key("attention.key_length")
    kv_lora = key("attention.kv_lora_rank")
    if kv_lora:
        # MLA (deepseek2, glm-dsa): key_length = nope + rope and value_length = v_head_dim; files
        # converted for absorbed attention put those in key_length_mla / value_length_mla instead.
        rope = key("rope.dimension_count") or 64
        qk = key("attention.key_length_mla") or head_dim or 192
        v_dim = key("attention.value_length_mla") or key("attention.value_length") or 128
        cfg.update(
            kv_lora_rank=kv_lora, q_lora_rank=key("attention.q_lora_rank") or 0, qk_rope_head_dim=rope,
            qk_nope_head_dim=qk - rope, v_head_dim=v_dim,
        )  # fmt: skip
        if key("attention.indexer.head_count"):
            cfg.update(
                index_n_heads=key("attention.indexer.head_count"), index_head_dim=key("attention.indexer.key_length"),
                index_topk=key("attention.indexer.top_k"),
            )  # fmt: skip
    elif head_dim:
        cfg["head_dim"] = head_dim
    if experts:
        cfg.update(
            num_local_experts=experts, num_experts_per_tok=key("expert_used_count"),
            moe_intermediate_size=key("expert_feed_forward_length") or key("feed_forward_length"),
            first_k_dense_replace=key("leading_dense_block_count") or 0,
        )  # fmt: skip
        shared = key("expert_shared_count")
        if shared:
            cfg["n_shared_experts"] = shared
        elif key("expert_shared_feed_forward_length"):
            cfg["shared_expert_intermediate_size"] = key("expert_shared_feed_forward_length")
    window = key("attention.sliding_window")
    if model_type == "gpt_oss":
        cfg["attention_bias"] = True
        if window and cfg["num_hidden_layers"]:
            # gpt-oss alternates sliding and full attention, starting with a sliding layer.
            layers = int(cfg["num_hidden_layers"])
            cfg["sliding_window"] = window
            cfg["layer_types"] = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)]
    classes: dict[str, Any] = {}
    for cls, entry in by_class.items():
        if entry["elements"]:
            total = entry["bytes"]
            classes[cls] = {
                "bits": 8 * entry["bytes"] / entry["elements"],
                "elements": entry["elements"],
                "bytes": entry["bytes"],
                "types": {kind: size / total for kind, size in sorted(entry["types"].items(), key=lambda kv: -kv[1])},
            }
    if "lm_head" not in classes and "embedding" in classes:
        classes["lm_head"] = dict(classes["embedding"])  # tied: the output GEMV reads token_embd
    cfg["quantization_config"] = {
        "quant_method": "gguf",
        "file_type": metadata.get("general.file_type"),
        "classes": classes,
        "tensor_bytes": sum(size for _, _, _, size in tensors),
    }
    missing = [name for name in ("hidden_size", "num_hidden_layers", "num_attention_heads") if not cfg.get(name)]
    if missing:
        raise InputError(f"{path.name}: GGUF header of architecture {arch!r} lacks {', '.join(missing)}")
    return cfg
