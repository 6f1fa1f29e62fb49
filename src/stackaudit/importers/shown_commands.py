"""Greps of a whole source shown with nothing under them (`lsmod | grep nvidia_peermem`, then the next
command or prompt, the end of the block or of the paste): recorded under EMPTY_GREPS, one command a line, for
facts/shown_commands.py to read as absence of the pattern in that source and nothing else.
A shell test of a path (`test -e PATH && echo YES || echo NO`) over the word it printed, or a `cat` of a /sys version
file over the version or the error it printed, is recorded under PATH_TESTS, the command (without its prompt) and
that line.
A `journalctl -u UNIT` shown with journalctl's `-- No entries --` under it is recorded under EVIDENCE_LINES as one line,
the command and its answer (`journalctl -b -u nvidia-k8s-device-plugin: -- No entries --`), for facts/symptoms.py to
read as a unit that never ran.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackaudit.facts.shown_commands import NO_ENTRIES, empty_unit_journal, parse_grep, path_test
from stackaudit.facts.sources import EMPTY_GREPS, EVIDENCE_LINES, PATH_TESTS
from stackaudit.importers._paste import looks_like_command
from stackaudit.importers._scan import Candidates, candidate_lines, strip_prompt
from stackaudit.importers.registry import Found, document_appended, importer

_FENCES = ("```", "~~~")
_PROMPTS = ("#", "$")
_SECTION_END = re.compile(r"^_{20,}$")


def _nothing_under(lines: list[str], i: int, in_block: bool) -> bool:
    """Whether the command of line i printed nothing: the next line that is not blank is another command,
    the fence that ends the block (`in_block`: line i lies inside a fenced block), or there is none. A fence that
    opens a block below a command outside one holds its output: nothing only where that block is empty."""
    j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), len(lines))
    if j == len(lines):
        return True
    line = lines[j].strip()
    if line in _FENCES and not in_block:
        return _nothing_under(lines, j, True)
    # A prompt the view kept (`#` alone, `# yum list ...`: a root prompt before a command it does not know);
    # nvidia-bug-report.sh's line of underscores between two sections.
    return line in _FENCES or line[:1] in _PROMPTS or looks_like_command(line) or _SECTION_END.match(line) is not None


@importer("empty grep", "`lsmod | grep X` or `dmesg | grep -i xid` shown with no output under it",
          needles=("grep",), per_line=True)
def empty_grep(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    fences, pos = 0, 0  # the fence lines above line `pos` (the view keeps each bare): an odd count is inside a block
    for i in candidate_lines(candidates, len(lines)):
        if i > pos:
            above = lines[pos:i]
            fences += sum(above.count(mark) for mark in _FENCES)
        pos = max(pos, i)
        grep = parse_grep(lines[i])
        if grep is not None and _nothing_under(lines, i, fences % 2 == 1):
            # Whole: nothing under the command is all it printed.
            yield Found("empty grep", i, i + 1, document_appended(EMPTY_GREPS.name, grep.command + "\n"), whole=True)


@importer("path test", "`test -e PATH && echo YES || echo NO` shown with the word it printed, or `cat` of a /sys "
          "version file with what it printed",
          needles=("test -", "[ -", "/version"), per_line=True)
def shown_path_test(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        command = strip_prompt(lines[i]).strip()
        j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), len(lines))
        if j < len(lines) and path_test(command, lines[j]) is not None:
            yield Found("path test", i, j + 1, document_appended(PATH_TESTS.name, f"{command}\n{lines[j].strip()}\n"),
                        whole=True)


@importer("empty unit journal", "`journalctl -u UNIT` (this boot's or every boot's) shown with `-- No entries --` "
          "under it", needles=("journalctl",), per_line=True)
def shown_empty_journal(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        command = strip_prompt(lines[i]).strip()
        j = next((k for k in range(i + 1, len(lines)) if lines[k].strip()), len(lines))
        if j < len(lines) and empty_unit_journal(command, lines[j]) is not None:
            yield Found("empty unit journal", i, j + 1,
                        document_appended(EVIDENCE_LINES.name, f"{command}: {NO_ENTRIES}\n"), whole=True)

