"""What each seat picked and owned, per card type: the engine's counts for per-card figures.

Pipeline position: engine, beside the Gamemaster, which calls ``count_pick`` at every
decision of a game made with ``new_game(seed, tally=True)`` and ``card_counts`` for its
result; the native engine counts the same in C++ (``VM::tally_pick``, native/src/vm_exec.cpp)
and hands back the same ``CardCounts`` (``tests/test_card_counts.py`` holds the two
engines to equal counts).  Games made without ``tally`` count nothing and pay nothing.

The engine knows no "buy" or "play": it counts, per seat, per situation and per card
type, the options chosen that bind a card of that type.  An option's card is the first
card it binds, or the top card of the first location it binds that holds one (a pile
bought from): what ``PlayerView.option_kinds`` names, here as the card is, whoever sees
it, and read before the option runs (a bought pile's top card is the card bought).  An
option that binds no card ("end the phase", "reveal Moat") is not counted.  With each
count goes the game's turn (``st.turns``: every seat's turns counted, as the event log
has them) of the first such pick.  At the end, ``card_counts`` adds per seat and card
type the cards in the locations that seat owns (memory locations, which hold references
to cards elsewhere, left out).  What a game's situations mean (Dominion's BUY-PHASE picks
are buys) is said above the engine: runs/cards.py.

A card's type is ``language/kinds.card_type``: its KIND, else its attribute values.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from cardlang.language.kinds import card_type

__all__ = ["CardCounts", "card_counts", "count_pick"]

#: One pick row: (seat, situation, card type, times chosen, the game's turn of the first).
PickRow = tuple[int, str, str, int, int]
#: One owned row: (seat, card type, cards of that type in the seat's locations at the end).
OwnedRow = tuple[int, str, int]
PICK_WIDTH, OWNED_WIDTH = 5, 3

MEMORY_KIND = "mem"  # a memory location holds references to cards that lie elsewhere


@dataclass(frozen=True)
class CardCounts:
    """A game's counts, each table sorted (seat, then names): the same from both engines.

    Its rows lie flat, ``PICK_WIDTH`` cells to a pick row and ``OWNED_WIDTH`` to an
    owned row, so that a batch of games holds two objects a game for the garbage
    collector to walk, not one per row (which cost a bots' batch a tenth of its speed);
    ``picks`` and ``owned`` give the rows, ``pick_rows`` walks them without a list."""

    pick_cells: tuple[int | str, ...]
    owned_cells: tuple[int | str, ...]

    @classmethod
    def of(cls, picks: Iterable[PickRow], owned: Iterable[OwnedRow]) -> CardCounts:
        return cls(tuple(chain.from_iterable(picks)), tuple(chain.from_iterable(owned)))

    @property
    def picks(self) -> tuple[PickRow, ...]:
        """(seat, situation, card type, times chosen, the game's turn of the first)."""
        return tuple(self.pick_rows())

    @property
    def owned(self) -> tuple[OwnedRow, ...]:
        """(seat, card type, cards of that type in the seat's locations at the end)."""
        cells = iter(self.owned_cells)
        return tuple(zip(*[cells] * OWNED_WIDTH, strict=True))  # type: ignore[arg-type]

    def pick_rows(self) -> Iterator[PickRow]:
        cells = iter(self.pick_cells)  # one iterator read WIDTH at a time: the rows
        return zip(*[cells] * PICK_WIDTH, strict=True)  # type: ignore[arg-type]


def count_pick(
    st: Any,
    situation: str,
    mover: int,
    option: Sequence[Any],
    card_slots: Collection[int],
    location_slots: Collection[int],
) -> None:
    """Count ``option``, about to be played by ``mover`` in ``situation``, into
    ``st.tally`` (a dict (seat, situation, card type) -> (times, first turn))."""
    card = option_card(st, option, card_slots, location_slots)
    if card is None:
        return
    key = (mover, situation, card_type(st.cards[card]))
    found = st.tally.get(key)
    st.tally[key] = (1, st.turns) if found is None else (found[0] + 1, found[1])


def option_card(
    st: Any, option: Sequence[Any], card_slots: Collection[int], location_slots: Collection[int]
) -> int | None:
    """The option's card: the first card it binds, or the top card of the first bound
    location that holds one; None where it binds neither."""
    for fn, arg in option:
        if fn is not None:  # an action, not a binding
            continue
        slot, value = arg[0], arg[1]
        if slot in location_slots:
            cards = st.zones.get(value)
            if cards:
                return cards[-1]  # type: ignore[no-any-return]
        elif slot in card_slots and value is not None and value >= 0:
            return value  # type: ignore[no-any-return]
    return None


def card_counts(st: Any) -> CardCounts | None:
    """A game's counts as they stand (None for a game made without ``tally``)."""
    if st.tally is None:
        return None
    picks = sorted((*key, n, first) for key, (n, first) in st.tally.items())
    return CardCounts.of(picks, owned_cards(st))


def owned_cards(st: Any) -> tuple[OwnedRow, ...]:
    """Per seat and card type, the cards in the locations the seat owns, sorted."""
    owned: dict[tuple[int, str], int] = {}
    cards = st.cards
    for (owner, kind, _name), ids in st.zones.items():
        if owner < 0 or kind == MEMORY_KIND:
            continue
        for card in ids:
            key = (owner, card_type(cards[card]))
            owned[key] = owned.get(key, 0) + 1
    return tuple(sorted((seat, card, n) for (seat, card), n in owned.items()))
