"""Issue 28: verdicts from what the text shows, and absence only from whole sources.

A topology matrix cut part-way is judged on the rows that are there: a GPU pair is shown by either
GPU's row, so only the pairs no row shows stay unknown, and the verdict names them.

Real pastes: corpus files of tests/data/captures, or the public thread named beside each, verbatim
(where the stored copy of a thread ends inside a row, that cut is the paste's). Modelled
counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts.topology import parse_topo_matrix
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise
from test_topology_parsers import make_topo

CAPTURES = Path(__file__).parent / "data" / "captures"


def _capture(prefix: str, *checks: str) -> dict[str, tuple[str, str]]:
    path = next(CAPTURES.glob(prefix + "-*.txt"))
    results = run_checks(load_pasted([str(path)]), list(checks))
    return {cid: (r.status, r.message) for cid, r in results.items()}


def _run(text: str, *checks: str) -> dict[str, tuple[str, str]]:
    results = run_checks(MemoryHost(recognise(text).record), list(checks))
    return {cid: (r.status, r.message) for cid, r in results.items()}


# --- a cut topology matrix: judge the rows shown, name the pairs missing -----------------------

# vllm-project/vllm-omni#432 (Bounty-hunter): collect_env's 'GPU Topology:' of 8 NV12 GPUs; the stored copy of the
# thread ends inside the GPU1 row, after that row's GPU cells.
OMNI_432 = (
    "GPU Topology:\n"
    "  \tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tNIC0\tNIC1\tNIC2\tNIC3\tNIC4\tNIC5\tNIC6\tNIC7\tNIC8\tNIC9"
    "\tNIC10\tNIC11\tNIC12\tNIC13\tNIC14\tNIC15\tNIC16\tNIC17\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNODE\tNODE\tNODE\tNODE\tPXB\tPXB\tPXB\tPXB\tSYS\tSYS\tSYS"
    "\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\tSYS\t0-47,96-143\t0\n"
    "GPU1\tNV12\t X \tNV12\tNV12\tNV12\tNV12\tNV12\tNV12\tNODE\tNODE\tNODE\tNODE\tPXB\tPXB\tPXB\tPXB\tSYS\tSYS\tSYS"
    "\tSYS\tSYS\tSYS\tSYS\tSYS\n"
)


def test_a_pair_is_shown_by_either_row_of_a_cut_matrix() -> None:
    # Corpus 11: cut inside the GPU5 row (after its GPU cells); GPU6 and GPU7 have no row.
    text = next(CAPTURES.glob("11-*.txt")).read_text().split("-----\n", 1)[1]
    topo = parse_topo_matrix(text[text.index("GPU0    GPU1"):])
    assert topo.rows_not_shown() == ("GPU5", "GPU6", "GPU7")
    assert topo.unshown_pairs() == (("GPU6", "GPU7"),)  # GPU5-GPU6 and GPU5-GPU7 are in GPU5's row


def test_a_cut_matrix_names_the_one_pair_it_does_not_show() -> None:
    # Judged on the rows shown (their coverage: tests/test_shown_failures.py), the pair missing named.
    status, message = _capture("11", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "ok"
    assert "1 GPU pair(s) not shown: GPU6-GPU7" in message and "rows GPU5, GPU6, GPU7 not shown" in message
    assert "fully" not in message  # 27 NV12 pairs shown are not a full mesh


def test_rows_missing_without_a_short_row_are_never_a_full_mesh() -> None:
    # Corpus 45: the stored copy ends after the GPU2 row (complete): 10 pairs among GPU3-7 are in no row. The old
    # code saw no short row and said ok "8 GPUs fully NVLink-connected", and placement not-applicable. The rows
    # shown are judged (ok), and the pairs they leave out are named, never called NVLink by IC-TOPO-READ.
    # Placement is ok from the NVSwitch the rows prove (7 x NV12 in one row: more links than a GPU has).
    results = _capture("45", "IC-TOPO-READ", "IC-TOPOLOGY-PLACEMENT", "IC-P2P-FUNCTIONAL")
    status, message = results["IC-TOPO-READ"]
    assert status == "ok" and "10 GPU pair(s) not shown: GPU3-GPU4" in message and "fully" not in message
    status, message = results["IC-TOPOLOGY-PLACEMENT"]
    assert status == "ok" and "NVSwitches" in message and "rows GPU3" in message
    assert results["IC-P2P-FUNCTIONAL"][0] == "unknown"


def test_the_rows_shown_still_prove_an_issue() -> None:
    # Corpus 09: headerless, cut inside the GPU6 row, no GPU7 row; GPU2's NODE/SYS cells are in the rows shown.
    status, message = _capture("09", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "issue" and "GPU2 has no NVLink" in message
    assert "rows GPU6, GPU7 not shown" in message


def test_a_row_cut_after_its_gpu_cells_leaves_only_the_other_rows_pairs_unknown() -> None:
    results = _run(OMNI_432, "IC-TOPO-READ", "IC-TOPOLOGY-PLACEMENT")
    status, message = results["IC-TOPO-READ"]
    assert status == "ok" and "15 GPU pair(s) not shown: GPU2-GPU3" in message
    # GPU0's row bonds 7 x NV12 = 84 links, more than any GPU has: NVSwitches, so the pairs not shown are NVLink.
    assert results["IC-TOPOLOGY-PLACEMENT"][0] == "ok"


def test_a_matrix_cut_after_every_pair_is_judged_ok_with_the_missing_rows_named() -> None:
    # Modelled: 4 NV4 GPUs (make_topo), the paste cut after the GPU2 row: GPU3's row is missing, but each of its
    # pairs is in GPU0-2's rows. The cut no longer makes it unknown; the missing row is named.
    whole = make_topo([["X" if i == j else "NV4" for j in range(4)] for i in range(4)], ["0-15"] * 4, ["0"] * 4)
    lines = whole.splitlines()
    cut = "\n".join(lines[:4]) + "\n"
    status, message = _run(cut, "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "ok" and "4 GPUs fully NVLink-connected" in message and "row GPU3 not shown" in message
    # The same cut one row earlier leaves GPU2-GPU3 in no row: the two rows shown are judged, the pair named.
    status, message = _run("\n".join(lines[:3]) + "\n", "IC-TOPO-READ")["IC-TOPO-READ"]
    assert status == "ok" and "1 GPU pair(s) not shown: GPU2-GPU3" in message


# --- a command shown above its output: a part of the source, or a grep that proves one absence --------

# elFarto/nvidia-vaapi-driver#218 (Bob-YsPan): three greps of lsmod under a zsh prompt; the middle one printed nothing.
VAAPI_218 = """\
```
ys-pan@bob-dorm-ubuntuMATE /etc/modprobe.d » lsmod | grep xf
xfrm_interface         28672  0
xfrm4_tunnel           16384  0
tunnel4                16384  3 xfrm_interface,xfrm4_tunnel,ip_vti
xfrm6_tunnel           16384  2 xfrm_interface,ipcomp6
xfrm_ipcomp            16384  2 ipcomp6,ipcomp
tunnel6                16384  2 xfrm_interface,xfrm6_tunnel
xfrm_user              61440  2
xfrm_algo              20480  6 esp6,esp4,xfrm_ipcomp,ah6,ah4,xfrm_user
ys-pan@bob-dorm-ubuntuMATE /etc/modprobe.d » lsmod | grep nou
ys-pan@bob-dorm-ubuntuMATE /etc/modprobe.d » lsmod | grep nvi                                                                                                                 1 ↵
nvidia_uvm           1536000  0
nvidia_drm             86016  2
nvidia_modeset       1159168  3 nvidia_drm
nvidia              40706048  84 nvidia_uvm,nvidia_modeset
drm_kms_helper        249856  1 nvidia_drm
drm                   692224  6 drm_kms_helper,nvidia,nvidia_drm
video                  73728  1 nvidia_modeset
```
"""

# Modelled on the kernel's boot banner (`[    0.000000] Linux version ...`) and the driver's load line: the first
# lines of a log from boot, which kernel_log_is_whole takes for a whole log when nothing says how they were cut.
BOOT_HEAD = """\
[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13) #45-Ubuntu SMP
[    0.000000] KERNEL supported cpus:
[    5.120331] nvidia: loading out-of-tree module taints kernel.
[    5.301234] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024
"""


def test_shows_part_and_parse_grep_read_the_command_as_typed() -> None:
    from stackaudit.facts.shown_commands import parse_grep, shows_part

    for part in ("dmesg | head", "sudo dmesg -T | grep -i nvrm", "lsmod |grep nvidia", "lspci -vvv -s 01:00.0",
                 "grep -i xid /var/log/kern.log", "journalctl -k | tail -50", "lspci | grep -i nvidia"):
        assert shows_part(part), part
    for whole in ("dmesg", "sudo lspci -vvv", "lsmod", "nvidia-smi topo -m", "cat /proc/cmdline"):
        assert not shows_part(whole), whole
    grep = parse_grep("sudo dmesg -T | grep -i 'xid'")
    assert grep is not None and grep.source == "dmesg" and grep.matches("NVRM: XID (PCI:0000:01:00): 79")
    basic = parse_grep(r"lsmod | grep 'nvidia_peermem\|ib_core'")
    assert basic is not None and basic.matches("ib_core 434176 9") and not basic.matches("nvidia 1 0")
    # Not a grep of a whole source, or a grep whose output is not the matching lines: nothing is proven.
    for other in ("lspci | grep -i nvidia", "lsmod | grep -v nvidia", "lsmod | grep -c nvidia", "dmesg | head",
                  "cat /var/log/kern.log | grep NVRM", "lsmod | grep nvidia | wc -l"):
        assert parse_grep(other) is None, other


def test_an_empty_lsmod_grep_proves_the_module_absent_on_the_real_paste() -> None:
    # Corpus 187 (mattshma/bigdata#133): `# lsmod |grep nvidia`, then the next prompt: no nvidia module is loaded.
    status, message = _capture("187", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert status == "not-an-issue" and "`lsmod |grep nvidia` printed nothing" in message
    assert "RDMA NICs" in message and "which the source does not show" in message  # its one condition, named


def test_an_empty_grep_proves_its_pattern_absent_and_nothing_else() -> None:
    # Corpus 188 (Mellanox/nv_peer_memory#46): `lsmod | grep nv_peer` printed nothing; nv_peer_mem is absent, but
    # `nv_peer` does not match nvidia_peermem, so the check stays unknown.
    status, message = _capture("188", "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert status == "unknown" and "RDMA NICs" in message
    # nvidia-vaapi-driver#218: `lsmod | grep nou` printed nothing (the next prompt follows); the greps with output
    # are excerpts of the module list, which prove no other absence.
    record = recognise(VAAPI_218).record
    assert record.docs["empty_greps"] == "lsmod | grep nou\n"
    assert record.provenance["cmd:lsmod"].whole is False
    status, _ = _run(VAAPI_218, "IC-NVIDIA-PEERMEM")["IC-NVIDIA-PEERMEM"]
    assert status == "unknown"


def test_an_empty_kernel_log_grep_rules_out_xids_only_when_its_pattern_matches_one() -> None:
    # Modelled: the two commands an operator runs, each with nothing under it.
    status, message = _run("$ sudo dmesg | grep -i xid\n$ nvidia-smi -L\n", "DRV-XID")["DRV-XID"]
    assert status == "ok" and "`sudo dmesg | grep -i xid` printed nothing" in message
    # A grep for another word says nothing about Xids; a grep with lines under it is not empty.
    assert _run("$ dmesg | grep -i nvlink\n$ nvidia-smi -L\n", "DRV-XID")["DRV-XID"][0] == "unknown"
    text = "$ dmesg | grep -i xid\n[ 12.5] NVRM: Xid (PCI:0000:01:00): 79, pid=1, GPU has fallen off the bus.\n"
    assert _run(text, "DRV-XID")["DRV-XID"][0] == "issue"


def test_a_log_from_boot_under_a_head_is_an_excerpt() -> None:
    # Modelled: the same four lines are whole pasted alone, and an excerpt under `dmesg | head -4`.
    alone = recognise(BOOT_HEAD).record.provenance["cmd:dmesg"]
    assert alone.whole is True
    for command in ("$ dmesg | head -4", "Output of `sudo dmesg | head -4`:", "root@node:~# dmesg -T | grep -v usb"):
        cut = recognise(f"{command}\n{BOOT_HEAD}").record.provenance["cmd:dmesg"]
        assert cut.whole is False, command
    # A whole command above resets it: `dmesg` alone shows the whole ring buffer.
    assert recognise(f"$ lsmod | grep nvidia\n$ dmesg\n{BOOT_HEAD}").record.provenance["cmd:dmesg"].whole is True


def test_lspci_grep_gpus_are_not_the_whole_bus() -> None:
    # Corpus 187: `lspci | grep -i nvidia` lists 1db6 GPUs; a grep's GPU count proves no other device absent.
    entry = next(CAPTURES.glob("187-*.txt"))
    host = load_pasted([str(entry)])
    assert host.provenance("cmd:lspci").whole is False
    assert _capture("187", "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"][0] == "unknown"


# --- worse line wins: several lines of one source about one thing ---------------------------------

# kubernetes-sigs/dra-driver-nvidia-gpu#626 (jgehrcke): a GB200 fabric that registered (Completed, Success) and is
# unhealthy, under the grep the author ran.
DRA_626 = """\
```
# nvidia-smi -q | grep -E -C3 "ClusterUUID|CliqueId"
    Fabric
        State                             : Completed
        Status                            : Success
        CliqueId                          : 2
        ClusterUUID                       : dc6e40c4-d722-4357-9ba6-5291dd461278
        Health
            Summary                       : Unhealthy
            Bandwidth                     : Full
--
```
"""


def test_worse_of_takes_the_worse_line_and_quotes_the_one_it_overrides() -> None:
    from stackaudit.facts.readings import Reading, worse_of

    good, bad, blind = Reading("State : Completed", "good"), Reading("Status : Failure", "bad"), Reading("x : N/A", "unknown")
    assert worse_of([good, bad]) == ("bad", ("Status : Failure", "State : Completed"))
    assert worse_of([bad, good]) == worse_of([good, bad])  # the order of the lines does not decide
    assert worse_of([good, blind]) == ("good", ("State : Completed",))  # a line that cannot say never decides
    assert worse_of([blind]) == ("unknown", ()) and worse_of([]) == ("unknown", ())


def test_an_unhealthy_summary_is_the_fabric_links_not_fabric_manager_on_the_real_paste() -> None:
    # Registration (State Completed, Status Success) is Fabric Manager's; the Health block's Summary is the fabric's
    # links after it (NVML's health mask): DRV-NVLINK-HEALTH's issue, DRV-FABRIC-MANAGER's ok (corpus 1046 too).
    got = _run(DRA_626, "DRV-FABRIC-MANAGER", "DRV-NVLINK-HEALTH")
    assert got["DRV-FABRIC-MANAGER"][0] == "ok"
    status, message = got["DRV-NVLINK-HEALTH"]
    assert status == "issue" and "`Fabric Health Summary : Unhealthy`" in message
    got = _capture("1046", "DRV-FABRIC-MANAGER", "DRV-NVLINK-HEALTH")
    assert got["DRV-FABRIC-MANAGER"][0] == "ok" and got["DRV-NVLINK-HEALTH"][0] == "issue"


def test_the_worse_fabric_field_decides_on_the_corpus_pastes() -> None:
    # Corpus 111 (Azure/azhpc-images#506): State Completed above Status Insufficient Resources; both quoted.
    results = run_checks(load_pasted([str(next(CAPTURES.glob("111-*.txt")))]), ["DRV-FABRIC-MANAGER"])
    r = results["DRV-FABRIC-MANAGER"]
    assert r.status == "issue" and "`Fabric Status : Insufficient Resources` although `Fabric State : Completed`" \
        in r.message
    assert "GPU 0: Fabric Status : Insufficient Resources" in r.evidence and "GPU 0: Fabric State : Completed" in r.evidence
    # Corpus 110: State In Progress, Status and every Health field N/A: the state alone decides.
    status, message = _capture("110", "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert status == "issue" and "`Fabric State : In Progress`" in message and "although" not in message


def test_a_healthy_or_silent_summary_does_not_make_a_registered_gpu_an_issue() -> None:
    # Modelled on DRA_626: the same block with the Summary the healthy fabric shows, then with the summary N/A
    # (drivers before the Health block): neither is a fabric problem.
    for summary in ("Healthy", "N/A"):
        text = DRA_626.replace("Summary                       : Unhealthy", f"Summary                       : {summary}")
        got = _run(text, "DRV-FABRIC-MANAGER", "DRV-NVLINK-HEALTH")
        assert got["DRV-FABRIC-MANAGER"][0] == "ok", summary
        assert got["DRV-NVLINK-HEALTH"][0] != "issue", summary


# --- conditional findings stay conditional; the essay's overturned claims are key negatives -------------------

# HeyMeco/Rockchip-pcie-devices#2 (HeyMeco): an RTX 3090 on an RK3588 board, programmed below its own limit.
ROCKCHIP_2 = """\
0000:01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1) (prog-if 00 [VGA controller])
\tSubsystem: NVIDIA Corporation GA102 [GeForce RTX 3090]
\tControl: I/O- Mem- BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx-
\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-
\tInterrupt: pin A routed to IRQ 0
\tRegion 1: Memory at <unassigned> (64-bit, prefetchable) [disabled]
\tRegion 3: Memory at <unassigned> (64-bit, prefetchable) [disabled]
\tRegion 5: I/O ports at 100000 [virtual] [size=128]
\tCapabilities: [60] Power Management version 3
\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0+,D1-,D2-,D3hot+,D3cold-)
\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-
\tCapabilities: [68] MSI: Enable- Count=1/1 Maskable- 64bit+
\t\tAddress: 0000000000000000  Data: 0000
\tCapabilities: [78] Express (v2) Legacy Endpoint, MSI 00
\t\tDevCap:\tMaxPayload 256 bytes, PhantFunc 0, Latency L0s unlimited, L1 <64us
\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+
\t\tDevCtl:\tCorrErr- NonFatalErr- FatalErr- UnsupReq-
\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-
\t\t\tMaxPayload 128 bytes, MaxReadReq 512 bytes
\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-
"""


def test_stay_conditional_turns_an_unshown_conditions_issue_into_a_key_negative_that_names_it() -> None:
    from stackaudit.checks.registry import issue
    from stackaudit.engine.evaluate import stay_conditional

    found = issue("ACS redirect is on at 2 bridge(s): 0000:00:01.1; P2P is forced up", severity="low",
                  only_if="peer traffic crosses them")
    kept = stay_conditional(found)
    assert kept.status == "not-an-issue" and kept.fix is None and kept.severity is None
    # The condition sits in the first clause, the one a report's title shows.
    assert kept.message.startswith("ACS redirect is on at 2 bridge(s), which matters only if peer traffic crosses "
                                   "them (not shown in the source): 0000:00:01.1")
    plain = issue("a finding with no condition")
    assert stay_conditional(plain) is plain


def test_acs_on_root_ports_is_an_issue_only_where_peer_traffic_crosses_them() -> None:
    # The essay's host (tests/scenarios_rtx_pro_6000.py, modelled: 8 PCIe GPUs on their own root ports, SGLang TP 8):
    # a conditional key negative naming the condition; the same host with NCCL_P2P_LEVEL=SYS shows it: an issue.
    from report_scenarios import report
    from scenarios_rtx_pro_6000 import rtx_pro_6000_lxc

    by_id = {r.id: r for r in report("rtx-pro-6000-lxc").results}
    acs = by_id["FW-ACS-P2P"]
    assert acs.status == "not-an-issue" and "which matters only if GPU peer traffic crosses these root ports" in acs.message
    shown = {r.id: r for r in report("rtx-pro-6000-lxc", rtx_pro_6000_lxc(p2p_level="SYS"), tag="-p2p-sys").results}
    assert shown["FW-ACS-P2P"].status == "issue" and "NCCL_P2P_LEVEL=SYS" in shown["FW-ACS-P2P"].message


def test_maxpayload_at_the_gpus_own_limit_is_a_key_negative_where_the_paste_shows_it() -> None:
    # Corpus 05 (open-mpi/hwloc#653): A100 DevCtl 256 = DevCap 256, no upstream port in the paste.
    status, message = _capture("05", "PCIE-MPS")["PCIE-MPS"]
    assert status == "not-an-issue" and "own limit" in message
    # Rockchip-pcie-devices#2: 128 below the GPU's own 256, and the RK3588's root port is not shown: the path may
    # be the limit, so nothing is concluded either way.
    status, message = _run(ROCKCHIP_2, "PCIE-MPS")["PCIE-MPS"]
    assert status == "unknown"


# --- an output in a fenced block that never closes is cut where the paste ends ------------------

# Modelled on corpus 869's grep (NVIDIA/open-gpu-kernel-modules#935): the command, then its output in a fence.
GREP_BLOCK = ("dmesg -H | grep -iE 'nvrm|gsp|xid'\n\n```\n"
              "[  +0.009910] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n"
              "[  +0.000021] NVRM: RmInitAdapter: Cannot initialize GSP firmware RM\n")


def test_a_grep_whose_fence_never_closes_is_cut_on_the_real_paste() -> None:
    # Corpus 869: the fence opens under `dmesg -H | grep -iE 'nvrm|gsp|xid'` and the paste ends inside `NVRM: iovas`:
    # neither an empty grep (the fence below the command holds its output) nor the grep's whole output.
    status, message = _capture("869", "DRV-XID")["DRV-XID"]
    assert status == "unknown" and "printed nothing" not in message
    record = load_pasted([str(next(CAPTURES.glob("869-*.txt")))]).record
    assert "empty_greps" not in record.docs and "listing_greps" not in record.docs
    assert record.provenance["cmd:dmesg"].whole is False


def test_a_grep_whose_fence_closes_or_ends_at_a_prompt_is_its_whole_output() -> None:
    # Modelled counter-examples: the same block closed, or ended by the next prompt, is all the grep printed.
    for tail in ("```\n", "root@box:~# \n"):
        record = recognise(GREP_BLOCK + tail).record
        assert record.docs["listing_greps"] == "dmesg -H | grep -iE 'nvrm|gsp|xid'\n", tail
        status, message = _run(GREP_BLOCK + tail, "DRV-XID")["DRV-XID"]
        assert status == "ok" and "no Xid line" in message, tail
    # Left open at the paste's end, it is cut: no Xid shown, none ruled out.
    assert "listing_greps" not in recognise(GREP_BLOCK).record.docs
    assert _run(GREP_BLOCK, "DRV-XID")["DRV-XID"][0] == "unknown"
    # A command with an empty block under it printed nothing.
    assert recognise("$ dmesg | grep -i xid\n```\n```\n").record.docs["empty_greps"] == "dmesg | grep -i xid\n"


def test_a_cut_acsctl_grep_is_judged_over_the_lines_it_shows() -> None:
    # Corpus 346 (NVIDIA/nccl#1405): `lspci -vvv | grep ACSCtl` in a fence the stored copy cuts: ok over the 14
    # lines shown, each a bridge without its address; a port outside them is not ruled out.
    results = run_checks(load_pasted([str(next(CAPTURES.glob("346-*.txt")))]), ["FW-ACS-P2P"])
    result = results["FW-ACS-P2P"]
    assert result.status == "ok" and result.coverage is not None
    assert result.coverage.text() == "14 bridges shown"


def test_a_lone_backtick_opening_a_line_is_markup() -> None:
    # Corpus 875 (NVIDIA/nccl#120): the lspci entry opens with a backtick the user never closes; an inline code span
    # closed on its line (modelled) is the user's words and stays as written.
    from stackaudit.importers._paste import view

    assert view("`06:00.0 VGA compatible controller: NVIDIA Corporation Device 1b06 (rev a1)\n").lines[0] \
        == "06:00.0 VGA compatible controller: NVIDIA Corporation Device 1b06 (rev a1)"
    assert view("`nvidia-smi` shows 4 GPUs\n").lines[0] == "`nvidia-smi` shows 4 GPUs"
