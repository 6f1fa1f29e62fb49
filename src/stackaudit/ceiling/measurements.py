"""Published single-stream decode measurements (data/ceiling_measurements.toml, one public source per row).

The ceiling validation (tests/ceiling_published.py) checks the model against them; `ceiling --measured` lists
the published runs on the same GPU (ceiling/ladder.py).
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MEASUREMENTS_PATH = Path(__file__).parent.parent / "data" / "ceiling_measurements.toml"


@dataclass(frozen=True)
class Measurement:
    """One published single-stream decode measurement (a [[run]] of data/ceiling_measurements.toml)."""

    id: str
    model: str
    format: str  # `--weights`; "" = the config's quantization_config
    gpu: str
    gpus: int
    tp: int
    engine: str
    context: int
    measured: float
    source: str
    where: str
    efficient: bool
    pp: int = 1
    ep: int = 1
    context_note: str = ""
    published_bytes_gb: float | None = None
    published_bytes_source: str = ""
    embedding_format: str = ""
    hand_count_gb: float | None = None
    correction_gb: float = 0.0
    correction_reason: str = ""
    interconnect: str | None = None
    allreduce: str = "auto"
    kv_dtype: str | None = None

    @property
    def expected_bytes_gb(self) -> float | None:
        """The hand count plus its documented correction."""
        if self.hand_count_gb is None:
            return None
        return self.hand_count_gb + self.correction_gb

    @property
    def setup(self) -> str:
        layout = f"{self.gpus}x {self.gpu}" + (f", TP{self.tp}" if self.tp > 1 else "")
        layout += f", PP{self.pp}" if self.pp > 1 else ""
        return f"{self.format or 'checkpoint dtype'}, {layout}, {self.engine}"


_FIELDS = {f for f in Measurement.__dataclass_fields__ if f != "measured"}


def _measurement(row: dict[str, Any]) -> Measurement:
    """One [[run]]; a key the table does not define is a typo, not a silent extra."""
    unknown = sorted(set(row) - _FIELDS - {"measured_tokens_per_s"})
    if unknown:
        raise ValueError(f"ceiling_measurements.toml: run {row.get('id')!r} has unknown keys {', '.join(unknown)}")
    known = {key: value for key, value in row.items() if key in _FIELDS}
    return Measurement(measured=float(row["measured_tokens_per_s"]), **known)


@functools.lru_cache(maxsize=1)
def measurements() -> tuple[Measurement, ...]:
    """The validation table, read once."""
    data = tomllib.loads(MEASUREMENTS_PATH.read_text(encoding="utf-8"))
    return tuple(_measurement(row) for row in data.get("run", []))


def published_runs_on(gpu_name: str) -> tuple[str, ...]:
    """One line per published run on `gpu_name` (a GPU table row name), for `ceiling --measured`."""
    return tuple(
        f"{m.model} {m.format or 'checkpoint dtype'} on {m.gpus}x {m.gpu}"
        + (f" TP{m.tp}" if m.tp > 1 else "")
        + f", {m.engine}: {m.measured:g} tok/s per stream ({m.source})"
        for m in measurements()
        if m.gpu == gpu_name
    )
