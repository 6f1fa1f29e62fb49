"""GPU faults as users paste them (issue 28, h121a): Xids in the user's words, the driver's Xid record without its
`NVRM:` tag, memory Xids and correctable-only ECC counts in prose, nvidia-smi's `Unable to determine the device handle`
quoted in a sentence.

An Xid the user reports (a sentence that says it happened, a count, a list under a sentence that reports the Xids) is
a GPU event (facts/gpu_events.stated_xids): DRV-XID judges it by its class, MEM-ROW-REMAP-ECC by its memory meaning. A
number the user asks about, supposes, negates or cites from the catalogue is no event. The corpus files are real
pastes (2345, 2847, 2848, 2851, 2852, 2857); the other lines are modelled on their wording or on public threads named
beside them, and are said so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.gpu_events import STATED_GPU, stated_xid_list, stated_xids
from stackaudit.facts.nvidia import used_open

XID = "DRV-XID"
ECC = "MEM-ROW-REMAP-ECC"
OPEN = "DRV-OPEN-MODULE"
# A header line that makes a modelled paste an output (nvidia-smi's versions), beside the user's words.
HEADER = "NVIDIA-SMI 570.133.20   Driver Version: 570.133.20   CUDA Version: 12.8\n"


def _codes(line: str) -> list[tuple[int | None, str, int]]:
    return [(e.code, e.bdf, e.count) for e in stated_xids(line)]


def test_the_corpus_pastes_of_stated_gpu_faults() -> None:
    # 2847: `two GPU crashes with the exact same NVIDIA Xid 62 signature ... followed by Xid 154 (`GPU Reset
    # Required`)`, under a list that says `NVIDIA kernel module: open` on an RTX 5060 Ti.
    r = capture_checks("2847", XID, OPEN)
    assert r[XID].status == "issue" and "Xid 62" in r[XID].message and "GPU Reset Required" in r[XID].message
    assert r[OPEN].status == "ok", r[OPEN].message
    # 2848: `dmesg shows repeated NVIDIA Xid events, all on the same GPU (PCI `0000:9c:00` ...):` over the list of them.
    r = capture_checks("2848", XID, ECC)
    assert r[XID].status == "issue" and r[XID].subjects == ("0000:9c:00.0",), r[XID].subjects
    assert all(f"Xid {c}" in r[XID].message for c in (48, 63, 94)) and "Drain and Reset" in r[XID].message
    assert r[ECC].status == "issue" and "Xid 48" in r[ECC].message and r[ECC].subjects == ("0000:9c:00.0",)
    # 2851: a P100 that `died from an uncorrectable HBM2 double-bit ECC error (Xid 48/64/62/171/154 ...)`: the paste
    # was refused before; Xid 64 is a failed retirement, an RMA.
    r = capture_checks("2851", XID, ECC)
    assert r[XID].status == "issue" and r[ECC].status == "issue" and r[ECC].severity == "high"
    assert "RMA" in str(r[ECC].fix), r[ECC].fix
    # 2852: `6× Xid 79` and `ops notes recorded Xid 62 on both GPUs`; 236,795 single-bit events with no double-bit
    # event and no pending retirement: correctable only.
    r = capture_checks("2852", XID, ECC)
    assert r[XID].status == "issue" and "Xid 79 ×6" in r[XID].message, r[XID].message
    assert r[ECC].status == "not-an-issue" and "single-bit" in r[ECC].message, r[ECC].message
    # 2345: `The kernel log confirms this with a Xid 79 error`.
    assert capture_checks("2345", XID)[XID].status == "issue"
    # 2857: nvidia-smi's `Unknown Error` for GPU 0000:17:00.0 quoted in a sentence: the paste is read (it was
    # refused), and DRV-XID stays unknown with the line quoted (no kernel log names the cause).
    r = capture_checks("2857", XID)[XID]
    assert r.status == "unknown" and "device handle" in r.message, r.message


@pytest.mark.parametrize(("line", "codes"), [
    # A sentence that says it happened (modelled on ollama#18144, llama.cpp#21908, open-gpu-kernel-modules#507).
    ("We hit Xid 79 twice last week on our RTX 4090.", [(79, STATED_GPU, 1)]),
    ("Linux kernel logs AMD IOMMU I/O page-faults and then a GPU MMU fault (Xid 31)", [(31, STATED_GPU, 1)]),
    ("You're getting a XID 79, fallen off the bus.", [(79, STATED_GPU, 1)]),
    # A count, and the GPU's address in the same sentence (modelled).
    ("3x Xid 13 on GPU 0000:41:00.0 after the update, all from python.", [(13, "0000:41:00.0", 3)]),
    # A list of numbers, and a number after a comma that a unit follows is no Xid (modelled).
    ("The card died with Xid 48, 63, 94 and 154 in one minute.", [(48, STATED_GPU, 1), (63, STATED_GPU, 1),
                                                                   (94, STATED_GPU, 1), (154, STATED_GPU, 1)]),
    ("We got Xid 62, 45 minutes later the node hung.", [(62, STATED_GPU, 1)]),
    # The driver's record without its `NVRM:` tag (open-gpu-kernel-modules#1030's title), a user's elided copy of it
    # (corpus 490): the GPU's address with the number.
    ("Xid (PCI:0000:2b:00): 31 MMU Fault: ENGINE GRAPHICS GPC6 GPCCLIENT_T1_13 faulted @ 0x6f17_04027000.",
     [(31, "0000:2b:00.0", 1)]),
    ("19:15:34  Xid 31 PCI:0000:f0:00 pid=477448 ... UNRECOGNIZED_CLIENT ...", [(31, "0000:f0:00.0", 1)]),
])
def test_an_xid_the_user_reports_is_an_event(line: str, codes: list[tuple[int, str, int]]) -> None:
    assert _codes(line) == codes


@pytest.mark.parametrize("line", [
    # Asked, supposed, negated, advised or cited: no Xid of this machine (modelled; the last two from public threads:
    # gpu-operator#1065's `Xid 94 is essentially an application error`, NVSentinel#1748's `XID 45 and nothing else`).
    "could it be Xid 79?",
    "If you see Xid 79, reseat the card.",
    "Xid 79 means the GPU has fallen off the bus.",
    "The docs say Xid 48 is a double-bit ECC error.",
    "No Xid 79 in dmesg.",
    "Check dmesg for Xid 79 errors.",
    "We never saw Xid 79 here, only Xid 13 once.",
    "Xid 94 is essentially an application error and should not disable the device.",
    "XID 45 and nothing else, no SXIDs",
])
def test_an_xid_mentioned_is_no_event(line: str) -> None:
    assert stated_xids(line) == ()


def test_a_list_of_xids_is_read_under_the_sentence_that_reports_them() -> None:
    # Modelled on corpus 2848's shape, another tool and GPU: the items alone state no Xid.
    lines = ["journalctl -k shows these Xid errors on GPU 0000:41:00.0:", "- Xid 95 (uncontained ECC)",
             "- Xid 154 (Node Reboot Required)", "", "The node was drained."]
    end, text = stated_xid_list(lines, 0)
    assert end == 3
    events = [e for line in text.splitlines() for e in stated_xids(line)]
    assert [(e.code, e.bdf) for e in events] == [(95, "0000:41:00.0"), (154, "0000:41:00.0")]
    assert stated_xids(lines[1]) == ()
    # A list under a question or a citation is no report.
    assert stated_xid_list(["Which of these Xid errors should we worry about:", "- Xid 48", "- Xid 79"], 0) == (0, "")
    assert stated_xid_list(["From the Xid catalogue:", "- Xid 48: DBE", "- Xid 79: off the bus"], 0) == (0, "")


def test_stated_memory_xids_and_recovery_action(tmp_path: Path) -> None:
    # Modelled: an uncontained ECC Xid the user reports is MEM-ROW-REMAP-ECC's issue (high) and DRV-XID's.
    r = paste_checks(tmp_path, HEADER + "The A100 died with Xid 95 last night.\n", XID, ECC)
    assert r[XID].status == "issue" and r[ECC].status == "issue" and r[ECC].severity == "high", r[ECC].message
    # A contained one (94) and a row marked for remapping (63): an issue at the check's own severity.
    r = paste_checks(tmp_path, HEADER + "Our H100 logged Xid 94 and Xid 63 during the run.\n", ECC)[ECC]
    assert r.status == "issue" and r.severity != "high", r.severity
    # Xid 154 alone, its recovery action quoted: the GPU is faulted (the driver asks for a reset).
    r = paste_checks(tmp_path, HEADER + "After that the GPU logged Xid 154 (GPU Reset Required).\n", XID)[XID]
    assert r.status == "issue" and "GPU Reset Required" in r.message, r.message
    # A mention is no event: DRV-XID is not an issue.
    r = paste_checks(tmp_path, HEADER + "Could this be an Xid 79 problem?\n", XID)[XID]
    assert r.status != "issue", r.message


def test_correctable_only_counts_in_words(tmp_path: Path) -> None:
    # Modelled on corpus 2852's words, another wording and GPU: correctable counts with no uncorrectable error and
    # nothing pending rule MEM-ROW-REMAP-ECC out.
    line = "GPU 0: 1,204 correctable ECC errors (aggregate). No uncorrectable errors and no pending row remaps.\n"
    r = paste_checks(tmp_path, HEADER + line, ECC)[ECC]
    assert r.status == "not-an-issue", r.message
    # A count alone says nothing of what is pending: the check stays open.
    r = paste_checks(tmp_path, HEADER + "GPU 0: 1,204 correctable ECC errors (aggregate).\n", ECC)[ECC]
    assert r.status == "unknown", r.message


def test_the_quoted_unopened_gpu_line(tmp_path: Path) -> None:
    # Modelled on corpus 2857, another GPU and NVML's other word: the sentence is read, DRV-XID names it and stays open.
    text = ('After a Ctrl+C nvidia-smi says "Unable to determine the device handle for GPU 0000:3b:00.0: GPU is lost" '
            "and cuda:0 no longer works.\n")
    r = paste_checks(tmp_path, text, XID)[XID]
    assert r.status == "unknown" and "0000:3b:00.0" in r.message, r.message


@pytest.mark.parametrize(("line", "said"), [
    ("- NVIDIA kernel module: open", True),  # corpus 2847
    ("Kernel module flavour: **open**", True),  # modelled
    ("- NVIDIA kernel module: proprietary", False),
    ("kernel module: open?", False),  # a question states no flavour
])
def test_a_list_item_naming_the_open_flavour(line: str, said: bool) -> None:
    assert used_open(line) is said
