"""The flow section of grammar/cardlang.lark: the statements that order, choose, loop
over and guard others: ``(stage ...)``, ``(do ...)``, ``(choice ...)``,
``(simultaneous ...)``, ``(while ...)``, ``(BOOL ACTION)``, ``(any|all ...)`` as a
statement and ``(let ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardlang.errors import Span
from cardlang.language.ast.nodes import Node


@dataclass(frozen=True, slots=True)
class Stage(Node):
    """``(stage player|team (end BOOL) BODY+)``: a loop of turns over the player or team cycle."""

    kind: str
    end: Node
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Do(Node):
    """``(do (CONDACT*))``: run in order."""

    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Choice(Node):
    """``(choice [by PLAYER] (CONDACT*))``: the current player (or PLAYER) picks one of the
    options these expand to."""

    body: tuple[Node, ...]
    chooser: Node | None = None
    situation: str | None = None
    # the text written for each condact's options with (label "TEXT" CONDACT), or None;
    # empty when no condact has one.  Only for people: nothing that plays reads it.
    labels: tuple[LabelText | None, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelText:
    """The ``"TEXT"`` of a ``(label "TEXT" CONDACT)``, kept by its choice (not a node: the
    walkers of the tree never meet it).  ``span``: where the string is, quotes included."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Labeled(Node):
    """``(label "TEXT" CONDACT)``: a condact of a choice with the text its options are shown
    by ("Buy {PILE} (${COST})"; docs/language.md).  The parser folds it into its choice
    (``Choice.labels``); one left in the tree stands anywhere else, which the checker
    reports."""

    label: LabelText
    body: Node


@dataclass(frozen=True, slots=True)
class Simultaneous(Node):
    """``(simultaneous BODY+)``: the choices BODY reaches are secret picks; their options
    run, in the order picked, once BODY is done (docs/language.md)."""

    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class While(Node):
    """``(while BOOL BODY+)``: repeat BODY while BOOL holds, checked before each pass."""

    condition: Node
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Guarded(Node):
    """``(BOOL ACTION)``: the action runs (or, in a choice, is offered) only when BOOL holds."""

    condition: Node
    body: Node


@dataclass(frozen=True, slots=True)
class ForEach(Node):
    """``(any|all COLLECTION 'V BODY)`` as a statement: fork options / run for every element."""

    quantifier: str
    collection: Node
    var: str
    body: Node


@dataclass(frozen=True, slots=True)
class Let(Node):
    """``(let VALUE 'V BODY)``: bind a local variable for BODY."""

    value: Node
    var: str
    body: Node
