"""An engine's command line as a shell's trace prints it (`set -x`: `+ python3 -m vllm...`), the form an
entrypoint script's log shows in a container or a pod, alone or after the log viewer's timestamp
(importers/_scan.PROMPT).

Real pastes: corpus 328 (vllm#4996, a k8s pod's `+ python3 -m vllm.entrypoints.openai.api_server ... --tensor-parallel-size
2`), vllm#3115 (the same form at TP 4, above vLLM's args line), vllm#33147 (`2026-01-27 14:26:31 + python3 -m ...`
from a container's timestamped log). The counter-example is modelled.
"""

from __future__ import annotations

from corpus import body, capture_checks
from stackaudit.importers.recognition import recognise

# https://github.com/vllm-project/vllm/issues/3115 (issue body), its first two lines.
VLLM_3115 = (
    "Occasionally encounter errors\n```\n"
    "+ python3 -m vllm.entrypoints.openai.api_server --host xxxxx --port 8003 --served-model-name qwen1.5-72b-chat-int4"
    " --model /home/vllm/model/Qwen1.5-72B-Chat-GPTQ-Int4 --trust-remote-code --tokenizer-mode auto"
    " --max-num-batched-tokens 32768 --tensor-parallel-size 4\n"
    "INFO 02-29 14:28:09 api_server.py:228] args: Namespace(host='xxxxx', port=8003, allow_credentials=False)\n```\n"
)
# https://github.com/vllm-project/vllm/issues/33147 (issue body): a container's log with its viewer's timestamps.
VLLM_33147 = (
    "```\n2026-01-27 14:26:31 [INFO] Using standard model directory\n"
    "2026-01-27 14:26:31 + '[' False = False ']'\n"
    "2026-01-27 14:26:31 + PARAM_ENABLE_CHUNKED_PREFILL=--no-enable-chunked-prefill\n"
    "2026-01-27 14:26:31 + python3 -m vllm.entrypoints.openai.api_server --port 8080 --served-model-name"
    " /mnt/models/Qwen2.5-0.5B-Instruct / --model /mnt/models/Qwen2.5-0.5B-Instruct --dtype half"
    " --gpu-memory-utilization 0.95 --tensor-parallel-size 1 --enforce-eager --no-enable-chunked-prefill\n"
    "2026-01-27 14:26:42 INFO 01-26 22:26:42 [__init__.py:216] Automatically detected platform cuda.\n```\n"
)


def _engine(text: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == "engine command"]


def test_328_pod_trace_line_is_the_engine_command() -> None:
    assert _engine(body("328")) == [("engine command", 5, 5)]
    # The whole line, no eager flag, and vLLM 0.4.2's config line: graphs on.
    assert capture_checks("328", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "ok"


def test_3115_trace_line_tp4(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from corpus import paste_checks

    assert _engine(VLLM_3115) == [("engine command", 3, 3)]
    result = paste_checks(tmp_path, VLLM_3115, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert "4" in result.message or result.status != "not-applicable"  # TP 4 is read from the line


def test_33147_timestamped_trace_line_eager(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from corpus import paste_checks

    assert _engine(VLLM_33147) == [("engine command", 5, 5)]
    assert paste_checks(tmp_path, VLLM_33147, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


def test_modelled_traced_echo_is_not_a_command() -> None:
    # Modelled: the trace of a script's `echo` naming the command, and a `++` subshell's `which`, start no engine.
    text = "+ echo 'python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2'\n++ which vllm serve\n"
    assert _engine(text) == []


# A job's state line names the command the shell ran in the background (corpus 518, sglang#4161: a multi-node
# `nohup python3 -m sglang.launch_server ... --nnodes 2` killed). The same shape in other public pastes: a Korean
# web-server script's `[1]+  Killed                  nohup python3 -m http.server 8000 --bind 0.0.0.0 > server.log`
# and a scheduler's README `[1]+  Killed                  nohup python dispatcher.py`.
def test_a_job_state_line_gives_its_command() -> None:
    from stackaudit.importers._scan import strip_prompt

    assert strip_prompt("[1]+  Killed                  nohup python3 -m http.server 8000 --bind 0.0.0.0 > server.log"
                        ) == "nohup python3 -m http.server 8000 --bind 0.0.0.0 > server.log"
    assert strip_prompt("[1]+  Killed                  nohup python dispatcher.py") == "nohup python dispatcher.py"
    assert ("engine command", 2, 2) in recognise(body("518")).recognised
    assert capture_checks("518", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"].status == "not-applicable"


def test_modelled_job_number_line_is_not_a_state() -> None:
    from stackaudit.importers._scan import strip_prompt

    assert strip_prompt("[1] 1996970") == "[1] 1996970"  # the pid the shell prints when a job starts
