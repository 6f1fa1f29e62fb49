"""Issue 28 (recognition): an LMDeploy launch line (`lmdeploy serve api_server MODEL --tp 4`) is an engine command.

The engine table (facts/processes.classify) names LMDeploy's server beside vLLM's, SGLang's and TensorRT-LLM's, so
a pasted line gives the tensor-parallel size and the variables set on it (CUDA_VISIBLE_DEVICES) to the placement
checks. `lmdeploy serve proxy` (a router that holds no GPU) and `lmdeploy check_env` are not engine commands.

Real lines are quoted from the threads named beside each; the counter-example is modelled and says so.
"""

from __future__ import annotations

from corpus import body, capture_checks
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
# https://github.com/InternLM/lmdeploy/issues/2691 (four A100 PCIe, api_server hangs at times).
LMDEPLOY_2691 = ("CUDA_VISIBLE_DEVICES=0,3,4,7 NCCL_P2P_DIRECT_DISABLE=1 lmdeploy serve api_server "
                 "/var/aigc/model/InternVL2-40B --tp 4  --server-port 23333 --log-level DEBUG\n")
# https://github.com/InternLM/lmdeploy/issues/2724 (a comment's inline code).
LMDEPLOY_2724 = ("`$ lmdeploy serve api_server meta-llama/Llama-3.1-70B-Instruct --tp 2  --dtype float16 "
                 "--log-level INFO`\n")


def _engine_lines(text: str) -> list[tuple[int, int]]:
    return [(start, end) for kind, start, end in recognise(text).recognised if kind == "engine command"]


def test_corpus_362_command_gives_its_tp_group() -> None:
    # lmdeploy#4325: CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3,4,5,... lmdeploy serve api_server ... --tp 4
    line = body("362").splitlines()[1]
    command = parse_command_line(line)
    assert command is not None and command.engine == "lmdeploy" and sizes_from_argv(command.argv)[0] == 4
    assert ("CUDA_VISIBLE_DEVICES", "2,3,4,5,6,8,7,9") in command.env
    assert capture_checks("362", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "ok"


def test_continued_command_is_one_engine_command() -> None:
    assert _engine_lines(LMDEPLOY_1755) == [(1, 8)]  # lines 1-8, numbered from 1


def test_variables_on_the_line_are_read() -> None:
    command = parse_command_line(LMDEPLOY_2691.strip())
    assert command is not None and command.engine == "lmdeploy"
    assert dict(command.env)["NCCL_P2P_DIRECT_DISABLE"] == "1"


def test_inline_code_command_is_read() -> None:
    assert _engine_lines(LMDEPLOY_2724) == [(1, 1)]


def test_modelled_proxy_and_check_env_are_no_engine_command() -> None:
    # Modelled: LMDeploy's router and its environment report start no engine on a GPU.
    assert parse_command_line("lmdeploy serve proxy --server-name 0.0.0.0 --server-port 8000") is None
    assert parse_command_line("lmdeploy check_env") is None
