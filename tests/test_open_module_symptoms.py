"""The open kernel module's own refusal of a GPU, a log symptom proving DRV-OPEN-MODULE (facts/symptoms.py).

Real pastes are verbatim, each under the public thread it comes from; modelled inputs are marked so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_result, fact, paste_checks, pasted
from stackaudit.facts.gpu_events import parse_refused_gpus
from stackaudit.facts.symptoms import LogSymptoms

REFUSED = [
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/230
    ("```\n[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
     "[    3.513144] NVRM: To force use of Open nvidia.ko on other GPUs, see the\n"
     "[    3.513145] NVRM: 'OpenRmEnableUnsupportedGpus' kernel module parameter described\n"
     "[    3.513145] NVRM: in the README.\n"
     "[    3.824916] NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x63:0x0:1905)\n```\n", "open-module-not-datacenter"),
    # https://github.com/siderolabs/extensions/issues/114 (the node's log, quoted without its NVRM tags)
    ("```\nOpen nvidia.ko is only ready for use on Data Center GPUs. \nTo force use of Open nvidia.ko on other GPUs, "
     "see the \n'OpenRmEnableUnsupportedGpus' kernel module parameter described\nin the README \n"
     "GPU 0000:07:00.0: RmInitAdapter failed!\n```\n", "open-module-not-datacenter"),
    # https://github.com/kata-containers/kata-containers/issues/12258
    ("[    7.982876] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  535.86.10  Release Build  "
     "(dvs-builder@U16-I2-C05-14-2)  Wed Jul 26 23:15:31 UTC 2023\n"
     "[    9.607284] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n", "open-module-not-datacenter"),
    # corpus 211 (an RTX 3050's nvidia-bug-report lines)
    (body("211"), "open-module-not-datacenter"),
    # https://github.com/negativo17/nvidia-driver/issues/158
    ("```\nkernel: NVRM: The NVIDIA GPU 0000:09:00.0 (PCI ID: 10de:1d01)\n"
     "             NVRM: installed in this system is not supported by open\n"
     "             NVRM: nvidia.ko because it does not include the required GPU\n"
     "             NVRM: System Processor (GSP).\n```\n", "open-module-no-gsp"),
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/322
    ("[ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)\n"
     "               NVRM: installed in this system is not supported by open\n"
     "               NVRM: nvidia.ko because it does not include the required GPU\n", "open-module-no-gsp"),
    # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/696
    ("```\nNVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:1b82)\nNVRM: installed in this system is not supported by open\n"
     "NVRM: nvidia.ko because it does not include the required GPU\nNVRM: System Processor (GSP).\n```\n",
     "open-module-no-gsp"),
]


@pytest.mark.parametrize(("text", "name"), REFUSED)
def test_the_open_modules_refusal_proves_the_wrong_flavour(text: str, name: str) -> None:
    symptoms = fact(pasted(text), "log_symptoms")
    assert isinstance(symptoms, LogSymptoms)
    assert [h.symptom.name for h in symptoms.proving("DRV-OPEN-MODULE")] == [name]


def test_the_open_modules_load_banner_proves_nothing() -> None:
    # Modelled: the open module loading on a data-center GPU and initialising it.
    text = ("[    7.982876] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  535.86.10  Release Build  "
            "(dvs-builder@U16-I2-C05-14-2)  Wed Jul 26 23:15:31 UTC 2023\n"
            "[    8.005662] nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  535.86.10\n")
    symptoms = fact(pasted(text), "log_symptoms")
    assert not isinstance(symptoms, LogSymptoms) or not symptoms.proving("DRV-OPEN-MODULE")


@pytest.mark.parametrize("text", [t for t, name in REFUSED[:3]])
def test_the_refusal_explains_the_failed_init(tmp_path: Path, text: str) -> None:
    # Real (REFUSED's first three threads: open-gpu-kernel-modules#230, siderolabs/extensions#114,
    # kata-containers#12258): the RmInitAdapter failure that follows the refusal is the refusal, not GSP's or a BAR's.
    results = paste_checks(tmp_path, text, "DRV-GSP-FIRMWARE", "FW-ABOVE4G-MMIO")
    for check in ("DRV-GSP-FIRMWARE", "FW-ABOVE4G-MMIO"):
        assert results[check].status == "not-an-issue", results[check].message
        assert "refused the GPU by its policy" in results[check].message


def test_a_gsp_boot_failure_beside_the_refusal_stays_an_issue(tmp_path: Path) -> None:
    # Modelled: a second GPU's GSP boot failure in the same log: the worse line wins.
    text = REFUSED[0][0].replace("[    3.824916]", "[    3.700000] NVRM: RmInitAdapter: Cannot initialize GSP firmware "
                                 "RM\n[    3.824916]")
    assert "Cannot initialize GSP" in text
    result = paste_checks(tmp_path, text, "DRV-GSP-FIRMWARE")["DRV-GSP-FIRMWARE"]
    assert result.status == "issue", result.message


# Modelled on corpus 2547's log as a whole dmesg: the open module refusing a Pascal Tesla P4, then its probe failing.
OPEN_REFUSED_PROBE = (
    "```\n[   87.358035] NVRM: The NVIDIA GPU 0000:03:00.0 (PCI ID: 10de:1bb3)\n"
    "               NVRM: installed in this system is not supported by open\n"
    "               NVRM: nvidia.ko because it does not include the required GPU\n"
    "               NVRM: System Processor (GSP).\n"
    "[   87.433482] nvidia: probe of 0000:03:00.0 failed with error -1\n"
    "[   87.434129] NVRM: The NVIDIA probe routine failed for 1 device(s).\n```\n")


def test_a_gpu_before_turing_the_open_module_refused_is_no_xid_fault(tmp_path: Path) -> None:
    # Corpus 2547 (zzzhouuu/truenas-nvidia-drivers#20): the open module refusing a Pascal Tesla P4, RmInitAdapter
    # failing after it; `dmesg | grep NVRM` shown whole.
    result = capture_result("2547", "DRV-XID")
    assert result.status == "not-an-issue" and "0000:03:00.0" in result.message
    # Corpus 624: the open module refusing an H100, which has a GSP: its failed probe stays a fault; so does 930's
    # release refusing one H100 of eight.
    assert capture_result("624", "DRV-XID").status == "issue"
    assert capture_result("930", "DRV-XID").status == "issue"
    assert paste_checks(tmp_path, OPEN_REFUSED_PROBE, "DRV-XID")["DRV-XID"].status == "not-an-issue"
    # Modelled counter-example: the probe failing with no refusal in the log is a GPU the driver never brought up.
    alone = "".join(ln + "\n" for ln in OPEN_REFUSED_PROBE.splitlines() if "NVRM: " not in ln or "probe" in ln)
    assert paste_checks(tmp_path, alone, "DRV-XID")["DRV-XID"].status == "issue"


def test_a_refusal_with_its_newlines_escaped_is_read() -> None:
    # Corpus 2548 (siderolabs/extensions#227): Talos's dmesg keeps the message's newlines as \x0a escapes.
    refused = parse_refused_gpus(body("2548").splitlines())
    assert [(g.bdf, g.device_id, g.release) for g in refused] == [("0000:00:10.0", "1b38", "535.54.03")]
