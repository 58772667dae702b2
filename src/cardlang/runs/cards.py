"""Per-card figures: what each agent bought and played, and how it fared when it bought.

Pipeline position: runs, under the batch summary (statistics.py), which counts each
completed game's ``CardCounts`` (engine/tally.py) into a ``CardTotals``; env/vector.py's
results and the card report read one game's figures with ``seat_cards``.

The engine counts, per seat, situation and card type, the options chosen that bind a
card of that type (engine/tally.py).  What a situation means is the game's: in a game of
Dominion's shape (it has a ``BUY-PHASE``), a pick in ``BUY-PHASE`` is a buy, and a pick
in ``ACTION-PHASE``, ``THRONE-ROOM-PLAY`` or ``VASSAL-PLAY`` that binds a card is a play:

- a Throne Room's card is played twice but chosen once: one play;
- games/dominion.rcy's Vassal option binds no card ("play the discarded Action card"),
  so the engine cannot name what it plays: not counted;
- Treasures are played without a decision: not counted.

Any other game has its picks per situation alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardlang.engine.tally import CardCounts
from cardlang.runs.intervals import wilson_interval

__all__ = [
    "BUY_SITUATION",
    "PLAY_SITUATIONS",
    "AgentCards",
    "CardTotals",
    "SeatCard",
    "buys_and_plays",
    "seat_cards",
]

#: The situation whose picks are buys, in a game of Dominion's shape.
BUY_SITUATION = "BUY-PHASE"
#: The situations whose picks play the card they bind.
PLAY_SITUATIONS = frozenset({"ACTION-PHASE", "THRONE-ROOM-PLAY", "VASSAL-PLAY"})


def buys_and_plays(situations: Collection[str]) -> bool:
    """Whether a game with these situations has buys and plays (Dominion's shape)."""
    return BUY_SITUATION in situations


@dataclass(frozen=True)
class SeatCard:
    """One seat's figures of one card type in one game."""

    buys: int = 0
    plays: int = 0
    first_buy_turn: int | None = None  # the game's turn (every seat's turns counted)
    owned: int = 0  # cards of the type in the seat's locations at the end


def seat_cards(counts: CardCounts, seat: int) -> dict[str, SeatCard]:
    """``seat``'s figures per card type of one game: every type it bought, played or
    owned at the end."""
    buys: dict[str, tuple[int, int]] = {}
    plays: dict[str, int] = {}
    for who, situation, card, n, first in counts.pick_rows():
        if who != seat:
            continue
        if situation == BUY_SITUATION:
            buys[card] = (n, first)
        elif situation in PLAY_SITUATIONS:
            plays[card] = plays.get(card, 0) + n
    owned = {card: n for who, card, n in counts.owned if who == seat}
    return {
        card: SeatCard(
            buys=buys.get(card, (0, 0))[0],
            plays=plays.get(card, 0),
            first_buy_turn=buys[card][1] if card in buys else None,
            owned=owned.get(card, 0),
        )
        for card in sorted({*buys, *plays, *owned})
    }


@dataclass
class AgentCards:
    """One agent spec's sums over a batch's counted games."""

    seats: int = 0
    credits: float = 0.0
    picks: dict[tuple[str, str], int] = field(default_factory=dict)  # (situation, card)
    bought: dict[str, int] = field(default_factory=dict)  # card -> its seats that bought it
    won: dict[str, float] = field(default_factory=dict)  # card -> those seats' credits


@dataclass
class CardTotals:
    """A batch's per-card figures per agent spec, over its completed games whose picks
    were counted (``add`` one game at a time; ``to_json`` sums them up)."""

    buys_and_plays: bool = False  # the game has Dominion's shape
    games: int = 0
    agents: dict[str, AgentCards] = field(default_factory=dict)

    def add(self, counts: CardCounts, seat_agents: Sequence[str], credits: Sequence[float]) -> None:
        """Count one completed game (its seats' agents and credits).  A batch's hot loop:
        a game has one row per seat, situation and card, so a BUY-PHASE row is one seat
        that bought the card."""
        self.games += 1
        tables = []
        for spec, credit in zip(seat_agents, credits, strict=True):
            agent = self.agents.get(spec) or self.agents.setdefault(spec, AgentCards())
            agent.seats += 1
            agent.credits += credit
            tables.append((agent.picks, agent.bought, agent.won))
        for seat, situation, card, n, _first in counts.pick_rows():
            picks, bought, won = tables[seat]
            key = (situation, card)
            picks[key] = picks.get(key, 0) + n
            if situation == BUY_SITUATION:
                bought[card] = bought.get(card, 0) + 1
                if credits[seat]:
                    won[card] = won.get(card, 0.0) + credits[seat]

    def to_json(self) -> dict[str, Any]:
        """Per spec: its seats, its picks per situation and card, and in a game of
        Dominion's shape its buys, plays and win share with and without each card."""
        out: dict[str, Any] = {"games": self.games}
        if self.buys_and_plays:
            out["buys_in"] = [BUY_SITUATION]
            out["plays_in"] = sorted(PLAY_SITUATIONS)
        out["by_agent"] = {spec: self._agent_json(agent) for spec, agent in self.agents.items()}
        return out

    def _agent_json(self, agent: AgentCards) -> dict[str, Any]:
        picks: dict[str, dict[str, int]] = {}
        for (situation, card), n in sorted(agent.picks.items()):
            picks.setdefault(situation, {})[card] = n
        out: dict[str, Any] = {"seats": agent.seats, "picks": picks}
        if self.buys_and_plays:
            counted = PLAY_SITUATIONS | {BUY_SITUATION}
            cards = sorted({card for (sit, card) in agent.picks if sit in counted})
            out["cards"] = {card: card_json(agent, card) for card in cards}
        return out


def card_json(agent: AgentCards, card: str) -> dict[str, Any]:
    """One card's figures for an agent: buys and plays (in all, and per seat), the seats
    that bought it, and the win share of those seats and of the others, each with its
    95% Wilson interval."""
    seats = agent.seats
    buys = agent.picks.get((BUY_SITUATION, card), 0)
    plays = sum(agent.picks.get((s, card), 0) for s in PLAY_SITUATIONS)
    bought, credits = agent.bought.get(card, 0), agent.won.get(card, 0.0)
    others, other_credits = seats - bought, agent.credits - credits
    return {
        "buys": buys,
        "plays": plays,
        "buys_per_game": round(buys / seats, 6),
        "plays_per_game": round(plays / seats, 6),
        "bought_in": bought,
        "bought_share": round(bought / seats, 6),
        "win_share_bought": _share(credits, bought),
        "win_share_not_bought": _share(other_credits, others),
    }


def _share(credits: float, seats: int) -> dict[str, float]:
    """A win share over ``seats`` with its 95% Wilson interval (as BatchSummary.strength)."""
    low, high = wilson_interval(credits, seats)
    share = credits / seats if seats else 0.0
    return {
        "share": round(share, 6),
        "ci_low": round(low, 6),
        "ci_high": round(high, 6),
        "seats": seats,
    }
