"""Statistics without scipy, checked against reference values."""

from __future__ import annotations

import math
import random

from stackaudit.bench import stats


def test_percentile_matches_numpy_linear() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 10.0]
    # numpy.percentile(values, [50, 90, 99]) == [3.0, 7.6, 9.76]
    assert stats.percentile(values, 50) == 3.0
    assert math.isclose(stats.percentile(values, 90), 7.6)
    assert math.isclose(stats.percentile(values, 99), 9.76)


def test_mean_ci95_uses_student_t() -> None:
    block = stats.mean_ci95([10.0, 12.0, 14.0])
    # s = 2, t(2) = 4.303: half-width = 4.303 * 2 / sqrt(3)
    assert math.isclose(block["ci95_half_width"] or 0, 4.303 * 2 / math.sqrt(3), rel_tol=1e-9)
    assert math.isclose(block["cv"] or 0, 2 / 12)


def test_mann_whitney_reference_value() -> None:
    a = [1.1, 2.3, 3.5, 4.2, 5.9, 6.1, 7.4, 8.8]
    b = [5.5, 6.6, 7.7, 8.1, 9.9, 10.2, 11.3, 12.4]
    u, p = stats.mann_whitney_u(a, b)
    # By hand: mean U = 32, var = 8·8·17/12, z = (|8 − 32| − 0.5)/sqrt(var) = 2.468, p = 2·sf(z) = 0.01359
    # (scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True) computes the same).
    assert u == 8.0
    assert math.isclose(p, 0.01359, rel_tol=0.01)


def test_mann_whitney_same_distribution_is_not_significant() -> None:
    rng = random.Random(3)
    a = [rng.gauss(10, 1) for _ in range(200)]
    b = [rng.gauss(10, 1) for _ in range(200)]
    assert stats.mann_whitney_u(a, b)[1] > 0.05
    shifted = [v * 1.1 for v in b]
    assert stats.mann_whitney_u(a, shifted)[1] < 1e-6
