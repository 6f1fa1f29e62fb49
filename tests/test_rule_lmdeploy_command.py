"""Rule: `lmdeploy serve api_server MODEL --tp N` is an engine command line (issue 28, blind 362).

The command's TP size and CUDA_VISIBLE_DEVICES place the engine's TP group on the pasted matrix, as for vLLM, SGLang
and TensorRT-LLM (IC-TOPOLOGY-PLACEMENT). Real command lines: 362 (InternLM/lmdeploy#4325, --tp 4 on GPUs 2-5 of an
11-GPU bridged box), InternLM/lmdeploy#2691 (--tp 4 on four A100 PCIe) and zhyncs/lmdeploy-build#2 (--tp 2, TurboMind
GPTQ). The counter-examples (other lmdeploy subcommands, a TP group across sockets) are modelled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.facts.parallelism import sizes_from_argv

# https://github.com/InternLM/lmdeploy/issues/2691 (issue body, Reproduction).
LMDEPLOY_2691 = ("CUDA_VISIBLE_DEVICES=0,3,4,7 NCCL_P2P_DIRECT_DISABLE=1 lmdeploy serve api_server "
                 "/var/aigc/model/InternVL2-40B --tp 4  --server-port 23333 --log-level DEBUG")
# https://github.com/zhyncs/lmdeploy-build/issues/2 (issue body; the model's home-directory path redacted).
LMDEPLOY_BUILD_2 = ("CUDA_VISIBLE_DEVICES=3,4 lmdeploy serve api_server <model-dir>/glm-4-9b-chat-GPTQ-Int4 "
                    "--backend turbomind --model-format gptq --server-port 11231 --tp 2 --session-len 16500 "
                    "--cache-max-entry-count 0.1 --model-name gpt --max-batch-size 64")


@pytest.mark.parametrize(("line", "tp", "cvd"), [(LMDEPLOY_2691, 4, "0,3,4,7"), (LMDEPLOY_BUILD_2, 2, "3,4")])
def test_lmdeploy_serve_is_an_engine_command(line: str, tp: int, cvd: str) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "lmdeploy"
    assert sizes_from_argv(command.argv)[0] == tp and dict(command.env)["CUDA_VISIBLE_DEVICES"] == cvd


def test_lmdeploy_tp4_group_on_a_bridged_box_is_placed_well() -> None:
    # 362: CUDA_DEVICE_ORDER=PCI_BUS_ID, GPUs 2,3,4,5 first: NV6 pairs and PIX/PXB between them, no SYS.
    result = capture_checks("362", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert result.status == "ok" and "GPU2, GPU3, GPU4, GPU5" in result.message


@pytest.mark.parametrize("line", ["lmdeploy check_env", "lmdeploy chat internlm/internlm2-chat-7b --tp 2",
                                  "lmdeploy convert internlm2 /models/internlm2"])
def test_modelled_other_lmdeploy_subcommands_start_no_server(line: str) -> None:
    assert parse_command_line(line) is None


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
