"""Every deal of a game, found as real games: the one listing of deals.

Pipeline position: information, for the layers that need a game's chance as a list
rather than a stream: ``cardlang solve`` (solve/worlds.py: exact best responses over
every starting position) and the OpenSpiel adapter's exact chance (env/openspiel.py:
one chance node per dealt card).  Each says what tells two deals apart (its key) and how
many there are; this module plays games from seeds ``seed``, ``seed + 1``... and keeps
the first state of each key, as a deal is found in about ln(deals) games per deal.

One limit for both: ``MAX_DEALS`` (more are not listed: solve them over a sample, expose
them to OpenSpiel sampled).  What a caller does with fewer is its own policy: OpenSpiel's
``chance="auto"`` lists only up to ``AUTO_EXACT_DEALS`` (exact chance keeps a real game
per deal and is walked again and again by CFR), ``chance="exact"`` up to the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from cardlang.engine.protocol import Engine

__all__ = ["MAX_DEALS", "SEEDS_PER_DEAL", "find_every_deal"]

K = TypeVar("K", bound=Hashable)

#: More deals than this are not listed (finding each takes about ln(deals) games).
MAX_DEALS = 50_000
#: How many seeds per expected deal the search for every deal may try, past 1,000.
SEEDS_PER_DEAL = 40


def find_every_deal(
    master: Engine,
    first: Any,
    seed: int,
    expected: int,
    key_of: Callable[[Any], K],
) -> tuple[dict[K, Any], int]:
    """The first recorded state of each deal (``key_of`` a state), from ``first`` (the
    game of ``seed``) and games from seeds ``seed + 1``... until ``expected`` deals are
    found or ``SEEDS_PER_DEAL * expected + 1000`` games are played; and how many were.
    ``key_of`` may raise to say a deal cannot be keyed (the caller's error)."""
    found: dict[K, Any] = {}
    tried = 0
    budget = SEEDS_PER_DEAL * expected + 1_000
    while len(found) < expected and tried < budget:
        st = first if tried == 0 else master.new_game(seed + tried, record=True)
        found.setdefault(key_of(st), st)
        tried += 1
    return found, tried
