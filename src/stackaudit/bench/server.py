"""What the server says about itself, and the host it runs on.

- Server fingerprint: `/v1/models` (model id, context length, owner), the version endpoints
  of each engine (vLLM `/version`, SGLang `/get_server_info`, TGI `/info`, llama.cpp
  `/props`), and the Prometheus `/metrics` page, whose `*_info` gauges carry launch
  settings (vLLM's `vllm:cache_config_info`, for example).
- Token counters before and after a run: vLLM and SGLang `*:generation_tokens_total`
  (https://github.com/sgl-project/sglang/blob/main/docs/references/production_metrics.md),
  llama.cpp `llamacpp:tokens_predicted_total`, TGI `tgi_request_generated_tokens_sum`.
- Host fingerprint: only when the server runs on this host (a remote server gets none rather
  than the client's): the audit's `host_fingerprint()` when it is installed, else a minimal one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
from typing import Any
from urllib.parse import urlsplit

# Output-token and prompt-token counters, by engine.
GENERATION_COUNTERS = {
    "vllm": ("vllm:generation_tokens_total", "vllm:prompt_tokens_total"),
    "sglang": ("sglang:generation_tokens_total", "sglang:prompt_tokens_total"),
    "llama.cpp": ("llamacpp:tokens_predicted_total", "llamacpp:prompt_tokens_total"),
    "tgi": ("tgi_request_generated_tokens_sum", "tgi_request_input_length_sum"),
}

# Launch flags whose values are secrets are never stored (docs/design.md).
_SECRET_NAME = re.compile(r"api[_-]?key|secret|passw|(^|[_.])token$|(^|[_.])auth", re.IGNORECASE)

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_prometheus(text: str) -> tuple[dict[str, float], dict[str, dict[str, str]]]:
    """Sum of samples per metric name, and the labels of `*_info` gauges (launch settings)."""
    totals: dict[str, float] = {}
    info: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if not match:
            continue
        name, labels, value = match.groups()
        try:
            number = float(value)
        except ValueError:
            continue
        totals[name] = totals.get(name, 0.0) + number
        if name.endswith("_info") and labels:
            info[name] = dict(_LABEL.findall(labels))
    return totals, info


def server_type_of(models: dict[str, Any] | None, totals: dict[str, float], probes: dict[str, Any]) -> str:
    for prefix, engine in (("vllm:", "vllm"), ("sglang:", "sglang"), ("llamacpp:", "llama.cpp"), ("tgi_", "tgi")):
        if any(name.startswith(prefix) for name in totals):
            return engine
    if "sglang" in probes:
        return "sglang"
    if "tgi" in probes:
        return "tgi"
    if "llama.cpp" in probes:
        return "llama.cpp"
    owners = {str(m.get("owned_by", "")) for m in (models or {}).get("data", []) if isinstance(m, dict)}
    for owner, engine in (("vllm", "vllm"), ("sglang", "sglang"), ("llamacpp", "llama.cpp"), ("tensorrt", "tensorrt-llm")):
        if any(engine_owner.startswith(owner) for engine_owner in owners):
            return engine
    if "llama-cpp-python" in probes:
        return "llama-cpp-python"
    if "vllm" in probes:
        return "vllm"
    return "unknown"


async def _get(session: Any, url: str, as_json: bool = True) -> Any:
    import aiohttp

    from stackaudit.bench.client import read_json, read_text

    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as response:
            if response.status != 200:
                return None
            if as_json:
                return await read_json(response)
            return await read_text(response)
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError, UnicodeDecodeError):
        return None


async def scrape_metrics(session: Any, base_url: str) -> tuple[dict[str, float], dict[str, dict[str, str]]] | None:
    text = await _get(session, base_url + "/metrics", as_json=False)
    if not isinstance(text, str) or not text.strip():
        return None
    totals, info = parse_prometheus(text)
    return (totals, info) if totals else None


async def fingerprint_server(session: Any, base_url: str) -> dict[str, Any]:
    """Model, server type and version, launch flags where exposed. Never raises."""
    models, version, sglang_info, tgi_info, props, extras, metrics = await asyncio.gather(
        _get(session, base_url + "/v1/models"),
        _get(session, base_url + "/version"),
        _get(session, base_url + "/get_server_info"),
        _get(session, base_url + "/info"),
        _get(session, base_url + "/props"),
        _get(session, base_url + "/extras/tokenize/count", as_json=False),
        scrape_metrics(session, base_url),
    )
    probes: dict[str, Any] = {}
    flags: dict[str, str] = {}
    server_version: str | None = None
    if isinstance(version, dict) and version.get("version"):
        probes["vllm"] = version
        server_version = str(version["version"])
    if isinstance(sglang_info, dict) and sglang_info:
        probes["sglang"] = True
        server_version = str(sglang_info.get("version") or server_version or "") or None
        for key, value in sglang_info.items():
            if isinstance(value, (str, int, float, bool)) or value is None:
                flags[key] = str(value)
    if isinstance(tgi_info, dict) and "model_id" in tgi_info:
        probes["tgi"] = True
        server_version = str(tgi_info.get("version") or "") or server_version
        for key, value in tgi_info.items():
            if isinstance(value, (str, int, float, bool)):
                flags[key] = str(value)
    if isinstance(props, dict) and ("build_info" in props or "default_generation_settings" in props):
        probes["llama.cpp"] = True
        server_version = str(props.get("build_info") or "") or server_version
        for key in ("total_slots", "model_path", "chat_template"):
            if key in props and isinstance(props[key], (str, int, float)):
                flags[key] = str(props[key])[:200]
    # llama-cpp-python answers GET on its POST-only extras route with 405.
    if extras is None and isinstance(models, dict):
        owners = [m.get("owned_by") for m in models.get("data", []) if isinstance(m, dict)]
        if owners and all(owner == "me" for owner in owners):
            probes["llama-cpp-python"] = True
    totals, info = metrics if metrics else ({}, {})
    for gauge, labels in info.items():
        for key, value in labels.items():
            flags[f"{gauge}.{key}"] = value
    flags = {k: ("***" if _SECRET_NAME.search(k) else v) for k, v in flags.items()}
    model_list = [m for m in (models or {}).get("data", []) if isinstance(m, dict)] if isinstance(models, dict) else []
    first = model_list[0] if model_list else {}
    return {
        "models": [str(m.get("id")) for m in model_list],
        "model": str(first.get("id")) if first.get("id") else None,
        "max_model_len": first.get("max_model_len"),
        "owned_by": first.get("owned_by"),
        "server_type": server_type_of(models if isinstance(models, dict) else None, totals, probes),
        "server_version": server_version,
        "flags": flags,
        "metrics_available": bool(totals),
    }


def counter_delta(
    server_type: str, before: dict[str, float] | None, after: dict[str, float] | None
) -> dict[str, Any] | None:
    """Output and prompt tokens the server counted between two scrapes, if it exposes them."""
    if not before or not after:
        return None
    names = GENERATION_COUNTERS.get(server_type)
    if names is None:
        for candidate in GENERATION_COUNTERS.values():
            if candidate[0] in after:
                names = candidate
                break
    if names is None or names[0] not in after:
        return None
    generated, prompt = names
    return {
        "metric": generated,
        "output_tokens": after.get(generated, 0.0) - before.get(generated, 0.0),
        "prompt_tokens": after.get(prompt, 0.0) - before.get(prompt, 0.0) if prompt in after else None,
    }


# -- host ------------------------------------------------------------------------------------
def _ipv4_local(fib_trie: str) -> set[str]:
    """This host's IPv4 addresses from /proc/net/fib_trie: each `|-- ADDR` leaf followed by `/32 host LOCAL`
    (the kernel's local routes, one per address of every interface, secondary ones included;
    https://www.kernel.org/doc/html/latest/networking/fib_trie.html)."""
    addresses: set[str] = set()
    leaf = ""
    for line in fib_trie.splitlines():
        text = line.strip()
        if text.startswith("|-- "):
            leaf = text[4:].split()[0] if text[4:].split() else ""
        elif leaf and text.startswith("/32 host LOCAL"):
            addresses.add(leaf)
    return addresses


def _ipv6_local(if_inet6: str) -> set[str]:
    """This host's IPv6 addresses from /proc/net/if_inet6: the first field of each line, 32 hex digits."""
    addresses: set[str] = set()
    for line in if_inet6.splitlines():
        fields = line.split()
        if fields and len(fields[0]) == 32:
            try:
                addresses.add(str(ipaddress.IPv6Address(int(fields[0], 16))))
            except ValueError:
                continue
    return addresses


def _read_proc(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read(4 * 1024 * 1024)  # a router's full table is a few MB; more is not this host's list
    except OSError:
        return ""


def _local_addresses(proc: str = "/proc") -> set[str]:
    """Loopback and every address of this host's interfaces (Linux; elsewhere loopback only: the host name
    is still compared by is_local_url)."""
    addresses = {"127.0.0.1", "::1"}
    addresses |= _ipv4_local(_read_proc(os.path.join(proc, "net", "fib_trie")))
    addresses |= _ipv6_local(_read_proc(os.path.join(proc, "net", "if_inet6")))
    return addresses


def is_local_url(url: str) -> bool:
    """Whether the server at `url` runs on this host (loopback or one of this host's addresses)."""
    host = urlsplit(url).hostname or ""
    if host in ("localhost", "localhost.localdomain") or host == socket.gethostname():
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            resolved = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
        except OSError:
            return False
        return any(is_local_url(f"http://[{a}]/" if ":" in a else f"http://{a}/") for a in resolved)
    if address.is_loopback:
        return True
    return str(address) in _local_addresses()


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return None


def minimal_host_fingerprint() -> dict[str, str]:
    """Kernel release, CPU model and frequency governor: used until the audit's fingerprint exists."""
    result = {"kernel.release": os.uname().release}
    cpuinfo = _read("/proc/cpuinfo") or ""
    for line in cpuinfo.splitlines():
        if line.lower().startswith("model name"):
            result["cpu.model"] = line.split(":", 1)[1].strip()
            break
    governor = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    if governor:
        result["cpu.governor"] = governor
    result["cpu.count"] = str(os.cpu_count() or 0)
    return result


def host_fingerprint_for(url: str) -> tuple[dict[str, str] | None, str]:
    """(fingerprint, source): None for a remote server."""
    if not is_local_url(url):
        return None, "remote server: no host fingerprint"
    try:
        from stackaudit.engine.fingerprint import host_fingerprint
    except ImportError:
        return minimal_host_fingerprint(), "minimal (stackaudit.engine.fingerprint not available)"
    try:
        values = host_fingerprint()
    except Exception as exc:  # a failing audit must not lose the benchmark
        fallback = minimal_host_fingerprint()
        return fallback, f"minimal (audit fingerprint failed: {type(exc).__name__})"
    return {str(k): str(v) for k, v in dict(values).items()}, "stackaudit audit"
