"""The open flavour in the user's words (facts/nvidia.used_open) and DRV-OPEN-MODULE's issue where the open module
runs on a host that holds a pre-Turing GPU a source names (checks/drv._pre_turing_named).

The open kernel modules drive Turing and later only, and one module drives every GPU of a host: a Pascal card beside
a Turing one is left out under the open flavour (NVIDIA/open-gpu-kernel-modules#696, corpus 1678).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_result, paste_checks
from stackaudit.facts.nvidia import used_open

OPEN = "DRV-OPEN-MODULE"


@pytest.mark.parametrize("line", [
    # Real: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/696 (corpus 1678).
    "Open driver doesn't report `GPU 1 NVIDIA GeForce GTX 1070 Ti` when I call `nvidia-smi`.",
    # Real: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/914
    "I’m running the 575.64.03 open driver to support a new RTX PRO 6000 Blackwell Workstation Edition, but I also "
    "have an older Quadro P4000 in the same system.",
    # Real: https://github.com/zzzhouuu/truenas-nvidia-drivers/issues/20
    "The loaded `nvidia.ko` is the **open** kernel module.",
    # Real: an environment list's kernel-module item (NVIDIA/open-gpu-kernel-modules#1162, corpus 2601).
    "- Kernel module: NVIDIA Open Kernel Module",
    # Real: the open modules' bug form answering its version with a commit of the repository (#392, corpus 2603).
    "NVIDIA Open GPU Kernel Modules Version: 7c345b838b8a63126ed425781400c1ae8a7a4a1d",
    # Modelled: the Unraid page's field answered yes (corpus 2678 answers no).
    "Open Source Kernel Module: Yes",
    # Real: an environment list's item naming the module alone (NVIDIA/nccl#2418, corpus 2759).
    "- NVIDIA Open Kernel Module",
])
def test_the_users_words_for_the_open_module_they_run(line: str) -> None:
    assert used_open(line)


@pytest.mark.parametrize("line", [
    # Modelled: a comparison of the two flavours, a negation, and the flavour named as a topic, not as what runs.
    "closed 560.35.03 driver detects both GPU, the open driver only one",
    "I am not using the open kernel module",
    "Does the open driver support Pascal?",
    "Is there an open source driver for this card?",
    # Modelled: a list's kernel-module item naming the other flavour or negating, and the form answered with no commit.
    "- Kernel module: NVIDIA proprietary kernel module",
    "- Kernel module: not the open kernel module",
    "NVIDIA Open GPU Kernel Modules Version: latest",
    # Real: Unraid's NVIDIA driver page answering the open flavour with no (corpus 2678, SYSTRAN/faster-whisper#1229).
    "Open Source Kernel Module: No",
    # Real: the open modules' bug form's heading (corpus 1786), a question, not an answer.
    "### NVIDIA Open GPU Kernel Modules Version",
    # Modelled: the module's name as a topic, not as a list's item of what runs.
    "- NVIDIA open kernel modules do not support Pascal",
])
def test_words_that_do_not_say_the_open_module_runs(line: str) -> None:
    assert not used_open(line)


# Real, cut: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/696 (corpus 1678): the form's GPU answer and the
# user's sentence, with nvidia-smi's header.
FORM_696 = """\
### Hardware: GPU

GPU 0: NVIDIA GeForce RTX 2060, GPU 1: NVIDIA GeForce GTX 1070 Ti

### Describe the bug

Open driver doesn't report `GPU 1 NVIDIA GeForce GTX 1070 Ti` when I call `nvidia-smi`. It only reports `GPU 0: NVIDIA GeForce RTX 2060`:
```
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
```
"""


def test_the_open_module_on_a_host_with_a_pascal_card_is_an_issue(tmp_path: Path) -> None:
    results = paste_checks(tmp_path, FORM_696, OPEN)
    assert results[OPEN].status == "issue", results[OPEN].message
    assert "Pascal" in results[OPEN].message


def test_the_open_module_on_turing_and_later_only_is_not_an_issue(tmp_path: Path) -> None:
    # Modelled: the same form where both cards are Turing or later.
    text = FORM_696.replace("GeForce GTX 1070 Ti", "GeForce RTX 3060")
    results = paste_checks(tmp_path, text, OPEN)
    assert results[OPEN].status == "ok", results[OPEN].message


def test_without_the_users_words_the_flavour_stays_unknown(tmp_path: Path) -> None:
    # Modelled: the sentence without the flavour's words: nvidia-smi names the version, never the flavour.
    text = FORM_696.replace("Open driver doesn't report", "The driver doesn't report")
    results = paste_checks(tmp_path, text, OPEN)
    assert results[OPEN].status == "unknown", results[OPEN].message


@pytest.mark.parametrize("prefix", [
    "2453",  # ai-dynamo's vLLM worker (corpus 2453): `NCCL INFO DMA-BUF is available on GPU device 0`, no GPU named
    "831",  # a Ray worker's NCCL log (corpus 831): `DMA-BUF is available on GPU device 4 [repeated 14x across cluster]`
])
def test_nccl_finding_dma_buf_on_a_gpu_shows_the_open_module(prefix: str) -> None:
    # CUDA exports GPU memory as a DMA-BUF only under the open kernel modules (h108a).
    from corpus import capture_checks

    result = capture_checks(prefix, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "ok" and result.actual == "open", result.message
    assert any("DMA-BUF is available on GPU device" in e for e in result.evidence)


def test_modelled_nccl_log_without_the_dma_buf_line_says_nothing_of_the_flavour(tmp_path: Path) -> None:
    # Modelled on corpus 2453: the same NCCL log without its DMA-BUF line names no flavour (nvidia_peermem, which
    # NCCL's IB transport may use instead, runs under either module).
    from corpus import body

    text = "\n".join(line for line in body("2453").splitlines() if "DMA-BUF" not in line)
    result = paste_checks(tmp_path, text, "DRV-OPEN-MODULE")["DRV-OPEN-MODULE"]
    assert result.status == "unknown"


@pytest.mark.parametrize(("text", "open_"), [
    ("host:96:96 [0] NCCL INFO DMA-BUF is available on GPU device 0", True),
    ("host:96:96 [0] NCCL INFO NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0'", False),
    ("whether nvidia_peermem or DMA-BUF is available is not shown", False),  # words, not NCCL's probe
])
def test_nccl_dma_buf_parser(text: str, open_: bool) -> None:
    from stackaudit.facts._parse import ParseError
    from stackaudit.facts.nvidia import driver_flavour_from_nccl_dmabuf

    if open_:
        assert driver_flavour_from_nccl_dmabuf(text).flavour == "open"
    else:
        with pytest.raises(ParseError):
            driver_flavour_from_nccl_dmabuf(text)


@pytest.mark.parametrize("prefix", ["2601", "2603"])
def test_the_open_module_named_by_a_list_or_the_bug_forms_commit(prefix: str) -> None:
    # Corpus 2601: `- Kernel module: NVIDIA Open Kernel Module` beside a Blackwell RTX 5070 Ti Laptop GPU; 2603: the
    # form's version answered with a commit, an Ampere RTX 3060 Laptop GPU, which either flavour drives.
    r = capture_result(prefix, OPEN)
    assert r.status == "ok", r.message
    assert "open kernel module" in r.message


@pytest.mark.parametrize("prefix", ["2759", "2760"])
def test_the_open_module_named_by_a_list_item_or_an_installed_rpm(prefix: str) -> None:
    # Corpus 2759: `- Driver: 580.173.02` then `- NVIDIA Open Kernel Module` beside two RTX PRO 6000 Blackwell;
    # 2760: Fedora's `kmod-nvidia-open-dkms-610.57.04-1.fc44.noarch` in the user's rpm list, an Ampere RTX 3070.
    r = capture_result(prefix, OPEN)
    assert r.status == "ok" and r.actual == "open", r.message


def test_rpm_list_naming_the_proprietary_kmod_names_no_open_flavour() -> None:
    # Modelled on corpus 2760: NVIDIA's RHEL and Fedora packages name the proprietary module `kmod-nvidia-latest-dkms`
    # (and `kmod-nvidia-dkms`): their version is read, installed, with no flavour.
    from stackaudit.facts.nvidia import driver_from_evidence_lines

    for rpm in ("kmod-nvidia-latest-dkms-545.23.08-1.el7.x86_64", "kmod-nvidia-dkms-610.57.04-1.fc44.noarch"):
        d = driver_from_evidence_lines(f"nvidia-kmod-common-610.57.04-1.fc44.noarch\n{rpm}\n")
        assert d.version == rpm.split("dkms-")[1].split("-")[0] and d.flavour is None, d
        assert d.installed_package and d.loaded is None
    d = driver_from_evidence_lines("kmod-nvidia-open-dkms-610.57.04-1.fc44.noarch\n")
    assert (d.version, d.flavour, d.loaded) == ("610.57.04", "open", None)
