"""The rest of the expressions section of grammar/cardlang.lark: integers, strings, the
card-kind forms (``attr``, ``total``, ``contains``, ``others``), the route-map forms
(``connects``, ``longest-path``), the conditional ``if`` and booleans.  Atoms, cards,
locations, owners and collections are in ``expressions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.language.ast.expressions import NameLiteral
from cardlang.language.ast.nodes import Node

# ---------------------------------------------------------------- expressions: integers


@dataclass(frozen=True, slots=True)
class Random(Node):
    """``(random N)`` (0..N) or ``(random A .. B)``, inclusive, from the game's RNG."""

    low: Node | None
    high: Node


@dataclass(frozen=True, slots=True)
class Arith(Node):
    """``(+|-|*|//|%|^ A B)``; ``(+ A B C ...)`` and ``(* ...)`` are folded into pairs.

    ``extra`` holds operands beyond two of the other operators (an error).
    """

    op: str
    left: Node
    right: Node
    extra: tuple[Node, ...] = ()


def written_operands(n: Arith) -> list[Node]:
    """The operands of the form as written: the parser folds ``(+ A B C)`` into
    ``(+ (+ A B) C)``, each fold spanning the whole form, and the engines check the
    exact result of the whole form, not of each fold (docs/language.md, "Integers")."""
    operands = [n.right]
    while isinstance(n.left, Arith) and n.left.op == n.op and n.left.span == n.span:
        n = n.left
        operands.append(n.right)
    operands.append(n.left)
    return operands[::-1]


@dataclass(frozen=True, slots=True)
class UnaryInt(Node):
    """``(tri N)`` (triangular number) or ``(fib N)`` (Fibonacci number)."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True)
class ScoreExtreme(Node):
    """``(scoremax|scoremin COLLECTION using POINTS)``: -1 / 2147483647 when empty."""

    mode: str
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Size(Node):
    """``(size COLLECTION)``."""

    collection: Node


@dataclass(frozen=True, slots=True)
class Sum(Node):
    """``(sum COLLECTION using POINTS)``."""

    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Score(Node):
    """``(score CARD using POINTS)``."""

    card: Node
    points: Node


# ---------------------------------------------------------------- expressions: strings


@dataclass(frozen=True, slots=True)
class CardAtt(Node):
    """``(cardatt KEY CARD)``: "" when the card is missing or has no such attribute."""

    key: Node
    card: Node


# ---------------------------------------------------------------- expressions: card kinds


@dataclass(frozen=True, slots=True)
class Attr(Node):
    """``(attr NAME CARD)``: a card kind's attribute, typed by its declaration."""

    name: str
    card: Node


@dataclass(frozen=True, slots=True)
class Total(Node):
    """``(total ATTRIBUTE COLLECTION)``: the sum of a kind's integer attribute over cards."""

    name: str
    collection: Node


@dataclass(frozen=True, slots=True)
class Contains(Node):
    """``(contains LIST STRING)``: whether the list of names holds the name."""

    items: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Others(Node):
    """``(others PLAYER)``: the other players in turn order, from the one after PLAYER."""

    player: Node


# ---------------------------------------------------------------- expressions: route maps
# Each card of the collection is an undirected edge between the values of two name
# attributes.  The attribute names are NameLiterals (not plain strings, as in Total) so
# that the checker can point at a misspelt one.


@dataclass(frozen=True, slots=True)
class Connects(Node):
    """``(connects COLLECTION FROM-ATTR TO-ATTR X Y)``: whether the cards join X and Y."""

    collection: Node
    source: NameLiteral
    target: NameLiteral
    x: Node
    y: Node


@dataclass(frozen=True, slots=True)
class LongestPath(Node):
    """``(longest-path COLLECTION FROM-ATTR TO-ATTR LENGTH-ATTR)``: the greatest total
    LENGTH-ATTR of a trail (each card at most once) through the cards."""

    collection: Node
    source: NameLiteral
    target: NameLiteral
    length: NameLiteral


# ---------------------------------------------------------------- expressions: booleans


@dataclass(frozen=True, slots=True)
class If(Node):
    """``(if BOOL A B)``: A when BOOL holds, else B."""

    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """``(< > <= >= == != A B)``: integers; == and != also strings, cards, players, teams."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    """``(and|or B B+)``, short-circuit."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not(Node):
    """``(not B)``."""

    operand: Node
