"""Placement with no topology matrix, where the engine's shape or the board settles it (corpus 1074, 1089, 1091).

- IC-TOPOLOGY-PLACEMENT: NCCL's communicator of eight ranks on one node with NVSwitch multicast (NVLS) up holds every
  GPU of an NVSwitch board: not an issue (facts/parallelism.nvswitch_node_of_every_gpu).
- IC-TOPOLOGY-PLACEMENT: two modules of a larger direct-NVLink mesh board (V100 SXM2) are a share of it, so the
  two-GPU rule (any group is both GPUs) does not settle their placement: unknown.
- IC-NIC-GPU-AFFINITY: GPUs with a NIC within PXB beside a GPU whose whole NIC cells show none is the placement
  itself, in a cut matrix too: an issue over the rows shown.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks

PLACEMENT = "IC-TOPOLOGY-PLACEMENT"
NIC = "IC-NIC-GPU-AFFINITY"

# Modelled on corpus 1074's lines (one Ray actor's NCCL INFO lines, its prefix left out).
NCCL_NVLS_8 = """\
node7:3569860:3586525 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)
node7:3569860:3586525 [0] NCCL INFO comm 0x7ece54938ef0 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0
node7:3569860:3571297 [0] NCCL INFO ncclCommInitRank comm 0x7edae6dc2fd0 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 4000 commId 0x4e52464bbe9f9659 - Init COMPLETE
"""


def test_eight_local_ranks_on_nvls_are_every_gpu() -> None:
    """Real (capture 1074): `nRanks 8 nNodes 1 localRanks 8` with `NVLS multicast support is available`."""
    r = capture_checks("1074", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "every GPU of its node" in r.message


def test_modelled_nvls_communicator(tmp_path: Path) -> None:
    r = paste_checks(tmp_path, NCCL_NVLS_8, PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "localRanks 8" in r.message


def test_fewer_local_ranks_or_no_nvls_stay_open(tmp_path: Path) -> None:
    """Four ranks of an eight-GPU board may be any four; eight ranks without NVLS may be eight of more GPUs."""
    four = NCCL_NVLS_8.replace("nRanks 8", "nRanks 4").replace("localRanks 8", "localRanks 4").replace("nranks 8", "nranks 4")
    assert paste_checks(tmp_path, four, PLACEMENT)[PLACEMENT].status == "unknown"
    no_nvls = "\n".join(line for line in NCCL_NVLS_8.splitlines() if "NVLS" not in line) + "\n"
    assert paste_checks(tmp_path, no_nvls, PLACEMENT)[PLACEMENT].status == "unknown"


def test_two_v100_sxm2_are_a_share_of_a_mesh_board() -> None:
    """Real (capture 1089): check_env's `GPU 0,1: Tesla V100-SXM2-32GB`, no matrix: which two of a DGX-1's mesh the
    host got decides whether they share an NVLink."""
    r = capture_checks("1089", PLACEMENT)[PLACEMENT]
    assert r.status == "unknown" and "share of that board" in r.message


def test_two_pcie_v100_keep_the_two_gpu_rule(tmp_path: Path) -> None:
    """Modelled: the same count of a PCIe card: any group is both GPUs (the rule of corpus 997)."""
    r = paste_checks(tmp_path, "I run 2x V100 PCIe 32GB GPUs on this server\n", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and "two GPUs" in r.message
    r = paste_checks(tmp_path, "I run 2x Tesla V100 SXM2 32GB GPUs on this server\n", PLACEMENT)[PLACEMENT]
    assert r.status == "unknown" and "share of that board" in r.message


def test_cut_matrix_shows_a_mixed_nic_placement() -> None:
    """Real (capture 1091): GPU0-GPU2 PIX to a NIC, GPU3's whole NIC cells NODE at best, GPU4's row cut, GPU5-7 not
    shown: an issue over the four rows that settle it."""
    r = capture_checks("1091", NIC)[NIC]
    assert r.status == "issue" and "GPU3" in r.message
    assert r.coverage is not None and r.coverage.text() == "4 of 8 GPUs shown"


def test_owned_count_without_a_model_settles_a_two_gpu_host() -> None:
    """Real (capture 1059): `I have 2 NVIDIA cards detected as CUDA0 and CUDA1.` beside llama.cpp's device_info list
    of two RTX 5070 Ti: the user's count makes the list the host's, so any group is both GPUs (llama.cpp's buffers on
    CUDA0 and CUDA1 say the same, and that rule speaks first)."""
    r = capture_checks("1059", PLACEMENT)[PLACEMENT]
    assert r.status == "not-an-issue" and ("two GPUs" in r.message or "host's 2 GPUs" in r.message), r.message


def test_owned_count_reading() -> None:
    from stackaudit.facts.gpus import owned_gpu_count, parse_user_gpus

    assert owned_gpu_count("I have 2 NVIDIA cards detected as CUDA0 and CUDA1.") == 2
    assert owned_gpu_count("I've got 4 GPUs in this box") == 4
    # Modelled: a count after other words may be part of the host.
    assert owned_gpu_count("I tried it with 2 GPUs and it hangs") is None
    assert owned_gpu_count("we have 2 cards of another vendor") is None
    inv = parse_user_gpus("I have 2 NVIDIA cards detected as CUDA0 and CUDA1.\n")
    assert inv.counts == (("the user's own words", 2),) and not inv.gpus


# Modelled on corpus 2497's PowerShell session (ollama/ollama#10517): nvidia-smi -L and the app started with the
# variables set before it.
MIXED_LISTING = """\
PS C:\\> nvidia-smi -L
GPU 0: Quadro M5000 (UUID: GPU-8c1fc6fe-a2c4-dd9a-559c-4f58836fd385)
GPU 1: NVIDIA RTX A2000 12GB (UUID: GPU-962a842b-b382-6457-65a1-3cffec62ba6f)

PS C:\\> $env:OLLAMA_DEBUG="1"; $env:CUDA_VISIBLE_DEVICES="1" ; & "ollama app.exe"
"""


def test_an_index_cuda_gives_another_model_than_nvidia_smi_2497(tmp_path: Path) -> None:
    """Corpus 2497: CUDA_VISIBLE_DEVICES=1 is the RTX A2000 in nvidia-smi's bus order but the Quadro M5000 in CUDA's
    fastest-first order: the engine lands on the M5000, an issue. Modelled counter-examples: CUDA_DEVICE_ORDER set to
    PCI_BUS_ID, or a listing whose bus order already puts the newer GPU first, name the same GPU both ways."""
    result = capture_checks("2497", PLACEMENT)[PLACEMENT]
    assert result.status == "issue" and "1 is the Quadro M5000 to CUDA" in result.message
    ordered = MIXED_LISTING.replace('$env:CUDA_VISIBLE_DEVICES="1" ;',
                                    '$env:CUDA_VISIBLE_DEVICES="1"; $env:CUDA_DEVICE_ORDER="PCI_BUS_ID" ;')
    assert paste_checks(tmp_path, ordered, PLACEMENT)[PLACEMENT].status != "issue"
    newer_first = MIXED_LISTING.replace("GPU 0: Quadro M5000", "GPU 9: Quadro M5000").replace(
        "GPU 1: NVIDIA RTX A2000 12GB", "GPU 0: NVIDIA RTX A2000 12GB").replace("GPU 9: Quadro", "GPU 1: Quadro")
    assert paste_checks(tmp_path, newer_first, PLACEMENT)[PLACEMENT].status != "issue"


def test_a_cut_listing_leaves_cudas_order_unread_2495() -> None:
    """Corpus 2495 (theroyallab/tabbyAPI#296): CUDA_VISIBLE_DEVICES=0 in the user's words beside an RTX 3090 and a
    Tesla P40, nvidia-smi cut in its header: no listing shows which index each model has, so no issue is read."""
    assert capture_checks("2495", PLACEMENT)[PLACEMENT].status == "unknown"


# Modelled on corpus 2680's listings (LostRuins/koboldcpp#1023): nvidia-smi's CSV query in PCI bus order, then
# llama.cpp's device list in CUDA's order.
TWO_ORDERS = """\
$ nvidia-smi --query-gpu=name,memory.total,index --format csv,noheader
NVIDIA GeForce GTX 1660 SUPER, 6144 MiB, 0
NVIDIA GeForce RTX 3090, 24576 MiB, 1

ggml_cuda_init: found 2 CUDA devices:
  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes
  Device 1: NVIDIA GeForce GTX 1660 SUPER, compute capability 7.5, VMM: yes
"""


def test_cuda_device_list_numbers_gpus_unlike_nvidia_smi_2680(tmp_path: Path) -> None:
    """Corpus 2680: nvidia-smi's CSV rows put the GTX 1660 SUPER at 0, ggml_cuda_init puts the RTX 3090 there: the two
    orders differ, so a GPU picked by nvidia-smi's index runs on the other card (facts/gpus.cuda_order_differs).
    Modelled counter-examples: the same listings in one order, and a device list of fewer GPUs (a container's
    CUDA_VISIBLE_DEVICES renumbers a subset from 0) read no issue; so does corpus 2569's real mixed host, whose
    device list follows its other listing's order."""
    result = capture_checks("2680", PLACEMENT)[PLACEMENT]
    assert result.status == "issue" and "0 is the NVIDIA GeForce RTX 3090 to CUDA" in result.message
    assert paste_checks(tmp_path, TWO_ORDERS, PLACEMENT)[PLACEMENT].status == "issue"
    same = TWO_ORDERS.replace("Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6",
                              "Device 9: NVIDIA GeForce RTX 3090, compute capability 8.6").replace(
        "Device 1: NVIDIA GeForce GTX 1660 SUPER", "Device 0: NVIDIA GeForce GTX 1660 SUPER").replace(
        "Device 9:", "Device 1:")
    assert paste_checks(tmp_path, same, PLACEMENT)[PLACEMENT].status != "issue"
    subset = TWO_ORDERS.replace("found 2 CUDA devices", "found 1 CUDA devices").replace(
        "  Device 1: NVIDIA GeForce GTX 1660 SUPER, compute capability 7.5, VMM: yes\n", "")
    assert paste_checks(tmp_path, subset, PLACEMENT)[PLACEMENT].status != "issue"
    assert capture_checks("2569", PLACEMENT)[PLACEMENT].status != "issue"
