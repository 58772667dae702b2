"""The shared base of the checker's rules: the state one check carries (the result being
filled, the scope, the choice and expression depth, the names read and written), the
reporting (``error``, ``warning``, ``expect``), variable binding, the helpers both
statement and expression rules use, and the wording of types in messages.

Pipeline position: language layer, under the rules.  ``RuleBase`` is inherited by the
statement rules (checker_statements.py), the expression rules (checker_expressions.py)
and, through them, by ``Checker`` (checker.py); it declares ``stmt`` and ``expr``, which
those rule modules define, so that each can call the other without importing it.
Imports only ``cardlang.errors`` and other language modules.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from cardlang.errors import Diagnostic, SourceFile
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checked_game import CheckedGame, Procedure

#: How deeply value forms may nest in one expression.  The compilers turn an expression
#: into one Python expression, which Python's parser limits to 200 nested parentheses:
#: a form costs up to 6 of them, one more operand of an n-ary (+ ...) or (* ...) costs 1.
#: Written games stay far below (the corpus nests 11 forms deep).
PAREN_BUDGET = 180
FORM_COST = 6
MAX_EXPR_DEPTH = PAREN_BUDGET // FORM_COST
#: How many (any ...) may nest in one choice: each is a loop in the compiled option
#: lister, and Python allows 20 nested blocks in a function.
MAX_CHOICE_ANYS = 16


@dataclass
class Binding:
    """What a name stands for: its type and register, or the constant it declares."""

    type: str
    slot: int  # register slot; -1 for a declared constant (compiled inline)
    span: ast.Span
    declare: ast.Declare | None = None


class Scope:
    """The names bound where a node is checked: its own, then its parent's."""

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Binding] = {}

    def lookup(self, name: str) -> Binding | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def visible(self) -> Iterator[str]:
        scope: Scope | None = self
        while scope is not None:
            yield from scope.names
            scope = scope.parent


class RuleBase:
    """What every checker rule may use; ``Checker`` (checker.py) is the whole."""

    def __init__(self, game: ast.Game, source: SourceFile) -> None:
        self.out = CheckedGame(game, source)
        self.nplayers: int | None = None  # known once (create players N) is checked
        self.scope = Scope()
        self.in_choice = 0
        self.expr_cost = 0  # how deep in one expression the checker is, in parentheses
        self.folded = 0  # id of the next operand of an n-ary (+ ...) folded into pairs
        self.long_sum: ast.Arith | None = None  # the outermost n-ary (+ ...) being checked
        self.choice_anys = 0  # (any ...) around the statement being checked, in a choice
        self.too_deep = False  # reported "nested too deeply" for the current expression
        # location and storage names, for "never filled" / did-you-mean diagnostics
        self.loc_written: dict[str, set[str]] = defaultdict(set)  # name -> kinds
        self.loc_read: list[tuple[str, str, ast.Span]] = []
        self.sto_written: dict[str, set[str]] = defaultdict(set)
        self.sto_read: list[tuple[str, str, ast.Span]] = []
        # ("loc" or "sto", name, kind) -> where it is first written (for "never read")
        self.first_writes: dict[tuple[str, str, str], ast.Span] = {}
        self.dynamic_names = False  # a location named at run time: skip location checks
        self.dynamic_storages = False  # likewise for storages
        self.att_uses: list[tuple[str, ast.Span]] = []
        self.value_uses: list[tuple[str, str, ast.Span]] = []  # key, literal, span
        self.end_uses: list[tuple[str, ast.Span]] = []  # route ends: (connects ...) ...
        self.procedure: Procedure | None = None  # the procedure whose body is being checked
        self.label_uses: list[tuple[ast.LabelText, ast.Node]] = []  # (label, its condact)

    # ------------------------------------------------------------ reporting
    def error(self, span: ast.Span, message: str, hint: str | None = None) -> None:
        self.out.diagnostics.append(Diagnostic("error", message, span, hint))

    def warning(self, span: ast.Span, message: str, hint: str | None = None) -> None:
        self.out.diagnostics.append(Diagnostic("warning", message, span, hint))

    def expect(self, node: ast.Node, wanted: str | tuple[str, ...], what: str = "") -> str:
        """Check ``node`` and report unless its type is (a sub-type of) one of ``wanted``."""
        got = self.expr(node)
        options = (wanted,) if isinstance(wanted, str) else wanted
        if any(T.is_a(got, w) for w in options):
            return got
        names = " or ".join(article(w) for w in options)
        where = f" {what}" if what else ""
        self.error(
            node.span,
            f"expected {names}{where}, got {article(got)}",
            hint=conversion_hint(got, options),
        )
        return T.ANY

    # ------------------------------------------------------------ dispatch
    def stmt(self, node: ast.Node) -> None:
        """Check a statement (defined by the statement rules)."""
        raise NotImplementedError

    def expr(self, node: ast.Node) -> str:
        """Check an expression and give its type (defined by the expression rules)."""
        raise NotImplementedError

    # ------------------------------------------------------------ scopes
    def _bind(
        self, name: str, type_: str, span: ast.Span, declare: ast.Declare | None = None
    ) -> Binding:
        slot = -1 if declare is not None else self.out.n_slots
        if declare is None:
            self.out.slot_types[slot] = type_
            self.out.n_slots += 1
        binding = Binding(type_, slot, span, declare)
        self.scope.names[name] = binding
        return binding

    def _with_var(self, node: ast.Node, name: str, type_: str) -> Scope:
        outer = self.scope
        self.scope = Scope(outer)
        slot = self._bind(name, type_, node.span).slot
        self.out.slots[id(node)] = slot
        if isinstance(node, ast.ForEach | ast.Filter | ast.Aggregate):
            self.out.element_slots.add(slot)
        return outer

    # ------------------------------------------------------------ shared helpers
    def _element(self, coll: ast.Node) -> str:
        t = self.expr(coll)
        if isinstance(coll, ast.Location) and isinstance(coll.name, ast.NameLiteral):
            self.loc_read.append((coll.name.value, coll.kind, coll.name.span))  # iterated
        if t == T.ANY:
            return T.ANY
        elem = T.ELEMENT.get(t)
        if elem is None:
            self.error(coll.span, f"expected a collection, got {article(t)}")
            return T.ANY
        return elem

    def _awards(self, n: ast.Awards) -> None:
        for award in n.awards:
            for cond in award.conditions:
                self.expect(cond.key, T.STR, "as an attribute name")
                self.expect(cond.value, T.STR, "as an attribute value")
                if isinstance(cond.key, ast.NameLiteral):
                    self.att_uses.append((cond.key.value, cond.key.span))
                    if isinstance(cond.value, ast.NameLiteral):
                        self.value_uses.append((cond.key.value, cond.value.value, cond.value.span))
            self.expect(award.points, T.INT, "as the points of an award")


def article(t: str) -> str:
    """'an integer', 'a card', but 'the game'."""
    return t if t.startswith("the ") else T.article(t)


def form_name(node: ast.Node) -> str:
    return type(node).__name__


def conversion_hint(got: str, wanted: tuple[str, ...]) -> str | None:
    """How to get one of the ``wanted`` types from a value of type ``got``, when obvious."""
    if T.BOOL in wanted and T.read_type(got) == T.INT:
        return "an integer is not a condition: compare it, e.g. (> ... 0)"
    if T.INT in wanted and got == T.CARD:
        return "a card is not a number: use (score CARD using POINTS) or (size COLLECTION)"
    if T.INT in wanted and got in T.CARD_COLLECTIONS:
        return "to count cards use (size ...)"
    if T.CARD in wanted and got in T.CARD_COLLECTIONS:
        return "take one card of it: (top ...), (bottom ...) or (N ...)"
    return None
