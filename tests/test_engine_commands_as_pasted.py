"""Issue 28 (blind EE, 680-691): engine commands as people paste them.

Three rules, each read where the paste shows it:

- A `$VAR` / `${VAR}` in a launch script's command is expanded from a plain `VAR=value` line above it in the same
  paste (facts/engine_command.shell_assignment, expand_variables); a reference the paste does not set stays as written,
  so a TP flag carrying it is unknown (ServingEngine.shown_tp), never the default of 1.
- vLLM V1's WARNING that a CUDA-graph mode is not supported, "setting cudagraph_mode=PIECEWISE", keeps graphs on
  (facts/serving_logs: state "mode set", RT-CUDA-GRAPHS not-an-issue); "setting cudagraph_mode=NONE" turns them off.
- Aphrodite (`aphrodite run MODEL`, before it `python -m aphrodite.endpoints.openai.api_server`), a vLLM fork whose
  engine arguments are vLLM's, is read as a vLLM-family engine command (facts/processes._program), so its
  `--enforce-eager` is judged.
- NVIDIA Dynamo's launcher (`dynamo run out=vllm ...`, `dynamo-run in=http out=sglang ...`) is read as the engine its
  `out=` names (facts/processes.DYNAMO_OUT_ENGINES), with the launcher's `--tensor-parallel-size`.

Real lines are quoted from the threads and files named beside each; the counter-examples are modelled and say so.
"""

from __future__ import annotations

from pathlib import Path

from corpus import body, capture_checks, fact, paste_checks, pasted
from stackaudit.facts._parse import sizes_from_argv
from stackaudit.facts.engine_command import parse_command_line, parse_engine_commands
from stackaudit.facts.serving_logs import parse_serving_log

# --- shell variables ------------------------------------------------------------------------------------------


def test_corpus_680_script_variable_gives_tp_4() -> None:
    # https://github.com/sgl-project/sglang/issues/7212: GPU_NUM=4 above `... --tp-size $GPU_NUM`.
    res = capture_checks("680", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert res.status == "unknown" and "TP=4" in res.message, res.message


def test_assignment_lines_are_expanded_in_the_recorded_command() -> None:
    # The form the importer records: the lines that set what the command reads, then the command.
    script = body("680").splitlines()
    text = "\n".join(x for x in script if x.startswith(("GPU_NUM=", "MODEL_PATH=", "python ")))
    argv = parse_engine_commands(text).commands[0].argv
    assert sizes_from_argv(argv)[0] == 4
    assert "/mnt/Model/Qwen/Qwen3-30B-A3B" in argv  # MODEL_PATH="..." without its quotes
    assert "$SERVER_PORT" in argv  # not among the lines given: left as written


# https://github.com/sgl-project/sglang/pull/27893 (an Ascend tutorial): EAGLE_MODEL_PATH is set, MODEL_PATH is not.
SGLANG_27893 = """EAGLE_MODEL_PATH=/path/to/MiniMax-M2.5-eagle-model
export PYTHONPATH=${EAGLE_MODEL_PATH}:$PYTHONPATH
python -m sglang.launch_server --model-path ${MODEL_PATH} --host 127.0.0.1 --port 32001 --tp-size 16
"""


def test_unset_variable_stays_as_written_and_literal_tp_is_read() -> None:
    variables = {"EAGLE_MODEL_PATH": "/path/to/MiniMax-M2.5-eagle-model"}
    command = parse_command_line(SGLANG_27893.splitlines()[-1], variables=variables)
    assert command is not None and sizes_from_argv(command.argv)[0] == 16
    assert "${MODEL_PATH}" in command.argv


# A public repository's deployment notes (found by the code index): the TP size is a variable the snippet never sets.
DEPLOYMENT_NOTES = """```bash
CUDA_VISIBLE_DEVICES=$GPU_IDS python -m vllm.entrypoints.openai.api_server \\
  --model "$MODEL_PATH" \\
  --served-model-name "$MODEL_NAME" \\
  --port 8199 \\
  --max-model-len 4096 \\
  --trust-remote-code \\
  --tensor-parallel-size $TP_SIZE
```
"""


def test_tp_from_a_variable_not_set_is_unknown_not_one(tmp_path: Path) -> None:
    res = paste_checks(tmp_path, DEPLOYMENT_NOTES, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert res.status == "unknown", res.message
    assert "TP=1" not in res.message


def test_modelled_unset_variable_in_a_script_is_unknown(tmp_path: Path) -> None:
    # Modelled: the corpus 680 script without its GPU_NUM line.
    text = "\n".join(x for x in body("680").splitlines() if not x.startswith("GPU_NUM="))
    res = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert res.status == "unknown" and "(TP size not shown)" in res.message and "TP=?" not in res.message, res.message


def test_modelled_braced_variable_is_expanded(tmp_path: Path) -> None:
    text = "TP=1\nvllm serve Qwen/Qwen3-8B --tensor-parallel-size ${TP}\n"  # modelled
    res = paste_checks(tmp_path, text, "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"]
    assert res.status == "not-applicable" and "TP=1" in res.message, res.message


# --- vLLM V1's cudagraph_mode fallback ------------------------------------------------------------------------


def test_corpus_685_piecewise_fallback_keeps_graphs_on() -> None:
    # https://github.com/vllm-project/vllm/issues/28228: FULL_AND_PIECEWISE not supported with TritonMLABackend.
    res = capture_checks("685", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "not-an-issue" and "cudagraph_mode=PIECEWISE" in res.message, res.message


# A public repository's serving log (found by the code index), spec-decode with FlashInfer on vLLM V1.
SPEC_DECODE_PIECEWISE = (
    "(EngineCore pid=168) WARNING 05-14 08:25:39 [compilation.py:1390] CUDAGraphMode.FULL_AND_PIECEWISE is not "
    "supported with spec-decode for attention backend FlashInferBackend (support: "
    "AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=PIECEWISE\n"
    "(EngineCore pid=168) INFO 05-14 08:25:39 [gpu_model_runner.py:5963] Profiling CUDA graph memory: PIECEWISE=1 "
    "(largest=1)\n")


def test_spec_decode_piecewise_fallback_is_graphs_on() -> None:
    log = parse_serving_log(SPEC_DECODE_PIECEWISE)
    assert log.cuda_graphs == "mode set"


def test_capture_after_the_fallback_is_captured() -> None:
    # The same log further on: the capture finished.
    log = parse_serving_log(SPEC_DECODE_PIECEWISE + "(EngineCore pid=168) INFO 05-14 08:26:03 "
                            "[gpu_model_runner.py:6133] Graph capturing finished in 1 secs, took 0.05 GiB\n")
    assert log.cuda_graphs == "captured"


def test_fallback_to_none_is_graphs_off(tmp_path: Path) -> None:
    # A public repository's notes quoting vLLM's start-up warning, where the fallback mode is NONE.
    text = ("WARNING 05-14 08:25:39 [compilation.py:1390] CUDAGraphMode.FULL_AND_PIECEWISE is not supported with "
            "spec-decode for attention backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE)"
            "; setting cudagraph_mode=NONE\n")
    assert parse_serving_log(text).cuda_graphs == "eager"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue", res.message


# --- Aphrodite ------------------------------------------------------------------------------------------------


def test_corpus_689_aphrodite_enforce_eager_is_an_issue() -> None:
    # https://github.com/dphnAI/sonar/issues/1114 (Aphrodite, --enforce-eager at TP 2: 31.4 against 57.8 tok/s).
    res = capture_checks("689", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "issue" and "--enforce-eager" in res.message, res.message


def test_aphrodite_commands_are_vllm_family() -> None:
    lines = (
        # https://github.com/dphnAI/sonar/issues/426 (an entrypoint's trace line, before `aphrodite run`).
        ("exec python3 -m aphrodite.endpoints.openai.api_server --host 0.0.0.0 --port 7860", None),
        # Aphrodite's README quickstart.
        ("aphrodite run meta-llama/Meta-Llama-3-8B-Instruct", None),
        # A public repository's run script (found by the code index).
        ("aphrodite run /home/ubuntu/hff/8b-base --enforce-eager --uvloop -tp 2 -pp 1", 2),
    )
    for line, tp in lines:
        command = parse_command_line(line)
        assert command is not None and command.engine == "vllm", line
        assert sizes_from_argv(command.argv)[0] == tp


def test_modelled_other_aphrodite_words_are_no_engine_command() -> None:
    assert parse_command_line("aphrodite chat --url http://localhost:2242/v1") is None  # modelled: a client
    assert parse_command_line("pip install aphrodite-engine") is None  # modelled


# --- NVIDIA Dynamo's launcher -----------------------------------------------------------------------------------


def test_dynamo_run_commands_name_their_engine() -> None:
    lines = (
        # Corpus 965 (ai-dynamo/dynamo#787): Dynamo's vLLM engine at TP 8.
        ("dynamo run out=vllm --model-path /app/modelscope/models/neuralmagic/DeepSeek-R1-Distill-Llama-70B-FP8-dynamic/ "
         "--tensor-parallel-size=8", "vllm", 8),
        # ai-dynamo/dynamo's launch/dynamo-run README (the code index): the SGLang engine at TP 8.
        ("./dynamo-run in=http out=sglang --model-path ~/llms/DeepSeek-R1-Distill-Llama-70B/ --tensor-parallel-size 8",
         "sglang", 8),
    )
    for line, engine, tp in lines:
        command = parse_command_line(line)
        assert command is not None and command.engine == engine, line
        assert sizes_from_argv(command.argv)[0] == tp
    assert capture_checks("965", "IC-CUSTOM-ALLREDUCE")["IC-CUSTOM-ALLREDUCE"].status == "issue"


def test_modelled_dynamo_run_of_other_engines_is_no_engine_command() -> None:
    # Modelled: Dynamo's default Rust engine and its echo engine run no vLLM or SGLang.
    assert parse_command_line("dynamo run out=mistralrs Qwen/Qwen3-0.6B") is None
    assert parse_command_line("dynamo-run in=http out=echo_full --model-path ~/llms/Llama-3.2-1B") is None


# --- a whole command that only releases capturing CUDA graphs by default accept -------------------------------


def test_corpus_680_reasoning_parser_shows_a_release_with_graphs() -> None:
    # https://github.com/sgl-project/sglang/issues/7212: `--reasoning-parser qwen3`, no --disable-cuda-graph.
    res = capture_checks("680", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--reasoning-parser" in res.message, res.message


# https://github.com/sgl-project/sglang/pull/3859 (the PR's example command, continuation lines).
SGLANG_3859 = """```shell
python -m sglang.launch_server --host 0.0.0.0 \\
--model-path deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B \\
--tp 1 --enable-reasoning --reasoning-parser deepseek-r1
```
"""
# https://github.com/vllm-project/vllm/issues/13124 (the shell line above the log, its prompt kept).
VLLM_13124 = ("(qwen25vl) lzh@instance-aw1rhmsz-5:~/Code/qwen2_5vl$ vllm serve "
              "/home/lzh/llm_model/Qwen/Qwen2___5-VL-72B-Instruct --dtype auto --host 127.0.0.1 --port 6006 "
              "--tensor-parallel-size 4\n")


def test_later_program_or_flag_stands_for_the_release(tmp_path: Path) -> None:
    for text, mark in ((SGLANG_3859, "--reasoning-parser"), (VLLM_13124, "vllm serve")):
        res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
        assert res.status == "ok" and mark in res.message, (text, res.message)


def test_corpus_217_backslash_above_the_closing_fence_ends_the_command() -> None:
    # https://github.com/sgl-project/sglang/issues/4417 (217): the last line ends in `\` right above the fence that
    # closes the block: the writer closed it there (h67b: both blind readings of that shape, 217 and 848, read the
    # command whole); a block cut with no fence after it stays cut (1401, tests/test_rule_sglang_release_shown.py).
    res = capture_checks("217", "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "--reasoning-parser" in res.message, res.message


def test_modelled_old_entrypoint_without_version_names_the_caveat(tmp_path: Path) -> None:
    # Modelled: vLLM's module entrypoint is older than its CUDA graphs (0.2.6), so it shows no release: ok by the
    # whole command (h73b), naming 0.2.6 as the caveat rather than a release mark.
    text = "python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-v0.1 --max-model-len 8192\n"
    res = paste_checks(tmp_path, text, "RT-CUDA-GRAPHS")["RT-CUDA-GRAPHS"]
    assert res.status == "ok" and "0.2.6" in res.message and "or later" not in res.message, res.message


# --- a command the paste cuts before any TP flag (ServingEngine.command_cut, h100c) ---------------------------------

def test_2022_aphrodite_command_cut_before_its_tp_is_not_tp_1() -> None:
    # Corpus 2022 (dphnAI/sonar#426): `... api_server --host 0.0.0.0 --port 7860 --downlo`, cut inside a flag, for a
    # model the user means to put on 3 GPUs: its TP is not shown, so no one-GPU engine and no verdict without GPUs.
    res = capture_checks("2022", "IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE")
    for check in ("IC-TOPOLOGY-PLACEMENT", "IC-CUSTOM-ALLREDUCE"):
        assert res[check].status == "unknown", res[check].message
        assert "TP 1" not in res[check].message and "TP=1" not in res[check].message, res[check].message


def test_1830_sglang_command_cut_after_its_host_is_not_tp_1() -> None:
    # Corpus 1830 (another thread): a pipeline-parallel SGLang launch cut at `--host 0.0.0.` in a block that never
    # closes; its log names ranks PP1 TP0, so the command's TP is not the default 1.
    res = capture_checks("1830", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert res.status == "unknown", res.message


def test_modelled_the_same_command_whole_runs_tp_1(tmp_path: Path) -> None:
    # 2022's command ended where a shell line ends: no TP flag is TP 1, one GPU.
    text = "```\n+ exec python3 -m aphrodite.endpoints.openai.api_server --host 0.0.0.0 --port 7860\n```\n"
    res = paste_checks(tmp_path, text, "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"]
    assert res.status == "not-applicable" and "runs TP 1" in res.message, res.message


# --- a JSON value in quotes over lines ---------------------------------------------------------------------


def test_corpus_2452_kv_transfer_config_over_lines_is_one_argument() -> None:
    # https://github.com/ai-dynamo/nixl/issues/1195: `--kv-transfer-config '{` over its keys, the quote closed
    # three lines below; the shell reads them as one argument.
    (command,) = fact(pasted(body("2452")), "engine_commands").commands
    assert command.argv[-2:] == ("--kv-transfer-config", '{ "kv_connector":"NixlConnector", "kv_role":"kv_both" }')


def test_a_quoted_json_value_over_lines_continues_into_the_next_flag() -> None:
    # Modelled: a compilation config spread over lines, then a `\` and one more flag.
    text = ("vllm serve Qwen/Qwen3-8B --compilation-config '{\n  \"level\": 3,\n  \"cudagraph_capture_sizes\": [1, 2]\n"
            "}' \\\n  --tensor-parallel-size 2\n")
    (command,) = fact(pasted(text), "engine_commands").commands
    assert command.argv[-3:] == ('{ "level": 3, "cudagraph_capture_sizes": [1, 2] }', "--tensor-parallel-size", "2")


def test_an_apostrophe_after_a_command_opens_nothing() -> None:
    # Modelled counter-example: the line below is prose, not part of the command.
    text = "vllm serve Qwen/Qwen3-8B --port 8000  # it's the default port\nThen it hangs at start-up.\n"
    (command,) = fact(pasted(text), "engine_commands").commands
    assert "hangs" not in command.line
