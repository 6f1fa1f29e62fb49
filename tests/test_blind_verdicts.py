"""Issue 28, blind batch 212-241: rules for the verdict gaps a blind run left (tests/data/corpus_gaps.toml).

Each rule is tested on real pastes, verbatim from the public thread or file named beside each; modelled
counter-examples are said so.
"""

from __future__ import annotations

from pathlib import Path

from stackaudit.engine.testing import run_checks
from stackaudit.facts._parse import tp_spans_nodes
from stackaudit.facts.symptoms import find_symptoms
from stackaudit.gputable import PRE_TURING, architecture_of
from stackaudit.host.memory import MemoryHost
from stackaudit.importers.pasted import load_pasted
from stackaudit.importers.recognition import recognise

CAPTURES = Path(__file__).parent / "data" / "captures"


def _run(text: str, check: str) -> tuple[str, str]:
    r = run_checks(MemoryHost(recognise(text).record), [check])[check]
    return r.status, r.message


def _capture(prefix: str, check: str) -> tuple[str, str]:
    path = next(CAPTURES.glob(prefix + "-*.txt"))
    r = run_checks(load_pasted([str(path)]), [check])[check]
    return r.status, r.message


# --- a GSP boot failure in the kernel log proves DRV-GSP-FIRMWARE (facts/symptoms.py) ----------------------

# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1230 (gengchaogit): one GPU of eight that will not boot GSP.
OGKM_1230 = """\
[   88.669319] NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP
[   88.669328] NVRM: GPU6 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)
[   88.669358] NVRM: GPU6 RmInitAdapter: Cannot initialize GSP firmware RM
[   88.669932] NVRM: GPU 0000:a1:00.0: RmInitAdapter failed! (0x62:0x40:2168)
[   88.671698] NVRM: GPU 0000:a1:00.0: rm_init_adapter failed, device minor number 7
"""
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1058 (ArrayBolt3): an RTX 3080 laptop GPU.
OGKM_1058 = """\
[   81.967331] NVRM: GPU0 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP
[   81.967331] NVRM: GPU0 _kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)
[   81.967373] NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM
[   81.969336] NVRM: GPU0 iovaspaceDestruct_IMPL: 1 left-over mappings in IOVAS 0x100
[   81.969353] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x40:2168)
[   81.970029] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0
"""
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/789 (Emiya-Liao): an RTX 3090, GSP init failed without WPR2.
OGKM_789 = """\
[  903.609564] NVRM: RmInitAdapter: Cannot initialize GSP firmware RM
[  903.610907] NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)
[  903.611884] NVRM: GPU 0000:98:00.0: rm_init_adapter failed, device minor number 0
"""


def test_a_gsp_boot_failure_proves_gsp_firmware_with_the_line_quoted() -> None:
    for text, quoted in ((OGKM_1230, "GPU6 _kgspBootGspRm: unexpected WPR2 already up"),
                         (OGKM_1058, "GPU0 _kgspBootGspRm: unexpected WPR2 already up"),
                         (OGKM_789, "RmInitAdapter: Cannot initialize GSP firmware RM")):
        r = run_checks(MemoryHost(recognise(text).record), ["DRV-GSP-FIRMWARE"])["DRV-GSP-FIRMWARE"]
        assert r.status == "issue" and r.severity == "high", r.message
        assert quoted in r.message and r.fix is not None and "Reset the GPU" in r.fix.steps[0].does
        assert not r.fix.steps[0].does.startswith("Remove NVreg_EnableGpuFirmware")  # not the check's own fix
    # Corpus 216 (open-gpu-kernel-modules#876): an RTX 5080 laptop's `dmesg | grep NVRM`.
    status, message = _capture("216", "DRV-GSP-FIRMWARE")
    assert status == "issue" and "WPR2 already up" in message


def test_healthy_gsp_lines_are_no_symptom() -> None:
    # Modelled on a healthy boot: the driver loads its GSP firmware and logs no failure.
    lines = ["nvidia 0000:01:00.0: firmware: direct-loading firmware nvidia/550.54.14/gsp_ga10x.bin",
             "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build",
             "    GSP Firmware Version                  : 550.54.14"]
    assert find_symptoms(lines) == ()
    assert _run("\n".join(lines) + "\n", "DRV-GSP-FIRMWARE")[0] != "issue"


# --- a TP group that spans nodes: custom all-reduce is not applicable (facts/_parse.tp_spans_nodes) -----------

# https://github.com/sgl-project/sglang/issues/2591 (groklab): DeepSeek V3 at TP 14 over 4 nodes.
SGLANG_2591 = ("python3 -m sglang.launch_server --model-path /models/dsv3 --tp 14 --dist-init-addr 10.21.99.116:5000 "
               "--nnodes 4 --node-rank 0 --trust-remote-code --enable-torch-compile --host 0.0.0.0 --port 30000 "
               "--grammar-backend xgrammar\n")
# https://github.com/sgl-project/sglang/issues/3206 (vabatista): Llama-3.1-70B at TP 16 over 2 nodes, in singularity.
SGLANG_3206 = """\
                python3 -m sglang.launch_server \\
                --model-path meta-llama/Llama-3.1-70B \\
                --tp 16 \\
                --dist-init-addr $(hostname):5000 \\
                --nnodes 2 \\
                --node-rank 1 \\
                --trust-remote-code \\
                --host 0.0.0.0 \\
                --port 40000 \\
"""
# https://github.com/sgl-project/sglang/pull/2742 (the server-arguments doc it replaced): TP 4 over 2 nodes.
SGLANG_2742 = ("python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp 4 "
               "--nccl-init sgl-dev-0:50000 --nnodes 2 --node-rank 1\n")


def test_a_tp_group_across_nodes_has_no_custom_allreduce() -> None:
    for text, tp in ((SGLANG_2591, "TP=14"), (SGLANG_3206, "TP=16"), (SGLANG_2742, "TP=4")):
        status, message = _run(text, "IC-CUSTOM-ALLREDUCE")
        assert status == "not-applicable", message
        assert tp in message and "spans nodes" in message
    # Corpus 217 (sglang#4417): DeepSeek-R1 at TP 16 over 2 nodes.
    assert _capture("217", "IC-CUSTOM-ALLREDUCE")[0] == "not-applicable"


def test_pipeline_or_data_parallel_nodes_keep_tp_inside_one_node() -> None:
    # Modelled counter-examples: PP 2 (or plain DP 2) over 2 nodes leaves each TP 8 group on one node.
    assert not tp_spans_nodes(["--tp", "8", "--pp-size", "2", "--nnodes", "2"])
    assert not tp_spans_nodes(["--tp", "8", "--dp", "2", "--nnodes", "2"])
    assert tp_spans_nodes(["--tp", "16", "--dp", "2", "--enable-dp-attention", "--nnodes", "2"])
    assert not tp_spans_nodes(["--tp", "8"]) and not tp_spans_nodes(["--tp", "1", "--nnodes", "2"])
    status, _ = _run("python3 -m sglang.launch_server --model-path m --tp 8 --pp-size 2 --nnodes 2 --node-rank 0\n",
                     "IC-CUSTOM-ALLREDUCE")
    assert status != "not-applicable"


# --- BAR1 of 256 MiB on a GPU that predates Turing is the card's fixed size (gputable.PRE_TURING) ---------

# https://github.com/maz906/caffe/blob/5b386f8d99b4fdbe71290cc4338bb581ef737466/nvidia-bug-report.log
# (lines 24967-25033): one GeForce GTX TITAN X (Maxwell), driver 352.63.
TITAN_X = """\
==============NVSMI LOG==============

Timestamp                           : Mon Dec 21 01:42:08 2015
Driver Version                      : 352.63

Attached GPUs                       : 1
GPU 0000:06:00.0
    Product Name                    : GeForce GTX TITAN X
    Product Brand                   : GeForce
    Display Mode                    : Enabled
    Display Active                  : Enabled
    Persistence Mode                : Disabled
    Accounting Mode                 : Disabled
    Accounting Mode Buffer Size     : 1920
    Driver Model
        Current                     : N/A
        Pending                     : N/A
    Serial Number                   : 0422715081539
    GPU UUID                        : GPU-465c200a-55e4-f8cd-421f-dba04acf20bf
    Minor Number                    : 0
    VBIOS Version                   : 84.00.1F.00.90
    MultiGPU Board                  : No
    Board ID                        : 0x600
    Inforom Version
        Image Version               : G001.0000.01.03
        OEM Object                  : 1.1
        ECC Object                  : N/A
        Power Management Object     : N/A
    GPU Operation Mode
        Current                     : N/A
        Pending                     : N/A
    PCI
        Bus                         : 0x06
        Device                      : 0x00
        Domain                      : 0x0000
        Device Id                   : 0x17C210DE
        Bus Id                      : 0000:06:00.0
        Sub System Id               : 0x29923842
        GPU Link Info
            PCIe Generation
                Max                 : 3
                Current             : 3
            Link Width
                Max                 : 16x
                Current             : 16x
        Bridge Chip
            Type                    : N/A
            Firmware                : N/A
        Replays since reset         : 0
        Tx Throughput               : 4000 KB/s
        Rx Throughput               : 0 KB/s
    Fan Speed                       : 22 %
    Performance State               : P0
    Clocks Throttle Reasons
        Idle                        : Not Active
        Applications Clocks Setting : Active
        SW Power Cap                : Not Active
        HW Slowdown                 : Not Active
        Unknown                     : Not Active
    FB Memory Usage
        Total                       : 12284 MiB
        Used                        : 496 MiB
        Free                        : 11788 MiB
    BAR1 Memory Usage
        Total                       : 256 MiB
        Used                        : 5 MiB
        Free                        : 251 MiB
"""
# https://github.com/duaneya/tool_man/blob/6c33d557edfcb59eb5e6aa7c912dbdba88e64799/nvidia-bug-report.log
# (lines 8793-8871): the first of four GeForce RTX 2080 Ti (Turing).
RTX_2080_TI = """\
==============NVSMI LOG==============

Timestamp                           : Sat Nov 16 13:31:12 2019
Driver Version                      : 440.31
CUDA Version                        : 10.2

Attached GPUs                       : 4
GPU 00000000:02:00.0
    Product Name                    : GeForce RTX 2080 Ti
    Product Brand                   : GeForce
    Display Mode                    : Disabled
    Display Active                  : Disabled
    Persistence Mode                : Enabled
    Accounting Mode                 : Disabled
    Accounting Mode Buffer Size     : 4000
    Driver Model
        Current                     : N/A
        Pending                     : N/A
    Serial Number                   : N/A
    GPU UUID                        : GPU-2809c740-845e-0975-2849-bf7bc20f2bfe
    Minor Number                    : 0
    VBIOS Version                   : 90.02.0B.00.DF
    MultiGPU Board                  : No
    Board ID                        : 0x200
    GPU Part Number                 : N/A
    Inforom Version
        Image Version               : G001.0000.02.04
        OEM Object                  : 1.1
        ECC Object                  : N/A
        Power Management Object     : N/A
    GPU Operation Mode
        Current                     : N/A
        Pending                     : N/A
    GPU Virtualization Mode
        Virtualization Mode         : None
        Host VGPU Mode              : N/A
    IBMNPU
        Relaxed Ordering Mode       : N/A
    PCI
        Bus                         : 0x02
        Device                      : 0x00
        Domain                      : 0x0000
        Device Id                   : 0x1E0710DE
        Bus Id                      : 00000000:02:00.0
        Sub System Id               : 0x12FA10DE
        GPU Link Info
            PCIe Generation
                Max                 : 3
                Current             : 3
            Link Width
                Max                 : 16x
                Current             : 16x
        Bridge Chip
            Type                    : N/A
            Firmware                : N/A
        Replays Since Reset         : 0
        Replay Number Rollovers     : 0
        Tx Throughput               : 853000 KB/s
        Rx Throughput               : 6684000 KB/s
    Fan Speed                       : 91 %
    Performance State               : P2
    Clocks Throttle Reasons
        Idle                        : Not Active
        Applications Clocks Setting : Not Active
        SW Power Cap                : Active
        HW Slowdown                 : Not Active
            HW Thermal Slowdown     : Not Active
            HW Power Brake Slowdown : Not Active
        Sync Boost                  : Not Active
        SW Thermal Slowdown         : Not Active
        Display Clock Setting       : Not Active
    FB Memory Usage
        Total                       : 11019 MiB
        Used                        : 9242 MiB
        Free                        : 1777 MiB
    BAR1 Memory Usage
        Total                       : 256 MiB
        Used                        : 7 MiB
        Free                        : 249 MiB
"""


def test_small_bar1_before_turing_is_not_an_issue() -> None:
    status, message = _run(TITAN_X, "FW-REBAR-BAR1")
    assert status == "not-an-issue" and "GeForce GTX TITAN X, 256 MiB" in message
    # Corpus 228 (eler/git_examples' bug report): GTX 1080 Ti (Pascal), 1 of 4 GPUs shown.
    status, message = _capture("228", "FW-REBAR-BAR1")
    assert status == "not-an-issue" and "GeForce GTX 1080 Ti" in message


def test_small_bar1_on_turing_stays_open() -> None:
    # A Turing card's BAR1 can be resized by a UEFI strap patch (NvStrapsReBar): nvidia-smi cannot tell.
    status, message = _run(RTX_2080_TI, "FW-REBAR-BAR1")
    assert status == "unknown" and "256 MiB" in message


def test_pre_turing_names() -> None:
    for name in ("GeForce GTX 1080 Ti", "GeForce GTX TITAN X", "TITAN Xp", "Quadro K2200", "Quadro P2000",
                 "Tesla P100-PCIE-16GB", "Tesla V100-SXM2-32GB", "GeForce GTX 750 Ti", "GeForce GTX 645",
                 "GeForce GTX 780", "GeForce GTX TITAN Black", "Quadro K620", "Quadro GV100"):
        assert architecture_of(name) in PRE_TURING, name
    for name in ("GeForce RTX 2080 Ti", "GeForce GTX 1660 SUPER", "Tesla T4", "Quadro RTX 8000", "TITAN RTX",
                 "NVIDIA GeForce RTX 3090", "NVIDIA H100 80GB HBM3", "NVIDIA RTX A6000"):
        assert architecture_of(name) not in PRE_TURING, name


# --- a headless `nvidia-smi -q` section of clock event reasons is one GPU's (facts/nvidia_smi.py) -------------

# https://github.com/NVIDIA/nvidia-settings/issues/67 (jolars): the Clocks Throttle Reasons block of an MX330's
# `nvidia-smi -q -d PERFORMANCE`, cut from the paste above its GPU header (an indented Markdown code block).
SETTINGS_67 = """\
        Clocks Throttle Reasons
            Idle                              : Not Active
            Applications Clocks Setting       : Not Active
            SW Power Cap                      : Not Active
            HW Slowdown                       : Not Active
                HW Thermal Slowdown           : Not Active
                HW Power Brake Slowdown       : Not Active
            Sync Boost                        : Not Active
"""


def test_a_headless_clock_reasons_block_is_read_as_one_gpu() -> None:
    # Corpus 214 (kubeflow/kubeflow#68): `nvidia-smi -q | grep -A8 'Clocks Throttle'`, only Idle active.
    for check in ("PWR-CLOCK-EVENTS", "PWR-APP-CLOCKS"):
        path = next(CAPTURES.glob("214-*.txt"))
        r = run_checks(load_pasted([str(path)]), [check])[check]
        assert r.status == "ok" and r.coverage is not None and r.coverage.text() == "1 GPU shown", r.message
    status, message = _run(SETTINGS_67, "PWR-APP-CLOCKS")
    assert status == "ok" and "other GPUs are not in this source" in message


def test_a_headless_section_without_reasons_stays_unread() -> None:
    # Corpus 119 (wookayin/gpustat#135): Clocks and Max Clocks only: no reason, no GPU to judge.
    for check in ("PWR-CLOCK-EVENTS", "PWR-APP-CLOCKS"):
        assert _capture("119", check)[0] == "unknown"
