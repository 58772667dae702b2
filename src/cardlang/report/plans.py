"""The "card plus money" bot: Big Money Ultimate that also buys one card, as parameters.

A ``MoneyPlan`` is the handful of numbers Geronimoo's simulator's optimizer varies in a
bot's buy rules: how many copies of the card (a fixed number, or one per so many
Treasures), where the card stands among the money rules (over Gold, over Silver, ...),
whether it stops being bought when the Provinces run low, and the deck money at which
Provinces are bought.  ``plan.toml()`` is a bot file that agents/scripted/dominion.py
reads (``DominionBot.from_toml``); it has no ``[situations]``, so the native engine plays
it.  ``plans_for(cost)`` is the grid the tuning search (money.py) walks.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

from cardlang.agents.scripted.dominion import DominionBot

__all__ = ["LIMITS", "SLOTS", "MoneyPlan", "card_title", "default_plan", "plans_for"]

#: How many copies, written as the buy rule's condition: ``N`` (at most N) or ``/N``
#: (one per N Treasures owned, as the smithy bot's "a Smithy per 11 Treasures").
LIMITS: tuple[str, ...] = ("1", "2", "3", "4", "6", "10", "/11", "/7", "/4")

#: Where the card's rule stands among Big Money Ultimate's rules; each slot is the rule
#: it goes before (None: last).  Which slots can differ depends on the card's cost
#: (``slots_for``): a card dearer than Gold is never weighed against Silver.
SLOTS: dict[str, str | None] = {
    "over-province": "PROVINCE",
    "over-gold": "GOLD",
    "over-silver": "SILVER",
    "under-silver": None,
}

#: Deck money above which a Province is bought (bmu: 18; the smithy bot: 15).
PROVINCE_MONEY = (15, 18)
#: Stop buying the card once this few Provinces are left (0: never stop, as a game
#: ends when none is left).
STOPS = (0, 4)

SILVER_COST, GOLD_COST, PROVINCE_COST = 3, 6, 8


def card_title(card: str) -> str:
    """A card's name as people write it: COUNCIL-ROOM -> Council Room."""
    return card.replace("-", " ").title()


def slots_for(cost: int) -> tuple[str, ...]:
    """The slots that change what a card of ``cost`` is bought over: a card that Silver
    always outbids can only go under Silver when it is cheaper than Silver, and one
    that costs Gold's price or more is always weighed against Gold or Province."""
    if cost >= PROVINCE_COST:
        return ("over-province", "over-gold")
    if cost >= GOLD_COST:
        return ("over-gold",)
    if cost < SILVER_COST:
        return ("over-gold", "over-silver", "under-silver")
    return ("over-gold", "over-silver")


@dataclass(frozen=True, order=True)
class MoneyPlan:
    """One card-plus-money bot (see the module docstring)."""

    card: str
    limit: str = "2"
    slot: str = "over-silver"
    province_money: int = 18
    stop: int = 0

    def condition(self) -> str:
        """The card's buy condition, in the bot file's language."""
        if self.limit.startswith("/"):
            said = f"count({self.card}) < treasures / {self.limit[1:]}"
        else:
            said = f"count({self.card}) < {self.limit}"
        if self.stop:
            said += f" and left(PROVINCE) > {self.stop}"
        return said

    def rules(self) -> list[tuple[str, str | None]]:
        """The buy rules in order: (card, condition or None)."""
        money: list[tuple[str, str | None]] = [
            ("PROVINCE", f"money > {self.province_money}"),
            ("DUCHY", "left(PROVINCE) <= 4"),
            ("ESTATE", "left(PROVINCE) <= 2"),
            ("GOLD", None),
            ("DUCHY", "left(PROVINCE) <= 6"),
            ("SILVER", None),
        ]
        before = SLOTS[self.slot]
        at = next((i for i, (card, _) in enumerate(money) if card == before), len(money))
        return [*money[:at], (self.card, self.condition()), *money[at:]]

    def toml(self) -> str:
        """The bot file: plays the card first, buys by ``rules()``."""
        lines = [f'name = "{self.name()}"', f'play = ["{self.card}"]', "buy = ["]
        for card, condition in self.rules():
            when = f', if = "{condition}"' if condition else ""
            lines.append(f'    {{ card = "{card}"{when} }},')
        lines.append("]")
        return "\n".join(lines) + "\n"

    def bot(self) -> DominionBot:
        return DominionBot.from_toml(self.toml(), self.name())

    def name(self) -> str:
        return f"{self.card.lower()}-money"

    def words(self) -> str:
        """The plan as a designer reads it: 'at most 2, over Silver, Province at $19+'."""
        if self.limit.startswith("/"):
            copies = f"one per {self.limit[1:]} Treasures"
        else:
            copies = f"at most {self.limit}"
        where = self.slot.replace("-", " ").replace("province", "Province")
        where = where.replace("gold", "Gold").replace("silver", "Silver")
        said = f"{copies}, {where}, Province when deck money > {self.province_money}"
        if self.stop:
            said += f", none once {self.stop} Provinces are left"
        return said

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MoneyPlan:
        return cls(**data)


def default_plan(card: str, cost: int) -> MoneyPlan:
    """Where the search starts and what calibrates its cost: two copies, over Silver
    (over Gold for a card dearer than Silver can be weighed against)."""
    return MoneyPlan(card, "2", slots_for(cost)[-1 if cost < GOLD_COST else 0])


def plans_for(card: str, cost: int) -> list[MoneyPlan]:
    """Every plan the search tries for a card of ``cost`` (at most 108)."""
    grid = itertools.product(LIMITS, slots_for(cost), PROVINCE_MONEY, STOPS)
    return [MoneyPlan(card, *values) for values in grid]
