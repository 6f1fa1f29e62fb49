"""Bounds on everything read from a host, a snapshot or a config, and the one bounded JSON parser
(`load_json`) and XML parser (`load_xml`) every importer, fact and snapshot reader goes through.

Each number is documented with the attack it stops in docs/security.md. A value past a bound is a
ValueError naming what was wrong (the CLI turns it into exit 2 and one line), never a MemoryError,
RecursionError or UnicodeEncodeError later on.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

MiB = 1024 * 1024
# One file or one command's output (host/base.py uses the same numbers).
MAX_FILE_BYTES = 8 * MiB
# A snapshot: the sum of its members' sizes, and how many members.
MAX_SNAPSHOT_BYTES = 512 * MiB
MAX_SNAPSHOT_MEMBERS = 50_000
# Past 64 MiB decompressed, more than 100 bytes out per compressed byte in is a bomb, not a capture
# (text from /proc, /sys, lspci and dmesg compresses 5-20:1; a bomb of zeros 1000:1).
BOMB_CHECK_BYTES = 64 * MiB
MAX_COMPRESSION_RATIO = 100
# One snapshot member: a file or a document as read (MAX_FILE_BYTES); a command's JSON may escape its
# 8 MiB of output up to six bytes per byte (`\u001b`), plus its argv.
MAX_MEMBER_BYTES = 6 * MAX_FILE_BYTES + MiB
# tar headers that carry metadata (pax records, GNU long names): far smaller than any of this in practice.
MAX_TAR_HEADER_BYTES = 1 * MiB
# Directories below a directory snapshot's top (the deepest fs/ path recorded is under 20).
MAX_SNAPSHOT_DEPTH = 64
# JSON nesting: a snapshot's and a model config's deepest object is under 10 levels.
MAX_JSON_DEPTH = 64
# XML nesting: `nvidia-smi -q -x` nests 5 levels below <nvidia_smi_log>.
MAX_XML_DEPTH = 64
# A Hugging Face config.json (the largest real ones, with quantization tables, are under 100 KiB).
MAX_MODEL_CONFIG_BYTES = 1 * MiB
MAX_MODEL_CONFIG_DEPTH = 32

# Sizes a real model config stays far below; a value past one is a hostile or broken file, not a model.
# (The largest public models: 61 to 128 layers, hidden size up to 16384-ish, vocabularies up to ~260k.)
MODEL_CONFIG_BOUNDS = {
    "num_hidden_layers": 4096,
    "n_layer": 4096,
    "num_layers": 4096,
    "hidden_size": 1 << 20,
    "intermediate_size": 1 << 22,
    "moe_intermediate_size": 1 << 22,
    "num_attention_heads": 1 << 16,
    "num_key_value_heads": 1 << 16,
    "head_dim": 1 << 16,
    "vocab_size": 1 << 24,
    "max_position_embeddings": 1 << 30,
    "num_experts": 1 << 16,
    "num_local_experts": 1 << 16,
    "n_routed_experts": 1 << 16,
    "num_experts_per_tok": 1 << 16,
    "n_shared_experts": 1 << 16,
    "first_k_dense_replace": 4096,
    "num_nextn_predict_layers": 4096,
    "mtp_num_hidden_layers": 4096,
    "kv_lora_rank": 1 << 20,
    "q_lora_rank": 1 << 20,
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def load_json(data: bytes | str, what: str, max_bytes: int = MAX_MEMBER_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON with a size and depth limit, finite numbers only and valid Unicode text."""
    if len(data) > max_bytes:
        raise ValueError(f"{what} is {len(data)} bytes, over the limit of {max_bytes}")
    try:
        value = json.loads(data, parse_constant=_reject_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError(f"{what} nests deeper than {max_depth} levels") from None
    except ValueError as exc:
        raise ValueError(f"{what} is not valid JSON: {str(exc)[:200]}") from None
    check_tree(value, what, max_depth, texts=_may_hold_lone_surrogates(data))
    return value


# A JSON escape of a UTF-16 surrogate (`\ud83d`): in ASCII JSON text, the only way a parsed string can hold a
# lone one. A false hit (an escaped backslash before "ud8") only costs the full check.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


def _may_hold_lone_surrogates(data: bytes | str) -> bool:
    """Whether parsing `data` can give text that is not valid Unicode: non-ASCII input (json.loads decodes
    bytes with "surrogatepass"; a str may carry surrogate escapes) or a surrogate escape."""
    if not data.isascii():
        return True
    if isinstance(data, bytes):
        return _SURROGATE_ESCAPE_BYTES.search(data) is not None
    return _SURROGATE_ESCAPE.search(data) is not None


def check_tree(value: Any, what: str, max_depth: int = MAX_JSON_DEPTH, texts: bool = True) -> None:
    """Depth limit and, with `texts`, encodable text (no lone surrogates) over a parsed JSON value, without
    recursion. Without `texts` only the containers are visited (a 600-member manifest: 600, not 3 000)."""
    if not isinstance(value, (dict, list)):
        if texts and isinstance(value, str):
            _check_text(value, what)
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise ValueError(f"{what} nests deeper than {max_depth} levels")
        if isinstance(item, dict):
            if texts:
                for key in item:
                    _check_text(key, what)
            children = item.values()
        else:
            children = item
        for sub in children:
            if isinstance(sub, (dict, list)):
                stack.append((sub, depth + 1))
            elif texts and isinstance(sub, str):
                _check_text(sub, what)


def _check_text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} holds text that is not valid Unicode (a lone surrogate)") from None


# The one document type an XML input may carry: a bare SYSTEM id, as nvidia-smi's own
# `<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">` (never fetched: expat reads no external DTD).
_PLAIN_DOCTYPE = re.compile(r"<!DOCTYPE\s+[\w.-]+\s+SYSTEM\s+\"[\w./-]+\"\s*>")


def load_xml(text: str, what: str, max_bytes: int = MAX_MEMBER_BYTES, max_depth: int = MAX_XML_DEPTH) -> ET.Element:
    """Parse XML with a size and depth limit; a document type with an internal subset, or any entity
    declaration, is refused before parsing, so no entity is ever expanded. ValueError otherwise."""
    if len(text) > max_bytes:
        raise ValueError(f"{what} is {len(text)} bytes, over the limit of {max_bytes}")
    if "<!ENTITY" in text or "<!DOCTYPE" in _PLAIN_DOCTYPE.sub("", text):
        raise ValueError(f"{what} declares a document type or entities; refused")
    import xml.etree.ElementTree as ET  # here, not at the top: most sources hold no XML (perf/audit_speed.py)

    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    depth = 0
    root: ET.Element | None = None
    try:
        for start in range(0, len(text), 1 << 20):
            parser.feed(text[start:start + (1 << 20)])
            for event, element in parser.read_events():  # type: ignore[misc]  # (event, element) pairs
                if event == "start":
                    depth += 1
                    if depth > max_depth:
                        raise ValueError(f"{what} nests deeper than {max_depth} levels")
                    if root is None and isinstance(element, ET.Element):
                        root = element
                else:
                    depth -= 1
        parser.close()
    except ET.ParseError as exc:
        raise ValueError(f"{what} is not well-formed XML: {str(exc)[:200]}") from None
    if root is None:
        raise ValueError(f"{what} holds no XML element")
    return root


def parse_model_config(text: str) -> dict[str, Any]:
    """A model's config.json: an object whose size fields (anywhere in it: `text_config` too) are integers
    within MODEL_CONFIG_BOUNDS. ValueError otherwise."""
    data = load_json(text, "config.json", MAX_MODEL_CONFIG_BYTES, MAX_MODEL_CONFIG_DEPTH)
    if not isinstance(data, dict):
        raise ValueError("config.json is not a JSON object")
    check_model_config(data)
    return data


def check_model_config(data: dict[str, Any]) -> None:
    """Every size field (anywhere in the config) an integer within MODEL_CONFIG_BOUNDS; ValueError otherwise."""
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        for key, value in item.items():
            bound = MODEL_CONFIG_BOUNDS.get(key)
            if bound is not None and value is not None:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
                    raise ValueError(f"{key} is {str(value)[:40]!r}, not an integer")
                if not 0 <= value <= bound:
                    raise ValueError(f"{key} is {value:g}, outside 0..{bound}")
            if isinstance(value, (dict, list)):
                stack.append(value)
