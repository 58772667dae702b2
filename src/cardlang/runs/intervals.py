"""Intervals of the batch statistics: a proportion's (Wilson) and a mean's (normal).

Pipeline position: runs, under statistics.py (which re-exports them, where the measures
of cardlang.analysis and the learning reports import them from) and cards.py.  Plain
arithmetic: the standard library alone.
"""

from __future__ import annotations

import math

__all__ = ["Z95", "mean_interval", "wilson_interval"]


#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def mean_interval(n: float, total: float, squares: float, z: float = Z95) -> dict[str, float]:
    """The mean of ``n`` values from their sum and sum of squares, with the normal
    interval mean +- z sd / sqrt(n) (the sample's sd; a single value has a zero-width
    interval, there being nothing to estimate its spread from)."""
    if n <= 0:
        return {"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0, "seats": 0}
    mean = total / n
    variance = max(0.0, (squares - n * mean * mean) / (n - 1)) if n > 1 else 0.0
    half = z * math.sqrt(variance / n)
    return {
        "mean": round(mean, 6),
        "ci_low": round(mean - half, 6),
        "ci_high": round(mean + half, 6),
        "seats": int(n),
    }


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: (0, 1) without trials.

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps its
    coverage near 0 and 1 and for few games (a strong agent's share is near 1), and over
    a bootstrap because it is exact arithmetic from two counts: deterministic, free, and
    the same for games read back from the records as for games played now.
    ``successes`` may be fractional (shared wins): a credit in [0, 1] with mean p has a
    variance of at most p(1 - p), the variance of a win-or-lose game, so the interval is
    conservative (if anything too wide) when ties split the credit.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)
