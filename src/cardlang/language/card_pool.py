"""Made-up kingdom cards for a Dominion-shaped game file: what a general model learns from.

Pipeline position: language (text in, text out; the result is checked like any file).
A network that must judge a designer's card it never met (issue 54) reads the card by
its components and effects (effects.py).  Trained on the 26 base cards alone it meets
one card that curses (Witch), a handful that draw: hold those out and it has never seen
what the effect of a Curse to every other player is worth, and it cannot know.  A pool
of made-up cards fills the gap: each draws, gives Actions, Buys and coins, curses the
others, lets the others draw, gains a Silver or trashes from its player's hand, in
random measure, at a cost that follows what it does with noise (so that a card's cost
does not tell its worth: only playing it does).  Trained on random kingdoms of the base
cards and the pool, a model has met every kind of effect the base set has, at many
strengths.  (A buy's action token carries the card's effects too, in models made since
``NameTable.pile_cards``: information/tokens.py.)

``pooled(text, count, seed)`` is the game file ``text`` with ``count`` made-up cards
added next to its card kinds and to its kingdom cards; the same seed, the same cards.
``python -m cardlang.language.card_pool FILE COUNT [--seed S] [--only]`` prints it
(``--only``: the made-up cards alone are the kingdom cards).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from dataclasses import dataclass, replace

__all__ = ["MadeUpCard", "made_up_cards", "pooled", "with_kingdom_cards"]

#: Where the cards go: before the procedures, as a designer's would (games/dominion.rcy).
PROCEDURES = " ;; ------------------------------------------------------------ procedures"
#: The kingdom cards' list, which ends with Workshop.
KINGDOM = re.compile(r"WORKSHOP\)(\s*'ALL-KINGDOM-CARDS\))")
#: The whole list, to replace.
ONLY_KINGDOM = re.compile(r"(\(declare )\([A-Z, \n-]*WORKSHOP\)(\s*'ALL-KINGDOM-CARDS\))")
#: The situation of every made-up trasher's choice, declared after the game's last one.
TRASH_SITUATION = "MADE-UP-TRASH"
SITUATION_LINE = re.compile(r"^ \(situation [A-Z-]+ \"[^\"]*\"\)$", re.MULTILINE)

#: What an effect is worth in coins, roughly (a card's cost is their sum with noise):
#: by +Cards, +Actions, +Buys and +$ given, and for each of the others.
CARDS_WORTH = (0.0, 1.6, 3.0, 4.2, 5.2)
ACTIONS_WORTH = (0.0, 0.8, 1.6)
BUYS_WORTH = (0.0, 0.7)
COINS_WORTH = (0.0, 1.1, 2.2, 3.3)
CURSE_WORTH = 2.6
OTHERS_DRAW_WORTH = -0.6
SILVER_WORTH = 1.6
TRASH_WORTH = {0: 0.0, 1: 0.8, 2: 1.4, 4: 2.2}


@dataclass(frozen=True)
class MadeUpCard:
    """One made-up kingdom card: what a play does, and its cost."""

    name: str
    cost: int
    cards: int = 0
    actions: int = 0
    buys: int = 0
    coins: int = 0
    curse: bool = False  # each other player gains a Curse (an Attack: Moat stops it)
    others_draw: bool = False  # each other player draws a card
    silver: bool = False  # its player gains a Silver
    trash: int = 0  # its player may trash up to this many cards from hand

    @property
    def worth(self) -> float:
        return (
            CARDS_WORTH[self.cards]
            + ACTIONS_WORTH[self.actions]
            + BUYS_WORTH[self.buys]
            + COINS_WORTH[self.coins]
            + CURSE_WORTH * self.curse
            + OTHERS_DRAW_WORTH * self.others_draw
            + SILVER_WORTH * self.silver
            + TRASH_WORTH[self.trash]
        )

    def words(self) -> str:
        parts = [f"+{self.cards} Card{'s' * (self.cards > 1)}"] if self.cards else []
        parts += [f"+{self.actions} Action{'s' * (self.actions > 1)}"] if self.actions else []
        parts += [f"+{self.buys} Buy"] if self.buys else []
        parts += [f"+${self.coins}"] if self.coins else []
        if self.silver:
            parts.append("Gain a Silver")
        if self.trash:
            parts.append(f"Trash up to {self.trash} card{'s' * (self.trash > 1)} from your hand")
        if self.others_draw:
            parts.append("Each other player draws a card")
        if self.curse:
            parts.append("Each other player gains a Curse")
        return ". ".join(parts) + "."

    def rcy(self) -> str:
        """The card kind, written as games/dominion.rcy writes its own."""
        types = "ACTION, ATTACK" if self.curse else "ACTION"
        body = []
        if self.cards:
            body.append(f"(call DRAW 'ME {self.cards})")
        if self.actions:
            body.append(f"(inc ('ME sto ACTIONS) {self.actions})")
        if self.buys:
            body.append(f"(inc ('ME sto BUYS) {self.buys})")
        if self.coins:
            body.append(f"(inc ('ME sto COINS) {self.coins})")
        if self.silver:
            body.append(
                "((> (size 'SILVER-PILE) 0) (call GAIN 'ME (top 'SILVER-PILE) ('ME vloc DISCARD)))"
            )
        if self.trash:
            body.append(_trash_body(self.trash))
        if self.others_draw:
            body.append("(all (others 'ME) 'V (call DRAW 'V 1))")
        if self.curse:
            body.append("(call ATTACK 'ME)")
            body.append(
                "(all (others 'ME) 'V\n"
                "           ((and (== ('V sto UNAFFECTED) 0) (> (size 'CURSE-PILE) 0))\n"
                "            (call GAIN 'V (top 'CURSE-PILE) ('V vloc DISCARD))))"
            )
        lines = "\n      ".join(body)
        return (
            f" (card-kind {self.name} (COST {self.cost}) (TYPES ({types}))\n"
            f"  (CARDS {self.cards}) (ACTIONS {self.actions}) (BUYS {self.buys}) "
            f"(COINS {self.coins}) (TRASH {self.trash}) (VP 0)\n"
            f'  (text "{self.words()}")\n'
            f"  (on PLAY\n      {lines}))\n"
        )


def _trash_body(most: int) -> str:
    return (
        f"(set ('ME sto LEFT) {most})\n"
        "      (set ('ME sto PICKING) 1)\n"
        "      (while (and (== ('ME sto PICKING) 1) (> ('ME sto LEFT) 0) "
        "(> (size ('ME iloc HAND)) 0))\n"
        f"             (choice {TRASH_SITUATION}\n"
        '                     ((label "Trash {C}"\n'
        "                             (any ('ME iloc HAND) 'C\n"
        "                                  (do ((dec ('ME sto LEFT)) (call TRASH 'ME 'C)))))\n"
        '                      (label "Stop trashing" (set (\'ME sto PICKING) 0)))))'
    )


def made_up_cards(count: int, seed: int) -> list[MadeUpCard]:
    """``count`` distinct made-up cards, the same for the same seed."""
    rng = random.Random(seed)
    cards: list[MadeUpCard] = []
    seen: set[MadeUpCard] = set()
    while len(cards) < count:
        card = _one(rng, f"MADE-UP-{_letters(len(cards))}")
        shape = replace(card, name="", cost=0)  # what it does, whatever its name and cost
        if card.worth < 1.5 or shape in seen:
            continue
        seen.add(shape)
        cards.append(card)
    return cards


def _one(rng: random.Random, name: str) -> MadeUpCard:
    cards = rng.choices(range(5), weights=(5, 3, 3, 2, 1))[0]
    actions = rng.choices(range(3), weights=(4, 4, 2))[0]
    buys = int(rng.random() < 0.3)
    coins = rng.choices(range(4), weights=(5, 3, 3, 1))[0]
    curse = rng.random() < 0.2
    others_draw = rng.random() < 0.1
    silver = rng.random() < 0.1
    trash = rng.choice((1, 2, 4)) if rng.random() < 0.15 else 0
    card = MadeUpCard(name, 0, cards, actions, buys, coins, curse, others_draw, silver, trash)
    cost = round(card.worth + rng.gauss(0.0, 0.9))
    return replace(card, cost=max(2, min(8, cost)))


def _letters(n: int) -> str:
    """0 -> A, 25 -> Z, 26 -> BA: names of letters (a kind's name has no digits)."""
    out = ""
    while True:
        out = chr(ord("A") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def pooled(text: str, count: int, seed: int, only: bool = False) -> str:
    """games/dominion.rcy's ``text`` with ``count`` made-up cards among its kingdom cards;
    ``only``: the made-up cards are the only kingdom cards (``kingdom=random`` never
    deals a base card: a model that has met none of them, to judge each as new)."""
    if PROCEDURES not in text or not KINGDOM.search(text):
        raise ValueError("not games/dominion.rcy's shape: no procedures marker or kingdom list")
    situations = list(SITUATION_LINE.finditer(text))
    if not situations:
        raise ValueError("not games/dominion.rcy's shape: no situations")
    last = situations[-1].end()  # first: the other additions move it
    words = "A made-up card: trash a card from your hand, or stop"
    text = f'{text[:last]}\n (situation {TRASH_SITUATION} "{words}"){text[last:]}'
    made = made_up_cards(count, seed)
    kinds = "".join(card.rcy() + "\n" for card in made)
    text = text.replace(PROCEDURES, kinds + PROCEDURES, 1)
    names = [card.name for card in made]
    if only:
        listed = ", ".join(names)
        return ONLY_KINGDOM.sub(lambda m: f"{m.group(1)}({listed}){m.group(2)}", text, 1)
    return with_kingdom_cards(text, *names)


def with_kingdom_cards(text: str, *names: str) -> str:
    """games/dominion.rcy's ``text`` whose 'ALL-KINGDOM-CARDS (the cards a kingdom may
    name, and the randomizers) lists ``names`` too: what a designer adds a card with."""
    if not KINGDOM.search(text):
        raise ValueError("not games/dominion.rcy's shape: no kingdom list ending with WORKSHOP")
    return KINGDOM.sub(lambda m: "WORKSHOP, " + ", ".join(names) + ")" + m.group(1), text, 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardlang.language.card_pool", description=__doc__)
    p.add_argument("file", help="games/dominion.rcy or a copy of it")
    p.add_argument("count", type=int, help="how many made-up cards")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", action="store_true", help="the made-up cards alone as kingdom cards")
    args = p.parse_args(argv)
    if args.count < 1:
        p.error("count: at least 1 made-up card")
    try:
        with open(args.file, encoding="utf-8") as f:
            sys.stdout.write(pooled(f.read(), args.count, args.seed, args.only))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        p.exit(1, f"{p.prog}: {args.file}: {err}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
