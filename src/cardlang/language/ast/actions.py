"""The actions section of grammar/cardlang.lark: the statements that change the game
(``move``, ``remember``, ``forget``, ``shuffle``, ``set``, ``inc``/``dec``, ``cycle``,
``turn pass``, ``repeat``, ``swap``, ``call``, ``pass``, ``create cards``) and the point
maps that ``(set (OWNER points NAME) ...)`` stores (``Awards``).

``call``, ``pass`` and ``create cards`` are actions in the grammar; the setup section's
``create`` statements are in ``setup``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.language.ast.nodes import Node


@dataclass(frozen=True, slots=True)
class Move(Node):
    """``(move CARD (top|bottom|N LOCATION))``: move a real card."""

    card: Node
    dest: Node


@dataclass(frozen=True, slots=True)
class Remember(Node):
    """``(remember CARD (top|bottom|N MEM-LOCATION))``: store a reference to a card."""

    card: Node
    dest: Node


@dataclass(frozen=True, slots=True)
class Forget(Node):
    """``(forget (top|bottom|N MEM-LOCATION))``: drop a reference from a mem location."""

    card: Node


@dataclass(frozen=True, slots=True)
class Shuffle(Node):
    """``(shuffle LOCATION)``."""

    location: Node


@dataclass(frozen=True, slots=True)
class SetValue(Node):
    """``(set STORAGE VALUE)`` for sto (integer), str (string) and points (a point map)."""

    target: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Increment(Node):
    """``(inc STORAGE INT)`` and ``(dec STORAGE INT)`` (``sign`` is +1 or -1)."""

    target: Node
    amount: Node
    sign: int


@dataclass(frozen=True, slots=True)
class Cycle(Node):
    """``(cycle next|current next|current|previous|PLAYER)``."""

    mode: str
    target: Node | str


@dataclass(frozen=True, slots=True)
class TurnPass(Node):
    """``(turn pass)``: an option that does nothing."""


@dataclass(frozen=True, slots=True)
class Repeat(Node):
    """``(repeat INT ACTION)``."""

    count: Node
    body: Node


@dataclass(frozen=True, slots=True)
class RepeatAll(Node):
    """``(repeat all (move|forget ...))``: repeat while the source holds cards."""

    body: Node


@dataclass(frozen=True, slots=True)
class Swap(Node):
    """``(swap CARD CARD)``: the two cards exchange places (later RECYCLE)."""

    first: Node
    second: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """``(call PROCEDURE ARG ...)``: runs a procedure; when its first parameter is a card
    whose kind has its own body for it, that body."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Pass(Node):
    """``(pass)``: does nothing (a choice's option to decline)."""


@dataclass(frozen=True, slots=True)
class CreateCards(Node):
    """``(create cards LOCATION KIND COUNT)``: COUNT new cards of a declared kind."""

    location: Node
    kind: Node
    count: Node


# ---------------------------------------------------------------- point maps


@dataclass(frozen=True, slots=True)
class AwardCondition(Node):
    """``(KEY : VALUE)`` inside an award."""

    key: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Award(Node):
    """``((KEY : VALUE) ... INT)``: points for a card that matches every condition."""

    conditions: tuple[AwardCondition, ...]
    points: Node


@dataclass(frozen=True, slots=True)
class Awards(Node):
    """``(AWARD+)``: the value of a point map."""

    awards: tuple[Award, ...]
