"""IC-TOPOLOGY-PLACEMENT of a llama.cpp server that sees one GPU through CUDA_VISIBLE_DEVICES set above it
(facts/parallelism.one_gpu_engine; issue 28, blind XB 962).

A Windows batch script's `set CUDA_VISIBLE_DEVICES=2` puts the variable in the environment of every command after
it, as `export` does in a shell script (facts/engine_command.CMD_SET): the llama-server it starts sees one GPU, so it
has no group of GPUs to place, whatever the host's four GPUs are.
"""

from __future__ import annotations

from pathlib import Path

from corpus import capture_checks, paste_checks
from stackaudit.facts.engine_command import exports, parse_engine_commands, shell_assignment

CHECK = "IC-TOPOLOGY-PLACEMENT"

# Modelled on corpus 962's script: a device picked by `set`, then the server on continued lines.
BATCH = """\
@echo off
set CUDA_VISIBLE_DEVICES=1
set "MODEL=G:\\Models\\gemma-3-1B-it-QAT-Q4_0.gguf"
.\\bin\\llama-server.exe ^
  --model "%MODEL%" ^
  --port 10000
"""


def test_batch_script_server_on_one_device_is_not_applicable() -> None:
    """llama.cpp#18743 (corpus 962): `set CUDA_VISIBLE_DEVICES=2` above `llama-server.exe`."""
    got = capture_checks("962", CHECK)[CHECK]
    assert got.status == "not-applicable", got.message
    assert "CUDA_VISIBLE_DEVICES=2" in got.message


def test_cmd_set_is_an_exported_assignment() -> None:
    assert shell_assignment("set CUDA_VISIBLE_DEVICES=2") == ("CUDA_VISIBLE_DEVICES", "2")
    assert shell_assignment('set "MODEL=G:\\Models\\a b.gguf"') == ("MODEL", "G:\\Models\\a b.gguf")
    assert exports("set CUDA_VISIBLE_DEVICES=2") and exports("export CUDA_VISIBLE_DEVICES=2")
    # A sentence, a shell option and cmd's arithmetic form set nothing.
    for line in ("set CUDA_VISIBLE_DEVICES=0 and it works", "set -e", "set /a N=1"):
        assert shell_assignment(line) is None and not exports(line), line


def test_batch_variable_reaches_the_command_after_it(tmp_path: Path) -> None:
    commands = parse_engine_commands(BATCH)
    assert dict(commands.commands[0].env)["CUDA_VISIBLE_DEVICES"] == "1"
    got = paste_checks(tmp_path, BATCH, CHECK)[CHECK]
    assert got.status == "not-applicable", got.message
