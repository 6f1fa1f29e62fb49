"""Lines that set MIG slicing up (facts/mig_setup.py), recorded verbatim as the pasted document MIG_SETUP."""

from __future__ import annotations

from collections.abc import Iterator

from stackaudit.facts.mig_setup import MIG_INSTANCE_LINE, MIG_SETUP_LINE
from stackaudit.facts.sources import MIG_SETUP
from stackaudit.importers._scan import Candidates, candidate_lines
from stackaudit.importers.registry import Found, document_appended, importer

MAX_LINES = 20  # a config dump repeats the strategy; a few lines say all there is


@importer("mig setup", "a device plugin's MIG strategy, the MIG manager's layout label, a MIG resource or a MIG "
          "instance listed (`nvidia-smi -L`, `nvidia-smi mig -lgi`, `dcgmi discovery -c`)", needles=("mig", "GPU Instance"),
          per_line=True)
def mig_setup(lines: list[str], candidates: Candidates | None = None) -> Iterator[Found]:
    taken = 0
    for i in candidate_lines(candidates, len(lines)):
        # An instance's line keeps its indentation: it matches as a listing's line only so.
        instance = MIG_INSTANCE_LINE.match(lines[i]) is not None
        if not instance and not MIG_SETUP_LINE.search(lines[i]):
            continue
        line = lines[i].rstrip() if instance else lines[i].strip()
        yield Found("mig setup", i, i + 1, document_appended(MIG_SETUP.name, line + "\n"))
        taken += 1
        if taken == MAX_LINES:
            return
