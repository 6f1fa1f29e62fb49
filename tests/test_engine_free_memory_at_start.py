"""MEM-GPU-SHARED from an engine's start-up lines: SGLang's `Load weight begin. avail mem=` per rank, after its own
`Init torch distributed ends. mem usage=`, and vLLM's refusal to start (`Free memory on device cuda:0 (1.53/22.05
GiB) on startup is less than desired GPU memory utilization`).

SGLang's lines give each rank's free memory (torch.cuda.mem_get_info, in GiB) but not the GPU's total, so they are
reported, not judged: a larger GPU with memory held by another program prints the same lines as a smaller one with
nothing held. vLLM's line gives the free and the total memory its worker found: memory held then is reported, as
ollama's is (whose it is is not in the line). The lines are real, verbatim from the public thread named beside each; modelled ones are said so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import EngineGpuMemory, engine_gpu_memory_from_engine_log
from stackaudit.facts.serving_logs import is_log_line

# https://github.com/sgl-project/sglang/issues/40558 (shahizat): four ranks, two of their weight-load lines shown.
SGLANG_40558 = """\
[2026-09-21 13:37:09 TP3] Init torch distributed ends. elapsed=0.32 s, mem usage=0.39 GB
[2026-09-21 13:37:09 TP0] Init torch distributed ends. elapsed=7.33 s, mem usage=0.39 GB
[2026-09-21 13:37:09 TP2] Init torch distributed ends. elapsed=2.92 s, mem usage=0.39 GB
[2026-09-21 13:37:09 TP1] Init torch distributed ends. elapsed=5.07 s, mem usage=0.39 GB
[2026-09-21 13:37:09 TP1] Load weight begin. avail mem=94.01 GB
[2026-09-21 13:37:09 TP0] Load weight begin. avail mem=94.01 GB
[2026-09-21 13:37:09 TP0] Detected fp8 checkpoint.
"""
# https://github.com/sgl-project/sglang/pull/15426 (AndyDai-nv): one rank, which SGLang tags with no rank.
SGLANG_15426 = """\
[2025-12-23 14:18:00] Init torch distributed begin.
[2025-12-23 14:18:00] Init torch distributed ends. mem usage=0.00 GB
[2025-12-23 14:18:00] MOE_RUNNER_BACKEND is not initialized, the backend will be automatically selected
[2025-12-23 14:18:01] Load weight begin. avail mem=46.81 GB
"""


def test_eight_ranks_free_memory_is_reported_without_the_gpus_total() -> None:
    # Corpus 526 (sgl-project/sglang#11716): 137.29-137.52 GiB free on each of eight ranks; no GPU model shown.
    result = capture_checks("526", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown"
    assert "137.29-137.52 GiB free on 8 rank(s)" in result.message
    assert "1.77-2.01 GiB of distributed init" in result.message and "total memory" in result.message


def test_each_rank_is_read_once_with_its_own_init(tmp_path: Path) -> None:
    memory = engine_gpu_memory_from_engine_log(SGLANG_40558)
    assert [(g.gpu, g.free_mib, g.own_mib, g.total_mib) for g in memory.gpus] == [
        ("TP1", 94.01 * 1024, 0.39 * 1024, None), ("TP0", 94.01 * 1024, 0.39 * 1024, None)]
    result = paste_checks(tmp_path, SGLANG_40558, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "94.01 GiB free on 2 rank(s)" in result.message


def test_a_single_rank_without_a_tag_is_read(tmp_path: Path) -> None:
    (gpu,) = engine_gpu_memory_from_engine_log(SGLANG_15426).gpus
    assert (gpu.gpu, gpu.free_mib, gpu.own_mib) == ("TP0", 46.81 * 1024, 0.0)
    result = paste_checks(tmp_path, SGLANG_15426, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "46.81 GiB free on 1 rank(s)" in result.message


def test_data_parallel_ranks_are_kept_apart() -> None:
    # Modelled on sgl-project/sglang#17402's `DP1 TP1` tags: two replicas each with a TP0.
    lines = ("[2026-01-20 02:40:16 DP0 TP0] Load weight begin. avail mem=70.10 GB\n"
             "[2026-01-20 02:40:16 DP1 TP0] Load weight begin. avail mem=40.10 GB\n")
    assert [g.gpu for g in engine_gpu_memory_from_engine_log(lines).gpus] == ["DP0 TP0", "DP1 TP0"]


def test_free_memory_after_the_weights_is_not_read_as_the_start(tmp_path: Path) -> None:
    # Modelled: only the lines after the weights (`Load weight end`, `Memory pool end`) are pasted; their free memory
    # is what SGLang left itself, not what it found, so the check still asks for nvidia-smi.
    lines = ("[2025-02-04 05:29:17 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=8.37 GB\n"
             "[2025-02-04 05:29:17 TP0] Memory pool end. avail mem=1.68 GB\n")
    result = paste_checks(tmp_path, lines, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "rank(s)" not in result.message and "nvidia" in result.message


# --- vLLM's refusal to start: free and total memory at the worker's start -------------------------------------

# https://github.com/vllm-project/vllm/issues/33297 (pacoxu): a CI L4 whose memory another test still held.
VLLM_33297 = ("[2026-01-28T23:59:42Z] (EngineCore_DP0 pid=972) ERROR 01-28 15:59:42 [core.py:935] ValueError: Free memory "
              "on device cuda:0 (1.53/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). "
              "Decrease GPU memory utilization or reduce GPU memory used by other processes.\n")
# https://github.com/vllm-project/vllm-omni/issues/276 (wulaoshi): two A100 80GB, the device not named (before 0.10).
VLLM_OMNI_276 = ("ValueError: Free memory on device (0.49/79.32 GiB) on startup is less than desired GPU memory "
                 "utilization (0.6, 47.59 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
                 "processes.\n")
# https://github.com/noonghunna/club-3090/issues/4 (timxx): one RTX 3090 at 0.97.
CLUB3090_4 = ("(EngineCore pid=79) ValueError: Free memory on device cuda:0 (22.76/24.0 GiB) on startup is less than "
              "desired GPU memory utilization (0.97, 23.28 GiB). Decrease GPU memory utilization or reduce GPU memory "
              "used\n")


def test_memory_held_when_vllm_refused_to_start_is_reported(tmp_path: Path) -> None:
    for text, where, held in ((VLLM_33297, "cuda:0", "20.5 GiB"), (VLLM_OMNI_276, "the engine's GPU", "78.8 GiB"),
                              (CLUB3090_4, "cuda:0", "1.2 GiB")):
        result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
        assert result.status == "unknown" and f"memory was held on {where} ({held})" in result.message


def test_vllm_start_within_the_drivers_reserve_is_ok(tmp_path: Path) -> None:
    # Modelled: the club-3090#4 line at 0.99 with 23.5 of 24.0 GiB free: vLLM refused only for its own margin.
    text = CLUB3090_4.replace("(22.76/24.0 GiB)", "(23.50/24.0 GiB)").replace("(0.97, 23.28 GiB)", "(0.99, 23.76 GiB)")
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok" and "0.5 GiB" in result.message


def test_a_summary_of_several_runs_is_not_read(tmp_path: Path) -> None:
    # Modelled on a CI summary's `(58.33-58.44/63.98 GiB)`: a range across runs is no one start's memory.
    text = VLLM_33297.replace("(1.53/22.05 GiB)", "(58.33-58.44/63.98 GiB)")
    assert not engine_gpu_memory_from_engine_log_or_none(text)


def engine_gpu_memory_from_engine_log_or_none(text: str) -> EngineGpuMemory | None:
    try:
        return engine_gpu_memory_from_engine_log(text)
    except ParseError:
        return None


# Corpus 1190 (ggml-org/llama.cpp, `llama-server --list-devices`): each device's total and free memory, one a line.
LIST_DEVICES_1190 = """\
Available devices:
  CUDA0: NVIDIA GeForce RTX 3090 (24154 MiB, 23892 MiB free)
  CUDA1: Tesla P40 (24438 MiB, 24290 MiB free)
"""


def test_llama_server_list_devices_gives_each_gpus_free_memory(tmp_path: Path) -> None:
    memory = engine_gpu_memory_from_engine_log(LIST_DEVICES_1190)
    assert [(g.gpu, g.total_mib, g.free_mib) for g in memory.gpus] == [
        ("CUDA0 (NVIDIA GeForce RTX 3090)", 24154.0, 23892.0), ("CUDA1 (Tesla P40)", 24438.0, 24290.0)]
    result = capture_checks("1190", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok" and "nothing else held memory" in result.message
    # Modelled: a device whose free memory exceeds its total (unified memory, as corpus 1059's device_info shows)
    # says nothing of what else holds it, and is not read.
    assert engine_gpu_memory_from_engine_log_or_none(LIST_DEVICES_1190.replace("23892 MiB free", "58499 MiB free")
                                                     .replace("  CUDA1: Tesla P40 (24438 MiB, 24290 MiB free)\n", "")) is None


def test_a_desktops_share_held_at_start_is_not_an_issue() -> None:
    # Corpus 1112 (ollama on an RTX 4090): 21.8 of 23.6 GiB available, 1.8 GiB held by something the log does not name.
    result = capture_checks("1112", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue" and "1.8 of 23.6 GiB" in result.message
    # Corpus 581: 2.2-2.4 GiB held of 7.9-10.9 GiB is more than a tenth of each GPU: reported, not judged.
    result = capture_checks("581", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "memory was held on GPU 0" in result.message


def test_memory_vllm_refused_to_start_for_stays_reported_however_little(tmp_path: Path) -> None:
    # club-3090#4: 1.2 GiB held of 24 GiB would be a desktop's share, but vLLM refused to start for it.
    result = paste_checks(tmp_path, CLUB3090_4, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "memory was held on cuda:0 (1.2 GiB)" in result.message


def test_vllm_refusal_wrapped_after_less_than_is_read() -> None:
    # Corpus 2754 (aws-samples/aws-do-eks#80): the message wrapped after `on startup is less than`, quoted with its
    # frames in a pull request; the head alone is vLLM's line, and the memory held is reported.
    result = capture_checks("2754", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "memory was held on cuda:3 (4.5 GiB)" in result.message


def test_the_wrapped_head_reads_as_the_one_line_does(tmp_path: Path) -> None:
    # Modelled from club-3090#4: the same line wrapped after `less than` gives what the one line gives.
    head, _, tail = CLUB3090_4.partition("less than ")
    result = paste_checks(tmp_path, head + "less than\n" + tail, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown" and "memory was held on cuda:0 (1.2 GiB)" in result.message


def test_free_memory_in_prose_without_vllms_reading_is_not_its_line() -> None:
    # Modelled counter-example: the words without vLLM's `(free/total GiB)` reading are no log line.
    assert not is_log_line("Free memory on device cuda:0 on startup is less than")
    assert not is_log_line("Free memory on device cuda:0 (about 20 GiB) on startup is less than")
    assert is_log_line("ValueError: Free memory on device cuda:3 (173.8/178.35 GiB) on startup is less than")
