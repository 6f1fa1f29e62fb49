"""FW-REBAR-BAR1 reads BAR1 as the driver numbers it, and integrated GPUs have none to resize.

- The driver numbers a GPU's memory BARs in order (open-gpu-kernel-modules, kernel-open/nvidia/nv-pci.c): BAR1 is
  the second memory region lspci lists, `Region 1` after a 32-bit BAR0 and `Region 2` after a 64-bit one.
- An integrated GPU (gputable.INTEGRATED_GPUS: GB10, DGX Spark) shares the SoC's memory: not an issue.

Pastes are corpus files (their header names the public thread); counter-examples are marked modelled.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.nvidia_smi import parse_query_text
from stackaudit.gputable import integrated_gpu

# Modelled: an H100-like block with a 64-bit BAR0 and a 256M Region 2 on a GeForce name, with its Resizable BAR
# capability listing larger sizes, beside a second GPU: a small BAR1 read from Region 2, so an issue.
MODELLED_SMALL_REGION_2 = """\
0000:3b:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)
\tRegion 0: Memory at 88042000000 (64-bit, prefetchable) [size=16M]
\tRegion 2: Memory at 84000000000 (64-bit, prefetchable) [size=256M]
\tRegion 4: Memory at 88040000000 (64-bit, prefetchable) [size=32M]
\tCapabilities: [bb0 v1] Physical Resizable BAR
\t\tBAR 0: current size: 16MB, supported: 16MB
\t\tBAR 2: current size: 256MB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB 16GB 32GB
\tKernel driver in use: nvidia

0000:5e:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)
\tRegion 0: Memory at 98042000000 (64-bit, prefetchable) [size=16M]
\tRegion 2: Memory at 94000000000 (64-bit, prefetchable) [size=256M]
\tRegion 4: Memory at 98040000000 (64-bit, prefetchable) [size=32M]
\tCapabilities: [bb0 v1] Physical Resizable BAR
\t\tBAR 0: current size: 16MB, supported: 16MB
\t\tBAR 2: current size: 256MB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB 16GB 32GB
\tKernel driver in use: nvidia
"""


def test_bar1_after_a_64_bit_bar0_is_region_2() -> None:
    # Corpus 502 (fastfetch-cli/fastfetch#1658): H100s that pci.ids names GA103, Region 0 64-bit, Region 2 128G.
    r = capture_checks("502", "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "ok" and "128 GiB" in r.message, r.message
    assert r.coverage is not None and r.coverage.shown == ("0000:3b:00.0",)


def test_bar1_after_a_32_bit_bar0_is_still_region_1() -> None:
    # Corpus 90 (an RTX 4090 with Resizable BAR: Region 1 32G) and 374 (an RTX A4000: Region 1 256M, one GPU).
    assert capture_checks("90", "FW-REBAR-BAR1")["FW-REBAR-BAR1"].status == "ok"
    assert capture_checks("374", "FW-REBAR-BAR1")["FW-REBAR-BAR1"].status == "not-an-issue"


def test_small_region_2_is_a_small_bar1(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_SMALL_REGION_2, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "issue", r.message


def test_gb10_shares_the_soc_memory() -> None:
    # Corpus 503 (NixOS/nixpkgs#527847): `GB20B [GB10]`, one 64M BAR.
    r = capture_checks("503", "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "not-an-issue" and "GB10" in r.message, r.message
    # lspci with a pci.ids that predates GB10 prints `Device 2e12`; nvidia-smi prints `NVIDIA GB10`.
    assert integrated_gpu("NVIDIA Corporation Device 2e12 (rev a1)", "0x2e12") == "GB10"
    assert integrated_gpu("NVIDIA GB10") == "GB10"
    # Modelled counter-examples: discrete Blackwell names are no integrated GPU.
    assert integrated_gpu("NVIDIA GB100") == integrated_gpu("NVIDIA GB202 [GeForce RTX 5090]", "0x2b85") == ""


def test_one_gpu_of_a_pasted_lspci_is_the_one_shown_not_the_only_one() -> None:
    # Real: corpus 374 (ollama, an RTX A4000), 735 (an RTX 4090 on a Raspberry Pi) and 747 (an RTX 5090 on a
    # P2P-patched driver, a two-GPU host by its thread): each pastes one GPU's `lspci -vvv` with a 256M BAR1. The
    # excerpt cannot show that no other GPU or RDMA NIC is on the bus (issue 28), so the verdict names the GPU shown.
    for prefix in ("374", "735", "747"):
        r = capture_checks(prefix, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
        assert r.status == "not-an-issue" and "the one GPU shown" in r.message, (prefix, r.message)
        assert "the only GPU" not in r.message and "no other GPU or RDMA NIC in the source" in r.message


# --- a GPU that predates Turing has a fixed BAR1 (issue 28, corpus 875) ---------------------------------

# Modelled: the first lines of corpus 875's entry with Pascal's 1b06 changed to Ampere's 2204 (GeForce RTX 3090),
# beside a second GPU: the Resizable BAR capability is not shown, so whether it could be resized stays open.
MODELLED_AMPERE_PAIR = """\
06:00.0 VGA compatible controller: NVIDIA Corporation Device 2204 (rev a1) (prog-if 00 [VGA controller])
        Region 0: Memory at f0000000 (32-bit, non-prefetchable) [size=16M]
        Region 1: Memory at 2f80000000 (64-bit, prefetchable) [size=256M]
        Region 3: Memory at 2f90000000 (64-bit, prefetchable) [size=32M]
07:00.0 VGA compatible controller: NVIDIA Corporation Device 2204 (rev a1) (prog-if 00 [VGA controller])
        Region 0: Memory at e0000000 (32-bit, non-prefetchable) [size=16M]
        Region 1: Memory at 2e80000000 (64-bit, prefetchable) [size=256M]
        Region 3: Memory at 2e90000000 (64-bit, prefetchable) [size=32M]
"""


def test_a_pascal_gpus_256m_bar1_is_fixed_by_design_on_the_real_paste() -> None:
    # Corpus 875 (NVIDIA/nccl#120): `Device 1b06` (GTX 1080 Ti, pre-Turing: lspci prints the id pci.ids did not name),
    # its entry opened by a lone backtick; 256M BAR1 is that card's fixed size: not an issue, 1 of the 4 GPUs stated.
    results = capture_checks("875", "FW-REBAR-BAR1", "FW-ABOVE4G-MMIO")
    r = results["FW-REBAR-BAR1"]
    assert r.status == "not-an-issue" and "predate Turing" in r.message and "0x1b06" in r.message
    assert r.coverage is not None and r.coverage.text() == "1 of 4 GPUs shown"
    assert results["FW-ABOVE4G-MMIO"].status == "ok"


def test_a_later_gpus_256m_bar1_without_its_capability_stays_open(tmp_path: Path) -> None:
    # Modelled counter-example: the same BAR1 on two Ampere cards is not explained by the architecture.
    r = paste_checks(tmp_path, MODELLED_AMPERE_PAIR, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "unknown" and "predate Turing" not in r.message


def test_a_keplers_large_fixed_bar1_is_no_resizable_bar_to_enable() -> None:
    # Corpus 2401 (elasticluster#504, a GCP QEMU VM, `lspci -v` without root) and 1584 (an AWS p2.xlarge): a Tesla
    # K80's 16 GiB BAR1 is the size the board was built with, a pre-Turing GPU has no Resizable BAR: not an issue, as
    # both readers say, not `ok` for a resized BAR. Corpus 2089 (a Tesla M40 in a cloud-hypervisor guest) reads so too.
    for prefix, coverage in (("2401", "1 of 2 GPUs shown"), ("1584", None), ("2089", None)):
        r = capture_checks(prefix, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
        assert r.status == "not-an-issue" and "predate Turing" in r.message and "16 GiB" in r.message, prefix
        if coverage:
            assert r.coverage is not None and r.coverage.text() == coverage


def test_a_later_gpus_large_bar1_stays_ok(tmp_path: Path) -> None:
    # Modelled counter-example: the same 16G BAR1 on an Ampere GeForce is a resized BAR (ok), not a fixed one.
    text = """\
00:04.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)
\tMemory at fc000000 (32-bit, non-prefetchable) [size=16M]
\tMemory at 400000000 (64-bit, prefetchable) [size=16G]
\tMemory at c00000000 (64-bit, prefetchable) [size=32M]
"""
    r = paste_checks(tmp_path, text, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "ok" and "predate Turing" not in r.message


# Modelled counter-example: the same 256 MiB BAR1 grep on a host whose listing names two Pascal cards.
MODELLED_PASCAL_PAIR_SMI = """\
$ nvidia-smi -L
GPU 0: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-11111111-2222-3333-4444-555555555555)
GPU 1: NVIDIA GeForce GTX 1080 Ti (UUID: GPU-66666666-7777-8888-9999-000000000000)
$ nvidia-smi -q | grep -i bar -A 3
    BAR1 Memory Usage
        Total                                          : 256 MiB
        Used                                           : 1 MiB
        Free                                           : 255 MiB
"""


def test_a_small_nvidia_smi_bar1_on_a_resizable_generation_with_peers_is_an_issue() -> None:
    # Corpus 2488 (aikitoria/open-gpu-kernel-modules#22): `nvidia-smi -L` names four RTX 3090s (Ampere, Resizable BAR)
    # and the BAR grep shows the first one's BAR1 at 256 MiB: an issue for P2P. Corpus 281 (an RTX 3090 alone in a
    # k8s node's `nvidia-smi -q` section): one GPU shown, nothing maps peers through it, so it stays open.
    r = capture_checks("2488", "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status == "issue" and "RTX 3090 (Ampere)" in r.message and "one of 4 GPUs" in r.message, r.message
    assert capture_checks("281", "FW-REBAR-BAR1")["FW-REBAR-BAR1"].status == "unknown"


def test_a_small_nvidia_smi_bar1_before_resizable_bar_is_no_resizable_issue(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, MODELLED_PASCAL_PAIR_SMI, "FW-REBAR-BAR1")["FW-REBAR-BAR1"]
    assert r.status != "issue", r.message


# aikitoria/open-gpu-kernel-modules#38 (wlarsong): `nvidia-smi -q | grep -A 4 "BAR1 Memory Usage"` on an RTX 6000 Ada
# and an RTX 4090, grep's `--` between the two GPUs' blocks.
AIKITORIA_38 = """\
$ nvidia-smi -q | grep -A 4 "BAR1 Memory Usage"
    BAR1 Memory Usage
        Total                                          : 65536 MiB
        Used                                           : 17 MiB
        Free                                           : 65519 MiB
    Conf Compute Protected Memory Usage
--
    BAR1 Memory Usage
        Total                                          : 32768 MiB
        Used                                           : 1 MiB
        Free                                           : 32767 MiB
    Conf Compute Protected Memory Usage
"""


def test_each_gpus_block_of_a_bar1_grep_is_its_own_gpu() -> None:
    # Corpus 2489 (aikitoria/open-gpu-kernel-modules#14): four BAR1 blocks, the fourth cut after `Total`; three GPUs
    # at 32 GiB of the four the user names: ok over 3 of 4, for Resizable BAR and for the Above-4G window alike.
    results = capture_checks("2489", "FW-REBAR-BAR1", "FW-ABOVE4G-MMIO")
    for check in ("FW-REBAR-BAR1", "FW-ABOVE4G-MMIO"):
        r = results[check]
        assert r.status == "ok" and "GPU 2 32 GiB" in r.message, (check, r.message)
        assert r.coverage is not None and r.coverage.text() == "3 of 4 GPUs shown", (check, r.coverage)
    gpus = parse_query_text(AIKITORIA_38.split("\n", 1)[1]).gpus
    assert [g.bar1_total_mib for g in gpus] == [65536, 32768]
    assert len(parse_query_text(AIKITORIA_38.split("\n", 1)[1].replace("--\n", "")).gpus) == 2


def test_one_gpus_sections_in_an_excerpt_stay_one_gpu() -> None:
    # Modelled counter-example: one GPU's FB and BAR1 blocks, grep's `--` between them: one GPU, not two.
    text = """\
    FB Memory Usage
        Total                                          : 24576 MiB
--
    BAR1 Memory Usage
        Total                                          : 32768 MiB
"""
    gpus = parse_query_text(text).gpus
    assert len(gpus) == 1 and gpus[0].bar1_total_mib == 32768


def test_a_small_nvidia_smi_bar1_says_nothing_of_the_above_4g_window() -> None:
    # Corpus 2488: BAR1 256 MiB fits below 4 GiB, so it proves no Above-4G decoding: the check stays open.
    assert capture_checks("2488", "FW-ABOVE4G-MMIO")["FW-ABOVE4G-MMIO"].status == "unknown"
