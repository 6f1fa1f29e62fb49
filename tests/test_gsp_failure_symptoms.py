"""DRV-GSP-FIRMWARE from the GSP firmware's own failures in the kernel log (facts/symptoms.py rows
`gsp-marked-for-reset`, `gsp-crash`, `gsp-rpc-reset-required`, each proving DRV-XID too).

A GSP crash (CrashCat report, Xid 120), timeouts back to back that mark the GPU for reset, and a call to the GSP
failing with NV_ERR_RESET_REQUIRED are the firmware's failure: an issue, whatever else the excerpt shows.
The fix names the known workaround (NVreg_EnableGpuFirmware=0 on the proprietary module before Blackwell) and a
driver update.
GSP lines of a working GPU, and timeouts on a GPU failing under its firmware (corpus 380), prove no GSP failure.
Real pastes are corpus captures (their public threads in their headers); counter-examples are modelled where marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

GSP = "DRV-GSP-FIRMWARE"


@pytest.mark.parametrize(("capture", "line"), [
    # scitix/sichek#51: rpcRmApiAlloc_GSP fails with status 0x62 (NV_ERR_RESET_REQUIRED), no Xid line.
    ("447", "rpcRmApiAlloc_GSP: GspRmAlloc failed"),
    # NVIDIA/open-gpu-kernel-modules#446 (Talos dmesg): back-to-back GSP RPC timeouts mark the GPU for reset.
    ("448", "Back to back GSP RPC timeout detected"),
    # NVIDIA/open-gpu-kernel-modules#829 (Turing, 575.51.02): a GSP-CrashCat report and Xid 120 at init.
    ("451", "GSP-CrashCat Report"),
])
def test_gsp_failures_prove_the_firmware_check(capture: str, line: str) -> None:
    results = capture_checks(capture, GSP, "DRV-XID")
    result = results[GSP]
    assert result.status == "issue", result.message
    assert any(line in e for e in result.evidence), result.evidence
    does = " ".join(s.does for s in result.fix.steps)
    assert "NVreg_EnableGpuFirmware=0" in does and "update the driver" in does
    assert results["DRV-XID"].status == "issue", results["DRV-XID"].message


def test_one_heartbeat_timeout_is_a_gpu_fault_not_the_firmware() -> None:
    # Corpus 380 (NVIDIA/open-gpu-kernel-modules#1230): a heartbeat timeout after a memory-subsystem error; its
    # reviewer reads GSP as in use (not-an-issue) and the fault as DRV-XID's.
    results = capture_checks("380", GSP, "DRV-XID")
    assert results[GSP].status == "not-an-issue", results[GSP].message
    assert results["DRV-XID"].status == "issue"


# Modelled: the GSP calls of a working GPU, one refused with NV_ERR_NOT_SUPPORTED (0x56), as drivers log at load.
HEALTHY_GSP = """[    5.123456] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build
[   12.345678] NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00002; hObject=0x5c000003; cmd=0x20801348; paramsSize=0x00000004; paramsStatus=0x00000056; status=0x00000056
[   12.345701] NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d00002; hObject=0x5c000009; paramsStatus=0x00000000; status=0x00000000
"""


def test_gsp_calls_of_a_working_gpu_prove_nothing(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, HEALTHY_GSP, GSP)[GSP]
    assert result.status == "not-an-issue", result.message
    # The same call with the reset-required status is the failure (modelled: 447's status on this line).
    failed = HEALTHY_GSP.replace("paramsStatus=0x00000056; status=0x00000056",
                                 "paramsStatus=0x00000062; status=0x00000062")
    assert paste_checks(tmp_path, failed, GSP)[GSP].status == "issue"


def test_a_hopper_gsp_boot_timing_out_on_its_target_mask_fails_the_boot() -> None:
    # Real: corpus 1885 (NVIDIA/nvtrust#52), an H100 in a confidential VM whose FSP never released GSP's target mask.
    result = capture_checks("1885", GSP)[GSP]
    assert result.status == "issue", result.message
    assert any("Timeout waiting for GSP target mask release" in e for e in result.evidence), result.evidence


def test_the_fsp_debug_dump_alone_proves_nothing(tmp_path: Path) -> None:
    # Modelled: the FSP's debug state lines without the timeout that precedes them say no boot failed.
    text = ("[   36.077507] NVRM kfspDumpDebugState_GH100: FSP microcode v4.76\n"
            "[   36.077509] NVRM kfspDumpDebugState_GH100: NV_PFSP_FALCON_COMMON_SCRATCH_GROUP_2(0) = 0x0\n")
    result = paste_checks(tmp_path, text, GSP)[GSP]
    assert result.status != "issue", result.message


@pytest.mark.parametrize(("capture", "line"), [
    # Nobara-Project/rpm-sources#526: a DKMS module of 595.58.03 rejects the 595.71.05 GSP firmware image.
    ("2465", "GSP firmware image version mismatch"),
    # ublue-os/bazzite#2668: a 570.144 module finds no firmware of its version beside 570.153.02's.
    ("1505", "RmFetchGspRmImages: No firmware image found"),
])
def test_a_firmware_image_of_another_release_is_the_firmware_check(capture: str, line: str) -> None:
    results = capture_checks(capture, GSP, "DRV-XID")
    result = results[GSP]
    assert result.status == "issue", result.message
    assert any(line in e for e in result.evidence), result.evidence
    does = " ".join(s.does for s in result.fix.steps)
    assert "of one driver release" in does and "NVreg_EnableGpuFirmware" not in does
    # The RmInitAdapter failure that follows is this cause's, not a GPU fault of DRV-XID's.
    assert results["DRV-XID"].status == "unknown", results["DRV-XID"].message


# Modelled: a module that loads the firmware of its own release and boots GSP (the R595 line's healthy form is none;
# the firmware path is named only where the load fails).
MATCHED_FIRMWARE = """[    4.101010] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  595.71.05  Release Build
[    4.512345] nvidia 0000:01:00.0: firmware: direct-loading firmware nvidia/595.71.05/gsp_tu10x.bin
[    6.100000] NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d00002; hObject=0x5c000009; paramsStatus=0x00000000; status=0x00000000
"""


def test_the_firmware_of_the_modules_release_is_no_failure(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, MATCHED_FIRMWARE, GSP)[GSP]
    assert result.status == "not-an-issue", result.message
    mismatched = MATCHED_FIRMWARE + ("[    4.512400] NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image "
                                     "version mismatch:\n")
    assert paste_checks(tmp_path, mismatched, GSP)[GSP].status == "issue"
