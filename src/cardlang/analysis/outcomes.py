"""Measures of how games end: do they complete, how long they last, and who wins.

Pipeline position: a family of measures over ``games`` and ``estimates``, declared into
``FAMILY`` (gathered into ``MEASURES`` by ``measures``).  Completion, cut-offs and
drawishness; the length of a game in decisions and in turns; the seats' win rates:
fairness, first-seat advantage, balance and order (skill pays).  Also
``seat_win_rates``, each seat's share of the wins.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardlang.analysis.base import SHARE, Measure, register
from cardlang.analysis.data import GameRecord
from cardlang.analysis.estimates import (
    Array,
    Estimate,
    Sample,
    means,
    no_data,
    share,
    std,
)
from cardlang.analysis.games import ai_seat, completed, players
from cardlang.engine.state import CUTOFF
from cardlang.runs.statistics import wilson_interval

#: This module's measures, in reading order.
FAMILY: dict[str, Measure] = {}


def seat_win_rates(games: Sequence[GameRecord]) -> list[Estimate]:
    """Per seat, its share of the wins of the completed games (credits: a win shared by
    k counts 1/k), with a 95% Wilson interval."""
    done = completed(games)
    if not done:
        return []
    out = []
    for seat in range(players(done)):
        credits = sum(g.credits[seat] for g in done)
        low, high = wilson_interval(credits, len(done))
        out.append(Estimate(credits / len(done), low, high, len(done)))
    return out


# ------------------------------------------------------- outcomes: completion, draws


@register(
    FAMILY,
    "completion",
    "Completion",
    design="ai",
    higher_is="better",
    unit="share of games",
    formula="games completed / games played",
)
def _completion(games: Sequence[GameRecord]) -> Sample:
    return share([1.0 if g.completed else 0.0 for g in games])


@register(
    FAMILY,
    "cutoffs",
    "Cut-offs",
    design="ai",
    higher_is="worse",
    unit="share of games",
    formula="games cut off by a limit (decisions or steps) / games played",
)
def _cutoffs(games: Sequence[GameRecord]) -> Sample:
    return share([1.0 if g.end_reason.startswith(CUTOFF) else 0.0 for g in games])


@register(
    FAMILY,
    "drawishness",
    "Drawishness",
    design="ai",
    higher_is="worse",
    unit="share of completed games",
    formula="completed games without a single winner (partners count as one) / completed games",
)
def _drawishness(games: Sequence[GameRecord]) -> Sample:
    return share([0.0 if g.winning_sides == 1 else 1.0 for g in completed(games)])


# ---------------------------------------------------------------------- durations


def _decisions(games: Sequence[GameRecord]) -> list[float]:
    return [float(len(g.decisions)) for g in completed(games)]


def _turns(games: Sequence[GameRecord]) -> list[float]:
    return [float(g.turns) for g in completed(games)]


@register(
    FAMILY,
    "duration_decisions",
    "Length in decisions",
    design="ai",
    higher_is="neither",
    unit="decisions",
    formula="mean decisions per completed game",
)
def _mean_decisions(games: Sequence[GameRecord]) -> Sample:
    return means(_decisions(games))


@register(
    FAMILY,
    "duration_decisions_sd",
    "Spread of length in decisions",
    design="ai",
    higher_is="neither",
    unit="decisions",
    formula="standard deviation of decisions per completed game",
)
def _sd_decisions(games: Sequence[GameRecord]) -> Sample:
    return std(_decisions(games))


@register(
    FAMILY,
    "duration_turns",
    "Length in turns",
    design="ai",
    higher_is="neither",
    unit="turns",
    formula="mean turns per completed game",
)
def _mean_turns(games: Sequence[GameRecord]) -> Sample:
    return means(_turns(games))


@register(
    FAMILY,
    "duration_turns_sd",
    "Spread of length in turns",
    design="ai",
    higher_is="neither",
    unit="turns",
    formula="standard deviation of turns per completed game",
)
def _sd_turns(games: Sequence[GameRecord]) -> Sample:
    return std(_turns(games))


# ------------------------------------------------------------ seats and win rates


@register(
    FAMILY,
    "fairness",
    "Fairness (CardStock)",
    design="random",
    higher_is="better",
    unit=SHARE,
    formula="r = seat 0's win share, f = 1/n: r/f if r <= f else (1-r)/(1-f)",
)
def _fairness(games: Sequence[GameRecord]) -> Sample:
    """CardStock's fairness of seat 0's share r of wins against f = 1/n."""
    done = completed(games)
    n = players(done)
    if n < 2:
        return no_data()
    f = 1 / n

    def transform(r: Array) -> Array:
        return np.where(r <= f, r / f, (1 - r) / (1 - f))

    return share([g.credits[0] for g in done], transform, critical=(f,))


@register(
    FAMILY,
    "first_seat_advantage",
    "First-seat advantage",
    design="ai",
    higher_is="neither",
    unit="win share minus 1/n",
    formula="seat 0's win share - 1/n",
)
def _first_seat_advantage(games: Sequence[GameRecord]) -> Sample:
    done = completed(games)
    n = players(done)
    if n < 2:
        return no_data()
    return share([g.credits[0] for g in done], lambda r: r - 1 / n)


@register(
    FAMILY,
    "balance",
    "Balance",
    design="ai",
    higher_is="better",
    unit=SHARE,
    formula="1 - (highest seat win share - lowest seat win share)",
)
def _balance(games: Sequence[GameRecord]) -> Sample:
    """1 - the largest gap between two seats' win rates (Ludii's balance)."""
    done = completed(games)
    if players(done) < 2:
        return no_data()
    seats = np.asarray([g.credits for g in done], dtype=float).T  # (seats, games)

    def statistic(idx: Array) -> Array:
        rates = np.stack([credits[idx].mean(axis=1) for credits in seats])  # (seats, R)
        return 1.0 - (rates.max(axis=0) - rates.min(axis=0))

    return Sample(len(done), statistic)


@register(
    FAMILY,
    "order",
    "Order (skill pays)",
    design="ai_vs_random",
    higher_is="better",
    unit="rescaled win share",
    formula="(AI seat's win share - 1/n) / (1 - 1/n)",
)
def _order(games: Sequence[GameRecord]) -> Sample:
    """CardStock's order: the AI seat's win rate against random players, rescaled so
    that 0 is chance (1/n) and 1 always winning."""
    rows = [(g, seat) for g in completed(games) if (seat := ai_seat(g)) is not None]
    n = players([g for g, _ in rows])
    if n < 2:
        return no_data()
    f = 1 / n
    return share([g.credits[seat] for g, seat in rows], lambda p: (p - f) / (1 - f))
