"""Read a Hugging Face `config.json` (a file, a model directory, or an id in the local HF cache)
into the architecture facts the ceiling needs. Never downloads anything.

Field names follow transformers' configuration classes; the accounting they feed is described in
docs/ceiling.md.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stackaudit.errors import InputError
from stackaudit.host.confined import read_fd_bounded
from stackaudit.host.limits import (
    MAX_MODEL_CONFIG_BYTES,
    MAX_MODEL_CONFIG_DEPTH,
    check_model_config,
    load_json,
)

# Bounds of the `--model` walk (docs/design.md, "Bounds"): entries looked at in one directory (a model
# directory, a cache's snapshots), and seconds for the whole walk and parse (a hung network
# filesystem, a hostile GGUF header). Sizes and depth: MAX_MODEL_CONFIG_BYTES and parse_model_config.
MAX_DIR_ENTRIES = 10_000
MODEL_WALK_SECONDS = 10.0

# Models whose MLP is not gated (2 matrices, not 3); everything else is treated as SwiGLU-like.
_UNGATED_MLP_TYPES = frozenset(
    {"gpt2", "gpt_neox", "gptj", "falcon", "phi", "opt", "bloom", "starcoder2", "gpt_bigcode", "mpt"}
)
# Architectures whose layers are not all softmax attention: their recurrent/state layers have
# parameters this model does not count, so they are refused rather than mis-counted.
_UNSUPPORTED_LAYER_TYPES = frozenset({"linear_attention", "mamba", "ssm", "recurrent", "conv"})
# Model types whose accounting was checked against published totals (tests/test_ceiling_model.py).
VERIFIED_MODEL_TYPES = frozenset(
    {
        "llama", "mistral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "mixtral", "deepseek_v2",
        "deepseek_v3", "kimi_k2", "glm4_moe", "glm_moe_dsa", "gpt_oss", "minimax_m2",
    }
)  # fmt: skip

_ALIASES: dict[str, tuple[str, ...]] = {
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab_size": ("vocab_size",),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size"),
}


@dataclass(frozen=True)
class ModelArch:
    """What the accounting needs from a config, normalised across model families."""

    name: str
    model_type: str
    hidden: int
    layers: int
    vocab: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # dense MLP width (0 when every layer is MoE)
    gated_mlp: bool = True
    attention_bias: bool = False
    tie_word_embeddings: bool = False
    torch_dtype: str = "bfloat16"
    # MLA (DeepSeek-V2/V3, Kimi-K2, GLM-5); kv_lora_rank == 0 means GQA/MHA.
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    # DSA indexer (DeepSeek-V3.2, GLM-5); 0 when absent.
    index_heads: int = 0
    index_head_dim: int = 0
    index_topk: int = 0
    # MoE; n_experts == 0 means dense.
    n_experts: int = 0
    top_k: int = 0
    expert_intermediate: int = 0
    n_shared_experts: int = 0
    shared_intermediate: int = 0
    moe_layers: int = 0
    expert_bias: bool = False  # gpt-oss experts carry biases
    # Sliding-window layers read min(context, window) KV rows.
    sliding_window: int = 0
    sliding_layers: int = 0
    quantization: Mapping[str, Any] | None = None
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_moe(self) -> bool:
        return self.n_experts > 0

    @property
    def dense_layers(self) -> int:
        return self.layers - self.moe_layers

    @property
    def verified(self) -> bool:
        return self.model_type in VERIFIED_MODEL_TYPES

    def describe(self) -> str:
        parts = [f"{self.layers} layers, hidden {self.hidden}"]
        if self.is_mla:
            parts.append(f"MLA ({self.heads} heads, kv_lora {self.kv_lora_rank})")
        elif self.kv_heads == self.heads:
            parts.append(f"MHA ({self.heads} heads)")
        else:
            parts.append(f"GQA ({self.heads} heads / {self.kv_heads} KV heads)")
        if self.index_topk:
            parts.append(f"DSA top-{self.index_topk}")
        if self.is_moe:
            moe = f"MoE {self.n_experts} experts top-{self.top_k}"
            if self.n_shared_experts:
                moe += f" + {self.n_shared_experts} shared"
            if self.dense_layers:
                moe += f", {self.dense_layers} dense layers"
            parts.append(moe)
        if self.sliding_layers:
            parts.append(f"{self.sliding_layers} sliding-window layers ({self.sliding_window})")
        return ", ".join(parts)


# ------------------------------------------------------------------ locating the config


def hf_hub_cache_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """Where huggingface_hub keeps its cache, in its own order of precedence."""
    env = os.environ if env is None else env
    dirs: list[Path] = []
    if env.get("HF_HUB_CACHE"):
        dirs.append(Path(env["HF_HUB_CACHE"]))
    if env.get("HUGGINGFACE_HUB_CACHE"):
        dirs.append(Path(env["HUGGINGFACE_HUB_CACHE"]))
    if env.get("HF_HOME"):
        dirs.append(Path(env["HF_HOME"]) / "hub")
    xdg = env.get("XDG_CACHE_HOME")
    dirs.append(Path(xdg) / "huggingface" / "hub" if xdg else Path.home() / ".cache" / "huggingface" / "hub")
    return dirs


def _from_hf_cache(model_id: str, env: Mapping[str, str] | None = None) -> Path | None:
    """config.json of `org/name` in the local cache: the snapshot `refs/main` points at, else the newest."""
    repo_dir_name = "models--" + model_id.replace("/", "--")
    for cache in hf_hub_cache_dirs(env):
        repo = cache / repo_dir_name
        snapshots = repo / "snapshots"
        if not snapshots.is_dir():
            continue
        ref = repo / "refs" / "main"
        if ref.is_file():
            revision = read_small(ref, 256).strip()
            candidate = snapshots / revision / "config.json"
            if "/" not in revision and revision not in ("", ".", "..") and candidate.is_file():
                return candidate
        configs = sorted((e / "config.json" for e in dir_entries(snapshots) if (e / "config.json").is_file()),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        if configs:
            return configs[0]
    return None


def dir_entries(directory: Path) -> list[Path]:
    """The entries of a directory, refused past MAX_DIR_ENTRIES (a model directory holds tens)."""
    found: list[Path] = []
    try:
        with os.scandir(directory) as listing:
            for entry in listing:
                if len(found) >= MAX_DIR_ENTRIES:
                    raise InputError(f"{directory}: more than {MAX_DIR_ENTRIES} entries; pass the model's file itself")
                found.append(directory / entry.name)
    except OSError as exc:
        raise InputError(f"{directory}: cannot list: {exc.strerror or exc}") from None
    return found


def read_small(path: Path, limit: int) -> str:
    """A regular file's text, refused past `limit` bytes; a FIFO or device is never read (no hang)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise InputError(f"{path} is {info.st_size} bytes, over the limit of {limit}")
        data = read_fd_bounded(fd, limit + 1)
        if len(data) > limit:
            raise InputError(f"{path} grew past the limit of {limit} bytes while read")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text, so not a JSON config") from None


@contextlib.contextmanager
def walk_deadline(seconds: float = MODEL_WALK_SECONDS) -> Iterator[None]:
    """InputError when the walk takes longer than `seconds` (main thread only: SIGALRM)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise InputError(f"reading the model took more than {seconds:g} s; pass its config.json itself")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def resolve_config_path(model: str, env: Mapping[str, str] | None = None) -> Path:
    """`--model` value -> path of a config.json: a file, a directory holding one, or a cached id."""
    path = Path(model).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        for name in ("config.json", "mlc-chat-config.json"):
            candidate = path / name
            if candidate.is_file():
                return candidate
        ggufs = sorted(p for p in dir_entries(path)
                       if p.name.endswith(".gguf") and not re.search(r"-0000[2-9]-of-|-000[1-9]\d-of-", p.name))
        if len(ggufs) == 1:
            return ggufs[0]
        if ggufs:
            raise InputError(f"{model}: directory has several GGUF files; pass one of them")
        raise InputError(f"{model}: directory has no config.json, mlc-chat-config.json or .gguf file")
    if model.count("/") == 1 and not model.startswith((".", "/")):
        cached = _from_hf_cache(model, env)
        if cached is not None:
            return cached
        looked = ", ".join(str(d) for d in hf_hub_cache_dirs(env))
        raise InputError(
            f"model {model!r} is not a file, a directory, or in the local Hugging Face cache "
            f"(looked in {looked}); stackaudit never downloads: pass the path of its config.json"
        )
    if path.exists():
        raise InputError(f"{model}: not a regular file or a directory (a FIFO or a device is never read)")
    raise InputError(f"{model}: no such file or directory")


def read_config(path: Path) -> dict[str, Any]:
    """Parse config.json (size, depth, number and field bounds of `parse_model_config`); also merges
    a ModelOpt `hf_quant_config.json` found next to it."""
    text = read_small(path, MAX_MODEL_CONFIG_BYTES)
    try:
        data = load_json(text, "config.json", MAX_MODEL_CONFIG_BYTES, MAX_MODEL_CONFIG_DEPTH)
    except ValueError as exc:
        raise InputError(f"{path}: not a JSON config ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: not a JSON object, so not a Hugging Face config.json")
    try:
        check_model_config(data)
    except ValueError as exc:
        raise InputError(f"{path}: not a usable model config: {exc}") from None
    if isinstance(data.get("model_config"), dict) and "quantization" in data:
        # MLC-LLM's mlc-chat-config.json: the HF fields under model_config, the mode under quantization.
        mlc = data
        data = {**mlc["model_config"], "model_type": mlc.get("model_type", mlc["model_config"].get("model_type"))}
        data.setdefault("torch_dtype", "float16")
        data["quantization_config"] = {"quant_method": "mlc", "name": str(mlc["quantization"])}
    modelopt = path.parent / "hf_quant_config.json"
    if "quantization_config" not in data and modelopt.is_file():
        try:
            extra = load_json(read_small(modelopt, MAX_MODEL_CONFIG_BYTES), "hf_quant_config.json")
            quant = extra.get("quantization", extra)
            if isinstance(quant, dict):
                data["quantization_config"] = {"quant_method": "modelopt", **quant}
        except (InputError, ValueError, AttributeError):
            pass  # an unreadable side file only loses the default precision; --weights still works
    data.setdefault("_source", str(path))
    return data


# ------------------------------------------------------------------ parsing the fields


def _get(cfg: Mapping[str, Any], key: str) -> Any:
    for alias in _ALIASES.get(key, (key,)):
        if cfg.get(alias) is not None:
            return cfg[alias]
    return None


def _int(cfg: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = _get(cfg, key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f"config field {key} must be a non-negative number, got {value!r}")
    return int(value)


def _moe_layer_flags(cfg: Mapping[str, Any], layers: int) -> list[bool]:
    """Which layers are MoE, from whichever convention the family uses."""
    types = cfg.get("mlp_layer_types")
    if isinstance(types, list) and len(types) == layers:
        return [str(t).lower() in ("sparse", "moe") for t in types]
    first_dense = _int(cfg, "first_k_dense_replace")
    freq = max(1, _int(cfg, "moe_layer_freq", 1))
    step = max(1, _int(cfg, "decoder_sparse_step", 1))
    mlp_only = {int(i) for i in cfg.get("mlp_only_layers") or []}
    return [
        i >= first_dense and i % freq == 0 and (i + 1) % step == 0 and i not in mlp_only
        for i in range(layers)
    ]


def parse_arch(raw: Mapping[str, Any], name: str | None = None) -> ModelArch:
    """Normalise a config dict; an InputError names every missing field."""
    cfg: dict[str, Any] = dict(raw)
    notes: list[str] = []
    text_config = cfg.get("text_config")
    if isinstance(text_config, dict):
        # Multimodal wrappers (Kimi-K2.5, Qwen3.5, Llama-4): decode runs the text model only.
        cfg = {**cfg, **text_config}
        notes.append(
            "text model of a multimodal config (text_config); the vision tower is not read in decode"
        )
    model_type = str(cfg.get("model_type") or "unknown")

    layer_types = cfg.get("layer_types") or []
    odd = sorted({str(t) for t in layer_types} & _UNSUPPORTED_LAYER_TYPES)
    if odd:
        raise InputError(
            f"model_type {model_type!r} has {', '.join(odd)} layers (layer_types); "
            "their state and parameters are not modelled by the ceiling yet"
        )
    if cfg.get("hybrid_override_pattern") or cfg.get("ssm_cfg") or cfg.get("mamba_d_state"):
        raise InputError(
            f"model_type {model_type!r} is a hybrid Mamba/attention model; not modelled by the ceiling yet"
        )

    n_experts = _int(cfg, "n_routed_experts") or _int(cfg, "num_local_experts") or _int(cfg, "num_experts")
    required = ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"]
    if n_experts:
        if _get(cfg, "num_experts_per_tok") is None and _get(cfg, "experts_per_token") is None:
            required.append("num_experts_per_tok")
        if _get(cfg, "moe_intermediate_size") is None:
            required.append("intermediate_size")
    else:
        required.append("intermediate_size")
    missing = [key for key in required if _get(cfg, key) is None]
    if missing:
        raise InputError(
            f"config (model_type {model_type!r}) lacks {', '.join(missing)}: "
            "cannot count parameters; is this a Hugging Face config.json of a decoder LLM?"
        )

    hidden = _int(cfg, "hidden_size")
    layers = _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    if min(hidden, layers, heads) == 0:
        raise InputError("config: hidden_size, num_hidden_layers and num_attention_heads must be positive")
    kv_heads = _int(cfg, "num_key_value_heads") or heads
    head_dim = _int(cfg, "head_dim") or hidden // heads
    intermediate = _int(cfg, "intermediate_size")

    top_k = 0
    moe_layers = 0
    expert_intermediate = 0
    n_shared = 0
    shared_intermediate = 0
    if n_experts:
        top_k = _int(cfg, "num_experts_per_tok") or _int(cfg, "experts_per_token")
        if not 0 < top_k <= n_experts:
            raise InputError(
                f"config: num_experts_per_tok {top_k} must be between 1 and the {n_experts} experts"
            )
        expert_intermediate = _int(cfg, "moe_intermediate_size") or intermediate
        moe_layers = sum(_moe_layer_flags(cfg, layers))
        if _int(cfg, "n_shared_experts"):
            n_shared = _int(cfg, "n_shared_experts")
            shared_intermediate = expert_intermediate
        elif _int(cfg, "shared_expert_intermediate_size"):
            n_shared = 1  # Qwen2-MoE: one shared expert of its own width
            shared_intermediate = _int(cfg, "shared_expert_intermediate_size")

    window = cfg.get("sliding_window")
    sliding_layers = 0
    sliding_window = 0
    if isinstance(window, int) and window > 0 and cfg.get("use_sliding_window", True) is not False:
        sliding_window = window
        if layer_types:
            sliding_layers = sum(1 for t in layer_types if "sliding" in str(t))
        elif cfg.get("sliding_window_pattern"):
            pattern = int(cfg["sliding_window_pattern"])  # Gemma: every pattern-th layer is global
            sliding_layers = layers - layers // pattern
        else:
            sliding_layers = layers  # Mistral-7B v0.1 style: every layer windowed

    kv_lora = _int(cfg, "kv_lora_rank")
    if kv_lora:
        missing_mla = [
            k for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim") if cfg.get(k) is None
        ]
        if missing_mla:
            raise InputError(f"config has kv_lora_rank (MLA) but lacks {', '.join(missing_mla)}")

    if cfg.get("tie_word_embeddings"):
        notes.append(
            "tied embeddings: lm_head is still read in full every token (tying halves storage, not traffic)"
        )
    mtp = _int(cfg, "num_nextn_predict_layers") or _int(cfg, "mtp_num_hidden_layers")
    if mtp:
        notes.append(f"{mtp} MTP/NextN layer(s) not counted: read only with speculative MTP on")

    dtype = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    quant = cfg.get("quantization_config")
    display = (
        name or str(cfg.get("_name_or_path") or "") or Path(str(cfg.get("_source", "model"))).parent.name
    )
    return ModelArch(
        name=display or model_type,
        model_type=model_type,
        hidden=hidden,
        layers=layers,
        vocab=_int(cfg, "vocab_size"),
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=intermediate,
        gated_mlp=model_type not in _UNGATED_MLP_TYPES,
        attention_bias=bool(cfg.get("attention_bias") or cfg.get("qkv_bias")),
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings")),
        torch_dtype=dtype,
        q_lora_rank=_int(cfg, "q_lora_rank"),
        kv_lora_rank=kv_lora,
        qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"),
        qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
        v_head_dim=_int(cfg, "v_head_dim"),
        index_heads=_int(cfg, "index_n_heads"),
        index_head_dim=_int(cfg, "index_head_dim"),
        index_topk=_int(cfg, "index_topk"),
        n_experts=n_experts,
        top_k=top_k,
        expert_intermediate=expert_intermediate,
        n_shared_experts=n_shared,
        shared_intermediate=shared_intermediate,
        moe_layers=moe_layers,
        expert_bias=model_type == "gpt_oss",
        sliding_window=sliding_window,
        sliding_layers=sliding_layers,
        quantization=quant if isinstance(quant, dict) else None,
        source=str(cfg.get("_source", "")),
        notes=tuple(notes),
    )


def load_model(model: str, env: Mapping[str, str] | None = None) -> tuple[dict[str, Any], ModelArch]:
    """`--model` value -> (raw config, parsed architecture), within MODEL_WALK_SECONDS."""
    with walk_deadline():
        return _load_model(model, env)


def _load_model(model: str, env: Mapping[str, str] | None) -> tuple[dict[str, Any], ModelArch]:
    path = resolve_config_path(model, env)
    if path.suffix.lower() == ".gguf":
        from stackaudit.ceiling.gguf_file import config_from_gguf

        raw = config_from_gguf(path)
        return raw, parse_arch(raw, name=str(raw.get("_name_or_path") or path.stem))
    raw = read_config(path)
    if not Path(model).expanduser().exists():
        name = model  # a cached Hugging Face id
    elif path.name not in ("config.json", "mlc-chat-config.json"):
        name = path.stem  # e.g. DeepSeek-V3.json
    elif _looks_like_hash(path.parent.name):  # a snapshot directory inside the HF cache
        name = path.parent.parent.parent.name.removeprefix("models--").replace("--", "/")
    else:
        name = path.parent.name
    return raw, parse_arch(raw, name=name)


def _looks_like_hash(text: str) -> bool:
    return len(text) == 40 and all(c in "0123456789abcdef" for c in text)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


__all__ = [
    "VERIFIED_MODEL_TYPES",
    "ModelArch",
    "ceil_div",
    "hf_hub_cache_dirs",
    "load_model",
    "parse_arch",
    "read_config",
    "resolve_config_path",
]
