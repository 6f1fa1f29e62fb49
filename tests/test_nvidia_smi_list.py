"""`nvidia-smi -L` pasted into a report: NVML's list of the GPUs where it ran, read into the GPU inventory.

- Its `GPU n: <name> (UUID: …)` lines, the UUID whole, redacted or cut (`(UUID: ...)`, `(...)`, `(UUID: ` at the
  line's end), and MIG devices under their GPU, are one span of the `nvidia-smi -L` kind.
- Numbered from GPU 0 without a gap, under its command line or ended by a line of another kind, it is whole: the
  count is the host's (in a container: the GPUs given to it); else a lower bound.
- The same line heads each GPU's links in `nvidia-smi nvlink -s` (one pattern, facts/_parse.NVSMI_GPU_LINE): a GPU
  line with `Link N:` lines under it stays nvlink -s's.
- A listing that answered shows NVML reached the GPUs where it ran: CTR-GPU-ACCESS ok where nothing else settles it;
  a container's `Failed to initialize NVML` line still proves the issue.

Real lines are corpus captures (947: NVIDIA/nvidia-container-toolkit#1227, 1104: huggingface/huggingface_hub#4134);
the others are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import NVSMI_GPU_LINE
from stackaudit.facts.gpus import NVSMI_LIST_TITLE, GpuInventory, parse_nvidia_smi_list
from stackaudit.facts.topology import NvlinkStatus
from stackaudit.importers.nvidia_smi import list_gpu_line, run_together_list
from stackaudit.importers.recognition import recognise

# Corpus 947 (NVIDIA/nvidia-container-toolkit#1227), lines 11-15 verbatim: the host's listing under its prompt.
HOST_947 = """(host) # nvidia-smi -L
GPU 0: NVIDIA A10 (UUID: GPU-f15ae561-21b1-6003-c768-861fc285203b)
GPU 1: NVIDIA A10 (UUID: GPU-466be1f8-6148-1a27-a450-592604f3df54)
GPU 2: Tesla T4 (UUID: GPU-bf507abe-ec25-2053-5435-1c82511a3ae8)
GPU 3: Tesla T4 (UUID: GPU-a1329f2e-1e73-88f2-4d4b-1ce18debbc6d)
"""


def _spans(text: str) -> list[tuple[str, int, int]]:
    return [s for s in recognise(text).recognised if s[0].startswith("nvidia-smi")]


def test_947_host_listing_is_read_whole_with_its_names() -> None:
    assert _spans(HOST_947) == [("nvidia-smi -L", 2, 5)]
    inventory = fact(pasted(HOST_947), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.models == {0: "NVIDIA A10", 1: "NVIDIA A10", 2: "Tesla T4", 3: "Tesla T4"}
    assert inventory.count == 4 and inventory.whole_count == 4 and not inventory.count_unshown


def test_947_whole_paste_counts_the_listing_not_a_header_cut_by_head() -> None:
    # The paste's nvidia-smi is `| head -n 4`: its header and no GPU row, which counts no GPU beside the listing.
    spans = _spans(body("947"))
    assert ("nvidia-smi -L", 12, 15) in spans
    inventory = fact(pasted(body("947")), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.count == 4 and inventory.whole_count == 4


def test_947_container_failure_still_proves_the_access_issue() -> None:
    # The container's own `nvidia-smi -L` failed (`Failed to initialize NVML: Unknown Error`): the host's listing
    # does not clear it.
    assert capture_checks("947", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"].status == "issue"


def test_1104_uuid_cut_to_dots_under_a_labelled_command_is_one_whole_gpu() -> None:
    # Corpus 1104 (huggingface/huggingface_hub#4134): `[setup] nvidia-smi -L:` then `GPU 0: NVIDIA H200 (...)`.
    assert ("nvidia-smi -L", 5, 5) in _spans(body("1104"))
    inventory = fact(pasted(body("1104")), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.models == {0: "NVIDIA H200"} and inventory.whole_count == 1


def test_1104_listing_shows_the_job_reached_its_gpu() -> None:
    result = capture_checks("1104", "CTR-GPU-ACCESS")["CTR-GPU-ACCESS"]
    assert result.status == "ok" and NVSMI_LIST_TITLE in result.message


def test_uuid_forms_whole_redacted_and_cut() -> None:
    # Modelled lines, each form users paste.
    for line, uuid in (("GPU 0: NVIDIA H200 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)",
                        "GPU-1a2b3c4d-0000-1111-2222-333344445555"),
                       ("GPU 1: NVIDIA H200 (UUID: GPU-xxxx)", "GPU-xxxx"),
                       ("GPU 2: NVIDIA H200 (UUID: ...)", "..."),
                       ("GPU 3: NVIDIA H200 (...)", None),
                       ("GPU 4: NVIDIA H200 (UUID: ", ""),
                       ("GPU 5: NVIDIA H200 (UUID", "")):
        m = list_gpu_line(line)
        assert m is not None and m["name"] == "NVIDIA H200" and m["uuid"] == uuid, line
    # Not a listing's line: no UUID part (collect_env's GPU lines), or several GPUs joined on one line (corpus 563's
    # issue-form field).
    assert list_gpu_line("GPU 0: NVIDIA A100-SXM4-80GB") is None
    assert list_gpu_line("GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-e7), GPU 1: NVIDIA GeForce RTX 4090 "
                         "(UUID: GPU-1b)") is None


def test_mig_devices_stay_in_the_span_and_count_no_gpu() -> None:
    # Modelled: an A100 with two MIG instances, fenced alone (whole), the second GPU's UUID redacted.
    text = ("```\n"
            "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaa)\n"
            "  MIG 3g.40gb     Device  0: (UUID: MIG-bbbb)\n"
            "  MIG 3g.40gb     Device  1: (UUID: MIG-cccc)\n"
            "GPU 1: NVIDIA A100-SXM4-80GB (UUID: ...)\n"
            "```\n")
    assert _spans(text) == [("nvidia-smi -L", 2, 5)]
    inventory = fact(pasted(text), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.count == 2 and inventory.whole_count == 2


def test_an_excerpt_is_a_lower_bound() -> None:
    # Modelled: GPU 3 and GPU 5 of a listing, quoted in prose: at least six GPUs, not a host count.
    inventory = parse_nvidia_smi_list("GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n"
                                      "GPU 5: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n", whole=False)
    assert inventory.count == 6 and inventory.count_unshown and inventory.whole_count is None
    # A listing under its command but with a gap in its numbers is not whole either.
    text = "$ nvidia-smi -L\nGPU 0: NVIDIA L4 (UUID: GPU-a)\nGPU 2: NVIDIA L4 (UUID: GPU-c)\n"
    inventory = fact(pasted(text), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.count == 3 and inventory.whole_count is None


def test_listing_ended_by_another_line_is_whole_and_one_at_the_paste_end_is_not() -> None:
    # Modelled: nvidia-smi prints every GPU; a listing from GPU 0 that another line ends (the user's words, the next
    # output: gpu_burn's own lines in corpus 814) is all of it. One that ends the paste may be where the copy stops.
    text = "I have these GPUs\nGPU 0: NVIDIA L4 (UUID: GPU-a)\nGPU 1: NVIDIA L4 (UUID: GPU-b)\nand it fails\n"
    inventory = fact(pasted(text), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.count == 2 and inventory.whole_count == 2
    inventory = fact(pasted(text.removesuffix("and it fails\n")), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.count == 2 and inventory.whole_count is None


def test_814_gpu_burn_listing_counts_eight_gpus() -> None:
    # Corpus 814: gpu_burn's eight `GPU n: NVIDIA H200 (UUID: ` lines (UUIDs removed by the user), then its errors.
    inventory = fact(pasted(body("814")), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.whole_count == 8 and set(inventory.models.values()) == {"NVIDIA H200"}


def test_nvlink_status_keeps_its_gpu_lines() -> None:
    # Corpus 61's form (modelled UUID): a GPU line with its links under it is nvidia-smi nvlink -s, not -L.
    text = ("$ nvidia-smi nvlink -s\n"
            "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-aaaa)\n"
            "\t Link 0: 25 GB/s\n"
            "\t Link 1: 25 GB/s\n"
            "GPU 1: NVIDIA A100-SXM4-80GB (UUID: ...)\n"
            "\t Link 0: 25 GB/s\n"
            "\t Link 1: <inactive>\n")
    assert [kind for kind, *_ in _spans(text)] == ["nvidia-smi nvlink -s"]
    status = fact(pasted(text), "nvlink_status")
    assert isinstance(status, NvlinkStatus)
    assert [(g.index, g.name, g.uuid) for g in status.gpus] == [(0, "NVIDIA A100-SXM4-80GB", "GPU-aaaa"),
                                                                (1, "NVIDIA A100-SXM4-80GB", "...")]
    for kind in ("138", "61", "694"):
        assert "nvidia-smi -L" not in {k for k, *_ in recognise(body(kind)).recognised}, kind


def test_one_pattern_reads_both_outputs() -> None:
    m = NVSMI_GPU_LINE.match("GPU 3: Tesla V100-SXM2-32GB (UUID: ...)")  # corpus 61
    assert m is not None and (m["index"], m["name"], m["uuid"]) == ("3", "Tesla V100-SXM2-32GB", "...")


def test_a_listing_alone_is_not_refused_and_names_reach_the_checks(tmp_path: Path) -> None:
    # Modelled: the brief's paste, two H200 under the command.
    text = ("$ nvidia-smi -L\n"
            "GPU 0: NVIDIA H200 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
            "GPU 1: NVIDIA H200 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445556)\n")
    results = paste_checks(tmp_path, text, "CTR-GPU-ACCESS", "IC-TOPOLOGY-PLACEMENT")
    assert results["CTR-GPU-ACCESS"].status == "ok"
    assert "two GPUs" in results["IC-TOPOLOGY-PLACEMENT"].message
    # GeForce cards named by the listing are never on an NVSwitch: Fabric Manager does not apply.
    geforce = ("nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-x)\n"
               "GPU 1: NVIDIA GeForce RTX 4090 (UUID: GPU-y)\n")
    assert paste_checks(tmp_path, geforce, "DRV-FABRIC-MANAGER")["DRV-FABRIC-MANAGER"].status == "not-applicable"


# --- GPU lines run together on one line ----------------------------------------------------------------------------


def test_1317_listing_run_together_on_one_line_is_read_not_whole() -> None:
    # Corpus 1317 (NVIDIA/open-gpu-kernel-modules#387): the issue form's `Hardware: GPU` field, its `nvidia-smi -L`
    # lines joined by spaces where the line breaks were lost.
    assert _spans(body("1317")) == [("nvidia-smi -L", 3, 3)]
    inventory = fact(pasted(body("1317")), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.models == {i: "NVIDIA GeForce RTX 2080 Ti" for i in range(4)}
    assert inventory.count == 4 and inventory.whole_count is None


def test_shell_word_split_listing_after_an_echo_is_read() -> None:
    # A Slurm job's output (`srun echo $(hostname -f) with $(nvidia-smi -L)`, found by the code search; UUIDs
    # as posted, the listing shortened to three GPUs): the shell's word splitting ran the lines together.
    line = ("paula10.sc.uni-leipzig.de with GPU 0: NVIDIA A30 (UUID: GPU-c2b237fe-1988-29b8-a817-116dac94b918) "
            "GPU 1: NVIDIA A30 (UUID: GPU-11f99fb5-a685-3915-8a19-3c6913d13da5) "
            "GPU 2: NVIDIA A30 (UUID: GPU-0ae8f8ee-e8ae-e12d-98de-2c8d8530528c)\n")
    assert _spans(line) == [("nvidia-smi -L", 1, 1)]
    inventory = fact(pasted(line), "gpus")
    assert isinstance(inventory, GpuInventory)
    assert inventory.models == {0: "NVIDIA A30", 1: "NVIDIA A30", 2: "NVIDIA A30"} and inventory.count == 3


def test_a_comma_list_the_user_wrote_is_not_the_listing() -> None:
    # Corpus 563 (aikitoria/open-gpu-kernel-modules#8): the form's field written as a list, `, ` between the GPUs.
    assert not [s for s in _spans(body("563")) if s[0] == "nvidia-smi -L"]
    # Modelled: one GPU line alone stays the plain reader's; a listing that does not start at GPU 0 is not read.
    assert run_together_list("GPU 0: NVIDIA A30 (UUID: GPU-c2b2)") == []
    assert run_together_list("GPU 1: NVIDIA A30 (UUID: GPU-c2b2) GPU 2: NVIDIA A30 (UUID: GPU-11f9)") == []
