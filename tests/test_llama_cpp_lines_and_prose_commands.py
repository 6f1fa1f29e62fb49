"""What a throughput question pastes (issue 28, blind run SS: corpus 881-890).

- llama.cpp's own log lines (its timings and its loader) are its engine log (facts/serving_logs.GGML_LOG_LINE): the
  engine shown is llama.cpp, and `offloaded N/M layers to GPU` is kept (ServingLog.gpu_layers).
- A count before the brand (`1 nvidia 4090`) states the GPUs; one model at several counts is the largest.
- Two or more GeForce cards under llama.cpp's log are not an IC-P2P-FUNCTIONAL issue.
- A command after a label in the user's words (`My service startup command is: ...`) is read
  (importers/engine_command.PROSE_LABEL); llama-cli is llama.cpp's.
- A version line a paste lists (`sglang: 0.4.3.post4`) is the engine's version for RT-CUDA-GRAPHS.
- TensorRT-LLM benchmark.py's `[BENCHMARK]` result line is benchmark output.

Real lines are corpus captures or quoted verbatim from the public threads named beside them; counter-examples are
modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import ParseError
from stackaudit.facts.gpus import parse_user_gpus, stated_gpus
from stackaudit.facts.serving_logs import ServingLog, is_log_line, parse_serving_log

# https://github.com/ggml-org/llama.cpp/issues/34 (comment by drosanda, 2024-12-15): llama-cli's timings.
PERF_34 = """\
llama_perf_sampler_print:    sampling time =       8.69 ms /   137 runs   (    0.06 ms per token, 15772.51 tokens per second)
llama_perf_context_print:        load time =    1397.88 ms
llama_perf_context_print: prompt eval time =      88.24 ms /     9 tokens (    9.80 ms per token,   102.00 tokens per second)
llama_perf_context_print:        eval time =    2226.40 ms /   127 runs   (   17.53 ms per token,    57.04 tokens per second)
llama_perf_context_print:       total time =    2343.64 ms /   136 tokens
"""
# https://github.com/ggml-org/llama.cpp/issues/9013 (comment by sivansh11, 2025-05-25): llama-server's slot timings.
SERVER_9013 = """\
slot print_timing: id  0 | task 0 |
prompt eval time =     915.13 ms /    51 tokens (   17.94 ms per token,    55.73 tokens per second)
       eval time =   23038.87 ms /   275 tokens (   83.78 ms per token,    11.94 tokens per second)
"""
# https://github.com/ggml-org/llama.cpp/issues/9881 (comment by danbev): the loader of a build before 2025.
LOADER_9881 = """\
llm_load_tensors: offloading 32 repeating layers to GPU
llm_load_tensors: offloading non-repeating layers to GPU
llm_load_tensors: offloaded 33/33 layers to GPU
llm_load_tensors:        CPU buffer size =   281.81 MiB
llm_load_tensors:      CUDA0 buffer size =  4155.99 MiB
llama_new_context_with_model: n_ctx      = 8192
llama_kv_cache_init:      CUDA0 KV buffer size =  1024.00 MiB
"""


@pytest.mark.parametrize("text", [PERF_34, SERVER_9013, LOADER_9881], ids=["perf", "server", "loader"])
def test_llama_cpp_lines_show_llama_cpp(tmp_path: Path, text: str) -> None:
    log = parse_serving_log(text)
    assert log.engine == "llamacpp"
    results = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE")
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable" and "llama.cpp" in results["RT-CUDA-GRAPHS"].message
    assert results["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_offloaded_layers_are_kept() -> None:
    assert parse_serving_log(LOADER_9881).gpu_layers == (33, 33, "llm_load_tensors: offloaded 33/33 layers to GPU")


@pytest.mark.parametrize("line", [
    # corpus 889: the user's words about a rate, not llama.cpp's line.
    "On gpu  eval time is around 0.07 tokens per second.",
    # Modelled: a sentence that names the function without its line's shape.
    "I looked at llama_context: it is fine",
    # Modelled: a bare total, which any program prints.
    "total time =    9752.73 ms",
])
def test_words_about_timings_are_no_log_line(line: str) -> None:
    assert not is_log_line(line)


@pytest.mark.parametrize("line", [
    # The ggml era's loader opening its file: oobabooga/textgen#3205 (corpus 2122) and LostRuins/koboldcpp#290.
    r"llama.cpp: loading model from models\llama-2-13b.ggmlv3.q6_K.bin",
    r"llama.cpp: loading model from C:\AI\llama\Wizard-Vicuna-13B-Uncensored.ggmlv3.q5_K_M.bin",
])
def test_the_ggml_loaders_open_line_is_a_log_line(line: str) -> None:
    assert is_log_line(line)


def test_words_about_loading_a_model_are_no_log_line() -> None:
    """Modelled: the user's sentence, not the loader's line."""
    assert not is_log_line("I think llama.cpp: loading the model takes forever")


def test_print_timings_paste_882() -> None:
    """corpus 882: three print_timings blocks and `1 nvidia 4090` ... `3 nvidia 4090` in the user's words."""
    results = capture_checks("882", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE", "IC-P2P-FUNCTIONAL", "PCIE-LINK-DOWNTRAIN")
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"
    assert results["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    # llama.cpp's timings name no route for its copies between the cards: unknown, the majority of the blind readings
    # of model splits over GeForce cards (1256, 1283 against this file's not-an-issue; h72c).
    assert results["IC-P2P-FUNCTIONAL"].status == "unknown"
    assert results["PCIE-LINK-DOWNTRAIN"].status == "unknown"


def test_geforce_without_llama_cpp_log_stays_open(tmp_path: Path) -> None:
    """Modelled counter-example: the same cards under vLLM (its NCCL may have P2P from a patched driver, corpus
    762) are left to the evidence."""
    text = ("I have 2 nvidia 4090 and it is slow\n"
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n")
    assert paste_checks(tmp_path, text, "IC-P2P-FUNCTIONAL")["IC-P2P-FUNCTIONAL"].status == "unknown"


def test_a_count_before_the_brand_states_the_gpus() -> None:
    line = 'I have the same issue, when I issue only 1 nvidia 4090 i have 54 tokens per second CUDA_VISIBLE_DEVICES="0".'
    assert stated_gpus(line) == [(1, "RTX 4090")]
    inv = fact(pasted(body("882")), "gpus")
    assert inv.count == 3 and set(inv.models.values()) == {"RTX 4090"}


def test_several_models_still_state_none() -> None:
    """Modelled counter-example: two models at different counts are not one host's."""
    with pytest.raises(ParseError, match="several GPU sets"):
        parse_user_gpus("when I use 1 nvidia 4090 it is fast\nwith 2 nvidia 3090 it is slow\n")


def test_ollama_journal_883() -> None:
    """corpus 883: ollama's journal of llama.cpp's loader lines, 5 of 37 layers on the GPU."""
    log = fact(pasted(body("883")), "serving_log")
    assert isinstance(log, ServingLog) and log.engine == "llamacpp" and log.gpu_layers is not None
    assert log.gpu_layers[:2] == (5, 37)
    results = capture_checks("883", "MEM-GPU-SHARED", "RT-CUDA-GRAPHS", "CTR-GPU-ACCESS")
    shared = results["MEM-GPU-SHARED"]
    assert shared.status == "unknown" and "5 of 37 layers" in shared.message and "32 layers" in shared.message
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"
    assert results["CTR-GPU-ACCESS"].status == "not-applicable"


def test_a_cuda_buffer_shows_the_runtime_runs(tmp_path: Path) -> None:
    """corpus 883's `CUDA0 model buffer size`, and llama.cpp#9881's `CUDA0 buffer size`: the CUDA runtime ran on the
    driver, over the devices shown; timings alone (modelled counter-example: llama.cpp#34's CPU run) show no CUDA."""
    compat = capture_checks("883", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert compat.status == "ok" and "CUDA0" in compat.message and compat.coverage.count == 1
    assert paste_checks(tmp_path, LOADER_9881, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "ok"
    assert paste_checks(tmp_path, PERF_34, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "unknown"


def test_all_layers_offloaded_say_nothing_of_sharing(tmp_path: Path) -> None:
    """Every layer on the GPU (llama.cpp#9881) is no sign of a full card: the generic unknown."""
    shared = paste_checks(tmp_path, LOADER_9881, "MEM-GPU-SHARED")["MEM-GPU-SHARED"]
    assert shared.status == "unknown" and "layers" not in shared.message


def test_command_after_a_prose_label_884() -> None:
    commands = fact(pasted(body("884")), "engine_commands")
    (command,) = commands.commands
    assert command.engine == "vllm" and "--tensor-parallel-size=4" in command.argv
    assert ("CUDA_VISIBLE_DEVICES", "0,1,2,3") in command.env
    results = capture_checks("884", "IC-CUSTOM-ALLREDUCE", "IC-TOPOLOGY-PLACEMENT")
    assert {r.status for r in results.values()} == {"unknown"}


def test_command_after_a_full_width_colon_1685() -> None:
    # Real (corpus 1685): `Command： python -m sglang.launch_server ... --disable-cuda-graph ...`, the label's colon
    # typed on a CJK keyboard (U+FF1A); the command after it is read, and its --disable-cuda-graph is the issue.
    (command,) = fact(pasted(body("1685")), "engine_commands").commands
    assert command.engine == "sglang" and command.argv[:3] == ("python", "-m", "sglang.launch_server")
    res = capture_checks("1685", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--disable-cuda-graph" in res.message, res.message


def test_llama_cli_after_a_list_label_889() -> None:
    (command,) = fact(pasted(body("889")), "engine_commands").commands
    assert command.engine == "llamacpp" and command.argv[0] == "./build/bin/llama-cli"
    results = capture_checks("889", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE", "DRV-CUDA-COMPAT")
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"
    assert results["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"
    assert results["DRV-CUDA-COMPAT"].status == "unknown"


@pytest.mark.parametrize("line", [
    # Modelled: labels with words after `command`.
    "The command I used: vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2",
    "Launch command used: python -m sglang.launch_server --model-path m --tp 2",
])
def test_labels_with_words_after_command(line: str) -> None:
    (command,) = fact(pasted(line + "\n"), "engine_commands").commands
    assert command.argv[-1] == "2" and command.engine in ("vllm", "sglang")


def test_a_label_before_words_is_no_command() -> None:
    """Modelled counter-example: a label followed by a sentence, not a command."""
    value = fact(pasted("I ran this command: it crashed with vllm serve and -m flags\n"), "engine_commands")
    assert not getattr(value, "commands", ())


def test_listed_engine_version_881() -> None:
    """corpus 881: `sglang: 0.4.3.post4` above the launch command settles its CUDA graphs."""
    graphs = capture_checks("881", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert graphs.status == "ok" and "0.4.3.post4" in graphs.message


def test_launch_command_without_a_version_names_the_caveat(tmp_path: Path) -> None:
    """Modelled: 881's launch command without the version line reads ok by the whole command (h73b), naming SGLang's
    default-on change instead of 881's release."""
    text = "launch:\n```\npython3 -m sglang.launch_server --model-path Qwen/Qwen2.5-32B-Instruct --tp 2\n```\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "sglang#612" in res.message, res.message


def test_trtllm_benchmark_result_line_890() -> None:
    host = pasted(body("890"))
    assert "[BENCHMARK] model_name llama_7b" in host.record.docs["bench_output"]
    results = capture_checks("890", "RT-CUDA-GRAPHS", "PWR-CLOCK-EVENTS", "PWR-GPU-POWER-LIMIT")
    assert {r.status for r in results.values()} == {"unknown"}


def test_gpt_session_benchmark_lines_1351() -> None:
    """Corpus 1351 (TensorRT-LLM#1240): gptSessionBenchmark's `[BENCHMARK] batch_size ... tokensPerSec` lines are a
    benchmark's output, so the paste is read, not refused; the older line without output_length (modelled from
    gptSessionBenchmark.cpp's printf) is one too, and a line of another tool's `[benchmark] batch_size=` is not."""
    host = pasted(body("1351"))
    assert host.record.docs["bench_output"].count("tokensPerSec") == 3
    assert capture_checks("1351", "RT-TRTLLM-ALLREDUCE")["RT-TRTLLM-ALLREDUCE"].status == "unknown"
    older = "[BENCHMARK] batch_size 1 input_length 60 latency(ms) 40.81\n"
    assert "latency(ms) 40.81" in pasted(older).record.docs["bench_output"]
    assert "bench_output" not in pasted("[benchmark] batch_size=1 min_len=2500 max_len=9000 warmup_batches=10\n").record.docs


def test_ollama_verbose_summaries_are_benchmark_output_1397() -> None:
    """Corpus 1397 (ollama#3841): two `ollama run --verbose` summaries are read whole, and their `eval rate:` lines
    (not `prompt eval rate:`) give the decode rate, their median."""
    from stackaudit.facts.serving_rate import parse_ollama_stats_rate

    host = pasted(body("1397"))
    doc = host.record.docs["bench_output"]
    assert doc.count("total duration:") == 2 and doc.count("eval rate:") == 4
    rate = fact(host, "serving_rate")
    assert rate.tokens_per_s == 129.05 and rate.samples == 2
    # Modelled: a Go duration with minutes is one of the summary's lines; prefill alone gives no decode rate.
    assert "1m2.5s" in pasted("total duration:       1m2.5s\neval rate:            9.10 tokens/s\n").record.docs[
        "bench_output"]
    with pytest.raises(ParseError):
        parse_ollama_stats_rate("prompt eval rate:     222.02 tokens/s\n")


def test_lmdeploy_profile_result_block_1428() -> None:
    """Corpus 1428 (InternLM/lmdeploy#137): profile_generation's result block, from `concurrency:` to its closing rule,
    is benchmark output, so the paste is read, not refused; a `concurrency:` line with no latency line under it is not
    (modelled)."""
    doc = pasted(body("1428")).record.docs["bench_output"]
    assert doc.startswith("concurrency: 64, input_tokens: 1, output_tokens: 2048")
    assert "throughput: 22.92672973632506 token/s" in doc
    assert "bench_output" not in pasted("concurrency: 4\nelapsed_time: 3.2s\n").record.docs


def test_eval_time_is_the_decode_rate() -> None:
    """llama.cpp's `eval time` line is one sequence's decode; `prompt eval time` (prefill) is not read."""
    from stackaudit.facts.serving_rate import parse_engine_rate

    assert parse_engine_rate(PERF_34).tokens_per_s == 57.04
    assert parse_engine_rate(SERVER_9013).tokens_per_s == 11.94
    # Modelled counter-example: prefill alone is no decode rate.
    with pytest.raises(ParseError):
        parse_engine_rate(PERF_34.splitlines()[2] + "\n")


def test_the_device_list_shows_the_runtime_runs_921() -> None:
    """Corpus 921 (llama.cpp#13612): `ggml_cuda_init: found 3 CUDA devices` and each device's compute capability,
    which the runtime reads through the driver; a driver too old for it fails there instead."""
    result = capture_checks("921", "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"]
    assert result.status == "ok" and result.coverage is not None and result.coverage.count == 3


def test_a_runtime_the_driver_refuses_is_an_issue(tmp_path: Path) -> None:
    # Modelled on llama.cpp's own message (ggml-cuda.cu: `failed to initialize CUDA: %s`, cudaGetErrorString).
    text = ("ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version\n"
            "llama_model_loader: loaded meta data with 30 key-value pairs\n")
    assert paste_checks(tmp_path, text, "DRV-CUDA-COMPAT")["DRV-CUDA-COMPAT"].status == "issue"


def test_koboldcpp_service_command_920() -> None:
    """corpus 920: a systemd unit's `ExecStart=/usr/bin/python /opt/koboldcpp-latest/koboldcpp.py ...`: KoboldCpp is
    llama.cpp's library behind its own server."""
    (command,) = fact(pasted(body("920")), "engine_commands").commands
    assert command.engine == "llamacpp" and "--gpulayers" in command.argv
    results = capture_checks("920", "RT-CUDA-GRAPHS", "DRV-XID", "MEM-GPU-SHARED")
    assert results["RT-CUDA-GRAPHS"].status == "not-applicable"
    assert results["DRV-XID"].status == "unknown" and results["MEM-GPU-SHARED"].status == "unknown"


def test_a_sentence_naming_koboldcpp_is_no_command() -> None:
    """Modelled counter-example: the program named in a sentence, with no command line."""
    from stackaudit.facts.engine_command import parse_command_line

    assert parse_command_line("I run koboldcpp as a service and it dumps core") is None


def test_a_prompt_piped_into_llama_cli_921() -> None:
    """corpus 921: `echo "<prompt>" | CUDA_VISIBLE_DEVICES=0,2,1 ./llama-cli ...`: the command the pipe feeds."""
    commands = fact(pasted(body("921")), "engine_commands").commands
    piped = [c for c in commands if ("CUDA_VISIBLE_DEVICES", "0,2,1") in c.env]
    assert len(piped) == 1 and piped[0].engine == "llamacpp" and piped[0].argv[0] == "./llama-cli"


def test_a_pipe_from_another_engine_is_not_a_feeder() -> None:
    """Modelled counter-example: a command that is not a text feeder before a pipe keeps its own words."""
    from stackaudit.facts.engine_command import parse_command_line

    command = parse_command_line("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 | tee vllm.log")
    assert command is not None and command.argv[:2] == ("vllm", "serve") and "tee" not in command.argv


def test_summarize_py_under_mpirun_is_trtllm_899() -> None:
    """corpus 899: `mpirun -n 4 --allow-run-as-root python summarize.py --test_trt_llm ... --engine_dir ...`."""
    commands = fact(pasted(body("899")), "engine_commands").commands
    assert any(c.engine == "trtllm" and c.launcher[:3] == ("mpirun", "-n", "4") and c.ranks == 4
               and c.argv[1] == "summarize.py" for c in commands)


def test_summarize_py_without_an_engine_dir_is_no_engine() -> None:
    """Modelled counter-example: another project's summarize.py, no built engine named."""
    from stackaudit.facts.engine_command import parse_command_line

    assert parse_command_line("mpirun -n 4 python summarize.py --input notes.txt") is None


# --- llamafile: llama.cpp as one executable (facts/engine_command.LLAMAFILE_PACKED, h100c) --------------------------

def test_llamafile_commands_are_llama_cpps() -> None:
    from stackaudit.facts.engine_command import parse_command_line

    # Corpus 2216 (mozilla-ai/llamafile#384): a model packed with llamafile, run by its path; corpus 2217 (#273):
    # llamafile's own program with a model.
    for line in ["/media/storage/Software/AI/Meta-Llama-3-70B-Instruct.Q4_0.llamafile -ngl 9999",
                 "llamafile -m path/to/model.llamafile -ngl 999 --gpu nvidia -p 'This is a test'"]:
        command = parse_command_line(line)
        assert command is not None and command.engine == "llamacpp", line
    # Modelled: the words alone, or a llamafile named in a sentence, start no program.
    assert parse_command_line("llamafile") is None
    assert parse_command_line("I downloaded the llamafile and it does not use the GPU") is None


def test_2216_a_llamafile_run_is_read_and_uses_no_torch() -> None:
    # Both readers: llamafile is a llama.cpp program (no torch); the paste shows no NVIDIA driver or CUDA run.
    res = capture_checks("2216", "RT-TORCH-ARCH", "DRV-CUDA-COMPAT", "RT-KERNEL-ARCH", "CTR-GPU-ACCESS")
    assert res["RT-TORCH-ARCH"].status == "not-applicable", res["RT-TORCH-ARCH"].message
    assert [res[c].status for c in ("DRV-CUDA-COMPAT", "RT-KERNEL-ARCH", "CTR-GPU-ACCESS")] == ["unknown"] * 3


def test_2217_llamafiles_one_shot_command_is_an_engine_command() -> None:
    commands = fact(pasted(body("2217")), "engine_commands")
    assert [c.engine for c in commands.commands] == ["llamacpp"]
    assert capture_checks("2217", "RT-TORCH-ARCH")["RT-TORCH-ARCH"].status == "not-applicable"
