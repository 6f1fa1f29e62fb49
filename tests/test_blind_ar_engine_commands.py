"""Engine commands, logs and test runs of blind batches AQ and AR (issue 28, h82b).

- SGLang's `sglang serve` is its launch command, with the server arguments of `python -m sglang.launch_server`
  (python/sglang/cli/main.py: "serve: Launch the SGLang server"; corpus 1839).
- An SGLang log line whose time the writer cut keeps its rank tag alone (`[TP0] Scheduler hit an exception:`).
- llama.cpp's multimodal programs (`./llava` of 2023, `llava-cli`, `llama-llava-cli`, `llama-mtmd-cli`) take
  llama-cli's model and GPU options; llama-bench does not (its options take lists, its -ngl defaults to 99).
- A command the paste ends in, inside a block that never closes, may go on past the paste (corpus 1830); a fence with
  an info string (```bash) never closes a block, so under one left open it opens the next.
- OMP_NUM_THREADS=1 on a pasted engine command gives each worker one OpenMP thread (corpus 1829).
- An engine whose build or log gives a TP x PP of every GPU of the host, and a llama.cpp log whose buffers sit on
  every GPU, have no placement to choose (corpus 1842, 1843).
- An nccl-tests header over two hosts shows each host's GPUs (corpus 1847).

Real lines are corpus captures or quoted from the public threads named beside them; counter-examples are modelled
and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import argv_value
from stackaudit.facts.engine_command import EngineCommands, parse_command_line
from stackaudit.facts.parallelism import ServingEngine, group_of_every_gpu
from stackaudit.facts.serving_logs import SGLANG_DATED_LINE, SGLANG_LINE, ServingLog
from stackaudit.importers import _paste


def _commands(text: str) -> EngineCommands | None:
    value = fact(pasted(text), "engine_commands")
    return value if isinstance(value, EngineCommands) else None


# --- sglang serve ------------------------------------------------------------------------------

# https://github.com/opendatalab/MinerU-Diffusion/issues/8 (2026-03-30): `uv run sglang serve ...` on one GPU.
SERVE_MINERU = ('uv run sglang serve --model-path /home/ubuntu/.newtranx/llm/OpenDataLab/MinerU-Diffusion-V1-0320-2.5B '
                '--host "0.0.0.0" --port 8009 --tp-size 1 --dllm-algorithm "LowConfidence" --disable-cuda-graph '
                '--attention-backend "triton" --sampling-backend "pytorch" --trust-remote-code')
# corpus 802 (sgl-project/sglang PR 28620, a comment): the command a docker run hands the image, continued.
SERVE_802 = ("  sglang serve \\\n  --trust-remote-code \\\n  --model-path /model \\\n  --tp 8 \\\n"
             "  --mem-fraction-static 0.91 \\\n  --cuda-graph-backend-decode=disabled \\\n"
             "  --disable-custom-all-reduce \\\n  --host 0.0.0.0 \\\n  --port 30000\n")


def test_corpus_1839_sglang_serve_is_read_with_its_flags() -> None:
    results = capture_checks("1839", "RT-CUDA-GRAPHS", "IC-CUSTOM-ALLREDUCE")
    assert results["RT-CUDA-GRAPHS"].status == "issue"
    assert "--disable-cuda-graph" in results["RT-CUDA-GRAPHS"].message
    assert results["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"  # TP 16 over --nnodes 2


@pytest.mark.parametrize(("text", "tp"), [(SERVE_MINERU, "1"), (SERVE_802, "8")])
def test_sglang_serve_is_sglangs_command(text: str, tp: str) -> None:
    commands = _commands(text)
    assert commands is not None
    [command] = commands.commands
    assert command.engine == "sglang"
    assert command.as_process().flag("--tp-size", "--tp") == tp


def test_sglang_serve_named_in_a_warning_or_a_sentence_is_no_command() -> None:
    # SGLang's own warning (its docs' notebook outputs): `Example: sglang serve --model-path <model> [options]`.
    warning = ("/actions-runner/_work/sglang/sglang/python/sglang/launch_server.py:54: UserWarning: 'python -m "
               "sglang.launch_server' is still supported, but 'sglang serve' is the recommended entrypoint.\n"
               "  Example: sglang serve --model-path <model> [options]\n")
    assert parse_command_line("Example: sglang serve --model-path <model> [options]") is None
    assert _commands(warning) is None
    # Modelled: a sentence that names the program alone.
    assert _commands("After calling `sglang serve`, the server hangs.\n") is None


def test_sglang_line_with_the_rank_tag_alone() -> None:
    assert SGLANG_LINE.search("[TP0] Scheduler hit an exception:")  # corpus 1839
    # https://github.com/sgl-project/sglang/issues/24481: the time cut off, the rank tag kept.
    assert SGLANG_LINE.search("[TP0] Capture draft extend cuda graph begin (step 2). avail mem=12.08 GB")
    # Modelled: a bracketed word that is no rank tag.
    assert not SGLANG_LINE.search("[TP] Scheduler hit an exception:")
    assert not SGLANG_LINE.search("[GPU0] memory 12 GB")


def test_sglang_line_with_the_disaggregation_mode_before_the_rank_2723() -> None:
    """Real: corpus 2723 (sgl-project/sglang#14282) tags its ranks `DisaggregationMode.IGPUDECODE TP1`: SGLang's lines,
    read as its log. Counter-examples (modelled): the mode without a rank tag is no SGLang-dated line, nor a lowercase
    word in its place."""
    lines = [line for line in body("2723").splitlines() if "DisaggregationMode" in line and "Allocating" in line]
    assert len(lines) == 2 and all(SGLANG_LINE.search(line) and SGLANG_DATED_LINE.search(line) for line in lines)
    assert fact(pasted(body("2723")), "serving_log").engine == "sglang"
    assert not SGLANG_DATED_LINE.search("[2025-12-02 07:04:51 DisaggregationMode.DECODE] Allocating 40.00 GB")
    assert not SGLANG_LINE.search("[2025-12-02 07:04:51 disaggregationmode.decode TP1] Allocating 40.00 GB")


# --- llama.cpp's multimodal programs -----------------------------------------------------------

# https://github.com/ggml-org/llama.cpp/issues/4196: llava-cli, its name from late 2023.
LLAVA_CLI_4196 = ("./llava-cli -m ./models/shareGPT4V-7B/shareGPT4V-7B-q4_K_M.gguf --mmproj "
                  "./models/shareGPT4V-7B/mmproj-model-f16.gguf --image ../ippo.png")
# https://github.com/ggml-org/llama.cpp/pull/22790 (2026-05-07): llama-mtmd-cli, the program that replaced them.
MTMD_22790 = ('./build/bin/llama-mtmd-cli -hf ggml-org/gemma-3-4b-it-GGUF --image cat.png -p "What do you see?" '
              "--n_gpu_layers 99 -n 50")


def test_corpus_1833_llava_example_is_read_as_llamacpp() -> None:
    commands = _commands(body("1833"))
    assert commands is not None
    assert [c.engine for c in commands.commands] == ["llamacpp"]
    assert commands.commands[0].argv[:3] == ("./llava", "-m", "ggml-model-q5_k.gguf")


@pytest.mark.parametrize(("line", "layers"), [(LLAVA_CLI_4196, None), (MTMD_22790, "99")])
def test_multimodal_programs_are_llamacpp(line: str, layers: str | None) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "llamacpp"
    assert argv_value(command.argv, ("--n-gpu-layers", "-ngl")) == layers  # `--n_gpu_layers` is the same flag


def test_generic_or_other_programs_stay_unread() -> None:
    # Modelled: `./llava` where the paste shows no llama.cpp (LLaVA is a model's name too).
    assert _commands("```\n./llava -m model.bin --image a.png\n```\n") is None
    # https://github.com/haotian-liu/LLaVA/issues/476: LLaVA's own Python CLI is no llama.cpp program.
    assert parse_command_line("python llava/serve/cli.py --image-file 'x.jpg' --model-path "
                              "'liuhaotian/llava-v1.5-13b' --load-4bit --debug") is None
    # https://github.com/ggml-org/llama.cpp/pull/4520: llama-bench's options are lists, its -ngl defaults to 99.
    assert parse_command_line("./llama-bench -m ./models/openllama-7b-v2/ggml-model-f16.gguf -m "
                              "./models/openllama-7b-v2/ggml-model-q4_k.gguf -ngl 99") is None


# --- a command the paste ends in ---------------------------------------------------------------


def test_corpus_1830_command_cut_in_an_open_block_is_unknown() -> None:
    result = capture_checks("1830", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert result.status == "unknown"
    assert "go" in result.message and "0.0.0." in result.message


def test_modelled_the_same_command_in_a_closed_block_is_whole(tmp_path: Path) -> None:
    text = ("```\nSGL_ENABLE_JIT_DEEPGEMM=false python3 -m sglang.launch_server \\\n"
            "  --model-path deepseek-ai/DeepSeek-V3.2 \\\n  --host 0.0.0.0\n```\n")
    assert paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "ok"


def test_a_fence_with_an_info_string_opens_a_block() -> None:
    # corpus 1830: the log's opening fence was left out, so its closing one reads as an opening; ```bash opens.
    view = _paste.view("log line\n```\n\n### Reproduction\n```bash\npython3 -m sglang.launch_server \\\n  --host 0.0.0.")
    assert view.open_fence == 4
    # Modelled: a bare fence closes the block an info-string fence opened.
    assert _paste.view("```bash\nvllm serve m\n```\n").open_fence == -1


# --- OMP_NUM_THREADS on the command line -------------------------------------------------------


def test_corpus_1829_omp_one_on_the_command_is_ok() -> None:
    result = capture_checks("1829", "RT-OMP")["RT-OMP"]
    assert result.status == "ok"
    assert "OMP_NUM_THREADS=1" in result.message


def test_modelled_a_larger_value_without_the_cpus_is_unknown(tmp_path: Path) -> None:
    text = "OMP_NUM_THREADS=8 vllm serve m --tensor-parallel-size 4\n"
    assert paste_checks(tmp_path, text, "RT-OMP")["RT-OMP"].status == "unknown"


# --- the group of every GPU --------------------------------------------------------------------


def test_corpus_1842_engine_built_for_every_gpu_is_not_an_issue() -> None:
    result = capture_checks("1842", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "not-an-issue"
    assert "TP 4" in result.message


def test_llamacpp_buffers_on_every_gpu_are_the_group() -> None:
    # corpus 1843: the row split's buffers on CUDA0-3 of a host of four GPUs.
    engine = ServingEngine("llamacpp", None)
    every = ServingLog(engine="llamacpp", ggml_cuda_devices=("CUDA0", "CUDA1", "CUDA2", "CUDA3"),
                       ggml_cuda_line="load_tensors:  CUDA0_Split model buffer size =   248.62 MiB")
    assert "CUDA3" in group_of_every_gpu(engine, None, 4, log=every)
    # Modelled: buffers on three of four GPUs leave a placement to choose.
    three = ServingLog(engine="llamacpp", ggml_cuda_devices=("CUDA0", "CUDA1", "CUDA2"))
    assert group_of_every_gpu(engine, None, 4, log=three) == ""


def test_corpus_1843_split_buffers_name_every_device() -> None:
    log = fact(pasted(body("1843")), "serving_log")
    assert isinstance(log, ServingLog)
    assert log.ggml_cuda_devices == ("CUDA0", "CUDA1", "CUDA2", "CUDA3")  # CUDA3 shows in its split buffer only


# --- an nccl-tests header over two hosts -------------------------------------------------------


def test_corpus_1847_mig_coverage_counts_both_hosts() -> None:
    result = capture_checks("1847", "MEM-MIG")["MEM-MIG"]
    assert result.status == "ok"
    assert (len(result.coverage.shown), result.coverage.total) == (11, 16)  # rank 11's line is cut before its model
    assert "host-a05 GPU 2" in result.coverage.shown
