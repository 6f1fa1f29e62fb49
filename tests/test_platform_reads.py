"""Issue 28, what a paste shows of the platform: bare metal from the lscpu lines where lscpu prints `Hypervisor
vendor:` (facts/system.py hypervisor_span_shown), WSL 2 in the user's words (facts/platform.py PLATFORM_WORDS), and
a CPU subject the engine reports not applicable where lscpu names another vendor (facts/applicability.py
CPU_SUBJECTS, KERN-AMD-PSTATE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.platform import platform_words, virtualization_from_user_words, wsl1_kernel
from stackaudit.facts.system import hypervisor_span_shown, kernel_from_stated_line

# lscpu excerpts that start below `Architecture:` (so not whole), each from a different public thread.
# cloud-hypervisor/cloud-hypervisor#1769, the host (flat layout, bare metal):
CLOUD_HYPERVISOR_HOST = """\
CPU(s):                          4
Thread(s) per core:              2
Socket(s):                       1
Vendor ID:                       GenuineIntel
Model name:                      Intel(R) Core(TM) i5-6260U CPU @ 1.80GHz
BogoMIPS:                        3600.00
Virtualization:                  VT-x
L1d cache:                       64 KiB
L1i cache:                       64 KiB
"""
# util-linux/util-linux#1258, an aarch64 server (flat layout, bare metal):
UTIL_LINUX_ARM = """\
CPU(s):              128
Thread(s) per core:  1
Core(s) per socket:  64
Socket(s):           2
Vendor ID:           0x70
BogoMIPS:            100.00
L1d cache:           32K
L1i cache:           32K
"""
# util-linux/util-linux#685, a z/VM guest (flat layout: the hypervisor between BogoMIPS and the caches):
UTIL_LINUX_ZVM = """\
CPU(s):              1
Thread(s) per core:  1
Core(s) per socket:  1
Vendor ID:           IBM/S390
BogoMIPS:            20325.00
Hypervisor vendor:   IBM
Virtualization type: full
L1d cache:           128K
"""


@pytest.mark.parametrize("text", [CLOUD_HYPERVISOR_HOST, UTIL_LINUX_ARM, UTIL_LINUX_ZVM])
def test_the_hypervisor_lines_are_shown(text: str) -> None:
    assert hypervisor_span_shown(text)


def test_an_excerpt_cut_before_the_caches_shows_nothing() -> None:
    """Modelled: the same host's lines cut after BogoMIPS; a Hypervisor vendor line may follow."""
    assert not hypervisor_span_shown(CLOUD_HYPERVISOR_HOST.split("Virtualization:")[0])


@pytest.mark.parametrize("text", [CLOUD_HYPERVISOR_HOST, UTIL_LINUX_ARM])
def test_fw_vm_bare_metal_from_the_lines_shown(tmp_path: Path, text: str) -> None:
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert result.status == "ok"
    assert "no hypervisor" in result.message


def test_fw_vm_reads_the_guest(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, UTIL_LINUX_ZVM, "FW-VM")["FW-VM"]
    assert result.status == "unknown"
    assert "virtual machine (ibm)" in result.message


def test_fw_vm_corpus_404_bare_metal() -> None:
    """Corpus 404 (vllm-project/vllm#13188): a 4-socket Xeon's lscpu cut in its NUMA lines, after the caches."""
    assert "no hypervisor" in capture_checks("404", "FW-VM")["FW-VM"].message


@pytest.mark.parametrize("line", [
    # ollama/ollama#4726 (corpus 376)
    "I am using Ollama in a container built from the nvidia/cuda:12.6.1-cudnn-devel-ubuntu22.04 image. The container "
    "is running in WSL2.",
    # Luce-Org/lucebox#84 (corpus 170): the software list
    "WSL 2 Ubuntu-20.04.",
    # vllm-project/vllm#9293 (corpus 86) names its platform the same way
    "Running vLLM on WSL2 with an RTX 4070 Laptop GPU",
])
def test_wsl2_in_the_users_words_is_a_hyper_v_vm(line: str) -> None:
    assert virtualization_from_user_words(line + "\n").vm == "microsoft"


@pytest.mark.parametrize("line", [
    # Modelled: a comparison, a negation and a question state nothing of this machine.
    "It runs fine natively, unlike WSL2.",
    "This is not WSL2, it is a native Ubuntu install.",
    "Does it work in WSL2?",
])
def test_wsl2_mentions_state_nothing(line: str) -> None:
    assert platform_words(line) is None


def test_fw_vm_corpus_376_reads_wsl2() -> None:
    """Corpus 376: the VM is read from the user's words; its nvidia-smi table ends at the border after GPU 0, before
    its Processes box, and no source shows more: the VM's one GPU has no peer."""
    result = capture_checks("376", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "virtual machine (microsoft) with 1 GPU" in result.message


# An AMD CPU subject: lscpu naming another vendor makes KERN-AMD-PSTATE not applicable without cpufreq.
def test_amd_pstate_not_applicable_on_intel() -> None:
    """Corpus 404 (vllm-project/vllm#13188): an Intel Xeon Gold 6130, no cpufreq in the paste."""
    result = capture_checks("404", "KERN-AMD-PSTATE")["KERN-AMD-PSTATE"]
    assert result.status == "not-applicable"
    assert "Intel" in result.message


@pytest.mark.parametrize("text", [CLOUD_HYPERVISOR_HOST, UTIL_LINUX_ZVM.replace("IBM/S390", "GenuineIntel")])
def test_amd_pstate_not_applicable_on_other_vendors(tmp_path: Path, text: str) -> None:
    assert paste_checks(tmp_path, text, "KERN-AMD-PSTATE")["KERN-AMD-PSTATE"].status == "not-applicable"


def test_amd_pstate_stays_unknown_on_amd(tmp_path: Path) -> None:
    """Modelled: an AMD EPYC's lscpu without cpufreq: the subject is there, the check cannot judge."""
    text = CLOUD_HYPERVISOR_HOST.replace("GenuineIntel", "AuthenticAMD").replace(
        "Intel(R) Core(TM) i5-6260U CPU @ 1.80GHz", "AMD EPYC 9374F 32-Core Processor")
    assert paste_checks(tmp_path, text, "KERN-AMD-PSTATE")["KERN-AMD-PSTATE"].status == "unknown"


def test_amd_pstate_open_without_a_vendor(tmp_path: Path) -> None:
    """Modelled: an lscpu excerpt that names no vendor leaves the subject open."""
    text = "".join(ln + "\n" for ln in UTIL_LINUX_ARM.splitlines() if not ln.startswith("Vendor"))
    assert paste_checks(tmp_path, text, "KERN-AMD-PSTATE")["KERN-AMD-PSTATE"].status == "unknown"


# lscpu's `Hypervisor vendor:` line on its own (SGLang's check_env copies it from lscpu), and a VM whose GPUs meet
# over NVLink in every pair the matrix shows (facts/topology.py TopoMatrix.nvlink_between_shown).
TOPO_2_NV = """\
        GPU0    GPU1    CPU Affinity    NUMA Affinity
GPU0     X      NV4     0-31    0
GPU1    NV4      X      0-31    0
"""


def test_fw_vm_369_kvm_line_and_nvlink() -> None:
    """Corpus 369 (sgl-project/sglang#2889): check_env's `Hypervisor vendor: KVM`, GPU0 NV8 to its seven peers."""
    result = capture_checks("369", "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"
    assert "virtual machine (kvm)" in result.message and "NVLink" in result.message


def test_a_lone_hypervisor_line_is_a_vm(tmp_path: Path) -> None:
    """Modelled: the line as check_env prints it, beside a two-GPU NVLink-bridged matrix."""
    result = paste_checks(tmp_path, "Hypervisor vendor: KVM\nulimit soft: 1048576\n\n" + TOPO_2_NV, "FW-VM")["FW-VM"]
    assert result.status == "not-an-issue"


def test_a_pcie_pair_keeps_the_vm_open(tmp_path: Path) -> None:
    """Modelled counter-example: one pair over PHB: P2P there depends on the hypervisor."""
    text = "Hypervisor vendor: KVM\n\n" + TOPO_2_NV.replace("NV4", "PHB")
    assert paste_checks(tmp_path, text, "FW-VM")["FW-VM"].status == "unknown"


def test_bare_metal_nvlink_stays_ok(tmp_path: Path) -> None:
    """Modelled: the same matrix beside a whole-span lscpu of a bare-metal host is bare metal (ok)."""
    assert paste_checks(tmp_path, CLOUD_HYPERVISOR_HOST + "\n" + TOPO_2_NV, "FW-VM")["FW-VM"].status == "ok"


# An lscpu excerpt right under its bare command, the user's `...` lines cutting it (importers/system.py
# _under_lscpu_command), and a flags line past the kernel's `hypervisor` flag (facts/system.flags_past_hypervisor).
ELIDED_LSCPU_GUEST = """\
$ lscpu
...
Model name:            Intel(R) Xeon(R) Platinum 8163 CPU @ 2.50GHz
...
Flags:                 fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl cpuid pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch
"""


def test_fw_vm_2486_an_elided_lscpu_flags_line_shows_bare_metal() -> None:
    """Corpus 2486 (ollama/ollama#2332): `$ lscpu`, `...`, Model name, `...`, the whole Flags line without `hypervisor`."""
    from corpus import capture_report, report_spans
    result = capture_checks("2486", "FW-VM")["FW-VM"]
    assert result.status == "ok"
    assert "no `hypervisor` flag" in result.message
    assert ("lscpu", 5, 9) in report_spans(capture_report("2486"))


@pytest.mark.parametrize("prefix", ["1788", "1797"])
def test_fw_vm_a_cut_flags_line_past_the_hypervisor_flag(prefix: str) -> None:
    """Corpus 1788 (lscpu cut inside Flags) and 1797 (/proc/cpuinfo): flags past lahf_lm, no `hypervisor`."""
    assert capture_checks(prefix, "FW-VM")["FW-VM"].status == "ok"


def test_an_elided_lscpu_of_a_guest_reads_the_vm(tmp_path: Path) -> None:
    """Modelled on corpus 2477's flags: the same excerpt's flags with `hypervisor` is a guest."""
    result = paste_checks(tmp_path, ELIDED_LSCPU_GUEST, "FW-VM")["FW-VM"]
    assert "virtual machine" in result.message


def test_a_flags_line_cut_before_the_hypervisor_flag_shows_nothing(tmp_path: Path) -> None:
    """Modelled: the flags cut at `rdrand`, where `hypervisor` would come next: no reading of the machine."""
    cut = ELIDED_LSCPU_GUEST.split(" hypervisor")[0] + "\n"
    result = paste_checks(tmp_path, cut, "FW-VM")["FW-VM"]
    assert result.status == "unknown"
    assert result.message.startswith("could not read virtualization")


# WSL 1 (facts/platform.WSL1_KERNEL): a Hugging Face environment report's platform names the kernel release
# (facts/system.PLATFORM_KERNEL); WSL 1's has no GPU (FW-VM issue) and runs no container engine (CTR-GPU-ACCESS
# not applicable: the program ran in the distro itself).
def test_2662_wsl1_platform_is_an_fw_vm_issue_and_no_container() -> None:
    results = capture_checks("2662", "FW-VM", "CTR-GPU-ACCESS")
    assert results["FW-VM"].status == "issue" and "WSL 1" in results["FW-VM"].message
    assert results["CTR-GPU-ACCESS"].status == "not-applicable"


def test_platform_line_gives_the_kernel_release_of_another_report() -> None:
    # accelerate's report on an EC2 host (corpus 2266): its `- Platform:` names the aws kernel, no WSL.
    assert kernel_from_stated_line("- Platform: Linux-6.2.0-1014-aws-x86_64-with-glibc2.35").release == "6.2.0-1014-aws"
    results = capture_checks("2266", "FW-VM", "KVER-NVIDIA-KERNEL-COMBOS")
    assert "kernel 6.2.0-1014-aws" in results["KVER-NVIDIA-KERNEL-COMBOS"].message
    assert "WSL 1" not in results["FW-VM"].message


@pytest.mark.parametrize("release", ["4.19.128-microsoft-standard", "5.15.153.1-microsoft-standard-WSL2",
                                     "4.4.0-210-generic", "4.4.0-19041-microsoft-custom"])
def test_modelled_other_kernels_are_not_wsl1(release: str) -> None:
    assert not wsl1_kernel(release)


def test_modelled_wsl2_platform_line_is_no_wsl1_issue(tmp_path: Path) -> None:
    text = ("- `diffusers` version: 0.20.0\n- Platform: Linux-5.15.90.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\n"
            "- Python version: 3.10.12\n- PyTorch version (GPU?): 2.0.1+cu118 (True)\n")
    assert wsl1_kernel("4.4.0-22621-Microsoft")
    result = paste_checks(tmp_path, text, "FW-VM")["FW-VM"]
    assert "WSL 1" not in result.message
