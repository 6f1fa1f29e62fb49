"""An `lspci -vv` block that stops before its Express capability's LnkSta is cut (facts/lspci.py).

lspci prints LnkCap, LnkCtl and LnkSta for every function with a link, so a `-vv` block that stops before LnkSta was
cut, even when its last line is a whole flag line; an absent capability (Resizable BAR, ACS, AER) is then not shown
absent.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.lspci import parse_lspci, stops_before_link_status

CHECK = "FW-REBAR-BAR1"


def _capture_text(prefix: str) -> str:
    path = next(CAPTURES_DIR.glob(prefix + "-*.txt"))
    return path.read_text().split("verbatim -----\n", 1)[1]


def test_rtx_a4000_block_cut_after_devctl_claims_no_missing_rebar() -> None:
    # ollama/ollama#6807: the block ends on a whole DevCtl flag line, inside the Express capability.
    # The only GPU, no RDMA NIC: its 256 MiB BAR1 matters to nothing, resizable or not (not an issue).
    result = capture_checks("374", CHECK)[CHECK]
    assert result.status == "not-an-issue"
    assert "nothing to enable" not in result.message
    assert "Resizable BAR capability is not in the source" in result.message
    config = next(d for d in parse_lspci(_capture_text("374")).devices if d.bdf.endswith("01:00.0")).config
    assert config is not None and not config.complete


def test_a100_block_cut_in_devsta_is_not_whole() -> None:
    # open-mpi/hwloc#653: the block ends in a cut 'Ln' after DevSta.
    config = parse_lspci(_capture_text("05")).devices[0].config
    assert config is not None and not config.complete


def test_whole_block_still_shows_the_capability_absent() -> None:
    # kata-containers/runtime#2546: a GT 1030 block that runs to its driver lines: absence is shown.
    result = capture_checks("255", CHECK)[CHECK]
    assert result.status == "ok" and "nothing to enable" in result.message


def test_modelled_integrated_endpoint_has_no_link_to_wait_for() -> None:
    # Modelled: a Root Complex Integrated Endpoint's Express capability prints no link registers.
    lines = ["Capabilities: [40] Express (v2) Root Complex Integrated Endpoint, MSI 00",
             "DevCap:\tMaxPayload 128 bytes, PhantFunc 0", "DevCtl:\tCorrErr- NonFatalErr- FatalErr- UnsupReq-"]
    assert not stops_before_link_status(lines)
    assert stops_before_link_status([lines[0].replace("Root Complex Integrated Endpoint", "Legacy Endpoint"), *lines[1:]])
    # Cut before the Express capability: only Power Management and MSI with their registers.
    assert stops_before_link_status(["Capabilities: [60] Power Management version 3", "Flags: PMEClk- DSI- D1- D2-",
                                     "Capabilities: [68] MSI: Enable+ Count=1/1 Maskable- 64bit+",
                                     "Address: 00000000fee00000  Data: 0000"])
    # `lspci -v`: capability headers with no registers under them.
    assert not stops_before_link_status(["Capabilities: [60] Power Management version 3",
                                         "Capabilities: [78] Express Legacy Endpoint, MSI 00"])


def test_modelled_rdma_nic_keeps_the_cut_block_open(tmp_path: Path) -> None:
    # Modelled on 374: a ConnectX-6 listed before the cut GPU block: GPUDirect RDMA could use BAR1, so the
    # capability the cut hides decides, and the check stays unknown.
    nic = ("41:00.0 Infiniband controller [0207]: Mellanox Technologies MT28908 Family [ConnectX-6] [15b3:101b]\n"
           "\tSubsystem: Mellanox Technologies Device [15b3:0007]\n\n")
    text = _capture_text("374")
    start = text.index("01:00.0")
    result = paste_checks(tmp_path, text[:start] + nic + text[start:], CHECK)[CHECK]
    assert result.status == "unknown"
