"""Issue 28 (blind AY): a program run by a Windows drive path without `.exe`, and KoboldCpp's release binaries, whose
names carry their build, are engine commands.

Real lines: corpus 1928 (ggml-org/llama.cpp#6758, `D:\\llama-cpp\\llama-server -m "D:\\...gguf" ...`), corpus 1929
(LostRuins/koboldcpp#170, `.\\koboldcpp_CUDA_only.exe --model ...`), and two public repositories' READMEs
(`koboldcpp_cu12.exe --model ... --usecublas --gpulayers 33`, `./koboldcpp-linux-x64-nocuda MODEL --contextsize 1024`).
The counter-examples are modelled.
"""

from __future__ import annotations

import pytest

from corpus import capture_report, report_spans
from stackaudit.facts.engine_command import parse_command_line


@pytest.mark.parametrize(("line", "program"), [
    (r'D:\llama-cpp\llama-server -m "D:\Users\TIMEX DEMO\Downloads\Falcon3-Mamba-7B-Instruct-q5_k_m.gguf" --port 8087 '
     r"-t 8 -ngl 65 --no-context-shift -c 8192 --prio-batch 2", "D:/llama-cpp/llama-server"),
    (r".\koboldcpp_CUDA_only.exe --model .\ggml-vicuna-13b-cocktail-v1-q5_0.bin --launch --useclblast 0 0",
     "./koboldcpp_CUDA_only"),
    ("koboldcpp_cu12.exe --model ./YOUR_MODEL_NAME.gguf --usecublas --gpulayers 33 --threads 8 --port 5001",
     "koboldcpp_cu12"),
    ("./koboldcpp-linux-x64-nocuda Qwen2.5-1.5B-Instruct-Q4_0.gguf --contextsize 1024 --port 5001",
     "./koboldcpp-linux-x64-nocuda"),
])
def test_windows_paths_and_koboldcpp_builds_are_llama_cpp_commands(line: str, program: str) -> None:
    command = parse_command_line(line)
    assert command is not None and command.engine == "llamacpp" and command.argv[0] == program
    # The quoted model path keeps its backslashes: only the program's path is the Windows one.
    assert all("\\" not in word for word in command.argv[:1])


def test_a_drive_path_alone_or_a_folder_named_like_koboldcpp_is_no_command() -> None:
    # Modelled: a path that names no engine's program, and a folder whose name begins with koboldcpp.
    assert parse_command_line(r"D:\data\notes.txt says llama-server is slow") is None
    assert parse_command_line("cd koboldcpp_repo && ls") is None


def test_corpus_1928_and_1929_read_their_commands_as_engine_commands() -> None:
    # 1928's first line and 1929's fenced command (line 2) are read as engine commands, no longer left unread.
    for prefix, line in (("1928", 1), ("1929", 2)):
        spans = report_spans(capture_report(prefix))
        assert any(kind == "engine command" and a <= line <= b for kind, a, b in spans), (prefix, spans)


def test_powershell_env_assignments_before_the_ollama_app_2497() -> None:
    """Corpus 2497 (ollama/ollama#10517): PowerShell's `$env:NAME="v";` assignments before `& "ollama app.exe"` (the
    Windows app that starts `ollama serve`) are the server's environment; the line is an engine command. Modelled
    counter-examples: the app's name in a sentence, and a PowerShell assignment alone, start no engine."""
    spans = report_spans(capture_report("2497"))
    assert ("engine command", 6, 6) in spans, spans
    command = parse_command_line('$env:OLLAMA_DEBUG="1"; $env:CUDA_VISIBLE_DEVICES="1" ; & "ollama app.exe"')
    assert command is not None and command.engine == "ollama"
    assert dict(command.env) == {"OLLAMA_DEBUG": "1", "CUDA_VISIBLE_DEVICES": "1"}
    assert parse_command_line("I quit ollama app.exe from the tray and started it again") is None
    assert parse_command_line('$env:CUDA_VISIBLE_DEVICES="1"') is None
