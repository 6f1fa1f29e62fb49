"""Realistic NVML recordings and nvidia-smi outputs for the DRV/MEM/PWR tests.

`nvml_gpu()` returns a `gpu/<n>` answer in exactly the shape stackaudit.host.nvml records it
(milliwatts, bytes, bitmasks, NVML enums), with the values NVML gives on the named product;
`host_for()` builds a fake host from such answers plus the PCI bus, the driver files and daemons.
"""

from __future__ import annotations

import copy
from typing import Any

from stackaudit.host.memory import fake_host
from stackaudit.pci_address import normalize_bdf

NS = {"error": "not-supported"}
MIB = 2**20

# name -> (default W, min W, max W, architecture enum, capability, memory MiB, bus width, max SM, max mem, links,
#          pcie gen, BAR1 MiB, slowdown °C)
PRODUCTS: dict[str, tuple[Any, ...]] = {
    "NVIDIA H100 80GB HBM3": (700, 200, 700, 9, [9, 0], 81559, 5120, 1980, 2619, 18, 5, 131072, 87),
    "NVIDIA H100 NVL": (400, 200, 400, 9, [9, 0], 95830, 6144, 1785, 2619, 12, 5, 131072, 87),
    "NVIDIA H200": (700, 200, 700, 9, [9, 0], 143771, 6144, 1980, 3201, 18, 5, 262144, 87),
    "NVIDIA GB200": (1200, 200, 1200, 10, [10, 0], 189471, 8192, 2062, 3996, 18, 0, 262144, 87),
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": (600, 400, 600, 10, [12, 0], 97887, 512, 2430, 14001, 0, 5,
                                                     131072, 92),
    "NVIDIA L40S": (350, 100, 350, 8, [8, 9], 46068, 384, 2520, 9001, 0, 4, 65536, 88),
    "NVIDIA GeForce RTX 4090": (450, 150, 600, 8, [8, 9], 24564, 384, 3105, 10501, 0, 4, 256, 90),
}


def nvml_gpu(index: int, name: str, bus: str, **over: Any) -> dict[str, Any]:
    """One `gpu/<n>` NVML answer for `name` at PCI `bus` (e.g. "0000:18:00.0"), idle and healthy."""
    default, pmin, pmax, arch, cap, mem, width, max_sm, max_mem, links, gen, bar1, slow = PRODUCTS[name]
    datacenter = name.startswith(("NVIDIA H", "NVIDIA GB", "NVIDIA B"))
    ecc_capable = datacenter or "L40S" in name or "RTX PRO" in name
    nvlink: Any = NS
    if links:
        remote_base = 0x0C if "GB200" not in name else 0x0A
        nvlink = [{"link": n, "active": 1, "remote_bus_id": f"00000000:{remote_base + n % 4:02X}:00.0",
                   "errors": {"replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0}} for n in range(links)]
    answer: dict[str, Any] = {
        "index": index,
        "name": name,
        "uuid": f"GPU-{index:08x}-1111-2222-3333-444455556666",
        "pci_bus_id": "0000" + bus.upper(),
        "architecture": arch,
        "cuda_capability": cap,
        "persistence_mode": 1,
        "compute_mode": 0,
        "display_active": 0,
        "display_mode": 0,
        "mig_mode": [0, 0] if datacenter or "RTX PRO" in name else NS,
        "mig_device_count": 0 if datacenter or "RTX PRO" in name else NS,
        "ecc_mode": [1, 1] if ecc_capable else NS,
        "ecc_errors": {k: (0 if ecc_capable else NS) for k in ("volatile_corrected", "volatile_uncorrected",
                                                                 "aggregate_corrected", "aggregate_uncorrected")},
        "retired_pages": {"single_bit": NS, "double_bit": NS, "pending": NS},
        "remapped_rows": [0, 0, 0, 0] if ecc_capable and arch >= 7 else NS,
        "power": {"limit_mw": default * 1000, "default_mw": default * 1000, "constraints_mw": [pmin * 1000, pmax * 1000],
                  "enforced_mw": default * 1000, "usage_mw": 72000},
        "clock_event_reasons": 0x1,
        "clock_event_reasons_supported": 0x1FF,
        "clocks": {"graphics": 345, "sm": 345, "mem": max_mem, "max_sm": max_sm, "max_mem": max_mem,
                   "app_graphics": max_sm if datacenter else NS, "app_mem": max_mem if datacenter else NS,
                   "default_app_graphics": max_sm if datacenter else NS,
                   "default_app_mem": max_mem if datacenter else NS},
        "memory": {"total": mem * MIB, "used": 1 * MIB},
        "bar1_total": bar1 * MIB,
        "pcie": {"gen": 1 if gen else NS, "max_gen": gen or NS, "gpu_max_gen": gen or NS, "width": 16 if gen else NS,
                 "max_width": 16 if gen else NS, "replay_counter": 0},
        "nvlink": nvlink,
        "processes": {"compute": [], "graphics": []},
        "utilization": {"gpu": 0, "memory": 0},
        "gsp_firmware_version": "570.124.06",
        "gsp_firmware_mode": [1, 1],
        "memory_bus_width": width,
        "pstate": 0 if datacenter else 8,
        "fabric": {"state": 3, "status": 0} if links == 18 else {"state": 0, "status": 0},
        "temperature": {"gpu": 31, "memory": 35 if datacenter else NS, "shutdown": slow + 5, "slowdown": slow,
                        "mem_max": 95 if datacenter else NS, "gpu_max": slow - 2},
        "recovery_action": 0,
    }
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(answer.get(key), dict):
            merged = copy.deepcopy(answer[key])
            merged.update(value)
            answer[key] = merged
        else:
            answer[key] = value
    return answer


def system(count: int, driver: str = "570.124.06", cuda: int = 12080) -> dict[str, Any]:
    return {"driver_version": driver, "cuda_driver_version": cuda, "nvml_version": "12." + driver,
            "device_count": count}


def pci_files(bdfs: list[str], nvswitches: int = 0, device: str = "0x2330") -> tuple[dict[str, str], dict[str, str]]:
    """A sysfs PCI tree with the GPUs (3D controller) and optional NVSwitches (bridge 0x0680)."""
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    for n, bdf in enumerate(bdfs + [f"0000:{0x50 + i:02x}:00.0" for i in range(nvswitches)]):
        switch = n >= len(bdfs)
        real = f"/sys/devices/pci0000:{n:02x}/0000:{n:02x}:01.0/{bdf}"
        links[f"/sys/bus/pci/devices/{bdf}"] = f"../../..{real[4:]}"
        files[f"{real}/vendor"] = "0x10de\n"
        files[f"{real}/device"] = ("0x22a3\n" if switch else device + "\n")
        files[f"{real}/class"] = ("0x068000\n" if switch else "0x030200\n")
        files[f"{real}/numa_node"] = f"{0 if n < 4 else 1}\n"
    return files, links


PROC_VERSION_OPEN = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  "
                     "(dvs-builder@U16-I3-B03-4-3)  Wed Feb 26 13:32:52 UTC 2025\nGCC version:  gcc version 12.3.0\n")
PROC_VERSION_PROPRIETARY = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  Wed Feb 26 13:29:41 UTC 2025\n"
                            "GCC version:  gcc version 12.3.0\n")
UBUNTU_PERSISTENCED_UNIT = """# /usr/lib/systemd/system/nvidia-persistenced.service
[Unit]
Description=NVIDIA Persistence Daemon
Wants=syslog.target
StopWhenUnneeded=true
Before=systemd-backlight@backlight:nvidia_0.service

[Service]
Type=forking
ExecStart=/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode --verbose
ExecStopPost=/bin/rm -rf /var/run/nvidia-persistenced
"""


# A live kernel log starts at boot: the first line is what makes it whole (an excerpt proves no absence).
BOOT_LINE = ("[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC\n"
             "[    5.712034] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build  "
             "(dvs-builder@U16-I2-C03-12-4)  Thu Feb 27 22:52:35 UTC 2025\n")


def host_for(gpus: list[dict[str, Any]], *, driver: str = "570.124.06", nvswitches: int = 0,
             proc_version: str = PROC_VERSION_OPEN, persistenced: str = "active",
             persistenced_unit: str | None = None, fabricmanager: str | None = None, fm_version: str | None = None,
             dmesg: str = "", modules: str = "nvidia 1 0 - Live 0x0\n", extra_files: dict[str, str] | None = None,
             extra_commands: dict[Any, Any] | None = None, processes: dict[int, str] | None = None,
             nvml_extra: dict[str, Any] | None = None, device: str = "0x2330") -> Any:
    """A fake GPU host: NVML answers, the PCI bus, driver files, systemd and /proc for the daemons."""
    bdfs = [normalize_bdf(g["pci_bus_id"]) for g in gpus]
    files, links = pci_files(bdfs, nvswitches, device)
    files["/proc/driver/nvidia/version"] = proc_version
    files["/sys/module/nvidia/version"] = driver + "\n"
    files["/proc/modules"] = modules
    files["/proc/driver/nvidia/params"] = "ResmanDebugLevel: 4294967295\nEnableGpuFirmware: 18\n"
    procs = {1: "/sbin/init", 812: "/usr/bin/nvidia-persistenced --user nvidia-persistenced --persistence-mode"}
    if persistenced != "active":
        procs.pop(812)
    if fabricmanager == "active":
        procs[1204] = "/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg"
    procs.update(processes or {})
    for pid, cmd in procs.items():
        files[f"/proc/{pid}/cmdline"] = cmd.replace(" ", "\x00") + "\x00"
    files.update(extra_files or {})
    unit = persistenced_unit or UBUNTU_PERSISTENCED_UNIT.replace("--no-persistence-mode", "--persistence-mode")
    commands: dict[Any, Any] = {
        ("systemctl", "is-active", "nvidia-persistenced"): persistenced + "\n",
        ("systemctl", "cat", "nvidia-persistenced"): unit,
        ("dmesg",): BOOT_LINE + dmesg,
    }
    if fabricmanager is not None:
        commands[("systemctl", "is-active", "nvidia-fabricmanager")] = fabricmanager + "\n"
        commands[("systemctl", "cat", "nvidia-fabricmanager")] = (
            "[Service]\nExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg\n")
    which: dict[str, str | None] = {}
    if fm_version is not None:
        which["nv-fabricmanager"] = "/usr/bin/nv-fabricmanager"
        commands[("/usr/bin/nv-fabricmanager", "--version")] = f"Fabric Manager version is : {fm_version}\n"
    commands.update(extra_commands or {})
    nvml: dict[str, Any] = {"system": system(len(gpus), driver)}
    nvml.update({f"gpu/{g['index']}": g for g in gpus})
    nvml.update(nvml_extra or {})
    return fake_host(files=files, links=links, commands=commands, nvml=nvml, which=which)


def hgx(name: str = "NVIDIA H100 80GB HBM3", count: int = 8, **over: Any) -> list[dict[str, Any]]:
    buses = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
    return [nvml_gpu(i, name, f"0000:{buses[i]}:00.0", **over) for i in range(count)]


def pcie_box(name: str, count: int, **over: Any) -> list[dict[str, Any]]:
    buses = ["01", "21", "41", "61", "81", "a1", "c1", "e1"]
    return [nvml_gpu(i, name, f"0000:{buses[i]}:00.0", **over) for i in range(count)]


def xml_gpu(bus: str, name: str = "NVIDIA H100 80GB HBM3", persistence: str = "Enabled", limit: str = "700.00 W",
            default: str = "700.00 W", reasons: dict[str, str] | None = None, old: bool = False,
            fabric: str = "Completed", util: str = "0 %", pending_remap: str = "No") -> str:
    """One <gpu> element as nvidia-smi -q -x prints it (v12 schema; `old`: the R470-era v11 names)."""
    reasons = reasons or {}
    names = ["gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "hw_thermal_slowdown",
             "hw_power_brake_slowdown", "sync_boost", "sw_thermal_slowdown", "display_clocks_setting"]
    tag = "clocks_throttle_reason" if old else "clocks_event_reason"
    reason_xml = "".join(f"<{tag}_{n}>{reasons.get(n, 'Not Active')}</{tag}_{n}>" for n in names)
    section = "clocks_throttle_reasons" if old else "clocks_event_reasons"
    if old:
        power = (f"<power_readings><power_state>P0</power_state><power_management>Supported</power_management>"
                 f"<power_draw>72.80 W</power_draw><power_limit>{limit}</power_limit>"
                 f"<default_power_limit>{default}</default_power_limit><enforced_power_limit>{limit}"
                 f"</enforced_power_limit><min_power_limit>200.00 W</min_power_limit>"
                 f"<max_power_limit>700.00 W</max_power_limit></power_readings>")
    else:
        power = (f"<gpu_power_readings><power_state>P0</power_state><power_draw>72.80 W</power_draw>"
                 f"<current_power_limit>{limit}</current_power_limit><requested_power_limit>{limit}"
                 f"</requested_power_limit><default_power_limit>{default}</default_power_limit>"
                 f"<min_power_limit>200.00 W</min_power_limit><max_power_limit>700.00 W</max_power_limit>"
                 f"</gpu_power_readings>")
    return f"""	<gpu id="{bus}">
		<product_name>{name}</product_name>
		<product_brand>NVIDIA</product_brand>
		<product_architecture>Hopper</product_architecture>
		<display_mode>Enabled</display_mode>
		<display_active>Disabled</display_active>
		<persistence_mode>{persistence}</persistence_mode>
		<mig_mode><current_mig>Disabled</current_mig><pending_mig>Disabled</pending_mig></mig_mode>
		<mig_devices>None</mig_devices>
		<uuid>GPU-0b1c2d3e-aaaa-bbbb-cccc-{bus[9:11]}0000000000</uuid>
		<gsp_firmware_version>550.90.07</gsp_firmware_version>
		<pci>
			<pci_bus_id>{bus}</pci_bus_id>
			<pci_gpu_link_info>
				<pcie_gen><max_link_gen>5</max_link_gen><current_link_gen>5</current_link_gen>
				<device_current_link_gen>5</device_current_link_gen><max_device_link_gen>5</max_device_link_gen>
				<max_host_link_gen>5</max_host_link_gen></pcie_gen>
				<link_widths><max_link_width>16x</max_link_width><current_link_width>16x</current_link_width></link_widths>
			</pci_gpu_link_info>
			<replay_counter>0</replay_counter>
		</pci>
		<performance_state>P0</performance_state>
		<{section}>{reason_xml}</{section}>
		<fb_memory_usage><total>81559 MiB</total><reserved>328 MiB</reserved><used>74210 MiB</used><free>7020 MiB</free></fb_memory_usage>
		<bar1_memory_usage><total>131072 MiB</total><used>1 MiB</used><free>131071 MiB</free></bar1_memory_usage>
		<compute_mode>Default</compute_mode>
		<utilization><gpu_util>{util}</gpu_util><memory_util>0 %</memory_util></utilization>
		<ecc_mode><current_ecc>Enabled</current_ecc><pending_ecc>Enabled</pending_ecc></ecc_mode>
		<ecc_errors><volatile><sram_correctable>0</sram_correctable><sram_uncorrectable>0</sram_uncorrectable>
		<dram_correctable>0</dram_correctable><dram_uncorrectable>0</dram_uncorrectable></volatile>
		<aggregate><sram_correctable>0</sram_correctable><sram_uncorrectable>0</sram_uncorrectable>
		<dram_correctable>3</dram_correctable><dram_uncorrectable>0</dram_uncorrectable></aggregate></ecc_errors>
		<remapped_rows><remapped_row_corr>0</remapped_row_corr><remapped_row_unc>0</remapped_row_unc>
		<remapped_row_pending>{pending_remap}</remapped_row_pending><remapped_row_failure>No</remapped_row_failure></remapped_rows>
		<temperature><gpu_temp>41 C</gpu_temp><gpu_temp_max_threshold>92 C</gpu_temp_max_threshold>
		<gpu_temp_slow_threshold>89 C</gpu_temp_slow_threshold><memory_temp>48 C</memory_temp>
		<gpu_temp_max_mem_threshold>95 C</gpu_temp_max_mem_threshold></temperature>
		{power}
		<clocks><graphics_clock>1980 MHz</graphics_clock><sm_clock>1980 MHz</sm_clock><mem_clock>2619 MHz</mem_clock></clocks>
		<applications_clocks><graphics_clock>1980 MHz</graphics_clock><mem_clock>2619 MHz</mem_clock></applications_clocks>
		<default_applications_clocks><graphics_clock>1980 MHz</graphics_clock><mem_clock>2619 MHz</mem_clock></default_applications_clocks>
		<max_clocks><graphics_clock>1980 MHz</graphics_clock><sm_clock>1980 MHz</sm_clock><mem_clock>2619 MHz</mem_clock></max_clocks>
		<fabric><state>{fabric}</state><status>Success</status></fabric>
		<processes>
			<process_info><gpu_instance_id>N/A</gpu_instance_id><compute_instance_id>N/A</compute_instance_id>
			<pid>48211</pid><type>C</type><process_name>VLLM::Worker_TP0</process_name><used_memory>74192 MiB</used_memory></process_info>
		</processes>
	</gpu>
"""


def xml_log(gpus: list[str], driver: str = "550.90.07", cuda: str = "12.4") -> str:
    return (f'<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n'
            f"\t<timestamp>Tue Mar  4 10:12:01 2025</timestamp>\n\t<driver_version>{driver}</driver_version>\n"
            f"\t<cuda_version>{cuda}</cuda_version>\n\t<attached_gpus>{len(gpus)}</attached_gpus>\n"
            + "".join(gpus) + "</nvidia_smi_log>\n")


HGX_BUSES = ["00000000:18:00.0", "00000000:2A:00.0", "00000000:3A:00.0", "00000000:5D:00.0",
             "00000000:9A:00.0", "00000000:AB:00.0", "00000000:BA:00.0", "00000000:DB:00.0"]

TABLE_OLD = """Tue Mar  4 10:14:55 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.127.05             Driver Version: 550.127.05     CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0 Off |                  Off |
| 30%   38C    P8             21W /  450W |   21970MiB /  24564MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA GeForce RTX 4090        On  |   00000000:02:00.0  On |                  Off |
| 30%   41C    P8             32W /  350W |   22410MiB /  24564MiB |      2%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|    0   N/A  N/A      2211      C   VLLM::Worker_TP0                            21950MiB |
|    1   N/A  N/A      1502      G   /usr/lib/xorg/Xorg                            412MiB |
|    1   N/A  N/A      2212      C   VLLM::Worker_TP1                            21940MiB |
+-----------------------------------------------------------------------------------------+
"""

QUERY_TEXT = """
==============NVSMI LOG==============

Timestamp                                 : Tue Mar  4 10:20:31 2025
Driver Version                            : 550.127.05
CUDA Version                              : 12.4

Attached GPUs                             : 2
GPU 00000000:41:00.0
    Product Name                          : NVIDIA L40S
    Product Brand                         : NVIDIA
    Product Architecture                  : Ada Lovelace
    Display Mode                          : Disabled
    Display Active                        : Disabled
    Persistence Mode                      : Enabled
    MIG Mode
        Current                           : N/A
        Pending                           : N/A
    GPU UUID                              : GPU-5a6b7c8d-1111-2222-3333-444455556666
    GSP Firmware Version                  : N/A
    PCI
        Bus Id                            : 00000000:41:00.0
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 4
                Device Current            : 4
                Device Max                : 4
                Host Max                  : 5
            Link Width
                Max                       : 16x
                Current                   : 16x
    Performance State                     : P0
    Clocks Event Reasons
        Idle                              : Not Active
        Applications Clocks Setting       : Not Active
        SW Power Cap                      : Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Active
            HW Power Brake Slowdown       : Not Active
        Sync Boost                        : Not Active
        SW Thermal Slowdown               : Not Active
        Display Clock Setting             : Not Active
    Compute Mode                          : Exclusive_Process
    Utilization
        Gpu                               : 97 %
        Memory                            : 61 %
    ECC Mode
        Current                           : Enabled
        Pending                           : Disabled
    ECC Errors
        Volatile
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 0
            DRAM Uncorrectable            : 2
        Aggregate
            SRAM Correctable              : 0
            SRAM Uncorrectable            : 0
            DRAM Correctable              : 12
            DRAM Uncorrectable            : 2
    Remapped Rows
        Correctable Error                 : 0
        Uncorrectable Error               : 1
        Pending                           : Yes
        Remapping Failure Occurred        : No
    Temperature
        GPU Current Temp                  : 86 C
        GPU Slowdown Temp                 : 88 C
    GPU Power Readings
        Power Draw                        : 301.22 W
        Current Power Limit               : 300.00 W
        Requested Power Limit             : 300.00 W
        Default Power Limit               : 350.00 W
        Min Power Limit                   : 100.00 W
        Max Power Limit                   : 350.00 W
    Clocks
        Graphics                          : 1410 MHz
        SM                                : 1410 MHz
        Memory                            : 9001 MHz
    Applications Clocks
        Graphics                          : 2040 MHz
        Memory                            : 9001 MHz
    Default Applications Clocks
        Graphics                          : 2520 MHz
        Memory                            : 9001 MHz
    Max Clocks
        Graphics                          : 2520 MHz
        SM                                : 2520 MHz
        Memory                            : 9001 MHz
    Processes
        GPU instance ID                   : N/A
        Compute instance ID               : N/A
        Process ID                        : 30112
            Type                          : C
            Name                          : python3
            Used GPU Memory               : 41210 MiB

GPU 00000000:C1:00.0
    Product Name                          : NVIDIA L40S
    Persistence Mode                      : Disabled
    Compute Mode                          : Default
    Processes                             : None
"""


def vllm_files(args: str = "--tensor-parallel-size 8", torch_cuda: str = "12.8", pid: int = 4101,
               workers: int = 0) -> tuple[dict[str, str], dict[int, str]]:
    """A vLLM API server in /opt/vllm (a venv with torch built for `torch_cuda`) and its TP workers."""
    site = "/opt/vllm/lib/python3.12/site-packages"
    tag = torch_cuda.replace(".", "")
    files = {
        f"{site}/torch/version.py": f"__version__ = '2.7.0+cu{tag}'\ncuda: Optional[str] = '{torch_cuda}'\n",
        f"{site}/torch-2.7.0+cu{tag}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: 2.7.0+cu{tag}\n",
        f"{site}/vllm-0.9.2.dist-info/METADATA": "Metadata-Version: 2.1\nName: vllm\nVersion: 0.9.2\n",
        f"/proc/{pid}/stat": f"{pid} (python3) S 1 {pid} {pid} 0 -1 4194560 0 0 0 0\n",
    }
    procs = {pid: f"/opt/vllm/bin/python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-32B {args}"}
    for n in range(workers):
        wpid = pid + 10 + n
        procs[wpid] = f"VLLM::Worker_TP{n}"
        files[f"/proc/{wpid}/stat"] = f"{wpid} (VLLM::Worker_TP) S {pid} {pid} {pid} 0 -1 4194560 0 0 0 0\n"
    return files, procs
