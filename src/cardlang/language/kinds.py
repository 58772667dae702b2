"""What a card is called: the one home of the rule, for every layer above.

A card's attributes are a dict.  Games with card kinds (Dominion) give every card the
attribute ``KIND`` (its kind's name); a named deck (``(create deck NAME ...)``) gives its
cards ``DECK``.  Two names, deliberately different, both defined here and nowhere else:

- a card's *type* (``card_type``) is what it is, for counting: views, knowledge,
  encodings and action keys.  Its KIND where it has one, else its attribute values in
  the order of the deck's description ("A SPADES"), without the deck's name: two decks'
  Aces of Spades are one type.
- a card's *name* (``card_name``) tells one card apart for people and in event logs
  (decisions, transcripts): its KIND, else every attribute value, the deck's name
  included ("A SPADES RED").  Event logs are pinned byte for byte, so this stays.

Pipeline position: in the language layer, below every stage that names a card (the
checker and statics here; the engine, the compilers, the views and the agents above).
Imports nothing of cardlang's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The attribute that holds a card's kind (games with ``(card NAME ...)`` kinds).
KIND_ATTRIBUTE = "KIND"
#: The attribute a named deck gives its cards.
DECK_ATTRIBUTE = "DECK"


def card_type(attrs: Mapping[str, Any]) -> str:
    """The type of a card: its KIND, else its attribute values but the deck's name."""
    kind = attrs.get(KIND_ATTRIBUTE)
    if kind is not None:
        return str(kind)
    return " ".join(str(v) for k, v in attrs.items() if k != DECK_ATTRIBUTE)


def card_name(attrs: Mapping[str, Any]) -> str:
    """The name of a card: its KIND, else every attribute value, the deck's name too."""
    kind = attrs.get(KIND_ATTRIBUTE)
    if kind is not None:
        return str(kind)
    return " ".join(str(v) for v in attrs.values())
