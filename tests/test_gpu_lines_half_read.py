"""Issue 28: GPU lines of reports the tool half-read, and what a GPU's name implies.

Three rules, each tested on real pastes from different public threads and a modelled counter-example:

- mmengine's collect_env (`lmdeploy check_env`) cut before its `PyTorch compiling details` line is still the report:
  its own `sys.platform` and `numpy_random_seed` fields anchor it (importers/collect_env.py).
- A hardware list's `GPU: <model>` line names the host's GPU model and states no count (facts/gpus.listed_model):
  one card that is never on an NVSwitch settles DRV-FABRIC-MANAGER for the host (facts/applicability.py); checks
  that count GPUs stay open.
- A kernel-log Xid that names a process or its channel shows the driver ran work on that GPU; where the inventory
  names it a Blackwell GPU, only the open kernel module can be loaded (checks/drv.py _open_only_driven).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts.gpus import listed_model

# --- mmengine's report cut before its compiling details -----------------------------------------------------------


def _cut_before_details(prefix: str) -> str:
    text = body(prefix)
    return text[:text.index("PyTorch compiling details")]


@pytest.mark.parametrize(("prefix", "torch", "gpus"), [
    ("159", "2.6.0+cu124", 4),  # InternLM/lmdeploy#3996: four RTX 3090s
    ("161", "2.0.0+cu117", 1),  # InternLM/lmdeploy#654: an A100-SXM4-80GB
    ("333", "2.5.1+cu124", 1),  # InternLM/lmdeploy#3473: an A100-PCIE-40GB
])
def test_a_report_cut_before_its_compiling_details_is_read(prefix: str, torch: str, gpus: int) -> None:
    report = fact(pasted(_cut_before_details(prefix)), "collect_env")
    assert (report.tool, report.torch_version, report.gpu_count) == ("openmmlab", torch, gpus)


def test_corpus_851_v100s_are_covered_by_torch_2_2_2_cu121() -> None:
    # InternLM/lmdeploy#2144: the report stops at `PyTorch: 2.2.2+cu121`, eight Tesla V100-SXM2-32GB above it.
    r = capture_checks("851", "RT-TORCH-ARCH")["RT-TORCH-ARCH"]
    assert r.status == "ok" and "Tesla V100-SXM2-32GB" in r.message and "sm_70" in r.message


# InternLM/lmdeploy#3825 (lingyezhixing, a Windows host): the report as pasted, up to its PyTorch line.
LMDEPLOY_3825 = """\
(lmdeploy) D:\\LLM\\LLM-Manager\\Model_startup_script>lmdeploy check_env
sys.platform: win32
Python: 3.12.11 | packaged by Anaconda, Inc. | (main, Jun  5 2025, 12:58:53) [MSC v.1929 64 bit (AMD64)]
CUDA available: True
MUSA available: False
numpy_random_seed: 2147483648
GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU
CUDA_HOME: C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.8
NVCC: Cuda compilation tools, release 12.8, V12.8.93
GCC: n/a
PyTorch: 2.6.0+cu126
"""


def test_lmdeploy_3825_windows_report_is_read() -> None:
    report = fact(pasted(LMDEPLOY_3825), "collect_env")
    assert (report.tool, report.torch_cuda, report.gpu_models) == ("openmmlab", "12.6",
                                                                  ("NVIDIA GeForce RTX 4060 Laptop GPU",))


def test_modelled_a_platform_line_without_torch_is_no_report() -> None:
    # Modelled: a script's own printout shares the first two field names but has no PyTorch line.
    text = ("sys.platform: linux\n"
            "numpy_random_seed: 2147483648\n"
            "GPU 0: NVIDIA GeForce RTX 3090\n"
            "dataset: coco_2017_val\n")
    assert type(fact(pasted(text), "collect_env")).__name__ != "CollectEnv"


# --- a hardware list's `GPU: <model>` line ------------------------------------------------------------------------


@pytest.mark.parametrize(("prefix", "model"), [
    ("850", "GeForce RTX 5080"),  # NVIDIA/open-gpu-kernel-modules#1243: `GPU: NVIDIA GeForce RTX 5080`
    ("714", "A100 PCIe 80GB"),  # NVIDIA/gpu-operator#603: `* GPU: A100 PCIe 80GB`
    ("279", "RTX 3090"),  # NVIDIA/open-gpu-kernel-modules#789: `GPU: 3090`
])
def test_a_list_naming_a_pcie_card_rules_out_nvswitch(prefix: str, model: str) -> None:
    results = capture_checks(prefix, "DRV-FABRIC-MANAGER", "IC-P2P-FUNCTIONAL")
    fm = results["DRV-FABRIC-MANAGER"]
    assert fm.status == "not-applicable" and model in fm.message
    # The line names the model, not how many: a check that counts GPUs is not settled by it.
    assert results["IC-P2P-FUNCTIONAL"].status != "not-applicable"


def test_modelled_lines_that_are_no_list_model() -> None:
    # Modelled: a tool's numbered listing, an lspci-style line, a count (stated_gpus reads it), an unknown name.
    for line in ("GPU 0: NVIDIA GeForce RTX 5080", "GPU: NVIDIA 01:00.0 NVIDIA Corporation Device 2684",
                 "GPU: 2x RTX 4090", "GPU: not detected"):
        assert listed_model(line) == "", line


def test_modelled_an_sxm_model_keeps_the_fabric_open(tmp_path: Path) -> None:
    # Modelled: 850's list names an H100 SXM5 (an NVSwitch board's module): Fabric Manager stays to be judged.
    text = body("850").replace("GPU: NVIDIA GeForce RTX 5080", "GPU: NVIDIA H100 80GB HBM3")
    r = paste_checks(tmp_path, text, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"]
    assert r.status == "unknown"


# --- an Xid naming a process's work on a Blackwell GPU -------------------------------------------------------------

# NVIDIA/open-gpu-kernel-modules#1146 (comment by swein, 2026-08-16): the GPU bullet and the kernel log as pasted.
OGKM_1146 = """\
 Environment
 - GPU: NVIDIA GeForce RTX 5090 (GB202), PCI 0000:01:00, power-limited to 400 W via nvidia-smi -pl at boot
 - Kernel: 7.1.8-arch1-3 (stable Arch kernel)

 Kernel log (2026-08-15 20:56:07 EDT = 2026-08-16 00:56:07 UTC):

 ```
NVRM: GPU at PCI:0000:01:00: GPU-<uuid>
NVRM: GPU Board Serial Number: <redacted>
NVRM: Xid (PCI:0000:01:00): 109, pid=77956, name=MainThrd, channel 0x0000000f, errorString CTX SWITCH TIMEOUT, Info 0x1c016
 ```
"""

# NVIDIA/open-gpu-kernel-modules#1208 (description by riichard, 2026-06-17): its environment table's GPU row and the
# kernel log, whose pid the reporter replaced with `<varies>` (the channel is still named).
OGKM_1208 = """\
| Component | Version |
|-----------|---------|
| GPU | 3× NVIDIA GeForce RTX 5090 32 GB |
| OS | Ubuntu 26.04 LTS, kernel 7.0.0-22-generic |

## Kernel log

```
NVRM: Xid (PCI:0000:01:00): 31, pid=<varies>, name=python3, channel 0x00000002,
  intr 00000000. MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted
  @ 0x0_00019000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
```
"""


def test_corpus_850_an_xid_on_the_listed_rtx_5080_shows_the_open_module() -> None:
    # NVIDIA/open-gpu-kernel-modules#1243: `GPU: NVIDIA GeForce RTX 5080`, then Xid 109 naming pid 5045.
    r = capture_checks("850", "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and "Xid 109" in r.message and "RTX 5080" in r.message


@pytest.mark.parametrize(("text", "xid"), [(OGKM_1146, "Xid 109"), (OGKM_1208, "Xid 31")])
def test_an_xid_naming_work_on_a_named_rtx_5090_shows_the_open_module(tmp_path: Path, text: str, xid: str) -> None:
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "ok" and xid in r.message and "RTX 5090" in r.message


def test_modelled_an_xid_naming_no_work_shows_nothing(tmp_path: Path) -> None:
    # Modelled: 850 with an Xid that names no process and no channel (the GPU fell off the bus).
    line = next(ln for ln in body("850").splitlines() if "NVRM: Xid" in ln)
    text = body("850").replace(line, "[  184.292262] NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, "
                                     "GPU has fallen off the bus.")
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "unknown"


def test_modelled_a_list_naming_gpu_and_driver_shows_nothing(tmp_path: Path) -> None:
    # Modelled: 850's list without its kernel log: a GPU and a driver named together show no GPU the driver ran.
    text = body("850")
    text = text[:text.index("## Error observed in dmesg")]
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "unknown"


def test_modelled_an_xid_on_an_ada_gpu_says_nothing_of_the_flavour(tmp_path: Path) -> None:
    # Modelled: 850 with an RTX 4090 (Ada) listed: either module runs it.
    text = body("850").replace("RTX 5080", "RTX 4090")
    r = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert r.status == "unknown"
