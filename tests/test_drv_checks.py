"""DRV checks: issue, pass and trap cases on realistic GPU hosts (NVML recordings, nvidia-smi pastes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus import CAPTURES_DIR, capture_result, paste_checks
from nvidia_support import (
    PROC_VERSION_PROPRIETARY,
    UBUNTU_PERSISTENCED_UNIT,
    hgx,
    host_for,
    nvml_gpu,
    pcie_box,
    vllm_files,
    xml_gpu,
    xml_log,
)
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted

RTX_PRO = "NVIDIA RTX PRO 6000 Blackwell Server Edition"


def _one(host: Any, check_id: str) -> Any:
    return run_checks(host, [check_id])[check_id]


# --- DRV-CUDA-COMPAT ------------------------------------------------------------------------------


def test_cuda_compat_blackwell_on_old_driver_is_an_issue() -> None:
    host = host_for(pcie_box(RTX_PRO, 2), driver="565.57.01")
    r = _one(host, "DRV-CUDA-COMPAT")
    assert r.status == "issue" and "R570" in r.message and r.fix_cost == "driver-reload"


def test_cuda_compat_without_torch_is_unknown_not_ok() -> None:
    r = _one(host_for(hgx(count=2)), "DRV-CUDA-COMPAT")
    assert r.status == "unknown" and "570.124.06" in r.message


def test_cuda_compat_cuda13_torch_on_r570_driver_is_an_issue() -> None:
    files, procs = vllm_files(torch_cuda="13.0")
    r = _one(host_for(hgx(count=1), extra_files=files, processes=procs), "DRV-CUDA-COMPAT")
    assert r.status == "issue" and "580" in r.message and "13.0" in r.message


def test_cuda_compat_newer_runtime_of_the_same_major_is_not_an_issue() -> None:
    files, procs = vllm_files(torch_cuda="12.9")  # the fake NVML's driver supports CUDA 12.8
    r = _one(host_for(hgx(count=1), extra_files=files, processes=procs), "DRV-CUDA-COMPAT")
    assert r.status == "not-an-issue" and "minor-version" in r.message


def test_cuda_compat_ok_where_the_driver_supports_the_runtime_it_runs() -> None:
    files, procs = vllm_files(torch_cuda="12.8")
    r = _one(host_for(hgx(count=1), extra_files=files, processes=procs), "DRV-CUDA-COMPAT")
    assert r.status == "ok" and "supports torch's CUDA 12.8" in r.message


def test_cuda_compat_a_cuda_10_runtime_above_the_driver_has_no_minor_version_compatibility(tmp_path: Path) -> None:
    # Corpus 2584: torch 1.3.1's CUDA 10.1.243 on driver 410.48 (CUDA 10.0): minor-version compatibility began with
    # CUDA 11, so the runtime does not start (torch finds CUDA not available).
    r = capture_result("2584", "DRV-CUDA-COMPAT")
    assert r.status == "issue" and "before CUDA 11" in r.message and "418.39" in r.message, r.message
    # The same report under an R418 driver (modelled) runs it; so does corpus 1814's R442 under torch's CUDA 10.1.
    text = (CAPTURES_DIR / next(p.name for p in CAPTURES_DIR.glob("2584-*"))).read_text()
    text = text.split("verbatim -----\n", 1)[1].replace("driver version: 410.48", "driver version: 418.67")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"
    assert capture_result("1814", "DRV-CUDA-COMPAT").status == "ok"


# --- DRV-OPEN-MODULE ------------------------------------------------------------------------------


def test_proprietary_module_on_blackwell_is_an_issue() -> None:
    r = _one(host_for(pcie_box(RTX_PRO, 8), proc_version=PROC_VERSION_PROPRIETARY), "DRV-OPEN-MODULE")
    assert r.status == "issue" and r.severity == "high" and len(r.subjects) == 8 and r.fix_cost == "reboot"


def test_open_module_is_ok_and_proprietary_on_hopper_is_allowed() -> None:
    assert _one(host_for(pcie_box(RTX_PRO, 2)), "DRV-OPEN-MODULE").status == "ok"
    r = _one(host_for(hgx(), proc_version=PROC_VERSION_PROPRIETARY), "DRV-OPEN-MODULE")
    assert r.status == "ok" and "allowed" in r.message


def test_flavour_from_modinfo_license_when_proc_is_missing() -> None:
    host = host_for(pcie_box(RTX_PRO, 1), proc_version="",
                    extra_commands={("modinfo", "-F", "license", "nvidia"): "NVIDIA\n"})
    host.record.files.pop("/proc/driver/nvidia/version")
    r = _one(host, "DRV-OPEN-MODULE")
    assert r.status == "issue" and "modinfo" in " ".join(r.evidence)


# --- DRV-PERSISTENCE ------------------------------------------------------------------------------


def test_persistence_off_is_a_low_startup_issue() -> None:
    r = _one(host_for(hgx(persistence_mode=0), persistenced="inactive"), "DRV-PERSISTENCE")
    assert r.status == "issue" and r.severity == "low" and r.priority == "P2"
    assert "steady-state tokens/s are unaffected" in r.message and "systemctl" in r.fix.runtime


def test_ubuntu_unit_with_no_persistence_mode_gets_the_drop_in_fix() -> None:
    host = host_for(hgx(count=2, persistence_mode=0), persistenced_unit=UBUNTU_PERSISTENCED_UNIT,
                    processes={812: "/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode"})
    r = _one(host, "DRV-PERSISTENCE")
    assert r.status == "issue" and "--no-persistence-mode" in r.message
    assert "ExecStart=\\n" in r.fix.runtime and "daemon-reload" in r.fix.runtime


def test_persistence_on_is_ok() -> None:
    assert _one(host_for(hgx()), "DRV-PERSISTENCE").status == "ok"


_WINDOWS_TABLE = """\
| NVIDIA-SMI 556.12                 Driver Version: 556.12         CUDA Version: 12.5     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 3090      WDDM  |   00000000:06:00.0  On |                  N/A |
| 56%   47C    P8             49W /  390W |   18505MiB /  24576MiB |      2%      Default |
+-----------------------------------------+------------------------+----------------------+
"""  # ollama/ollama#5821 (tests/data/captures/304), the GPU rows


def test_persistence_is_not_applicable_under_a_windows_driver_model(tmp_path: Path) -> None:
    (tmp_path / "smi.txt").write_text(_WINDOWS_TABLE)
    r = _one(load_pasted([str(tmp_path / "smi.txt")]), "DRV-PERSISTENCE")
    assert r.status == "not-applicable" and "WDDM" in r.message


def _linux_table(display: str = "On") -> str:
    """Modelled: the same rows with Linux's Persistence-M column (`Off`) and the display column given."""
    return (_WINDOWS_TABLE.replace("Driver-Model", "Persistence-M").replace("      WDDM  |", "        Off |")
            .replace("06:00.0  On |", f"06:00.0 {display:>3} |"))


def test_persistence_off_on_the_same_table_from_linux_is_an_issue(tmp_path: Path) -> None:
    (tmp_path / "smi.txt").write_text(_linux_table("Off"))
    assert _one(load_pasted([str(tmp_path / "smi.txt")]), "DRV-PERSISTENCE").status == "issue"


def test_persistence_off_on_a_gpu_driving_a_display_is_not_an_issue(tmp_path: Path) -> None:
    """The display's client holds the GPU open, so the driver keeps its state: persistence mode saves nothing."""
    (tmp_path / "smi.txt").write_text(_linux_table("On"))
    r = _one(load_pasted([str(tmp_path / "smi.txt")]), "DRV-PERSISTENCE")
    assert r.status == "not-an-issue" and "display" in r.message


def test_persistence_off_stays_an_issue_on_the_gpus_without_a_display() -> None:
    gpus = hgx(count=2, persistence_mode=0)
    gpus[0]["display_active"] = 1
    r = _one(host_for(gpus, persistenced="inactive"), "DRV-PERSISTENCE")
    assert r.status == "issue" and "GPU(s) 1;" in r.message


# Three real pastes of `cat /proc/acpi/bbswitch` from different threads, each with the state it printed.
_BBSWITCH_PASTES = (
    # Bumblebee-Project/bbswitch#195 (a comment's inline code)
    ("However `cat /proc/acpi/bbswitch ` results in:\n`0000:01:00.0 ON\n`\nso bbswitch has failed to turn nvidia off.\n",
     ("0000:01:00.0", True)),
    # Bumblebee-Project/bbswitch#179 (an Ubuntu 18.04 laptop, the prompt with its host)
    ("leonardo@leonardo-TM1703:~$ sudo tee /proc/acpi/bbswitch <<<ON\nON\n"
     "leonardo@leonardo-TM1703:~$ cat /proc/acpi/bbswitch  \n0000:01:00.0 OFF\n", ("0000:01:00.0", False)),
    # cleemesser/aero15X-laptop-linux-cuda-config#7 (a prompt without a host)
    ("`~$ cat /proc/acpi/bbswitch \n0000:01:00.0 ON `\n", ("0000:01:00.0", True)),
)


def test_bbswitch_state_is_read_from_real_pastes() -> None:
    from stackaudit.engine.collect import Collector
    from stackaudit.facts.registry import load_all
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    load_all()
    for text, want in _BBSWITCH_PASTES:
        fact = Collector(MemoryHost(recognise(text).record)).results(["bbswitch"])["bbswitch"]
        assert fact.gpus == (want,), text


def test_a_bare_address_and_state_is_no_bbswitch_line() -> None:
    """Modelled: `0000:01:00.0 ON` with no `cat /proc/acpi/bbswitch` above it says nothing of bbswitch."""
    from stackaudit.importers.recognition import recognise

    assert not any(kind == "/proc/acpi/bbswitch" for kind, _, _ in recognise("0000:01:00.0 ON\n").recognised)


def test_persistence_off_on_a_gpu_bbswitch_switches_is_not_an_issue(tmp_path: Path) -> None:
    """Bumblebee powers the GPU down between uses and clears persistence mode (tests/data/captures/1838)."""
    (tmp_path / "smi.txt").write_text("$ cat /proc/acpi/bbswitch\n0000:06:00.0 OFF\n\n" + _linux_table("Off"))
    r = _one(load_pasted([str(tmp_path / "smi.txt")]), "DRV-PERSISTENCE")
    assert r.status == "not-an-issue" and "bbswitch" in r.message


def test_persistence_off_stays_an_issue_on_a_gpu_bbswitch_does_not_list(tmp_path: Path) -> None:
    """Modelled: bbswitch names another address than the table's GPU."""
    (tmp_path / "smi.txt").write_text("$ cat /proc/acpi/bbswitch\n0000:01:00.0 ON\n\n" + _linux_table("Off"))
    assert _one(load_pasted([str(tmp_path / "smi.txt")]), "DRV-PERSISTENCE").status == "issue"


# --- DRV-COMPUTE-MODE -----------------------------------------------------------------------------


def test_exclusive_process_and_prohibited() -> None:
    gpus = hgx(count=2)
    gpus[1]["compute_mode"] = 3
    r = _one(host_for(gpus), "DRV-COMPUTE-MODE")
    assert r.status == "issue" and "nvidia-smi -i 1 -c DEFAULT" in r.fix.runtime and r.severity == "medium"
    gpus[1]["compute_mode"] = 2
    assert _one(host_for(gpus), "DRV-COMPUTE-MODE").severity == "high"
    assert _one(host_for(hgx(count=2)), "DRV-COMPUTE-MODE").status == "ok"


# --- DRV-FABRIC-MANAGER ---------------------------------------------------------------------------


def test_hgx_with_fabric_manager_down_is_an_issue() -> None:
    gpus = hgx(fabric={"state": 2, "status": 0})
    r = _one(host_for(gpus, nvswitches=4, fabricmanager="failed"), "DRV-FABRIC-MANAGER")
    assert r.status == "issue" and r.priority == "P0" and "failed" in r.message and "In Progress" in r.message


def test_fabric_manager_version_mismatch() -> None:
    host = host_for(hgx(), nvswitches=4, fabricmanager="active", fm_version="570.86.15")
    r = _one(host, "DRV-FABRIC-MANAGER")
    assert r.status == "issue" and "570.86.15" in r.message


def test_fabric_manager_ok_and_not_applicable_on_pcie() -> None:
    assert _one(host_for(hgx(), nvswitches=4, fabricmanager="active", fm_version="570.124.06"),
                "DRV-FABRIC-MANAGER").status == "ok"
    r = _one(host_for(pcie_box(RTX_PRO, 8)), "DRV-FABRIC-MANAGER")
    assert r.status == "not-applicable" and "need no Fabric Manager" in r.message


def test_gb200_compute_tray_without_fm_is_not_an_issue() -> None:
    gpus = [nvml_gpu(i, "NVIDIA GB200", f"0008:{i:02x}:00.0") for i in range(4)]
    r = _one(host_for(gpus, fabricmanager="inactive"), "DRV-FABRIC-MANAGER")
    assert r.status == "not-an-issue" and "switch trays" in r.message


def test_blackwell_hgx_without_ib_umad() -> None:
    gpus = [nvml_gpu(i, "NVIDIA GB200", f"0008:{i:02x}:00.0") for i in range(4)]
    for g in gpus:
        g["name"] = "NVIDIA B200"
    r = _one(host_for(gpus, nvswitches=2, fabricmanager="active"), "DRV-FABRIC-MANAGER")
    assert r.status == "issue" and "ib_umad" in r.message


# --- DRV-GSP-FIRMWARE -----------------------------------------------------------------------------


def test_gsp_off_with_open_module_is_an_issue_and_not_one_with_proprietary() -> None:
    off = {"gsp_firmware_version": {"error": "not-supported"}, "gsp_firmware_mode": [0, 1]}
    r = _one(host_for(hgx(count=2, **off)), "DRV-GSP-FIRMWARE")
    assert r.status == "issue" and "open kernel module" in r.message and r.priority == "P2"
    r = _one(host_for(hgx(count=2, **off), proc_version=PROC_VERSION_PROPRIETARY), "DRV-GSP-FIRMWARE")
    assert r.status == "not-an-issue" and "allowed" in r.message  # N/A looks like missing firmware: it is not
    assert _one(host_for(hgx(count=2)), "DRV-GSP-FIRMWARE").status == "not-an-issue"  # in use: a key negative


# --- DRV-NVLINK-HEALTH ----------------------------------------------------------------------------


def test_nvlink_down_and_errors() -> None:
    gpus = hgx()
    gpus[2]["nvlink"][7]["active"] = 0
    gpus[3]["nvlink"][1]["errors"]["crc_flit"] = 112
    r = _one(host_for(gpus, nvswitches=4, fabricmanager="active"), "DRV-NVLINK-HEALTH")
    assert r.status == "issue" and "17 of 18" in r.message and "CRC" in r.message
    assert set(r.subjects) == {"0000:3a:00.0", "0000:5d:00.0"}


def test_nvlink_xid_74_is_an_issue() -> None:
    dmesg = "[ 8123.551] NVRM: Xid (PCI:0000:2a:00): 74, pid=4101, name=python3, NVLink: fatal error detected\n"
    r = _one(host_for(hgx(), dmesg=dmesg), "DRV-NVLINK-HEALTH")
    assert r.status == "issue" and "Xid 74" in r.message


def test_nvlink_ok_and_pcie_cards_not_applicable() -> None:
    assert _one(host_for(hgx()), "DRV-NVLINK-HEALTH").status == "ok"
    r = _one(host_for(pcie_box("NVIDIA L40S", 4)), "DRV-NVLINK-HEALTH")
    assert r.status == "not-applicable" and "PCIe" in r.message


# --- DRV-XID --------------------------------------------------------------------------------------


def test_xid_79_is_high_and_app_xids_are_low() -> None:
    dmesg = ("[Tue Mar  4 09:12:01 2025] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, "
             "GPU has fallen off the bus.\n")
    r = _one(host_for(hgx(), dmesg=dmesg), "DRV-XID")
    assert r.status == "issue" and r.severity == "high" and r.subjects == ("0000:9a:00.0",)
    app = "[ 10.1] NVRM: Xid (PCI:0000:18:00): 13, pid=991, name=blender, Graphics SM Warp Exception\n"
    r = _one(host_for(hgx(), dmesg=app), "DRV-XID")
    # Application faults alone are reported apart, as information (issue 10): not the GPU's fault.
    assert r.status == "not-an-issue" and "application faults" in r.message
    # A bare Python process with no engine on the host: any program's.
    assert _one(host_for(hgx(), dmesg=app.replace("blender", "python3")), "DRV-XID").status == "not-an-issue"
    # The stack's own process too (facts/symptoms.STACK_XID): the engine's fault, not the GPU's (h68l's count).
    r = _one(host_for(hgx(), dmesg=app.replace("blender", "pt_main_thread")), "DRV-XID")
    assert r.status == "not-an-issue" and "application faults" in r.message
    assert _one(host_for(hgx()), "DRV-XID").status == "ok"


def test_xid_recovery_action_from_nvml_is_used() -> None:
    gpus = hgx(count=2)
    gpus[1]["recovery_action"] = 2
    r = _one(host_for(gpus), "DRV-XID")
    assert r.status == "issue" and "Node Reboot" in r.message


def test_nvlink_health_from_pasted_nvidia_smi_and_nvlink_status(tmp_path) -> None:
    """A bug report with the nvidia-smi table and `nvidia-smi nvlink -s`: a down link on GPU 1 is found."""
    from stackaudit.importers.pasted import load_pasted

    table = xml_log([xml_gpu("00000000:18:00.0"), xml_gpu("00000000:2A:00.0")])  # H100 SXM: 18 NVLinks
    links = "\n".join(f"\t Link {n}: 26.562 GB/s" for n in range(18))
    down = links.replace("Link 3: 26.562 GB/s", "Link 3: <inactive>")
    status = (f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa)\n{links}\n"
              f"GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbbb)\n{down}\n")
    paste = tmp_path / "report.txt"
    paste.write_text(table + "\n$ nvidia-smi nvlink -s\n" + status)
    r = run_checks(load_pasted([str(paste)]), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]
    assert r.status == "issue" and "17 of 18" in r.message and "down: 3" in r.message


def test_xid_fix_cost_follows_the_recovery_79_reboot_app_restart_ecc_reset() -> None:
    off_bus = "[ 9.1] NVRM: Xid (PCI:0000:9a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    r = _one(host_for(hgx(), dmesg=off_bus), "DRV-XID")
    # A GPU that fell off the bus is P0 although its fix is a reboot: a lost GPU comes first.
    assert r.fix_cost == "reboot" and r.priority == "P0" and "reboot" in r.fix.runtime
    # An ECC Xid is the memory check's finding: a P0 that ranks with lost GPUs. Alone it is still an Xid, so DRV-XID
    # judges it by its class too (the blind expectations of 253 and 358 call DRV-XID an issue there).
    dbe = "[ 9.1] NVRM: Xid (PCI:0000:18:00): 48, pid=4101, name=python3, An uncorrectable double bit error\n"
    results = run_checks(host_for(hgx(), dmesg=dbe), ["DRV-XID", "MEM-ROW-REMAP-ECC"])
    ecc, xid_result = results["MEM-ROW-REMAP-ECC"], results["DRV-XID"]
    assert ecc.fix_cost == "driver-reload" and ecc.priority == "P0" and ecc.gpu_lost and "Xid (PCI:0000:18:00): 48" in ecc.message
    assert xid_result.status == "issue" and "48" in xid_result.message
    # An application fault beside a contained ECC error: the ECC line is the memory check's, the fault is DRV-XID's
    # information.
    app = ("[ 10.1] NVRM: Xid (PCI:0000:18:00): 31, pid=991, name=blender, Ch 00000008, MMU Fault\n"
           "[ 10.2] NVRM: Xid (PCI:0000:18:00): 94, pid=991, name=blender, Contained: CE User Channel (0x9).\n")
    results = run_checks(host_for(hgx(), dmesg=app), ["DRV-XID", "MEM-ROW-REMAP-ECC"])
    assert results["MEM-ROW-REMAP-ECC"].priority == "P1" and not results["MEM-ROW-REMAP-ECC"].gpu_lost
    assert results["DRV-XID"].status == "not-an-issue" and "Xid 31" in results["DRV-XID"].message
    assert "94" not in results["DRV-XID"].message


def test_a_gpu_nvml_reports_lost_is_an_xid_issue() -> None:
    host = host_for(hgx(count=2), nvml_extra={"gpu/1": {"__error__": {"kind": "gpu-is-lost", "message": "lost"}}})
    r = _one(host, "DRV-XID")
    assert r.status == "issue" and r.severity == "high" and "lost" in r.message and r.fix_cost == "reboot"


# Real: corpus 1433 (a Slurm node's issue): nvidia-smi cannot open GPU 1C, and `lspci | grep -i nvidia` reads every
# function of that board as revision ff while the boards beside it read a1.
_REV_FF = """\
$ nvidia-smi
Unable to determine the device handle for GPU 0000:1C:00.0: Unknown Error

1a:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev a1)
1a:00.1 Audio device: NVIDIA Corporation TU102 High Definition Audio Controller (rev a1)
1c:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev ff)
1c:00.1 Audio device: NVIDIA Corporation TU102 High Definition Audio Controller (rev ff)
1d:00.0 VGA compatible controller: NVIDIA Corporation TU102GL [Quadro RTX 6000/8000] (rev a1)
"""


def test_a_gpu_nvidia_smi_cannot_open_that_reads_rev_ff_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "paste.txt"
    path.write_text(_REV_FF)
    r = _one(load_pasted([str(path)]), "DRV-XID")
    assert r.status == "issue" and "revision ff" in r.message and r.subjects == ("0000:1c:00.0",)
    # The same `Unknown Error` with a healthy revision is no proof of a lost GPU (corpus 738, 1295: unknown).
    path.write_text(_REV_FF.replace("(rev ff)", "(rev a1)"))
    assert _one(load_pasted([str(path)]), "DRV-XID").status == "unknown"


def test_no_nvlink_says_what_follows_and_an_unknown_model_without_links_is_unknown() -> None:
    r = _one(host_for(pcie_box("NVIDIA L40S", 4)), "DRV-NVLINK-HEALTH")
    assert r.status == "not-applicable" and "TP=2" in r.message and "latency" in r.message
    gpus = pcie_box("NVIDIA L40S", 2, nvlink={"error": "no-permission"})
    for g in gpus:
        g["name"] = "NVIDIA Future Accelerator X"
    assert _one(host_for(gpus), "DRV-NVLINK-HEALTH").status == "unknown"


def test_proprietary_module_on_grace_hopper_is_an_issue() -> None:
    gpus = [nvml_gpu(0, "NVIDIA H100 80GB HBM3", "0009:01:00.0")]
    gpus[0]["name"] = "NVIDIA GH200 480GB"
    r = _one(host_for(gpus, proc_version=PROC_VERSION_PROPRIETARY), "DRV-OPEN-MODULE")
    assert r.status == "issue" and "GH200" in r.message


# --- links the chip lists beyond those the model wires ---------------------------------------------

# Real: HPE-Japan-Presales/e-learning, gpu/h100/mgmt_gpu_on_dl380agen11.md, a bridged pair of H100 PCIe
# (GPU 0's block of `nvidia-smi nvlink -s`; the write-up indents it as a Markdown code block).
HPE_H100_PCIE_PAIR = """\
      root@dl380ag11:~# nvidia-smi nvlink -s
      GPU 0: NVIDIA H100 PCIe (UUID: GPU-6968dfc2-d444-d92c-c36b-6abe53445cb9)
               Link 0: 26.562 GB/s
               Link 1: 26.562 GB/s
               Link 2: 26.562 GB/s
               Link 3: 26.562 GB/s
               Link 4: <inactive>
               Link 5: <inactive>
               Link 6: 26.562 GB/s
               Link 7: 26.562 GB/s
               Link 8: 26.562 GB/s
               Link 9: 26.562 GB/s
               Link 10: <inactive>
               Link 11: <inactive>
               Link 12: 26.562 GB/s
               Link 13: 26.562 GB/s
               Link 14: 26.562 GB/s
               Link 15: 26.562 GB/s
               Link 16: <inactive>
               Link 17: <inactive>
"""
# Real: https://github.com/bottlerocket-os/bottlerocket/pull/4418 (piyush-jena), GPU 0 of an H100 SXM board.
BOTTLEROCKET_4418_SXM = (
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4039dfe4-0c97-4b1e-683e-eb7d42699053)\n"
    + "".join(f"         Link {n}: 26.562 GB/s\n" for n in range(18)))


def _nvlink(text: str) -> Any:
    from corpus import pasted

    return run_checks(pasted(text), ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"]


def test_links_beyond_the_models_wiring_are_unconnected_by_design() -> None:
    from corpus import body

    # NVIDIA/nccl#1608 (corpus 267): an H100 NVL, 12 of 18 active; the HPE write-up: an H100 PCIe, the same.
    for text in (body("267"), HPE_H100_PCIE_PAIR):
        r = _nvlink(text)
        assert r.status == "not-an-issue", r.message
        assert "links 4,5,10,11,16,17" in r.message and "12/12" in r.message


def test_links_down_among_the_wired_ones_stay_an_issue() -> None:
    from corpus import body

    # Azure/azhpc-diagnostics#73 (corpus 61): a V100 SXM2 with 2 of its 6 links inactive.
    assert _nvlink(body("61")).status == "issue"
    # Modelled on the HPE pair: one of the 12 wired links down as well is 11 of 12, an issue.
    r = _nvlink(HPE_H100_PCIE_PAIR.replace("Link 3: 26.562 GB/s", "Link 3: <inactive>"))
    assert r.status == "issue" and "11 of 12" in r.message
    # Every link listed active (an H100 SXM, 18 of 18): plain ok, nothing inactive to explain.
    assert _nvlink(BOTTLEROCKET_4418_SXM).status == "ok"


def test_xid_verdicts_cover_the_gpus_their_lines_name() -> None:
    # Corpus 879 (3dem/relion#436): nine Xid 13 lines of GPU 0000:41:00 (the program's fault, 1 GPU shown); corpus 870
    # (NVIDIA/open-gpu-kernel-modules#1010): Xid 79 on 0000:01:00 (lost, 1 GPU shown).
    from corpus import capture_checks

    for prefix, status in (("879", "not-an-issue"), ("870", "issue")):
        r = capture_checks(prefix, "DRV-XID")["DRV-XID"]
        assert r.status == status and r.coverage is not None and r.coverage.text() == "1 GPU shown", prefix
    # Modelled: application Xids on two GPUs cover both.
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    text = ("[ 100.1] NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception: ESR 0x5067b0=0x9\n"
            "[ 100.2] NVRM: Xid (PCI:0000:42:00): 31, pid=1, Ch 00000008, intr 10000000. MMU Fault\n")
    r = run_checks(MemoryHost(recognise(text).record), ["DRV-XID"])["DRV-XID"]
    assert r.coverage is not None and r.coverage.text() == "2 GPUs shown"


def test_exclusive_process_in_a_paste_without_a_workload_is_conditional(tmp_path) -> None:
    # Corpus 1071 (bottlerocket-core-kit#834): an nvidia-smi table with `E. Process` on both A100s, cut before its
    # process list, and no engine: unknown, the condition named. The same table with an engine's TP is an issue.
    from corpus import capture_checks, paste_checks

    alone = capture_checks("1071", "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert alone.status == "unknown" and "no engine or process" in alone.message
    body = next(p for p in (Path(__file__).parent / "data" / "captures").glob("1071-*.txt")).read_text()
    table = body.split("everything below this line is the capture, verbatim -----\n", 1)[1]
    served = paste_checks(tmp_path, table + "\nvllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2\n",
                          "DRV-COMPUTE-MODE")["DRV-COMPUTE-MODE"]
    assert served.status == "issue", served.message


def test_gsp_from_the_open_modules_refusal_follows_the_gpus_device_id() -> None:
    """The open nvidia.ko's refusal of a GPU for want of a GSP names it by PCI device id: a Volta GPU has no GSP (not
    applicable), a Hopper GPU has one the driver could not reach (issue)."""
    from corpus import capture_checks, pasted

    # Corpus 1367 (NVIDIA/open-gpu-kernel-modules#322): a Tesla V100-SXM2-32GB, 10de:1db5.
    r = capture_checks("1367", "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "not-applicable" and "Volta" in r.message and "0000:af:00.0" in r.message, r.message
    # Corpus 624 (NVIDIA/open-gpu-kernel-modules#587): an H100 PCIe, 10de:2331, in a confidential guest.
    r = capture_checks("624", "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert r.status == "issue" and "Hopper" in r.message, r.message
    # Modelled: a device id the GPU table cannot place (above Turing's first) leaves it unknown, as before.
    text = body_1367_with("10de:1db5", "10de:2f99")
    assert run_checks(pasted(text), ["DRV-GSP-FIRMWARE"])["DRV-GSP-FIRMWARE"].status == "unknown"


def body_1367_with(old: str, new: str) -> str:
    from corpus import body

    return body("1367").replace(old, new)


def test_a_v100_sxm2_16gb_named_by_its_device_id_alone_rules_out_mig_and_the_open_module() -> None:
    """`lspci -n` names a GPU by its PCI device id alone: 10de:1db1 is the Tesla V100-SXM2-16GB (the proprietary
    driver README's supported-GPU list), Volta, which has no MIG and which no open module drives."""
    from corpus import body, capture_checks, pasted

    # Corpus 2473 (GoogleCloudPlatform/compute-gpu-installation#33): a GCP VM's whole `lspci -n`, nvidia-smi failed.
    r = capture_checks("2473", "MEM-MIG", "DRV-OPEN-MODULE")
    assert r["MEM-MIG"].status == "not-applicable" and "V100" in r["MEM-MIG"].message, r["MEM-MIG"].message
    assert r["DRV-OPEN-MODULE"].status == "not-applicable" and "Volta" in r["DRV-OPEN-MODULE"].message
    # Modelled: the same listing with an A100's id (10de:20b0), which has MIG and runs either module: not settled.
    text = body("2473").replace("10de:1db1", "10de:20b0")
    moved = run_checks(pasted(text), ["MEM-MIG", "DRV-OPEN-MODULE"])
    assert moved["MEM-MIG"].status == "unknown" and moved["DRV-OPEN-MODULE"].status == "unknown"


def test_turing_to_hopper_gpus_named_beside_the_module_at_work_need_no_flavour() -> None:
    """No flavour shown: GPUs a source names all Turing to Hopper, beside the kernel log's NVRM lines naming a GPU the
    module probed, are not an issue (either flavour drives them); without the module shown at work, or with a
    Blackwell GPU named, it stays open."""
    from corpus import body, capture_checks, pasted

    # Corpus 2465 (Nobara-Project/rpm-sources#526): the user's GTX 1650 (Turing), `NVRM: GPU0 ...` GSP lines.
    r = capture_checks("2465", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "not-an-issue" and "Turing" in r.message and "NVRM: GPU0" in r.message, r.message
    # Corpus 279 (NVIDIA/open-gpu-kernel-modules#789): the user's RTX 3090, `NVRM: GPU 0000:98:00.0: RmInitAdapter`.
    r = capture_checks("279", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "not-an-issue" and "Ampere" in r.message, r.message
    # Modelled: the same list without the kernel log's lines: no module shown at work, no flavour to judge.
    text = body("2465").split("```\nNVRM:")[0]
    assert run_checks(pasted(text), ["DRV-OPEN-MODULE"])["DRV-OPEN-MODULE"].status == "unknown"
    # Modelled: a Blackwell GPU named instead needs the open flavour, which the source does not show.
    text = body("2465").replace("GeForce GTX 1650 (Turing / TU117)", "GeForce RTX 5080")
    assert run_checks(pasted(text), ["DRV-OPEN-MODULE"])["DRV-OPEN-MODULE"].status != "not-an-issue"
