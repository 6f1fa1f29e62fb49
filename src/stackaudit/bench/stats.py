"""Small statistics without numpy or scipy: percentiles, t confidence intervals, Mann-Whitney U."""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two-sided 95 % critical values of Student's t for 1..30 degrees of freedom
# (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3672.htm); beyond 30 the
# normal value is within 2 % of t.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_critical_95(dof: int) -> float:
    if dof < 1:
        return math.inf
    return _T95[dof - 1] if dof <= len(_T95) else 1.96


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks, as numpy's default (so numbers match vLLM's)."""
    n = len(sorted_values)
    if n == 0:
        return math.nan
    if n == 1:
        return float(sorted_values[0])
    position = (n - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, n - 1)
    fraction = position - low
    return float(sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction)


def distribution(values: Sequence[float]) -> dict[str, float | None]:
    """mean, p50, p90, p99 of a sample; None where the sample is empty."""
    if not values:
        return {"mean": None, "p50": None, "p90": None, "p99": None}
    ordered = sorted(values)
    return {
        "mean": mean(ordered),
        "p50": percentile(ordered, 50),
        "p90": percentile(ordered, 90),
        "p99": percentile(ordered, 99),
    }


def stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (n − 1)."""
    n = len(values)
    if n < 2:
        return math.nan
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))


def mean_ci95(values: Sequence[float]) -> dict[str, float | int | None]:
    """Mean, 95 % t confidence half-width and coefficient of variation of repeat-level values."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "ci95_half_width": None, "cv": None}
    m = mean(values)
    if n < 2:
        return {"n": n, "mean": m, "ci95_half_width": None, "cv": None}
    s = stdev(values)
    return {
        "n": n,
        "mean": m,
        "ci95_half_width": t_critical_95(n - 1) * s / math.sqrt(n),
        "cv": (s / m) if m else None,
    }


def _normal_sf(z: float) -> float:
    """Survival function of the standard normal distribution."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test with the normal approximation and tie correction.

    Returns (U of `a`, p-value). The normal approximation is adequate from about 8 values per
    side (https://en.wikipedia.org/wiki/Mann%E2%80%93Whitney_U_test#Normal_approximation_and_tie_correction).
    """
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks_a = 0.0
    tie_term = 0.0
    i = 0
    total = n1 + n2
    while i < total:
        j = i
        while j + 1 < total and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        average_rank = (i + j) / 2.0 + 1.0
        ties = j - i + 1
        if ties > 1:
            tie_term += ties**3 - ties
        for k in range(i, j + 1):
            if pooled[k][1] == 0:
                ranks_a += average_rank
        i = j + 1
    u_a = ranks_a - n1 * (n1 + 1) / 2.0
    mean_u = n1 * n2 / 2.0
    variance = n1 * n2 / 12.0 * ((total + 1) - tie_term / (total * (total - 1)))
    if variance <= 0:
        return u_a, 1.0
    # Continuity correction of 0.5 towards the mean.
    z = (abs(u_a - mean_u) - 0.5) / math.sqrt(variance)
    return u_a, min(1.0, 2.0 * _normal_sf(max(z, 0.0)))
