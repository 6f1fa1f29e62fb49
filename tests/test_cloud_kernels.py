"""Issue 28, name-implied facts: a kernel flavour built for one cloud's or hypervisor's guests (facts/platform.py
CLOUD_KERNELS) says the host is a virtual machine where no stronger source (systemd-detect-virt, lscpu, the GPU's
virtualization mode, DMI) is in the paste."""

from __future__ import annotations

from corpus import body, fact, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts.platform import cloud_kernel

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
