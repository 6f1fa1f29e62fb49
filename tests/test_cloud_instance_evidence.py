"""What a cloud GPU instance's paste proves beyond its type (issue 28, blind ZB: corpus 1580, 1584).

- FW-VM: a VM whose NCCL log connects ranks over its P2P transport (`9[1] -> 8[0] via P2P/IPC`) has its peer path
  inside the guest (corpus 1580, an EKS p5.48xlarge node): not an issue, unless the same log shows P2P failing.
- DRV-OPEN-MODULE: the driver's legacy notice (`NVRM: The NVIDIA Tesla K80 GPU installed in this system is` /
  `supported through the NVIDIA 470.xx Legacy drivers`, corpus 1584, a p2.xlarge) names the release that dropped the
  GPU's generation, not the module's flavour: not an issue.
- gpus: a pasted lspci's bracketed name that is a row of the GPU table (`GK210GL [Tesla K80]`) is the GPU's model, so
  MEM-MIG sees a K80 (no MIG).

Real lines are corpus captures or the public thread named beside them; counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, fact, paste_checks
from stackaudit.facts.gpu_events import parse_legacy_gpus
from stackaudit.facts.gpus import GpuInventory
from stackaudit.importers.pasted import load_pasted

# Modelled on corpus 1580's channel line, on a p3.8xlarge (four V100s).
_NCCL_P2P = ("We run nccl-tests on a p3.8xlarge instance\n"
             "worker-1:21:69 [1] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/IPC\n"
             "worker-1:20:67 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n")


def test_fw_vm_nccl_p2p_inside_the_vm_is_not_an_issue() -> None:
    result = capture_checks("1580", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "8-9" in result.message and "P2P" in result.message


def test_fw_vm_modelled_p2p_channels_on_a_multi_gpu_instance(tmp_path: Path) -> None:
    """Modelled: four V100s of a p3.8xlarge, two of them joined over P2P/IPC with nothing failing."""
    assert paste_checks(tmp_path, _NCCL_P2P, "FW-VM")["FW-VM"].status == "not-an-issue"


def test_fw_vm_p2p_channels_beside_a_p2p_failure_are_not_enough(tmp_path: Path) -> None:
    """Modelled: NCCL's own P2P failure in the same log leaves the channel lines proving nothing."""
    text = _NCCL_P2P + "worker-1:20:67 [0] NCCL INFO Could not enable P2P between dev 0(=1b0) and dev 1(=1c0)\n"
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status != "not-an-issue"


def test_legacy_notice_parsed_whole_and_cut() -> None:
    # charmed-kubernetes/kubernetes-docs#647 quotes the whole notice; corpus 1584 is cut after its first line.
    whole = ["NVRM: The NVIDIA Tesla K80 GPU installed in this system is",
             "NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please",
             "NVRM:  visit http://www.nvidia.com/object/unix.html for more",
             "NVRM:  information.  The 510.47.03 NVIDIA driver will ignore",
             "NVRM:  this GPU.  Continuing probe..."]
    (gpu,) = parse_legacy_gpus(whole)
    assert (gpu.model, gpu.branch, gpu.release) == ("Tesla K80", "470.xx", "510.47.03")
    (cut,) = parse_legacy_gpus(whole[:1])
    assert (cut.model, cut.branch, cut.release) == ("Tesla K80", "", "")
    # The release's refusal by address is another message (gpu_events.RefusedGpu), not a legacy notice.
    assert parse_legacy_gpus(["NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2330) installed in this system is"]) == ()


def test_drv_open_module_legacy_gpu_is_the_release_not_the_flavour() -> None:
    results = capture_checks("1584", "DRV-OPEN-MODULE", "FW-VM", "MEM-MIG")
    assert results["DRV-OPEN-MODULE"].status == "not-an-issue"
    assert "legacy" in results["DRV-OPEN-MODULE"].message
    # The notice is no device the hypervisor mispresents: FW-VM stays not an issue over the one GPU.
    assert results["FW-VM"].status == "not-an-issue"
    assert results["MEM-MIG"].status == "not-applicable"


def test_lspci_bracketed_name_is_the_model() -> None:
    value = fact(load_pasted([str(next(CAPTURES_DIR.glob("1584-*.txt")))]), "gpus")
    assert isinstance(value, GpuInventory)
    assert set(value.models.values()) == {"Tesla K80"}
