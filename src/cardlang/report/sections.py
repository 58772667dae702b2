"""What a card's report holds: one dataclass per section, every figure with its interval.

``CardReport`` is one card's: its ``money`` section (the card-plus-money bot, money.py,
placed among the official cards, peers.py) and ``win_rate_added``, the place of the
neural sections (a neural agent playing random kingdoms with and without the card: the
difference in win share, the win share when bought, buy rate, copies, first-buy turn,
plays, their plots).  Those are not measured yet: the field is None, and every output
says so in words (``NOT_MEASURED``), never with numbers.  ``Report`` is the whole run:
the cards, the budget and what was spent.  Each has ``to_json``, the ``--json`` output.

A ``Figure`` is an estimate with its 95% interval and the games behind it: a share (a
Wilson interval, runs/statistics.py) or a mean (a normal interval).

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cardlang.report.peers import Placement
from cardlang.report.plans import MoneyPlan
from cardlang.runs.statistics import mean_interval, wilson_interval

__all__ = [
    "NOT_MEASURED",
    "WIDE",
    "CardReport",
    "Figure",
    "HeadToHead",
    "MoneySection",
    "Report",
]

#: What every output says of the neural sections while they are not measured.
NOT_MEASURED = (
    "not measured: the neural section (a neural model against itself barred from the "
    "card) was left out (--model none, or torch is not installed)"
)
#: An interval wider than this each side is called wide, and the report says why.
WIDE = 0.02


@dataclass(frozen=True)
class Figure:
    """An estimate, its 95% interval and how many games (or seats) it rests on."""

    value: float
    low: float
    high: float
    games: int

    @classmethod
    def share(cls, credits: float, games: int) -> Figure:
        low, high = wilson_interval(credits, games)
        return cls(credits / games if games else 0.0, low, high, games)

    @classmethod
    def mean(cls, values: Sequence[float]) -> Figure:
        total, squares = float(sum(values)), float(sum(v * v for v in values))
        found = mean_interval(len(values), total, squares)
        return cls(found["mean"], found["ci_low"], found["ci_high"], len(values))

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def to_json(self) -> dict[str, Any]:
        return {
            "value": round(self.value, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
            "games": self.games,
        }

    def text(self, digits: int = 3) -> str:
        """'0.612 (0.607, 0.617)'."""
        return f"{self.value:.{digits}f} ({self.bounds(digits)})"

    def bounds(self, digits: int = 3) -> str:
        """The interval: '0.607, 0.617' (a comma, so that '-0.300, -0.280' reads too)."""
        return f"{self.low:.{digits}f}, {self.high:.{digits}f}"


@dataclass(frozen=True)
class HeadToHead:
    """The card's bot against an official card's tuned bot, seats rotated."""

    peer: str
    cost: int
    peer_share_vs_bmu: float
    share: Figure  # the card's bot's share of these games

    def to_json(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "cost": self.cost,
            "peer_share_vs_bmu": self.peer_share_vs_bmu,
            "share": self.share.to_json(),
        }


@dataclass
class MoneySection:
    """The card-plus-money bot tuned for the card and what it scored (money.py)."""

    opponent: str
    plan: MoneyPlan
    share: Figure  # against the opponent, on seeds the search never saw
    copies: Figure  # copies owned at the end of a game
    bought: Figure  # the share of games in which it owned a copy at the end
    by_copies: list[tuple[int, Figure]]  # win share by copies owned at the end
    tried: list[tuple[MoneyPlan, Figure]]  # the search's best plans, best first
    head_to_head: list[HeadToHead]
    placement: Placement | None  # None where the card was never bought
    games: int  # every game the section played
    cut_off: int  # games with no result (cut off), left out of every share
    notes: list[str] = field(default_factory=list)  # what a reader must know

    @property
    def never_bought(self) -> bool:
        return self.bought.value == 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "bot": {
                "plan": self.plan.to_json(),
                "words": self.plan.words(),
                "toml": self.plan.toml(),
            },
            "share": self.share.to_json(),
            "copies_at_end": self.copies.to_json(),
            "bought": self.bought.to_json(),
            "never_bought": self.never_bought,
            "share_by_copies": [{"copies": n, "share": f.to_json()} for n, f in self.by_copies],
            "plans_tried": [
                {"plan": p.to_json(), "words": p.words(), "share": f.to_json()}
                for p, f in self.tried
            ],
            "head_to_head": [h.to_json() for h in self.head_to_head],
            "placement": self.placement.to_json() if self.placement else None,
            "games": self.games,
            "cut_off": self.cut_off,
            "notes": list(self.notes),
        }


@dataclass
class CardReport:
    """One card's report (see the module docstring)."""

    card: str
    cost: int
    types: tuple[str, ...]
    money: MoneySection
    #: The neural sections: None until they are measured (see ``NOT_MEASURED``).
    win_rate_added: Any | None = None
    cpu_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        neural = (
            {"measured": False, "note": NOT_MEASURED}
            if self.win_rate_added is None
            else {"measured": True, **self.win_rate_added.to_json()}
        )
        return {
            "card": self.card,
            "cost": self.cost,
            "types": list(self.types),
            "card_plus_money": self.money.to_json(),
            "win_rate_added": neural,
            "cpu_seconds": round(self.cpu_seconds, 2),
        }


@dataclass
class Report:
    """A run of card-report: its cards, its budget and what it spent."""

    file: str
    rules_fingerprint: str
    seed: int
    minutes: float
    budget_seconds: dict[str, float]  # per section, all cards together
    cards: list[CardReport]
    peers: dict[str, Any]  # where the shipped peers come from (peers.json's about)
    cpu_seconds: float = 0.0
    games: int = 0

    @property
    def games_per_second(self) -> float:
        return self.games / self.cpu_seconds if self.cpu_seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "rules_fingerprint": self.rules_fingerprint,
            "seed": self.seed,
            "minutes": self.minutes,
            "budget_seconds": {k: round(v, 1) for k, v in self.budget_seconds.items()},
            "cpu_seconds": round(self.cpu_seconds, 2),
            "games": self.games,
            "games_per_cpu_second": round(self.games_per_second),
            "peers": self.peers,
            "cards": [c.to_json() for c in self.cards],
        }
