"""Measures of the decisions a game offers: how many options, and how different they look.

Pipeline position: a family of measures over ``games`` and ``estimates``, declared into
``FAMILY`` (gathered into ``MEASURES`` by ``measures``).  From the options alone:
branching factor, decision moves and convergence; from the options' values as the
deciding agent estimated them (traced choices): CardStock's spread (meaningful moves)
and Ludii's clarity (variance, narrowness).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from cardlang.analysis.base import ESTIMATES, SHARE, Measure, register
from cardlang.analysis.data import GameRecord
from cardlang.analysis.estimates import Sample, means, ratio
from cardlang.analysis.games import EPS, choices, completed

#: This module's measures, in reading order.
FAMILY: dict[str, Measure] = {}


# ------------------------------------------------------------- decisions: options


@register(
    FAMILY,
    "branching_factor",
    "Branching factor",
    design="ai",
    higher_is="neither",
    unit="options",
    formula="mean over games of the mean number of options per decision",
)
def _branching(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in completed(games) if g.decisions]
    return means([sum(d.options for d in g.decisions) / len(g.decisions) for g in done])


@register(
    FAMILY,
    "decision_moves",
    "Decision moves",
    design="ai",
    higher_is="better",
    unit=SHARE,
    formula="mean over games of the share of decisions with more than one option",
)
def _decision_moves(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in completed(games) if g.decisions]
    return means([sum(d.options > 1 for d in g.decisions) / len(g.decisions) for g in done])


def _slope(ys: Sequence[int]) -> float:
    """Least-squares slope of ys against their index 0, 1, 2, ..."""
    x = np.arange(len(ys), dtype=float)
    y = np.asarray(ys, dtype=float)
    dx = x - x.mean()
    return float((dx * (y - y.mean())).sum() / (dx * dx).sum())


@register(
    FAMILY,
    "convergence",
    "Convergence (CardStock)",
    design="ai",
    higher_is="neither",
    unit="0.5 = flat",
    formula="1 - (slope/2 + 0.5), slope = LSQ slope of options vs decision index (mean of games)",
)
def _convergence(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in completed(games) if len(g.decisions) >= 2]
    slopes = [_slope([d.options for d in g.decisions]) for g in done]
    return means(slopes, lambda s: 1 - (s / 2 + 0.5))


# ----------------------------------------------------- decisions: estimated values


@register(
    FAMILY,
    "spread",
    "Meaningful moves (CardStock spread)",
    design="ai",
    higher_is="better",
    unit="standing",
    formula="mean over traced choices of best option value - worst option value",
    needs=ESTIMATES,
)
def _spread(games: Sequence[GameRecord]) -> Sample:
    """CardStock's meaningful moves, pooled over the traced choices of all games."""
    rows = [[max(v) - min(v) for v in choices(g)] for g in completed(games)]
    rows = [r for r in rows if r]
    return ratio([sum(r) for r in rows], [len(r) for r in rows], empty=math.nan, transform=None)


def _narrowness(values: list[float]) -> float:
    """Share of the options valued at least mean + 0.75 (max - mean): the options that
    look about as good as the best (the best one always counts)."""
    mean, best = sum(values) / len(values), max(values)
    bar = mean + 0.75 * (best - mean) - EPS
    return sum(v >= bar for v in values) / len(values)


def _variance(values: list[float]) -> float:
    """Variance divided by k, not k - 1 (as Ludii's ``Stats.varn``): the options are all
    there are, not a sample of them.  Plain Python: numpy's overhead dominates here."""
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def _per_choice(games: Sequence[GameRecord], f: Callable[[list[float]], float]) -> Sample:
    """Mean over games of the game's mean of ``f`` over its traced choices (Ludii's
    clarity measures: per trial, then over trials)."""
    rows = [[f(v) for v in choices(g)] for g in completed(games)]
    return means([sum(r) / len(r) for r in rows if r])


@register(
    FAMILY,
    "clarity_variance",
    "Clarity: variance",
    design="ai",
    higher_is="neither",
    unit="standing squared",
    formula="mean over games of the mean over traced choices of the variance of option values",
    needs=ESTIMATES,
)
def _clarity_variance(games: Sequence[GameRecord]) -> Sample:
    return _per_choice(games, _variance)


@register(
    FAMILY,
    "clarity_narrowness",
    "Clarity: narrowness",
    design="ai",
    higher_is="neither",
    unit=SHARE,
    formula="mean over games of the mean share of options valued >= mean + 0.75 (max - mean)",
    needs=ESTIMATES,
)
def _clarity_narrowness(games: Sequence[GameRecord]) -> Sample:
    return _per_choice(games, _narrowness)
