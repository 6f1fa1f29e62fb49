"""Live GPU detection for `ceiling` (NVML through pynvml, imported lazily).

`detect_local_gpus()` is the one entry point; the audit can later build the same `DetectedGpus`
from its facts (NVML snapshot) and pass it to `resolve_detected`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stackaudit.gputable import GpuSpec, UnknownGpuError, lookup


@dataclass(frozen=True)
class DetectedGpus:
    names: tuple[str, ...]
    memory_bus_bits: int | None
    max_memory_clock_mhz: int | None
    nvlink_active: bool
    p2p_ok: bool | None  # None: unknown

    @property
    def count(self) -> int:
        return len(self.names)

    @property
    def bandwidth_gbs(self) -> float | None:
        """2 x max memory clock x bus width / 8 (how nvidia-smi reports DDR clocks)."""
        if not self.memory_bus_bits or not self.max_memory_clock_mhz:
            return None
        return 2 * self.max_memory_clock_mhz * 1e6 * self.memory_bus_bits / 8 / 1e9

    @property
    def interconnect(self) -> str:
        if self.nvlink_active:
            return "nvlink"
        return "pcie-no-p2p" if self.p2p_ok is False else "pcie"


def _nvml_call(fn: Any, *args: Any) -> Any:
    """One NVML query; NVMLError (NotSupported, NoPermission ...) becomes None."""
    import pynvml

    try:
        return fn(*args)
    except pynvml.NVMLError:
        return None


def detect_local_gpus() -> DetectedGpus | None:
    """The GPUs of this host, or None when there is no NVIDIA driver or GPU."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return None
    try:
        count = _nvml_call(pynvml.nvmlDeviceGetCount) or 0
        handles = [
            h
            for h in (_nvml_call(pynvml.nvmlDeviceGetHandleByIndex, i) for i in range(count))
            if h is not None
        ]
        if not handles:
            return None
        names = []
        for handle in handles:
            name = _nvml_call(pynvml.nvmlDeviceGetName, handle) or "unknown"
            names.append(name.decode() if isinstance(name, bytes) else str(name))
        first = handles[0]
        bus = _nvml_call(pynvml.nvmlDeviceGetMemoryBusWidth, first)
        clock = _nvml_call(pynvml.nvmlDeviceGetMaxClockInfo, first, pynvml.NVML_CLOCK_MEM)
        links = getattr(pynvml, "NVML_NVLINK_MAX_LINKS", 18)
        nvlink = any(
            _nvml_call(pynvml.nvmlDeviceGetNvLinkState, first, link) == pynvml.NVML_FEATURE_ENABLED
            for link in range(links)
        )
        p2p: bool | None = None
        if len(handles) > 1 and hasattr(pynvml, "nvmlDeviceGetP2PStatus"):
            status = _nvml_call(
                pynvml.nvmlDeviceGetP2PStatus, handles[0], handles[1], pynvml.NVML_P2P_CAPS_INDEX_READ
            )
            if status is not None:
                p2p = status == pynvml.NVML_P2P_STATUS_OK
        return DetectedGpus(
            tuple(names), int(bus) if bus else None, int(clock) if clock else None, nvlink, p2p
        )
    finally:
        _nvml_call(pynvml.nvmlShutdown)


def resolve_detected(detected: DetectedGpus) -> tuple[GpuSpec | None, str]:
    """Table row for the detected name (None if unknown) and a note on what was detected."""
    name = detected.names[0]
    note = f"detected {detected.count} x {name} (NVML)"
    if len(set(detected.names)) > 1:
        note += f"; mixed GPUs ({', '.join(sorted(set(detected.names)))}): the first is used"
    try:
        spec = lookup(name).spec
    except UnknownGpuError:
        return None, note
    return spec, note
