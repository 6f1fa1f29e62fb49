"""DRV-FABRIC-MANAGER: a CUDA device list cut inside its last GPU's name (corpus 1852).

torch initialising CUDA on two to four SXM GPUs shows either a board that needs no Fabric Manager or an NVSwitch
board whose fabric is up: ok either way. A paste cut inside the last GPU's name (`GPU 3: NVIDIA H`) leaves that GPU
the model it begins beside it (checks/drv._full_names), so the list still names one SXM model.
"""

from __future__ import annotations

from corpus import capture_checks

FM = "DRV-FABRIC-MANAGER"


def test_capture_1852_four_h100_cut_inside_the_last_name() -> None:
    """Real (capture 1852): collect_env of four `NVIDIA H100 80GB HBM3`, the fourth cut to `NVIDIA H`."""
    r = capture_checks("1852", FM)[FM]
    assert r.status == "ok" and "4 NVIDIA H100 80GB HBM3" in r.message


def test_cut_name_reads_as_the_one_it_begins() -> None:
    from stackaudit.checks.drv import _full_names

    h100 = "NVIDIA H100 80GB HBM3"
    assert _full_names([h100, h100, "NVIDIA H..."]) == [h100, h100, h100]
    # Modelled: a cut that begins two names shown, or none, stays cut; so the list names no one model.
    assert _full_names([h100, "NVIDIA H200", "NVIDIA H..."])[2] == "NVIDIA H..."
    assert _full_names(["NVIDIA A100-SXM4-80GB", "NVIDIA H..."])[1] == "NVIDIA H..."
