"""MEM-GPU-SHARED: whose memory is held, from what the paste proves.

- A GPU whose process box is cut but whose row holds no more than a desktop's share (at most 3 GiB, under a tenth of
  the GPU) costs a server nothing of note, whoever holds it: not an issue (corpus 347, 654, 1358, 1516), as at an
  engine's start. More, or a tenth or more, stays unknown (527: 1947 of 15360 MiB).
- torch's out-of-memory message whose one process is the engine's own (its memory is the allocator's holding and a
  CUDA context; `this process` where torch matched its PID) shows the engine's own budget ran out: not an issue
  (corpus 1523). Other processes named beside it that hold more than a CUDA context (1.5 GiB) are another program's
  memory on the GPU: an issue (2244, 2559); one holding a context or less (an engine's other rank) is not judged.
- ollama's offload line with `memory.gpu_overhead` between its available and required fields (1497), or broken over
  lines by the paste (1518), is read: the whole model fits the free memory.
- A llama.cpp command that asks for no GPU layer (no `-ngl`, whose default was 0) with the log's `offloaded 0/83
  layers to GPU`: the GPU holds no model by choice, not for want of memory (1525).

Corpus text is verbatim; the modelled variants say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import CAPTURES_DIR, capture_checks, paste_checks
from stackaudit.facts.gpus import parse_torch_oom, trtllm_ledger_span

# Corpus 1516 (huggingface/text-embeddings-inference#350): two H100s, 1299 and 0 MiB used, the process box cut.
TABLE_1516 = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.161.07             Driver Version: 535.161.07   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA H100 80GB HBM3          On  | 00000000:0F:00.0 Off |                    0 |
| N/A   32C    P0             117W / 700W |   {used}MiB / 81559MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA H100 80GB HBM3          On  | 00000000:2D:00.0 Off |                    0 |
| N/A   36C    P0             121W / 700W |      0MiB / 81559MiB |      0%      Default |
|                                         |                      |             Disabled |
"""

# Corpus 1523 (huggingface/text-generation-inference#1831): TGI's shard in its container, named by its host PID.
OOM_1523 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 11.32 GiB. GPU 0 has a total capacty "
            "of 79.14 GiB of which 3.98 GiB is free. Process 2218444 has 75.15 GiB memory in use. Of the allocated "
            "memory 73.66 GiB is allocated by PyTorch, and 963.77 MiB is reserved by PyTorch but unallocated. If "
            "reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See "
            "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n")


def _capture_text(prefix: str) -> str:
    path = next(CAPTURES_DIR.glob(prefix + "-*.txt"))
    return path.read_text().split("everything below this line is the capture, verbatim -----\n", 1)[1]


def test_a_context_share_held_with_the_process_box_cut_is_not_an_issue(tmp_path: Path) -> None:
    result = capture_checks("1516", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue"
    assert "GPU 0 1299 of 81559 MiB" in result.message and "under a tenth" in result.message
    assert result.coverage is not None and result.coverage.text() == "2 GPUs shown"
    # Modelled: the same table with 3.5 GiB held is more than a desktop's share: whose it is stays open.
    held = paste_checks(tmp_path, TABLE_1516.replace("{used}", "3584"), "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert held.status == "unknown" and "whose memory it is" in held.message


def test_a_tenth_of_a_small_gpu_held_stays_unknown() -> None:
    # Corpus 527: 1947 of 15360 MiB on a T4 is over a tenth of it.
    result = capture_checks("527", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "unknown"


def test_torch_oom_names_the_engines_own_process() -> None:
    oom = parse_torch_oom(OOM_1523)
    assert (oom.gpu, oom.processes) == (0, (("2218444", 75.15 * 1024),))
    assert oom.own_mib == 75.15 * 1024 and oom.asked_mib == 11.32 * 1024
    result = capture_checks("1523", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue"
    assert "engine's own process" in result.message and "75.15 GiB" in result.message


def test_torch_oom_with_another_process_is_not_the_engines_own(tmp_path: Path) -> None:
    # Modelled: a second process holds 40 GiB beside the engine's own 35 GiB: another program's memory.
    text = OOM_1523.replace("Process 2218444 has 75.15 GiB memory in use.",
                            "Process 1234 has 40.00 GiB memory in use. Including non-PyTorch memory, this process "
                            "has 35.15 GiB memory in use.").replace("73.66 GiB is allocated", "33.66 GiB is allocated")
    oom = parse_torch_oom(text)
    assert oom.own_mib == 35.15 * 1024 and oom.others_holding == (("1234", 40.0 * 1024),)
    result = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue" and "process 1234 40.00 GiB" in result.message
    # Modelled counter-example: the other process holds a CUDA context only (an engine's other rank): not judged.
    context = text.replace("Process 1234 has 40.00 GiB", "Process 1234 has 512.00 MiB")
    assert parse_torch_oom(context).others_holding == ()
    assert paste_checks(tmp_path, context, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"
    # Modelled: one process whose memory is far more than the allocator holds is not shown to be the engine's.
    other = parse_torch_oom(OOM_1523.replace("73.66 GiB is allocated", "20.00 GiB is allocated"))
    assert other.own_mib is None


def test_ollama_fit_is_read_past_the_gpu_overhead_field_and_a_broken_line() -> None:
    for prefix in ("1497", "1518"):
        result = capture_checks(prefix, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
        assert result.status == "ok", prefix
        assert "nothing else held the memory the whole model needed" in result.message


def test_llama_cpp_asked_for_no_gpu_layer(tmp_path: Path) -> None:
    result = capture_checks("1525", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue"
    assert "0 of 83 layers offloaded" in result.message and "no -ngl" in result.message
    # Modelled: the same log under a command that asks for 40 layers: llama.cpp found room for none, reported.
    text = _capture_text("1525").replace("--temp 0.1", "-ngl 40 --temp 0.1")
    asked = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert asked.status == "unknown" and "only 0 of 83 layers" in asked.message


def test_llama_cpp_log_of_no_layer_and_no_vram_1833_2685(tmp_path: Path) -> None:
    """Corpus 2685 (llamafile on Windows) and 1833 (llava on two RTX 3090s), no command with the log: llama.cpp's
    `offloaded 0/N layers to GPU` beside `VRAM used: 0.00 MB` is the model left off the GPU by -ngl, not crowded out.
    Real counter-example: 2323's `total VRAM used: 512 MB` stays open; modelled: the same log with VRAM used."""
    for prefix in ("2685", "1833"):
        result = capture_checks(prefix, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
        assert result.status == "not-an-issue" and "used no GPU memory" in result.message, prefix
    assert capture_checks("2323", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "unknown"
    text = _capture_text("2685").replace("VRAM used: 0.00 MB", "VRAM used: 2048.00 MB")
    used = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert used.status == "unknown" and "only 0 of 43 layers" in used.message


def test_a_windows_desktops_tenth_at_ollamas_start_is_the_platforms(tmp_path: Path) -> None:
    # Corpus 1476: ollama on native Windows (its gpu_windows.go lines) found 10.8 of 12.0 GiB free.
    result = capture_checks("1476", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "not-an-issue" and "native Windows" in result.message
    # Modelled: the same lines without the Windows-only ones (its gpu_windows.go sources, the NVML skew line ollama
    # logs only where it loaded nvml.dll): a tenth held on a Linux host stays open.
    text = "\n".join(line for line in _capture_text("1476").splitlines()
                     if "_windows.go" not in line and "OS VRAM overhead" not in line) + "\n"
    linux = paste_checks(tmp_path, text, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert linux.status == "unknown" and "whose is not in the source" in linux.message


def test_trtllm_ledger_shows_the_gpu_free_before_the_engines_own_model() -> None:
    # Corpus 1060 (NVIDIA/TensorRT-LLM, H20 TP8): 94.30 of 95.00 GiB free before the model, one rank of eight.
    lines = _capture_text("1060").splitlines()
    at = next(i for i, line in enumerate(lines) if "component creation attempt" in line)
    start, end = trtllm_ledger_span(lines, at)
    assert lines[start].startswith("Total GPU memory (GiB): 95.00") and lines[end - 1].startswith("Drafter:")
    result = capture_checks("1060", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "ok" and "at most 0.7 GiB" in result.message
    assert result.coverage is not None and result.coverage.text() == "1 of 8 GPUs shown"


def test_two_ranks_of_one_communicator_on_one_gpu_is_an_issue() -> None:
    # Corpus 1485: ranks 0 and 2, 1 and 3 of one commId open busId 31000 and 4b000 on qgpu2008.
    result = capture_checks("1485", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue" and "ranks 0, 2" in result.message and "ranks 1, 3" in result.message
    assert result.coverage is not None and result.coverage.text() == "2 GPUs shown"


def test_ranks_without_a_commid_are_not_tied_to_one_communicator() -> None:
    # Modelled on 1485's lines without the commId (NCCL before 2.18): a rank's TP and DP groups of one size share its
    # GPU, so two comm lines on one bus ID prove no duplicate.
    from stackaudit.facts.serving_logs import parse_serving_log

    lines = [line for line in _capture_text("1485").splitlines() if "Init START" in line]
    log = parse_serving_log("\n".join(lines) + "\n")
    assert [(h, b, r) for h, b, r, _ in log.ranks_sharing_a_gpu()] == [
        ("qgpu2008", "0000:31:00.0", (0, 2)), ("qgpu2008", "0000:4b:00.0", (1, 3))]
    bare = parse_serving_log("\n".join(line.split(" commId")[0] for line in lines) + "\n")
    assert bare.ranks_sharing_a_gpu() == ()


def test_layers_left_on_the_cpu_are_reported_over_the_gpus_listed() -> None:
    # Corpus 927: ggml's device list names one GPU; 928: ollama's offload line weighs one GPU's 2.0 GiB.
    for prefix in ("927", "928"):
        result = capture_checks(prefix, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
        assert result.status == "unknown" and "layers on the GPU" in result.message, prefix
        assert result.coverage is not None and result.coverage.text() == "1 GPU shown", prefix


def test_nccls_duplicate_gpu_warning_is_two_processes_on_one_gpu(tmp_path: Path) -> None:
    # Corpus 2365: a GRPO trainer and the vLLM server it syncs weights with, ranks 0 and 1 on the VM's one A100 (bus
    # 40, 0000:00:04.0), with no NCCL init line; 901: the warning beside init lines with a commId.
    result = capture_checks("2365", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue" and "two ranks of one communicator on one GPU" in result.message
    assert any("rank 1 and rank 0 both on CUDA device 40" in line for line in result.evidence)
    assert capture_checks("901", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "issue"
    # Modelled: NCCL's other refusal of the same init, with no duplicate GPU, says nothing of who holds a GPU.
    other = paste_checks(tmp_path, "NCCL WARN Cuda failure 'out of memory'\n"
                         "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n",
                         "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert other.status != "issue"


def test_a_display_beside_a_training_framework_named_on_the_only_gpu_is_an_issue(tmp_path: Path) -> None:
    # Corpus 2356: `unsloth==2025.10.6` quoted in the user's sentence, a GRPO script on a DGX Spark's only GPU, whose
    # display is on and whose memory row reads Not Supported, the process box cut.
    result = capture_checks("2356", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue" and "the only GPU in the source" in result.message
    from stackaudit.facts.engine_command import stated_engines

    first = _capture_text("2356").splitlines()[0]
    assert stated_engines(first) == ("torch",)
    # Corpus 2358 (unslothai/unsloth#1639): `while running unsloth.` in the user's words.
    assert stated_engines(_capture_text("2358").splitlines()[0]) == ("torch",)
    # A pip list's bare pin is a listing, not a sentence naming what runs.
    assert stated_engines("unsloth==2025.10.6") == ()
    # Modelled: the same table under a sentence naming no framework: a desktop's GPU, the note it was.
    unnamed = _capture_text("2356").replace(first, "I'm having a very similar issue on my DGX Spark.", 1)
    plain = paste_checks(tmp_path, unnamed, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert plain.status != "issue"


def test_torch_oom_naming_other_programs_processes_is_an_issue() -> None:
    # Corpus 2559 (QwenLM/Qwen3-VL#1224): six processes on a 23.69 GiB GPU, the message cut before torch's own
    # holding; two of them beside the largest hold more than a context.
    oom = parse_torch_oom(_capture_text("2559"))
    assert {pid for pid, _ in oom.others_holding} == {"1348", "1892152"}
    result = capture_checks("2559", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert result.status == "issue" and "1348" in result.message
    # Corpus 2244 (xorbitsai/inference#2345): 2.95 GiB held by process 9281 beside the model's 13.86 GiB, with
    # nvidia-smi's header line alone beside it.
    assert capture_checks("2244", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "issue"
    # Corpus 1523 and 2007: the one process named is the engine's own: no other program.
    assert capture_checks("2007", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status == "not-an-issue"


def _capture_body(prefix: str) -> str:
    path = next(CAPTURES_DIR.glob(f"{prefix}-*"))
    return path.read_text().split("verbatim -----\n", 1)[1]


def test_two_docker_runs_of_engines_on_one_gpu_share_it(tmp_path: Path) -> None:
    # Corpus 2561 (vllm-project/vllm#17366): two named vLLM containers, each `--gpus '"device=0"'`, ports 8900 and 8901.
    r = capture_checks("2561", "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert r.status == "issue" and "vllm_qwen_first and vllm_qwen_second" in r.message and "GPU 0" in r.message
    # Modelled: the second container given GPU 1 shares nothing; the same name and port is one command run again.
    text = _capture_body("2561")
    apart = text.replace("""--gpus='"device=0"' --name vllm_qwen_second""", """--gpus='"device=1"' --name vllm_qwen_second""")
    assert apart != text
    assert paste_checks(tmp_path, apart, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"
    again = text.replace("vllm_qwen_second", "vllm_qwen_first").replace("--port 8901", "--port 8900")
    assert paste_checks(tmp_path, again, "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"


def test_a_docker_run_tried_again_after_a_failure_is_not_two_engines() -> None:
    # Corpus 2557: TGI's image run twice with --gpus all, the second with flash attention off after the first failed:
    # no names, no engine ports, one server at a time.
    assert capture_checks("2557", "MEM-GPU-SHARED")["MEM-GPU-SHARED"].status != "issue"
