"""Issue 28 (recognition): an engine's command line as a shell script writes it (corpus 852).

A script's command ends at a shell control operator (`2>&1 | tee log &`, `; echo`, `&& ...`) and sends its output
elsewhere with redirections (`> $LOG_FILE 2>&1`): its flags are the words before them. A flag whose value is a shell
variable the paste does not set (`--tensor-parallel-size=$tensor_parallel`) is present with a size not shown: never
the engine's default (facts/_parse.sizes_unread). A sentence that names the program alone ("After calling `vllm
serve`, ...") and a script's comment over the command (`# vllm serve on head node`) are not command lines.
A variable exported above the command in its block (`export CUDA_LAUNCH_BLOCKING=1`) is in its environment.
vLLM's entrypoint run as a script (`python3 api_server.py`, the name vLLM's usage line prints: vllm#2915) is vLLM
where it carries a flag only vLLM's engine arguments take (facts/processes.VLLM_ONLY_FLAGS), its release unknown.

Real pastes: corpus 852 (vllm#7699), corpus 784 (vllm#8447) and vllm-ascend#2179 (the redirection into `$LOG_FILE`). The counter-examples
are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks, paste_checks
from stackaudit.facts._parse import sizes_unread
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers.recognition import recognise

# https://github.com/vllm-project/vllm-ascend/pull/2179 (1092626063's description): the command's first and last
# lines, its output sent to a log file named by a variable.
ASCEND_2179 = (
    "python -m vllm.entrypoints.openai.api_server \\\n"
    ' --model="/home/data/DeepSeek-R1_w8a8/" \\\n'
    " --tensor-parallel-size 16 \\\n"
    " --gpu_memory_utilization 0.9 > $LOG_FILE 2>&1\n"
)


def _commands(text: str) -> list[tuple[str, int, int]]:
    return [k for k in recognise(text).recognised if k[0] == "engine command"]


def test_corpus_852_script_command_is_read_with_its_variables_unread() -> None:
    # Only the script's command (20-24): not the sentence's `vllm serve` (6), not the comment above it (19).
    assert _commands(body("852")) == [("engine command", 20, 24)]
    results = capture_checks("852", "IC-CUSTOM-ALLREDUCE", "RT-CUDA-GRAPHS")
    # The TP is `$tensor_parallel`: present, its size not shown, so not TP 1's not-applicable.
    assert results["IC-CUSTOM-ALLREDUCE"].status == "unknown"
    assert results["RT-CUDA-GRAPHS"].status == "ok"


def test_control_operators_end_the_command_and_redirections_are_not_flags() -> None:
    command = parse_command_line('vllm serve "${HF_HOME}/m" --tensor-parallel-size=$tp 2>&1 | tee "${TMPDIR}a.log" &')
    assert command is not None and command.argv == ("vllm", "serve", "${HF_HOME}/m", "--tensor-parallel-size=$tp")
    joined = " ".join(line.rstrip("\\").strip() for line in ASCEND_2179.splitlines())
    command = parse_command_line(joined)
    assert command is not None and command.argv[-2:] == ("--gpu_memory_utilization", "0.9")
    assert _commands(ASCEND_2179) == [("engine command", 1, 4)]


def test_size_flags_with_a_variable_are_unread_not_the_default() -> None:
    assert sizes_unread(("vllm", "serve", "m", "--tensor-parallel-size=$tensor_parallel", "-pp", "${PP}")) == (
        "--tensor-parallel-size $tensor_parallel", "--pipeline-parallel-size ${PP}")
    # Modelled: numbers, and flags not given at all, are read as they are.
    assert sizes_unread(("vllm", "serve", "m", "--tensor-parallel-size", "4")) == ()
    assert sizes_unread(("vllm", "serve", "m")) == ()


def test_modelled_tp_set_above_in_the_script_is_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Modelled counter-example: the same line under `tensor_parallel=1`, which the paste sets: TP 1 is shown.
    text = "```\ntensor_parallel=1\nvllm serve m --tensor-parallel-size=$tensor_parallel 2>&1 | tee log &\n```\n"
    result = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert result.status == "not-applicable"


def test_modelled_mentions_and_pipelines_into_other_programs_are_not_commands() -> None:
    # Modelled: the program named alone in a sentence, a comment naming the command, a grep for it.
    assert _commands("After calling `vllm serve`, vLLM begins initializing.\n") == []
    assert parse_command_line("vllm serve on head node") is None
    assert parse_command_line('ps aux | grep "vllm serve"') is None
    # A sentence that quotes a whole command is still read.
    assert _commands("I run `vllm serve Qwen/Qwen2-7B --tensor-parallel-size 2` on two GPUs.\n") != []
    assert _commands("I start `llama-server -m model.gguf -ngl 99` on the box.\n") != []  # `-m` is its model flag


def test_corpus_784_local_api_server_with_vllm_flags_is_vllm() -> None:
    assert _commands(body("784")) == [("engine command", 7, 15)]
    from corpus import fact, pasted

    commands = fact(pasted(body("784")), "engine_commands").commands
    assert [c.engine for c in commands] == ["vllm"]
    # The variables exported above it in the same block are its environment.
    assert dict(commands[0].env)["CUDA_LAUNCH_BLOCKING"] == "1"
    # TP 8 x PP 2 read; the eager flag is the command's (the release is not shown: no version mark).
    assert capture_checks("784", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "issue"


def test_modelled_api_server_of_another_server_is_not_vllm() -> None:
    # Modelled: an `api_server.py` with none of vLLM's own flags (LightLLM's spelling), and an export in another fence.
    assert parse_command_line("python api_server.py --model_dir m --tp 2 --max_total_token_num 120000") is None
    command = parse_command_line("python3 api_server.py --model m -tp 2 --worker-use-ray")
    assert command is not None and command.engine == "vllm"
    from corpus import fact, pasted

    text = "```\nexport CUDA_LAUNCH_BLOCKING=1\n```\n```\nvllm serve m --tensor-parallel-size 2\n```\n"
    assert "CUDA_LAUNCH_BLOCKING" not in dict(fact(pasted(text), "engine_commands").commands[0].env)


def test_corpus_2735_the_last_command_a_traced_script_holds_in_its_variable_is_read() -> None:
    # ray#32778: a start script's `set -x` trace builds CMD in three steps (lines 7, 10, 12) and execs it (13, cut):
    # the last value is the command run, read once; its TP 2 and no eager flag are the engine's.
    assert _commands(body("2735")) == [("engine command", 12, 12)]
    assert capture_checks("2735", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"].status == "ok"


def test_modelled_a_variable_holding_a_command_as_typed_is_read() -> None:
    # Modelled on ASCEND_2179's command, held in a variable a script runs.
    text = "CMD=\"python -m vllm.entrypoints.openai.api_server --model /m --tensor-parallel-size 16\"\nexec $CMD\n"
    assert _commands(text) == [("engine command", 1, 1)]


def test_modelled_a_variable_holding_no_engine_command_is_not_read() -> None:
    # Modelled counter-examples: a value that only names the module, and one of another program.
    assert _commands("MODULE='vllm.entrypoints.openai.api_server'\n") == []
    assert _commands("CMD='python -m http.server 9000'\n") == []


def test_corpus_2749_lightllms_server_module_is_its_command() -> None:
    # ModelTC/lightllm (corpus 2749): `python -m lightllm.server.api_server ... --tp 1` behind a root prompt (line 4).
    assert _commands(body("2749")) == [("engine command", 4, 4)]
    assert capture_checks("2749", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "not-applicable"


def test_modelled_lightllm_tp_is_read_from_its_flag() -> None:
    # Modelled on LightLLM's README command, at TP 2.
    command = parse_command_line("python -m lightllm.server.api_server --model_dir /path/llama-7B --host 0.0.0.0 "
                                 "--port 8080 --tp 2 --max_total_token_num 120000")
    assert command is not None and command.engine == "lightllm"


def test_modelled_other_lightllm_modules_are_not_its_server() -> None:
    # Modelled counter-example: another module of the package is not the server.
    assert parse_command_line("python -m lightllm.server.detokenization --port 8080") is None
    assert _commands("python -m lightllm.utils.health_check --tp 2\n") == []
