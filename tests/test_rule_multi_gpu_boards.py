"""The user's count of boards that carry several GPUs each (corpus 1843).

A Tesla K80 board carries two GK210 GPUs, each a device of its own to CUDA and nvidia-smi (the GPU table's
gpus_per_board). A user who writes `K80 x2` counts boards: where a CUDA device list shows exactly twice as many
GPUs, that list is every GPU of the host (GpuInventory.whole_count), and a group over all of them has no placement to
choose.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"

_DEVICES = "ggml_cuda_init: found {n} CUDA devices:\n" + "".join(
    f"  Device {i}: Tesla K80, compute capability 3.7, VMM: yes\n" for i in range(8))
_BUFFERS = "".join(f"load_tensors:        CUDA{i} model buffer size =  7344.20 MiB\n" for i in range(8))


def _paste(boards: int, devices: int) -> str:
    """Modelled on capture 1843's lines: its hardware line, its device list and its buffer lines, resized."""
    listing = "\n".join(_DEVICES.format(n=devices).splitlines()[: devices + 1]) + "\n"
    buffers = "\n".join(_BUFFERS.splitlines()[:devices]) + "\n"
    return f"### Hardware\n\nK80 x{boards}\n\n```\n{listing}```\n\n```\n{buffers}```\n"


def test_capture_1843_two_boards_four_gpus() -> None:
    """Real (capture 1843, ggml-org/llama.cpp#13661): `K80 x2 (x4 GPUs)`, four CUDA devices, buffers on all four."""
    r = capture_checks("1843", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "host's 4 GPUs" in r.message


def test_table_row() -> None:
    from stackaudit.gputable import lookup

    assert lookup("Tesla K80").spec.gpus_per_board == 2
    assert lookup("NVIDIA A100-SXM4-80GB").spec.gpus_per_board == 1


def test_modelled_boards_counted(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, _paste(2, 4), PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue"


def test_modelled_list_short_of_the_boards_stays_open(tmp_path: Path) -> None:
    """Modelled: two boards but three devices listed (CUDA_VISIBLE_DEVICES may hide one): the host's count is open."""
    assert paste_checks(tmp_path, _paste(2, 3), PLACEMENT)[PLACEMENT].status == "unknown"
