"""Measures of game quality: pure functions of recorded games, each with a 95% interval.

Pipeline position: after ``data`` (recorded batches as ``GameRecord`` values), before the
``cardlang heuristics`` command and its report.  Nothing here plays a game or reads a file:
every measure is a function of the games it is given, so the same games give the same
numbers, whichever machine or backend played them.

This module is the registry: ``MEASURES`` gathers the measure families in reading order
(``outcomes``: does the game work, how long is it, who wins; ``decisions``: what choices
it offers; ``course``: how a game unfolds), ``DESIGNS`` names the experiments, and it
re-exports the names callers use (``Measure`` from ``base``, ``Estimate``, ``Difference``
and the statistics from ``estimates``, ``compare``, ``seat_win_rates``, ``design_of``,
``drama_threshold``).  A new measure goes in the module of its family, declared with
``base.register``.

Each measure names its *design* (``DESIGNS``): which games it is meant for.  ``random``:
every seat plays at random; ``ai_vs_random``: one AI seat (rotated through the seats)
against random players; ``ai``: every seat the same AI.  The caller hands each measure
the games of its design only; the measures do not filter by design (``design_of`` tells
a game's design).  docs/heuristics.md gives every formula with how to read it.

Three rules hold for all measures:

* A game that did not complete (failed, or cut off by a limit) has no result and its play
  was stopped early, so it counts only in ``completion`` and ``cutoffs``.
* The unit of every interval is a game: decisions of one game are not independent.
  Shares of games use Wilson's score interval; everything else a seeded percentile
  bootstrap over games (``RESAMPLES`` resamples), so intervals are deterministic.
* Missing data gives ``nan`` with ``n == 0``, never a made-up number.

"Estimates" of a player are what its own search agent estimated at its own decisions
(see ``games``).
"""

from __future__ import annotations

from cardlang.analysis import course, decisions, outcomes
from cardlang.analysis.base import Measure, compare
from cardlang.analysis.course import SURE, drama_threshold
from cardlang.analysis.estimates import (
    RESAMPLES,
    SEED,
    Difference,
    Estimate,
    Sample,
    estimate,
)
from cardlang.analysis.games import design_of
from cardlang.analysis.outcomes import seat_win_rates

__all__ = [
    "DESIGNS",
    "MEASURES",
    "RESAMPLES",
    "SEED",
    "SURE",
    "Difference",
    "Estimate",
    "Measure",
    "Sample",
    "compare",
    "design_of",
    "drama_threshold",
    "estimate",
    "seat_win_rates",
]

#: The three designs of experiment, in the order CardStock runs them.
DESIGNS = ("random", "ai_vs_random", "ai")


def _gather(*families: dict[str, Measure]) -> dict[str, Measure]:
    """The families' measures in order; a name declared by two families is an error."""
    out: dict[str, Measure] = {}
    for family in families:
        for name, measure in family.items():
            if name in out:
                raise ValueError(f"measure {name!r} declared by two families")
            out[name] = measure
    return out


#: Every measure by name, in reading order: does the game work, how long is it, who
#: wins, what choices it offers, and how a game unfolds.
MEASURES: dict[str, Measure] = _gather(outcomes.FAMILY, decisions.FAMILY, course.FAMILY)
