"""ollama's server started by hand is an engine command (issue 28, blind AN: corpus 1798; blind YO: 1426).

`ollama serve` behind a shell prompt (`(3.10) root@HOST:~#`, a venv's prefix before `user@host`; `# ` of root; bash's
`name:dir$`), with the variables set for it on its line (`OLLAMA_MAX_VRAM=... CUDA_VISIBLE_DEVICES=2,3 ... ollama
serve`), is read as ollama's engine command, its environment those variables. ollama's other commands (`ollama run`,
`ollama ps`) are its server's clients, and `ollama serve --help` starts nothing. ollama names no tensor-parallel size:
its command is no TP 1 engine (its layer split is read from its log), so no placement check reads one GPU from it.

Real lines are the corpus captures named; the others are modelled and say so.
"""

from __future__ import annotations

from corpus import body, capture_checks
from stackaudit.facts.engine_command import parse_command_line
from stackaudit.importers.recognition import recognise


def _engine_lines(text: str) -> list[tuple[int, int]]:
    return [(start, end) for kind, start, end in recognise(text).recognised if kind == "engine command"]


def test_corpus_1798_behind_an_environment_prefix() -> None:
    """Real (capture 1798, ollama#7664): `(3.10) root@HOST:~# ollama serve`."""
    assert _engine_lines(body("1798"))[:1] == [(1, 1)]
    # ollama's command names no TP size: the placement is not read as one GPU from it.
    assert capture_checks("1798", "IC-TOPOLOGY-PLACEMENT")["IC-TOPOLOGY-PLACEMENT"].status == "unknown"


def test_corpus_1426_behind_a_root_prompt_with_variables() -> None:
    """Real (capture 1426, ollama#5093): `# OLLAMA_MAX_VRAM=... CUDA_VISIBLE_DEVICES=2,3 ... ollama serve`."""
    line = next(x for x in body("1426").splitlines() if x.endswith("ollama serve"))
    command = parse_command_line(line.lstrip("# "))
    assert command is not None and command.engine == "ollama"
    assert dict(command.env)["CUDA_VISIBLE_DEVICES"] == "2,3"
    assert (13, 13) in _engine_lines(body("1426"))


def test_corpus_1676_behind_a_name_dir_prompt() -> None:
    """Real (capture 1676, ollama#1973): `ilovepumpkin:Downloads$ ollama serve` above its log."""
    assert (3, 3) in _engine_lines(body("1676"))


def test_clients_and_help_are_no_engine_command() -> None:
    """Modelled: ollama's clients, its help, and a sentence that names the command."""
    for line in ("ollama run llama3", "ollama ps", "ollama serve --help", "I ran ollama serve and it crashed"):
        assert parse_command_line(line) is None, line
    assert _engine_lines("$ ollama run llama3\n") == []
