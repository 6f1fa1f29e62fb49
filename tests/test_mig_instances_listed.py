"""Issue 28, use every piece of evidence: a MIG instance a pasted listing shows (`nvidia-smi -L`, collect_env's GPU
list, `nvidia-smi mig -lgi`, `dcgmi discovery -c`) proves MIG on for its GPU and sliced by hand, so MEM-MIG judges it
where no GPU shows its MIG mode (facts/mig_setup.py MIG_INSTANCE_LINE, checks/mem.py _mig_from_instances)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.mig_setup import MIG_INSTANCE_LINE, parse_mig_instances


@pytest.mark.parametrize(("capture", "quoted"), [
    # Real: https://github.com/NVIDIA/DCGM/issues/138, `sudo nvidia-smi mig -lgi` on a Kubernetes node.
    ("1170", "GPU(s) 0, 1"),
    # Real: https://github.com/vllm-project/vllm/issues/11320 (corpus 476), collect_env's GPU list with a MIG device.
    ("476", "MIG 1g.10gb"),
    # Real: https://github.com/NVIDIA/dcgm-exporter/issues/507 (corpus 181), `dcgmi discovery -c` on two GPUs.
    ("181", "GPU Instance"),
])
def test_instances_listed_are_slicing_on_purpose(capture: str, quoted: str) -> None:
    result = capture_checks(capture, "MEM-MIG")["MEM-MIG"]
    assert result.status == "not-an-issue"
    assert quoted in result.message and "sliced by hand" in result.message


# Modelled: `nvidia-smi -L` with MIG devices, and a vLLM command at TP 2.
LISTING_TP2 = """\
$ nvidia-smi -L
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-11111111-2222-3333-4444-555555555555)
  MIG 3g.40gb     Device  0: (UUID: MIG-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee)
  MIG 3g.40gb     Device  1: (UUID: MIG-ffffffff-bbbb-cccc-dddd-eeeeeeeeeeee)

$ vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2
"""


def test_instances_under_an_engine_at_tp_2_are_the_issue(tmp_path: Path) -> None:
    result = paste_checks(tmp_path, LISTING_TP2, "MEM-MIG")["MEM-MIG"]
    assert result.status == "issue" and "TP=2" in result.message


def test_a_listing_without_mig_devices_says_nothing_of_mig(tmp_path: Path) -> None:
    plain = LISTING_TP2.replace("  MIG 3g.40gb     Device  0: (UUID: MIG-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee)\n", "") \
        .replace("  MIG 3g.40gb     Device  1: (UUID: MIG-ffffffff-bbbb-cccc-dddd-eeeeeeeeeeee)\n", "")
    result = paste_checks(tmp_path, plain, "MEM-MIG")["MEM-MIG"]
    assert "sliced by hand" not in result.message and result.status != "issue"


def test_the_instance_line_shapes() -> None:
    assert MIG_INSTANCE_LINE.match("  MIG 1g.10gb     Device  0:")
    assert MIG_INSTANCE_LINE.match("|   1  MIG 3g.40gb          9        1          4:4     |")
    assert MIG_INSTANCE_LINE.match("| -> I 0/2          | GPU Instance (EntityID: 1)          |")
    # A device plugin's resource name or prose about MIG is not an instance listed.
    assert not MIG_INSTANCE_LINE.match("nvidia.com/mig-1g.10gb: 1")
    assert not MIG_INSTANCE_LINE.match("MIG 1g.10gb is what I want")
    assert parse_mig_instances("|   1  MIG 3g.40gb   9   1   4:4 |\n").instance_gpus == (1,)
