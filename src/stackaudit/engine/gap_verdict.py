"""Where the throughput goes (issue 29): the measured rate against the ceiling, and whether the host's findings
can explain the gap.

The arithmetic uses only the impact classes declared in data/impact.toml (one per check, each with its evidence
and sources, or marked unproven): a finding of class `multiple` can explain any gap; `tens` and `few` bound the
loss by their factor (x1.5, x1.1), multiplied over the findings; `none-for-decode` and `unproven` count as
nothing. Where the bound falls short of ceiling / measured, the gap lies above the host: in the engine.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

IMPACT_PATH = Path(__file__).parent.parent / "data" / "impact.toml"
CLASSES = ("multiple", "tens", "few", "none-for-decode", "unproven")
NEAR_CEILING = 90.0  # percent: above this the gap is the ceiling model's own margin
ENGINE_NEXT = ("check the engine's settings (CUDA graphs, attention and MoE backends, custom all-reduce, TP over a "
               "slow path) and compare with published runs on these GPUs (`stackaudit ceiling --measured`)")


@dataclass(frozen=True)
class Impact:
    id: str
    klass: str
    applies: str
    evidence: str
    proof: str
    sources: tuple[str, ...]
    when_low: str = ""  # the class of a low-severity finding, where it differs (impact.toml `when_low`)
    when_medium: str = ""  # the same for a medium-severity finding (impact.toml `when_medium`)

    def of(self, result: Any) -> str:
        """The class of one finding of this check."""
        by_severity = {"low": self.when_low, "medium": self.when_medium}.get(getattr(result, "severity", None) or "")
        return by_severity or self.klass


@functools.cache
def impacts() -> dict[str, Impact]:
    """{check ID: its declared impact on single-stream decode}."""
    data = tomllib.loads(IMPACT_PATH.read_text(encoding="utf-8"))
    return {str(row["id"]): Impact(str(row["id"]), str(row["class"]), str(row["applies"]), str(row["evidence"]),
                                   str(row["proof"]), tuple(str(s) for s in row.get("sources", ())),
                                   str(row.get("when_low", "")), str(row.get("when_medium", "")))
            for row in data["check"]}


@functools.cache
def class_factors() -> dict[str, tuple[float, str]]:
    """{class: (bound on the loss as a factor, 0 = none; its words)}."""
    data = tomllib.loads(IMPACT_PATH.read_text(encoding="utf-8"))
    return {name: (float(row["factor"]), str(row["words"])) for name, row in data["classes"].items()}


def _ids(rows: Iterable[Any], limit: int = 3) -> str:
    ids = sorted({r.id for r in rows})
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def gap_verdict(measured: Mapping[str, Any], results: Iterable[Any]) -> dict[str, Any]:
    """`host.measured` keys for the gap: `verdict` (the sentence), `host_explains` (True, False; None where there
    is no ceiling or the rate is at or above it) and `findings` (the issues with their impact class)."""
    rate = measured.get("decode_tok_s")
    ceiling = measured.get("ceiling_tok_s")
    if not isinstance(rate, (int, float)) or not isinstance(ceiling, (int, float)) or ceiling <= 0 or rate <= 0:
        return {}
    table = impacts()
    factors = class_factors()
    all_results = list(results)
    issues = [r for r in all_results if r.status == "issue" and not r.waived]
    findings = [{"id": r.id, "class": table[r.id].of(r) if r.id in table else "unproven",
                 "proof": table[r.id].proof if r.id in table else "unproven"} for r in issues]
    klass = {f["id"]: f["class"] for f in findings}
    percent = 100.0 * rate / ceiling
    head = f"measured {rate:.1f} tok/s is {percent:.0f} % of the {ceiling:.0f} tok/s ceiling"
    if percent >= 100:
        return {"verdict": f"{head}: the model, GPUs, TP or speculative decoding differ from what the ceiling "
                           "priced", "host_explains": None, "findings": findings}
    if percent >= NEAR_CEILING:
        return {"verdict": f"{head}: within the ceiling model's own margin; nothing to explain", "host_explains": None,
                "findings": findings}
    multiple = [r for r in issues if klass[r.id] == "multiple"]
    if multiple:
        first = sorted(multiple, key=lambda r: r.id)[0]
        return {"verdict": f"{head}; the host explains it: {first.title or first.message} [{first.id}] "
                           f"{factors['multiple'][1]} — fix it first", "host_explains": True, "findings": findings}
    weighed = [r for r in issues if klass[r.id] in ("tens", "few")]
    bound = math.prod(factors[klass[r.id]][0] for r in weighed)
    gap = ceiling / rate
    if weighed and bound >= gap:
        return {"verdict": f"{head}; the host's findings can explain it: {_ids(weighed)} can cost up to "
                           f"×{bound:.2f} together — fix them first", "host_explains": True, "findings": findings}
    largest = next((c for c in ("tens", "few") if any(klass[r.id] == c for r in issues)), "")
    if largest:
        host = f"the host's findings are each worth {'tens of percent' if largest == 'tens' else 'a few percent'} " \
               f"at most (×{bound:.2f} together against ×{gap:.1f})"
    elif issues:
        host = "none of the host's findings is known to cost decode throughput"
    else:
        host = "the host shows nothing that costs decode throughput"
    unproven = [r for r in issues if klass[r.id] == "unproven"]
    if unproven:
        host += f" (no published figure: {_ids(unproven)})"
    blind = [r for r in all_results if r.status == "unknown" and table.get(r.id) is not None
             and table[r.id].klass == "multiple"]
    if blind:
        host += f"; {len(blind)} check(s) that could each cost a multiple could not tell from this source"
    return {"verdict": f"{head}; {host}; the gap lies in the engine — next: {ENGINE_NEXT}", "host_explains": False,
            "findings": findings}
