"""docs/inputs.md: every kind of pasted output `audit --from` reads, from the importer table that
`audit --help` lists, each with a real sample line from the corpus and the thread it came from.

Run `python tests/inputs_doc.py docs/inputs.md` (`make docs`) to rewrite it; tests/test_inputs_doc.py
fails while it is stale.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import load_corpus
from stackaudit.importers.recognition import recognise
from stackaudit.importers.registry import IMPORTERS, recognised_kinds

HEAD = """\
# Inputs: what `audit --from` reads

`stackaudit audit --from FILE` reads pasted outputs in any mix, in one file or several.
The kinds below are the importer table (`src/stackaudit/importers/`), the same table `audit --help` lists.
Each sample line is verbatim from the first corpus paste (tests/data/captures) read as that kind, with its public thread.

Before any recogniser runs, one pass (`importers/_paste.py`) peels what pasting adds, line for line:
quote markers at any depth, code fences, shell prompts (the command stays as its own line), gap lines
(`[...]`, `<snip>`, grep's `--`), and `\\r\\n` or `\\r\\r\\n` line ends.
It takes off the prefixes a log collector puts on each line (`LOG_PREFIXES`): syslog and journal times and host names
with `kernel:` or another program's tag, the kubelet's CRI form, Talos, `docker logs -t` and `docker compose`.
The host names those prefixes give are kept: they name the host and split a paste of several hosts.
Line numbers in the report still point into the user's file.
A text is refused ("nothing recognisable", exit 2) only when no line of it is evidence: the `evidence line`
kind reads known lines that no block recogniser took.

| kind | what | sample line | thread |
| --- | --- | --- | --- |
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")


def samples(spans: Mapping[str, list[tuple[str, int, int]]] | None = None) -> dict[str, tuple[str, str]]:
    """Per kind: the first line of its first span in the corpus (file order), and the paste's thread.

    `spans` holds the recognised kinds and lines by file name where the caller has them already (the test
    suite's shared audits); a file it lacks is recognised here."""
    found: dict[str, tuple[str, str]] = {}
    for entry in load_corpus():
        known = spans.get(entry.name) if spans is not None else None
        recognised = known if known is not None else recognise(entry.body, entry.name).recognised
        for kind, a, b in recognised:
            if kind in found:
                continue
            line = next((x.strip() for x in entry.body_lines[a - 1:b] if x.strip() and not x.startswith("```")), "")
            found[kind] = (line[:96] + ("…" if len(line) > 96 else ""), entry.source.split()[0])
    return found


def render(found: Mapping[str, tuple[str, str]] | None = None) -> str:
    """docs/inputs.md, from `found` (samples()) or the corpus read here."""
    rows = []
    found = samples() if found is None else found
    for kind in recognised_kinds():
        line, thread = found.get(kind, ("", ""))
        sample = f"`{_cell(line)}`" if line else "no corpus paste yet"
        rows.append(f"| {kind} | {_cell(IMPORTERS[kind].description)} | {sample} | {thread or '-'} |")
    return HEAD + "\n".join(rows) + "\n"


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(render(), encoding="utf-8")
