"""Issue 28 (blind EE, II, JJ): what a pasted engine command line shows of its release, and how it is read.

- A flag that only releases capturing CUDA graphs by default accept stands for the release where the paste states no
  version (facts/engine_command.GRAPHS_DEFAULT_MARKS): vLLM's `--speculative-config` (0.8.0), `--enable-prefix-caching`
  (0.3.3), SGLang's `--enable-ep-moe` (0.4.0.post1). An eager-mode flag on the same line still wins.
- A `\\` with spaces after it continues the command as its writer meant, and a line of only `NAME=value` assignments
  that the paste wrapped inside its last value goes on into the command below it
  (facts/engine_command.wrapped_inside_value; importers/engine_command).

Real lines are quoted from the threads named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_command_line, wrapped_inside_value

# --- flags that stand for a release -----------------------------------------------------------------------------

# https://github.com/sgl-project/sglang/issues/3371 (the Reproduction line).
SGLANG_3371 = ("python3 -m sglang.launch_server --model-path /root/.cache/huggingface/models/DeepSeek-R1 --tp 16 "
               "--dist-init-addr ip:20000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 40000 "
               "--enable-ep-moe\n")
# https://github.com/sgl-project/sglang/issues/2482 (the EP reproduction line: EP MoE with graphs turned off).
SGLANG_2482 = ("python3 -m sglang.launch_server --model-path neuralmagic/DeepSeek-Coder-V2-Instruct-FP8 "
               "--disable-radix-cache --trust-remote-code --tp 8 --enable-ep-moe --disable-cuda-graph\n")


def test_corpus_760_ep_moe_flag_shows_a_release_with_graphs() -> None:
    # https://github.com/sgl-project/SpecForge/issues/164: `--enable-ep-moe`, no --disable-cuda-graph.
    res = capture_checks("760", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--enable-ep-moe" in res.message and "0.4.0.post1" in res.message, res.message


def test_corpus_761_speculative_config_in_underscores_shows_0_8() -> None:
    # https://github.com/vllm-project/vllm/issues/21278: `--speculative_config '{...}'`, no --enforce-eager.
    res = capture_checks("761", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.8.0 or later" in res.message, res.message


def test_sglang_3371_ep_moe_line_is_ok(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, SGLANG_3371, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--enable-ep-moe" in res.message, res.message


def test_eager_flag_beside_a_release_flag_is_still_the_issue(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, SGLANG_2482, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--disable-cuda-graph" in res.message, res.message


def test_corpus_765_prefix_caching_with_enforce_eager_is_the_issue() -> None:
    # https://github.com/vllm-project/vllm/issues/12256: --enable-prefix-caching and --enforce-eager on one command.
    res = capture_checks("765", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--enforce-eager" in res.message, res.message


def test_modelled_flag_of_another_engine_shows_no_release(tmp_path: Path) -> None:
    # Modelled: `--enable-prefix-caching` is vLLM's; on an SGLang line it says nothing of SGLang's release.
    text = "python3 -m sglang.launch_server --model-path Qwen/Qwen2-7B --enable-prefix-caching\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "unknown", res.message


def test_modelled_prefix_caching_on_the_old_entrypoint_is_ok(tmp_path: Path) -> None:
    # Modelled: the module entrypoint alone shows no release (0.2.6 added graphs); the flag shows 0.3.3 or later.
    text = ("python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-v0.1 --enable-prefix-caching "
            "--max-model-len 4096\n")
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.3.3 or later" in res.message, res.message


# --- a command as pasted: `\ ` continuations, assignments wrapped inside a value -----------------------------------


def test_corpus_765_is_read_as_one_command() -> None:
    # https://github.com/vllm-project/vllm/issues/12256: `\ ` line ends, tab indents, `...=ens` / `12f0 NCCL_DEBUG=...`.
    res = capture_checks("765", "RT-CUDA-GRAPHS", "IC-NCCL-ENV")
    assert "NCCL_P2P_LEVEL=NVL" in res["IC-NCCL-ENV"].message, res["IC-NCCL-ENV"].message
    assert "NCCL_SOCKET_IFNAME=ens12f0" in res["IC-NCCL-ENV"].message, res["IC-NCCL-ENV"].message


def test_backslash_space_continues_the_command(tmp_path: Path) -> None:
    # Modelled on 765's form: each line ends in `\ `; the flag on the last line belongs to the command.
    text = "vllm serve Qwen/Qwen2-7B \\ \n\t --tensor-parallel-size 2 \\ \n\t --enforce-eager\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--enforce-eager" in res.message, res.message


def test_wrapped_inside_value_needs_assignments_on_both_sides() -> None:
    assert wrapped_inside_value("A=1 NCCL_SOCKET_IFNAME=ens ", "12f0 NCCL_DEBUG=INFO vllm serve m")
    # Modelled counter-examples: a wrapper or a program starts the line, or the line above is no assignment.
    assert not wrapped_inside_value("MODEL=m", "sudo NCCL_DEBUG=INFO vllm serve m")
    assert not wrapped_inside_value("MODEL=m", "vllm serve m --tensor-parallel-size 2")
    assert not wrapped_inside_value("echo start", "12f0 NCCL_DEBUG=INFO vllm serve m")


def test_modelled_assignment_line_over_a_whole_command_stays_apart() -> None:
    # Modelled: a variable set on its own line above a whole command is not joined into it.
    assert not wrapped_inside_value("NCCL_P2P_DISABLE=1", "vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2")
    command = parse_command_line("vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2")
    assert command is not None and command.env == ()
