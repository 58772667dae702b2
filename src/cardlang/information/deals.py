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

Exact chance also needs a game's deal as types at places (``find_deals``): a shuffle
makes a *pool* (``pools``); the cards some seat has identified are the dealt places, in
the order they lie; ``sequence_count`` says how many sequences of types a pool can show,
so how many deals to look for.  A card shown later (Leduc's public card) is chance too
(``Reveal``): ``retype`` gives the shown cards the types chosen by permuting the
attributes of the pool's interchangeable unseen cards, and ``shuffle_unidentified``
permutes what a seat has not identified (a world it cannot tell from the real one).
These re-type a Python ``Gamestate``: the native engine's cards cannot be re-typed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import factorial
from typing import Any, TypeVar

from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import Gamestate
from cardlang.errors import UsageError
from cardlang.information.knowledge import KnowledgeTracker, is_token, pool_of
from cardlang.language.kinds import card_type

__all__ = [
    "MAX_DEALS",
    "SEEDS_PER_DEAL",
    "Deals",
    "ExactChanceError",
    "Pools",
    "Reveal",
    "chosen",
    "find_deals",
    "find_every_deal",
    "pools",
    "retype",
    "sequence_count",
    "shuffle_unidentified",
]

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


class ExactChanceError(UsageError):
    """A game's chance cannot be exposed exactly (the message says why)."""


# ---------------------------------------------------------------- pools and deals


@dataclass(frozen=True)
class Pools:
    """The shuffled cards of a state and which of them no seat has identified."""

    pool_of: Mapping[int, int]  # card id -> its pool (the index of its shuffle)
    unseen: frozenset[int]  # pooled cards no seat has identified
    tracker: KnowledgeTracker


def pools(st: EngineState) -> Pools:
    """The pools of ``st`` (a recorded Python state): one per ``shuffle`` event.  A card
    shuffled twice would make pools of pools, which exact chance does not follow."""
    pool_of: dict[int, int] = {}
    shuffles = (e for e in st.log or () if e[0] == "shuffle")
    for pool, event in enumerate(shuffles):
        for card in event[2]:
            if card in pool_of:
                raise ExactChanceError("a card is shuffled twice: exact chance cannot follow it")
            pool_of[card] = pool
    tracker = KnowledgeTracker(st.nplayers)
    tracker.update(st.log or ())
    unseen = frozenset(c for c in pool_of if all(c in seat.pool_of_card for seat in tracker.seats))
    return Pools(pool_of, unseen, tracker)


def _place(tracker: KnowledgeTracker, card: int) -> tuple[Any, ...]:
    where = tracker.where[card]
    return (where, tracker.zones[where].index(card))


def dealt_cards(st: EngineState, found: Pools) -> list[int]:
    """The pooled cards some seat has identified, in the order of their places."""
    dealt = [c for c in found.pool_of if c not in found.unseen]
    return sorted(dealt, key=lambda c: _place(found.tracker, c))


def sequence_count(composition: Counter[str], k: int) -> int:
    """How many distinct sequences of ``k`` types a pool of ``composition`` can show:
    ``k!`` times the coefficient of ``x^k`` in the product of the truncated exponentials
    ``sum_{j <= m} x^j / j!``, one per type."""
    poly = [Fraction(1)]
    for m in composition.values():
        term = [Fraction(1, factorial(j)) for j in range(m + 1)]
        poly = [
            sum(
                (poly[i] * term[n - i] for i in range(len(poly)) if 0 <= n - i < len(term)),
                Fraction(0),
            )
            for n in range(min(len(poly) + m, k + 1))
        ]
    return int(poly[k] * factorial(k)) if k < len(poly) else 0


@dataclass
class Deals:
    """Every deal of an exact game: the pool of each dealt place (one chance node each),
    each pool's composition, and a real starting state per sequence of dealt types."""

    place_pools: tuple[int, ...]
    compositions: tuple[Counter[str], ...]
    states: dict[tuple[str, ...], EngineState]

    def outcomes(self, chosen: Sequence[str]) -> Counter[str]:
        """The types the next dealt place may take, with their remaining copies."""
        pool = self.place_pools[len(chosen)]
        left = Counter(self.compositions[pool])
        left.subtract(t for t, q in zip(chosen, self.place_pools, strict=False) if q == pool)
        return +left


def _public(st: EngineState) -> tuple[Any, ...]:
    """What every seat sees of a starting position besides the dealt cards."""
    sizes = tuple(sorted((k, len(z)) for k, z in st.zones.items()))
    return (sizes, tuple(sorted(st.ints.items())), tuple(sorted(st.strs.items())), st.mover)


def find_deals(master: Engine, seed: int = 0, limit: int = MAX_DEALS) -> Deals:
    """Every deal, each found as a real game from seeds ``seed``, ``seed + 1``...
    (information/deals.py; raises ExactChanceError when they cannot all be found or are
    more than ``limit``)."""
    first = master.new_game(seed, record=True)
    found = pools(first)
    dealt = dealt_cards(first, found)
    place_pools = tuple(found.pool_of[c] for c in dealt)
    compositions = _compositions(first, found)
    expected = 1
    for pool, composition in enumerate(compositions):
        expected *= sequence_count(composition, place_pools.count(pool))
        if expected > limit:
            raise ExactChanceError(f"more than {limit:,} deals: sample them (chance='sampled')")
    publics: dict[tuple[str, ...], tuple[Any, ...]] = {}

    def key_of(st: EngineState) -> tuple[str, ...]:
        key = _deal_key(st, place_pools)
        if publics.setdefault(key, _public(st)) != _public(st):
            raise ExactChanceError("the setup reads cards nobody has seen: sample the game")
        return key

    states, _ = find_every_deal(master, first, seed, expected, key_of)
    if len(states) != expected:
        raise ExactChanceError(
            f"found {len(states)} of the {expected} deals: the setup draws other chance"
        )
    return Deals(place_pools, compositions, states)


def _compositions(st: EngineState, found: Pools) -> tuple[Counter[str], ...]:
    count = max(found.pool_of.values(), default=-1) + 1
    out: list[Counter[str]] = [Counter() for _ in range(count)]
    for card, pool in found.pool_of.items():
        out[pool][card_type(st.cards[card])] += 1
    return tuple(out)


def _deal_key(st: EngineState, place_pools: tuple[int, ...]) -> tuple[str, ...]:
    found = pools(st)
    dealt = dealt_cards(st, found)
    if tuple(found.pool_of[c] for c in dealt) != place_pools:
        raise ExactChanceError("deals differ in which places they show: sample the game")
    return tuple(card_type(st.cards[c]) for c in dealt)


# ---------------------------------------------------------------- re-typing unseen cards


def retype(st: Gamestate, group: Sequence[int], wanted: Mapping[int, str]) -> None:
    """Give the cards of ``wanted`` their types by permuting the attributes of the
    interchangeable cards of ``group`` (which holds every card of ``wanted``); the others
    keep theirs where they can.  Attribute dicts are shared per card description, so a
    point map's cache (keyed by the dict) stays right."""
    left = [st.cards[c] for c in group]  # the multiset of attributes, by identity

    def take(match: Any) -> Any:
        return left.pop(next(i for i, a in enumerate(left) if match(a)))

    for card, kind in wanted.items():
        st.cards[card] = take(lambda a, kind=kind: card_type(a) == kind)
    moved = []
    for card in (c for c in group if c not in wanted):
        own = st.cards[card]
        if any(a is own for a in left):
            take(lambda a, own=own: a is own)
        else:
            moved.append(card)
    for card, attrs in zip(moved, left, strict=True):
        st.cards[card] = attrs


def shuffle_unidentified(st: Gamestate, seat: int, rng: random.Random) -> None:
    """Permute, at random, the attributes of the cards ``seat`` has not identified within
    each of its pools (pools holding older pools' tokens are merged with them)."""
    knowledge = KnowledgeTracker.of(st).seats[seat]
    for group in _pool_groups(knowledge.members):
        attrs = [st.cards[c] for c in group]
        rng.shuffle(attrs)
        for card, a in zip(group, attrs, strict=True):
            st.cards[card] = a


def _pool_groups(members: Sequence[Sequence[int]]) -> list[list[int]]:
    """The card ids of a seat's pools, pools joined to the older pools they hold."""
    parent = list(range(len(members)))

    def root(p: int) -> int:
        while parent[p] != p:
            p = parent[p]
        return p

    for pool, entries in enumerate(members):
        for m in entries:
            if is_token(m):
                parent[root(pool_of(m))] = root(pool)
    groups: dict[int, list[int]] = {}
    for pool, entries in enumerate(members):
        groups.setdefault(root(pool), []).extend(m for m in entries if not is_token(m))
    return [g for g in groups.values() if len(g) > 1]


@dataclass(frozen=True)
class Reveal:
    """A move waiting for the types of the cards it shows: the state before it, the
    option, the cards (in the order they appear) with their pools, the types chosen."""

    before: EngineState
    option: int
    cards: tuple[int, ...]
    unseen: frozenset[int]
    pool_of: Mapping[int, int]
    chosen: tuple[str, ...] = ()

    def outcomes(self) -> Counter[str]:
        pool = self.pool_of[self.cards[len(self.chosen)]]
        left = Counter(
            card_type(self.before.cards[c]) for c in self.unseen if self.pool_of[c] == pool
        )
        left.subtract(
            t for c, t in zip(self.cards, self.chosen, strict=False) if self.pool_of[c] == pool
        )
        return +left


def chosen(reveal: Reveal, kind: str) -> Reveal:
    return Reveal(
        reveal.before,
        reveal.option,
        reveal.cards,
        reveal.unseen,
        reveal.pool_of,
        reveal.chosen + (kind,),
    )
