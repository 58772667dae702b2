"""The top of the setup section of grammar/cardlang.lark: the ``(game ...)`` root and its
declarations, ``(declare ...)`` constants, ``(define ...)`` procedures and their
parameters, ``(card-kind ...)`` with its attributes and hooks, ``(situation ...)``, and
the final ``(scoring ...)``.

None of these is itself a statement or an expression; the checker reads them off
``Game`` before it checks the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.language.ast.expressions import NameLiteral
from cardlang.language.ast.nodes import Node
from cardlang.language.ast.setup import Setup


@dataclass(frozen=True, slots=True)
class Declare(Node):
    """``(declare VALUE 'VAR [ALLOWED])``: a program constant; ALLOWED (a range or a
    list of names) is what ``--param`` may set it to."""

    value: Node
    var: str
    allowed: Node | None = None


@dataclass(frozen=True, slots=True)
class Scoring(Node):
    """``(scoring min|max INT [min|max INT]...)``: evaluated per seat with (current player)
    bound to it; each later pair breaks ties left by the ones before."""

    mode: str
    value: Node
    tiebreaks: tuple[tuple[str, Node], ...] = ()


@dataclass(frozen=True, slots=True)
class Param(Node):
    """``(TYPE 'VAR)``: a procedure's parameter; TYPE is player, team, card, integer,
    string, location or cards."""

    type: str
    var: str


@dataclass(frozen=True, slots=True)
class Define(Node):
    """``(define NAME ((TYPE 'VAR) ...) BODY*)``: a procedure, run by ``(call NAME ...)``.
    When its first parameter is a card, a card kind may give its own body (kind hooks)."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class KindAttribute(Node):
    """``(NAME VALUE)`` in a card kind: VALUE is an integer, a name or a list of names."""

    name: str
    value: int | str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KindHook(Node):
    """``(on PROCEDURE BODY+)``: this kind's body for a procedure whose first parameter is
    a card."""

    procedure: str
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class KindText(Node):
    """``(text "TEXT")`` in a card kind: what the card says, for people."""

    text: str


@dataclass(frozen=True, slots=True)
class CardKind(Node):
    """``(card-kind NAME (ATTRIBUTE VALUE)* (on PROCEDURE BODY+)* (text "TEXT")?)``."""

    name: str
    attributes: tuple[KindAttribute, ...]
    hooks: tuple[KindHook, ...]
    texts: tuple[KindText, ...] = ()  # (text "TEXT"): one at most (the checker says so)


@dataclass(frozen=True, slots=True)
class Situation(Node):
    """``(situation NAME "text")``: what the decisions named NAME are about, for people."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Choose(Node):
    """``(choose COUNT NAMES)`` in a ``(parameter-values ...)``: COUNT distinct names of
    NAMES (COUNT an integer or a range; NAMES a literal list or a declared one)."""

    count: Node
    names: Node


@dataclass(frozen=True, slots=True)
class ParameterValues(Node):
    """``(parameter-values 'VAR "TEXT" (choose COUNT NAMES)+)``: what ``--param`` may set
    the name or list of names VAR to, one (choose ...) or another; TEXT in words."""

    var: str
    text: str
    choices: tuple[Choose, ...]


@dataclass(frozen=True, slots=True)
class Display(Node):
    """``(display KIND NAME "TEXT")``: a location's or storage's name for people."""

    kind: str
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Bookkeeping(Node):
    """``(bookkeeping KIND NAME+)``: locations or storages a table never shows."""

    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FaceDown(Node):
    """``(face-down KIND NAME+)``: locations a table draws face down, with their size."""

    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HandOrder(Node):
    """``(hand-order KEY+)``: the attributes a hand's cards are sorted by."""

    keys: tuple[NameLiteral, ...]


@dataclass(frozen=True, slots=True)
class TableScore(Node):
    """``(table-score "TEXT" EXPR)``: each player's score while playing, for people."""

    text: str
    value: Node


@dataclass(frozen=True, slots=True)
class EndReason(Node):
    """``(end-reason "TEXT" CONDITION)``: why the game ended, where CONDITION holds."""

    text: str
    value: Node


@dataclass(frozen=True, slots=True)
class ScorePart(Node):
    """``(score-part "TEXT" EXPR)``: a line of each player's score breakdown at the end."""

    text: str
    value: Node


@dataclass(frozen=True, slots=True)
class CardBadge(Node):
    """``(card-badge "TEXT")``: a corner of every card, with {ATTRIBUTE} placeholders."""

    text: str


@dataclass(frozen=True, slots=True)
class ColourPair(Node):
    """``(VALUE "COLOUR")`` in a ``(card-colour ...)``."""

    value: str
    colour: str


@dataclass(frozen=True, slots=True)
class CardColour(Node):
    """``(card-colour ATTRIBUTE (VALUE "COLOUR")+)``: cards coloured by an attribute."""

    attribute: NameLiteral
    pairs: tuple[ColourPair, ...]


@dataclass(frozen=True, slots=True)
class ValueText(Node):
    """``(VALUE "TEXT")`` in a ``(display-values ...)``."""

    value: str
    text: str


@dataclass(frozen=True, slots=True)
class DisplayValues(Node):
    """``(display-values KIND NAME (VALUE "TEXT")+)``: a storage's values for people."""

    kind: str
    name: str
    values: tuple[ValueText, ...]


@dataclass(frozen=True, slots=True)
class DuringTurn(Node):
    """``(during-turn KIND NAME+)``: storages shown only during their owner's turn."""

    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundNumber(Node):
    """``(round-number KIND NAME "TEXT" [OFFSET])``: how a table numbers rounds."""

    kind: str
    name: str
    text: str
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Presentation(Node):
    """The game's presentation forms together (none of them plays)."""

    displays: tuple[Display, ...] = ()
    bookkeeping: tuple[Bookkeeping, ...] = ()
    face_down: tuple[FaceDown, ...] = ()
    hand_order: tuple[HandOrder, ...] = ()
    table_score: tuple[TableScore, ...] = ()
    end_reasons: tuple[EndReason, ...] = ()
    score_parts: tuple[ScorePart, ...] = ()
    card_badge: tuple[CardBadge, ...] = ()
    card_colour: tuple[CardColour, ...] = ()
    display_values: tuple[DisplayValues, ...] = ()
    during_turn: tuple[DuringTurn, ...] = ()
    round_number: tuple[RoundNumber, ...] = ()


@dataclass(frozen=True, slots=True)
class Game(Node):
    """``(game (declare|define|card-kind|situation ...)* (setup ...) FLOW+ (scoring ...))``."""

    declares: tuple[Declare, ...]
    setup: Setup
    body: tuple[Node, ...]
    scoring: Scoring
    procedures: tuple[Define, ...] = ()
    kinds: tuple[CardKind, ...] = ()
    situations: tuple[Situation, ...] = ()
    presentation: Presentation | None = None
    parameter_values: tuple[ParameterValues, ...] = ()
