"""The one choke point for NVML (nvidia-ml-py): every call's failure becomes a value.

Queries are names like "system" or "gpu/0"; each answer is JSON-able so a snapshot records it
under `nvml/<query>.json` and a machine without a GPU replays it (docs/design.md).
A field NVML cannot give (NotSupported, NoPermission, ...) is {"error": "<kind>"} inside the
answer; a whole query that cannot run raises NvmlError, which is recorded and replayed too.
"""

from __future__ import annotations

import re
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


def field(func: Callable[..., Any]) -> Any:
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
        previous: NvmlError | None = _state["error"]
        if previous is not None:
            raise previous
        try:
            import pynvml
        except ImportError as exc:
            missing = NvmlError("library-not-found", "nvidia-ml-py is not installed")
            _state["error"] = missing
            raise missing from exc
        if not _state["initialised"]:
            try:
                pynvml.nvmlInit()
            except Exception as exc:
                failed = NvmlError(error_kind(exc), str(exc))
                _state["error"] = failed
                raise failed from exc
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


def reset() -> None:
    """Forget the initialisation state (tests inject a fake pynvml; a driver may be loaded later)."""
    with _lock:
        _state["initialised"] = False
        _state["error"] = None


# --- per-GPU queries -----------------------------------------------------------------------
# Function names, constants and return shapes below are those of nvidia-ml-py 13.615.71
# (pynvml.py): e.g. nvmlDeviceGetRemappedRows -> (corr, unc, pending, failure),
# nvmlDeviceGetMigMode / nvmlDeviceGetEccMode -> [current, pending], NVML_NVLINK_MAX_LINKS = 36,
# NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230, NVML_FI_DEV_MEMORY_TEMP = 82.

_CLOCK_GRAPHICS, _CLOCK_SM, _CLOCK_MEM = 0, 1, 2  # NVML_CLOCK_*
_VOLATILE, _AGGREGATE = 0, 1  # NVML_VOLATILE_ECC / NVML_AGGREGATE_ECC
_CORRECTED, _UNCORRECTED = 0, 1  # NVML_MEMORY_ERROR_TYPE_*
_NVLINK_MAX_LINKS = 36  # NVML_NVLINK_MAX_LINKS (18 before Blackwell); the loop stops at the first absent link
_NVLINK_COUNTERS = {"replay": 0, "recovery": 1, "crc_flit": 2, "crc_data": 3}  # NVML_NVLINK_ERROR_DL_*
_FI_MEMORY_TEMP = 82
_FI_RECOVERY_ACTION = 230
_TEMP_THRESHOLDS = {"shutdown": 0, "slowdown": 1, "mem_max": 2, "gpu_max": 3}  # NVML_TEMPERATURE_THRESHOLD_*


def _handle(nvml: Any, rest: list[str]) -> Any:
    if not rest or not re.fullmatch(r"[0-9]{1,4}", rest[0]):
        raise NvmlError("invalid-argument", "a GPU query needs an index: gpu/<n>")
    try:
        return nvml.nvmlDeviceGetHandleByIndex(int(rest[0]))
    except Exception as exc:
        raise NvmlError(error_kind(exc), str(exc)) from exc


def _text(value: Any) -> Any:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else value


def _field_values(nvml: Any, handle: Any, field_id: int) -> Any:
    """One NVML field value (nvmlDeviceGetFieldValues), its own return code checked."""
    values = nvml.nvmlDeviceGetFieldValues(handle, [field_id])
    entry = values[0]
    ret = int(getattr(entry, "nvmlReturn", 0))
    if ret != 0:
        return {"error": _ERROR_KINDS.get(ret, "unknown")}
    return int(entry.value.uiVal)


def _processes(nvml: Any, handle: Any, getter: str) -> Any:
    def read() -> list[dict[str, Any]]:
        out = []
        for proc in getattr(nvml, getter)(handle):
            pid = int(proc.pid)
            used = getattr(proc, "usedGpuMemory", None)
            out.append({"pid": pid, "used_memory": int(used) if isinstance(used, int) else None,
                        "name": field(lambda p=pid: nvml.nvmlSystemGetProcessName(p))})
        return out

    return field(read)


def _nvlinks(nvml: Any, handle: Any) -> Any:
    """Per-link state, remote PCI address and error counters; {"error": kind} when the GPU has none."""
    links: list[dict[str, Any]] = []
    for link in range(_NVLINK_MAX_LINKS):
        try:
            state = nvml.nvmlDeviceGetNvLinkState(handle, link)
        except Exception as exc:
            if link == 0:
                return {"error": error_kind(exc)}
            break  # past the last link of this GPU (InvalidArgument / NotSupported)
        entry: dict[str, Any] = {"link": link, "active": int(state)}
        entry["remote_bus_id"] = field(lambda ln=link: _text(nvml.nvmlDeviceGetNvLinkRemotePciInfo(handle, ln).busId))
        entry["errors"] = {name: field(lambda ln=link, c=counter: nvml.nvmlDeviceGetNvLinkErrorCounter(handle, ln, c))
                           for name, counter in _NVLINK_COUNTERS.items()}
        links.append(entry)
    return links


def _fabric(nvml: Any, handle: Any) -> Any:
    """GPU fabric (NVSwitch / NVLink domain) registration: state 0..3 (NVML_GPU_FABRIC_STATE_*), status."""
    info = nvml.c_nvmlGpuFabricInfo_t()
    nvml.nvmlDeviceGetGpuFabricInfo(handle, info)
    return {"state": int(info.state), "status": int(info.status)}


@query("gpu")
def _gpu(nvml: Any, rest: list[str]) -> dict[str, Any]:
    """Everything the GPU checks read of one device: `gpu/<index>`."""
    h = _handle(nvml, rest)
    f = field
    ecc = {
        f"{scope}_{kind}": f(lambda s=s, k=k: nvml.nvmlDeviceGetTotalEccErrors(h, k, s))
        for scope, s in (("volatile", _VOLATILE), ("aggregate", _AGGREGATE))
        for kind, k in (("corrected", _CORRECTED), ("uncorrected", _UNCORRECTED))
    }
    return {
        "index": int(rest[0]),
        "name": f(lambda: nvml.nvmlDeviceGetName(h)),
        "uuid": f(lambda: nvml.nvmlDeviceGetUUID(h)),
        "pci_bus_id": f(lambda: _text(nvml.nvmlDeviceGetPciInfo(h).busId)),
        "architecture": f(lambda: nvml.nvmlDeviceGetArchitecture(h)),
        "cuda_capability": f(lambda: list(nvml.nvmlDeviceGetCudaComputeCapability(h))),
        "persistence_mode": f(lambda: nvml.nvmlDeviceGetPersistenceMode(h)),
        "compute_mode": f(lambda: nvml.nvmlDeviceGetComputeMode(h)),
        "display_active": f(lambda: nvml.nvmlDeviceGetDisplayActive(h)),
        "display_mode": f(lambda: nvml.nvmlDeviceGetDisplayMode(h)),
        "mig_mode": f(lambda: list(nvml.nvmlDeviceGetMigMode(h))),
        "mig_device_count": f(lambda: _mig_count(nvml, h)),
        "ecc_mode": f(lambda: list(nvml.nvmlDeviceGetEccMode(h))),
        "ecc_errors": ecc,
        "retired_pages": {
            "single_bit": f(lambda: len(nvml.nvmlDeviceGetRetiredPages(h, 0))),
            "double_bit": f(lambda: len(nvml.nvmlDeviceGetRetiredPages(h, 1))),
            "pending": f(lambda: nvml.nvmlDeviceGetRetiredPagesPendingStatus(h)),
        },
        "remapped_rows": f(lambda: list(nvml.nvmlDeviceGetRemappedRows(h))),
        "power": {
            "limit_mw": f(lambda: nvml.nvmlDeviceGetPowerManagementLimit(h)),
            "default_mw": f(lambda: nvml.nvmlDeviceGetPowerManagementDefaultLimit(h)),
            "constraints_mw": f(lambda: list(nvml.nvmlDeviceGetPowerManagementLimitConstraints(h))),
            "enforced_mw": f(lambda: nvml.nvmlDeviceGetEnforcedPowerLimit(h)),
            "usage_mw": f(lambda: nvml.nvmlDeviceGetPowerUsage(h)),
        },
        "clock_event_reasons": f(lambda: _event_reasons(nvml, h)),
        "clock_event_reasons_supported": f(lambda: nvml.nvmlDeviceGetSupportedClocksEventReasons(h)),
        "clocks": {
            "graphics": f(lambda: nvml.nvmlDeviceGetClockInfo(h, _CLOCK_GRAPHICS)),
            "sm": f(lambda: nvml.nvmlDeviceGetClockInfo(h, _CLOCK_SM)),
            "mem": f(lambda: nvml.nvmlDeviceGetClockInfo(h, _CLOCK_MEM)),
            "max_sm": f(lambda: nvml.nvmlDeviceGetMaxClockInfo(h, _CLOCK_SM)),
            "max_mem": f(lambda: nvml.nvmlDeviceGetMaxClockInfo(h, _CLOCK_MEM)),
            "app_graphics": f(lambda: nvml.nvmlDeviceGetApplicationsClock(h, _CLOCK_GRAPHICS)),
            "app_mem": f(lambda: nvml.nvmlDeviceGetApplicationsClock(h, _CLOCK_MEM)),
            "default_app_graphics": f(lambda: nvml.nvmlDeviceGetDefaultApplicationsClock(h, _CLOCK_GRAPHICS)),
            "default_app_mem": f(lambda: nvml.nvmlDeviceGetDefaultApplicationsClock(h, _CLOCK_MEM)),
        },
        "memory": f(lambda: _memory(nvml.nvmlDeviceGetMemoryInfo(h))),
        "bar1_total": f(lambda: int(nvml.nvmlDeviceGetBAR1MemoryInfo(h).bar1Total)),
        "pcie": {
            "gen": f(lambda: nvml.nvmlDeviceGetCurrPcieLinkGeneration(h)),
            "max_gen": f(lambda: nvml.nvmlDeviceGetMaxPcieLinkGeneration(h)),
            "gpu_max_gen": f(lambda: nvml.nvmlDeviceGetGpuMaxPcieLinkGeneration(h)),
            "width": f(lambda: nvml.nvmlDeviceGetCurrPcieLinkWidth(h)),
            "max_width": f(lambda: nvml.nvmlDeviceGetMaxPcieLinkWidth(h)),
            "replay_counter": f(lambda: nvml.nvmlDeviceGetPcieReplayCounter(h)),
        },
        "nvlink": f(lambda: _nvlinks(nvml, h)),
        "processes": {
            "compute": _processes(nvml, h, "nvmlDeviceGetComputeRunningProcesses"),
            "graphics": _processes(nvml, h, "nvmlDeviceGetGraphicsRunningProcesses"),
        },
        "utilization": f(lambda: _utilization(nvml.nvmlDeviceGetUtilizationRates(h))),
        "gsp_firmware_version": f(lambda: nvml.nvmlDeviceGetGspFirmwareVersion(h)),
        "gsp_firmware_mode": f(lambda: list(nvml.nvmlDeviceGetGspFirmwareMode(h))),
        "memory_bus_width": f(lambda: nvml.nvmlDeviceGetMemoryBusWidth(h)),
        "pstate": f(lambda: nvml.nvmlDeviceGetPerformanceState(h)),
        "fabric": f(lambda: _fabric(nvml, h)),
        "temperature": {
            "gpu": f(lambda: nvml.nvmlDeviceGetTemperature(h, 0)),
            "memory": f(lambda: _field_values(nvml, h, _FI_MEMORY_TEMP)),
            **{name: f(lambda t=t: nvml.nvmlDeviceGetTemperatureThreshold(h, t))
               for name, t in _TEMP_THRESHOLDS.items()},
        },
        "recovery_action": f(lambda: _field_values(nvml, h, _FI_RECOVERY_ACTION)),
    }


def _event_reasons(nvml: Any, handle: Any) -> int:
    """The active clock event reasons bitmask (the older name "throttle reasons" on old bindings)."""
    getter = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
    if getter is None:
        getter = nvml.nvmlDeviceGetCurrentClocksThrottleReasons
    return int(getter(handle))


def _mig_count(nvml: Any, handle: Any) -> int:
    """MIG devices that exist (NotFound for the empty slots of nvmlDeviceGetMaxMigDeviceCount)."""
    count = 0
    for i in range(int(nvml.nvmlDeviceGetMaxMigDeviceCount(handle))):
        try:
            nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, i)
        except Exception:
            continue
        count += 1
    return count


def _memory(info: Any) -> dict[str, int]:
    return {"total": int(info.total), "used": int(info.used)}


def _utilization(util: Any) -> dict[str, int]:
    return {"gpu": int(util.gpu), "memory": int(util.memory)}


# --- sampling (audit --sample) ---------------------------------------------------------------

SAMPLE_INTERVAL_S = 1.0
MAX_SAMPLE_S = 600


def _sample_once(nvml: Any, handles: list[Any]) -> list[dict[str, Any]]:
    out = []
    for h in handles:
        out.append({
            "sm": field(lambda h=h: nvml.nvmlDeviceGetClockInfo(h, _CLOCK_SM)),
            "mem": field(lambda h=h: nvml.nvmlDeviceGetClockInfo(h, _CLOCK_MEM)),
            "power_mw": field(lambda h=h: nvml.nvmlDeviceGetPowerUsage(h)),
            "reasons": field(lambda h=h: _event_reasons(nvml, h)),
            "gen": field(lambda h=h: nvml.nvmlDeviceGetCurrPcieLinkGeneration(h)),
            "width": field(lambda h=h: nvml.nvmlDeviceGetCurrPcieLinkWidth(h)),
            "util": field(lambda h=h: int(nvml.nvmlDeviceGetUtilizationRates(h).gpu)),
            "temp": field(lambda h=h: nvml.nvmlDeviceGetTemperature(h, 0)),
        })
    return out


@query("samples")
def _samples(nvml: Any, rest: list[str]) -> dict[str, Any]:
    """`samples/<seconds>`: every GPU's clocks, power, event reasons, link and load, once a second.

    One query for the whole window, so that a snapshot records the series and replays it.
    """
    import time

    if not rest or not re.fullmatch(r"[0-9]{1,4}", rest[0]) or not 0 < int(rest[0]) <= MAX_SAMPLE_S:
        raise NvmlError("invalid-argument", f"samples/<seconds>, 1..{MAX_SAMPLE_S}")
    seconds = int(rest[0])
    try:
        count = int(nvml.nvmlDeviceGetCount())
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
    except Exception as exc:
        raise NvmlError(error_kind(exc), str(exc)) from exc
    start = time.monotonic()
    ticks: list[dict[str, Any]] = []
    while True:
        now = time.monotonic() - start
        ticks.append({"t": round(now, 3), "gpus": _sample_once(nvml, handles)})
        if now + SAMPLE_INTERVAL_S > seconds:
            break
        time.sleep(max(0.0, SAMPLE_INTERVAL_S * len(ticks) - (time.monotonic() - start)))
    return {"seconds": seconds, "interval_s": SAMPLE_INTERVAL_S, "gpu_count": count, "ticks": ticks}
