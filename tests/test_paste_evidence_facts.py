"""Evidence a paste holds, reaching its facts and checks where no live source exists (issue 9's gaps).

The lines are real (the corpus file named beside each, tests/data/captures) or modelled on them (said so);
each test would fail if the line stopped reaching its fact.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from corpus import body
from stackaudit.engine.collect import Collector
from stackaudit.engine.testing import run_checks
from stackaudit.facts.collect_env import parse_collect_env
from stackaudit.facts.container import ContainerInfo
from stackaudit.facts.gpus import parse_nccl_tests_gpus
from stackaudit.facts.lspci import parse_lspci_tree
from stackaudit.facts.pcie_errors import parse_aer_lines
from stackaudit.facts.rdma import rdma_from_nccl_log
from stackaudit.facts.registry import load_all
from stackaudit.facts.serving_logs import parse_serving_log
from stackaudit.facts.shm import parse_df_table
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise


def _host(text: str) -> MemoryHost:
    return MemoryHost(recognise(text).record)


def _statuses(text: str, checks: Iterable[str]) -> dict[str, str]:
    results = run_checks(_host(text), list(checks))
    return {cid: r.status for cid, r in results.items()}


def _fact(text: str, name: str) -> object:
    collector = Collector(_host(text), 30, load_all())
    collector.start([name])
    return collector.results([name])[name]


# corpus 58 (NVIDIA/nccl-tests thread): NCCL could not load libibverbs, so it uses sockets.
NO_VERBS = """\
node:3884994:3885025 [3] NCCL INFO Failed to open libibverbs.so[.1]
node:3884994:3885025 [3] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>
node:3884994:3885025 [3] NCCL INFO Using network Socket
"""


def test_nccl_without_verbs_means_no_rdma_nic_for_the_engine() -> None:
    assert rdma_from_nccl_log(NO_VERBS).names == ()
    with_ib = NO_VERBS + "node:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.2<0>\n"
    assert rdma_from_nccl_log(with_ib).names == ("mlx5_0",)  # a NIC NCCL uses wins over a failed probe


# corpus 67 (vllm-project/vllm thread): vLLM turns graphs off itself with DP.
FORCED_EAGER = ("INFO 05-26 03:09:32 [cuda.py:156] Data Parallel: Forcing enforce eager to be True since DP is "
                "currently not supported with CUDA Graphs.\n")


def test_vllm_forcing_eager_is_eager_mode() -> None:
    log = parse_serving_log("INFO 05-26 03:09:20 [api_server.py:1289] vLLM API server version 0.9.1\n" + FORCED_EAGER)
    assert log.cuda_graphs == "eager" and "Forcing enforce eager" in log.cuda_graph_lines[0]
    assert _statuses("INFO 05-26 03:09:20 [api_server.py:1289] vLLM API server version 0.9.1\n" + FORCED_EAGER,
                     ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"] == "issue"


# corpus 85 (pytorch/pytorch thread): torch's warning when collect_env initialises CUDA on an old driver.
TOO_OLD = """\
Collecting environment information...
/usr/lib/python3.11/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver.
  return torch._C._cuda_getDeviceCount() > 0
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A
"""


def test_collect_env_keeps_torchs_driver_too_old_warning() -> None:
    report = parse_collect_env(TOO_OLD)
    assert report.driver_too_old_cuda == "11.4" and report.torch_cuda == "12.1"
    assert "UserWarning: CUDA initialization" in next(iter(recognise(TOO_OLD).record.commands.values())).stdout
    assert _statuses(TOO_OLD, ["DRV-CUDA-COMPAT"])["DRV-CUDA-COMPAT"] == "issue"
    assert parse_collect_env(TOO_OLD.replace("(found version 11040)", "")).driver_too_old_cuda == ""


def test_rccl_tests_gpus_are_not_nvidia_gpus() -> None:
    # corpus 82 (ROCm/rccl-tests thread): the same header format, AMD GPUs.
    amd = "#   Rank  0 Pid   2303 on host device  0 [0000:2f:00.0] AMD Instinct MI100\n"
    nvidia = "#  Rank  1 Group  0 Pid 3884994 on host device  1 [0000:1a:00] NVIDIA L20\n"
    assert [g.model for g in parse_nccl_tests_gpus(amd + nvidia).gpus] == ["NVIDIA L20"]


def test_correctable_is_linux_6s_name_for_corrected() -> None:
    # corpus 43 (kern.log lines of a thread): Linux 6.x prints "Correctable"; older kernels "Corrected".
    lines = ["pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0",
             "pcieport 0000:00:03.1: AER: Corrected error received: 0000:00:03.1",
             "nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer"]
    assert [a.severity for a in parse_aer_lines(lines)] == ["corrected", "corrected", "nonfatal"]


def _aer(uptime: float) -> str:
    return (f"Sep 19 16:18:02 box kernel: [{uptime:.6f}] pcieport 0000:00:03.1: AER: Correctable error message "
            "received from 0000:00:00.0\n")


def test_correctable_errors_repeating_long_after_boot_are_an_issue() -> None:
    late = "".join(_aer(68183.6 + k * 0.02) for k in range(3))
    assert _statuses(late, ["FW-AER-ERRORS"])["FW-AER-ERRORS"] == "issue"
    # The same three at link training (the first seconds of boot) say nothing about a rate.
    early = "".join(_aer(2.1 + k * 0.02) for k in range(3))
    assert _statuses(early, ["FW-AER-ERRORS"])["FW-AER-ERRORS"] == "unknown"


def test_a_df_row_cut_after_its_size() -> None:
    # corpus 73 (production-stack thread): the paste ends inside the /dev/shm row.
    text = "kubectl exec -it pod -- df -h /dev/shm\nFilesystem      Size  Used Avail Use% Mounted on\nshm              64M\n"
    [row] = parse_df_table(text)
    assert (row.filesystem, row.size_kib, row.used_kib) == ("shm", 65536, None)
    result = recognise(text)
    assert result.recognised == [("df", 2, 3)]
    prov = next(iter(result.record.provenance.values()))
    assert prov.whole is False  # a cut row: an excerpt
    statuses = _statuses(text, ["CTR-SHM-SIZE"])
    assert statuses["CTR-SHM-SIZE"] == "issue"  # `shm` is a container runtime's mount: a 64 MiB container shm


def test_a_hosts_tmpfs_shm_is_not_a_container() -> None:
    text = ("$ df -h /dev/shm\nFilesystem      Size  Used Avail Use% Mounted on\n"
            "tmpfs            32G     0   32G   0% /dev/shm\n")
    container = _fact(text, "container")
    # A host's /dev/shm is `tmpfs`: the paste then does not say where it ran (no container kind).
    assert not isinstance(container, ContainerInfo), container


def test_rays_free_shm_decides_only_at_the_extremes() -> None:
    line = ("2024-05-01 10:00:00,000\tWARNING services.py:1996 -- WARNING: The object store is using /tmp instead of "
            "/dev/shm because /dev/shm has only {n} bytes available. This will harm performance!\n")
    statuses = [_statuses(line.format(n=n), ["CTR-SHM-SIZE"])["CTR-SHM-SIZE"] for n in
                (67108864, 512 * 2**20, 46198665216)]
    assert statuses == ["issue", "unknown", "not-an-issue"]


def test_cpufreq_driver_names_the_vendor_without_lscpu() -> None:
    head = "analyzing CPU 0:\n  driver: {d}\n  CPUs which run at the same hardware frequency: 0\n" \
           "  hardware limits: 400 MHz - 5.00 GHz\n  available cpufreq governors: performance powersave\n" \
           "  current policy: frequency should be within 400 MHz and 5.00 GHz.\n" \
           "                  The governor \"performance\" may decide which speed to use\n" \
           "                  within this range.\n"
    assert _statuses(head.format(d="intel_pstate"), ["KERN-AMD-PSTATE"])["KERN-AMD-PSTATE"] == "not-applicable"
    assert _statuses(head.format(d="acpi-cpufreq"), ["KERN-AMD-PSTATE"])["KERN-AMD-PSTATE"] == "unknown"


def test_nvlink_down_on_one_gpu_of_a_matrix() -> None:
    # Modelled on corpus 09 (an 8x B200 matrix where GPU2 has no NV# cell), cut to three GPUs.
    text = ("\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
            "GPU0\t X \tNV18\tNODE\t0-55\t0\t\tN/A\n"
            "GPU1\tNV18\t X \tNODE\t0-55\t0\t\tN/A\n"
            "GPU2\tNODE\tNODE\t X \t0-55\t0\t\tN/A\n")
    assert _statuses(text, ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"] == "issue"
    healed = text.replace("NODE\t0-55", "NV18\t0-55").replace("GPU2\tNODE\tNODE", "GPU2\tNV18\tNV18")
    # NV18 on every pair is every link up (18, the most any GPU has): ok from the matrix (issue 28).
    assert _statuses(healed, ["DRV-NVLINK-HEALTH"])["DRV-NVLINK-HEALTH"] == "ok"


def test_placement_without_an_engine_is_ok_as_information() -> None:
    rows = ("\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
            "GPU0\t X \tNODE\t{c}\t0-31\t0\t\tN/A\n"
            "GPU1\tNODE\t X \t{c}\t0-31\t0\t\tN/A\n"
            "GPU2\t{c}\t{c}\t X \t32-63\t1\t\tN/A\n")
    assert _statuses(rows.format(c="NODE"), ["IC-TOPOLOGY-PLACEMENT"])["IC-TOPOLOGY-PLACEMENT"] == "ok"
    # With a SYS pair and no engine: whether the engine's pair crosses it is not shown (unknown, as blind 325 and 243
    # want); the message still gives the best groups.
    assert _statuses(rows.format(c="SYS"), ["IC-TOPOLOGY-PLACEMENT"])["IC-TOPOLOGY-PLACEMENT"] == "unknown"


def test_topo_p2p_p_feeds_gpu_p2p() -> None:
    text = ("$ nvidia-smi topo -p2p p\n \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n\nLegend:\n\n  X    = Self\n"
            "  OK   = Status Ok\n")
    p2p = _fact(text, "gpu_p2p")
    assert getattr(p2p, "all_ok", None) is True


def test_a_pasted_spec_names_itself_in_parallelism() -> None:
    text = "docker run --gpus all vllm/vllm-openai:latest --model m --tensor-parallel-size 2\n"
    par = _fact(text, "parallelism")
    [engine] = getattr(par, "engines", ())
    assert (engine.tp, engine.spec) == (2, "docker run")


def test_lxc_config_takes_the_id_the_paste_shows() -> None:
    text = ("I edited /etc/pve/lxc/101.conf and it now reads:\n\n```\narch: amd64\ncores: 8\nhostname: llm\n"
            "memory: 65536\nlxc.cgroup2.devices.allow: c 195:* rwm\n```\nroot@pve:~# pct config 202\narch: amd64\n"
            "cores: 4\nhostname: b\nmemory: 4096\n\nand one with no name:\narch: amd64\ncores: 2\nhostname: c\n")
    assert sorted(recognise(text).record.files) == ["/etc/pve/lxc/101.conf", "/etc/pve/lxc/202.conf",
                                                    "/etc/pve/lxc/pasted3.conf"]


def test_lspci_gpu_header_after_prose_and_a_cut_entry_tail(tmp_path: Path) -> None:
    # corpus 90 (a GitHub thread on RTX 4090 P2P): the commenter's words before the header on its line.
    text = ("\t\tBAR 3: current size: 32MB, supported: 32MB\n\tCapabilities: [e00 v1] Data Link Feature <?>\n"
            "\tKernel driver in use: nvidia\n\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n\n"
            "here is my card under load 62:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX "
            "4090] (rev a1) (prog-if 00 [VGA controller])\n\tSubsystem: Micro-Star International Co., Ltd. [MSI]\n"
            "\tRegion 1: Memory at 10000000000 (64-bit, prefetchable) [size=32G]\n")
    path = tmp_path / "lspci.txt"
    path.write_text(text)
    host = load_pasted([str(path)])
    assert host.record.meta["recognised"] == ["lspci (lines 1-4)", "lspci (lines 6-8)"]
    listing = next(v.stdout for k, v in host.record.commands.items() if k[0] == "lspci")
    assert "\n62:00.0 VGA compatible controller: NVIDIA" in listing and "here is my card" not in listing
    # Prose that merely mentions an address is not a device header.
    assert recognise("the card at 62:00.0 VGA compatible controller: is slow\nthanks\n").recognised == []


# The head of an `lspci -t` tree pasted in https://github.com/noonghunna/club-3090/issues/1087 (2x RTX 5090
# behind an AMD chipset switch), verbatim up to the cut.
TREE_1087 = """\
-[0000:00]-+-00.0
           +-00.2
           +-01.0
           +-01.1-[01]--+-00.0
           |            \\-00.1
           +-01.2-[02]----00.0
           +-01.3-[03]--+-00.0
           |            \\-00.1
           +-02.0
           +-02.1-[04-0c]----00.0-[05-0c]--+-00.0-[06]----00.0
           |                               +-08.0-[07]----00.0
           |                               +-09.0-[08]--
           |                               +-0a.0-[09]----00.0
           |                               +-0b.0-[0a]----00.0
           |                               +-0c.0-[0b]----00.0
           |                               \\-0d.0-[0c]----00.0
           +-02.2-[0d]----00.0
           +-03.0
"""


def test_lspci_tree_gives_every_functions_upstream_bridges() -> None:
    paths = parse_lspci_tree(TREE_1087)
    assert paths["0000:01:00.1"] == ("0000:00:01.1",)
    assert paths["0000:06:00.0"] == ("0000:00:02.1", "0000:04:00.0", "0000:05:00.0")
    assert paths["0000:0c:00.0"] == ("0000:00:02.1", "0000:04:00.0", "0000:05:0d.0")
    assert paths["0000:0d:00.0"] == ("0000:00:02.2",) and paths["0000:00:03.0"] == ()
    assert "0000:08:00.0" not in paths  # an empty slot (`-[08]--`) has no function


def test_a_pasted_tree_places_lspci_devices_without_bus_lines() -> None:
    # Modelled: a GPU's -vvv entry as pasted without its bridges' `Bus:` lines, with the tree of 1087.
    listing = ("0000:01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GB202 [GeForce RTX 5090] [10de:2b85]\n"
               "\tLnkCap:\tPort #0, Speed 32GT/s, Width x16\n\tLnkSta:\tSpeed 32GT/s, Width x8 (downgraded)\n")
    without = _fact(listing, "pcie")
    with_tree = _fact(listing + "\n$ lspci -t\n" + TREE_1087, "pcie")
    gpu = next(f for f in getattr(with_tree, "functions", ()) if f.role == "gpu")
    assert gpu.upstream == ("0000:00:01.1",)
    assert getattr(without, "topology_known", None) is False and getattr(with_tree, "topology_known", None) is True


def test_nvidia_smi_q_link_section_without_its_pci_parent() -> None:
    # Modelled on `nvidia-smi -q` text: a GPU's header, then only its link section (a grep or a hand cut).
    text = ("Attached GPUs                             : 8\nGPU 00000000:18:00.0\n"
            "    Product Name                          : NVIDIA H100 80GB HBM3\n"
            "        GPU Link Info\n            PCIe Generation\n                Max                       : 5\n"
            "                Current                   : 5\n                Host Max                  : 5\n"
            "            Link Width\n                Max                       : 16x\n"
            "                Current                   : 8x\n")
    links = _fact(text, "gpu_links")
    [link] = getattr(links, "links", ())
    assert (link.cur_width, link.max_width, link.host_max_speed) == (8, 16, 32.0)
    assert _statuses(text, ["PCIE-LINK-DOWNTRAIN"])["PCIE-LINK-DOWNTRAIN"] == "issue"


def test_lscpu_without_its_first_line_is_an_excerpt() -> None:
    # Modelled on lscpu's own lines (a `lscpu | grep -E 'Socket|NUMA|Core|Model name'` or a cut paste).
    text = ("Core(s) per socket:  32\nSocket(s):           2\nNUMA node(s):        2\n"
            "Model name:          Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz\n"
            "NUMA node0 CPU(s):   0-31\nNUMA node1 CPU(s):   32-63\n")
    result = recognise(text)
    assert result.recognised == [("lscpu", 1, 6)]
    assert all(not p.whole for p in result.record.provenance.values())
    cpu = _fact(text, "cpu")
    assert (getattr(cpu, "sockets", None), getattr(cpu, "numa_nodes", None)) == (2, 2)
    # One lscpu-looking key in prose is not lscpu.
    assert recognise("We have Socket(s): 2 on this box\nthanks\n").recognised == []


def test_lscpu_cut_to_its_architecture_and_model_lines_is_lscpu() -> None:
    """A poster's excerpt of the CPU: lscpu's `Architecture:` with its `Model name:` right under it (indented in
    util-linux >= 2.38's layout) names the CPU without the CPU count. Real: corpus 2229 (an Intel Xeon 8481C, indented)
    and 2157 (an AMD Ryzen 5 5600X, flat). Modelled counter-example: hostnamectl's `Architecture:` line among its
    own keys names no CPU and is not lscpu."""
    for prefix, kinds, model in (("2229", ("lscpu", 2, 3), "Platinum 8481C"), ("2157", ("lscpu", 10, 11), "5600X")):
        text = body(prefix)
        assert kinds in recognise(text).recognised, prefix
        assert model in getattr(_fact(text, "cpu"), "model_name", ""), prefix
    hostnamectl = ("Operating System: Ubuntu 22.04.3 LTS\n          Kernel: Linux 6.2.0-37-generic\n"
                   "    Architecture: x86-64\n Hardware Vendor: ASUSTeK COMPUTER INC.\n")
    assert "lscpu" not in [k for k, _, _ in recognise(hostnamectl).recognised]


def test_engine_command_lines_feed_flags_sizes_and_inline_environment() -> None:
    # Modelled on the commands threads paste (corpus 02, 68): a prompt, an inline variable, a continuation.
    text = ("(venv) user@box:~$ NCCL_P2P_DISABLE=1 CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen2.5-7B \\\n"
            "    --tensor-parallel-size 2 --enforce-eager\n")
    result = recognise(text)
    assert result.recognised == [("engine command", 1, 2)]
    statuses = _statuses(text, ["RT-CUDA-GRAPHS", "IC-NCCL-ENV"])
    # P2P off on an engine with no GPU or link shown: a medium issue naming its exception (test_p2p_off_conditional.py).
    assert statuses == {"RT-CUDA-GRAPHS": "issue", "IC-NCCL-ENV": "issue"}
    par = _fact(text, "parallelism")
    assert getattr(getattr(par, "from_log", None), "tp", None) == 2


def test_a_command_without_an_eager_flag_proves_nothing_about_graphs() -> None:
    # vLLM turns graphs off itself under DP (corpus 67): no flag on the line is not "graphs on".
    text = "$ vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 2 --data-parallel-size 2\n"
    assert _statuses(text, ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"] == "unknown"
    assert _statuses(text + FORCED_EAGER, ["RT-CUDA-GRAPHS"])["RT-CUDA-GRAPHS"] == "issue"  # its log decides


def test_lines_that_only_mention_an_engine_are_not_commands() -> None:
    for text in ("pip install vllm==0.9.1\n", "cd vllm && pip install -e .\n", "vllm --version\n",
                 "docker run --gpus all vllm/vllm-openai:latest --model m\n", "I ran vllm serve with TP 2\n"):
        assert all(kind != "engine command" for kind, _, _ in recognise(text).recognised), text
    # The engine run after `cd` into its source tree is a command (the commands after `&&` are read, corpus 1251).
    assert any(kind == "engine command" for kind, _, _ in recognise("cd vllm && vllm serve m\n").recognised)
