"""What the checker hands on: ``CheckedGame`` (the type of every expression node, the
register slot of every variable binding, the diagnostics, the declared card kinds and
procedures) and ``Procedure`` (what is known of one (define ...)).

Pipeline position: the checker (checker.py) fills these; the compiler, the engine and the
information layer read them and never re-derive a type.  Plain data: imports only
``cardlang.errors`` and the AST.  Import them from ``cardlang.language.checker``, which
re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardlang.errors import Diagnostic, SourceFile
from cardlang.language import ast
from cardlang.language import types as T


@dataclass
class Procedure:
    """What the checker knows of a (define ...): its parameters' slots and types, the
    registers its bodies use (``slots``: a contiguous range, saved around a recursive
    call), and the card kinds that give their own body."""

    node: ast.Define
    param_slots: tuple[int, ...]
    param_types: tuple[str, ...]
    slots: tuple[int, int] = (0, 0)
    hooks: dict[str, ast.KindHook] = field(default_factory=dict)
    calls: set[str] = field(default_factory=set)  # procedures its bodies call
    has_decision: bool = False
    recursive: bool = False


@dataclass
class Presentation:
    """What a table shows people, from the presentation forms (checker_presentation.py);
    empty where a game writes none.  Nothing that plays reads it."""

    displays: dict[tuple[str, str], str] = field(default_factory=dict)  # (kind, name) -> text
    bookkeeping: set[tuple[str, str]] = field(default_factory=set)  # (kind, name), never shown
    face_down: set[tuple[str, str]] = field(default_factory=set)  # (kind, name): piles, no faces
    hand_order: tuple[str, ...] = ()  # attributes a hand is sorted by, in turn
    value_orders: dict[str, tuple[str, ...]] = field(default_factory=dict)  # as decks list them
    card_texts: dict[str, str] = field(default_factory=dict)  # card kind -> its (text ...)
    table_score_text: str | None = None  # what the table score is called ("VP")
    table_score: ast.Node | None = None  # its expression ((current player) bound)
    end_reasons: tuple[tuple[str, ast.Node], ...] = ()  # (text, condition), the first holding
    score_parts: tuple[tuple[str, ast.Node], ...] = ()  # (text, value per seat) at the end
    card_badge: str | None = None  # (card-badge "TEXT"): a corner of every card
    card_colours: tuple[str, tuple[tuple[str, str], ...]] | None = None  # (attribute, pairs)
    # (kind, name) -> {value as written: its text} ((display-values ...))
    value_texts: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    during_turn: set[tuple[str, str]] = field(default_factory=set)  # (kind, name)
    round_number: tuple[str, str, str, int] | None = None  # (kind, name, text, offset)

    def ending_nodes(self) -> list[ast.Node]:
        """What a game tells at its end, in the order both engines evaluate it
        (``ending_values``): the end reasons' conditions, then the score parts."""
        return [node for _, node in self.end_reasons] + [node for _, node in self.score_parts]


@dataclass
class CheckedGame:
    game: ast.Game
    source: SourceFile
    types: dict[int, str] = field(default_factory=dict)
    slots: dict[int, int] = field(default_factory=dict)
    declares: dict[int, ast.Declare] = field(default_factory=dict)
    # Declared values (integers, strings, booleans, string lists) are evaluated once, at
    # the start of a game, into these registers; declared locations and collections are
    # names for their expression and are evaluated where they are used.
    declare_slots: dict[int, int] = field(default_factory=dict)
    n_slots: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    deck_attributes: dict[str, set[str]] = field(default_factory=dict)
    slot_types: dict[int, str] = field(default_factory=dict)
    element_slots: set[int] = field(default_factory=set)  # bound to elements: never None
    # attributes every card of every deck has (None until a deck is seen)
    universal_attributes: set[str] | None = None
    procedures: dict[str, Procedure] = field(default_factory=dict)
    kinds: dict[str, ast.CardKind] = field(default_factory=dict)
    kind_attribute_types: dict[str, str] = field(default_factory=dict)
    situations: dict[str, str] = field(default_factory=dict)  # name -> text
    presentation: Presentation = field(default_factory=Presentation)

    def type_of(self, node: ast.Node) -> str:
        return self.types.get(id(node), T.ANY)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]
