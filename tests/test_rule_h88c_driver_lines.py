"""Lines of a user's list or commands that name the running kernel, the module's flavour and MIG's set-up.

- facts/system.STATED_KERNEL: a list's kernel line may name the distribution first (`* CentOS 7.9, Kernel Version:
  \\`5.4.124-1.el7.elrepo.x86_64\\``, corpus 1922); a package's line (`For HWE Package: ..., Kernel Version: ...`) is not
  the running kernel.
- facts/nvidia.STATED_DRIVER: the GPU operator's driver image tag (`nvcr.io/nvidia/driver:460.32.03-centos7`) names
  no loaded driver.
- facts/nvidia.installed_flavour: an apt install of a branch's packages names that branch's flavour (corpus 1835).
- checks/mem._mig_set_up: MIG slicing set up on purpose, with no engine at TP > 1, is not an issue (corpus 1698).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia import STATED_DRIVER, installed_flavour
from stackaudit.facts.system import STATED_KERNEL


@pytest.mark.parametrize(("line", "release"), [
    ("* CentOS 7.9, Kernel Version:  `5.4.124-1.el7.elrepo.x86_64`", "5.4.124-1.el7.elrepo.x86_64"),  # corpus 1922
    ("Manjaro KDE, Kernel Version: 5.4.24-1-MANJARO", "5.4.24-1-MANJARO"),  # real: a project's README
    ("- Kernel: 6.17.0-1014-nvidia", "6.17.0-1014-nvidia"),  # the form that was read before
    ("Kernel Release: `6.8.0-124-generic`", "6.8.0-124-generic"),  # modelled: the release in code marks
])
def test_stated_kernel_lines(line: str, release: str) -> None:
    m = STATED_KERNEL.match(line)
    assert m is not None and m.group(1) == release


@pytest.mark.parametrize("line", [
    # Real (apt's HWE report in a support script's output): a package's kernel, not the one running.
    "For HWE Package: linux-image-generic-hwe-20.04, Kernel Version: 5.15.0.60.66",
    # Modelled: a sentence, not a list's line.
    "I upgraded it, and since then the kernel: 5.4 fails to build the module",
])
def test_not_a_stated_kernel(line: str) -> None:
    assert STATED_KERNEL.match(line) is None


def test_capture_1922_kernel_read_driver_image_not() -> None:
    """Real (capture 1922, NVIDIA/gpu-operator#205): the ELRepo kernel is read; the driver image's tag is no loaded
    driver, so KVER-NVIDIA-KERNEL-COMBOS does not call the pair fine (the driver pod crash-loops)."""
    k = "KVER-NVIDIA-KERNEL-COMBOS"
    r = capture_checks("1922", k)[k]
    assert r.status != "ok"
    assert [m.group(1) for m in STATED_DRIVER.finditer("* NVIDIA Driver Image:  `nvcr.io/nvidia/driver:460.32.03-centos7`")] == []
    assert [m.group(1) for m in STATED_DRIVER.finditer("- NVIDIA driver: 460.32.03")] == ["460.32.03"]


@pytest.mark.parametrize(("text", "want"), [
    # Real (capture 1835, NVIDIA/open-gpu-kernel-modules#116): the open package removed, the proprietary one installed.
    ("$ sudo apt remove nvidia-kernel-open-515  && sudo apt install --reinstall nvidia-dkms-515 && sudo reboot",
     ("proprietary", "515")),
    # Real (an install guide's line): both packages of the 580 branch, proprietary.
    ("sudo apt install nvidia-dkms-580 nvidia-driver-580 -y", ("proprietary", "580")),
    # Real (a README): `sudo apt-get install nvidia-driver-510 nvidia-dkms-510`.
    ("e.g `sudo apt-get install nvidia-driver-510 nvidia-dkms-510`", ("proprietary", "510")),
    # Real (a setup note): the open flavour's packages.
    ("sudo apt install nvidia-dkms-580-open nvidia-driver-580-open", ("open", "580")),
    ("sudo apt-get install nvidia-driver-575-open", ("open", "575")),
])
def test_installed_flavour(text: str, want: tuple[str, str]) -> None:
    found = installed_flavour(text)
    assert found is not None and found[:2] == want


@pytest.mark.parametrize("text", [
    # Real (a guide's dry run before the install): a simulated install installs nothing.
    "apt-get -s install nvidia-driver-595-open linux-modules-nvidia-595-open-generic",
    # Real (a fix note): removing the proprietary package names no flavour installed.
    "sudo apt remove nvidia-dkms-580",
    # Modelled: two flavours installed in one paste name none.
    "sudo apt install nvidia-driver-550\nsudo apt install nvidia-driver-550-open",
    # Modelled: the utilities alone say nothing of the module.
    "sudo apt install nvidia-utils-535",
])
def test_no_installed_flavour(text: str) -> None:
    assert installed_flavour(text) is None


def test_capture_1835_proprietary_on_turing() -> None:
    """Real (capture 1835): nvidia-smi -q shows the 515 driver and an RTX 2060; the install names its flavour."""
    r = capture_checks("1835", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "proprietary" in r.message


def test_install_of_another_branch_names_no_flavour(tmp_path: Path) -> None:
    """Modelled: a 550 driver stated, an install of 535's packages: another branch's flavour says nothing."""
    text = "Driver Version: 550.54.15\n$ sudo apt install nvidia-dkms-535\n"
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert "proprietary" not in r.message


def test_capture_1698_mig_resources_no_engine() -> None:
    """Real (capture 1698, nebuly-ai/nos#21): the device plugin's config names MIG slices as resources
    (`nvidia.com/mig-1g.10gb`), no GPU listing, no engine."""
    r = capture_checks("1698", "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-an-issue" and "nvidia.com/mig-1g.10gb" in r.message


def test_pod_requests_a_mig_slice(tmp_path: Path) -> None:
    """Real line shape (the GPU Operator's MIG guide: a pod's limits `nvidia.com/mig-1g.5gb: 1`)."""
    text = "    resources:\n      limits:\n        nvidia.com/mig-1g.5gb: 1\n"
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-an-issue"


def test_a_whole_pod_spec_requesting_a_mig_slice(tmp_path: Path) -> None:
    """Modelled on the GPU Operator's MIG guide: the pod spec claims its lines whole, and its MIG resource is still
    the slicing set up on purpose (facts/mig_setup.mig_setup_from_spec)."""
    text = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: cuda-vectoradd\nspec:\n  containers:\n  - name: c\n"
            "    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04\n    resources:\n"
            "      limits:\n        nvidia.com/mig-1g.5gb: 1\n")
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-an-issue" and "nvidia.com/mig-1g.5gb" in r.message


def test_strategy_alone_leaves_it_open(tmp_path: Path) -> None:
    """Real line (NVIDIA/k8s-device-plugin#397's helm command): `single` fails on a MIG GPU without instances, which
    nothing here rules out, so the strategy alone settles nothing (corpus 1412, 1727)."""
    text = ("$ helm install --version=0.14.0-rc.3 --generate-name --set migStrategy=single --namespace "
            "nvidia-device-plugin --create-namespace --set gfd.enabled=true nvdp/nvidia-device-plugin\n")
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "unknown"


def test_mig_resource_on_gpus_without_mig(tmp_path: Path) -> None:
    """Modelled: a MIG resource beside T4s named by nvidia-smi -L: the GPUs have no MIG, so not applicable."""
    text = ("$ nvidia-smi -L\nGPU 0: Tesla T4 (UUID: GPU-1c5e0f5a-1f2b-4c3d-8e9f-0a1b2c3d4e5f)\n"
            "        nvidia.com/mig-1g.5gb: 1\n")
    r = paste_checks(tmp_path, text, "MEM-MIG")["MEM-MIG"]
    assert r.status == "not-applicable"
