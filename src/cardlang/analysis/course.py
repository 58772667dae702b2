"""Measures of the course of play: how the players' estimates move as a game unfolds.

Pipeline position: a family of measures over ``games`` and ``estimates``, declared into
``FAMILY`` (gathered into ``MEASURES`` by ``measures``).  From the standings each player
estimated at its own decisions: lead changes and stability; from the winners' own
estimates: CardStock's drama, security, decisiveness and coolness (with
``drama_threshold``, the standing below which a winner was behind).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from cardlang.analysis.base import ESTIMATES, SHARE, Measure, register
from cardlang.analysis.data import GameRecord
from cardlang.analysis.estimates import Sample, means, one_minus, ratio
from cardlang.analysis.games import EPS, completed, own_estimates, views, winner_estimates

#: Decisiveness: a winner whose estimate exceeds this is taken to be sure of winning.
SURE = 0.8

#: This module's measures, in reading order.
FAMILY: dict[str, Measure] = {}


def drama_threshold(nplayers: int) -> float:
    """CardStock's published threshold t: halfway between the standing of the first
    place (1) and of the second ((n-2)/(n-1)); 0.5 for two players."""
    return (1 + (nplayers - 2) / (nplayers - 1)) / 2


# ------------------------------------------------- the course of play: standings


def _leaders(standings: tuple[float, ...]) -> frozenset[int]:
    top = max(standings)
    return frozenset(s for s, v in enumerate(standings) if v >= top - EPS)


def _pairs(game: GameRecord) -> Iterator[tuple[tuple[float, ...], tuple[float, ...]]]:
    """Consecutive pairs of one observer's estimated standings, for every observer (none
    in a solo game, whose only standing is always 1)."""
    if game.nplayers < 2:
        return
    for view in views(game):
        yield from zip(view, view[1:], strict=False)


@register(
    FAMILY,
    "lead_changes",
    "Lead changes",
    design="ai",
    higher_is="neither",
    unit=SHARE,
    formula="mean over games of the share of a player's consecutive views with another leader",
    needs=ESTIMATES,
)
def _lead_changes(games: Sequence[GameRecord]) -> Sample:
    values = []
    for g in completed(games):
        flips = [_leaders(a) != _leaders(b) for a, b in _pairs(g)]
        if flips:
            values.append(sum(flips) / len(flips))
    return means(values)


@register(
    FAMILY,
    "stability",
    "Stability",
    design="ai",
    higher_is="neither",
    unit=SHARE,
    formula="1 - mean over games of the mean |change| of standings between a player's views",
    needs=ESTIMATES,
)
def _stability(games: Sequence[GameRecord]) -> Sample:
    values = []
    for g in completed(games):
        moves = [sum(abs(y - x) for x, y in zip(a, b, strict=True)) / len(a) for a, b in _pairs(g)]
        if moves:
            values.append(sum(moves) / len(moves))
    return means(values, one_minus)


# -------------------------------------------- the course of play: winners' estimates


def _below(games: Sequence[GameRecord]) -> Iterator[tuple[list[float], float]]:
    """Per completed game with winners' estimates: those estimates and the threshold t."""
    for g in completed(games):
        estimates = [v for _, v in winner_estimates(g)]
        if estimates and g.nplayers >= 2:
            yield estimates, drama_threshold(g.nplayers)


@register(
    FAMILY,
    "drama",
    "Drama (CardStock)",
    design="ai",
    higher_is="better",
    unit="sqrt of standing",
    formula="mean over winners' estimates v < t of sqrt(t - v), t = (1 + (n-2)/(n-1))/2",
    needs=ESTIMATES,
)
def _drama(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for estimates, t in _below(games):
        low = [t - v for v in estimates if v < t]
        num.append(sum(math.sqrt(x) for x in low))
        den.append(len(low))
    return ratio(num, den, empty=0.0, transform=None)


@register(
    FAMILY,
    "security",
    "Security (CardStock)",
    design="ai",
    higher_is="neither",
    unit=SHARE,
    formula="1 - share of the winners' estimates below t",
    needs=ESTIMATES,
)
def _security(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for estimates, t in _below(games):
        num.append(sum(v < t for v in estimates))
        den.append(len(estimates))
    return ratio(num, den, empty=math.nan, transform=one_minus)


def _after_sure(game: GameRecord) -> float | None:
    """Share of the game's decisions after the first at which a winner's own estimate
    exceeds ``SURE`` (0 if it never does: the end decided it); None without estimates."""
    estimates = winner_estimates(game)
    if not estimates:
        return None
    first = next((i for i, v in estimates if v > SURE), None)
    total = len(game.decisions)
    return 0.0 if first is None else (total - 1 - first) / total


@register(
    FAMILY,
    "decisiveness",
    "Decisiveness (CardStock)",
    design="ai",
    higher_is="better",
    unit=SHARE,
    formula="1 - mean over games of the share of decisions after a winner's estimate first > 0.8",
    needs=ESTIMATES,
)
def _decisiveness(games: Sequence[GameRecord]) -> Sample:
    shares = [s for g in completed(games) if (s := _after_sure(g)) is not None]
    return means(shares, one_minus)


@register(
    FAMILY,
    "coolness",
    "Coolness (CardStock)",
    design="ai",
    higher_is="better",
    unit=SHARE,
    formula="1 - share of a player's consecutive estimates that decrease",
    needs=ESTIMATES,
)
def _coolness(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for g in completed(games):
        drops = pairs = 0
        for seat in range(g.nplayers):
            values = [v for _, v in own_estimates(g, seat)]
            drops += sum(b < a for a, b in zip(values, values[1:], strict=False))
            pairs += max(0, len(values) - 1)
        if pairs:
            num.append(drops)
            den.append(pairs)
    return ratio(num, den, empty=math.nan, transform=one_minus)
