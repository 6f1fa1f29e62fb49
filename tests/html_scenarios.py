"""The three hosts the HTML report tests draw (tests/test_report_html*.py), audited once per session:

- `pcie`: step 3's story scenario (tests/scenarios_rtx_pro_6000.py: 8× RTX PRO 6000, each GPU on its own
  Turin root port with ACS redirect on, no NVLink), with faults planted on the report: GPU3's link
  downtrained (a PCIE-LINK-DOWNTRAIN issue naming its BDF), GPU5 lost (fallen off the bus) and the root ports'
  ACS redirect as an issue;
- `nvswitch`: an 8× H100 HGX board with four NVSwitches (tests/nvidia_support.py, as perf/hgx_snapshot.py
  builds it) and its `nvidia-smi topo -m`, modelled on the B200 HGX matrix of
  tests/data/captures/09-… (NV18 between every pair, each GPU PXB to its NIC) with that capture's fault:
  GPU2 has no NVLink (NODE/SYS to the others);
- `no-gpu`: a host with no GPU, whose host name is markup (it must show as text);
- `switches`: a modelled PCI tree with two cascaded PCIe switches under one root port (no matrix), and
  ACS redirect planted on switch B's downstream port.
"""

from __future__ import annotations

import copy
import dataclasses
from functools import cache

from nvidia_support import hgx, host_for, vllm_files
from report_scenarios import report as scenario_report
from scenario_builder import TOPO_LEGEND
from stackaudit.cli.audit import headline_ceiling
from stackaudit.engine.results import Result
from stackaudit.engine.runner import AuditOptions, Report, run_audit
from stackaudit.facts.pcie import PcieFacts, PcieFunction
from stackaudit.host.memory import fake_host

# The audit as `stackaudit audit` runs it: with the headline ceiling (the engine imports no product).
AUDIT = AuditOptions(ceiling=headline_ceiling())
HOSTILE_NAME = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
LOST_GPU, DOWNTRAINED_GPU, NO_NVLINK_GPU = "GPU5", "GPU3", "GPU2"
SCENARIOS = ("pcie", "nvswitch", "no-gpu")
ROOT, UP_A, A0, A1, UP_B, B0 = ("0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:02:08.0", "0000:03:00.0",
                                "0000:04:00.0")


def hgx_topo_matrix(no_nvlink: int | None = 2) -> str:
    """`nvidia-smi topo -m` of 8 GPUs (NUMA 0: GPU0-3, NUMA 1: GPU4-7) and 8 NICs, one per GPU behind the
    same switch (PXB); `no_nvlink`: that GPU's NVLinks are down (NODE within its socket, SYS across)."""
    n, nics = 8, 8
    head = "\t" + "\t".join([*(f"GPU{i}" for i in range(n)), *(f"NIC{i}" for i in range(nics))]) \
        + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    rows = []
    for i in range(n):
        cells = []
        for j in range(n):
            same = i // 4 == j // 4
            if i == j:
                cells.append(" X ")
            elif no_nvlink in (i, j):
                cells.append("NODE" if same else "SYS")
            else:
                cells.append("NV18")
        cells += ["PXB" if k == i else ("NODE" if i // 4 == k // 4 else "SYS") for k in range(nics)]
        affinity = "0-55,112-167" if i < 4 else "56-111,168-223"
        rows.append(f"GPU{i}\t" + "\t".join(cells) + f"\t{affinity}\t{i // 4}\t\tN/A\n")
    for k in range(nics):
        cells = ["PXB" if i == k else ("NODE" if i // 4 == k // 4 else "SYS") for i in range(n)]
        cells += [" X " if k == m else ("NODE" if k // 4 == m // 4 else "SYS") for m in range(nics)]
        rows.append(f"NIC{k}\t" + "\t".join(cells) + "\n")
    legend = TOPO_LEGEND + "\nNIC Legend:\n\n" + "".join(f"  NIC{k}: mlx5_{k}\n" for k in range(nics))
    return head + "".join(rows) + legend


@cache
def _audit(name: str) -> Report:
    if name == "pcie":
        return _plant_pcie_faults(scenario_report("rtx-pro-6000-lxc"))
    if name == "nvswitch":
        files, procs = vllm_files("--tensor-parallel-size 4", workers=4)
        host = host_for(hgx(count=8), nvswitches=4, fabricmanager="active", fm_version="570.124.06",
                        extra_files=files, processes=procs,
                        extra_commands={("nvidia-smi", "topo", "-m"): hgx_topo_matrix()})
        return run_audit(host, AUDIT)
    if name == "no-gpu":
        files = {"/sys/bus/pci/devices/0000:00:00.0/vendor": "0x8086\n",
                 "/sys/bus/pci/devices/0000:00:00.0/class": "0x060000\n"}
        return run_audit(fake_host(files=files, hostname=HOSTILE_NAME), AUDIT)
    raise KeyError(name)


def report(name: str) -> Report:
    """The scenario's report; each caller gets its own copy."""
    return copy.deepcopy(_audit(name))


def _plant_pcie_faults(rep: Report) -> Report:
    gpus = rep.topology["gpus"]
    by_name = {g["name"]: g for g in gpus}
    by_name[LOST_GPU]["lost"] = "fallen off the bus"
    bdf = by_name[DOWNTRAINED_GPU]["bdf"]
    rep.results = [dataclasses.replace(r, status="issue", priority="P1", severity="high", confidence="documented",
                                       fix_cost="hardware", subjects=(bdf,), message=f"{bdf} runs Gen5 x8 (capable x16)")
                   if r.id == "PCIE-LINK-DOWNTRAIN" else
                   # Planted too: on this TP 8 host ACS redirect on the root ports is a conditional key negative
                   # (issue 28); the story draws it as the issue it is where peer traffic crosses them.
                   dataclasses.replace(r, status="issue", priority="P2", severity="low")
                   if r.id == "FW-ACS-P2P" else r for r in rep.results]
    return rep



def _fn(bdf: str, role: str, upstream: tuple[str, ...]) -> PcieFunction:
    return PcieFunction(bdf=bdf, role=role, upstream=upstream)


def switch_tree() -> PcieFacts:
    """Root port 00:01.0 → switch A (up 01:00.0; down 02:00.0 with GPU0 and GPU1, down 02:08.0 to switch B)
    → switch B (up 03:00.0, down 04:00.0 with GPU2, GPU3 and a NIC)."""
    below_b = (ROOT, UP_A, A1, UP_B, B0)
    return PcieFacts(functions=(
        _fn(ROOT, "bridge", ()), _fn(UP_A, "bridge", (ROOT,)), _fn(A0, "bridge", (ROOT, UP_A)),
        _fn(A1, "bridge", (ROOT, UP_A)), _fn(UP_B, "bridge", (ROOT, UP_A, A1)), _fn(B0, "bridge", (ROOT, UP_A, A1, UP_B)),
        _fn("0000:05:00.0", "gpu", (ROOT, UP_A, A0)), _fn("0000:06:00.0", "gpu", (ROOT, UP_A, A0)),
        _fn("0000:07:00.0", "gpu", below_b), _fn("0000:07:00.1", "gpu", below_b), _fn("0000:08:00.0", "nic", below_b),
    ))


def switch_tree_report() -> Report:
    from stackaudit.facts.machine_topology import topology_from_facts

    acs = Result("FW-ACS-P2P", "FW", "ACS", "issue", "ACS redirect on", priority="P1", subjects=(B0,))
    return Report(source={"kind": "fake"}, host={"hostname": "switches"}, results=[acs],
                  topology=topology_from_facts({"pcie": switch_tree()}).to_json())
