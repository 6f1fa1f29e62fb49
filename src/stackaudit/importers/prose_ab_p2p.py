"""The user's A/B of GPU peer-to-peer: turning it off cures a failure. `Setting NCCL_P2P_DISABLE=1 did workaround but
got really low speed.` (corpus 266), `It works with disabled P2P, but crashes when enabled.` (corpus 974).

Recorded as the pasted document USER_P2P_OFF_CURES (facts/sources.py), the first such sentence verbatim
(importers/prose_engine.is_sentence: no log line, command or tool output; facts/peer_access.says_p2p_off_cures: P2P
turned off and not denied, with a remedy word or the run working beside the failure); facts/peer_access.py reads it.
The same sentence often names the machine (`IOMMU is disabled, ReBAR is enabled, ROCm 6.4 with dual gfx1100`, corpus
974): a line goes to one importer, so this one (its module sorts before importers/prose_machine.py, which takes a tie)
records that reader's words of the line too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from stackaudit.facts.peer_access import says_p2p_off_cures
from stackaudit.facts.sources import USER_P2P_OFF_CURES
from stackaudit.host.memory import HostRecord
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.prose_engine import is_sentence
from stackaudit.importers.prose_machine import prose_machine
from stackaudit.importers.registry import Found, document_appended, importer


def _both(first: Callable[[HostRecord], None], second: Callable[[HostRecord], None]) -> Callable[[HostRecord], None]:
    def apply(record: HostRecord) -> None:
        first(record)
        second(record)
    return apply


@importer("prose p2p off cures", "the user's words that turning GPU P2P off cures a failure ('NCCL_P2P_DISABLE=1 did "
          "workaround')", needles=("P2P",), per_line=True)
def prose_p2p_off_cures(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    for i in candidate_lines(candidates, len(lines)):
        line = lines[i]
        if says_p2p_off_cures(line) and is_sentence(line):
            apply = document_appended(USER_P2P_OFF_CURES.name, line.strip() + "\n")
            machine = next((f for f in prose_machine(lines) if (f.start, f.end) == (i, i + 1)), None)
            yield Found("prose p2p off cures", i, i + 1, _both(apply, machine.apply) if machine is not None else apply)
            return  # the first sentence says it
