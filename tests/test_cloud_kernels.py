"""Issue 28, name-implied facts: a kernel flavour built for one cloud's or hypervisor's guests (facts/platform.py
CLOUD_KERNELS) says the host is a virtual machine where no stronger source (systemd-detect-virt, lscpu, the GPU's
virtualization mode, DMI) is in the paste; so do a GPU on bus 00 of its PCI domain and a cloud instance type in the
user's words (CLOUD_INSTANCES)."""

from __future__ import annotations

import pytest

from corpus import body, fact, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts.platform import cloud_instances, cloud_kernel
from stackaudit.pci_address import from_nccl_bus_id, on_root_bus

# Real: https://github.com/NVIDIA/nvidia-docker/issues/1256 (issue body): `uname -a` of an Ubuntu EC2 instance.
UNAME_AWS = ("Linux ip-172-31-32-87 4.15.0-1057-aws #59-Ubuntu SMP Wed Dec 4 10:02:00 UTC 2019 x86_64 x86_64 "
             "x86_64 GNU/Linux\n")
# Real: https://github.com/NVIDIA/nvidia-docker/issues/738 (issue body): `uname -a` of an Amazon Linux 1 instance.
UNAME_AMZN1 = ("Linux ip-10-79-27-77 4.14.33-51.37.amzn1.x86_64 #1 SMP Thu May 3 20:07:43 UTC 2018 x86_64 x86_64 "
               "x86_64 GNU/Linux\n")


def test_vllm_9293_wsl2_kernel_in_collect_env_is_a_hyper_v_guest() -> None:
    vm = fact(pasted(body("86")), "virtualization")
    assert vm.is_vm and vm.vm == "microsoft" and "5.15.153.1-microsoft-standard-WSL2" in vm.source


def test_uds_core_271_azure_kernel_from_sysctl_osrelease() -> None:
    # The paste is a `sysctl -a` excerpt: kernel.osrelease = 6.5.0-1016-azure is its only kernel name.
    assert fact(pasted(body("88")), "kernel").release == "6.5.0-1016-azure"
    vm = fact(pasted(body("88")), "virtualization")
    assert vm.is_vm and vm.vm == "microsoft" and "linux-azure" in vm.source


def test_nvidia_docker_1256_and_738_ec2_kernels() -> None:
    for text, release in ((UNAME_AWS, "4.15.0-1057-aws"), (UNAME_AMZN1, "4.14.33-51.37.amzn1.x86_64")):
        vm = fact(pasted(text), "virtualization")
        assert vm.is_vm and vm.vm == "amazon" and release in vm.source


def test_nvidia_flavour_of_a_dgx_kernel_implies_nothing() -> None:
    # Capture 123 (collect_env, `Linux-5.15.0-1053-nvidia-x86_64`): NVIDIA's kernel for bare-metal DGX systems.
    assert fact(pasted(body("123")), "kernel").release.endswith("-nvidia")
    assert isinstance(fact(pasted(body("123")), "virtualization"), Missing)


def test_a_whole_lscpu_without_hypervisor_outranks_a_cloud_kernel() -> None:
    # Modelled: an AWS *.metal instance boots the same `-aws` kernel; its whole lscpu shows no hypervisor.
    lscpu = ("$ lscpu\nArchitecture:            x86_64\nCPU(s):                  96\nVendor ID:               "
             "GenuineIntel\nModel name:              Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\n"
             "Thread(s) per core:      2\nCore(s) per socket:      24\nSocket(s):               2\n"
             "NUMA node(s):            2\nFlags:                   fpu vme de pse tsc msr pae\n")
    vm = fact(pasted("$ uname -a\n" + UNAME_AWS + "\n" + lscpu), "virtualization")
    assert not isinstance(vm, Missing)
    assert not vm.is_vm


def test_flavour_table_left_out_oracle_and_generic() -> None:
    # OCI's bare-metal GPU shapes boot `-oracle` kernels: no VM from the name.
    assert cloud_kernel("6.8.0-1013-oracle") is None
    assert cloud_kernel("5.15.0-91-generic") is None
    flavour = cloud_kernel("6.1.0-18-cloud-amd64")
    assert flavour is not None and flavour.source.startswith("https://")


def test_a_gpu_on_bus_00_is_a_passed_through_gpu() -> None:
    """A discrete GPU on bus 00 of its domain sits on a hypervisor's virtual root complex: kata-containers/runtime#2546
    (lspci `00:08.0`, corpus 255), text-generation-inference#2671 (nvidia-smi `00000000:00:1B.0`, 153), and the NCCL
    busIds of awesome-akash#543 (`busId 80`, 74), DeepSeek-Coder-V2#29 (`busId 70`, 126) and azhpc-images#327
    (`busId 100000`: Hyper-V's domain per device, 256)."""
    for number, bdf in (("255", "0000:00:08.0"), ("153", "0000:00:1b.0"), ("74", "0000:00:08.0"),
                        ("126", "0000:00:07.0"), ("256", "0001:00:00.0")):
        vm = fact(pasted(body(number)), "virtualization")
        assert vm.is_vm and f"GPU {bdf}" in vm.source and "bus 00" in vm.source, number


def test_a_gpu_behind_a_root_port_implies_nothing() -> None:
    # Modelled: bare metal puts a PCIe card behind a root port, on a bus numbered after it (01:00.0, e9000).
    lspci = ("$ lspci -nn | grep -i nvidia\n01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 "
             "[GeForce RTX 4090] [10de:2684] (rev a1)\n")
    assert isinstance(fact(pasted(lspci), "virtualization"), Missing)
    nccl = ("host:89405:89405 [3] NCCL INFO comm 0x5623639cf730 rank 3 nranks 4 cudaDev 3 nvmlDev 7 busId e9000 "
            "commId 0x7700714812322fad - Init START\n")
    assert isinstance(fact(pasted(nccl), "virtualization"), Missing)


def test_nccl_bus_ids_in_sysfs_form() -> None:
    assert from_nccl_bus_id("e9000") == "0000:e9:00.0" and from_nccl_bus_id("100000") == "0001:00:00.0"
    assert from_nccl_bus_id("80") == "0000:00:08.0" and from_nccl_bus_id("1e0") == "0000:00:1e.0"
    assert from_nccl_bus_id("zz") == "" and from_nccl_bus_id("9") == ""  # not hex; function 9 is no function
    assert on_root_bus("0001:00:00.0") and not on_root_bus("0000:e9:00.0")


@pytest.mark.parametrize(("number", "name", "vm"), [
    ("215", "g5.48xlarge", "amazon"),  # NVIDIA/nccl#1298
    ("66", "m5.16xlarge", "amazon"),  # the Ray thread of corpus 66
    ("249", "a2-highgpu-8g", "google"),  # the kubeflow thread of corpus 249
])
def test_a_cloud_instance_type_in_the_users_words_is_that_clouds_vm(number: str, name: str, vm: str) -> None:
    found = fact(pasted(body(number)), "virtualization")
    assert found.is_vm and found.vm == vm and found.source.startswith(f"{name} in the user's words")


def test_instance_types_left_out_metal_and_mixed_clouds() -> None:
    # Modelled: AWS's bare-metal types end in `.metal`; words naming two clouds' instances say no one host.
    assert cloud_instances("on a p4d.metal host") == []
    assert [n for n, _ in cloud_instances("Standard NC24ads A100 v4 VM")] == ["Standard NC24ads A100 v4"]
    assert isinstance(fact(pasted("8 x A10G on g5.48xlarge, and a2-highgpu-8g works\n"), "virtualization"), Missing)
