"""Estimates with 95% intervals: the statistics every measure of game quality shares.

Pipeline position: below the measures (``outcomes``, ``decisions``, ``course``) and
their registry (``base``, ``measures``); it knows nothing of games, only of numbers with
one row per game.  A measure reduces its games to a ``Sample``, built here (``means``,
``ratio``, ``share``, ``std``, ``no_data``); ``estimate`` gives the sample's value with
its interval, ``difference`` the difference of two samples with its interval.

The unit of every interval is a game: decisions of one game are not independent.
Shares of games use Wilson's score interval; everything else a seeded percentile
bootstrap over games (``RESAMPLES`` resamples), so intervals are deterministic.  Missing
data gives ``nan`` with ``n == 0``, never a made-up number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cardlang.runs.statistics import wilson_interval

#: Bootstrap resamples per interval, and the seed every measure's bootstrap starts from.
RESAMPLES = 1000
SEED = 0
#: Index cells drawn at once while bootstrapping (bounds the memory of a big batch).
_CELLS = 2_000_000

Array = np.ndarray
Transform = Callable[[Array], Array]


# ------------------------------------------------------------------------ the values


@dataclass(frozen=True)
class Estimate:
    """A measure's value with its 95% interval, resting on ``n`` independent units (games).

    ``value`` is nan exactly when ``n == 0`` (no data).  The interval is nan when it
    cannot be formed: a bootstrap from a single game has no spread to show.
    """

    value: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True)
class Difference:
    """``b - a`` for one measure on two samples of games, with a 95% interval;
    ``significant`` when the interval excludes 0."""

    value: float
    ci_low: float
    ci_high: float
    significant: bool
    n_a: int
    n_b: int


@dataclass(frozen=True)
class Sample:
    """A measure's data reduced to one row per game: what its estimate and ``compare``
    resample.

    ``statistic`` maps index rows (shape ``(R, units)``, each row a resample of the
    games) to the measure's value on each row; the identity row gives the estimate.
    ``share``, when set, is ``(successes, trials)`` of one proportion of games whose
    value is ``transform(share)``: its interval is Wilson's, carried through the
    transform, whose extrema inside the interval are listed in ``critical``.
    """

    units: int
    statistic: Callable[[Array], Array]
    share: tuple[float, int] | None = None
    transform: Transform | None = None
    critical: tuple[float, ...] = ()


def estimate(sample: Sample, *, seed: int = SEED) -> Estimate:
    """The estimate of a reduced sample: its value and its 95% interval."""
    if sample.units == 0:
        return _missing()
    value = _point(sample)
    if math.isnan(value):
        return _missing()
    if sample.share is not None:
        low, high = _wilson_image(sample)
    elif sample.units < 2:
        low = high = math.nan
    else:
        low, high = _percentiles(_replicates(sample, np.random.default_rng(seed)))
    return Estimate(value, *_containing(value, low, high), sample.units)


def difference(sa: Sample, sb: Sample, *, seed: int = 0) -> Difference:
    """``b - a`` of two reduced samples with a 95% percentile-bootstrap interval.

    Each sample is resampled by games on its own (the two batches are independent), the
    statistic recomputed on both, and the differences' 2.5 and 97.5 percentiles taken.
    A side with fewer than two games has no interval and is never significant.
    """
    va = _point(sa) if sa.units else math.nan
    vb = _point(sb) if sb.units else math.nan
    value = vb - va
    if math.isnan(value) or sa.units < 2 or sb.units < 2:
        return Difference(value, math.nan, math.nan, False, sa.units, sb.units)
    rng = np.random.default_rng(seed)
    low, high = _percentiles(_replicates(sb, rng) - _replicates(sa, rng))
    low, high = _containing(value, low, high)
    return Difference(value, low, high, low > 0 or high < 0, sa.units, sb.units)


# ------------------------------------------------------------ intervals and resampling


def _missing() -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, 0)


def _point(sample: Sample) -> float:
    return float(sample.statistic(np.arange(sample.units)[None, :])[0])


def _replicates(sample: Sample, rng: np.random.Generator) -> Array:
    """The statistic on ``RESAMPLES`` resamples of the games (with replacement), drawn in
    chunks so that a batch of many games does not hold a huge index array."""
    rows = max(1, _CELLS // sample.units)
    out = []
    for start in range(0, RESAMPLES, rows):
        idx = rng.integers(0, sample.units, size=(min(rows, RESAMPLES - start), sample.units))
        out.append(sample.statistic(idx))
    return np.concatenate(out)


def _percentiles(values: Array) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles; a resample with no value (nan) is left out."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _containing(value: float, low: float, high: float) -> tuple[float, float]:
    """The interval widened to contain the value.  A percentile interval can miss its own
    estimate for statistics biased in small samples (balance takes a maximum); an
    interval that does not contain the estimate would only confuse a reader."""
    if math.isnan(low) or math.isnan(high):
        return low, high
    return min(low, value), max(high, value)


def _wilson_image(sample: Sample) -> tuple[float, float]:
    """Wilson's interval of the share, carried through the measure's transform: the
    transform's range over the interval (its ends, and any extremum inside)."""
    assert sample.share is not None
    successes, trials = sample.share
    low, high = wilson_interval(successes, trials)
    points = [low, high] + [c for c in sample.critical if low < c < high]
    mapped = [_apply(sample.transform, p) for p in points]
    return min(mapped), max(mapped)


def _apply(transform: Transform | None, p: float) -> float:
    return p if transform is None else float(transform(np.asarray(p)))


# ----------------------------------------------------------------- sample builders


def no_data() -> Sample:
    """A sample of no games: every resample's value is nan."""
    return Sample(0, lambda idx: np.full(idx.shape[0], math.nan))


def means(values: Sequence[float], transform: Transform | None = None) -> Sample:
    """The mean over games of one number per game (optionally transformed)."""
    if not values:
        return no_data()
    arr = np.asarray(values, dtype=float)

    def statistic(idx: Array) -> Array:
        mean = arr[idx].mean(axis=1)
        return mean if transform is None else transform(mean)

    return Sample(len(arr), statistic)


def ratio(
    num: Sequence[float], den: Sequence[float], *, empty: float, transform: Transform | None
) -> Sample:
    """Sum of numerators over sum of denominators, both per game: a mean pooled over the
    games' items (decisions, estimates).  ``empty`` is the value of a resample whose
    denominators are all 0."""
    if not num:
        return no_data()
    n_arr, d_arr = np.asarray(num, dtype=float), np.asarray(den, dtype=float)

    def statistic(idx: Array) -> Array:
        top, bottom = n_arr[idx].sum(axis=1), d_arr[idx].sum(axis=1)
        safe = np.where(bottom > 0, bottom, 1.0)
        pooled = np.where(bottom > 0, top / safe, empty)
        return pooled if transform is None else transform(pooled)

    return Sample(len(n_arr), statistic)


def share(
    per_game: Sequence[float], transform: Transform | None = None, critical: tuple[float, ...] = ()
) -> Sample:
    """A share of games (or of credits, one number in [0, 1] per game): Wilson's
    interval for the estimate, the same per-game numbers for ``compare``."""
    sample = means(per_game, transform)
    if not sample.units:
        return sample
    return Sample(
        sample.units, sample.statistic, (float(sum(per_game)), sample.units), transform, critical
    )


def std(values: Sequence[float]) -> Sample:
    """The standard deviation over games (n - 1 in the denominator): two games at least."""
    if len(values) < 2:
        return no_data()
    arr = np.asarray(values, dtype=float)
    return Sample(len(arr), lambda idx: arr[idx].std(axis=1, ddof=1))


def one_minus(x: Array) -> Array:
    """The transform of a measure read as 1 - a share."""
    return 1.0 - x
