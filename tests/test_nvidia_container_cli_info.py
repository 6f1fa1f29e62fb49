"""`nvidia-container-cli info`'s device blocks as a GPU listing (importers/nvidia_container_cli.py,
facts/gpus.py `parse_nvc_info`).

Real paste: corpus 1270 (NVIDIA/nvidia-docker#1548: a WSL 2 laptop's GeForce GTX 1660 Ti with Max-Q Design, the
copy cut above its Device Index line). The whole two-device output is modelled (marked so below).
"""

from __future__ import annotations

from corpus import capture_checks, fact, pasted
from stackaudit.facts.gpus import GpuInventory

# Corpus 1270's capture, lines 1-9.
CUT_BLOCK = """\
Device Minor:   0
Model:          NVIDIA GeForce GTX 1660 Ti with Max-Q Design
Brand:          GeForce
GPU UUID:       GPU-d8374a7e-bb23-a73e-bb4e-5421ad9ea115
Bus Location:   00000000:01:00.0
Architecture:   7.5
I0917 09:07:43.203478 2113 nvc.c:423] shutting down library context
I0917 09:07:43.205610 2114 driver.c:163] terminating driver service
I0917 09:07:43.210303 2113 driver.c:203] driver service terminated successfully
"""
# Modelled: the whole output of a host with two A100s (the toolkit's layout: a block per device, blank between).
WHOLE_TWO = """\
NVRM version:   535.104.05
CUDA version:   12.2

Device Index:   0
Device Minor:   0
Model:          NVIDIA A100-SXM4-80GB
Brand:          Nvidia
GPU UUID:       GPU-11111111-2222-3333-4444-555555555555
Bus Location:   00000000:07:00.0
Architecture:   8.0

Device Index:   1
Device Minor:   1
Model:          NVIDIA A100-SXM4-80GB
Brand:          Nvidia
GPU UUID:       GPU-66666666-7777-8888-9999-000000000000
Bus Location:   00000000:0f:00.0
Architecture:   8.0
I1201 10:00:00.000000 100 nvc.c:423] shutting down library context
"""
# Modelled: /proc/driver/nvidia/gpus/*/information (a bug report's): Model and Bus Location, no Brand or Architecture.
PROC_INFORMATION = """\
Model: 		 Quadro K2200
IRQ:   		 130
GPU UUID: 	 GPU-462b7f93-bbf0-979b-1feb-893f9fe44600
Bus Location: 	 0000:01:00.0
Device Minor: 	 0
"""


def _gpus(text: str) -> GpuInventory | None:
    value = fact(pasted(text), "gpus")
    return value if isinstance(value, GpuInventory) else None


def test_a_cut_block_is_one_gpu_shown_of_at_least_one() -> None:
    gpus = _gpus(CUT_BLOCK)
    assert gpus is not None and gpus.count == 1 and gpus.count_unshown
    assert gpus.gpus[0].model == "NVIDIA GeForce GTX 1660 Ti with Max-Q Design"
    assert gpus.gpus[0].bdf == "0000:01:00.0"


def test_the_whole_output_counts_its_devices() -> None:
    gpus = _gpus(WHOLE_TWO)
    assert gpus is not None and gpus.count == 2 and not gpus.count_unshown
    assert [g.index for g in gpus.gpus] == [0, 1]


def test_procs_information_is_not_this_listing() -> None:
    gpus = _gpus(PROC_INFORMATION)
    assert gpus is None or all("nvidia-container-cli" not in s for g in gpus.gpus for s in g.shown_by)


def test_1270_a_geforce_has_no_mig() -> None:
    assert capture_checks("1270", "MEM-MIG")["MEM-MIG"].status == "not-applicable"
