"""An application Xid (13/31/43) of the stack's own process proves DRV-XID (facts/symptoms.py `stack-process-xid`).

The catalogue calls 13/31/43 application faults: alone they are no hardware finding. Where the process the driver
names is the serving or training stack's (Python, PyTorch's threads, an engine's process title), the run died on
the GPU, whatever the cause: an issue, quoted, that sends the reader to the program first. A game's, a desktop
program's or an unnamed process's fault stays not-an-issue.
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


@pytest.mark.parametrize(("text", "name"), STACK_FAULTS)
def test_a_stack_process_killed_by_an_xid_is_an_issue(tmp_path: Path, text: str, name: str) -> None:
    result = paste_checks(tmp_path, text, "DRV-XID")["DRV-XID"]
    assert result.status == "issue"
    assert any(name in line for line in result.evidence)


@pytest.mark.parametrize("prefix", ["308", "143"])
def test_corpus_stack_faults_are_issues_quoting_the_line(prefix: str) -> None:
    # 308: SGLang's python3 (Xid 31, UNRECOGNIZED_CLIENT); 143: pt_main_thread (Xid 43) and python3.10 (Xid 31).
    result = capture_checks(prefix, "DRV-XID")["DRV-XID"]
    assert result.status == "issue"
    assert "the program comes first" in result.message
    assert result.fix is not None and result.fix.steps[0].cost == "restart"


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
