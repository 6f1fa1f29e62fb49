"""The one choke point for NVML (nvidia-ml-py): every call's failure becomes a value.

Queries are names like "system" or "gpu/0"; each answer is JSON-able so a snapshot records it
under `nvml/<query>.json` and a machine without a GPU replays it (DESIGN.md, "Snapshots").
A field NVML cannot give (NotSupported, NoPermission, ...) is {"error": "<kind>"} inside the
answer; a whole query that cannot run raises NvmlError, which is recorded and replayed too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

# NVML return codes -> the words our facts use (nvml.h NVML_ERROR_*).
_ERROR_KINDS = {
    1: "uninitialized",
    2: "invalid-argument",
    3: "not-supported",
    4: "no-permission",
    6: "not-found",
    9: "driver-not-loaded",
    12: "library-not-found",
    13: "function-not-found",
    15: "gpu-is-lost",
    18: "lib-rm-version-mismatch",
    999: "unknown",
}


class NvmlError(Exception):
    """A query that could not run at all: no driver, no library, no such GPU."""

    def __init__(self, kind: str, message: str = "") -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message

    def to_json(self) -> dict[str, Any]:
        return {"__error__": {"kind": self.kind, "message": self.message}}


def error_from_json(data: Any) -> NvmlError | None:
    if isinstance(data, dict) and isinstance(data.get("__error__"), dict):
        err = data["__error__"]
        return NvmlError(str(err.get("kind", "unknown")), str(err.get("message", "")))
    return None


def error_kind(exc: BaseException) -> str:
    """The kind of a pynvml NVMLError (by its numeric value), else "unknown"."""
    value = getattr(exc, "value", None)
    return _ERROR_KINDS.get(value, "unknown") if isinstance(value, int) else "unknown"


_lock = threading.Lock()
_state: dict[str, Any] = {"initialised": False, "error": None}
QUERIES: dict[str, Callable[[Any, list[str]], Any]] = {}


def query(name: str) -> Callable[[Callable[[Any, list[str]], Any]], Callable[[Any, list[str]], Any]]:
    """Register the handler of a query prefix ("system", "gpu"); it gets pynvml and the rest of the path."""

    def register(func: Callable[[Any, list[str]], Any]) -> Callable[[Any, list[str]], Any]:
        QUERIES[name] = func
        return func

    return register


def field(func: Callable[[], Any]) -> Any:
    """One NVML field: its value, or {"error": kind} — never an exception (nvitop's rule)."""
    try:
        value = func()
    except Exception as exc:
        return {"error": error_kind(exc)}
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def _init() -> Any:
    with _lock:
        if _state["error"] is not None:
            raise _state["error"]
        try:
            import pynvml
        except ImportError as exc:
            _state["error"] = NvmlError("library-not-found", "nvidia-ml-py is not installed")
            raise _state["error"] from exc
        if not _state["initialised"]:
            try:
                pynvml.nvmlInit()
            except Exception as exc:
                _state["error"] = NvmlError(error_kind(exc), str(exc))
                raise _state["error"] from exc
            _state["initialised"] = True
        return pynvml


def live_query(name: str) -> Any:
    """Answer one query on this machine (NVML initialised once per process)."""
    nvml = _init()
    head, _, rest = name.partition("/")
    handler = QUERIES.get(head)
    if handler is None:
        raise NvmlError("invalid-argument", f"unknown NVML query {name!r}")
    return handler(nvml, [p for p in rest.split("/") if p])


@query("system")
def _system(nvml: Any, _: list[str]) -> dict[str, Any]:
    return {
        "driver_version": field(nvml.nvmlSystemGetDriverVersion),
        "cuda_driver_version": field(nvml.nvmlSystemGetCudaDriverVersion),
        "nvml_version": field(nvml.nvmlSystemGetNVMLVersion),
        "device_count": field(nvml.nvmlDeviceGetCount),
    }
