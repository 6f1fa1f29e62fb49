"""The vGPU software's licence that `nvidia-smi -q` reports in a guest (its `vGPU Software Licensed Product` section):
read once into the nvidia fact (facts/nvidia_smi.py), it names a vGPU guest (facts/platform.py vgpu_licence) and an
unlicensed vGPU is a vGPU limit at work (vgpu_unlicensed), which FW-VM judges an issue (h65b, corpus 1372)."""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_query_text, parse_xml
from stackaudit.facts.platform import vgpu_guest, vgpu_licence, vgpu_unlicensed

# Modelled on corpus 1372 and NVIDIA's vGPU licensing guide: a guest's `nvidia-smi -q`, one GPU, licensed.
LICENSED_GUEST = """\
==============NVSMI LOG==============

Timestamp                                 : Tue Jul  6 10:00:00 2021
Driver Version                            : 460.73.01
CUDA Version                              : 11.2

Attached GPUs                             : 1
GPU 00000000:02:00.0
    Product Name                          : GRID T4-16C
    Product Brand                         : NVIDIA Virtual Compute Server
    Display Mode                          : Enabled
    Persistence Mode                      : Enabled
    vGPU Software Licensed Product
        Product Name                      : NVIDIA Virtual Compute Server
        License Status                    : Licensed (Expiry: 2021-7-7 10:0:0 GMT)
"""

# Modelled: a passed-through GPU whose guest driver is licensed (vWS on pass-through): a VM, not a vGPU.
PASS_THROUGH_LICENSED = """\
GPU 00000000:00:08.0
    Product Name                          : NVIDIA A40
    Persistence Mode                      : Enabled
    GPU Virtualization Mode
        Virtualization Mode               : Pass-Through
        Host VGPU Mode                    : N/A
    vGPU Software Licensed Product
        Product Name                      : NVIDIA RTX Virtual Workstation
        License Status                    : Unlicensed (Restricted)
"""

# Modelled on NVIDIA's -q -x DTD (nvsmi_device_v11): the same section in the XML.
XML_UNLICENSED = """\
<?xml version="1.0" ?>
<nvidia_smi_log>
  <driver_version>550.54.15</driver_version>
  <attached_gpus>1</attached_gpus>
  <gpu id="00000000:02:00.0">
    <product_name>GRID A100D-20C</product_name>
    <vgpu_software_licensed_product>
      <licensed_product_name>NVIDIA Virtual Compute Server</licensed_product_name>
      <license_status>Unlicensed (Restricted)</license_status>
    </vgpu_software_licensed_product>
  </gpu>
</nvidia_smi_log>
"""


def test_the_section_alone_is_read_as_the_gpus_licence() -> None:
    text = Path(next((Path(__file__).parent / "data" / "captures").glob("1372-*.txt"))).read_text()
    nvidia = parse_query_text(text.split("verbatim -----\n", 1)[1])
    (gpu,) = nvidia.gpus
    assert (gpu.vgpu_license, gpu.vgpu_product) == ("Unlicensed", "NVIDIA Virtual Compute Server")
    assert gpu.name == ""  # the section's Product Name is the licensed product's, not the GPU's
    assert "License Status: Unlicensed" in vgpu_licence(nvidia)
    assert "Unlicensed" in vgpu_unlicensed(nvidia)


def test_a_licensed_vgpu_is_a_guest_with_no_limit_at_work() -> None:
    nvidia = parse_query_text(LICENSED_GUEST)
    assert nvidia.gpus[0].name == "GRID T4-16C"
    assert nvidia.gpus[0].vgpu_license == "Licensed (Expiry: 2021-7-7 10:0:0 GMT)"
    assert vgpu_licence(nvidia) and vgpu_unlicensed(nvidia) == ""


def test_the_xml_section_is_read_too() -> None:
    nvidia = parse_xml(XML_UNLICENSED)
    assert nvidia.gpus[0].vgpu_license == "Unlicensed (Restricted)"
    assert "Unlicensed (Restricted)" in vgpu_unlicensed(nvidia)


def test_a_passed_through_gpu_with_a_licence_is_no_vgpu() -> None:
    nvidia = parse_query_text(PASS_THROUGH_LICENSED)
    assert nvidia.gpus[0].virtualization_mode == "Pass-Through"
    assert vgpu_guest(nvidia, None) == ""


def test_corpus_1372_unlicensed_vgpu_is_an_issue() -> None:
    result = capture_checks("1372", "FW-VM")["FW-VM"]
    assert result.status == "issue"
    assert "License Status : Unlicensed" in result.message


def test_a_licensed_single_vgpu_shows_no_limit_at_work(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, LICENSED_GUEST, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue", result.message
    assert "vGPU guest" in result.message


def test_an_unlicensed_single_vgpu_is_an_issue(tmp_path: Path) -> None:
    text = LICENSED_GUEST.replace("Licensed (Expiry: 2021-7-7 10:0:0 GMT)", "Unlicensed (Restricted)")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status == "issue", result.message
    assert "Unlicensed (Restricted)" in result.message
