"""The official cards as peers: their tuned card-plus-money bots, shipped, and a card's place.

``peers.json`` (beside this module, installed with the package) holds, for each of the 26
kingdom cards of games/dominion.rcy, the card-plus-money bot tuned for it and its win
share against bmu, computed by benchmarks/card_peers.py exactly as a report computes a
new card's (money.py), with the game file's rules fingerprint, the date, the seed and
the games.  ``place`` reads a card's share against them: its rank among the cards of
its cost, which of them it is stronger or weaker than (their intervals apart) or about
like (overlapping), and the nearest card of any cost; ``Placement.words()`` says it as a
designer reads it: "stronger than every $4 card; about like Witch at $5".

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from cardlang.report.plans import MoneyPlan, card_title

__all__ = ["PEERS_FILE", "Peer", "Peers", "Placement", "place", "shipped_peers"]

PEERS_FILE = "peers.json"


@dataclass(frozen=True)
class Peer:
    """An official card's tuned bot and its share against bmu (95% Wilson interval)."""

    card: str
    cost: int
    share: float
    low: float
    high: float
    games: int
    plan: MoneyPlan

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Peer:
        return cls(
            data["card"],
            data["cost"],
            data["share"],
            data["low"],
            data["high"],
            data["games"],
            MoneyPlan.from_json(data["plan"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "cost": self.cost,
            "share": self.share,
            "low": self.low,
            "high": self.high,
            "games": self.games,
            "plan": self.plan.to_json(),
            "bot": self.plan.words(),
        }

    def label(self) -> str:
        """'Witch at $5'."""
        return f"{card_title(self.card)} at ${self.cost}"


@dataclass(frozen=True)
class Peers:
    """The shipped peers and where they come from (``about``: fingerprint, date, seed,
    games, the command that made them)."""

    cards: tuple[Peer, ...]
    about: dict[str, Any] = field(default_factory=dict)

    def at_cost(self, cost: int, leaving_out: str = "") -> list[Peer]:
        """The cards of ``cost``, strongest first (``leaving_out``: the card judged)."""
        found = [p for p in self.cards if p.cost == cost and p.card != leaving_out]
        return sorted(found, key=lambda p: -p.share)

    def named(self, card: str) -> Peer | None:
        return next((p for p in self.cards if p.card == card), None)

    def to_json(self) -> dict[str, Any]:
        return {**self.about, "cards": [p.to_json() for p in self.cards]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Peers:
        about = {k: v for k, v in data.items() if k != "cards"}
        return cls(tuple(Peer.from_json(c) for c in data["cards"]), about)


@cache
def shipped_peers() -> Peers:
    """The peers shipped with the package."""
    text = resources.files("cardlang.report").joinpath(PEERS_FILE).read_text("utf-8")
    return Peers.from_json(json.loads(text))


@dataclass(frozen=True)
class Placement:
    """Where a card's share stands among the peers (see the module docstring)."""

    cost: int
    rank: int  # 1: the strongest of its cost
    of: int  # the cards of its cost, the card included
    stronger_than: tuple[Peer, ...]  # same cost, intervals apart
    about_like: tuple[Peer, ...]  # same cost, intervals overlapping
    weaker_than: tuple[Peer, ...]
    nearest: Peer | None  # of any cost, the closest share
    nearest_overlaps: bool

    def words(self) -> str:
        """'stronger than every $4 card; about like Witch at $5'."""
        return "; ".join(part for part in (self._among_cost(), self._nearest()) if part)

    def _among_cost(self) -> str:
        peers = len(self.stronger_than) + len(self.about_like) + len(self.weaker_than)
        cost = f"${self.cost}"
        if not peers:
            return f"no official card costs {cost}"
        if len(self.stronger_than) == peers:
            return f"stronger than every {cost} card"
        if len(self.weaker_than) == peers:
            return f"weaker than every {cost} card"
        said = f"{_ordinal(self.rank)} of {self.of} at {cost}"
        if self.about_like:
            return f"{said}, about like {_names(self.about_like)}"
        above, below = self.weaker_than[-1], self.stronger_than[0]  # its neighbours
        return f"{said}, between {_share_of(above)} and {_share_of(below)}"

    def _nearest(self) -> str:
        if self.nearest is None:
            return ""
        if self.nearest_overlaps:
            return f"about like {self.nearest.label()}"
        return f"nearest: {self.nearest.label()} ({self.nearest.share:.2f})"

    def to_json(self) -> dict[str, Any]:
        return {
            "cost": self.cost,
            "rank": self.rank,
            "of": self.of,
            "stronger_than": [p.card for p in self.stronger_than],
            "about_like": [p.card for p in self.about_like],
            "weaker_than": [p.card for p in self.weaker_than],
            "nearest": self.nearest.card if self.nearest else None,
            "nearest_overlaps": self.nearest_overlaps,
            "words": self.words(),
        }


def place(card: str, cost: int, share: float, low: float, high: float, peers: Peers) -> Placement:
    """``card``'s place among ``peers`` by its share against bmu and its interval."""
    same = peers.at_cost(cost, leaving_out=card)
    stronger = tuple(p for p in same if low > p.high)
    weaker = tuple(p for p in same if high < p.low)
    about = tuple(p for p in same if p not in stronger and p not in weaker)
    rank = 1 + sum(1 for p in same if p.share > share)
    others = [p for p in peers.cards if p.card != card]
    nearest = min(others, key=lambda p: (abs(p.share - share), p.card), default=None)
    overlaps = nearest is not None and nearest.low <= high and low <= nearest.high
    return Placement(cost, rank, len(same) + 1, stronger, about, weaker, nearest, overlaps)


def _names(peers: tuple[Peer, ...]) -> str:
    names = [card_title(p.card) for p in peers]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _share_of(peer: Peer) -> str:
    return f"{card_title(peer.card)} ({peer.share:.2f})"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
