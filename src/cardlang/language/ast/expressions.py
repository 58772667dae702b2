"""The first part of the expressions section of grammar/cardlang.lark: atoms (literals,
variables, ``game``, ``player``/``team``), cards, locations and storages, owners, and
collections.  Integers, strings, card-kind attributes and booleans are in ``scalars``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.language.ast.nodes import Node

# ---------------------------------------------------------------- expressions: atoms


@dataclass(frozen=True, slots=True)
class IntLiteral(Node):
    """``42``."""

    value: int


@dataclass(frozen=True, slots=True)
class NameLiteral(Node):
    """``HEARTS``: a string."""

    value: str


@dataclass(frozen=True, slots=True)
class Variable(Node):
    """``'NAME``."""

    name: str


@dataclass(frozen=True, slots=True)
class GameOwner(Node):
    """``game``: the owner of shared locations and storages."""


@dataclass(frozen=True, slots=True)
class AllOfKind(Node):
    """``player`` or ``team``: the collection of all players or all teams."""

    kind: str


# ---------------------------------------------------------------- expressions: cards


@dataclass(frozen=True, slots=True)
class CardAt(Node):
    """``(top|bottom COLLECTION)``; ``(N COLLECTION)`` has ``position`` = the index node."""

    position: str | Node
    collection: Node


@dataclass(frozen=True, slots=True)
class TopN(Node):
    """``(top|bottom N COLLECTION)``: the N cards at that end."""

    end: str
    count: Node
    collection: Node


@dataclass(frozen=True, slots=True)
class MaxMin(Node):
    """``(max|min COLLECTION using POINTS)``: ties broken uniformly by the game's RNG."""

    mode: str
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Actual(Node):
    """``(actual CARD)``: the real card behind a reference (cards are never copied here)."""

    card: Node


# ---------------------------------------------------------------- expressions: locations


@dataclass(frozen=True, slots=True)
class Location(Node):
    """``(OWNER vloc|iloc|hloc|mem NAME [INDEX])``."""

    owner: Node
    kind: str
    name: Node
    index: Node | None = None


@dataclass(frozen=True, slots=True)
class IndexedLocations(Node):
    """``(indexed OWNER KIND NAME)``: the locations NAME 0, NAME 1, ... (later RECYCLE)."""

    owner: Node
    kind: str
    name: Node


@dataclass(frozen=True, slots=True)
class Storage(Node):
    """``(OWNER sto|str|points NAME)``: integer, string or point-map storage."""

    owner: Node
    kind: str
    name: Node


# ---------------------------------------------------------------- expressions: owners


@dataclass(frozen=True, slots=True)
class PlayerRef(Node):
    """``(current|next|previous player)``, or ``(N player)`` with ``which`` the index node."""

    which: str | Node


@dataclass(frozen=True, slots=True)
class TeamRef(Node):
    """``(current|next|previous team)``, or ``(N team)``."""

    which: str | Node


@dataclass(frozen=True, slots=True)
class OwnerOf(Node):
    """``(owner CARD)``: the player who owns the card's location."""

    card: Node


@dataclass(frozen=True, slots=True)
class PlayerId(Node):
    """``(pid PLAYER)``: the player's seat number (later RECYCLE)."""

    player: Node


@dataclass(frozen=True, slots=True)
class TeamId(Node):
    """``(tid TEAM)``: the team's number (later RECYCLE)."""

    team: Node


@dataclass(frozen=True, slots=True)
class TeamOf(Node):
    """``(team PLAYER)``."""

    player: Node


@dataclass(frozen=True, slots=True)
class Other(Node):
    """``(other player|team)``: every player (team) but the current one."""

    kind: str


# ---------------------------------------------------------------- expressions: collections


@dataclass(frozen=True, slots=True)
class SetOp(Node):
    """``(union|intersect|disjunction COLLECTION+)``."""

    op: str
    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Filter(Node):
    """``(filter COLLECTION 'V BOOL)``."""

    collection: Node
    var: str
    condition: Node


@dataclass(frozen=True, slots=True)
class Sort(Node):
    """``(sort COLLECTION using POINTS)``: ascending score, bottom to top."""

    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class RunEnd(Node):
    """``(run top|bottom N COLLECTION using POINTS)``: the longest run at that end."""

    end: str
    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Runs(Node):
    """``(runs largest|all N COLLECTION using POINTS)``: runs of consecutive scores."""

    mode: str
    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Tuples(Node):
    """``(tuples N COLLECTION using POINTS)``: groups of N cards of equal score."""

    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Subsets(Node):
    """``(subsets COLLECTION)``: every subset (capped, see docs/language.md)."""

    collection: Node


@dataclass(frozen=True, slots=True)
class Partition(Node):
    """``(partition KEY COLLECTION+)``: the cards grouped by the value of KEY."""

    key: Node
    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Aggregate(Node):
    """``(any|all COLLECTION 'V EXPR)`` as an expression.

    With a boolean EXPR it is a quantifier; with a card collection EXPR (inside union,
    partition ...) ``all`` gathers one collection per element.
    """

    quantifier: str
    collection: Node
    var: str
    body: Node


@dataclass(frozen=True, slots=True)
class StrList(Node):
    """``(A, B, C)``: a list of strings."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Range(Node):
    """``(range A .. B)``: the integers from A to B inclusive."""

    low: Node
    high: Node
