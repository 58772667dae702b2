"""Facts about the AST across sections: which classes are statements
(``STATEMENT_CLASSES``: the forms a body may hold, from setup, flow and actions) and
which collection a ``(repeat all ...)`` empties (``repeat_all_source``).

Imports the section modules, and none of them imports it.
"""

from __future__ import annotations

from cardlang.language.ast.actions import (
    Call,
    CreateCards,
    Cycle,
    Forget,
    Increment,
    Move,
    Pass,
    Remember,
    Repeat,
    RepeatAll,
    SetValue,
    Shuffle,
    Swap,
    TurnPass,
)
from cardlang.language.ast.expressions import Actual, CardAt, MaxMin
from cardlang.language.ast.flow import (
    Choice,
    Do,
    ForEach,
    Guarded,
    Labeled,
    Let,
    Simultaneous,
    Stage,
    While,
)
from cardlang.language.ast.nodes import Node
from cardlang.language.ast.setup import CreateDeck, CreatePlayers, CreateTeams

STATEMENT_CLASSES: tuple[type[Node], ...] = (
    Stage,
    Do,
    Choice,
    Simultaneous,
    Guarded,
    ForEach,
    Let,
    Move,
    Remember,
    Forget,
    Shuffle,
    SetValue,
    Increment,
    Cycle,
    TurnPass,
    Repeat,
    RepeatAll,
    CreatePlayers,
    CreateTeams,
    CreateDeck,
    Swap,
    While,
    Call,
    CreateCards,
    Pass,
    Labeled,
)


def repeat_all_source(node: Node) -> Node | None:
    """The collection a (repeat all (move CARD ...)) empties: CARD's collection."""
    card = node.card if isinstance(node, Move | Forget) else None
    while isinstance(card, Actual):
        card = card.card
    if isinstance(card, CardAt | MaxMin):
        return card.collection
    return None
