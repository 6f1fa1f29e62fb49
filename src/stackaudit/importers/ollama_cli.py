"""ollama's own client output: `ollama ps` and `ollama -v` / `ollama --version`.

`ollama ps` (cmd/cmd.go ListRunningHandler) prints a table, its columns padded with spaces (a tab writer, so a paste
may keep tabs), header `NAME ID SIZE PROCESSOR UNTIL` (`CONTEXT` before UNTIL from 0.6.x), then one row per model the
server has loaded:

    NAME               	ID          	SIZE  	PROCESSOR	UNTIL
    qwen:1.8b-chat-fp16	7b9c77c7b5b6	3.7 GB	100% GPU 	4 minutes from now

`ollama -v` prints `ollama version is 0.5.7` (with `Warning: client version is X` where client and server differ).
Each is recorded verbatim as the pasted document OLLAMA_CLI (facts/sources.py); facts/ollama_cli.py reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.ollama_cli import PS_HEADER, PS_ROW, VERSION
from stackaudit.facts.sources import OLLAMA_CLI
from stackaudit.importers._scan import Candidates, Scan
from stackaudit.importers.evidence import form_answer
from stackaudit.importers.registry import Found, document_appended, importer


@importer("ollama ps", "`ollama ps`: each model ollama has loaded, its size and where it runs (`100% GPU`)",
          needles=("PROCESSOR",), per_line=True)
def ollama_ps(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in (scan := Scan(lines, candidates)):
        if not PS_HEADER.match(lines[i]):
            continue
        end = i + 1
        while end < len(lines) and PS_ROW.match(lines[end]):
            end += 1
        body = "\n".join(x.strip() for x in lines[i:end]) + "\n"
        yield Found("ollama ps", i, end, document_appended(OLLAMA_CLI.name, body))
        scan.skip(end)


@importer("ollama version", "`ollama -v` / `ollama --version`: the release of ollama (`ollama version is 0.5.7`); a "
          "list's `ollama version: 0.9.6` line, or ollama's bug report form's `### Ollama version` heading and its answer",
          needles=("ollama version", "ollama:", "ollama :"), per_line=True)
def ollama_version(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in Scan(lines, candidates):
        if VERSION.match(lines[i]):
            yield Found("ollama version", i, i + 1, document_appended(OLLAMA_CLI.name, lines[i].strip() + "\n"))
        elif (answer := form_version_answer(lines, i)) is not None:
            line, at = answer
            yield Found("ollama version", i, at + 1, document_appended(OLLAMA_CLI.name, line + "\n"))


# ollama's bug report form (.github/ISSUE_TEMPLATE/10_bug_report.yml) asks `Ollama version` as a short text field,
# which GitHub renders as a heading with the answer under it (evidence.form_answer).
def form_version_answer(lines: list[str], i: int) -> tuple[str, int] | None:
    """The `ollama version: <answer>` line a form's `### Ollama version` heading on line i and its answer state
    together, and the answer's line; None where line i is no such heading or its answer is no release.

    >>> form_version_answer(["### Ollama version", "", "0.5.7"], 0)
    ('ollama version: 0.5.7', 2)
    """
    label, answer, at = form_answer(lines, i)
    joined = f"ollama version: {answer}"
    return (joined, at) if label.lower() == "ollama version" and VERSION.match(joined) else None
