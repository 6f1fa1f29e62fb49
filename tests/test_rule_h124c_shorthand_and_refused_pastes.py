"""Pastes an expert reads the host from that the tool refused, and GPUs named in the user's shorthand (issue 28, h124c).

- facts/gpus._ADA_SHORTHAND: an Ada workstation board as users shorten it (`10 x ADA 6000s`, `RTX 6000 Adas`,
  `A6000 Ada`, `Ada 6000`) is the RTX 6000 Ada, never Turing's Quadro RTX 6000 nor Ampere's RTX A6000.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_result
from stackaudit.engine.results import Result
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import stated_gpus
from stackaudit.gputable import architecture_of


def test_ada_shorthand_in_the_users_words() -> None:
    # Real (corpus 2906, turboderp-org/exllamav2#571).
    assert stated_gpus("TP with 10 x ADA 6000s w/ x16 Gen4 PCie each on a single NUMA node") == [(10, "RTX 6000 Ada")]
    # Modelled: the other shorthands users write for the same board.
    for line in ("10 x RTX 6000 Adas", "2x 6000 Ada", "4 x A6000 Ada", "8x Ada 6000", "2 x Ada A6000",
                 "two RTX 6000 Adas", "4 x 6000 Adas", "2x RTX 6000 Ada Generation"):
        said = stated_gpus(line)
        assert [n for n, _ in said] and all(m == "RTX 6000 Ada" for _, m in said), (line, said)
        assert architecture_of(said[0][1]) == "Ada Lovelace"


def test_the_older_boards_keep_their_names() -> None:
    # Modelled: Turing's Quadro RTX 6000 and Ampere's RTX A6000 have no `Ada` in their names.
    assert stated_gpus("2x Quadro RTX 6000") == [(2, "Quadro RTX 6000")]
    assert architecture_of("Quadro RTX 6000") == "Turing"
    assert stated_gpus("2x A6000") == [(2, "RTX A6000")]
    assert stated_gpus("8x A6000s") == [(8, "RTX A6000")]
    assert stated_gpus("2 RTX A6000 GPUs") == [(2, "RTX A6000")]
    # Modelled: an Ada word elsewhere on the line is no board's (`Ada` the language, a number that is no board's).
    assert stated_gpus("2x RTX 4090 running Ada code") == [(2, "RTX 4090")]


@pytest.mark.parametrize("check", ["PCIE-LINK-DOWNTRAIN", "IC-P2P-FUNCTIONAL", "IC-TOPO-READ"])
def test_ada_shorthand_paste_is_read(check: str) -> None:
    # Real (corpus 2906): the paste is no longer refused; nothing it shows settles these checks.
    result = capture_result("2906", check)
    assert result.status == "unknown", result.message


def _bench_spans(text: str) -> list[tuple[int, int]]:
    from stackaudit.importers.bench_output import bench_output
    return [(f.start, f.end) for f in bench_output(text.splitlines())]


def test_torch_all_reduce_bench_result_is_read() -> None:
    # Real (corpus 2885, skypilot-org/skypilot#3592): SkyPilot's rank prefix before each line of the 2024 form.
    prefix = "(head, rank=0, pid=22990) [sky-0000-user-0000-head-xxxxxxxx-compute:0]:"
    real = (f"{prefix}The average bandwidth of all_reduce with a 40.0GB payload (5 trials, 16 ranks):\n"
            f"{prefix} algbw: 11.396 GBps (91.2 Gbps)\n{prefix} busbw: 18.973 GBps (151.8 Gbps)\n")
    assert _bench_spans(real) == [(0, 3)]
    # Modelled: torchrun's rank tag and the Gbps-first units of an older release.
    older = ("[default0]:The average bandwidth of all_reduce with a 4.0GB payload (5 trials, 16 ranks):\n"
             "[default0]: algbw: 225.330 Gbps (28.166 GBps)\n[default0]: busbw: 422.493 Gbps (52.812 GBps)\n")
    assert _bench_spans(older) == [(0, 3)]
    # Modelled: the later form's payload table under its head and a blank line.
    table = ("The average bandwidth of all_reduce over 16 ranks (5 warmups / 20 trials, up to 10 queued calls per "
             "trial):\n\n| payload |    busbw   |    algbw   |\n| ------: | ---------: | ---------: |\n"
             "|   32KiB |   0.92GBps |   0.49GBps |\n\nEnvironment:\n")
    assert _bench_spans(table) == [(0, 5)]
    # Modelled: the head alone, cut before any bandwidth, is no result.
    assert _bench_spans("The average bandwidth of all_reduce with a 4.0GB payload (5 trials, 16 ranks):\n") == []


@pytest.mark.parametrize("check", ["IC-NCCL-ENV", "FW-VM", "DRV-FABRIC-MANAGER"])
def test_all_reduce_bench_paste_settles_nothing_it_does_not_show(check: str) -> None:
    # Real (corpus 2885): the bench's three lines show neither NCCL's settings, the guest's GPU paths nor the fabric.
    assert capture_result("2885", check).status == "unknown"


def test_distributed_llama_console_and_command() -> None:
    from stackaudit.facts.engine_command import parse_command_line
    from stackaudit.facts.gpus import gpus_from_dllama_device
    from stackaudit.facts.serving_logs import console_engine
    from stackaudit.gputable import JETSON_WITHOUT_MIG

    # Real (corpus 2829, b4rtaz/distributed-llama#265): its emoji-tagged start-up lines.
    for line in ("\U0001F4A1 Arch: Qwen3", "\U0001F4C0 RequiredMemory: 3712 MB", "\u2b55 Socket[0]: connected",
                 "\u2b55 Network is initialized", "\U0001F30B Device: NVIDIA Tegra Orin (nvgpu)",
                 "\U0001F30B Heap[0]: 7617 MB", "\U0001F4C4 BosId: 151643 (<|endoftext|>)"):
        assert console_engine(line) == "dllama", line
    # Modelled: the words without the engine's emoji are no line of its.
    assert console_engine("Arch: Qwen3") == "" and console_engine("Device: NVIDIA Tegra Orin (nvgpu)") == ""
    # Real: the GPU it names; modelled: a discrete NVIDIA card through Vulkan, and another vendor's (not read).
    assert gpus_from_dllama_device("\U0001F30B Device: NVIDIA Tegra Orin (nvgpu)\n").gpus[0].model \
        == "NVIDIA Tegra Orin (nvgpu)"
    assert gpus_from_dllama_device("\U0001F30B Device: NVIDIA GeForce RTX 3060\n").gpus[0].model \
        == "NVIDIA GeForce RTX 3060"
    with pytest.raises(ParseError):
        gpus_from_dllama_device("\U0001F30B Device: AMD Radeon RX 7900 XTX (RADV NAVI31)\n")
    # A Jetson's integrated GPU as Vulkan names it has no MIG, whatever the module (Orin, modelled: Xavier).
    assert JETSON_WITHOUT_MIG.search("NVIDIA Tegra Orin (nvgpu)")
    assert JETSON_WITHOUT_MIG.search("NVIDIA Tegra Xavier (nvgpu)")
    # Real: the root node's command (joined); modelled: a worker node's.
    root = parse_command_line("./dllama inference --prompt \"Hello world\" --steps 128 --model m.m --nthreads 1 "
                              "--gpu-index 0 --workers WORKER_IP:9999 WORKER_IP:9999")
    assert root is not None and root.engine == "dllama"
    worker = parse_command_line("./dllama worker --port 9999 --nthreads 4")
    assert worker is not None and worker.engine == "dllama"
    # Modelled: the program's name alone, with no mode, is no engine command.
    assert parse_command_line("./dllama --help") is None


@pytest.mark.parametrize("check", ["DRV-PERSISTENCE", "MEM-MIG", "DRV-CUDA-COMPAT", "RT-CUDA-GRAPHS", "IC-NCCL-ENV"])
def test_distributed_llama_on_a_jetson_is_read(check: str) -> None:
    # Real (corpus 2829): dllama over Vulkan on a Jetson Orin's nvgpu GPU, its nodes joined over sockets.
    assert capture_result("2829", check).status == "not-applicable"


def test_power_limit_stated_apart_from_the_gpus() -> None:
    from stackaudit.importers.rig_report import per_gpu_answer, per_gpu_limit

    machine = "2× RTX 3090 24 GB (sm86), NVLink. `nvidia-smi topo -m` reports NV4 between the cards; tensor parallel size 2."
    # Real (corpus 2899): the limit's line under its own heading, the GPUs on the machine's line above.
    assert per_gpu_answer([machine, "", "### Power limit during the run", "**250 W per GPU**, unchanged throughout."],
                          3) == (2, "RTX 3090", "250")
    # Modelled: with no GPU stated above, or two models stated, the line names no GPUs.
    assert per_gpu_answer(["### Power limit during the run", "**250 W per GPU**, unchanged throughout."], 1) is None
    assert per_gpu_answer(["2x RTX 3090", "2x RTX 4090", "300 W per GPU"], 2) is None
    # Real (corpus 805): the count, model and limit on one line, as before.
    assert per_gpu_limit("- 2× RTX 3090 24 GB, NVLink (NV4), 250 W per GPU.") == (2, "RTX 3090", "250")


def test_topo_cell_quoted_in_the_users_words() -> None:
    from stackaudit.facts.topology import nvlink_from_user_words

    # Real (corpus 2899).
    said = nvlink_from_user_words("2× RTX 3090 24 GB (sm86), NVLink. `nvidia-smi topo -m` reports NV4 between the "
                                  "cards; tensor parallel size 2.")
    assert said.cell == "NV4"
    # Modelled: another verb and noun.
    assert nvlink_from_user_words("nvidia-smi topo -m shows NV2 between both GPUs").cell == "NV2"
    # Modelled: a cell of one pair among several, or no cell, is no statement about the cards as a whole.
    for line in ("topo -m shows NV4 between GPU0 and GPU1", "topo -m shows PHB between the cards"):
        with pytest.raises(ParseError):
            nvlink_from_user_words(line)


def test_quoted_bridge_cell_is_read_on_the_bridged_pair(tmp_path: Path) -> None:
    # Real (corpus 2899): NV4 on two RTX 3090, every NVLink of their bridge.
    result = capture_result("2899", "IC-TOPO-READ")
    assert result.status == "ok" and "NV4" in result.message, result.message
    assert capture_result("2899", "PWR-GPU-POWER-LIMIT").status == "issue"
    # Modelled: a cell of fewer links than the bridge has, or one on cards without NVLink, is left to the matrix.
    assert _topo_read(tmp_path, "2x RTX 3090, `nvidia-smi topo -m` shows NV2 between the cards, TP 2.\n").status \
        == "unknown"
    assert _topo_read(tmp_path, "2x RTX 4090, `nvidia-smi topo -m` shows NV4 between the cards, TP 2.\n").status \
        == "unknown"
    # Modelled: with no cell quoted, GeForce cards keep their key negative.
    assert _topo_read(tmp_path, "2x RTX 3090 with TP 2.\n").status == "not-an-issue"


def _topo_read(tmp_path: Path, words: str) -> Result:
    from stackaudit.engine.runner import run_audit
    from stackaudit.importers.pasted import load_pasted

    path = tmp_path / "paste.txt"
    path.write_text(words + "\nNVIDIA driver 595.91.07; nvidia-smi reports CUDA 13.2 capability.\n")
    return next(r for r in run_audit(load_pasted([str(path)])).results if r.id == "IC-TOPO-READ")


def test_tp_over_the_hosts_gpus_in_the_users_words(tmp_path: Path) -> None:
    from stackaudit.facts.engine_command import stated_tp

    # Real (corpus 2906): TP over the ten GPUs the same sentence counts.
    assert stated_tp("TP with 10 x ADA 6000s w/ x16 Gen4 PCie each on a single NUMA node") == (10,)
    result = capture_result("2906", "IC-TOPOLOGY-PLACEMENT")
    assert result.status == "not-an-issue" and "give the run TP 10" in result.message, result.message
    # Modelled: other wordings; a negated or compared TP is none.
    assert stated_tp("TP over 4x RTX 3090 on one socket") == (4,)
    assert stated_tp("TP with 8 GPUs is slower than with 4 GPUs") == ()
    assert stated_tp("We tried without TP over 2 GPUs") == ()
    assert stated_tp("the TP value is 4") == ()
    # Modelled: TP over fewer GPUs than the host's count leaves the placement open.
    path = tmp_path / "paste.txt"
    path.write_text("I have 8x RTX 6000 Ada in this box.\nTP with 4 x RTX 6000 Ada is what I run.\n"
                    "NVIDIA driver 595.91.07; nvidia-smi reports CUDA 13.2 capability.\n")
    from stackaudit.engine.runner import run_audit
    from stackaudit.importers.pasted import load_pasted

    placed = next(r for r in run_audit(load_pasted([str(path)])).results if r.id == "IC-TOPOLOGY-PLACEMENT")
    assert placed.status != "not-an-issue", placed.message
