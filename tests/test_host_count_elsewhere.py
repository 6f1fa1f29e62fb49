"""The host's GPU count from another piece of the same paste, beside an nvidia-smi table cut after a few GPUs: the
coverage of a verdict over the GPUs shown reads `K of N shown` (issue 28, blind YI, YO, YR and XZ runs).

- facts/gpus.NVC_LISTING: nvidia-container-cli's `listing device /dev/nvidiaN (GPU-… at <bus>)` debug lines, one a
  GPU the driver lists, count the host's GPUs where the device blocks under them are cut (corpus 1460).
- facts/gpus._COUNT_AFTER: a count glued to its noun after the model (`A100 8card`, corpus 1357).
- facts/gpus._OWNED_COUNT: `have` after the first person's own clause (`I am using Linux and have 8 GPUs`, corpus 1427).
- facts/gpus._HOST_HAS: the machine's holding, in digits or a word (`the node has two H800 GPU Cards`, corpus 1240).

A count only in a thread's title (1358: `8x L40S`) is no part of the paste and stays out (its gap entry says so).
"""

from __future__ import annotations

import pytest

from corpus import capture_checks, fact, pasted
from stackaudit.facts.gpus import GpuInventory, owned_gpu_count, parse_nvc_info, stated_gpus

# Corpus 1460's capture, lines 18-20 (the library's listing lines; the other five are the same shape).
LISTING = """\
I0531 20:31:21.504909 23192 nvc_info.c:623] listing device /dev/nvidia0 (GPU-5d49bdf4-b8d0-21ce-9260-a89c66748d92 at 00000000:1a:00.0)
I0531 20:31:21.513364 23192 nvc_info.c:623] listing device /dev/nvidia1 (GPU-bb7b99c7-32ed-1a0e-197d-538ead68df4c at 00000000:1b:00.0)
I0531 20:31:21.522278 23192 nvc_info.c:623] listing device /dev/nvidia2 (GPU-6773a289-bb4d-9bc7-b36b-4bafdff4addf at 00000000:60:00.0)
"""


def test_listing_lines_count_the_hosts_gpus_in_index_order() -> None:
    inv = parse_nvc_info(LISTING, whole=False)
    assert [(g.index, g.bdf) for g in inv.gpus] == [(0, "0000:1a:00.0"), (1, "0000:1b:00.0"), (2, "0000:60:00.0")]
    assert inv.count == 3 and inv.count_unshown  # an excerpt: a lower bound


def test_listing_lines_alone_in_a_paste_feed_the_inventory() -> None:
    inv = fact(pasted(LISTING), "gpus")
    assert isinstance(inv, GpuInventory) and inv.at_least == 3


def test_a_block_keeps_its_model_beside_the_listing() -> None:
    """Modelled: the listing line and its device block name the same GPU: one record, the block's model."""
    block = ("Device Index:   0\nDevice Minor:   0\nModel:          NVIDIA A100-SXM4-80GB\nBrand:          Nvidia\n"
             "GPU UUID:       GPU-1\nBus Location:   00000000:1a:00.0\nArchitecture:   8.0\n")
    inv = parse_nvc_info(LISTING + "\n" + block, whole=False)
    assert len(inv.gpus) == 3 and inv.gpus[0].model == "NVIDIA A100-SXM4-80GB"


@pytest.mark.parametrize(("line", "said"), [
    ("[question] A100 8card when profile_serving only 95% or 96% or 97% Volatile GPU-Util", [(8, "A100")]),  # 1357
    ("Normally, the node has two H800 GPU Cards:", [(2, "H800 SXM")]),  # 1240 (the table's H800 row)
    ("my server has 4 RTX 3090 GPUs", [(4, "RTX 3090")]),  # modelled
    ("each node has two H100 GPUs", []),  # modelled: a cluster's nodes in general, not the one host
    ("run with 8cores", []),  # modelled: no card or GPU noun
])
def test_stated_counts(line: str, said: list[tuple[int, str]]) -> None:
    assert stated_gpus(line) == said


def test_owned_count_after_the_first_persons_clause() -> None:
    assert owned_gpu_count("I am using Linux and have 8 GPUs. The output of `nvidia-smi`") == 8  # corpus 1427
    assert owned_gpu_count("I have 2 NVIDIA cards detected as CUDA0 and CUDA1") == 2  # corpus 1059, as before
    assert owned_gpu_count("The server is busy and have 8 GPUs") is None  # modelled: not the first person


def test_owned_count_in_the_singular_and_a_host_named_by_its_count() -> None:
    assert owned_gpu_count("I have 7 gpu for the gpustack instance:") == 7  # corpus 719
    assert owned_gpu_count("trying to use nccl in a 3 gpu setup.  This is the nvidia-smi log:") == 3  # corpus 631
    # Modelled: the count of what follows the singular, not of GPUs; the same words without a host after them.
    assert owned_gpu_count("I have 2 GPU servers in the rack") is None
    assert owned_gpu_count("we ran it in a 3 gpu job") is None
    assert owned_gpu_count("on an 8-GPU host") == 8


@pytest.mark.parametrize(("prefix", "check", "coverage"), [
    ("1460", "DRV-PERSISTENCE", "2 of 8 GPUs shown"),
    ("1357", "PWR-GPU-POWER-LIMIT", "3 of 8 GPUs shown"),
    ("1427", "MEM-GPU-SHARED", "2 of 8 GPUs shown"),
    ("1240", "DRV-PERSISTENCE", "1 of 2 GPUs shown"),
    ("1358", "DRV-PERSISTENCE", "2 GPUs shown"),  # the count is in the title only
    ("631", "DRV-PERSISTENCE", "2 of 3 GPUs shown"),  # `a 3 gpu setup`
    ("719", "DRV-PERSISTENCE", "1 of 7 GPUs shown"),  # `I have 7 gpu`
])
def test_coverage_from_the_count_elsewhere_in_the_paste(prefix: str, check: str, coverage: str) -> None:
    r = capture_checks(prefix, check)[check]
    assert r.coverage is not None and r.coverage.text() == coverage
