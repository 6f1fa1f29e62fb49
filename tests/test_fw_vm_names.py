"""FW-VM from names and platforms (h68f): a GPU off device 0 of a non-root bus (pci_address.off_link_slot), a cloud's
default host name (facts/platform.py CLOUD_HOSTNAMES), a laptop's only GPU where nothing names the machine, and a VM
whose only workload is ggml's layer split (checks/fw.py _layer_split_only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.engine.collect import Missing
from stackaudit.facts.platform import cloud_hostname, gpus_from_prompt_host, host_instance
from stackaudit.pci_address import off_link_slot

# Modelled on corpus 1425 (ollama/ollama#835): two T4s on a cloud VM's bus 00.
TWO_T4 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 545.23.08              Driver Version: 545.23.08    CUDA Version: 12.3     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  Tesla T4                       Off | 00000000:00:04.0 Off |                    0 |
| N/A   68C    P0              42W /  70W |   2765MiB / 15360MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
|   1  Tesla T4                       Off | 00000000:00:05.0 Off |                    0 |
| N/A   60C    P0              30W /  70W |   2765MiB / 15360MiB |      0%      Default |
|                                         |                      |                  N/A |
+-----------------------------------------+----------------------+----------------------+
"""


def test_off_link_slot() -> None:
    assert off_link_slot("0000:06:10.0") and off_link_slot("0000:80:02.0") and off_link_slot("0000:10:1c.0")
    # Device 0 below a port (bare metal), and bus 00 (on_root_bus' case), are not.
    assert not off_link_slot("0000:01:00.0") and not off_link_slot("0000:00:04.0")


@pytest.mark.parametrize(("number", "bdf"), [("1455", "0000:80:02.0"), ("909", "0000:06:10.0"),
                                             ("620", "0000:10:1c.0")])
def test_a_gpu_off_device_0_is_a_passed_through_gpu(number: str, bdf: str) -> None:
    vm = fact(pasted(body(number)), "virtualization")
    assert vm.is_vm and f"GPU {bdf}" in vm.source and "device" in vm.source, number


def test_gke_node_l4_at_80_02_is_a_vm_with_one_gpu() -> None:
    # Corpus 1455 (NVIDIA/dcgm-exporter#416): the GKE node's only L4 at 00000000:80:02.0.
    result = capture_checks("1455", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"


@pytest.mark.parametrize(("name", "vm"), [
    ("ip-172-31-92-157", "amazon"),  # corpus 100's journal prefix
    ("ip-10-194-20-228.us-west-2.compute.internal", "amazon"),  # corpus 164
    ("ip-10-0-0-12.ec2.internal", "amazon"),
    ("gke-prod-cluster-gpu-pool-1a2b3c4d-x7k2", "google"),  # modelled on GKE's node naming
    ("aks-gpuworker1-13931626-vmss000001", "microsoft"),  # corpus 930's kernel log
])
def test_cloud_host_names(name: str, vm: str) -> None:
    row = cloud_hostname(name)
    assert row is not None and row.vm == vm and row.source.startswith("https://")


def test_host_names_left_out() -> None:
    # Tencent's CVM default (corpus 1333) may name its bare-metal HCC GPU instances too; a user's own names say nothing.
    for name in ("VM-77-13-ubuntu", "gpu-node-01", "ip-172-31-92", "dgx-a100-01", "gke"):
        assert cloud_hostname(name) is None, name


def test_ec2_host_name_in_a_journal_is_an_ec2_vm() -> None:
    vm = fact(pasted(body("100")), "virtualization")
    assert vm.is_vm and vm.vm == "amazon" and "ip-172-31-92-157" in vm.source
    assert isinstance(fact(pasted(body("1333")), "virtualization"), Missing)


def test_laptop_gpu_alone_is_not_an_issue() -> None:
    # Corpus 1464 (NVIDIA/nvidia-docker#904): nvidia-container-cli info of a GTX 1080 with Max-Q Design.
    vm = fact(pasted(body("1464")), "virtualization")
    assert not vm.is_vm and vm.vm == "" and "Max-Q" in vm.laptop
    assert capture_checks("1464", "FW-VM")["FW-VM"].status == "not-an-issue"


def test_a_laptop_in_the_users_words_holds_one_gpu(tmp_path: Path) -> None:
    """The user's words saying the machine is a laptop (facts/platform.stated_laptop) settle its one GPU where nothing
    else tells the machine; a laptop of another run (a reproduction), a question or several GPUs shown do not."""
    # Corpus 2474 (NVIDIA/open-gpu-kernel-modules#429): `it is working on my laptop` over a cut nvidia-smi table.
    r = capture_checks("2474", "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "on my laptop" in r.message, r.message
    # Corpus 2472 (linux-surface/linux-surface#573): the issue template's `Hardware model: Surface Book 3`.
    r = capture_checks("2472", "FW-VM")["FW-VM"]
    assert r.status == "not-an-issue" and "Surface Book 3" in r.message, r.message
    # Corpus 2418 (another thread): `Now I have a laptop, ... Using RTX4070`.
    assert capture_checks("2418", "FW-VM")["FW-VM"].status == "not-an-issue"
    # Corpus 252: the laptop is where the user reproduced it, not the paste's machine.
    assert capture_checks("252", "FW-VM")["FW-VM"].status == "unknown"
    # Modelled: a question, and a laptop beside two GPUs shown, say no laptop's one GPU.
    asked = "Would it work on my laptop?\n\n$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-0c1d2e3f-1111-2222-3333-444455556666)\n"
    assert paste_checks(tmp_path, asked, "FW-VM")["FW-VM"].status == "unknown"
    two = ("It runs on my laptop.\n\n$ nvidia-smi -L\n"
           "GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-0c1d2e3f-1111-2222-3333-444455556666)\n"
           "GPU 1: NVIDIA GeForce RTX 3060 (UUID: GPU-0c1d2e3f-1111-2222-3333-444455556667)\n")
    assert paste_checks(tmp_path, two, "FW-VM")["FW-VM"].status != "not-an-issue"


def test_laptop_under_wsl_words_is_wsl(tmp_path: Path) -> None:
    # Modelled: the user's words name WSL 2 beside a laptop GPU's name: the stronger source (the words) says the VM.
    text = ("I am running this on WSL2 with Ubuntu 22.04.\n\n$ nvidia-smi -L\n"
            "GPU 0: NVIDIA GeForce RTX 4070 Laptop GPU (UUID: GPU-0c1d2e3f-1111-2222-3333-444455556666)\n")
    vm = fact(pasted(text), "virtualization")
    assert vm.is_vm and vm.wsl and not vm.laptop


def test_two_gpu_vm_serving_ollama_layer_split_is_not_an_issue() -> None:
    # Corpus 1425: the maintainer's `ollama serve` spreads a model over both T4s of a cloud VM.
    result = capture_checks("1425", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "by layers" in result.message


def test_llama_server_row_split_in_a_vm_stays_open(tmp_path: Path) -> None:
    # Modelled: row split sends partial results between the GPUs at every matmul, where P2P matters.
    row = "$ ./llama-server -m model.gguf -ngl 99 --split-mode row\n\n$ nvidia-smi\n" + TWO_T4
    assert paste_checks(tmp_path, row, "FW-VM")["FW-VM"].status == "unknown"
    layer = "$ ./llama-server -m model.gguf -ngl 99\n\n$ nvidia-smi\n" + TWO_T4
    assert paste_checks(tmp_path, layer, "FW-VM")["FW-VM"].status == "not-an-issue"


def test_windows_laptop_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled (test_wsl_query_driver_model's Windows query): Windows' own nvidia-smi -q of a GTX 1650 Ti with Max-Q
    # Design: a Windows host on a laptop, one GPU whether the engine runs on Windows or in WSL 2.
    from test_wsl_query_driver_model import WINDOWS_QUERY

    result = paste_checks(tmp_path, WINDOWS_QUERY, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "Windows host" in result.message and "Max-Q" in result.message


def test_ec2_host_name_in_the_shell_prompts_is_an_ec2_vm() -> None:
    """corpus 1507 (h69d): `[ssm-user@ip-10-0-0-73 ~]$ sudo docker run ...`: the prompts' one host is an EC2 name,
    read after the machine's own sources and the user's words."""
    virt = fact(pasted(body("1507")), "virtualization")
    assert not isinstance(virt, Missing) and virt.vm == "amazon" and "shell prompts" in virt.source


def test_a_vgpu_size_in_the_words_outranks_the_prompts_host_name() -> None:
    """corpus 932: an AKS node's prompt (`aks-...-vmss...`) and `Standard_NV36ads_A10_v5` in the user's words: the
    size names a vGPU guest, which the host name alone does not, so the words' reading stands (FW-VM issue)."""
    assert capture_checks("932", "FW-VM")["FW-VM"].status == "issue"


# Modelled on corpus 1910's systemctl status (NVIDIA/nvidia-docker#1002), typed at a prompt.
_DOCKER_FAILED = """\
systemctl status docker.service
● docker.service - Docker Application Container Engine
   Loaded: loaded (/usr/lib/systemd/system/docker.service; disabled; vendor preset: disabled)
   Active: failed (Result: start-limit) since Wed 2019-06-26 18:47:58 UTC; 32s ago
"""


@pytest.mark.parametrize(("name", "instance"), [
    ("p2_xlarge_instance", "p2.xlarge"),  # corpus 1910's prompt (NVIDIA/nvidia-docker#1002)
    ("g4dn-xlarge-01", "g4dn.xlarge"),  # modelled
    ("train_p4d_24xlarge", "p4d.24xlarge"),  # modelled
    ("a2-highgpu-1g-worker", "a2-highgpu-1g"),  # modelled: Compute Engine's own spelling
    # Modelled counter-examples: no instance type, a type of no documented GPUs, a size no GPU family has.
    ("gpu-node-01", ""), ("m5_large", ""), ("db1_large", ""), ("g5_nano", ""), ("ip-10-0-0-1", ""),
])
def test_host_named_after_an_instance_type(name: str, instance: str) -> None:
    assert host_instance(name) == instance


def test_1910_a_host_named_after_a_p2_xlarge_is_a_one_gpu_ec2_vm() -> None:
    """corpus 1910 (h101a, both readers): `[ec2-user@p2_xlarge_instance ~]$ systemctl status docker.service`: the
    user named the host after its instance type, an EC2 p2.xlarge, whose one K80 its provider documents: a VM of one
    GPU (FW-VM not-an-issue)."""
    virt = fact(pasted(body("1910")), "virtualization")
    assert not isinstance(virt, Missing) and virt.vm == "amazon" and "p2.xlarge" in virt.source
    result = capture_checks("1910", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "1 GPU" in result.message, result.message


def test_a_host_named_after_a_multi_gpu_instance_counts_its_gpus(tmp_path: Path) -> None:
    """Modelled: a g5.12xlarge host's prompt, its four A10Gs (EC2 G5: no P2P between them), nothing else shown."""
    assert gpus_from_prompt_host("g5_12xlarge\tnvidia-smi\n").count == 4
    result = paste_checks(tmp_path, "[ubuntu@g5_12xlarge ~]$ " + _DOCKER_FAILED, "FW-VM")["FW-VM"]
    assert result.status == "issue" and "4 A10G" in result.message, result.message


def test_a_host_named_otherwise_names_no_vm(tmp_path: Path) -> None:
    """Modelled counter-example: an EC2 default user at a host the user named with no instance type."""
    assert isinstance(fact(pasted("[ec2-user@gpu_box ~]$ " + _DOCKER_FAILED), "virtualization"), Missing)


def test_ubuntu_installer_vm_host_name_in_a_bold_prompt_1482() -> None:
    """corpus 1482 (h69d): `**ads-team1@exaleapvrt2-virtual-machine:~/dcgm-exporter$ nvidia-smi`: the prompt opens
    with markdown's unclosed bold mark, and `<user>-virtual-machine` is the host name Ubuntu's installer suggests on
    a QEMU/KVM or VMware guest: a VM with the one GPU its nvidia-smi shows (FW-VM not-an-issue)."""
    assert cloud_hostname("exaleapvrt2-virtual-machine") is not None
    assert cloud_hostname("virtual-machine-builder") is None  # modelled: the words elsewhere in a name
    result = capture_checks("1482", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue" and "1 GPU" in result.message


# --- lspci's devices that only a hypervisor presents (h83c) ----------------------------------------------------------

# elasticluster/elasticluster#504 (a Compute Engine VM with a GPU), its `lspci -v` and `lspci -vnn` openings.
GCE_LSPCI_V = """\
00:00.0 Host bridge: Intel Corporation 440FX - 82441FX PMC [Natoma] (rev 02)
\tSubsystem: Red Hat, Inc Qemu virtual machine
\tFlags: medium devsel

00:03.0 Non-VGA unclassified device: Red Hat, Inc Virtio SCSI
\tSubsystem: Red Hat, Inc Device 0008
\tPhysical Slot: 3
\tFlags: bus master, fast devsel, latency 0, IRQ 11
\tKernel driver in use: virtio-pci

00:04.0 Ethernet controller: Red Hat, Inc Virtio network device
\tSubsystem: Red Hat, Inc Device 0001
\tPhysical Slot: 4
\tKernel driver in use: virtio-pci
"""
GCE_LSPCI_VNN = """\
00:00.0 Host bridge [0600]: Intel Corporation 440FX - 82441FX PMC [Natoma] [8086:1237] (rev 02)
\tSubsystem: Red Hat, Inc Qemu virtual machine [1af4:1100]
\tFlags: medium devsel

00:03.0 Non-VGA unclassified device [0000]: Red Hat, Inc Virtio SCSI [1af4:1004]
\tSubsystem: Red Hat, Inc Device [1af4:0008]
\tKernel driver in use: virtio-pci
"""
# Modelled: a bare-metal server whose BlueField DPU presents virtio-net functions to the host, beside its GPU.
BLUEFIELD_HOST = """\
17:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)
b1:00.0 Ethernet controller: Mellanox Technologies MT42822 BlueField-2 integrated ConnectX-6 Dx network controller (rev 01)
b1:00.2 Ethernet controller: Red Hat, Inc. Virtio network device (rev 01)
"""


def test_lspci_of_vmware_paravirtual_devices_names_a_vmware_guest() -> None:
    # Corpus 1822 (NVIDIA/gpu-operator, an OpenShift worker): PVSCSI and VMXNET3 beside its one V100.
    vm = fact(pasted(body("1822")), "virtualization")
    assert vm.vm == "vmware" and "PVSCSI" in vm.source


@pytest.mark.parametrize("text", [GCE_LSPCI_V, GCE_LSPCI_VNN])
def test_lspci_of_virtio_devices_names_a_qemu_guest(text: str) -> None:
    from stackaudit.facts.lspci import parse_lspci
    from stackaudit.facts.platform import hypervisor_device

    found = hypervisor_device(parse_lspci(text).devices)
    assert found is not None and found[0].vm == "kvm" and found[1].bdf.endswith("00:03.0")


def test_virtio_beside_a_bluefield_or_a_physical_listing_names_no_hypervisor() -> None:
    from stackaudit.facts.lspci import parse_lspci
    from stackaudit.facts.platform import hypervisor_device

    assert hypervisor_device(parse_lspci(BLUEFIELD_HOST).devices) is None
    assert hypervisor_device(parse_lspci(BLUEFIELD_HOST.splitlines()[0] + "\n").devices) is None


@pytest.mark.parametrize(("line", "vm"), [
    # corpus 1817 (triton-inference-server/server, a GKE 1.16 node)
    ("We are trying to deploy the 20.09 version of triton inference server to GKE. We are on GKE version 1.16, "
     "which has NVIDIA driver 418.67.", "google"),
    # huggingface/text-generation-inference#405's title
    ("Unable to serve tiiuae/falcon-40b-instruct on EKS G5 nodes", "amazon"),
    # vllm-project/vllm#11139's title
    ("[Bug]: vllm using ray in eks hangs when using --pipeline_parallel_size > 1", "amazon"),
])
def test_a_workload_on_a_managed_kubernetes_service_is_on_its_cloud_vms(line: str, vm: str) -> None:
    from stackaudit.facts.platform import platform_words

    said = platform_words(line)
    assert said is not None and said.vm == vm, line


@pytest.mark.parametrize("line", [
    "GPU support on GKE not available",  # kubeflow/kubeflow#1246's title: a negation
    "We plan to move the cluster to GKE next quarter",  # modelled: a plan
])
def test_a_managed_kubernetes_service_not_in_use_states_no_vm(line: str) -> None:
    from stackaudit.facts.platform import platform_words

    assert platform_words(line) is None, line


# Modelled on corpus 2269's lines (chungyiweng/humannerf#87) on a Linux host named by hand: the same warning.
NAMED_LINUX_HOST = """\
gpu-box:1582:1582 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>
NCCL version 2.7.8+cuda10.2
gpu-box:1582:1705 [0] graph/xml.cc:332 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:01/../../0000:01:00.0
gpu-box:1582:1705 [0] NCCL INFO graph/xml.cc:469 -> 2
"""


def test_a_windows_machine_name_beside_a_gpu_off_sysfs_is_wsl_2269(tmp_path: Path) -> None:
    """Corpus 2269: NCCL on `DESKTOP-KQ38CGS` finds no sysfs path for its GPU: WSL 2, which hands Linux the GPU without
    its PCI tree, and where this NCCL fails its init (both readers: issue). The name alone (corpus 1246), the missing
    path on a host named otherwise (modelled) or on a cloud VM (corpus 1236, its bus id unread) say no VM."""
    from stackaudit.facts.platform import WINDOWS_MACHINE_NAME

    r = capture_checks("2269", "FW-VM")["FW-VM"]
    assert r.status == "issue" and "WSL 2" in r.message and "Could not find real path" in r.message, r.message
    assert WINDOWS_MACHINE_NAME.fullmatch("LAPTOP-UDGOEVA7") and not WINDOWS_MACHINE_NAME.fullmatch("desktop-pc")
    for capture in ("1246", "1236"):
        assert capture_checks(capture, "FW-VM")["FW-VM"].status == "unknown", capture
    assert paste_checks(tmp_path, NAMED_LINUX_HOST, "FW-VM")["FW-VM"].status == "unknown"
    wsl = NAMED_LINUX_HOST.replace("gpu-box", "DESKTOP-KQ38CGS")
    assert paste_checks(tmp_path, wsl, "FW-VM")["FW-VM"].status == "issue"
