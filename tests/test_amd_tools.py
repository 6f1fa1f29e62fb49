"""AMD's own tools, ROCm's runtime variables and RCCL's log lines name AMD GPUs (facts/gpus.AMD_TOOL_LINES, read as evidence lines):
rocm-smi's concise table in its classic and its ROCm 6 layout, its per-GPU fields (`--showproductname`, `-i`),
rocminfo's GPU agent, amd-smi's banner and `static` fields, HSA_OVERRIDE_GFX_VERSION set to a value. A paste of them
alone, once refused as nothing recognisable (corpus 1595), is an AMD host: the NVIDIA checks do not apply, and
PWR-CLOCK-EVENTS quotes each GPU's busy share, clocks and power from rocm-smi's rows (facts/gpus.AmdGpuReadings) but
judges no slowdown, since the table shows no throttle reason.

The fixtures below are verbatim text of the public threads named beside them; the modelled ones say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import amd_gpu_readings, parse_other_vendor_gpus

NVIDIA_CHECKS = ("DRV-CUDA-COMPAT", "DRV-PERSISTENCE", "MEM-MIG")

# https://github.com/ROCm/ROC-smi/issues/86 (rocm-smi of ROCm 3.3, the classic table with its banner)
ROCM_SMI_86 = """\
========================ROCm System Management Interface========================
================================================================================
GPU  Temp   AvgPwr  SCLK    MCLK    Fan     Perf  PwrCap  VRAM%  GPU%
1    24.0c  3.0W    852Mhz  167Mhz  13.73%  auto  170.0W  N/A    0%
================================================================================
==============================End of ROCm SMI Log ==============================
"""

# https://github.com/ROCm/rocm_smi_lib/issues/35 (ROCm 2.4: two GPUs, power and GPU% not read)
ROCM_SMI_35 = """\
========================ROCm System Management Interface========================
================================================================================
GPU  Temp   AvgPwr  SCLK    MCLK    Fan     Perf  PwrCap  SCLK OD  MCLK OD  GPU%  
0    31.0c  N/A     852Mhz  167Mhz  28.63%  auto  N/A     0%       0%       N/A   
1    26.0c  N/A     852Mhz  167Mhz  27.84%  auto  N/A     0%       0%       N/A   
================================================================================
==============================End of ROCm SMI Log ==============================
"""  # noqa: W291 - the trailing spaces are rocm-smi's, verbatim

# https://github.com/ROCm/ROCm/issues/4750 (rocm-smi of ROCm 6.4 on MI300X in SPX mode, the layout with partitions)
ROCM_SMI_4750 = """\
$ rocm-smi && rocm-smi --showmeminfo vram


============================================ ROCm System Management Interface ============================================
====================================================== Concise Info ======================================================
Device  Node  IDs              Temp        Power     Partitions          SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%  
              (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)                                                  
==========================================================================================================================
0       2     0x74a1,   28851  48.0°C      135.0W    NPS1, SPX, 0        124Mhz  900Mhz  0%   auto  750.0W  0%     0%    
1       3     0x74a1,   43178  42.0°C      131.0W    NPS1, SPX, 0        145Mhz  900Mhz  0%   auto  750.0W  0%     0%    
2       4     0x74a1,   32898  46.0°C      137.0W    NPS1, SPX, 0        128Mhz  900Mhz  0%   auto  750.0W  0%     0%    
"""  # noqa: W291 - the trailing spaces are rocm-smi's, verbatim

# https://github.com/easybuilders/easybuild-framework/pull/3978 (rocm-smi --showproductname on a Radeon R9 FURY X)
PRODUCT_NAME_3978 = """\
$ rocm-smi --showproductname


======================= ROCm System Management Interface =======================
================================= Product Info =================================
GPU[0]          : Card series:          Fiji [Radeon R9 FURY / NANO Series]
GPU[0]          : Card model:           Radeon R9 FURY X
GPU[0]          : Card vendor:          Advanced Micro Devices, Inc. [AMD/ATI]
GPU[0]          : Card SKU:             C88001
"""

# https://github.com/ROCm/ROCm/issues/4759 (amd-smi's version line, then rocm-smi -i on MI300X, tabs as printed)
DEVICE_NAME_4759 = """\
$ amd-smi version
AMDSMI Tool: 25.4.2+aca1101 | AMDSMI Library version: 25.4.0 | ROCm version: 6.4.1 | amdgpu version: 6.10.5 | amd_hsmp version: N/A

$ rocm-smi -i


============================ ROCm System Management Interface ============================
=========================================== ID ===========================================
GPU[0]\t\t: Device Name: \t\tAMD Instinct MI300X
GPU[0]\t\t: Device ID: \t\t0x74a1
GPU[0]\t\t: Device Rev: \t\t0x00
GPU[0]\t\t: Subsystem ID: \t0x74a1
GPU[0]\t\t: GUID: \t\t10931
"""

# https://github.com/ROCm/rocm-systems/pull/2987 (amd-smi static on an MI350X, the head of its ASIC section)
AMD_SMI_STATIC_2987 = """\
$ amd-smi static --bus --ifwi --asic --board --vbios --driver --vram --ras -g 0 1
GPU: 0
    ASIC:
        MARKET_NAME: AMD Instinct MI350X
        VENDOR_ID: 0x1002
        VENDOR_NAME: Advanced Micro Devices Inc. [AMD/ATI]
        SUBVENDOR_ID: 0x1002
        DEVICE_ID: 0x75a0
        SUBSYSTEM_ID: 0x75a0
        REV_ID: 0x00
        ASIC_SERIAL: <redacted>
        OAM_ID: 6
        NUM_COMPUTE_UNITS: 128
        TARGET_GRAPHICS_VERSION: gfx950
        FLAGS: 16
"""

# https://github.com/ollama/ollama/issues/3158 (rocminfo's third agent: one of two RX 7900 XTX)
ROCMINFO_3158 = """\
*******
Agent 3
*******
  Name:                    gfx1100
  Uuid:                    GPU-398a3f843a146602
  Marketing Name:          Radeon RX 7900 XTX
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Profile:                 BASE_PROFILE
  Float Round Mode:        NEAR
  Max Queue Number:        128(0x80)
  Queue Min Size:          64(0x40)
  Queue Max Size:          131072(0x20000)
  Queue Type:              MULTI
  Node:                    2
  Device Type:             GPU
"""

# https://github.com/lamikr/rocm_sdk_builder/issues/185 (rocminfo's first agent: the CPU of a Ryzen with Radeon graphics)
ROCMINFO_CPU_185 = """\
*******
Agent 1
*******
  Name:                    AMD Ryzen 9 5900HX with Radeon Graphics
  Uuid:                    CPU-XX
  Marketing Name:          AMD Ryzen 9 5900HX with Radeon Graphics
  Vendor Name:             CPU
  Feature:                 None specified
  Profile:                 FULL_PROFILE
"""

# https://github.com/ollama/ollama/issues/3107 (the override set in a Windows shell, shown by `set | findstr HSA`)
HSA_OVERRIDE_3107 = """\
C:\\Users\\myuser>set | findstr HSA
HSA_OVERRIDE_GFX_VERSION=10.3.0
"""

# https://github.com/ollama/ollama/pull/814 (ollama's early ROCm branch started with the override, its log below)
OVERRIDE_SERVE_814 = """\
>$ HSA_OVERRIDE_GFX_VERSION=10.3.0 ./ollama serve

 HSA_OVERRIDE_GFX_VERSION=10.3.0 ./ollama serve
2023/11/18 23:12:04 images.go:799: total blobs: 6
2023/11/18 23:12:04 images.go:806: total unused blobs removed: 0
"""

# https://github.com/ollama/ollama/issues/8473 (ollama's ROCm image on an RX 6600, the override in its environment)
DOCKER_OVERRIDE_8473 = """\
```bash
docker run -d \\
    --device /dev/kfd \\
    --device /dev/dri \\
    -v ollama:/root/.ollama \\
    -p 11434:11434 \\
    --restart unless-stopped \\
    --env HSA_OVERRIDE_GFX_VERSION="10.3.0" \\
    --env OLLAMA_KEEP_ALIVE="-1" \\
    --name ollama-rocm \\
    ollama/ollama:rocm
```
"""

# https://github.com/ROCm/rocm_smi_lib/issues/159 (rocm-smi --showproductname --json on an MI250X's die)
PRODUCT_JSON_159 = """\
{
  "card0": {
    "Card Series": "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2",
    "Card Model": "0x7408",
    "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]",
    "Card SKU": "D65201",
    "Subsystem ID": "0x0b0c",
    "Device Rev": "0x00",
    "Node ID": "7",
    "GUID": "58294",
    "GFX Version": "gfx9010"
  }
}
"""

# https://github.com/joular/powerjoular/issues/67 (amd-smi metric on a Radeon, its usage and power sections)
AMD_SMI_METRIC_67 = """\
$ sudo amd-smi metric
GPU: 0
    USAGE:
        GFX_ACTIVITY: 0 %
        UMC_ACTIVITY: 1 %
        MM_ACTIVITY: 0 %
        VCN_ACTIVITY: [N/A, N/A, N/A, N/A]
        JPEG_ACTIVITY: [N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A,
            N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A, N/A,
            N/A, N/A, N/A]
    POWER:
        SOCKET_POWER: 20 W
        GFX_VOLTAGE: 780 mV
        SOC_VOLTAGE: 699 mV
        MEM_VOLTAGE: 666 mV
        THROTTLE_STATUS: UNTHROTTLED
        POWER_MANAGEMENT: ENABLED
"""


def _statuses(results: dict[str, Any]) -> dict[str, str]:
    return {k: r.status for k, r in results.items()}


# --- the corpus ------------------------------------------------------------------------------------------------------


def test_rocm_smi_table_in_backticks_1595() -> None:
    """Real (corpus 1595, turboderp/exllama#276): rocm-smi's table, each line in backticks, once refused: four MI100s,
    GPU 1 busy at 1502 MHz and 111 W while the others idle. PWR-CLOCK-EVENTS quotes that, and stays unknown."""
    results = capture_checks("1595", *NVIDIA_CHECKS, "PWR-CLOCK-EVENTS", "IC-P2P-FUNCTIONAL")
    assert _statuses(results) == {**dict.fromkeys(NVIDIA_CHECKS, "not-applicable"), "PWR-CLOCK-EVENTS": "unknown",
                                  "IC-P2P-FUNCTIONAL": "unknown"}
    assert "rocm-smi's table" in results["DRV-CUDA-COMPAT"].message
    clocks = results["PWR-CLOCK-EVENTS"].message
    assert "GPU 1 100 % busy, SCLK 1502 MHz, 62 °C, 111 W of its 290 W cap" in clocks
    assert "GPUs 0, 2, 3 0 % busy at SCLK 300 MHz" in clocks


# RCCL's own lines (ROCm's NCCL): ROCm/rccl#1454 (rccl-tests on two MI100), ROCm/rccl-tests#163 (MI50), ROCm/rccl#1468.
RCCL_1454 = """\
UVOSLinux:2421:2421 [0] NCCL INFO Bootstrap : Using bond0:10.0.0.2<0>
UVOSLinux:2421:2421 [0] NCCL INFO NET/Plugin: No plugin found (librccl-net.so)
UVOSLinux:2421:2421 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : librccl-net.so: cannot open shared object file: No such file or directory : when loading librccl-net.so
UVOSLinux:2421:2421 [0] NCCL INFO NET/Plugin: Using internal network plugin.
UVOSLinux:2421:2421 [0] NCCL INFO Kernel version: 6.6.64-1
UVOSLinux:2421:2421 [1] NCCL INFO ROCr version 1.1
"""
RCCL_TESTS_163 = """\
z292:58192:58192 [3] NCCL INFO ROCr version 1.14
z292:58192:58192 [3] NCCL INFO Dmabuf feature disabled without NCCL_DMABUF_ENABLE=1
RCCL version : 2.21.5-HEAD:9a0e6a1
HIP version  : 6.3.42134-a9a80e791
ROCm version : 6.3.3.0-74-cbc70b5
"""
RCCL_1468 = """\
nixos:4147521:4147521 [3] NCCL INFO Bootstrap : Using eno1np0:10.5.5.236<0>
nixos:4147521:4147521 [3] NCCL INFO NET/Plugin: No plugin found (librccl-net.so)
nixos:4147521:4147521 [3] NCCL INFO NET/Plugin: Using internal network plugin.
nixos:4147521:4147521 [3] NCCL INFO Kernel version: 6.12.0
"""
# NVIDIA's NCCL names its own plugin and banner (modelled on NCCL 2.18's lines): no AMD GPU.
NCCL_NVIDIA = """\
node1:2311:2311 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
NCCL version 2.18.1+cuda12.1
"""


# --- public threads --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "named"), [
    (ROCM_SMI_86, "ROCm System Management Interface"),
    (ROCM_SMI_35, "ROCm System Management Interface"),
    (ROCM_SMI_4750, "ROCm System Management Interface"),
    (PRODUCT_NAME_3978, "Fiji [Radeon R9 FURY / NANO Series] (rocm-smi)"),
    (DEVICE_NAME_4759, "AMD Instinct MI300X (rocm-smi)"),
    (AMD_SMI_STATIC_2987, "AMD Instinct MI350X (amd-smi)"),
    (ROCMINFO_3158, "Radeon RX 7900 XTX (rocminfo)"),
    (HSA_OVERRIDE_3107, "HSA_OVERRIDE_GFX_VERSION=10.3.0"),
    (OVERRIDE_SERVE_814, "HSA_OVERRIDE_GFX_VERSION=10.3.0 ./ollama serve"),
    (PRODUCT_JSON_159, "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2 (rocm-smi --json)"),
    (AMD_SMI_METRIC_67, "GFX_ACTIVITY: 0 %"),
])
def test_amd_tools_name_amd_gpus(tmp_path: Path, text: str, named: str) -> None:
    """Real (the threads above): each output alone is read, as an AMD host's, and the NVIDIA checks do not apply."""
    inventory = parse_other_vendor_gpus(text)
    assert any(named in o for o in inventory.others), inventory.others
    results = paste_checks(tmp_path, text, *NVIDIA_CHECKS)
    assert _statuses(results) == dict.fromkeys(NVIDIA_CHECKS, "not-applicable"), results


def test_rocm_smi_rows_of_each_layout() -> None:
    """Real (ROCm/ROC-smi#86, ROCm/rocm_smi_lib#35, ROCm/ROCm#4750): the rows' readings, N/A kept as None; the shares
    only where the header ends with `VRAM%  GPU%`."""
    (one,) = amd_gpu_readings(ROCM_SMI_86).gpus
    assert (one.index, one.temp_c, one.power_w, one.cap_w, one.sclk_mhz, one.busy_pct, one.vram_pct) == (
        1, 24.0, 3.0, 170.0, 852, 0.0, None)
    old = amd_gpu_readings(ROCM_SMI_35).gpus
    assert [(g.index, g.power_w, g.cap_w, g.busy_pct) for g in old] == [(0, None, None, None), (1, None, None, None)]
    new = amd_gpu_readings(ROCM_SMI_4750)
    assert [(g.index, g.temp_c, g.power_w, g.cap_w, g.sclk_mhz, g.busy_pct) for g in new.gpus] == [
        (0, 48.0, 135.0, 750.0, 124, 0.0), (1, 42.0, 131.0, 750.0, 145, 0.0), (2, 46.0, 137.0, 750.0, 128, 0.0)]


def test_clock_events_quote_a_rocm_6_table(tmp_path: Path) -> None:
    """Real (ROCm/ROCm#4750): three idle MI300X: the readings are quoted, no slowdown judged."""
    result = paste_checks(tmp_path, ROCM_SMI_4750, "PWR-CLOCK-EVENTS")["PWR-CLOCK-EVENTS"]
    assert result.status == "unknown"
    assert "GPU 0 0 % busy, SCLK 124 MHz, 48 °C, 135 W of its 750 W cap" in result.message


def test_override_in_a_container_environment(tmp_path: Path) -> None:
    """Real (ollama/ollama#8473): the override set for a container (facts/gpus.gpus_from_rocm_variables), beside the
    /dev/kfd it is handed."""
    message = paste_checks(tmp_path, DOCKER_OVERRIDE_8473, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].message
    assert "`HSA_OVERRIDE_GFX_VERSION=10.3.0` in the environment of ollama-rocm" in message


def test_override_on_an_engine_command_1592() -> None:
    """Real (corpus 1592): the override on llama-cli's command line, which the engine command reader takes."""
    message = capture_checks("1592", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].message
    assert "`HSA_OVERRIDE_GFX_VERSION=10.3.0` on the llamacpp command line" in message


@pytest.mark.parametrize("text", [RCCL_1454, RCCL_TESTS_163, RCCL_1468])
def test_rccl_lines_name_amd_gpus(tmp_path: Path, text: str) -> None:
    """Real (the three RCCL threads above; corpus 1750 is a fourth): RCCL's plugin, banner or ROCr line is ROCm's NCCL,
    which runs only on AMD GPUs, so the NVIDIA checks do not apply."""
    assert any("RCCL, ROCm's NCCL" in o for o in parse_other_vendor_gpus(text).others)
    results = paste_checks(tmp_path, text, "DRV-PERSISTENCE", "DRV-FABRIC-MANAGER")
    assert _statuses(results) == dict.fromkeys(("DRV-PERSISTENCE", "DRV-FABRIC-MANAGER"), "not-applicable"), results


def test_nvidias_nccl_names_no_amd_gpu() -> None:
    """Modelled: NVIDIA's NCCL logs under the same tags with its own plugin name and banner."""
    with pytest.raises(ParseError):
        parse_other_vendor_gpus(NCCL_NVIDIA)


# --- counter-examples ------------------------------------------------------------------------------------------------


def test_a_cpu_agent_names_no_gpu() -> None:
    """Real (lamikr/rocm_sdk_builder#185): rocminfo's CPU agent of a Ryzen with Radeon graphics is a CPU's."""
    with pytest.raises(ParseError):
        parse_other_vendor_gpus(ROCMINFO_CPU_185)


def test_rocm_variables_listed_empty_name_no_gpu() -> None:
    """Real (corpus 1259): ollama's config dump lists HIP_VISIBLE_DEVICES and HSA_OVERRIDE_GFX_VERSION empty on an
    NVIDIA host; a CUDA_VISIBLE_DEVICES set beside HIP's is a command for either vendor (modelled)."""
    with pytest.raises(ParseError):
        parse_other_vendor_gpus("INFO server config env=\"map[CUDA_VISIBLE_DEVICES:0,1 GPU_DEVICE_ORDINAL: "
                                "HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: HTTPS_PROXY:]\"\n")
    with pytest.raises(ParseError):
        parse_other_vendor_gpus("CUDA_VISIBLE_DEVICES=0 HIP_VISIBLE_DEVICES=0 python bench.py\n")


def test_an_nvidia_table_beside_rocm_smi_keeps_the_checks_open(tmp_path: Path) -> None:
    """Modelled: a host with an NVIDIA GPU beside its AMD ones (nvidia-smi -L, then rocm-smi's table) is no AMD-only
    host: the NVIDIA checks stay open."""
    text = "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5e3c4a4e-8b1c-2f3a-9d2e-6a7b8c9d0e1f)\n\n" + ROCM_SMI_86
    results = paste_checks(tmp_path, text, *NVIDIA_CHECKS)
    assert "not-applicable" not in {results["DRV-CUDA-COMPAT"].status, results["DRV-PERSISTENCE"].status}, results


def test_override_beside_an_nvidia_container_keeps_the_checks_open(tmp_path: Path) -> None:
    """Modelled: a container handed NVIDIA's GPUs (`--gpus all`) with a stray override is NVIDIA's."""
    text = 'docker run -d --gpus all \\\n    --env HSA_OVERRIDE_GFX_VERSION="10.3.0" \\\n    --name ollama \\\n    ollama/ollama\n'
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status != "not-applicable"


# --- MEM-GPU-SHARED from rocm-smi's VRAM% and GPU% columns -----------------------------------------------------------


@pytest.mark.parametrize(("capture", "shown"), [("2696", "GPU 0, GPU 1, GPU 2, GPU 3"), ("2698", "GPU 0, GPU 1, GPU 2")])
def test_idle_rocm_smi_rows_share_no_gpu(capture: str, shown: str) -> None:
    """Real (corpus 2696, ROCm/ROCm-docker#116: four idle MI100; corpus 2698, ROCm 6's table of MI300X cut in its
    fourth row): every row shown reads 0 % VRAM and 0 % busy, so nothing holds memory or time on those GPUs."""
    result = capture_checks(capture, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok", result.message
    assert f"rocm-smi shows {shown} each holding 0 %" in result.message


def test_rocm_smi_rows_without_a_vram_reading_leave_it_open() -> None:
    """Real (corpus 1595): rocm-smi's rows show the GPUs at work (a card 100 % busy, 25 % VRAM): whose is not shown."""
    assert capture_checks("1595", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"


def test_a_rocm_smi_row_holding_vram_is_not_ok(tmp_path: Path) -> None:
    """Counter-example (modelled on 2696's table): one GPU holds 12 % of its VRAM, so the GPUs are not shown idle."""
    text = ("======================= ROCm System Management Interface =======================\n"
            "GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%\n"
            "0    37.0c           38.0W   300Mhz  1200Mhz  0%   auto  290.0W    0%   0%\n"
            "1    40.0c           39.0W   300Mhz  1200Mhz  0%   auto  290.0W   12%   0%\n")
    assert paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"
