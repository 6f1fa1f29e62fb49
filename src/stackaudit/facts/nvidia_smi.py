"""The `nvidia` fact: NVML first (facts/nvidia.py), else one parser per nvidia-smi output, best first:
`-q -x` (XML), `-q` (text) and the default table.

Each parser returns the same `NvidiaGpus` the NVML path gives, with None for what the output does not
show, and raises only ParseError. Element names follow the nvidia-smi XML schemas seen in real
outputs (nvsmi_device_v11 … v13: `clocks_event_reasons` since R535, `clocks_throttle_reasons`
before; `gpu_power_readings` with `current_power_limit` since R530, `power_readings` with
`power_limit`/`enforced_power_limit` before) — see tests/data/captures 01 and 04 and the tests.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stackaudit.facts._parse import ParseError
from stackaudit.facts.nvidia import (
    CLOCK_EVENT_LABELS,
    GpuInfo,
    GpuProcess,
    NvidiaGpus,
    from_nvml,
)
from stackaudit.facts.pci import PciDevices
from stackaudit.facts.registry import FactContext, FactUnavailable, fact, first_of, parser, provider
from stackaudit.facts.sources import GPU_MONITOR, NVML, NVSMI_QUERY, NVSMI_TABLE, NVSMI_XML
from stackaudit.gputable import GpuTableError, cut_prefix, resolve_cut_name
from stackaudit.host.base import NotCaptured
from stackaudit.host.limits import load_xml
from stackaudit.host.nvml import NvmlError
from stackaudit.pci_address import BDF, normalize_bdf

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

MAX_TEXT = 32 * 1024 * 1024
NVIDIA_HINT = "install nvidia-ml-py (pip install nvidia-ml-py) or the NVIDIA driver utilities"
fact("nvidia", NvidiaGpus, first_of)
_NA = {"", "n/a", "[n/a]", "none", "unknown", "unknown error", "[unknown error]", "not supported", "[not supported]",
       "requested functionality has been deprecated", "insufficient permissions", "[insufficient permissions]"}
_LABEL_TO_REASON = {label.lower(): name for name, label in CLOCK_EVENT_LABELS.items()}
_LABEL_TO_REASON["display clocks setting"] = "display_clocks_setting"
_LABEL_TO_REASON["user defined clocks"] = "applications_clocks_setting"
_COMPUTE = {"default": "Default", "exclusive_process": "Exclusive_Process", "e. process": "Exclusive_Process",
            "exclusive_thread": "Exclusive_Thread", "e. thread": "Exclusive_Thread", "prohibited": "Prohibited"}


def _name(value: str | None) -> str:
    return _clean(value) or ""


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    text = " ".join(value.split())
    return None if text.lower() in _NA else text


def _int(value: str | None) -> int | None:
    text = _clean(value)
    if text is None:
        return None
    m = re.match(r"-?\d+", text.replace(",", ""))
    return int(m.group(0)) if m else None


def _text(value: str | None) -> str | None:
    """A text field as shown; N/A and empty are "not in the source"."""
    value = (value or "").strip()
    return value if value and value not in ("N/A", "[N/A]", "Unknown Error") else None


def _float(value: str | None) -> float | None:
    text = _clean(value)
    if text is None:
        return None
    m = re.match(r"-?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else None


def _bool(value: str | None) -> bool | None:
    text = (_clean(value) or "").lower()
    if text in ("enabled", "yes", "active", "on", "true"):
        return True
    if text in ("disabled", "no", "not active", "off", "false"):
        return False
    return None


_UNSUPPORTED = {"n/a", "[n/a]", "not supported", "[not supported]"}


def _said_na(node: Node | None) -> bool:
    """The source prints this field as N/A (the GPU lacks it) — not missing, not "Insufficient Permissions"."""
    return node is not None and not node.children and " ".join((node.value or "").split()).lower() in _UNSUPPORTED


def _unsupported(g: Node, ecc: str, mig: str, remap: str, app_clocks: tuple[str, ...] = (),
                 retire: Node | None = None) -> tuple[str, ...]:
    """The features the GPU's section prints as N/A: "ecc", "mig", "remap", "retire" (page retirement: its pending
    flag `retire` reads N/A), and "app-clocks" where every one of the
    application clock fields `app_clocks` names (current and default, graphics and memory) reads N/A (a GeForce card:
    NVML's ApplicationsClock is NotSupported there, corpus 1271)."""
    said = tuple(name for name, path in (("ecc", ecc), ("mig", mig), ("remap", remap)) if _said_na(g.at(path)))
    if _said_na(retire):
        said += ("retire",)
    if app_clocks and all(_said_na(g.at(path)) for path in app_clocks):
        said += ("app-clocks",)
    return said


def _compute_mode(value: str | None) -> str | None:
    text = _clean(value)
    return _COMPUTE.get(text.lower(), text) if text else None


# --- a tree both formats map onto --------------------------------------------------------------


@dataclass
class Node:
    label: str
    value: str | None = None
    children: list[Node] = field(default_factory=list)
    # The first child per lowercased label, built on the first lookup (a GPU's section is asked ~60 times).
    _by_label: dict[str, Node] | None = field(default=None, repr=False, compare=False)

    def child(self, *labels: str) -> Node | None:
        index = self._by_label
        if index is None:
            index = {}
            for c in self.children:
                index.setdefault(c.label.lower(), c)
            self._by_label = index
        for label in labels:
            found = index.get(label.lower())
            if found is not None:
                return found
        return None

    def at(self, path: str) -> Node | None:
        """`a/b/c`, each step one of several `|`-separated labels."""
        node: Node | None = self
        for step in path.split("/"):
            if node is None:
                return None
            node = node.child(*step.split("|"))
        return node

    def get(self, path: str) -> str | None:
        node = self.at(path)
        return None if node is None else node.value

    def walk(self) -> Iterator[Node]:
        for c in self.children:
            yield c
            yield from c.walk()


def _sum_counts(node: Node | None, want_uncorrected: bool) -> int | None:
    """Sum the ECC counters of a `volatile`/`aggregate` section (new flat and old single/double bit forms)."""
    if node is None:
        return None
    total: int | None = None
    old_section = node.child("double_bit" if want_uncorrected else "single_bit",
                             "Double Bit" if want_uncorrected else "Single Bit")
    if old_section is not None:
        return _int(old_section.get("total|Total"))
    for c in node.walk():
        label = c.label.lower().replace(" ", "_")
        if "threshold" in label or c.children:
            continue
        uncorrected = "uncorrectable" in label
        if uncorrected != want_uncorrected or ("correctable" not in label):
            continue
        n = _int(c.value)
        if n is not None:
            total = (total or 0) + n
    return total


def _reasons(node: Node | None) -> tuple[str, ...] | None:
    if node is None:
        return None
    active: list[str] = []
    seen = False
    for c in node.walk():
        label = c.label.lower()
        for prefix in ("clocks_event_reason_", "clocks_throttle_reason_"):
            if label.startswith(prefix):
                label = label[len(prefix):]
                break
        else:
            label = _LABEL_TO_REASON.get(label, label)
        if label == "display_clock_setting":
            label = "display_clocks_setting"
        state = _bool(c.value)
        if state is None:
            continue
        seen = True
        if state and label not in active:
            active.append(label)
    return tuple(active) if seen else None


# --- XML ---------------------------------------------------------------------------------------

_DOCTYPE = re.compile(r"<!DOCTYPE\s+nvidia_smi_log\s+SYSTEM\s+\"[\w.]+\"\s*>")


def _xml_text(elem: ET.Element) -> str | None:
    text = elem.text
    return (text.strip() or None) if text else None


def _xml_node(elem: ET.Element) -> Node:
    return Node(elem.tag, _xml_text(elem), [_xml_node(c) for c in elem])


_TAG = re.compile(r"<(/?)([A-Za-z_][\w.-]*)[^<>]*?(/?)>")


def _closed(body: str) -> str:
    """XML cut short (a paste that stops inside it), up to its last whole line, with the elements still
    open closed: what it shows is read, what was cut away is not in it."""
    body = body[: body.rfind(">") + 1]
    open_tags: list[str] = []
    for m in _TAG.finditer(body):
        if m.group(3):
            continue
        if m.group(1):
            if open_tags and open_tags[-1] == m.group(2):
                open_tags.pop()
        else:
            open_tags.append(m.group(2))
    return body + "".join(f"</{t}>" for t in reversed(open_tags))


@parser(NVSMI_XML, feeds="nvidia", kind=NvidiaGpus, rank=20)
def parse_xml(text: str) -> NvidiaGpus:
    """NVIDIA GPUs from `nvidia-smi -q -x`; entities are refused (no DOCTYPE beyond nvidia-smi's own line).

    Input (tests/data/captures/01)::

        <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
        <nvidia_smi_log>
            <driver_version>535.54.03</driver_version>
            <attached_gpus>4</attached_gpus>
            <gpu id="00000000:01:00.0">
                <product_name>NVIDIA A100-SXM4-80GB</product_name>
                <persistence_mode>Disabled</persistence_mode>
    """
    if len(text) > MAX_TEXT:
        raise ParseError("nvidia-smi XML larger than 32 MiB")
    start = text.find("<nvidia_smi_log")
    if start < 0:
        raise ParseError("not the whole output of `nvidia-smi -q -x` (no <nvidia_smi_log>): a fragment without "
                         "its <gpu> element does not show which GPU it is, nor the others")
    head = _DOCTYPE.sub("", text[:start])
    body = text[start:]
    if "<!DOCTYPE" in head or "<!ENTITY" in head or "<!DOCTYPE" in body or "<!ENTITY" in body:
        raise ParseError("nvidia-smi XML with a document type or entities is refused")
    end = body.rfind("</nvidia_smi_log>")
    body = body[: end + len("</nvidia_smi_log>")] if end >= 0 else _closed(body)
    try:
        root = load_xml(body, "nvidia-smi XML")
    except ValueError as exc:
        raise ParseError(str(exc)) from exc
    gpus = []
    for i, elem in enumerate(root.findall("gpu")):
        node = _xml_node(elem)
        gpus.append(_gpu_from_xml(i, node, elem.get("id", "")))
    # The top level's own values only (driver, CUDA, GPU count): its GPUs were converted above.
    top = Node(root.tag, None, [Node(c.tag, _xml_text(c)) for c in root if c.tag != "gpu"])
    return NvidiaGpus(tuple(gpus), _clean(top.get("driver_version")), _clean(top.get("cuda_version")),
                      _int(top.get("attached_gpus")), vgpu_host_driver=root.find("vgpu_driver_capability") is not None)


def _xml_processes(node: Node | None) -> tuple[GpuProcess, ...] | None:
    if node is None:
        return None
    procs = []
    for p in node.children:
        if p.label != "process_info":
            continue
        pid = _int(p.get("pid"))
        if pid is None:
            continue
        procs.append(GpuProcess(pid, _clean(p.get("process_name")) or "", _float(p.get("used_memory")),
                                _clean(p.get("type")) or "C"))
    return tuple(procs)


def _nvidia_device_id(value: str | None) -> int | None:
    """The device half of nvidia-smi's `Device Id` (0x140110DE: device 0x1401, vendor 0x10DE); None for another
    vendor or a value that is no such number."""
    text = _clean(value)
    if text is None or not re.fullmatch(r"0x[0-9A-Fa-f]{8}", text):
        return None
    number = int(text, 16)
    return number >> 16 if number & 0xFFFF == 0x10DE else None


# GpuInfo fields both nvidia-smi forms show: field -> (conversion, `-q -x` element path, `-q` text path).
_GPU_FIELDS: dict[str, tuple[Callable[[str | None], Any], str, str]] = {
    "name": (_name, "product_name", "Product Name"),
    "uuid": (_name, "uuid", "GPU UUID"),
    "minor_number": (_int, "minor_number", "Minor Number"),
    "architecture": (_name, "product_architecture", "Product Architecture"),
    "pci_device_id": (_nvidia_device_id, "pci/pci_device_id", "PCI/Device Id"),
    "persistence": (_bool, "persistence_mode", "Persistence Mode"),
    "compute_mode": (_compute_mode, "compute_mode", "Compute Mode"),
    "display_active": (_bool, "display_active", "Display Active"),
    "mig_pending": (_bool, "mig_mode/pending_mig", "MIG Mode/Pending"),
    "ecc_current": (_bool, "ecc_mode/current_ecc", "ECC Mode/Current"),
    "ecc_pending": (_bool, "ecc_mode/pending_ecc", "ECC Mode/Pending"),
    "retired_sbe": (_int, "retired_pages/multiple_single_bit_retirement/retired_count",
        "Retired Pages/Single Bit ECC"),
    "retired_dbe": (_int, "retired_pages/double_bit_retirement/retired_count", "Retired Pages/Double Bit ECC"),
    "remap_corrected": (_int, "remapped_rows/remapped_row_corr", "Remapped Rows/Correctable Error"),
    "remap_uncorrected": (_int, "remapped_rows/remapped_row_unc", "Remapped Rows/Uncorrectable Error"),
    "remap_pending": (_bool, "remapped_rows/remapped_row_pending", "Remapped Rows/Pending"),
    "remap_failure": (_bool, "remapped_rows/remapped_row_failure", "Remapped Rows/Remapping Failure Occurred"),
    "sm_clock_mhz": (_int, "clocks/sm_clock", "Clocks/SM"),
    "mem_clock_mhz": (_int, "clocks/mem_clock", "Clocks/Memory"),
    "max_sm_clock_mhz": (_int, "max_clocks/sm_clock", "Max Clocks/SM"),
    "max_mem_clock_mhz": (_int, "max_clocks/mem_clock", "Max Clocks/Memory"),
    "app_graphics_mhz": (_int, "applications_clocks/graphics_clock", "Applications Clocks/Graphics"),
    "app_mem_mhz": (_int, "applications_clocks/mem_clock", "Applications Clocks/Memory"),
    "default_app_graphics_mhz": (_int, "default_applications_clocks/graphics_clock",
        "Default Applications Clocks/Graphics"),
    "default_app_mem_mhz": (_int, "default_applications_clocks/mem_clock", "Default Applications Clocks/Memory"),
    "memory_total_mib": (_float, "fb_memory_usage/total", "FB Memory Usage/Total"),
    "memory_used_mib": (_float, "fb_memory_usage/used", "FB Memory Usage/Used"),
    "bar1_total_mib": (_float, "bar1_memory_usage/total", "BAR1 Memory Usage/Total"),
    "virtualization_mode": (_text, "gpu_virtualization_mode/virtualization_mode",
        "GPU Virtualization Mode/Virtualization Mode"),
    "vgpu_license": (_clean, "vgpu_software_licensed_product/license_status",
        "vGPU Software Licensed Product/License Status"),
    "vgpu_product": (_clean, "vgpu_software_licensed_product/licensed_product_name",
        "vGPU Software Licensed Product/Product Name"),
    "pcie_replays": (_int, "pci/replay_counter", "PCI/Replays Since Reset"),
    "utilization_gpu": (_int, "utilization/gpu_util", "Utilization/Gpu"),
    "utilization_mem": (_int, "utilization/memory_util", "Utilization/Memory"),
    "pstate": (_clean, "performance_state", "Performance State"),
    "fabric_state": (_clean, "fabric/state", "Fabric/State"),
    "fabric_status": (_clean, "fabric/status", "Fabric/Status"),
    "fabric_health": (_clean, "fabric/health/summary", "Fabric/Health/Summary"),
    "temp_c": (_int, "temperature/gpu_temp", "Temperature/GPU Current Temp"),
    "temp_slowdown_c": (_int, "temperature/gpu_temp_slow_threshold", "Temperature/GPU Slowdown Temp"),
    "temp_max_operating_c": (_int, "temperature/gpu_temp_max_gpu_threshold", "Temperature/GPU Max Operating Temp"),
    "mem_temp_c": (_int, "temperature/memory_temp", "Temperature/Memory Current Temp"),
    "mem_temp_max_c": (_int, "temperature/gpu_temp_max_mem_threshold|memory_temp_max_threshold",
        "Temperature/Memory Max Operating Temp"),
    "recovery_action": (_clean, "gpu_recovery_action", "GPU Recovery Action"),
}
# The same, read in the power readings section. R530+ renamed "power_limit" (set with -pl) to
# requested_power_limit and the enforced limit (the minimum of all limiters) to current_power_limit.
_POWER_FIELDS: dict[str, tuple[Callable[[str | None], Any], str, str]] = {
    "power_limit_w": (_float, "requested_power_limit|power_limit", "Requested Power Limit|Power Limit"),
    "power_default_w": (_float, "default_power_limit", "Default Power Limit"),
    "power_min_w": (_float, "min_power_limit", "Min Power Limit"),
    "power_max_w": (_float, "max_power_limit", "Max Power Limit"),
    "power_enforced_w": (_float, "current_power_limit|enforced_power_limit",
        "Current Power Limit|Enforced Power Limit"),
    "power_draw_w": (_float, "power_draw|instant_power_draw|average_power_draw",
        "Power Draw|Instantaneous Power Draw|Average Power Draw"),
}
# The same, read in the PCIe link section.
_LINK_FIELDS: dict[str, tuple[Callable[[str | None], Any], str, str]] = {
    "pcie_gen": (_int, "pcie_gen/current_link_gen", "PCIe Generation/Current"),
    "pcie_gen_max": (_int, "pcie_gen/max_link_gen", "PCIe Generation/Max"),
    "pcie_gen_device_max": (_int, "pcie_gen/max_device_link_gen", "PCIe Generation/Device Max"),
    "pcie_gen_host_max": (_int, "pcie_gen/max_host_link_gen", "PCIe Generation/Host Max"),
    "pcie_width": (_int, "link_widths/current_link_width", "Link Width/Current"),
    "pcie_width_max": (_int, "link_widths/max_link_width", "Link Width/Max"),
}


def _mapped(text: bool, g: Node, power: Node, link: Node) -> dict[str, Any]:
    """The fields of the tables above for one GPU section, read from `-q` text or else from `-q -x` XML."""
    return {name: conv(node.get(text_path if text else xml_path))
            for table, node in ((_GPU_FIELDS, g), (_POWER_FIELDS, power), (_LINK_FIELDS, link))
            for name, (conv, xml_path, text_path) in table.items()}


def _driver_model(model: str | None, persistence: bool | None) -> dict[str, Any]:
    """The GpuInfo field a `-q` section's `Driver Model` (Current) fills. nvidia-smi prints a persistence mode on
    Linux only (Windows' own nvidia-smi prints `Persistence Mode : N/A`, as its table prints the driver model in that
    column): a Windows driver model beside a persistence mode read is Linux's nvidia-smi over the Windows driver, WSL
    2's (wsl_driver_model); beside none, Windows' own (driver_model)."""
    model = _clean(model)
    if model not in WINDOWS_DRIVER_MODELS:
        return {}
    return {"wsl_driver_model": model} if persistence is not None else {"driver_model": model}


def _gpu_from_xml(index: int, g: Node, gpu_id: str) -> GpuInfo:
    power = g.at("gpu_power_readings") or g.at("power_readings") or Node("")
    pcie = g.at("pci/pci_gpu_link_info") or Node("")
    mig_current = _bool(g.get("mig_mode/current_mig"))
    retire = g.at("retired_pages/pending_retirement") or g.at("retired_pages/pending_blacklist")
    mig_node = g.at("mig_devices")
    mig_count = len([c for c in mig_node.children if c.label == "mig_device"]) if mig_node is not None else None
    gsp = g.at("gsp_firmware_version")
    mapped = _mapped(False, g, power, pcie)
    return GpuInfo(
        index=index,
        **mapped,
        **_driver_model(g.get("driver_model/current_dm"), mapped["persistence"]),
        bdf=normalize_bdf(g.get("pci/pci_bus_id") or gpu_id),
        mig_current=mig_current,
        mig_devices=mig_count if mig_current else (0 if mig_current is False else None),
        ecc_volatile_uncorrected=_sum_counts(g.at("ecc_errors/volatile"), True),
        ecc_volatile_corrected=_sum_counts(g.at("ecc_errors/volatile"), False),
        ecc_aggregate_uncorrected=_sum_counts(g.at("ecc_errors/aggregate"), True),
        ecc_aggregate_corrected=_sum_counts(g.at("ecc_errors/aggregate"), False),
        retired_pending=_bool(None if retire is None else retire.value),
        clock_events=_reasons(g.at("clocks_event_reasons|clocks_throttle_reasons")),
        processes=_xml_processes(g.at("processes")),
        gsp_firmware=(None if gsp is None else _clean(gsp.value) or ""),
        unsupported=_unsupported(g, "ecc_mode/current_ecc", "mig_mode/current_mig", "remapped_rows",
                                 ("applications_clocks/graphics_clock", "applications_clocks/mem_clock",
                                  "default_applications_clocks/graphics_clock",
                                  "default_applications_clocks/mem_clock"), retire),
    )


# --- `nvidia-smi -q` text -------------------------------------------------------------------------

# The fields of `nvidia-smi -q`, each with its depth (0: the log's top, 1: a GPU's section, 2 and 3: inside a
# section) and whether it is a section (a name alone on its line, its fields indented below it). The readers
# of loose fields use it too: the evidence reader's keys, and the paste view that splits a run of fields
# flattened onto one line (`Persistence Mode : Enabled Power Limit : 300.00 W ...`) back into its lines.
QUERY_FIELDS: dict[str, tuple[int, bool]] = {
    **{k: (0, False) for k in ("Timestamp", "Driver Version", "KMD Version", "CUDA Version", "CUDA UMD Version",
                               "Attached GPUs")},
    # A vGPU host driver's capability section at the log's top (corpus 399), with its one field.
    "vGPU Driver Capability": (0, True), "Heterogenous Multi-vGPU": (1, False),
    **{k: (1, False) for k in (
        "Product Name", "Product Brand", "Product Architecture", "Display Mode", "Display Active", "Display Attached",
        "Persistence Mode", "Addressing Mode", "Accounting Mode", "Accounting Mode Buffer Size", "Serial Number",
        "GPU UUID", "GPU PDI", "Minor Number", "VBIOS Version", "MultiGPU Board", "Board ID", "Board Part Number",
        "GPU Part Number", "FRU Part Number", "Platform Info", "Module ID", "GSP Firmware Version", "Fan Speed",
        "Performance State", "Compute Mode", "GPU Recovery Action", "Processes")},
    **{k: (1, True) for k in (
        "MIG Mode", "Driver Model", "Inforom Version", "Inforom BBX Object Flush", "GPU C2C Mode",
        "GPU Operation Mode", "GPU Virtualization Mode", "vGPU Software Licensed Product", "GPU Reset Status", "GPU Recovery Action Status", "IBMNPU",
        "PCI", "Clocks Event Reasons", "Clocks Throttle Reasons", "Clocks Event Reasons Counters", "Sparse Operation Mode",
        "FB Memory Usage", "BAR1 Memory Usage", "Conf Compute Protected Memory Usage", "Utilization",
        "Ecc Mode", "Encoder Stats", "FBC Stats", "DRAM Encryption Mode", "ECC Mode", "ECC Errors", "Retired Pages",
        "Remapped Rows", "Temperature", "GPU Power Readings", "Power Readings", "GPU Memory Power Readings",
        "Module Power Readings", "Power Samples", "Power Smoothing", "Workload Power Profiles", "Clocks",
        "Applications Clocks", "Default Applications Clocks", "Deferred Clocks", "Max Clocks",
        "Max Customer Boost Clocks", "Clock Policy", "Voltage", "Fabric", "Capabilities")},
    **{k: (2, False) for k in (
        "Virtualization Mode", "Host VGPU Mode", "vGPU Heterogeneous Mode", "License Status", "Bus Id", "Replays Since Reset",
        "Replays since reset",  # the R384 spelling (corpus 228)
        "Replay Number Rollovers", "Power Draw", "Average Power Draw", "Instantaneous Power Draw",
        "Power Management", "Power Limit", "Current Power Limit", "Requested Power Limit", "Default Power Limit",
        "Enforced Power Limit", "Min Power Limit", "Max Power Limit", "GPU Current Temp", "GPU Shutdown Temp",
        "GPU Slowdown Temp", "GPU Max Operating Temp", "Memory Current Temp", "Memory Max Operating Temp",
        "Pending Page Blacklist", "Pending Page Retirement", "Correctable Error", "Uncorrectable Error",
        "Remapping Failure Occurred", "Current", "Pending", "State", "Status", "CliqueId", "ClusterUUID",
        "Unknown",  # the clock event reason drivers before R450 print last (corpus 683)
        *CLOCK_EVENT_LABELS.values())},
    # A process under `Processes` (importers/_paste.py reads that name as a section where no colon follows it).
    "Process ID": (2, False),
    **{k: (3, False) for k in ("GPU instance ID", "Compute instance ID", "Type", "Name", "Used GPU Memory")},
    **{k: (2, True) for k in ("GPU Link Info", "Volatile", "Aggregate", "Health")},
    # Fabric's Health section (R550 on): its summary and the conditions behind it.
    **{k: (3, False) for k in ("Summary", "Bandwidth", "Route Recovery in progress", "Route Unhealthy",
                               "Access Timeout Recovery", "Incorrect Configuration", "Partition Assigned")},
    **{k: (3, True) for k in ("PCIe Generation", "Link Width")},
    **{k: (4, False) for k in ("Device Current", "Device Max", "Host Max",
                               "Max")},  # `Max` under PCIe Generation and Link Width before R535 (corpus 683)
}
# Names nvidia-smi prints under several sections at different depths (`Current` of GPU Operation Mode at 2, of
# PCIe Generation at 4): in a flattened run they belong to the innermost section open before them.
ANY_DEPTH = frozenset(("Current", "Pending", "Max"))


# A GPU section's header; `GPU` alone is the section of a GPU whose address is not shown (a rig report's GPU whose
# bus bullet is cut, importers/rig_report.py): nvidia-smi itself always prints the address.
_GPU_HEADER = re.compile(rf"^GPU(?:\s+({BDF}))?\s*$")
_KV = re.compile(r"^(\s*)([^:\s][^:]*?)\s*:\s?(.*)$")
_SECTION = re.compile(r"^(\s*)([A-Za-z][\w .()/+-]*?)\s*$")


def _text_tree(lines: list[str]) -> Node:
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in lines:
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _KV.match(line)
        if m:
            indent, label, value = len(m.group(1).expandtabs()), m.group(2).strip(), m.group(3).strip()
        else:
            s = _SECTION.match(line)
            if not s:
                continue
            indent, label, value = len(s.group(1).expandtabs()), s.group(2).strip(), ""
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else root
        node = Node(label, value if m else None)
        parent.children.append(node)
        stack.append((indent, node))
    return root


# The fields nvidia-smi prints under PCIe Generation, which it prints right before Link Width (GPU Link Info).
_GENERATION_FIELDS = frozenset(("Max", "Current", "Device Current", "Device Max", "Host Max"))


def _cut_generation(orphan: list[str]) -> list[str]:
    """An excerpt that starts inside PCIe Generation (corpus 1343: `Current : 1` over a shallower `Link Width`): its
    header, put back at Link Width's indent above the fields it cut off, so `Current` reads as the generation."""
    head: list[str] = []
    for i, ln in enumerate(orphan):
        if not ln.strip():
            continue
        m = _KV.match(ln)
        indent = len(ln) - len(ln.lstrip())
        if m and m.group(2).strip() in _GENERATION_FIELDS:
            head.append(ln)
            continue
        s = _SECTION.match(ln)
        deeper = all(len(h.expandtabs()) - len(h.expandtabs().lstrip()) > len(ln[:indent].expandtabs())
                     for h in head)
        if head and not m and s and s.group(2).strip() == "Link Width" and deeper:
            return [f"{ln[:indent]}PCIe Generation", *orphan[:i], *orphan[i:]]
        break
    return orphan


def _grep_gpus(groups: list[list[str]]) -> list[list[str]]:
    """The GPUs of a headerless excerpt (`nvidia-smi -q | grep -i bar -A 3`, grep's `--` separators kept or dropped by
    the paste): a section header at the excerpt's outermost indent that the current GPU already holds starts the next
    GPU, as grep prints every GPU's match in turn (corpus 2489: four `BAR1 Memory Usage` blocks); else one GPU."""
    lines = [ln for group in groups for ln in group]
    outer = min((len(ln.expandtabs()) - len(ln.expandtabs().lstrip()) for ln in lines if ln.strip()), default=0)
    gpus: list[list[str]] = [[]]
    seen: set[str] = set()
    for ln in lines:
        section = _SECTION.match(ln) if ln.strip() and not _KV.match(ln) else None
        if section is not None and len(section.group(1).expandtabs()) == outer:
            label = section.group(2).strip()
            if label in seen and gpus[-1]:
                gpus.append([])
                seen = set()
            seen.add(label)
        gpus[-1].append(ln)
    return [g for g in gpus if g]


@parser(NVSMI_QUERY, feeds="nvidia", kind=NvidiaGpus, rank=30)
def parse_query_text(text: str) -> NvidiaGpus:
    """NVIDIA GPUs from `nvidia-smi -q` text (whole, one `-d` section, or an excerpt of it).

    Input (tests/data/captures/21, an excerpt)::

        GPU 00000000:68:00.0
            Product Name                    : TITAN RTX
            Display Active                  : Disabled
            Persistence Mode                : Disabled
    """
    if len(text) > MAX_TEXT:
        raise ParseError("nvidia-smi -q text larger than 32 MiB")
    lines = text.replace("\r\n", "\n").split("\n")
    # A paste that shifts the whole output right (a tab before every line, corpus 1512): its first line a GPU header,
    # the rest one level deeper. Taken back as one; an excerpt that starts inside a section keeps its indent.
    first = next((line for line in lines if line.strip()), "")
    if first[:1] in (" ", "\t") and _GPU_HEADER.match(first.strip()):
        lines = textwrap.dedent("\n".join(lines)).split("\n")
    # `-q` prints the table's one line for a GPU it cannot open (corpus 697, `nvidia-smi -a`): read as the table reads it.
    unreachable = [lost for line in lines if (lost := _unreachable(line)) is not None]
    lines = [line for line in lines if _unreachable(line) is None] if unreachable else lines
    blocks: list[tuple[str, list[str]]] = []
    top: list[str] = []
    current: list[str] | None = None
    for line in lines:
        m = _GPU_HEADER.match(line.strip()) if not line.startswith((" ", "\t")) else None
        if m:
            current = []
            blocks.append((m.group(1) or "", current))
        elif current is not None:
            current.append(line)
        else:
            top.append(line)
    top_tree = _text_tree([ln for ln in top if not ln.startswith((" ", "\t"))])
    # An excerpt may start inside the previous GPU's section: indented lines before the first header, except the
    # fields of a section of the log's top (`vGPU Driver Capability`, corpus 399).
    orphans: list[list[str]] = [[]]
    in_top_section = False
    for ln in top:
        if ln.strip() == "--" and orphans[-1]:  # grep's separator between groups of `-A N` context
            orphans.append([])
        elif ln.strip() and not ln.startswith((" ", "\t")):
            in_top_section = QUERY_FIELDS.get(ln.strip()) == (0, True)
        elif ln.startswith((" ", "\t")) and not in_top_section:
            orphans[-1].append(ln)
    gpus: list[GpuInfo] = []
    for orphan in _grep_gpus(orphans):
        if any(_KV.match(ln) for ln in orphan):
            tree = _text_tree(_cut_generation(orphan))
            if tree.children:
                gpus.append(_gpu_from_text(len(gpus), tree, ""))
    for bus, body in blocks:
        gpus.append(_gpu_from_text(len(gpus), _text_tree(body), bus))
    driver = _clean(top_tree.get("Driver Version|KMD Version"))
    cuda = _clean(top_tree.get("CUDA Version|CUDA UMD Version"))
    if unreachable:
        # Like the table, `-q` names the GPU it cannot open; the GPUs it did not list are not in the source.
        return NvidiaGpus((*gpus, *(GpuInfo(index=-1, bdf=bdf, error=why) for bdf, why in unreachable)), driver, cuda,
                          _int(top_tree.get("Attached GPUs")),
                          cut=f"nvidia-smi stops at GPU {unreachable[0][0]}, which it cannot open")
    if not gpus and driver is None:
        raise ParseError("not the output of `nvidia-smi -q` (no GPU section, no driver version)")
    # A fragment (`nvidia-smi -q | grep -A3 "Compute Mode"`, one section) may show only a mode or an N/A.
    known = [g for g in gpus if g.name or g.persistence is not None or g.power_limit_w is not None
             or g.app_graphics_mhz is not None or g.bdf or g.compute_mode is not None or g.unsupported
             or g.pcie_width is not None or g.pcie_gen is not None or g.bar1_total_mib is not None
             or g.virtualization_mode or g.vgpu_license or g.fabric_state is not None or g.clock_events is not None]
    if not known and driver is None:
        raise ParseError("not the output of `nvidia-smi -q` (nothing recognisable)")
    return NvidiaGpus(tuple(gpus), driver, cuda, _int(top_tree.get("Attached GPUs")),
                      vgpu_host_driver=top_tree.at("vGPU Driver Capability") is not None)


@parser(GPU_MONITOR, feeds="nvidia", kind=NvidiaGpus, rank=50)
def parse_monitor_rows(text: str) -> NvidiaGpus:
    """NVIDIA GPUs from a GPU monitor's rows (nvtop, gpustat), as importers/nvtop.py records them: `-q` sections.

    Ranked after nvidia-smi's outputs: a monitor shows a GPU's name, load and memory, never its persistence mode,
    power cap or address, so where the paste holds nvidia-smi's table too (gpustat then `nvidia-smi`, corpus 2409),
    the table is the listing read.

    Input (what importers/nvtop.py records from gpustat's row `[0] TITAN Xp | 55'C, 100 % | 865 / 12196 MB |`)::

        GPU
            Product Name                          : TITAN Xp
            Utilization
                Gpu                               : 100 %
    """
    return parse_query_text(text)


def _text_processes(node: Node | None) -> tuple[GpuProcess, ...] | None:
    if node is None:
        return None
    if (node.value or "").strip().lower() in ("none", "no running processes found"):
        return ()
    procs = []
    for c in node.children:
        if c.label.lower() != "process id":
            continue
        pid = _int(c.value)
        if pid is None:
            continue
        procs.append(GpuProcess(pid, _clean(c.get("Name")) or "", _float(c.get("Used GPU Memory")),
                                _clean(c.get("Type")) or "C"))
    return tuple(procs)


def _descendant(node: Node, label: str) -> Node | None:
    """The first section of that label at any depth (a hand-cut excerpt nests it under the line above)."""
    todo = list(node.children)
    while todo:
        cur = todo.pop(0)
        if cur.label == label:
            return cur
        todo.extend(cur.children)
    return None


def _gpu_from_text(index: int, g: Node, bus: str) -> GpuInfo:
    power = g.at("GPU Power Readings") or g.at("Power Readings") or Node("")
    # A grep fragment may hold the link section without its PCI parent, or only its subsections.
    link = g.at("PCI/GPU Link Info") or _descendant(g, "GPU Link Info") or (
        g if g.at("PCIe Generation") is not None or g.at("Link Width") is not None else Node(""))
    mig_current = _bool(g.get("MIG Mode/Current"))
    gsp = g.at("GSP Firmware Version")
    # Page retirement's pending flag; an excerpt cut inside the Retired Pages section shows it without its parent
    # (corpus 1373): the label is the section's own.
    retire = (g.at("Retired Pages/Pending Page Blacklist|Pending Page Retirement")
              or g.at("Pending Page Blacklist|Pending Page Retirement"))
    mapped = _mapped(True, g, power, link)
    return GpuInfo(
        index=index,
        **mapped,
        **_driver_model(g.get("Driver Model/Current"), mapped["persistence"]),
        bdf=normalize_bdf(bus or g.get("PCI/Bus Id") or ""),
        mig_current=mig_current,
        mig_devices=0 if mig_current is False else None,
        ecc_volatile_uncorrected=_sum_counts(g.at("ECC Errors/Volatile"), True),
        ecc_volatile_corrected=_sum_counts(g.at("ECC Errors/Volatile"), False),
        ecc_aggregate_uncorrected=_sum_counts(g.at("ECC Errors/Aggregate"), True),
        ecc_aggregate_corrected=_sum_counts(g.at("ECC Errors/Aggregate"), False),
        retired_pending=_bool(None if retire is None else retire.value),
        clock_events=_reasons(g.at("Clocks Event Reasons|Clocks Throttle Reasons")),
        processes=_text_processes(g.at("Processes")),
        gsp_firmware=(None if gsp is None else _clean(gsp.value) or ""),
        unsupported=_unsupported(g, "ECC Mode/Current", "MIG Mode/Current", "Remapped Rows",
                                 ("Applications Clocks/Graphics", "Applications Clocks/Memory",
                                  "Default Applications Clocks/Graphics", "Default Applications Clocks/Memory"),
                                 retire),
    )


# --- the default table -------------------------------------------------------------------------

# Drivers before R410 print no CUDA Version (corpus 1535: `| NVIDIA-SMI 384.90   Driver Version: 384.90   |`): the
# header cell's closing bar then ends the driver's version, so a line cut inside the version is not read as one. A user
# may set the CUDA field in Markdown bold (`**CUDA Version: N/A**`, corpus 2393): the asterisks are no part of it.
TABLE_HEADER = re.compile(r"NVIDIA-SMI\s+(\S+)\s+(?:Driver Version|KMD Version):\s*(\S+)\s+\*{0,2}"
                          r"(?:(?:CUDA Version|CUDA UMD Version):\s*([^\s*]+)|\|)")
# The Windows driver models nvidia-smi shows in place of Persistence-M (`Driver-Model` header column).
WINDOWS_DRIVER_MODELS = ("WDDM", "TCC", "MCDM")
# An integrated GPU's persistence cell: a Jetson's nvidia-smi (JetPack 6, `Orin (nvgpu)`, corpus 2224) prints `N/A`
# for its persistence mode and its Bus-Id, the GPU sitting on the SoC with no PCI address; `N/A` counts as the
# persistence cell only before a Bus-Id cell of `N/A` (a process row's `N/A` memory closes its row).
NO_BUS_PERSISTENCE = r"N/A(?=\s*\|\s*N/A\s)"
# A GPU's first row; a paste cut inside its last column still shows the name, persistence (or Windows' driver
# model) and Bus-Id. Disp.A reads N/A on a GPU the driver can no longer query (its second row all ERR!, corpus 929).
_ROW1 = re.compile(rf"^\|\s*(\d+)\s+(.+?)\s+(On|Off|{'|'.join(WINDOWS_DRIVER_MODELS)}|{NO_BUS_PERSISTENCE})\s*\|"
                   rf"\s*({BDF}|N/A)"
                   r"\s+(On|Off|N/A)\s*\|(?:\s*([^|]*?)\s*\||[^|]*$)")
# Drivers before R340 (corpus 1320: 325.15) print the memory cell in `MB` (MiB all the same: `9MB /  4095MB`).
# A draw NVML failed to read prints `ERR!` before its cap (corpus 1365: `ERR! / 250W`): the cap still reads. A cap it
# failed to read prints `ERR!` too (corpus 1571, a GeForce MX350 on R535: `N/A / ERR!`): the memory and mode still read.
# Drivers of the R340 era print an unread utilisation as a bare `N/A`, without `%`, before the compute mode (corpus
# 1577, a GeForce GTX TITAN on 340.29: `N/A    E. Thread`).
_ROW2 = re.compile(r"^\|\s*(N/A|\d+%)\s+(N/A|-?\d+C)\s+(P\d+|N/A)\s+(?:(N/A|ERR!|\d+W)\s*/\s*(N/A|ERR!|\d+W))?\s*\|"
                   r"\s*(\d+)Mi?B\s*/\s*(\d+)Mi?B\s*\|\s*(?:(N/A|\d+)%|N/A)?\s*(Default|E\. Process|E\. Thread|Prohibited)?")
# A GPU's first row cut after its persistence (or driver model) word, before the Bus-Id cell (corpus 1064: `|   1  NVIDIA
# GeForce RTX 3090        On`) or inside it (corpus 2655, 2674: `|   0  NVIDIA GeForce RTX 3090        On  |
# 00000000:5E:00`): the GPU is shown, with its name and persistence mode, and its address where the cell holds it whole.
_ROW1_CUT = re.compile(rf"^\|\s*(\d+)\s+(.+?)\s+(On|Off|{'|'.join(WINDOWS_DRIVER_MODELS)})\s*"
                       r"(?:\|\s*([0-9A-Fa-f:.]{0,16}))?$")
_WHOLE_BDF = re.compile(BDF)
# A row of `nvidia-smi -L`: `GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)`.
_LIST_ROW = re.compile(r"^GPU \d+:\s*\S.*\((?:UUID:?[^)]*|\.\.\.|…)\)?\s*$")
# The header of a GPU's section in `nvidia-smi -q`: `GPU 00000000:3B:00.0`.
_QUERY_GPU = re.compile(rf"^GPU\s+{BDF}\s*$")


def lists_a_gpu(line: str) -> bool:
    """Whether a line of nvidia-smi's output names a GPU it opened: a table's first GPU row (whole or cut), a row of
    `nvidia-smi -L`, or a GPU section's header of `nvidia-smi -q`. A header, banner or error line names none."""
    text = line.strip()
    return bool(_ROW1.match(text) or _ROW1_CUT.match(text) or _LIST_ROW.match(text) or _QUERY_GPU.match(text))


# A GPU's second row cut after its power cell, inside the memory cell (corpus 1144: `| N/A   35C    P0    26W / 250W |
# 0MiB / 32510Mi`): the draw and cap are shown whole, the border after them closes the cell.
_ROW2_CUT = re.compile(r"^\|\s*(N/A|\d+%)\s+(N/A|-?\d+C)\s+(P\d+|N/A)\s+(N/A|ERR!|\d+W)\s*/\s*(N/A|\d+W)\s*\|"
                       r"(?:\s*(\d+)Mi?B\s*/)?")
# A GPU's third row (the MIG M. cell); a paste cut after the cell's word, before its closing border, still shows it.
_ROW3 = re.compile(r"^\|\s*\|\s*\|\s*(Enabled|Disabled|N/A)\s*(?:\|\s*)?$")
PROCESS_ROW = re.compile(r"^\|\s*(\d+)\s+(?:(N/A|\d+)\s+(N/A|\d+)\s+)?(\d+)\s+(C\+G|C|G|M\+C|M)\s+(.+?)\s+(N/A|\d+MiB)\s*\|")
# nvidia-smi draws its table under 100 columns wide: a line over _MAX_ROW characters is no row of it. The row
# patterns retry a run at each space (a process's name before its memory cell), so a long line would cost its
# length squared.
_MAX_ROW = 512


def process_row(line: str) -> re.Match[str] | None:
    """A process row of the table (PROCESS_ROW), on a line no longer than a table draws (_MAX_ROW)."""
    return PROCESS_ROW.match(line) if len(line) <= _MAX_ROW else None


# What nvidia-smi prints instead of its table when NVML cannot open a GPU: one line a GPU, its address glued to
# `GPU` or after a space (`... for GPU0000:03:00.0: Unknown Error`, `... for gpu 0000:02:00.0: GPU is lost. Reboot
# the system to recover this GPU`); Windows' nvidia-smi says `detect`. A report may quote the line as Markdown inline
# code (k8s-device-plugin#231, corpus 697). Drivers of 2025-2026 put the GPU's index before the address (`... for
# GPU1: 0000:02:00.0: Unknown Error`, corpus 738).
NO_HANDLE = re.compile(r"^\s*`?Unable to (?:determine|detect) the device handle for (?i:gpu)\s*(?:\d{1,3}:\s+)?"
                       rf"(?P<bdf>{BDF}):\s*(?P<why>[^\s`].*?)\s*`?\s*$")
# nvidia-smi's one line where NVML cannot start at all (`Failed to initialize NVML: Unknown Error`; go-nvml's
# `ERROR_UNKNOWN` for the same return code): the whole of its output.
NVML_FAILED = re.compile(r"^\s*Failed to initialize NVML: \S.*$", re.MULTILINE)
# nvidia-smi's one line where NVML started and counted no GPU it could open (the driver failed to initialise every
# GPU: RmInitAdapter, corpus 1148, 1366): like NVML_FAILED, its whole output, which shows no GPU.
NO_DEVICES = re.compile(r"^\s*No devices were found\s*$", re.MULTILINE)
# nvidia-smi's one line where it reaches no NVIDIA driver at all (no kernel module loaded: never installed, not built
# for the running kernel, refused by it), with or without its closing sentence and a poster's backticks; a run may
# add NVML's failed shutdown (`Failed to properly shut down NVML: Driver Not Loaded`, corpus 1177). Only nvidia-smi
# prints it: its whole output, which shows no GPU. A copy that lost its first letter (`VIDIA-SMI has failed ...`,
# corpus 2472) is the same sentence: nothing else prints its words.
NO_DRIVER = re.compile(r"^\s*`?N?VIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\b[^\n]*$",
                       re.MULTILINE)
NVML_SHUTDOWN_FAILED = re.compile(r"^\s*Failed to properly shut down NVML: \S[^\n]*$", re.MULTILINE)
# NVML's error strings as the words the facts use (host/nvml.py); any other: "unknown".
_NVML_WORDS = {"gpu is lost": "gpu-is-lost", "insufficient permissions": "no-permission", "not found": "not-found",
               "driver not loaded": "driver-not-loaded"}


def _unreachable(line: str) -> tuple[str, str] | None:
    """(address, NVML error word) of nvidia-smi's line for a GPU it cannot open, else None."""
    m = NO_HANDLE.match(line)
    if m is None:
        return None
    why = m.group("why").lower()
    return normalize_bdf(m.group("bdf")), next((w for k, w in _NVML_WORDS.items() if why.startswith(k)), "unknown")


@parser(NVSMI_TABLE, feeds="nvidia", kind=NvidiaGpus, rank=40)
def parse_table(text: str) -> NvidiaGpus:
    """NVIDIA GPUs from the `nvidia-smi` default table (header optional: excerpts of the GPU rows parse too).

    A fragment without GPU rows shows what it holds and no more: the header line alone gives the driver and its CUDA
    version and no GPU; process rows give the GPUs they run on; the Processes box alone gives no GPU. Each such
    fragment is marked cut (`NvidiaGpus.unshown`): it counts no GPU the host has.
    nvidia-smi never prints `**` in a row: there it is a poster's Markdown bold on a cell (`**0%**`, corpus 2095) or
    on the whole row (`**| NVIDIA-SMI 430.64 ... |**`, corpus 2230), and the row reads without it.

    Input (tests/data/captures/15)::

        | NVIDIA-SMI 610.43.03              KMD Version: 610.43.03     CUDA UMD Version: 13.3     |
        |=========================================+========================+======================|
        |   0  NVIDIA GeForce RTX 3090        Off |   00000000:04:00.0  On |                  N/A |
        | 37%   45C    P8             16W /  250W |   21865MiB /  24576MiB |      0%      Default |
    """
    if len(text) > MAX_TEXT:
        raise ParseError("nvidia-smi table larger than 32 MiB")
    if (failed := NVML_FAILED.search(text)) and not TABLE_HEADER.search(text) and "|" not in text:
        raise ParseError(f"nvidia-smi ran and could not start NVML (\"{failed.group(0).strip()}\"): it shows no GPU")
    if (no_driver := NO_DRIVER.search(text)) and not TABLE_HEADER.search(text) and "|" not in text:
        raise ParseError(f"nvidia-smi ran and reached no NVIDIA driver (\"{no_driver.group(0).strip(' `')}\"): it shows "
                         "no GPU")
    if (none := NO_DEVICES.search(text)) and not TABLE_HEADER.search(text) and "|" not in text:
        raise ParseError(f"nvidia-smi ran and found no GPU it could open (\"{none.group(0).strip()}\"): it shows "
                         "no GPU")
    header = TABLE_HEADER.search(text)
    # Header lines of different drivers (two machines' fragments in one paste) name no one driver, as the evidence
    # lines' reader has it (facts/nvidia.py driver_from_evidence_lines).
    drivers = list(dict.fromkeys(m.group(2) for m in TABLE_HEADER.finditer(text))) if header else []
    several = f"several driver versions in the header lines shown ({', '.join(drivers)})" if len(drivers) > 1 else ""
    versions = (header.group(2), header.group(3), header.group(1)) if header and not several else (None, None, None)
    rows: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    last: int | None = None
    in_procs = False
    procs: dict[int, list[GpuProcess]] = {}
    saw_proc_section = False
    no_procs = False
    # Whether the Processes box is shown to its end (the border line that closes it), and the highest GPU index its
    # rows reach (a row cut inside its name still names its GPU): a box cut before its rows, or inside them, does not
    # show the processes of the GPUs it stops at or before (corpus 1475, 1656: the box cut in its column header).
    procs_closed = False
    procs_reached = -1
    # nvidia-smi prints its MIG devices box after the whole GPU table, before the Processes box: it closes the table.
    saw_mig_box = False
    open_gpu: int | None = None  # the GPU whose block no border line has closed yet
    unreachable: list[tuple[str, str]] = []  # GPUs nvidia-smi could not open, in the order it named them
    for line in text.replace("\r\n", "\n").split("\n"):
        line = line.rstrip()
        if len(line) > _MAX_ROW:
            continue  # wider than any table nvidia-smi draws: no row of it
        if "**" in line and line.lstrip("*").startswith("|"):
            line = line.replace("**", "")  # a poster's Markdown bold on a cell or a row (corpus 2095, 2230)
        if (lost := _unreachable(line)) is not None:
            unreachable.append(lost)
            continue
        if line.startswith("+-") or line.startswith("|="):
            open_gpu = None
        if in_procs and line.startswith("+-"):
            procs_closed = True
        if in_procs and (reached := _PROC_ROW_START.match(line)):
            procs_reached = max(procs_reached, int(reached.group(1)))
        if "Processes:" in line:
            in_procs = saw_proc_section = True
            continue
        if "MIG devices:" in line and order:
            saw_mig_box = True
            continue
        if "No running processes found" in line:
            no_procs = True
            continue
        m1 = _ROW1.match(line)
        if m1 and not in_procs:
            idx = int(m1.group(1))
            rows[idx] = {"name": m1.group(2).strip(), "persistence": _bool(m1.group(3)), "model": m1.group(3),
                         "bdf": normalize_bdf(m1.group(4)), "display": _bool(m1.group(5)), "disp": m1.group(5),
                         "ecc": m1.group(6)}
            order.append(idx)
            last = open_gpu = idx
            continue
        cut1 = _ROW1_CUT.match(line) if not in_procs else None
        if cut1:
            idx = int(cut1.group(1))
            bus = cut1.group(4) or ""
            rows[idx] = {"name": cut1.group(2).strip(), "persistence": _bool(cut1.group(3)), "model": cut1.group(3),
                         "bdf": normalize_bdf(bus) if _WHOLE_BDF.fullmatch(bus) else "", "display": None, "ecc": None}
            order.append(idx)
            last = open_gpu = idx
            continue
        m2 = _ROW2.match(line)
        if m2 and last is not None and not in_procs:
            rows[last].update({"temp": m2.group(2), "pstate": m2.group(3), "draw": m2.group(4), "cap": m2.group(5),
                               "used": m2.group(6), "total": m2.group(7), "util": m2.group(8),
                               "compute": m2.group(9)})
            continue
        cut2 = _ROW2_CUT.match(line)
        if cut2 and last is not None and not in_procs:
            rows[last].update({"temp": cut2.group(2), "pstate": cut2.group(3), "draw": cut2.group(4),
                               "cap": cut2.group(5), "used": cut2.group(6)})
            continue
        m3 = _ROW3.match(line)
        if m3 and last is not None and not in_procs:
            rows[last]["mig"] = m3.group(1)
            last = None
            continue
        mp = process_row(line)
        if mp and (in_procs or not _ROW1.match(line)):
            saw_proc_section = True
            gpu = int(mp.group(1))
            procs_reached = max(procs_reached, gpu)
            used = mp.group(7)
            procs.setdefault(gpu, []).append(GpuProcess(int(mp.group(4)), mp.group(6).strip(),
                                                        float(used[:-3]) if used.endswith("MiB") else None,
                                                        mp.group(5)))
    if not rows and header is None and not unreachable and not procs and not (saw_proc_section and no_procs):
        raise ParseError("not the `nvidia-smi` table (no header, no GPU rows, no Processes box)")
    gpus = []
    notes: list[str] = []
    for idx in order:
        r = rows[idx]
        mig = _bool(r.get("mig"))
        if mig is None and (r.get("ecc") or "").strip() == "On":
            mig = True  # the ECC cell names the mode only in MIG mode (_ecc_from_cell); the MIG M. row is cut
        name, cut = _cut_name(r["name"], _float(r.get("total")), _float(r.get("cap")))
        if cut:
            notes.append(f"GPU {idx}: {cut}")
        gpus.append(GpuInfo(
            index=idx,
            name=name,
            cut_name=r["name"] if cut else "",
            bdf=r["bdf"],
            persistence=r["persistence"],
            driver_model=r["model"] if r["model"] in WINDOWS_DRIVER_MODELS else None,
            display_active=r["display"],
            compute_mode=_compute_mode(r.get("compute")),
            mig_current=mig,
            mig_devices=0 if mig is False else None,
            ecc_current=_ecc_from_cell(r.get("ecc")),
            ecc_volatile_uncorrected=_int(r.get("ecc")),
            power_limit_w=_float(r.get("cap")),
            power_draw_w=_float(r.get("draw")),
            memory_used_mib=_float(r.get("used")),
            memory_total_mib=_float(r.get("total")),
            utilization_gpu=_int(r.get("util")),
            pstate=_clean(r.get("pstate")),
            temp_c=_int(r.get("temp")),
            processes=_listed(idx, procs, saw_proc_section, no_procs, procs_closed, procs_reached,
                              _float(r.get("used"))),
            unsupported=tuple(name for name, key in (("ecc", "ecc"), ("mig", "mig"), ("power", "cap"),
                                                    ("pstate", "pstate"), ("display", "disp"))
                              if r.get(key) == "N/A"),
            unreadable=tuple(name for name, key in (("power-draw", "draw"), ("power-limit", "cap"))
                             if r.get(key) == "ERR!"),
        ))
    # nvidia-smi stops at a GPU it cannot open: its index (-1: not known) and the GPUs it did not list are not
    # in the source.
    gpus.extend(GpuInfo(index=-1, bdf=bdf, error=why) for bdf, why in unreachable)
    if not order and not unreachable:
        # A fragment without GPU rows (corpus 247, 298, 764): its process rows name the GPUs they run on (those GPUs,
        # not the others); a Processes box that says `No running processes found` names none, and shows no GPU.
        gpus.extend(GpuInfo(index=idx, processes=tuple(found)) for idx, found in sorted(procs.items()))
        shown = "process rows" if procs else "Processes box" if saw_proc_section or no_procs else "header line"
        return NvidiaGpus(tuple(gpus), versions[0], versions[1], None, (*notes, *([several] if several else [])),
                          cut=f"the table is cut to its {shown}", smi_version=versions[2])
    if unreachable and not order:
        return NvidiaGpus(tuple(gpus), None, None, None, tuple(notes),
                          cut=f"nvidia-smi stops at GPU {unreachable[0][0]}, which it cannot open")
    # A GPU block that no border line closes: the paste stops inside its rows (later GPUs are not shown).
    cut_at = f"the table ends inside GPU {open_gpu}'s rows" if open_gpu is not None and not saw_proc_section else ""
    at_border = False
    if not cut_at and order and not saw_proc_section and not no_procs and not saw_mig_box:
        # The GPU rows end at a border line but no Processes box follows: more GPU blocks may have been cut away, or
        # the paste ends with the last GPU (NvidiaGpus.cut_at_border: its GPUs are the host's unless a source shows
        # more).
        cut_at = f"the table ends after GPU {order[-1]}'s rows, before its Processes box"
        at_border = True
    return NvidiaGpus(tuple(gpus), versions[0], versions[1], None, (*notes, *([several] if several else [])),
                      cut=cut_at, smi_version=versions[2], cut_at_border=at_border,
                      cut_inside=open_gpu if cut_at and not at_border else None)


# The start of a process row of the Processes box: `|    6   N/A  N/A     18690      C   /usr/bin/p` (a row the paste
# cuts inside its name still names the GPU it runs on, corpus 1703).
_PROC_ROW_START = re.compile(r"^\|\s+(\d{1,3})\s+(?:N/A|\d+)\s")


def _listed(idx: int, procs: Mapping[int, list[GpuProcess]], saw_box: bool, none_found: bool, closed: bool,
            reached: int, used_mib: float | None) -> tuple[GpuProcess, ...] | None:
    """The processes the table's Processes box shows on GPU `idx`; None where the box does not show them.

    The box lists its rows by GPU index and ends at a border line. `No running processes found`, or the box's end,
    shows every GPU's list (none where no row names the GPU). A box the paste cuts shows the lists of the GPUs before
    the last one its rows reach, and no more: cut in its column header (corpus 1475, 1656) it shows none, and the
    memory a GPU holds there is not shown to be no process's. The rows shown for the last GPU they reach are its whole
    list where they account for the memory its row shows in use, to within _LISTED_SLACK_MIB (corpus 33: one row of
    45232 MiB on a GPU using 45241).
    """
    if none_found or (saw_box and closed):
        return tuple(procs.get(idx, ()))
    if saw_box and idx < reached:
        return tuple(procs.get(idx, ()))
    shown = procs.get(idx, [])
    if shown and used_mib is not None and sum(p.used_mib or 0.0 for p in shown) >= used_mib - _LISTED_SLACK_MIB:
        return tuple(shown)
    return None


# What a GPU's row may show in use beyond its processes' memory: the driver's own reserve (0-33 MiB at rest, the
# reserve checks/mem.py's _NO_CONTEXT_MIB allows).
_LISTED_SLACK_MIB = 48.0


def _ecc_from_cell(cell: str | None) -> bool | None:
    """The ECC mode the table's `Volatile Uncorr. ECC` cell shows; None where it shows none.

    NVML counts ECC errors only with ECC mode enabled (nvmlDeviceGetTotalEccErrors: "Requires ECC Mode to be
    enabled", https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html), so a count is ECC on.
    With no count to print the cell names the mode: `On` (an A100 in MIG mode, DCGM issue 70) or `Off` (an A100
    SXM4 with ECC disabled, phoenix-miner issue 17).
    `N/A` is a GPU without ECC (nvidia-smi prints N/A for unsupported data), which `unsupported` keeps.
    """
    text = (cell or "").strip()
    if text.isdigit() or text == "On":
        return True
    return False if text == "Off" else None


def _cut_name(shown: str, memory_mib: float | None, cap_w: float | None) -> tuple[str, str]:
    """(name, note): a name the table cut, resolved from the row's memory size and power cap (gputable)."""
    try:
        cut = resolve_cut_name(shown, memory_mib, cap_w)
    except (GpuTableError, OSError):
        return shown, ""
    if cut is None:
        return shown, ""
    if cut.spec is None or not cut.spec.nvidia_smi_names:
        return shown, cut.note
    prefix = (cut_prefix(shown) or shown).lower()
    # The spelling the cut name is a prefix of ("GeForce GTX 1080 Ti" of driver 396, not R495's "NVIDIA GeForce ...").
    return next((name for name in cut.spec.nvidia_smi_names if name.lower().startswith(prefix)),
                cut.spec.nvidia_smi_names[0]), cut.note


# --- the NVML alternative --------------------------------------------------------------------

# Whole-NVML failures that mean the driver itself is not usable (nvidia-smi fails the same way).
_DRIVER_DOWN = {"driver-not-loaded": "the NVIDIA kernel driver is not loaded",
                "lib-rm-version-mismatch": "the NVML library and the loaded kernel module are different versions",
                "gpu-is-lost": "a GPU is lost (fell off the bus)"}


@provider("nvidia", NvidiaGpus, rank=10, title=NVML.title)
def nvidia_from_nvml(ctx: FactContext) -> NvidiaGpus:
    """NVIDIA GPUs through NVML (live or recorded); empty when the PCI bus shows no NVIDIA GPU.

    Live, NVML answers in milliseconds, so the nvidia-smi alternatives (seconds on 8 GPUs) do not run.
    """
    nvml_error: NvmlError | None = None
    try:
        return from_nvml(ctx.host)
    except NvmlError as exc:
        nvml_error = exc
    except NotCaptured:
        pass
    pci = ctx.optional("pci", PciDevices)
    if pci is not None and not pci.nvidia_gpus:
        return NvidiaGpus((), notes=("no NVIDIA GPU on the PCI bus",), none_on_bus=True)
    if nvml_error is None:
        raise NotCaptured(NVML.title)
    if nvml_error.kind in _DRIVER_DOWN:
        raise FactUnavailable(f"NVML: {_DRIVER_DOWN[nvml_error.kind]} ({nvml_error.message or nvml_error.kind})",
                              "load the driver (`modprobe nvidia`), or reboot after a driver update")
    raise FactUnavailable(f"NVML: {nvml_error.kind}", NVIDIA_HINT)
