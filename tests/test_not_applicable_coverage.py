"""Issue 28: a not-applicable that the GPUs shown decide states their coverage, as an ok does.

The models of the GPUs shown (no MIG, no NVSwitch, no ECC, no GSP, no NVLink) or their driver model (WDDM) decide
such a verdict. A GPU that a cut table leaves out could be another model, so the verdict is a claim over the GPUs
shown (checks/registry.py `over_subjects`: `1 GPU shown`, `1 of 4 GPUs shown`, and the hint for the rest).
A not-applicable from a host-wide fact (a PCI bus without an NVSwitch, one GPU in a whole listing) keeps none.

Real pastes (corpus files, each from its own public thread):
- 653: https://github.com/ModelCloud/GPTQModel/issues/1491 (three V100-SXM2, cut inside GPU 2's rows)
- 647: https://github.com/triton-inference-server/server/issues/8184 (two A100 80GB PCIe, cut inside GPU 1's rows)
- 228: https://github.com/eler/git_examples/blob/8bae4ce021861fd4a2a14dcf2c6526f3f8b59d31/nvidia-bug-report.log
  (`Attached GPUs: 4`, one GTX 1080 Ti section shown)
- 407: https://github.com/NVIDIA/nccl/issues/19 (a six-GPU matrix; a test header names the model of three)
- 05: https://github.com/open-mpi/hwloc/issues/653 (one A100 SXM4's `lspci -vvv`: a fixed BAR1)
- 246: https://github.com/huggingface/text-generation-inference/issues/1156 (a GRID A100 vGPU whose cap reads N/A)
- whole listings: 402 (https://github.com/noonghunna/club-3090/issues/178, two RTX 3090), 661
  (https://github.com/TabbyML/tabby/issues/561, one Quadro T2000 under WDDM), 324
  (https://github.com/vllm-project/vllm/issues/4661, a collect_env of four A100 PCIe)
- host-wide: 82 (https://github.com/ROCm/rccl/issues/1129, AMD MI100s only), 66
  (https://github.com/ray-project/ray/issues/13619, an EC2 m5 instance), one GPU in a whole listing: 158 (https://github.com/NVIDIA/nvidia-container-toolkit/issues/188, a Tesla T4's
  `nvidia-smi -q`, `Attached GPUs : 1`)
MODELLED: the outcomes given to `over_subjects`, and an 8-GPU PCIe host read live (tests/nvidia_support.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from corpus import CAPTURES_DIR
from nvidia_support import host_for, pcie_box
from stackaudit.checks.registry import not_applicable, over_subjects
from stackaudit.cli.main import main
from stackaudit.engine.results import Result
from stackaudit.engine.testing import run_checks
from stackaudit.importers.pasted import load_pasted


def _result(prefix: str, check_id: str) -> Result:
    [path] = sorted(CAPTURES_DIR.glob(f"{prefix}*.txt"))
    return run_checks(load_pasted([str(path)]), [check_id])[check_id]


# -- the rule itself (modelled outcomes) --------------------------------------------------------------


def test_a_not_applicable_over_shown_subjects_gets_their_coverage_and_the_hint_for_the_rest() -> None:
    out = over_subjects(not_applicable("no MIG on these GPUs"), ["0000:04:00.0"], 4, ask="nvidia-smi -q")
    assert out.status == "not-applicable" and out.coverage is not None
    assert out.coverage.text() == "1 of 4 GPUs shown"
    assert out.hint == "`nvidia-smi -q` for all 4 GPUs; the source has 0000:04:00.0 only"
    whole = over_subjects(not_applicable("no MIG on these GPUs"), ["GPU 0", "GPU 1"], 2, ask="nvidia-smi -q")
    assert whole.coverage is not None and whole.coverage.complete and whole.hint == ""
    # No GPU shown: nothing decided it, as for an ok.
    assert over_subjects(not_applicable("no MIG"), [], 4).status == "unknown"


# -- real cut tables: the verdict covers the GPUs shown ---------------------------------------------


@pytest.mark.parametrize(("prefix", "check_id", "coverage"), [
    ("653-", "DRV-FABRIC-MANAGER", "3 GPUs shown"),
    ("647-", "DRV-FABRIC-MANAGER", "2 GPUs shown"),
    ("228-", "MEM-ECC-MODE", "1 of 4 GPUs shown"),
    ("228-", "DRV-GSP-FIRMWARE", "1 of 4 GPUs shown"),
    ("228-", "DRV-NVLINK-HEALTH", "1 of 4 GPUs shown"),
    ("407-", "DRV-FABRIC-MANAGER", "3 of 6 GPUs shown"),
    ("05-", "FW-REBAR-BAR1", "1 GPU shown"),
    ("246-", "PWR-GPU-POWER-LIMIT", "1 GPU shown"),
])
def test_a_cut_listing_gives_the_not_applicable_the_coverage_of_the_gpus_shown(prefix: str, check_id: str,
                                                                              coverage: str) -> None:
    r = _result(prefix, check_id)
    assert r.status == "not-applicable", r.message
    assert r.coverage is not None and r.coverage.text() == coverage
    # The rest of the GPUs would settle it: run next asks for them.
    assert r.partly_shown and r.hint.startswith(("`nvidia-smi", "`sudo lspci -vvv`"))


def test_the_report_names_the_coverage_and_run_next_asks_for_the_gpus_not_shown(
        capsys: pytest.CaptureFixture[str]) -> None:
    [path] = sorted(CAPTURES_DIR.glob("228-*.txt"))
    assert main(["audit", "--from", str(path), "--verbose"]) in (0, 1)
    text = " ".join(capsys.readouterr().out.split())  # wrapped at the width
    assert "DRV-FABRIC-MANAGER (1 of 4 GPUs shown): no NVSwitch" in text
    assert main(["audit", "--from", str(path), "--format", "json"]) in (0, 1)
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["MEM-MIG"]["status"] == "not-applicable"
    assert by_id["MEM-MIG"]["coverage"] == {"shown": 1, "total": 4, "of": "GPU", "subjects": ["0000:04:00.0"]}
    settled = {c for s in doc["run_next"] if s["step"] == "nvidia-smi -q" for c in s["settles"]}
    assert {"MEM-MIG", "DRV-FABRIC-MANAGER", "MEM-ECC-MODE"} <= settled


# -- whole listings: every GPU shown, nothing to ask for --------------------------------------------


@pytest.mark.parametrize(("prefix", "check_id", "coverage"), [
    ("402-", "MEM-MIG", "2 of 2 GPUs shown"),
    ("402-", "DRV-FABRIC-MANAGER", "2 of 2 GPUs shown"),
    ("661-", "DRV-PERSISTENCE", "1 of 1 GPU shown"),
    ("324-", "DRV-FABRIC-MANAGER", "4 of 4 GPUs shown"),
])
def test_a_whole_listing_covers_every_gpu_and_asks_for_nothing(prefix: str, check_id: str, coverage: str) -> None:
    r = _result(prefix, check_id)
    assert r.status == "not-applicable", r.message
    assert r.coverage is not None and r.coverage.complete and r.coverage.text() == coverage
    assert not r.partly_shown and r.hint == ""


# -- host-wide facts: no coverage --------------------------------------------------------------------


def test_a_pci_bus_without_an_nvswitch_decides_for_the_host_without_coverage() -> None:
    """MODELLED: eight PCIe cards read live, with the whole PCI bus: no NVSwitch on it is the host's fact."""
    r = run_checks(host_for(pcie_box("NVIDIA RTX PRO 6000 Blackwell Server Edition", 8)),
                   ["DRV-FABRIC-MANAGER"])["DRV-FABRIC-MANAGER"]
    assert r.status == "not-applicable" and "need no Fabric Manager" in r.message
    assert r.coverage is None and r.hint == ""


@pytest.mark.parametrize(("prefix", "check_id"), [
    ("158-", "IC-TOPO-READ"),  # one GPU, `Attached GPUs : 1`: no GPU-to-GPU path
    ("82-", "PWR-GPU-POWER-LIMIT"),  # every GPU shown is AMD's, and no NVIDIA driver
    ("66-", "MEM-ROW-REMAP-ECC"),  # an instance type without accelerators, in the user's words
])
def test_a_host_wide_not_applicable_states_no_coverage(prefix: str, check_id: str) -> None:
    r = _result(prefix, check_id)
    assert r.status == "not-applicable" and r.coverage is None and not r.partly_shown
