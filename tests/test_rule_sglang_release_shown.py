"""Issue 28 (blind EE, SS, XE, XF; h67b): what a paste shows of an engine's release beside a command without an
eager-mode flag, for RT-CUDA-GRAPHS.

- SGLang's `--enable-torch-compile` compiles the batch sizes its CUDA graph runner captures: a release after
  sgl-project/sglang#612, which turned graphs on by default (facts/engine_command.GRAPHS_DEFAULT_MARKS; corpus 886).
- SGLang's own log lines in the dated prefix its releases print since late 2024 (`[2025-01-27 11:13:24 TP0] `, or the
  date before `server_args=ServerArgs(`) show such a release too (ServingLog.sglang_dated_line; corpus 681, 988). The
  date alone before other words is other launchers' format and shows nothing; a flag that ran without graphs before
  a later change (`--enable-mla`) keeps the check unknown.
- A compose service cut below its command still shows the command whole where a key follows it (corpus 1006);
  one cut inside or before its command stays unknown (corpus 54, 1163).

Real lines are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, fact, paste_checks, pasted
from stackaudit.facts.serving_logs import SGLANG_DATED_LINE

# https://github.com/sgl-project/sglang/issues/3186 (the launch line and its one prefill line).
SGLANG_3186 = ("python3 -m sglang.launch_server --model-path unsloth/Meta-Llama-3.1-8B-Instruct --host 0.0.0.0 "
               "--port 8000\n\n"
               "[2025-01-27 11:13:24 TP0] Prefill batch. #new-seq: 2, #new-token: 791, #cached-token: 180, cache hit "
               "rate: 11.56%, token usage: 0.02, #running-req: 28, #queue-req: 0\n")


def test_corpus_886_torch_compile_flag_shows_a_release_with_graphs() -> None:
    res = capture_checks("886", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--enable-torch-compile" in res.message, res.message


def test_corpus_681_dated_rank_line_shows_a_release_with_graphs() -> None:
    res = capture_checks("681", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "late 2024" in res.message and "TP0]" in res.message, res.message


def test_corpus_988_dated_server_args_line_shows_a_release_with_graphs() -> None:
    # The vLLM-formatted import lines above it make the log vLLM's by its first lines; the SGLang line still counts.
    res = capture_checks("988", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "server_args=ServerArgs(" in res.message, res.message


def test_sglang_3186_paste_reads_the_dated_line(tmp_path: Path) -> None:
    log = fact(pasted(SGLANG_3186), "serving_log")
    assert log.sglang_dated_line.startswith("[2025-01-27 11:13:24 TP0] Prefill batch.")
    res = paste_checks(tmp_path, SGLANG_3186, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok", res.message


def test_modelled_date_alone_is_not_sglang_format() -> None:
    # Modelled: a launcher's own dated line (corpus 903's form) and the 2024 time-only form show no release.
    assert not SGLANG_DATED_LINE.match("[2023-10-30 14:14:08] INFO starting container")
    assert not SGLANG_DATED_LINE.match("[04:40:55 TP0] Decode batch. #running-req: 2, #token: 4078")
    assert SGLANG_DATED_LINE.match("[2025-05-14 09:28:52] server_args=ServerArgs(model_path='/data/models/Qwen3-8B'")
    assert SGLANG_DATED_LINE.match("[2026-08-23 09:05:37 TP0 EP0] Decode batch, #running-req: 1")


def test_modelled_command_without_the_dated_line_names_the_caveat(tmp_path: Path) -> None:
    # Modelled: the same launch line alone shows no release: ok by the whole command (h73b), with the caveat that
    # SGLang before July 2024 captured no graphs by default, in place of the dated line's "late 2024 or later".
    text = SGLANG_3186.split("\n\n")[0] + "\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "July 2024" in res.message and "late 2024" not in res.message, res.message


def test_modelled_enable_mla_keeps_unknown_beside_the_dated_line(tmp_path: Path) -> None:
    # Modelled: --enable-mla ran without graphs before sgl-project/sglang#1401 (2024-09-12); "late 2024" does not
    # place the release after it.
    text = SGLANG_3186.replace("--port 8000", "--port 8000 --enable-mla")
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "--enable-mla" in res.message, res.message


def test_modelled_eager_flag_beside_the_dated_line_is_the_issue(tmp_path: Path) -> None:
    text = SGLANG_3186.replace("--port 8000", "--port 8000 --disable-cuda-graph")
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue", res.message


# --- a compose file cut below its command ------------------------------------------------------------------------

# https://github.com/vllm-project/vllm/issues/28132 (the compose file, ending at an empty `labels:`).
COMPOSE_28132 = """services:
  vllm-smol:
    container_name: smollm-3b
    image: vllm/vllm-openai:v0.11.0
    volumes:
      - ./smollm-3b/models:/models
    gpus: "all"
    environment:
      HF_HOME: "/models"
      CUDA_VISIBLE_DEVICES: "0"
    command: >
      --model HuggingFaceTB/SmolLM3-3B
      --enable-auto-tool-choice
      --tool-call-parser=hermes
      --gpu-memory-utilization 0.1875
    labels:
"""


def test_corpus_1006_compose_cut_below_its_command_is_judged() -> None:
    res = capture_checks("1006", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok", res.message


def test_compose_28132_command_is_whole(tmp_path: Path) -> None:
    ctr, = fact(pasted(COMPOSE_28132), "docker_containers").containers
    assert ctr.excerpt and ctr.command_whole
    res = paste_checks(tmp_path, COMPOSE_28132, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok", res.message


def test_modelled_compose_cut_at_its_command_stays_unknown(tmp_path: Path) -> None:
    # Modelled: the same file cut after its command, with an undeclared named volume marking the cut.
    text = COMPOSE_28132.replace("./smollm-3b/models", "models_cache").replace("    labels:\n", "")
    ctr, = fact(pasted(text), "docker_containers").containers
    assert ctr.excerpt and not ctr.command_whole
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown", res.message


def test_corpus_1163_compose_cut_inside_its_command_stays_unknown() -> None:
    res = capture_checks("1163", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown", res.message


# --- a `\` into the fence that closes the command's block ---------------------------------------------------------

# https://github.com/sgl-project/sglang/issues/4417 (the launch command, its last line's `\` before the closing fence).
SGLANG_4417 = """It works
with
```
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 16 --dist-init-addr 172.16.1.68:5000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0  --enable-cache-report --enable-metrics --watchdog-timeout=3000 \\
       --enable-flashinfer-mla \\
       --reasoning-parser deepseek-r1 \\
```
"""


def test_corpus_217_and_848_backslash_before_the_closing_fence_ends_the_command() -> None:
    for prefix in ("217", "848"):
        res = capture_checks(prefix, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert res.status == "ok", (prefix, res.message)


def test_sglang_4417_command_is_not_cut(tmp_path: Path) -> None:
    cmd, = fact(pasted(SGLANG_4417), "engine_commands").commands
    assert not cmd.cut and cmd.argv[-2:] == ("--reasoning-parser", "deepseek-r1")
    res = paste_checks(tmp_path, SGLANG_4417, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok", res.message


def test_modelled_backslash_into_an_opening_fence_stays_cut(tmp_path: Path) -> None:
    # Modelled: the command outside any block, its `\\` into a fence that opens the next block: the paste cuts it.
    text = SGLANG_4417.replace("with\n```\n", "with\n") + "log\n```\n"
    cmd, = fact(pasted(text), "engine_commands").commands
    assert cmd.cut
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "ends in" in res.message, res.message


def test_corpus_1401_block_cut_without_a_fence_stays_unknown() -> None:
    res = capture_checks("1401", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown" and "ends in" in res.message, res.message
