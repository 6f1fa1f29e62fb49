"""Commands continued the Windows way are read as one command (facts/_parse.continued, join_continued).

A batch file continues a line with `^`, PowerShell with a backtick, POSIX shells with `\\`: the engine-command and
`docker run` readers join lines by the one table. A backtick or caret at the end of a word is the word's. Real pastes
are corpus captures; the counter-examples are modelled where marked.
"""

from __future__ import annotations

from corpus import CAPTURES_DIR, capture_checks, fact, pasted
from stackaudit.facts._parse import continued, join_continued, without_continuation
from stackaudit.importers._paste import view
from stackaudit.importers.pasted import load_pasted


def test_each_shell_mark_continues_a_line() -> None:
    assert continued("docker run --rm \\") and continued("--gpus all `") and continued(".\\bin\\llama-server.exe ^")
    assert without_continuation("--port 10000 ^  ") == "--port 10000"
    assert join_continued("a ^\nb `\nc \\\nd").split() == ["a", "b", "c", "d"]


def test_a_mark_that_ends_a_word_is_the_words() -> None:
    # Modelled: inline code's closing backtick and a word ending in a caret continue nothing.
    assert not continued("`docker run --gpus all image`") and not continued("x^") and not continued("fence ```")


def test_a_batch_file_command_continued_with_caret_is_one_engine_command() -> None:
    host = load_pasted([str(next(CAPTURES_DIR.glob("962-*.txt")))])
    commands = fact(host, "engine_commands").commands
    assert [c.engine for c in commands] == ["llamacpp"]
    assert commands[0].argv == ("./bin/llama-server", "--model", "%MODEL%", "--port", "10000", "--ctx-size", "1024")


def test_a_powershell_docker_run_continued_with_backticks_is_one_container() -> None:
    # Corpus 986: `--ulimit memlock=-1` on the fourth line of the backtick-continued docker run is the container's.
    assert capture_checks("986", "CTR-MEMLOCK")["CTR-MEMLOCK"].status == "ok"


def test_a_windows_program_path_names_its_program() -> None:
    # Modelled: a llama-server.exe under a drive path, on one line.
    commands = fact(pasted("C:\\llama\\llama-server.exe -m model.gguf --port 8080\n"), "engine_commands").commands
    assert [c.engine for c in commands] == ["llamacpp"]


def test_a_line_ending_in_inline_code_is_not_continued() -> None:
    # Modelled: two docker runs in inline code on two lines stay two containers.
    text = ("Run `docker run --gpus all -d --name a nvidia/cuda:12.4.1-base-ubuntu22.04 sleep 9999`\n"
            "then `docker run --gpus all -d --name b nvidia/cuda:12.4.1-base-ubuntu22.04 sleep 9999`\n")
    assert [c.name for c in fact(pasted(text), "docker_containers").containers] == ["a", "b"]


def test_a_command_in_inline_code_continued_to_its_closing_backtick_is_one_command() -> None:
    # Modelled on corpus 984's form (its program, ktransformers' local_chat.py, is no engine the tool knows): one
    # backtick opens the span, `\\` continues it, and the last line's backtick closes it.
    text = ("When I run\n`vllm serve Qwen/Qwen2.5-7B \\\n    --tensor-parallel-size 2 \\\n    --enforce-eager`\n"
            "it fails.\n")
    commands = fact(pasted(text), "engine_commands").commands
    assert [c.argv for c in commands] == [("vllm", "serve", "Qwen/Qwen2.5-7B", "--tensor-parallel-size", "2",
                                           "--enforce-eager")]


def test_a_backtick_ending_a_line_outside_an_open_span_stays() -> None:
    # Modelled: a blank line ends the span the first line opened; a later line's last backtick is not its close.
    assert view("`vllm serve A \\\n  --tp 2 \\\n  --port 8000`\n").lines[2] == "  --port 8000"
    assert view("`vllm serve A\n\nthen y`\n").lines[2] == "then y`"
