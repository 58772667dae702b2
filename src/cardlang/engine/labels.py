"""Labels for people: what a card, a value, a location and an option are called.

Pipeline position: engine.  The Gamemaster writes option labels into the event log
(``decision`` events, when a game is recorded); transcripts (cardlang.runs.transcript)
print cards and locations with these.  Event logs are pinned byte for byte, so these
texts change only with a deliberate change of the logs.  What a card is called comes
from ``cardlang.language.kinds.card_name`` (the one home of that rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardlang.engine.control import Option
from cardlang.engine.state import Gamestate, describe_owner
from cardlang.errors import SourceFile
from cardlang.language import types as T
from cardlang.language.kinds import card_name


def card_label(st: Gamestate, card: int | None) -> str:
    """A card by its name ("Q SPADES", "SMITHY"), or "(none)" for no card."""
    if card is None:
        return "(none)"
    return card_name(st.cards[card])


def location_label(key: tuple[int, str, str]) -> str:
    """A location: "P0.HAND(iloc)", "game.DISCARD" (a vloc needs no kind)."""
    owner, kind, name = key
    return f"{describe_owner(owner)}.{name}" + ("" if kind == "vloc" else f"({kind})")


def value_label(st: Gamestate, value: Any, type_: str) -> str:
    """A value of a variable of type ``type_``, as a person would read it."""
    if type_ == T.CARD:
        return card_label(st, value)
    if type_ == T.PLAYER:
        return f"P{value}"
    if type_ == T.TEAM:
        return f"team {value}"
    if type_ in (T.LOC, T.MEMLOC):  # a location: its name, and an open one's top card
        cards = st.zones.get(value, ())
        top = ""
        if value[1] == "vloc":
            top = f" (top {card_label(st, cards[-1])})" if cards else " (empty)"
        return location_label(value) + top
    if isinstance(value, list | tuple):
        return "[" + ", ".join(card_label(st, c) for c in value) + "]"
    return str(value)


def option_label(
    source: SourceFile, slot_types: Mapping[int, str], st: Gamestate, option: Option
) -> str:
    """ "'C=Q SPADES: move 'C (top ...)": the option's bindings, then its actions' source."""
    binds, acts = [], []
    for fn, arg in option:
        if fn is None:
            slot, value, var = arg
            type_ = slot_types.get(slot, T.ANY)
            binds.append(f"'{var}={value_label(st, value, type_)}")
        else:
            acts.append(source.snippet(arg.span))
    label = ", ".join(binds)
    text = "; ".join(acts)
    return f"{label}: {text}" if label else text
