"""FW checks readable from the OS: FW-IOMMU-MODE, FW-VM, FW-NUMA-NPS (knowledge base, domain FW)."""

from __future__ import annotations

from stackaudit.engine.testing import run_checks
from stackaudit.host.memory import fake_host

GPU_A, GPU_B = "0000:41:00.0", "0000:c1:00.0"
LSCPU_EPYC = """Architecture:            x86_64
CPU(s):                  256
Vendor ID:               AuthenticAMD
Model name:              AMD EPYC 9554 64-Core Processor
CPU family:              25
Model:                   17
Thread(s) per core:      2
Core(s) per socket:      64
Socket(s):               2
NUMA node(s):            8
Flags:                   fpu vme de pse tsc msr pae
"""
LSCPU_KVM = LSCPU_EPYC.replace("Flags:                   fpu", "Hypervisor vendor:       KVM\nVirtualization type:     full\nFlags:                   hypervisor fpu")


def _gpu_files(group_type: str | None, numa: str = "0") -> tuple[dict[str, str], dict[str, str]]:
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    for n, bdf in enumerate((GPU_A, GPU_B)):
        real = f"/sys/devices/pci0000:{n}0/0000:{n}0:01.1/{bdf}"
        links[f"/sys/bus/pci/devices/{bdf}"] = f"../../..{real[4:]}"
        files.update({f"{real}/vendor": "0x10de\n", f"{real}/device": "0x2bb1\n", f"{real}/class": "0x030200\n",
                      f"{real}/numa_node": f"{numa}\n"})
        if group_type is not None:
            links[f"{real}/iommu_group"] = f"../../../../kernel/iommu_groups/{30 + n}"
            files[f"/sys/kernel/iommu_groups/{30 + n}/type"] = group_type + "\n"
    return files, links


def _host(group_type: str | None, cmdline: str = "BOOT_IMAGE=/vmlinuz ro", dmesg: str = "", lscpu: str = LSCPU_EPYC,
          numa: str = "0"):  # type: ignore[no-untyped-def]
    files, links = _gpu_files(group_type, numa)
    files["/proc/cmdline"] = cmdline + "\n"
    for node in range(2):
        files[f"/sys/devices/system/node/node{node}/cpulist"] = f"{node * 64}-{node * 64 + 63}\n"
    commands = {"lscpu": lscpu, "dmesg": dmesg, ("systemd-detect-virt", "--vm"): "none\n"}
    if "Hypervisor" in lscpu:
        commands[("systemd-detect-virt", "--vm")] = "kvm\n"
    return fake_host(files=files, links=links, commands=commands)


def test_iommu_translating_gpus_is_an_issue() -> None:
    r = run_checks(_host("DMA-FQ"), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "issue" and r.severity == "high" and r.priority == "P1"
    assert set(r.subjects) == {GPU_A, GPU_B} and "iommu=pt" in (r.fix.persistent if r.fix else "")


def test_iommu_identity_is_ok_and_points_to_acs() -> None:
    r = run_checks(_host("identity", "ro iommu=pt"), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "ok" and "FW-ACS-P2P" in r.message


def test_iommu_off_is_ok() -> None:
    r = run_checks(_host(None), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "ok" and r.actual == "off"


def test_amd_iommu_on_is_named_a_harmless_no_op() -> None:
    """Correction in the KB: `amd_iommu=on` is not a valid value (drivers/iommu/amd/init.c)."""
    r = run_checks(_host("identity", "ro amd_iommu=on iommu=pt"), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "ok" and "not a valid value" in r.message


def test_iommu_fault_naming_a_gpu_is_an_issue_even_in_passthrough() -> None:
    dmesg = "[ 812.1] AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x1f000 flags=0x0020 device=41:00.0]\n"
    r = run_checks(_host("identity", "ro iommu=pt", dmesg=dmesg), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "issue" and "faults" in r.message and r.evidence


def test_iommu_in_a_vm_is_not_applicable_and_one_gpu_too() -> None:
    r = run_checks(_host("DMA", lscpu=LSCPU_KVM), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "not-applicable"
    one = fake_host(files={"/sys/devices/x/0000:01:00.0/vendor": "0x10de", "/sys/devices/x/0000:01:00.0/class": "0x030000"},
                    links={"/sys/bus/pci/devices/0000:01:00.0": "../../../devices/x/0000:01:00.0"})
    assert run_checks(one, ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"].status == "not-applicable"


def test_vm_with_several_gpus_is_unknown_with_hint_and_bare_metal_ok() -> None:
    vm = run_checks(_host("DMA", lscpu=LSCPU_KVM), ["FW-VM"])["FW-VM"]
    assert vm.status == "unknown" and "topo -p2p" in vm.hint
    assert run_checks(_host("DMA"), ["FW-VM"])["FW-VM"].status == "ok"


def test_a_vm_with_one_gpu_or_one_rank_loses_no_p2p() -> None:
    """The VM is there, harmless for P2P: not an issue (real: corpus 256, an Azure VM whose NCCL comm has one rank)."""
    files = {"/sys/devices/x/0000:00:08.0/vendor": "0x10de", "/sys/devices/x/0000:00:08.0/class": "0x030000"}
    one_gpu = fake_host(files=files, links={"/sys/bus/pci/devices/0000:00:08.0": "../../../devices/x/0000:00:08.0"},
                        commands={("systemd-detect-virt", "--vm"): "kvm\n"})
    r = run_checks(one_gpu, ["FW-VM"])["FW-VM"]
    assert r.status == "not-an-issue" and "1 GPU" in r.message


def test_a_vm_whose_matrix_hides_the_sockets_is_an_issue() -> None:
    """Real: corpus 215 (NVIDIA/nccl#1298, g5.48xlarge: every GPU on NUMA 0-1, all PHB; the maintainer's fix is the
    instance's NCCL topology file). Modelled counter-examples: a single-socket VM (g5.12xlarge, where an AWS engineer
    says autodetection needs no file: aws/aws-ofi-nccl#466) asks for no topology file; bare metal is ok."""
    from corpus import body, pasted
    from test_topology_parsers import _pcie, make_topo

    r = run_checks(pasted(body("215")), ["FW-VM"])["FW-VM"]
    assert r.status == "issue" and "0-1" in r.message and "NCCL_TOPO_FILE" in r.expected
    hidden = make_topo(_pcie(4, lambda i, j: "PHB"), ["0-191"] * 4, ["0-1"] * 4)
    one_socket = make_topo(_pcie(4, lambda i, j: "PHB"), ["0-47"] * 4, ["0"] * 4)
    # The g5.12xlarge's four A10Gs (facts/platform.GPU_INSTANCES) are an issue of their own (no P2P in G5 VMs, corpus
    # 408), never the hidden sockets' (no topology file asked).
    single = run_checks(pasted("a g5.12xlarge\n$ nvidia-smi topo -m\n" + one_socket), ["FW-VM"])["FW-VM"]
    assert single.status == "issue" and "A10G" in single.message and "NCCL_TOPO_FILE" not in single.expected
    lscpu = ("$ lscpu\nArchitecture:            x86_64\nCPU(s):                  192\nVendor ID:               "
             "AuthenticAMD\nModel name:              AMD EPYC 7R32\nThread(s) per core:      2\n"
             "Core(s) per socket:      48\nSocket(s):               2\nNUMA node(s):            2\n"
             "Flags:                   fpu vme de pse tsc msr pae\n")
    bare = pasted(lscpu + "$ nvidia-smi topo -m\n" + hidden)
    assert run_checks(bare, ["FW-VM"])["FW-VM"].status == "ok"


def test_numa_layout_reported_and_missing_locality_flagged() -> None:
    good = run_checks(_host("identity"), ["FW-NUMA-NPS"])["FW-NUMA-NPS"]
    assert good.status == "ok" and "NPS1" in good.message
    bad = run_checks(_host("identity", numa="-1"), ["FW-NUMA-NPS"])["FW-NUMA-NPS"]
    assert bad.status == "issue" and set(bad.subjects) == {GPU_A, GPU_B} and bad.priority == "P2"


def test_iommu_translating_on_an_nvswitch_system_is_not_an_issue() -> None:
    """KB FW-IOMMU-MODE: "Not relevant to NVLink/NVSwitch traffic"; "NVLink/NVSwitch traffic does not go
    through the IOMMU"."""
    files, links = _gpu_files("DMA")
    real = "/sys/devices/pci0000:90/0000:90:01.1/0000:91:00.0"
    links["/sys/bus/pci/devices/0000:91:00.0"] = "../../.." + real[4:]
    files.update({f"{real}/vendor": "0x10de\n", f"{real}/class": "0x068000\n", f"{real}/device": "0x22a3\n",
                  "/proc/cmdline": "ro\n"})
    host = fake_host(files=files, links=links, commands={("systemd-detect-virt", "--vm"): "none\n", "dmesg": ""})
    r = run_checks(host, ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "not-an-issue" and "NVLink" in r.message and set(r.subjects) == {GPU_A, GPU_B}


def test_iommu_groups_not_in_the_source_is_unknown_never_off() -> None:
    """A snapshot without /sys/kernel/iommu_groups cannot tell "IOMMU off" (KB general rule 2)."""
    from stackaudit.host.memory import HostRecord, MemoryHost

    files, links = _gpu_files(None)
    rec = HostRecord(meta={"hostname": "h", "uid": 0, "source": "snapshot"})
    rec.files.update({k: v.encode() for k, v in files.items()})
    rec.files["/proc/cmdline"] = b"ro\n"
    rec.links.update(links)
    rec.dirs["/sys/bus/pci/devices"] = [GPU_A, GPU_B]
    r = run_checks(MemoryHost(rec), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"]
    assert r.status == "unknown" and "group types could not be read" in r.message


def test_the_drivers_iovas_teardown_is_no_iommu_fault() -> None:
    # Corpus 876 (NVIDIA/open-gpu-kernel-modules#1058): `iovaspaceDestruct_IMPL: 1 left-over mappings in IOVAS
    # 0x100` after a failed GSP boot is the driver's own IO address space, the log's one IOMMU-looking line.
    from corpus import capture_checks

    r = capture_checks("876", "FW-IOMMU-MODE")["FW-IOMMU-MODE"]
    assert r.status == "not-an-issue" and "iovaspaceDestruct_IMPL" in r.message and "not a DMAR" in r.message


def test_an_iovas_line_beside_a_real_iommu_fault_is_no_key_negative() -> None:
    # Modelled counter-example: the same line beside a DMAR fault: the log shows an IOMMU fault, so no key negative.
    from stackaudit.host.memory import MemoryHost
    from stackaudit.importers.recognition import recognise

    iovas = "[   81.969336] NVRM: GPU0 iovaspaceDestruct_IMPL: 1 left-over mappings in IOVAS 0x100\n"
    dmar = ("[   82.001000] DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0xfee00000 "
            "[fault reason 0x05] PTE Write access is not set\n")
    assert run_checks(MemoryHost(recognise(iovas).record), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"].status == "not-an-issue"
    assert run_checks(MemoryHost(recognise(iovas + dmar).record), ["FW-IOMMU-MODE"])["FW-IOMMU-MODE"].status != \
        "not-an-issue"
