"""nvtop's screen text (importers/nvtop.py): each device's header (name, current PCIe link) and its utilisation meter,
recorded as `nvidia-smi -q` sections in the monitor's own source, read after nvidia-smi's outputs; the link checks
judge the current generation as they judge `-q`'s. gpustat's rows are read the same way.

Real text: corpus 1176 (Syllo/nvtop#6, two device headers with the user's markdown emphasis), and two screens the code
search found: an AutoDL container's two RTX 2080 Ti at 100 % (a benchmark write-up), an RTX A6000 pair at 100 % under a
serving benchmark, one at Gen 3 and one at Gen 4; gpustat: corpus 2409 (four P100 rows, then nvidia-smi's table cut after
GPU 0) and 1700 (four TITAN Xp rows alone). Modelled: the counter-cases.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.importers.recognition import recognise

LINK = "PCIE-LINK-DOWNTRAIN"

# The AutoDL write-up's nvtop fence, its first two devices verbatim.
AUTODL_2080TI = """root@autodl-container-xxxxx:~# nvtop

 Device 0 [NVIDIA GeForce RTX 2080 Ti] PCIe GEN 3@16x RX: 4.815 MiB/s TX: 5.496 MiB/s
 GPU 1905MHz MEM 6800MHz TEMP  43°C FAN  35% POW  91 / 250 W
 GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||          3.483Gi/11.000Gi]

 Device 1 [NVIDIA GeForce RTX 2080 Ti] PCIe GEN 3@16x RX: 5.112 MiB/s TX: 5.615 MiB/s
 GPU 1905MHz MEM 6800MHz TEMP  40°C FAN  35% POW  92 / 250 W
 GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||          3.483Gi/11.000Gi]
"""

# The A6000 notes' nvtop fence, verbatim as far as the second device's clocks.
A6000_PAIR = """Device 0 [NVIDIA RTX A6000] PCIe GEN 3@16x RX: 118.7 MiB/s TX: 8.936 MiB/s
 GPU 1590MHz MEM 8001MHz TEMP  68°C FAN  97% POW 298 / 300 W
 GPU[||||||||||||||||||||||||||||100%] MEM[||||||||||||||45.441Gi/47.988Gi]

 Device 1 [NVIDIA RTX A6000] PCIe GEN 4@16x RX: 33.06 MiB/s TX: 9.326 MiB/s
 GPU 1560MHz MEM 8001MHz TEMP  64°C FAN  91% POW 298 / 300 W
"""


def test_1176_idle_gen1_at_full_width_is_power_saving() -> None:
    r = capture_checks("1176", LINK, "MEM-MIG")
    assert r[LINK].status == "not-an-issue" and "Gen1 x16" in r[LINK].message
    assert r["MEM-MIG"].status == "not-applicable"


def test_devices_and_their_meters_are_one_span_each() -> None:
    spans = [s for s in recognise(AUTODL_2080TI).recognised if s[0] == "nvtop"]
    assert spans == [("nvtop", 3, 5), ("nvtop", 7, 9)]


def test_busy_gpus_at_their_full_link_are_ok(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, AUTODL_2080TI, LINK)[LINK]
    assert r.status == "ok", r.message


def test_a_busy_gpu_a_generation_below_its_twin_is_flagged(tmp_path: Path) -> None:
    # The A6000 (Gen 4) at Gen 3 while at 100 %: below capability under load, as `-q` would show it.
    r = paste_checks(tmp_path, A6000_PAIR, LINK)[LINK]
    assert r.status == "issue" and "GPU 0" in str(r.subjects)


def test_other_device_lines_are_not_nvtop() -> None:
    # Modelled: CUDA samples' `Device 0: NAME` and lspci's lines carry no `PCIe GEN g@wx` link.
    text = " Device 0: NVIDIA GeForce RTX 2080 Ti\n Device 1 [GeForce] PCIe link up\n"
    assert not [s for s in recognise(text).recognised if s[0] == "nvtop"]


# --- a monitor's rows beside nvidia-smi's table -------------------------------------------------------------------

SHARED, PERSIST, POWER = "MEM-GPU-SHARED", "DRV-PERSISTENCE", "PWR-GPU-POWER-LIMIT"


def test_2409_gpustat_rows_leave_the_table_read() -> None:
    # gpustat's four rows, then nvidia-smi cut after GPU 0: the table's row (persistence Off, 250 W cap, 0 MiB) is
    # the nvidia fact, and the rows still count the four GPUs the host has.
    r = capture_checks("2409", PERSIST, SHARED, POWER)
    assert r[PERSIST].status == "issue" and r[SHARED].status == "ok" and r[POWER].status == "ok", r
    assert (len(r[POWER].coverage.shown), r[POWER].coverage.total) == (1, 4)


def test_1700_gpustat_rows_alone_still_list_the_gpus() -> None:
    # No table beside them: the rows are the listing (four TITAN Xp, Pascal: no MIG), and show no cap or mode.
    r = capture_checks("1700", "MEM-MIG", PERSIST, POWER)
    assert r["MEM-MIG"].status == "not-applicable" and r["MEM-MIG"].coverage.total == 4
    assert r[PERSIST].status == "unknown" and r[POWER].status == "unknown"


def test_a_table_without_the_rows_reads_as_before(tmp_path: Path) -> None:
    # Modelled counter-case: the same rows with the table's GPU 0 row persistence On: the table, not the rows, decides.
    from corpus import body

    text = body("2409").replace("Tesla P100-PCIE...  Off  |", "Tesla P100-PCIE...  On   |")
    r = paste_checks(tmp_path, text, PERSIST)[PERSIST]
    assert r.status == "ok", r.message
