"""What a kernel's module list and a driver installer's lines settle (issue 28, h98c).

- facts/nvidia.taint_flavour: the nvidia row of /proc/modules carries the module's taint letters; P (a license that
  is not GPL-compatible) is the proprietary flavour, O or OE without P the open one (corpus 1897).
- facts/nvidia_daemons.RUN_UNPACK: the .run installer unpacking itself names the driver it installs (corpus 1897).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia import taint_flavour
from stackaudit.facts.nvidia_daemons import RUN_UNPACK


@pytest.mark.parametrize(("text", "want"), [
    # Real (capture 1897, NVIDIA/gpu-operator#180): the driver container's log.
    ("nvidia 34041856 32 nvidia_modeset,nvidia_uvm, Live 0xffffffffc099b000 (POE)", "proprietary"),
    # Real (a GPU operator guide, 460.32.03 on a Tesla V100 node): signed, so P and O only.
    ("nvidia 33988608 269 nvidia_modeset,nvidia_uvm, Live 0xffffffffa05dd000 (PO)", "proprietary"),
    # Real (an AKS node's `grep -i uvm /proc/modules`): nvidia_uvm's row is not the nvidia module's.
    ("nvidia_uvm 4673536 2 - Live 0x0000000000000000 (POE)\n"
     "nvidia 54300672 67 nvidia_modeset,nvidia_uvm, Live 0x0000000000000000 (POE)", "proprietary"),
    # Real (a Fedora laptop's /proc/modules in a kernel bug report): the open module, out-of-tree and unsigned.
    ("nvidia 12951552 26 nvidia_modeset,nvidia_uvm, Live 0x0000000000000000 (OE)", "open"),
])
def test_taint_letters_name_the_flavour(text: str, want: str) -> None:
    found = taint_flavour(text)
    assert found is not None and found[0] == want


@pytest.mark.parametrize("text", [
    # Real (a Fedora test fixture): no taint letters shown, so no flavour.
    "nvidia 54198272 1068 nvidia_modeset,nvidia_uvm, Live 0xffffffffc0900000",
    # Modelled: only nvidia_uvm's row, whose letters say nothing of the nvidia module.
    "nvidia_uvm 4673536 2 - Live 0x0000000000000000 (POE)",
    # Modelled: two rows that disagree name none.
    "nvidia 1 2 - Live 0x0 (POE)\nnvidia 1 2 - Live 0x0 (OE)",
])
def test_no_flavour_without_the_nvidia_row_s_letters(text: str) -> None:
    assert taint_flavour(text) is None


def test_run_installer_names_its_driver() -> None:
    text = ("Creating directory NVIDIA-Linux-x86_64-460.32.03\nVerifying archive integrity... OK\n"
            "Uncompressing NVIDIA Accelerated Graphics Driver for Linux-x86_64 460.32.03.......\n")
    assert {m.group("driver") for m in RUN_UNPACK.finditer(text)} == {"460.32.03"}


def test_capture_1897_proprietary_pre_r515_is_not_an_issue() -> None:
    """Real (capture 1897): the loaded module is tainted P and the container installs 460.32.03, before R515."""
    r = capture_checks("1897", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "not-an-issue"


def test_open_taint_on_a_blackwell_host_is_ok(tmp_path: Path) -> None:
    """Modelled: the nvidia row tainted OE (open) beside nvidia-smi's header: the open flavour, not unknown."""
    text = ("$ cat /proc/modules | grep nvidia\n"
            "nvidia 12951552 26 nvidia_modeset,nvidia_uvm, Live 0x0000000000000000 (OE)\n"
            "nvidia_uvm 4673536 2 - Live 0x0000000000000000 (OE)\n")
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status != "issue"
    assert "open" in (r.actual or "")


@pytest.mark.parametrize(("line", "want"), [
    # Real (capture 1876, vllm-project/production-stack#528).
    ("The key point here is ```print('TORCH_CUDA_ARCH_LIST:', torch.cuda.get_arch_list())```, RTX 50xx requires sm_120",
     "GeForce RTX 50 series"),
    # Real (Hellod035/LeggedLab#26, the issue's title).
    ("CUDA error：RTX 50xx‘s sm_120 is not compatible with the current PyTorch installation", "GeForce RTX 50 series"),
    # Real (aigc3d/LHM-plusplus#8): the series glued to its brand, the capability in code words.
    ("Please add 12.0 to TORCH_CUDA_ARCH_LIST in setup.py to enable native Blackwell sm_120 support for RTX50 series cards.",
     "GeForce RTX 50 series"),
    # Modelled: an older series with its own capability.
    ("RTX 40-series cards are sm_89", "GeForce RTX 40 series"),
])
def test_series_named_with_its_capability(line: str, want: str) -> None:
    from stackaudit.facts.gpus import stated_series

    assert stated_series(line) == want


@pytest.mark.parametrize("line", [
    # Real (eddyhhlure1Eddy/sageattention3_blackwell#1's title): a series without a capability states no machine.
    "RTX 50 Series support",
    # Modelled: a capability that is not the series' is no statement of its GPU.
    "RTX 50xx requires sm_100",
    # Modelled: the Quadro RTX 5000 is a model, not the 50 series.
    "Quadro RTX 5000 is sm_75",
])
def test_no_series_without_its_capability(line: str) -> None:
    from stackaudit.facts.gpus import stated_series

    assert stated_series(line) == ""


def test_capture_1876_series_in_words_meets_the_wheel_s_arch_list() -> None:
    """Real (capture 1876): torch 2.7.0+cu126's list stops at sm_90; the RTX 50 series the user names needs sm_120."""
    r = capture_checks("1876", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "issue"
    assert "GeForce RTX 50 series (compute 12.0)" in r.message
