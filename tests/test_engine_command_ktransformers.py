"""KTransformers' launch commands read as an engine command (facts/engine_command.KTRANSFORMERS_FLAGS).

`python ktransformers/server/main.py` and `python ./ktransformers/local_chat.py` are generic names; a flag only
KTransformers' argument parsers take (`--gguf_path`, `--optimize_config_path`, `--cpu_infer`) says they are its. Its
optimize rules place the model's layers on GPUs, so the command sets no TP that a missing flag would default to 1
(ServingEngine.shown_tp: None).
"""

from __future__ import annotations

from corpus import body, fact, pasted
from stackaudit.facts.engine_command import parse_command_line


def _commands(prefix: str):
    return fact(pasted(body(prefix)), "engine_commands").commands


def test_its_server_and_chat_scripts_are_read() -> None:
    # Corpus 2376 (kvcache-ai/ktransformers, USE_NUMA=1 on eight NUMA nodes): the server, continued over 11 lines.
    (server,) = _commands("2376")
    assert server.engine == "ktransformers" and server.argv[0] == "ktransformers/server/main.py"
    assert ("USE_NUMA", "1") in server.env and "--cpu_infer" in server.argv
    # Corpus 984 (another thread, the 0.2.1 image): local_chat.py in one backtick span continued with `\`.
    (chat,) = _commands("984")
    assert chat.engine == "ktransformers" and chat.argv[0] == "./ktransformers/local_chat.py"


def test_its_command_sets_no_tp() -> None:
    engine = fact(pasted(body("2376")), "serving_engine")
    assert engine.engine == "ktransformers" and engine.shown is not None and engine.shown_tp is None


def test_other_main_py_and_chat_scripts_are_not_its() -> None:
    # Modelled: another project's main.py with a port and a model path, and a local_chat.py with no flag of its own.
    assert parse_command_line("python main.py --port 10002 --model_path /models/x") is None
    assert parse_command_line("python ktransformers/local_chat.py --model_path /models/x") is None
    # Its flag on another program names no KTransformers command.
    assert parse_command_line("python convert.py --gguf_path /models/x.gguf") is None
