"""Issue 28 (recognition, blind 362): an LMDeploy launch line (`lmdeploy serve api_server MODEL --tp 4`) is an engine
command.

The engine table (facts/processes.classify) names LMDeploy's server beside vLLM's, SGLang's and TensorRT-LLM's, so
a pasted line gives the tensor-parallel size and the variables set on it (CUDA_VISIBLE_DEVICES) to the placement
checks: the command's TP group is placed on the pasted matrix (IC-TOPOLOGY-PLACEMENT). `lmdeploy chat` runs the engine
in its own process, so it is an engine command too (blind 2163). A local model directory may be a TurboMind workspace,
whose config.ini holds its TP: with no `--tp` on the line, the TP is not read. `lmdeploy serve proxy` (a router that
holds no GPU), `lmdeploy check_env` and the other subcommands are not engine commands.

Real lines are quoted from the threads named beside each: 362 (InternLM/lmdeploy#4325, --tp 4 on GPUs 2-5 of an
11-GPU bridged box), InternLM/lmdeploy#1755, #2691 (--tp 4 on four A100 PCIe), #2724 and zhyncs/lmdeploy-build#2
(--tp 2, TurboMind GPTQ); `lmdeploy chat` lines from 2163 (InternLM/lmdeploy#1130), #1001 and LMDeploy's
docs/en/load_hf.md. The counter-examples (other lmdeploy subcommands, a TP group across sockets) are modelled
and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import sizes_from_argv
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers.recognition import recognise

# https://github.com/InternLM/lmdeploy/issues/1755 (eight RTX 4090, --tp 4 hangs), continuation lines.
LMDEPLOY_1755 = """CUDA_VISIBLE_DEVICES=0,1,2,3  lmdeploy serve api_server /home/nlp/pretrain_models/Qwen2-72B-Instruct-AWQ \\
--model-name qwen  \\
--server-name 0.0.0.0 \\
--server-port 23334 \\
--tp 4 \\
--cache-max-entry-count 0.1 \\
--quant-policy 4 \\
--model-format awq
"""
# https://github.com/InternLM/lmdeploy/issues/2691 (issue body, Reproduction: four A100 PCIe, api_server hangs at times).
LMDEPLOY_2691 = ("CUDA_VISIBLE_DEVICES=0,3,4,7 NCCL_P2P_DIRECT_DISABLE=1 lmdeploy serve api_server "
                 "/var/aigc/model/InternVL2-40B --tp 4  --server-port 23333 --log-level DEBUG")
# https://github.com/InternLM/lmdeploy/issues/2724 (a comment's inline code).
LMDEPLOY_2724 = ("`$ lmdeploy serve api_server meta-llama/Llama-3.1-70B-Instruct --tp 2  --dtype float16 "
                 "--log-level INFO`\n")
# https://github.com/zhyncs/lmdeploy-build/issues/2 (issue body; the model's home-directory path redacted).
LMDEPLOY_BUILD_2 = ("CUDA_VISIBLE_DEVICES=3,4 lmdeploy serve api_server <model-dir>/glm-4-9b-chat-GPTQ-Int4 "
                    "--backend turbomind --model-format gptq --server-port 11231 --tp 2 --session-len 16500 "
                    "--cache-max-entry-count 0.1 --model-name gpt --max-batch-size 64")


def _engine_lines(text: str) -> list[tuple[int, int]]:
    return [(start, end) for kind, start, end in recognise(text).recognised if kind == "engine command"]


def test_corpus_362_command_gives_its_tp_group() -> None:
    # lmdeploy#4325: CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3,4,5,... lmdeploy serve api_server ... --tp 4
    line = body("362").splitlines()[1]
    command = parse_command_line(line)
    assert command is not None and command.engine == "lmdeploy" and sizes_from_argv(command.argv)[0] == 4
    assert ("CUDA_VISIBLE_DEVICES", "2,3,4,5,6,8,7,9") in command.env


def test_lmdeploy_tp4_group_on_a_bridged_box_is_placed_well() -> None:
    # 362: CUDA_DEVICE_ORDER=PCI_BUS_ID, GPUs 2,3,4,5 first: NV6 pairs and PIX/PXB between them, no SYS.
    result = capture_checks("362", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "ok" and "GPU2, GPU3, GPU4, GPU5" in result.message


def test_continued_command_is_one_engine_command() -> None:
    assert _engine_lines(LMDEPLOY_1755) == [(1, 8)]  # lines 1-8, numbered from 1


@pytest.mark.parametrize(("line", "tp", "cvd"), [(LMDEPLOY_2691, 4, "0,3,4,7"), (LMDEPLOY_BUILD_2, 2, "3,4")])
def test_lmdeploy_serve_is_an_engine_command(line: str, tp: int, cvd: str) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "lmdeploy"
    assert sizes_from_argv(command.argv)[0] == tp and dict(command.env)["CUDA_VISIBLE_DEVICES"] == cvd


def test_variables_on_the_line_are_read() -> None:
    command = parse_command_line(LMDEPLOY_2691)
    assert command is not None and dict(command.env)["NCCL_P2P_DIRECT_DISABLE"] == "1"


def test_inline_code_command_is_read() -> None:
    assert _engine_lines(LMDEPLOY_2724) == [(1, 1)]


@pytest.mark.parametrize("line", ["lmdeploy serve proxy --server-name 0.0.0.0 --server-port 8000",
                                  "lmdeploy check_env", "lmdeploy chat -h",
                                  "lmdeploy convert internlm2 /models/internlm2"])
def test_modelled_proxy_and_other_subcommands_are_no_engine_command(line: str) -> None:
    # Modelled: LMDeploy's router, its environment report and its offline tools start no engine on a GPU.
    assert parse_command_line(line) is None


# (line, TP read): InternLM/lmdeploy#1001 and #1130 (2163) chat with a converted workspace, whose config.ini holds the
# TP; LMDeploy's docs/en/load_hf.md chats with a Hugging Face id (TP 1 by default); the last is modelled.
@pytest.mark.parametrize(("line", "tp"), [
    ("lmdeploy chat turbomind ./workspace", None),
    ("lmdeploy chat turbomind internlm/internlm-chat-20b-4bit --model-name internlm-chat-20b", 1),
    ("lmdeploy chat turbomind Qwen/Qwen-7B-Chat --model-name qwen-7b", 1),
    ("lmdeploy chat internlm/internlm2-chat-7b --backend turbomind --tp 2", 2),
])
def test_lmdeploy_chat_is_an_engine_command(line: str, tp: int | None) -> None:
    from stackaudit.facts.parallelism import ServingEngine

    command = parse_command_line(line)
    assert command is not None and command.engine == "lmdeploy"
    assert ServingEngine("", None, None, command=command.as_process()).shown_tp == tp


def test_corpus_2163_chat_line_is_an_engine_command() -> None:
    assert _engine_lines(body("2163")) == [(3, 3)]


# Modelled: an 8-GPU box of four bridged pairs over two sockets (as 363), lmdeploy's TP 2 on GPU0 and GPU4.
_MATRIX = """\
\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV12\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU1\tNV12\t X \tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU2\tNODE\tNODE\t X \tNV12\tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU3\tNODE\tNODE\tNV12\t X \tSYS\tSYS\tSYS\tSYS\t0-31\t0\t\tN/A
GPU4\tSYS\tSYS\tSYS\tSYS\t X \tNV12\tNODE\tNODE\t32-63\t1\t\tN/A
GPU5\tSYS\tSYS\tSYS\tSYS\tNV12\t X \tNODE\tNODE\t32-63\t1\t\tN/A
GPU6\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\t X \tNV12\t32-63\t1\t\tN/A
GPU7\tSYS\tSYS\tSYS\tSYS\tNODE\tNODE\tNV12\t X \t32-63\t1\t\tN/A
"""


def test_modelled_tp2_across_sockets_is_an_issue(tmp_path: Path) -> None:
    text = ("CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,4 lmdeploy serve api_server /models/qwen --tp 2\n"
            + _MATRIX)
    result = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "issue" and "SYS" in result.message
