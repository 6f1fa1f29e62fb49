"""The NVML choke point with a fake pynvml, provider fallbacks, sampling, and an 8-GPU capture replayed."""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from nvidia_support import HGX_BUSES, hgx, host_for, pci_files, xml_gpu, xml_log
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.engine.testing import run_checks
from stackaudit.facts.nvidia import GpuSamples, from_nvml, gpu_from_nvml, samples_from_nvml
from stackaudit.host import nvml
from stackaudit.host.live import LiveHost
from stackaudit.host.memory import fake_host
from stackaudit.host.recording import RecordingHost
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.host.snapshot_writer import write_snapshot
from stackaudit.pci_address import normalize_bdf


class FakeNVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"NVML error {value}")
        self.value = value


def _raise(code: int) -> Any:
    def fn(*_: Any) -> Any:
        raise FakeNVMLError(code)

    return fn


def fake_pynvml(count: int = 2, init_error: int | None = None) -> types.ModuleType:
    """A pynvml whose H100s answer like real ones, with NotSupported (3) where H100s have no value."""
    m = types.ModuleType("pynvml")
    ns = types.SimpleNamespace

    class FabricInfo:
        def __init__(self) -> None:
            self.state, self.status = 0, 0

    def fabric(h: int, info: FabricInfo) -> int:
        info.state, info.status = 3, 0
        return 0

    def nvlink_state(h: int, link: int) -> int:
        if link >= 18:
            raise FakeNVMLError(2)  # InvalidArgument past the last link
        return 0 if (h, link) == (1, 5) else 1

    def field_values(h: int, ids: list[int]) -> list[Any]:
        return [ns(nvmlReturn=0, value=ns(uiVal=48 if ids[0] == 82 else 0))]

    funcs: dict[str, Any] = {
        "nvmlInit": _raise(init_error) if init_error else (lambda: None),
        "nvmlSystemGetDriverVersion": lambda: "570.124.06",
        "nvmlSystemGetCudaDriverVersion": lambda: 12080,
        "nvmlSystemGetNVMLVersion": lambda: "12.570.124.06",
        "nvmlDeviceGetCount": lambda: count,
        "nvmlDeviceGetHandleByIndex": lambda i: i if i < count else _raise(2)(),
        "nvmlDeviceGetName": lambda h: b"NVIDIA H100 80GB HBM3",
        "nvmlDeviceGetUUID": lambda h: f"GPU-{h:08x}-0000-0000-0000-000000000000",
        "nvmlDeviceGetPciInfo": lambda h: ns(busId=HGX_BUSES[h].encode()),
        "nvmlDeviceGetArchitecture": lambda h: 9,
        "nvmlDeviceGetCudaComputeCapability": lambda h: (9, 0),
        "nvmlDeviceGetPersistenceMode": lambda h: 1,
        "nvmlDeviceGetComputeMode": lambda h: 0,
        "nvmlDeviceGetDisplayActive": lambda h: 0,
        "nvmlDeviceGetDisplayMode": lambda h: 0,
        "nvmlDeviceGetMigMode": lambda h: [0, 0],
        "nvmlDeviceGetMaxMigDeviceCount": lambda h: 7,
        "nvmlDeviceGetMigDeviceHandleByIndex": _raise(6),
        "nvmlDeviceGetEccMode": lambda h: [1, 1],
        "nvmlDeviceGetTotalEccErrors": lambda h, kind, scope: 0,
        "nvmlDeviceGetRetiredPages": _raise(3),
        "nvmlDeviceGetRetiredPagesPendingStatus": _raise(3),
        "nvmlDeviceGetRemappedRows": lambda h: (0, 0, 1 if h == 1 else 0, 0),
        "nvmlDeviceGetPowerManagementLimit": lambda h: 700000,
        "nvmlDeviceGetPowerManagementDefaultLimit": lambda h: 700000,
        "nvmlDeviceGetPowerManagementLimitConstraints": lambda h: [200000, 700000],
        "nvmlDeviceGetEnforcedPowerLimit": lambda h: 700000,
        "nvmlDeviceGetPowerUsage": lambda h: 112000,
        "nvmlDeviceGetCurrentClocksEventReasons": lambda h: 0x1,
        "nvmlDeviceGetSupportedClocksEventReasons": lambda h: 0x1FF,
        "nvmlDeviceGetClockInfo": lambda h, c: {0: 345, 1: 345, 2: 2619}[c],
        "nvmlDeviceGetMaxClockInfo": lambda h, c: {1: 1980, 2: 2619}[c],
        "nvmlDeviceGetApplicationsClock": lambda h, c: {0: 1980, 2: 2619}[c],
        "nvmlDeviceGetDefaultApplicationsClock": lambda h, c: {0: 1980, 2: 2619}[c],
        "nvmlDeviceGetMemoryInfo": lambda h: ns(total=85520809984, used=1048576, free=0),
        "nvmlDeviceGetBAR1MemoryInfo": lambda h: ns(bar1Total=137438953472),
        "nvmlDeviceGetCurrPcieLinkGeneration": lambda h: 1,
        "nvmlDeviceGetMaxPcieLinkGeneration": lambda h: 5,
        "nvmlDeviceGetGpuMaxPcieLinkGeneration": lambda h: 5,
        "nvmlDeviceGetCurrPcieLinkWidth": lambda h: 16,
        "nvmlDeviceGetMaxPcieLinkWidth": lambda h: 16,
        "nvmlDeviceGetPcieReplayCounter": lambda h: 0,
        "nvmlDeviceGetNvLinkState": nvlink_state,
        "nvmlDeviceGetNvLinkRemotePciInfo": lambda h, link: ns(busId=b"00000000:0C:00.0"),
        "nvmlDeviceGetNvLinkErrorCounter": lambda h, link, c: 7 if (h, link, c) == (0, 2, 1) else 0,
        "nvmlDeviceGetComputeRunningProcesses": lambda h: [ns(pid=4101 + h, usedGpuMemory=74 * 2**30)],
        "nvmlDeviceGetGraphicsRunningProcesses": lambda h: [],
        "nvmlSystemGetProcessName": lambda pid: b"VLLM::Worker_TP" + str(pid - 4101).encode(),
        "nvmlDeviceGetUtilizationRates": lambda h: ns(gpu=0, memory=0),
        "nvmlDeviceGetGspFirmwareVersion": lambda h: b"570.124.06",
        "nvmlDeviceGetGspFirmwareMode": lambda h: [1, 1],
        "nvmlDeviceGetMemoryBusWidth": lambda h: 5120,
        "nvmlDeviceGetPerformanceState": lambda h: 0,
        "c_nvmlGpuFabricInfo_t": FabricInfo,
        "nvmlDeviceGetGpuFabricInfo": fabric,
        "nvmlDeviceGetTemperature": lambda h, s: 31,
        "nvmlDeviceGetTemperatureThreshold": _raise(3),
        "nvmlDeviceGetFieldValues": field_values,
    }
    for name, fn in funcs.items():
        setattr(m, name, fn)
    return m


@pytest.fixture
def pynvml(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def install(**kwargs: Any) -> types.ModuleType:
        module = fake_pynvml(**kwargs)
        monkeypatch.setitem(sys.modules, "pynvml", module)
        nvml.reset()
        return module

    yield install
    nvml.reset()


def test_choke_point_turns_failures_into_values(pynvml: Any) -> None:
    pynvml(count=2)
    answer = nvml.live_query("gpu/1")
    assert answer["name"] == "NVIDIA H100 80GB HBM3" and answer["pci_bus_id"] == "00000000:2A:00.0"
    assert answer["retired_pages"]["single_bit"] == {"error": "not-supported"}
    assert answer["temperature"]["slowdown"] == {"error": "not-supported"}
    assert answer["temperature"]["memory"] == 48 and answer["recovery_action"] == 0
    assert len(answer["nvlink"]) == 18 and answer["nvlink"][5]["active"] == 0
    assert answer["processes"]["compute"][0]["name"] == "VLLM::Worker_TP1"
    gpu = gpu_from_nvml(answer)
    assert gpu.bdf == "0000:2a:00.0" and gpu.remap_pending is True and gpu.active_nvlinks == 17
    assert gpu.fabric_state == "Completed" and gpu.clock_events == ("gpu_idle",) and gpu.power_default_w == 700.0
    assert gpu.memory_total_mib == 81559.0 and gpu.bar1_total_mib == 131072.0 and gpu.architecture == "Hopper"
    with pytest.raises(nvml.NvmlError) as exc:
        nvml.live_query("gpu/9")
    assert exc.value.kind == "invalid-argument"


def test_driver_not_loaded_is_one_error(pynvml: Any) -> None:
    pynvml(init_error=9)
    with pytest.raises(nvml.NvmlError) as exc:
        nvml.live_query("system")
    assert exc.value.kind == "driver-not-loaded"


def test_live_record_write_load_replays_the_same(pynvml: Any, tmp_path: Path) -> None:
    pynvml(count=8)
    recorder = RecordingHost(LiveHost())
    gpus = from_nvml(recorder)
    assert len(gpus.gpus) == 8 and gpus.cuda_version == "12.8"
    assert set(recorder.record.nvml) == {"system", *(f"gpu/{i}" for i in range(8))}
    recorder.record.meta = {"hostname": "hgx", "uid": 0}
    write_snapshot(recorder.record, str(tmp_path / "snap.tar.gz"))
    replayed = from_nvml(load_snapshot(str(tmp_path / "snap.tar.gz")))
    assert replayed == gpus


def test_sampling_query_and_fact(pynvml: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pynvml(count=2)
    monkeypatch.setattr(nvml, "SAMPLE_INTERVAL_S", 0.2)
    data = nvml.live_query("samples/1")
    assert data["gpu_count"] == 2 and len(data["ticks"]) >= 4
    samples = samples_from_nvml(data)
    assert samples.series[1][0].reasons == ("gpu_idle",) and samples.series[0][0].power_w == 112.0
    with pytest.raises(nvml.NvmlError):
        nvml.live_query("samples/0")


def _hgx_snapshot_host(tmp_path: Path) -> Any:
    """An 8x H100 HGX host, recorded through the engine and replayed from a .tar.gz snapshot."""
    host = host_for(hgx(), nvswitches=4, fabricmanager="active", fm_version="570.124.06")
    recorder = RecordingHost(host)
    run_audit(recorder, AuditOptions(select=["DRV", "MEM", "PWR"]))
    recorder.record.meta = {"hostname": "hgx-h100", "uid": 0, "source": "snapshot"}
    write_snapshot(recorder.record, str(tmp_path / "hgx.tar.gz"))
    return host, load_snapshot(str(tmp_path / "hgx.tar.gz"))


def test_eight_gpu_snapshot_replays_to_the_same_results_fast(tmp_path: Path) -> None:
    original, replay = _hgx_snapshot_host(tmp_path)
    first = run_checks(original, ["DRV", "MEM", "PWR"])
    start = time.perf_counter()
    again = run_checks(replay, ["DRV", "MEM", "PWR"])
    elapsed = time.perf_counter() - start
    assert {k: (v.status, v.message) for k, v in first.items()} == {k: (v.status, v.message) for k, v in again.items()}
    assert again["DRV-FABRIC-MANAGER"].status == "ok" and again["DRV-NVLINK-HEALTH"].status == "ok"
    assert elapsed < 1.0, f"audit of an 8-GPU snapshot took {elapsed:.2f} s"


def test_no_nvml_falls_back_to_nvidia_smi_xml() -> None:
    files, links = pci_files(["0000:18:00.0"])
    host = fake_host(files=files, links=links,
                     commands={("nvidia-smi", "-q", "-x"): xml_log([xml_gpu(HGX_BUSES[0], persistence="Disabled")])})
    r = run_checks(host, ["DRV-PERSISTENCE"])["DRV-PERSISTENCE"]
    assert r.status == "issue" and r.subjects == ("0000:18:00.0",)


def test_driver_not_loaded_with_gpus_on_the_bus_is_unknown_with_reason() -> None:
    files, links = pci_files(["0000:18:00.0"])
    host = fake_host(files=files, links=links,
                     nvml={"system": {"__error__": {"kind": "driver-not-loaded", "message": "Driver Not Loaded"}}})
    r = run_checks(host, ["DRV-PERSISTENCE"])["DRV-PERSISTENCE"]
    assert r.status == "unknown" and "not loaded" in r.message and "modprobe" in r.hint


def test_no_nvidia_gpu_on_the_bus_is_not_applicable() -> None:
    host = fake_host(files={"/sys/devices/pci0000:00/0000:00:02.0/vendor": "0x8086\n",
                            "/sys/devices/pci0000:00/0000:00:02.0/class": "0x030000\n"},
                     links={"/sys/bus/pci/devices/0000:00:02.0": "../../../devices/pci0000:00/0000:00:02.0"})
    results = run_checks(host, ["DRV", "MEM-MIG", "MEM-ECC-MODE", "PWR-GPU-POWER-LIMIT", "PWR-CLOCK-EVENTS"])
    for check_id in ("DRV-PERSISTENCE", "DRV-NVLINK-HEALTH", "MEM-MIG", "PWR-GPU-POWER-LIMIT", "PWR-CLOCK-EVENTS",
                     "DRV-FABRIC-MANAGER", "DRV-CUDA-COMPAT"):
        assert results[check_id].status == "not-applicable", check_id


def test_audit_sample_option_extends_collection_and_judges_under_load() -> None:
    tick = {"sm": 990, "mem": 2619, "power_mw": 690000, "reasons": 0x8 | 0x40, "gen": 5, "width": 16, "util": 98,
            "temp": 88}
    samples = {"seconds": 3, "interval_s": 1.0, "gpu_count": 1,
               "ticks": [{"t": float(t), "gpus": [tick]} for t in range(4)]}
    host = host_for(hgx(count=1), nvml_extra={"samples/3": samples})
    report = run_audit(host, AuditOptions(select=["PWR-CLOCK-EVENTS"], sample_s=3))
    (r,) = report.results
    assert r.status == "issue" and "HW Thermal Slowdown" in r.message and "100%" in r.message
    assert isinstance(samples_from_nvml(samples), GpuSamples)


def test_cli_rejects_a_bad_sample_window(cli: Any) -> None:
    out = cli("audit", "--sample", "-1", "--from", str(Path(__file__)))
    assert out.rc == 2 and "--sample" in out.err


def _blind(module: types.ModuleType, error: Any) -> None:
    """Every per-device NVML call fails with `error` (NoPermission, or something no binding documents)."""
    for name in dir(module):
        if name.startswith("nvmlDevice") and name not in ("nvmlDeviceGetHandleByIndex", "nvmlDeviceGetCount"):
            setattr(module, name, error)


@pytest.mark.parametrize("error", [_raise(4), lambda *_: (_ for _ in ()).throw(TypeError("odd binding")),
                                   lambda *_: None])
def test_no_exception_escapes_a_field_read(pynvml: Any, error: Any) -> None:
    """NoPermission, an undocumented exception or a None answer: every field is a value, never an exception."""
    _blind(pynvml(count=1), error)
    answer = nvml.live_query("gpu/0")
    assert answer["index"] == 0
    gpu = gpu_from_nvml(answer)
    assert gpu.persistence is None and gpu.ecc_current is None and gpu.power_limit_w is None


def test_blind_nvml_reads_are_unknown_never_ok(pynvml: Any) -> None:
    """A GPU whose every NVML field answers NoPermission: no DRV/MEM/PWR check says ok or not-applicable."""
    _blind(pynvml(count=2), _raise(4))
    files, links = pci_files([normalize_bdf(b) for b in HGX_BUSES[:2]])
    host = fake_host(files=files, links=links, nvml={"system": nvml.live_query("system"),
                                                      "gpu/0": nvml.live_query("gpu/0"),
                                                      "gpu/1": nvml.live_query("gpu/1")})
    ids = ["DRV-PERSISTENCE", "DRV-COMPUTE-MODE", "DRV-GSP-FIRMWARE", "DRV-NVLINK-HEALTH", "MEM-ROW-REMAP-ECC",
           "MEM-ECC-MODE", "MEM-MIG", "MEM-GPU-SHARED", "PWR-GPU-POWER-LIMIT", "PWR-CLOCK-EVENTS", "PWR-APP-CLOCKS"]
    results = run_checks(host, ids)
    assert {i: results[i].status for i in ids} == {i: "unknown" for i in ids}
