"""An application Xid (13/31/43) of the stack's own process is the program's fault: not an issue alone
(facts/symptoms.py STACK_XID: DRV-XID reads it only to send its advice to the engine first).

The catalogue calls 13/31/43 application faults: alone they are no hardware finding, whichever process the driver
names. The blind readings of the class agree (h68l count: a serving or training stack's process faulting with no
hardware Xid, no repeat under other processes and no failed link beside it reads not-an-issue in 695 and 835
(llama-server) and 490 (SGLang's python3), issue only in 308): an engine's illegal address is the engine's bug, not
the GPU's. A hardware Xid beside them (143's Xid 94, quoted under MEM-ROW-REMAP-ECC) keeps DRV-XID an issue.
Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks

STACK_FAULTS = [
    # https://github.com/flashinfer-ai/flashinfer/issues/3869 (an SGLang TP8 node; the Xid 13 line names no process)
    ("```\n19:14:43  NVRM: Xid (PCI:0000:1a:00): 13, Graphics Exception: ESR 0x57e7b0=0x81e0017 0x57e7b4=0x24 "
     "0x57e7a8=0x1f81fb60 0x57e7ac=0x1174\n"
     "19:15:34  NVRM: Xid (PCI:0000:9a:00): 31, pid=477445, name=python3, channel 0x00000002, intr 00000000.\n"
     "          MMU Fault: ENGINE GRAPHICS GPC0 UNRECOGNIZED_CLIENT faulted @ 0x182400_0030198d.\n"
     "          Fault is of type UNRECOGNIZED_FAULT UNRECOGNIZED_ACCESS_TYPE\n```\n", "name=python3"),
    # https://github.com/amoghmunikote/cmpunlocker/pull/31 (vLLM inference; the driver then asks for a reboot)
    ("```\nAug 19 11:36:35  NVRM: Xid (PCI:0000:02:00): 31, pid=56543, name=python3.12,\n"
     "  channel 0x01000005. MMU Fault: ENGINE CE2 HUBCLIENT_HSCE2 faulted @ 0x100_07600000.\n"
     "  Fault is of type FAULT_INFO_TYPE_REGION_VIOLATION ACCESS_TYPE_VIRT_WRITE\n\n"
     "Aug 19 11:38:39  NVRM: Xid (PCI:0000:02:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
     "(OS Reboot)\n```\n", "name=python3.12"),
]


# Modelled: the engine the threads ran, as a pasted command line beside the real Xid lines.
ENGINE_COMMANDS = ["$ python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8\n",
                   "$ vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.9\n"]


@pytest.mark.parametrize(("text", "name"), STACK_FAULTS)
def test_a_python_fault_with_the_stack_shown_is_the_programs(tmp_path: Path, text: str, name: str) -> None:
    command = ENGINE_COMMANDS[STACK_FAULTS.index((text, name))]
    result = paste_checks(tmp_path, command + text, "DRV-XID")["DRV-XID"]
    if "154, GPU recovery action" in text:
        # The driver asks for a reboot (Xid 154): that is the finding, whatever faulted.
        assert result.status == "issue"
    else:
        assert result.status == "not-an-issue" and "application faults" in result.message


def test_a_python_fault_alone_is_the_programs(tmp_path: Path) -> None:
    # The first real paste with nothing of a serving engine: the interpreter's name does not say which program ran.
    result = paste_checks(tmp_path, STACK_FAULTS[0][0], "DRV-XID")["DRV-XID"]
    assert result.status == "not-an-issue"


@pytest.mark.parametrize("prefix", ["695", "835"])
def test_corpus_llama_server_faults_are_not_issues(prefix: str) -> None:
    # 695: one Xid 31 of name=llama-server under --spec-type draft-mtp; 835: ik_llama's llama-server Xid 31 before
    # its own illegal memory access: the program's invalid pointer, not the GPU.
    result = capture_checks(prefix, "DRV-XID")["DRV-XID"]
    assert result.status == "not-an-issue" and "application faults" in result.message


def test_a_hardware_xid_beside_stack_faults_keeps_the_issue() -> None:
    # 143: pt_main_thread (Xid 43) and python3.10 (Xid 31) beside an Xid 94 that MEM-ROW-REMAP-ECC quotes: the host's
    # Xids are not application faults only.
    result = capture_checks("143", "DRV-XID")["DRV-XID"]
    assert result.status == "issue" and "Xid 94" in result.message


def test_a_stack_fault_beside_another_xid_is_that_xids_issue() -> None:
    # 195: pt_main_thread's Xid 13 and an Xid 109 (context switch timeout) on the same GPU.
    result = capture_checks("195", "DRV-XID")["DRV-XID"]
    assert result.status == "issue" and "Xid 109" in result.message


@pytest.mark.parametrize("prefix", ["343", "308"])
def test_corpus_python_faults_with_no_stack_shown_are_not_issues(prefix: str) -> None:
    # 343: tinygrad's `name=python` MMU faults (tinygrad/tinygrad#6947); 308: one `name=python3` line (the SGLang
    # server is the thread's, not the paste's).
    result = capture_checks(prefix, "DRV-XID")["DRV-XID"]
    assert result.status == "not-an-issue"
    assert "application faults" in result.message


@pytest.mark.parametrize("prefix", ["298", "252", "227"])
def test_other_programs_faults_stay_not_an_issue(prefix: str) -> None:
    # 298: a game under DXVK (no name= field); 252: UnrealEditor; 227: Xid 13 lines that name no process.
    assert capture_checks(prefix, "DRV-XID")["DRV-XID"].status == "not-an-issue"


def test_a_desktop_programs_fault_is_no_stack_fault(tmp_path: Path) -> None:
    # Modelled: Xid 31 of Xorg and Xid 13 of an unnamed process on a workstation.
    text = ("[ 812.1] NVRM: Xid (PCI:0000:01:00): 31, pid=1422, name=Xorg, Ch 00000010, intr 00000000. MMU Fault: "
            "ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x1_0c3c0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n"
            "[ 812.2] NVRM: Xid (PCI:0000:01:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: "
            "ESR 0x504730=0x100009\n")
    assert paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"].status == "not-an-issue"
