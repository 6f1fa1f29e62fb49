"""One fact, many sources: each source alone answers, absence only from a whole source, provenance
on every result, and the registry's conformance (every source titled, every fact's sources real).

Real outputs come from the corpus (tests/data/captures, each with its public thread); where a test
needs a variant that no thread shows, it is derived from a real one and says so.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from corpus import body, corpus_gaps, corpus_path, fact
from stackaudit.catalogue import explain_check
from stackaudit.checks.registry import load_all as load_checks
from stackaudit.engine.collect import Collector, Missing
from stackaudit.engine.runner import AuditOptions, run_audit
from stackaudit.engine.testing import run_checks
from stackaudit.facts import sources
from stackaudit.facts.registry import load_all as load_facts
from stackaudit.facts.registry import sample_fields
from stackaudit.host.base import CommandResult
from stackaudit.host.memory import add_pasted, fake_host
from stackaudit.host.recording import RecordingHost
from stackaudit.host.snapshot_reader import load_snapshot
from stackaudit.host.snapshot_writer import write_snapshot
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise
from stackaudit.report.json_report import report_to_json
from stackaudit.report.render import render
from stackaudit.report.sections import RenderOptions


def paste(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def one(host, check_id: str):  # type: ignore[no-untyped-def]
    return run_checks(host, [check_id])[check_id]


# --- NUMA: the same machine shown three ways ------------------------------------------------------

# Capture 26 (ktransformers#797): 2x EPYC 9135, `numactl --hardware --cpu-compress`. The sysfs tree and
# the lscpu below show the same machine (modelled from that paste: node CPUs, distances and sizes).
NODE_SYSFS = {
    "/sys/devices/system/node/node0/cpulist": "0-15\n", "/sys/devices/system/node/node1/cpulist": "16-31\n",
    "/sys/devices/system/node/node0/distance": "10 32\n", "/sys/devices/system/node/node1/distance": "32 10\n",
    "/sys/devices/system/node/node0/meminfo": "Node 0 MemTotal:       594010112 kB\n",
    "/sys/devices/system/node/node1/meminfo": "Node 1 MemTotal:       594437120 kB\n",
}
NODE_DIRS = {"/sys/devices/system/node": ["node0", "node1", "possible"]}
LSCPU_SAME_MACHINE = """Architecture:             x86_64
CPU(s):                   32
On-line CPU(s) list:      0-31
Vendor ID:                AuthenticAMD
Model name:               AMD EPYC 9135 16-Core Processor
Thread(s) per core:       1
Core(s) per socket:       16
Socket(s):                2
NUMA:
  NUMA node(s):           2
  NUMA node0 CPU(s):      0-15
  NUMA node1 CPU(s):      16-31
Vulnerabilities:
  Gather data sampling:   Not affected
  Spectre v2:             Mitigation; Enhanced / Automatic IBRS; IBPB conditional; STIBP disabled; RSB filling
"""


def test_the_same_machine_three_ways_gives_one_numa_fact(tmp_path: Path) -> None:
    sysfs = fact(fake_host(files=NODE_SYSFS), "numa")
    numactl = fact(load_pasted([str(corpus_path("26"))]), "numa")
    lscpu = fact(load_pasted([paste(tmp_path, "lscpu.txt", LSCPU_SAME_MACHINE)]), "numa")
    for numa in (sysfs, numactl, lscpu):
        assert [n.cpus for n in numa.nodes] == [tuple(range(16)), tuple(range(16, 32))]
    # Distances and memory where the source shows them; lscpu shows neither, so they stay unknown.
    assert [n.distances for n in sysfs.nodes] == [n.distances for n in numactl.nodes] == [(10, 32), (32, 10)]
    assert [n.distances for n in lscpu.nodes] == [(), ()] and all(n.mem_total_kib is None for n in lscpu.nodes)
    assert numactl.nodes[0].mem_total_kib == 580088 * 1024
    assert (sysfs.sources, numactl.sources, lscpu.sources) == (("/sys/devices/system/node",), ("numactl -H",),
                                                               ("lscpu",))


def test_no_numa_source_names_every_source_tried(tmp_path: Path) -> None:
    host = load_pasted([paste(tmp_path, "uname.txt", "Linux h 6.8.0-45-generic #45-Ubuntu SMP x86_64 GNU/Linux\n")])
    r = one(host, "FW-NUMA-NPS")
    assert r.status == "unknown"
    assert all(t in r.message for t in ("/sys/devices/system/node", "`numactl -H`", "`lscpu`")), r.message
    assert "numactl -H" in r.hint


def test_numa_from_a_pasted_lscpu_decides_numa_balancing(tmp_path: Path) -> None:
    text = LSCPU_SAME_MACHINE + "kernel.numa_balancing = 1\n"
    r = one(load_pasted([paste(tmp_path, "report.txt", text)]), "KERN-NUMA-BALANCING")
    assert r.status == "issue" and "kernel.numa_balancing = 1" in r.message


# --- link width from nvidia-smi -q -x alone ---------------------------------------------------------

def test_link_width_from_nvidia_smi_xml_alone(tmp_path: Path) -> None:
    # Capture 04 (a telegraf fixture of `nvidia-smi -q -x`), with its current width set to 8x: no public
    # thread shows a narrow link in XML, the element and its place are the real ones.
    text = body("04").replace("<current_link_width>16x</current_link_width>",
                              "<current_link_width>8x</current_link_width>")
    assert "<current_link_width>8x" in text
    r = one(load_pasted([paste(tmp_path, "nvsmi.xml.txt", text)]), "PCIE-LINK-DOWNTRAIN")
    assert r.status == "issue" and "x8" in r.message and r.subjects == ("0000:61:00.0",)
    # nvidia-smi shows the GPU's maximum, not the slot's: lower confidence, and what would settle it.
    assert r.confidence == "field-reports" and "lspci -vvv" in r.message
    assert r.provenance and r.provenance[0].source == "nvidia-smi -q -x"


def test_idle_link_from_nvidia_smi_xml_is_power_saving() -> None:
    r = one(load_pasted([str(corpus_path("04"))]), "PCIE-LINK-DOWNTRAIN")
    assert r.status == "not-an-issue" and "idle" in r.message and "Gen4" in r.message


# --- AER from dmesg ----------------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["41", "42"])
def test_aer_errors_from_a_pasted_kernel_log(prefix: str) -> None:
    r = one(load_pasted([str(corpus_path(prefix))]), "FW-AER-ERRORS")
    assert r.status == "issue" and r.severity == "high", r.message
    assert any("Fatal" in e or "fallen off the bus" in e for e in r.evidence)


def test_no_aer_line_in_an_excerpt_is_unknown_not_ok() -> None:
    r = one(load_pasted([str(corpus_path("40"))]), "IC-NVIDIA-PEERMEM")  # a source with no RDMA evidence at all
    assert r.status == "unknown"
    aer = one(load_pasted([str(corpus_path("43"))]), "FW-AER-ERRORS")  # corrected errors only, an excerpt
    assert aer.status != "ok"


# --- RDMA NICs from an NCCL log ----------------------------------------------------------------------

def test_rdma_nics_from_an_nccl_log() -> None:
    host = load_pasted([str(corpus_path("55"))])
    rdma = fact(host, "rdma")
    assert "mlx5_bond_0" in rdma.names and len(rdma.names) == 9 and not rdma.complete
    r = one(host, "IC-NVIDIA-PEERMEM")
    assert "whether this host has RDMA NICs" not in r.message and "mlx5_bond_0" in r.message


# --- a GPU that fell off the bus, without an Xid number -----------------------------------------------

def test_fallen_off_the_bus_without_an_xid_number_is_an_issue() -> None:
    r = one(load_pasted([str(corpus_path("40"))]), "DRV-XID")
    assert r.status == "issue" and r.severity == "high" and r.subjects == ("0000:b3:00.0",)
    assert r.fix is not None and r.fix.cost == "reboot"


# --- excerpt vs whole --------------------------------------------------------------------------------

# A whole kernel log (modelled on Ubuntu 24.04 boot logs): from `Linux version` at 0.000000, through the
# NVIDIA driver's load, with no gap.
WHOLE_DMESG = """[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0, GNU ld (GNU Binutils for Ubuntu) 2.42) #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 (Ubuntu 6.8.0-45.45-generic 6.8.12)
[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=3a5f0d1e ro quiet splash
[    0.000000] KERNEL supported cpus:
[    0.000000]   Intel GenuineIntel
[    0.000000]   AMD AuthenticAMD
[    0.412345] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs" and report a bug
[    5.712034] nvidia: module license 'NVIDIA' taints kernel.
[    5.801234] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06  Release Build  (dvs-builder@U16-I2-C03-12-4)  Thu Feb 27 22:52:35 UTC 2025
[    6.001234] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  570.124.06
[   12.345678] [drm] Initialized nvidia-drm 0.0.0 for 0000:41:00.0 on minor 1
"""


def test_whole_dmesg_without_xid_is_ok_and_its_head_is_unknown(tmp_path: Path) -> None:
    whole = one(load_pasted([paste(tmp_path, "dmesg.txt", WHOLE_DMESG)]), "DRV-XID")
    assert whole.status == "ok", whole.message
    assert whole.provenance[0].whole is True
    head = "\n".join(WHOLE_DMESG.splitlines()[:6]) + "\n"  # `dmesg | head -6`: from boot, but cut
    r = one(load_pasted([paste(tmp_path, "head.txt", head)]), "DRV-XID")
    assert r.status == "unknown" and "excerpt" in r.message
    gap = WHOLE_DMESG.replace("[    0.412345]", "[...]\n[    0.412345]")
    assert one(load_pasted([paste(tmp_path, "gap.txt", gap)]), "DRV-XID").status == "unknown"


def test_grepped_lsmod_proves_no_absence(tmp_path: Path) -> None:
    grepped = "nvidia_uvm           1785856  0\nnvidia              60108800  2 nvidia_uvm\n"
    host = load_pasted([paste(tmp_path, "lsmod.txt", grepped)])
    modules = fact(host, "modules")
    assert "nvidia" in modules and modules.loaded("nvidia_peermem") is None
    whole = load_pasted([paste(tmp_path, "lsmod-whole.txt", "Module                  Size  Used by\n" + grepped)])
    assert fact(whole, "modules").loaded("nvidia_peermem") is False


# --- provenance on results ----------------------------------------------------------------------------

def test_results_carry_provenance_in_json_text_and_markdown(tmp_path: Path) -> None:
    text = "Some chatter first\n" + LSCPU_SAME_MACHINE + "kernel.numa_balancing = 1\n"
    report = run_audit(load_pasted([paste(tmp_path, "bug-report.txt", text)]),
                       AuditOptions(select=["KERN-NUMA-BALANCING"]))
    data = report_to_json(report)
    prov = data["results"][0]["provenance"]
    by_source = {p["source"]: p for p in prov}
    assert by_source["lscpu"] == {"source": "lscpu", "origin": "pasted", "whole": True, "file": "bug-report.txt",
                                  "lines": [2, 16]}
    assert by_source["sysctl"]["lines"] == [17, 17] and by_source["sysctl"]["whole"] is False
    assert data["source"]["files"] == ["bug-report.txt"] and str(tmp_path) not in json.dumps(data)
    for fmt in ("text", "markdown"):
        out = render(report, fmt, options=RenderOptions(verbose=True))
        assert "pasted lscpu (bug-report.txt, lines 2–16)" in out, out
    # Without --verbose too: the issue names where it comes from (the first pasted source, in one line).
    for fmt in ("text", "markdown"):
        assert "from pasted lscpu (bug-report.txt, lines 2–16)" in render(report, fmt)


def test_a_live_read_is_whole_with_no_file() -> None:
    host = fake_host(files=NODE_SYSFS)
    report = run_audit(host, AuditOptions(select=["FW-NUMA-NPS"]))
    prov = report.results[0].provenance
    assert prov and prov[0].source == "/sys/devices/system/node" and prov[0].whole and not prov[0].file


# --- snapshot format 2 -------------------------------------------------------------------------------

def test_pastes_are_recorded_verbatim_under_their_own_keys() -> None:
    record = recognise(body("26")).record
    argv = sources.NUMACTL_H.argv
    assert "node 1 cpus: 16-31 (16)" in record.commands[argv].stdout
    assert not any(p.startswith("/sys/") for p in record.files)
    assert record.provenance["cmd:numactl -H"].whole is True


def test_format_2_snapshot_keeps_documents_and_provenance(tmp_path: Path) -> None:
    pasted = load_pasted([str(corpus_path("55"))])
    out = tmp_path / "snap"
    write_snapshot(pasted.record, str(out))
    assert (out / "doc" / "engine_log.txt").is_file() and (out / "provenance.json").is_file()
    replayed = load_snapshot(str(out))
    assert replayed.record.docs == pasted.record.docs
    assert replayed.record.provenance == pasted.record.provenance
    assert fact(replayed, "rdma").names == fact(pasted, "rdma").names


def test_format_1_snapshot_still_replays(tmp_path: Path) -> None:
    # A format-1 snapshot: no doc/, no provenance.json; every member is a whole live read.
    host = fake_host(files=NODE_SYSFS, strict=True, dirs=NODE_DIRS,
                     commands={"uname -a": "Linux h 6.8.0 #1 SMP x86_64 GNU/Linux\n"})
    recording = RecordingHost(host)
    Collector(recording).results(["numa", "kernel"])
    recording.record.meta = {"format": 1, "hostname": "h", "source": "snapshot"}
    out = tmp_path / "v1.tar.gz"
    write_snapshot(recording.record, str(out))
    replayed = load_snapshot(str(out))
    numa = fact(replayed, "numa")
    assert numa.count == 2 and numa.complete and numa.sources == ("/sys/devices/system/node",)


def test_one_snapshot_plus_pasted_files(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    host = fake_host(files=NODE_SYSFS, strict=True, dirs=NODE_DIRS)
    recording = RecordingHost(host)
    Collector(recording).results(["numa"])
    recording.record.meta = {"format": 2, "hostname": "h", "source": "snapshot"}
    snap = tmp_path / "host.tar.gz"
    write_snapshot(recording.record, str(snap))
    both = add_pasted(load_snapshot(str(snap)), load_pasted([str(corpus_path("55"))]))
    assert fact(both, "numa").count == 2 and "mlx5_bond_0" in fact(both, "rdma").names
    run = cli("audit", "--from", str(snap), "--from", str(corpus_path("55")), "--select", "IC-NVIDIA-PEERMEM",
              "--format", "json")
    assert run.rc == 0, run.err
    data = json.loads(run.out)
    assert data["source"]["files"] == ["host.tar.gz", corpus_path("55").name]
    two = cli("audit", "--from", str(snap), "--from", str(snap))
    assert two.rc == 2 and "at most one snapshot" in two.err


# --- conformance ----------------------------------------------------------------------------------------

def test_every_source_has_a_title_and_a_unique_name() -> None:
    names = [s.name for s in sources.ALL]
    assert len(names) == len(set(names))
    for s in sources.ALL:
        assert s.title and (s.argv or s.path or s.doc or s.nvml), s


def test_every_fact_alternative_names_its_source_and_every_check_fact_exists() -> None:
    facts = load_facts()
    for name, spec in facts.items():
        assert spec.alternatives, name
        for alt in spec.alternatives:
            assert alt.title, f"fact {name}: an alternative without a source title ({alt.summary})"
    for check in load_checks().values():
        for name in (*check.facts, *check.optional_facts):
            assert name in facts, f"{check.id} reads {name!r}, which no provider gives"


def test_every_check_documents_reads_and_a_generated_sources_line() -> None:
    facts = load_facts()
    for check in load_checks().values():
        assert re.search(r"^Reads:", check.doc, re.MULTILINE), check.id
        text = explain_check(check.id)
        line = next(ln for ln in text.splitlines() if ln.startswith("Sources: "))
        for name in check.facts:
            titles = " → ".join(a.title for a in facts[name].alternatives)
            assert f"{name}: {titles}" in line, (check.id, name)


def test_sample_checks_read_sampled_fields() -> None:
    facts = load_facts()
    for check in load_checks().values():
        if not check.sample:
            continue
        kinds = [facts[n].kind for n in (*check.facts, *check.optional_facts)]
        nested = [k for kind in kinds for k in _field_types(kind)]
        assert any(sample_fields(k) for k in [*kinds, *nested]), f"{check.id} says sample but reads no sample field"


def _field_types(kind: type) -> list[type]:
    """Dataclass types nested one level in a fact's fields (GpuInfo in NvidiaGpus.gpus)."""
    if not dataclasses.is_dataclass(kind):
        return []
    import typing

    out = []
    hints = typing.get_type_hints(kind)
    for f in dataclasses.fields(kind):
        for arg in typing.get_args(hints.get(f.name)) or (hints.get(f.name),):
            for inner in typing.get_args(arg) or (arg,):
                if isinstance(inner, type) and dataclasses.is_dataclass(inner):
                    out.append(inner)
    return out


def test_importers_refuse_a_duplicate_kind() -> None:
    import stackaudit.importers.system  # noqa: F401  (registers `lscpu` first, whichever test ran before)
    from stackaudit.importers.registry import importer

    with pytest.raises(ValueError, match="two importers"):
        importer("lscpu", "again")(lambda lines: iter(()))


def test_an_alternative_that_breaks_is_reported_while_another_answers() -> None:
    host = fake_host(files=NODE_SYSFS)
    host.record.commands[("lscpu",)] = CommandResult(("lscpu",), 0, "Architecture: x86_64\n")
    report = run_audit(host, AuditOptions(select=["FW-NUMA-NPS"]))
    assert report.results[0].status != "error"
    assert isinstance(Collector(fake_host()).results(["no_such_fact"])["no_such_fact"], Missing)


# --- whole or excerpt, against the corpus's hand-written labels -------------------------------------

# Kinds whose recognisers decide whole by the output's own markers (the corpus header names them alike).
MARKED_KINDS = ("dmesg", "lsmod", "lscpu", "numactl -H", "nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x",
                "uname -a", "/proc/cmdline")


# Labelled kinds the recognisers judge otherwise than the header: file -> kind -> why.
_WHOLE_GAPS = corpus_gaps("whole_gap")


def _marked_entries() -> list[object]:
    from corpus import load_corpus

    return [e for e in load_corpus() if any(k in e.kinds for k in MARKED_KINDS)]


@pytest.mark.parametrize("entry", _marked_entries(), ids=lambda e: e.path.name[:40])  # type: ignore[attr-defined]
def test_whole_matches_the_corpus_labels(entry) -> None:  # type: ignore[no-untyped-def]
    """Each labelled kind the recognisers mark is whole exactly where the hand-written header says so."""
    record = recognise(entry.body).record
    seen: dict[str, bool] = {}
    for prov in record.provenance.values():
        seen[prov.source] = seen.get(prov.source, False) or prov.whole
    known = _WHOLE_GAPS.get(entry.path.name, {})
    for kind in MARKED_KINDS:
        if kind in entry.kinds and kind in seen:
            matches = seen[kind] == (kind in entry.whole)
            assert matches != (kind in known), (entry.path.name, kind, seen[kind], "listed in [whole_gap]" * matches)


# --- the kernel release from every source that shows it ---------------------------------------------

def test_kernel_release_from_dmesg_cmdline_and_collect_env(tmp_path: Path) -> None:
    # The Proxmox banner as the kernel prints it (modelled on pve-kernel 6.8.12-9's first dmesg line).
    banner = ("[    0.000000] Linux version 6.8.12-9-pve (build@proxmox) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld "
              "(GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z) x86_64\n"
              "[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.12-9-pve root=/dev/mapper/pve-root ro "
              "quiet amd_iommu=on iommu=pt\n")
    host = load_pasted([paste(tmp_path, "dmesg.txt", banner)])
    kernel = fact(host, "kernel")
    assert (kernel.release, kernel.machine) == ("6.8.12-9-pve", "x86_64") and kernel.release_tuple == (6, 8, 12)
    assert fact(host, "cmdline").last("iommu") == "pt"  # the command line the kernel logged at boot
    # Capture 28: /proc/cmdline alone names the booted image; capture 32: collect_env's Python platform.
    assert fact(load_pasted([str(corpus_path("28"))]), "kernel").release == "6.2.10-201.fsync.fc37.x86_64"
    report = run_audit(load_pasted([str(corpus_path("32"))]), AuditOptions(select=["KVER-AMD-ZEN5"]))
    assert report.host["kernel"] == "6.8.0-62-generic"


# --- the driver and torch's CUDA from a pasted collect_env ---------------------------------------------

def test_cuda_compat_from_a_pasted_collect_env(tmp_path: Path) -> None:
    # Capture 86 (a WSL2 collect_env): driver 551.88 with torch 2.4.0+cu121: compatible, ok (a newer driver runs
    # an older runtime; the message says the nvidia-smi header's CUDA is the driver's highest).
    r = one(load_pasted([str(corpus_path("86"))]), "DRV-CUDA-COMPAT")
    assert r.status == "ok" and "551.88" in r.message and "12.1" in r.message
    # The same report with an R470 driver (the issue's example): torch's CUDA 12.1 needs >= 525.60.13.
    old = body("86").replace("Nvidia driver version: 551.88", "Nvidia driver version: 470.129.06")
    r = one(load_pasted([paste(tmp_path, "collect_env.txt", old)]), "DRV-CUDA-COMPAT")
    assert r.status == "issue" and "470.129.06" in r.message and "525.60.13" in r.message


def test_driver_version_and_flavour_from_the_kernel_log() -> None:
    # Capture 40: the open module's banner (`NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01`).
    driver = fact(load_pasted([str(corpus_path("40"))]), "nvidia_driver")
    assert (driver.version, driver.flavour) == ("570.158.01", "open")


def test_bar1_from_nvidia_smi_when_the_pci_side_is_not_in_the_source() -> None:
    # Capture 04: `<bar1_memory_usage><total>131072 MiB</total>` of a 96 GB RTX PRO 6000.
    r = one(load_pasted([str(corpus_path("04"))]), "FW-REBAR-BAR1")
    assert r.status == "ok" and "128 GiB" in r.message and r.subjects == ("0000:61:00.0",)


def test_gpu_virtualization_mode_decides_vm_or_not(tmp_path: Path) -> None:
    # Capture 04: `<virtualization_mode>None</virtualization_mode>` (NVML: a bare-metal GPU).
    r = one(load_pasted([str(corpus_path("04"))]), "FW-VM")
    assert r.status == "ok" and "Virtualization Mode: None" in r.message
    guest = body("04").replace("<virtualization_mode>None</virtualization_mode>",
                               "<virtualization_mode>Pass-Through</virtualization_mode>")
    vm = fact(load_pasted([paste(tmp_path, "vm.xml.txt", guest)]), "virtualization")
    assert vm.is_vm and "Pass-Through" in vm.source


def test_nvlink_health_from_a_pasted_nvlink_status_alone() -> None:
    # Capture 61: `nvidia-smi nvlink -s` of a V100 SXM2 with Link 3 and Link 5 <inactive>.
    r = one(load_pasted([str(corpus_path("61"))]), "DRV-NVLINK-HEALTH")
    assert r.status == "issue" and "4 of 6" in r.message and "3,5" in r.message


def test_header_names_the_containers_a_host_configures() -> None:
    # Capture 24: a Proxmox node's /etc/pve/lxc/2051.conf: the node, seen with its container's config.
    report = run_audit(load_pasted([str(corpus_path("24"))]), AuditOptions(select=["CTR-LXC-DEVICES"]))
    assert report.host["container"] == "none" and report.host["host_of"] == ["proxmox lxc 2051"]
    assert "Container: no — the host of proxmox lxc 2051" in render(report, "text")


# NCCL's INFO line when cudaDeviceCanAccessPeer says no (src/transport/p2p.cc), as NCCL_DEBUG=INFO prints it.
NCCL_NO_P2P = """gpu-node:3381:3381 [0] NCCL INFO NCCL version 2.20.5+cuda12.4
gpu-node:3381:3427 [0] NCCL INFO Could not enable P2P between dev 0(=1000) and dev 1(=2000)
gpu-node:3381:3427 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct
"""
P2P_OK_2 = """        GPU0    GPU1
 GPU0   X       OK
 GPU1   OK      X

Legend:

  X    = Self
  OK   = Status Ok
"""


def test_nccl_could_not_enable_p2p_reaches_the_p2p_check(tmp_path: Path) -> None:
    alone = one(load_pasted([paste(tmp_path, "nccl.log", NCCL_NO_P2P)]), "IC-P2P-FUNCTIONAL")
    # The driver refused peer access on a pair NCCL's topology allows P2P on (tests/test_peer_refusals.py).
    assert alone.status == "issue" and "Could not enable P2P between dev 0" in alone.message
    both = load_pasted([paste(tmp_path, "p2p.txt", "$ nvidia-smi topo -p2p rw\n" + P2P_OK_2), str(tmp_path / "nccl.log")])
    r = one(both, "IC-P2P-FUNCTIONAL")
    assert r.status == "issue" and "driver reports P2P OK" in r.message


def test_gpus_from_an_nccl_tests_header() -> None:
    # Capture 58: an nccl-tests excerpt showing rank 7 on `device  7 [0000:c5:00] NVIDIA L20`: eight local GPUs.
    gpus = fact(load_pasted([str(corpus_path("58"))]), "gpus")
    assert gpus.count == 8 and gpus.by_index(7).bdf == "0000:c5:00.0" and gpus.models[7] == "NVIDIA L20"
    # Capture 55 (older nccl-tests): `[0x52] A100-SXM4-40GB`, the bus number alone.
    old = fact(load_pasted([str(corpus_path("55"))]), "gpus")
    assert old.count == 2 and old.by_index(0).bdf == "0000:52:00.0"


def test_gpus_named_by_the_kernel_log() -> None:
    # Capture 41: `NVRM: Xid (PCI:0000:02:00): 79`: the GPU is known by its address, its count is not.
    gpus = fact(load_pasted([str(corpus_path("41"))]), "gpus")
    assert gpus.bdfs == ("0000:02:00.0",) and gpus.count is None


def test_rdma_nic_from_its_driver_module(tmp_path: Path) -> None:
    # `lsmod | grep -E 'mlx5|ib_'` as bug reports paste it (modelled on a ConnectX-6 host's modules).
    grepped = ("mlx5_ib               466944  0\nib_uverbs             208896  1 mlx5_ib\n"
               "ib_core               516096  2 ib_uverbs,mlx5_ib\nmlx5_core            2314240  1 mlx5_ib\n")
    rdma = fact(load_pasted([paste(tmp_path, "lsmod.txt", grepped)]), "rdma")
    assert rdma.names == ("mlx5_ib (driver loaded)",) and not rdma.complete


def test_hostname_from_log_prefixes(tmp_path: Path) -> None:
    # kern.log lines as capture 76 shows them, with a host name in place of its <redacted>.
    kern = ("Oct  3 14:01:56 gpu-node-7 kernel: [   12.442423] NVRM: loading NVIDIA UNIX x86 Kernel Module  285.03  "
            "Mon Aug 15 02:36:51 PDT 2011\n")
    report = run_audit(load_pasted([paste(tmp_path, "kern.log", kern)]), AuditOptions(select=["DRV-XID"]))
    assert report.host["hostname"] == "gpu-node-7"
    nccl = fact(load_pasted([paste(tmp_path, "nccl.log", NCCL_NO_P2P)]), "hostname")
    assert (nccl.name, nccl.sources) == ("gpu-node", ("server log",))
    redacted = load_pasted([str(corpus_path("56"))])  # `localhost:11326:11326 [0] NCCL INFO`: no name to give
    assert isinstance(fact(redacted, "hostname"), Missing)


def test_cpu_pressure_is_a_sample_in_a_host_fingerprint() -> None:
    from stackaudit.engine.fingerprint import split_fingerprint

    configuration, samples = split_fingerprint({"KERN-SCHED-KNOBS": "CPU PSI some avg10 25.5 %",
                                                "KERN-THP": "always", "host.kernel": "6.8.0"})
    assert set(samples) == {"KERN-SCHED-KNOBS"} and set(configuration) == {"KERN-THP", "host.kernel"}


def test_a_lost_gpu_is_p0_whatever_its_fix_costs() -> None:
    # Capture 41 (Xid 79 and an AER Surprise Down) and capture 40 (fallen off the bus, no Xid number): the
    # fix is a reboot or a reseat, which alone would make them P1; a GPU that is gone comes first.
    for prefix, check_id in (("41", "DRV-XID"), ("41", "FW-AER-ERRORS"), ("40", "DRV-XID")):
        r = one(load_pasted([str(corpus_path(prefix))]), check_id)
        assert r.status == "issue" and r.priority == "P0" and r.fix_cost in ("reboot", "hardware"), (prefix, r.id)
    app = one(fake_host(commands={"dmesg": "[ 10.1] NVRM: Xid (PCI:0000:18:00): 13, pid=991, name=blender, "
                                            "Graphics SM Warp Exception\n"}), "DRV-XID")
    # An application fault is not a lost GPU: reported apart, as information (issue 10).
    assert app.status == "not-an-issue" and app.priority is None
    # The serving stack's own process faulting is the program's too, no lost GPU (tests/test_stack_process_xid.py).
    engine = one(fake_host(commands={"dmesg": "[ 10.1] NVRM: Xid (PCI:0000:18:00): 13, pid=991, name=pt_main_thread, "
                                               "Graphics SM Warp Exception\n"}), "DRV-XID")
    assert engine.status == "not-an-issue" and engine.priority is None


@pytest.mark.parametrize("gap", ["[...]", "<snip>", "<!-- snipped -->", "(12 lines omitted)"])
def test_a_gap_line_inside_nvidia_smi_xml_makes_it_an_excerpt(gap: str) -> None:
    # Capture 04 is whole; a cut marked inside it (as people mark them) leaves an excerpt.
    text = body("04")
    assert recognise(text).record.provenance["cmd:nvidia-smi -q -x"].whole is True
    cut = text.replace("\t\t<fan_speed>", f"{gap}\n\t\t<fan_speed>", 1)
    assert gap in cut
    assert recognise(cut).record.provenance["cmd:nvidia-smi -q -x"].whole is False


def test_a_gap_line_in_a_live_kernel_log_leaves_it_not_whole() -> None:
    from stackaudit.facts.system import kernel_log_is_whole

    lines = WHOLE_DMESG.splitlines()
    assert kernel_log_is_whole(lines)
    for gap in ("[...]", "--", "<snip>", "…", "[ ... ]"):
        assert not kernel_log_is_whole([*lines[:3], gap, *lines[3:]]), gap
