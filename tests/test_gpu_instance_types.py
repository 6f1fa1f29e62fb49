"""Cloud GPU instance types imply their GPUs (issue 28, blind run X: corpus 578).

An instance type the user's words name (`setting: aws g5.48xlarge`) holds the GPUs its provider documents per size
(facts/platform.GPU_INSTANCES): a count and model in the gpus inventory, a lower bound like a count the user states.
FW-VM then judges an A10G VM of several GPUs (G5 VMs give no P2P between their A10Gs).

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.
"""

from __future__ import annotations

import pytest

from corpus import CAPTURES_DIR, capture_checks, fact
from stackaudit.facts.gpus import GpuInventory
from stackaudit.facts.platform import INSTANCE_TITLE, gpus_from_instance_type, instance_gpus
from stackaudit.gputable import exact_name
from stackaudit.importers.pasted import load_pasted


def _gpus(prefix: str) -> GpuInventory:
    value = fact(load_pasted([str(next(CAPTURES_DIR.glob(prefix + "-*.txt")))]), "gpus")
    assert isinstance(value, GpuInventory)
    return value


@pytest.mark.parametrize(("prefix", "count", "model"), [
    ("578", 8, "A10G"),  # NVIDIA/TensorRT-LLM#1034: "setting: aws g5.48xlarge"
    ("275", 4, "L40S"),  # "AWS Instance: g6e.12xlarge (4xl40s)"
    ("215", 8, "A10G"),  # NVIDIA/nccl#1298: "AWS g5.48xlarge (8 x A10G)"
    ("904", 4, "A100 PCIe 80GB"),  # "VM node:  Standard NC96ads A100 v4 (96 vcpus, 880 GiB memory)": the portal's spaces
])
def test_instance_type_counts_its_gpus(prefix: str, count: int, model: str) -> None:
    gpus = _gpus(prefix)
    assert gpus.count_in(INSTANCE_TITLE) == count
    assert {exact_name(m) for m in gpus.models.values()} == {model}  # nvidia-smi's `NVIDIA L40S` is the same part


def test_fw_vm_a10g_instance_is_an_issue() -> None:
    result = capture_checks("578", "FW-VM")["FW-VM"]
    assert result.status == "issue"
    assert "8 A10G GPUs" in result.message


def test_instance_in_a_contrast_names_no_machine() -> None:
    """corpus 249 (4 T4s under Kubeflow): `Using a a2-highgpu-8g instance works with 8 gpus without any shared
    memory error` speaks of another machine."""
    assert _gpus("249").count_in(INSTANCE_TITLE) is None


@pytest.mark.parametrize("text", [
    "On a m5.16xlarge instance, I'm getting this error\n",  # corpus 66: a family without GPUs
    "It runs on g5.8xlarge and on p4d.24xlarge\n",  # modelled: two instance types, neither is the machine alone
    "g4dn.metal\n",  # modelled: a bare-metal size is not a VM size of the table
])
def test_no_instance_count(text: str) -> None:
    from stackaudit.facts._parse import ParseError

    with pytest.raises(ParseError):
        gpus_from_instance_type(text)


@pytest.mark.parametrize(("name", "count", "model"), [
    ("g5.12xlarge", 4, "A10G"), ("g5.8xlarge", 1, "A10G"), ("p4d.24xlarge", 8, "A100 SXM4 40GB"),
    ("a2-highgpu-2g", 2, "A100 SXM4 40GB"), ("g2-standard-96", 8, "L4"), ("Standard_NC48ads_A100_v4", 2,
                                                                          "A100 PCIe 80GB"),
    # The previous generation, as AWS Batch's GPU table lists its sizes, and Azure's V100 sizes (issue 28, h70d).
    ("p2.xlarge", 1, "Tesla K80"), ("p2.8xlarge", 8, "Tesla K80"), ("p2.16xlarge", 16, "Tesla K80"),
    ("p3.2xlarge", 1, "Tesla V100 SXM2 16GB"), ("p3.8xlarge", 4, "Tesla V100 SXM2 16GB"),
    ("p3.16xlarge", 8, "Tesla V100 SXM2 16GB"), ("p3dn.24xlarge", 8, "Tesla V100 SXM2 32GB"),
    ("g3s.xlarge", 1, "Tesla M60"), ("g3.4xlarge", 1, "Tesla M60"), ("g3.16xlarge", 4, "Tesla M60"),
    ("Standard_NC6s_v3", 1, "Tesla V100 PCIe 16GB"), ("NC24rs_v3", 4, "Tesla V100 PCIe 16GB"),
    ("Standard_ND40rs_v2", 8, "Tesla V100 SXM2 32GB"),
])
def test_instance_table(name: str, count: int, model: str) -> None:
    found = instance_gpus(name)
    assert found is not None and (found[0], found[1].model) == (count, model)
    assert instance_gpus("g5.3xlarge") is None  # a size AWS does not sell


@pytest.mark.parametrize("name", ["p3.4xlarge", "p3dn.16xlarge", "p2.2xlarge", "p3.metal", "Standard_NC8s_v3"])
def test_sizes_not_sold_name_no_count(name: str) -> None:
    """Modelled: sizes the providers do not sell in these families name no GPUs."""
    assert instance_gpus(name) is None


@pytest.mark.parametrize(("prefix", "model"), [
    ("1581", "Tesla K80"),  # kubeflow/kubeflow#3617: an eksctl nodegroup's `instanceType: p2.xlarge`
    ("1582", "Tesla V100 SXM2 16GB"),  # awslabs/amazon-eks-ami#1697: a bug template's `- Instance Type(s): p3.2xlarge`
])
def test_one_gpu_instance_settles_vm_and_mig(prefix: str, model: str) -> None:
    """A one-GPU instance type is a VM with no GPU pair to lose P2P between (FW-VM not an issue), and its GPU model
    has no MIG (MEM-MIG not applicable): the blind readings of corpus 1581 and 1582."""
    gpus = _gpus(prefix)
    assert gpus.count_in(INSTANCE_TITLE) == 1 and set(gpus.models.values()) == {model}
    results = capture_checks(prefix, "FW-VM", "MEM-MIG")
    assert results["FW-VM"].status == "not-an-issue"
    assert "an unknown number of" not in results["FW-VM"].message
    assert results["MEM-MIG"].status == "not-applicable"


def test_amd_instance_names_another_vendor() -> None:
    """Modelled: EC2 G4ad instances carry AMD Radeon Pro V520 GPUs, no NVIDIA GPU (facts/platform.OTHER_VENDOR_INSTANCES)."""
    gpus = gpus_from_instance_type("We run the server on a g4ad.4xlarge instance\n")
    assert not gpus.gpus and gpus.others and gpus.others[0].startswith("AMD Radeon Pro V520")
