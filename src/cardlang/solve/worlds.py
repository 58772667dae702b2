"""The starting positions of a solve: every deal the game's shuffles can make, weighted.

A position is the first decision of a game (anyone's).  Everything before it is setup and
chance; what chance did is the arrangement of the cards nobody has seen yet.  An observer
who sees only the public locations knows which cards lie hidden and in which groups
(``information.knowledge``: one *pool* per shuffle, its members spread over places); each
distinct arrangement of a pool's cards by type is equally likely, since a shuffle is a
uniform permutation and copies of a type are alike.  So there are

    prod over pools of  n! / (m_1! m_2! ...)      (n cards, m_t of each type t)

starting positions, all with the same weight.  ``starting_positions`` finds each one as a
real game (``new_game(seed, record=True)`` over seeds, as a user would deal them) and
stops when it has them all; a game whose deal is not only shuffles (a ``(random ...)``
before the first decision, pools nested by reshuffles) is not enumerated exactly, and a
sample of seeds stands in (``sample``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import factorial, prod
from typing import Any

from cardlang.engine.protocol import Engine
from cardlang.errors import CardlangError
from cardlang.information.deals import MAX_DEALS, find_every_deal
from cardlang.information.knowledge import KnowledgeTracker, SeatKnowledge, is_token
from cardlang.language.kinds import card_type


def count_text(n: float) -> str:
    """A count for people: exact up to a billion, else its order of magnitude."""
    if n < 1e9:
        return f"{n:,.0f}"
    digits = len(str(int(n))) - 1 if isinstance(n, int) or n < 1e300 else None
    if digits is None or digits > 15:
        return f"about 10^{digits}" if digits is not None else "more than 10^300"
    return f"about {n:.2e}"


class SolveError(CardlangError):
    """A game cannot be solved as asked (the message says why and what to do)."""


class DealError(SolveError):
    """The deals of a game cannot be listed exactly."""


@dataclass
class StartingPositions:
    """The starting positions (recorded states) and the weight of each (they sum to 1)."""

    states: list[Any]
    weights: list[float]
    exact: bool  # every deal, with its exact weight; else a sample
    note: str  # how they were found, for the report
    deals: int | None  # how many distinct deals there are (None: not counted)


def deal_count(st: Any) -> int | None:
    """How many distinct deals lead to a starting position like ``st`` (see the module
    docstring), or None when the deal is not a set of independent shuffles."""
    tracker = KnowledgeTracker(st.nplayers)
    observer = SeatKnowledge(st.nplayers)  # a seat number no player has: sees public only
    tracker.seats.append(observer)
    tracker.update(st.log)
    count = 1
    for members in observer.members:
        if any(is_token(m) for m in members):
            return None  # a pool inside a pool: a reshuffle of cards not all seen
        types = Counter(card_type(st.cards[m]) for m in members)
        count *= factorial(len(members)) // prod(factorial(k) for k in types.values())
    return count


def position_key(st: Any) -> tuple[Any, ...]:
    """What tells two starting positions apart: every location's cards by type, the
    storages, who is to move."""
    zones = tuple(
        sorted(
            (key, tuple(card_type(st.cards[c]) for c in cards)) for key, cards in st.zones.items()
        )
    )
    return (zones, tuple(sorted(st.ints.items())), tuple(sorted(st.strs.items())), st.mover)


def starting_positions(
    master: Engine, *, sample: int | None, seed: int, record: bool = True
) -> StartingPositions:
    """Every deal (``sample`` None), or ``sample`` games from seeds ``seed``, ``seed + 1``...
    (recorded unless ``record`` is False: nothing will read their history, and a pool of
    sampled positions is lighter without it)."""
    if sample is not None:
        states = [master.new_game(seed + i, record=record) for i in range(sample)]
        return StartingPositions(
            states, [1.0 / sample] * sample, False, f"a sample of {sample} deals", None
        )
    first = master.new_game(seed, record=True)
    expected = deal_count(first)
    if expected is None:
        raise DealError(
            "the deal is not a set of independent shuffles (a reshuffle of cards not all "
            "seen, or chance other than shuffles), so its deals cannot be listed"
        )
    if expected > MAX_DEALS:
        raise DealError(
            f"the game has {count_text(expected)} distinct deals, more than {MAX_DEALS:,} to "
            "list; "
            "--sample N solves over N of them"
        )
    found, tried = find_every_deal(master, first, seed, expected, position_key)
    if len(found) != expected:
        raise DealError(
            f"found {len(found)} distinct deals in {tried} games where the shuffles allow "
            f"{expected}: the deal draws chance other than shuffles"
        )
    states = list(found.values())
    return StartingPositions(
        states,
        [1.0 / expected] * expected,
        True,
        f"all {expected} deals (found in {tried} games)",
        expected,
    )
