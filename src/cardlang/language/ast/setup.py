"""The setup section of grammar/cardlang.lark (the game's own forms are in ``game``):
``(setup ...)`` and what it holds, ``(create players N)``, ``(create teams ...)`` and
``(create deck ...)`` with its ``(deck ...)`` description.

The create statements may also appear later in the game (see ``STATEMENT_CLASSES``).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.language.ast.nodes import Node


@dataclass(frozen=True, slots=True)
class Setup(Node):
    """``(setup (create players N) [(create teams ...)] (create deck ...) ...)``."""

    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class CreatePlayers(Node):
    """``(create players N)``."""

    count: Node


@dataclass(frozen=True, slots=True)
class CreateTeams(Node):
    """``(create teams (0, 2) (1, 3))``: players not named get a team of their own."""

    teams: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Attribute(Node):
    """One level of a deck description: ``(RANK (A, TWO))`` or ``(RED (SUIT (HEARTS)))``."""

    names: tuple[str, ...]
    children: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class Deck(Node):
    """``(deck (KEY (V1, V2)) (KEY2 (V (SUBKEY (...)))) ...)``: the cartesian product."""

    attributes: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class CreateDeck(Node):
    """``(create deck [NAME] LOCATION (deck ...))``."""

    name: Node | None
    location: Node
    deck: Node
