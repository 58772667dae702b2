"""A checked game lowered to the native engine's intermediate form (the IR).

Pipeline position: compiler, beside the Python code generators (expressions.py,
statements.py), from the same checked AST; cardlang.engine.native hands the IR to the C++
VM (native/src/), which runs it.  Nothing here imports the extension: the IR is plain
Python data (lists of integers and strings), so it can be built, inspected and tested
without a compiler.

The form, one table per kind of thing, everything numbered:

- ``strings``: every name the game uses (location, storage, attribute and card kind
  names, situations, messages and the source snippets of option labels); a string is
  its index.  The VM adds the names it makes at run time (``NAME#3``) after these.
- ``nodes``: one record per expression or statement of the AST, ``(op, type, span,
  flags, p0, p1, p2, p3, *kids)``: ``op`` a number of ``OPS``, ``type`` one of ``TYPES``
  (what the checker inferred), ``span`` an index into ``spans``, ``flags`` (bit 0: the
  statement can reach a decision; bit 1: an expression that reads no state, only
  variables), four integer parameters whose meaning depends on the op (see ``_Lowering``
  where each op is made), and the children's node numbers.  Variables are resolved to
  register slots, declared constants to their expression or register, storages and
  locations to their parts.
- ``lists``: integer lists the nodes refer to (string lists, teams, deck descriptions).
- ``values``: typed constants ``(tag, value)``: tag 0 an integer, 1 a string, 2 a
  string list (an index into ``lists``); card kind attributes are made of them.
- ``kinds``: per card kind, its attributes in order (``[(name, value)]``), KIND first.
- ``decks``: per deck description, its cards, each a list of (name, value) string pairs.
- ``procedures``: per procedure, its parameter slots, its register range, whether it is
  recursive or reaches a decision, its default body and its kinds' own bodies.
- the program: the setup statements, the body, the scoring and its tie-breaks.

The VM implements the semantics the Python engine defines; where the Python engine
generates specialised code (chain listers, hoisting, unrolling), the IR keeps the plain
form and the VM runs it with the same observable behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardlang.compiler.choices import is_pure
from cardlang.engine.control import MAX_CALL_DEPTH, MAX_OPTIONS
from cardlang.engine.runtime import MAX_OPTION_PASSES, MAX_RANGE, MAX_REPEAT
from cardlang.errors import Span
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast.scalars import written_operands
from cardlang.language.checker import (
    MAX_CARDS,
    CheckedGame,
    deck_cards,
    one_based_teams,
    reaches_decision,
    static_int,
)
from cardlang.language.kinds import KIND_ATTRIBUTE
from cardlang.language.statics import kind_attribute_tables

#: The IR's version: the VM refuses an IR of another (``_native.IR_VERSION``).
IR_VERSION = 6

#: The node kinds, in the order of the C++ enum ``Op`` (native/src/ir.h); a test checks
#: that both agree.
OPS = (
    # expressions
    "INT",  # p0 value
    "STR",  # p0 string
    "STRLIST",  # p0 list of strings
    "REG",  # p0 slot
    "GAME",
    "ALL",  # p0 0 players, 1 teams
    "CARDAT",  # p0 0 top, 1 bottom, 2 nth; p1 1 when the collection holds collections
    "TOPN",  # p0 0 top, 1 bottom; kids count, collection
    "MAXMIN",  # p0 1 max; kids collection, points
    "LOCATION",  # p0 kind; p1 1 with an index; kids owner, name[, index]
    "INDEXED",  # p0 kind; kids owner, name
    "STORAGE",  # p0 0 int, 1 str, 2 points; kids owner, name
    "PLAYER",  # p0 0 current, 1 next, 2 previous, 3 nth; kids [index]
    "TEAM",  # as PLAYER
    "OWNER",  # kids card
    "TEAMOF",  # kids player
    "OTHER",  # p0 0 players, 1 teams
    "SETOP",  # p0 0 union, 1 intersect, 2 disjunction; kids parts
    "FILTER",  # p0 slot; kids collection, condition
    "SORT",  # kids collection, points
    "RUNEND",  # p0 0 top, 1 bottom; kids count, collection, points
    "RUNS",  # p0 0 all, 1 largest; kids count, collection, points
    "TUPLES",  # kids count, collection, points
    "SUBSETS",  # kids collection
    "PARTITION",  # kids key, parts
    "AGGREGATE",  # p0 0 any, 1 all; p1 slot; kids collection, body
    "RANGE",  # kids low, high
    "RANDOM",  # kids low, high (low a literal 0 when not written)
    "ARITH",  # p0 op (ARITH_OPS); kids left, right (+ and *: all the operands of the form)
    "UNARY",  # p0 0 tri, 1 fib; kids operand
    "SCOREEXT",  # p0 1 max; kids collection, points
    "SIZE",  # kids collection
    "SUM",  # kids collection, points
    "SCORE",  # kids card, points
    "CARDATT",  # kids key, card
    "ATTR",  # p0 name; p1 default (a value); kids card
    "TOTAL",  # p0 name; kids collection
    "CONNECTS",  # p0 from name, p1 to name; kids collection, x, y
    "LONGEST",  # p0 from name, p1 to name, p2 length name; kids collection
    "CONTAINS",  # kids items, value
    "OTHERS",  # kids player
    "IF",  # kids condition, then, otherwise
    "COMPARE",  # p0 op (COMPARE_OPS); p1 1 when cards compare; kids left, right
    "AND",  # kids operands
    "OR",  # kids operands
    "NOT",  # kids operand
    "AWARDS",  # kids awards
    "AWARD",  # kids points, then (key, value) pairs
    # statements
    "MOVE",  # p0 0 top, 1 bottom, 2 nth; p1 message; kids card, location[, position]
    "REMEMBER",  # as MOVE (p1 unused)
    "FORGET",  # kids card, location
    "SHUFFLE",  # kids location
    "SET",  # p0 0 int, 1 str, 2 points; p1 1 awards; kids storage, value
    "INC",  # p0 sign; kids storage, amount
    "CYCLE",  # p0 1 next (queue), 0 current; p1 0 current, 1 next, 2 previous, 3 expr
    "PASS",
    "REPEAT",  # p0 1 when the count is a literal; kids count, body
    "REPEATALL",  # kids body, source collection
    "SWAP",  # kids first, second
    "CALL",  # p0 procedure; kids args
    "CREATECARDS",  # kids location, kind, count
    "CREATEDECK",  # p0 deck; p1 1 named; kids location[, name]
    "CREATEPLAYERS",  # p0 the count, -1 when not known before play
    "CREATETEAMS",  # p0 list of team lists
    "STORE",  # p0 slot; kids value (a declared value, at the start)
    "DO",  # kids statements
    "GUARD",  # kids condition, body
    "LET",  # p0 slot; p1 name; kids value, body
    "FOREACH",  # p0 0 any, 1 all; p1 slot; p2 name; kids collection, body
    "WHILE",  # kids condition, statements
    "STAGE",  # p0 1 team stage; kids end, statements
    "CHOICE",  # p0 situation; p1 1 with a chooser; p2 1 a secret pick; kids [chooser], condacts
    "SIMULTANEOUS",  # kids body (a DO node)
)
OP = {name: i for i, name in enumerate(OPS)}

#: The checker's types, in the order of the C++ enum ``Type``.
TYPES = (
    T.INT,
    T.BOOL,
    T.STR,
    T.CARD,
    T.LOC,
    T.MEMLOC,
    T.CARDS,
    T.CARDSS,
    T.LOCS,
    T.PLAYER,
    T.TEAM,
    T.PLAYERS,
    T.TEAMS,
    T.STRS,
    T.INTS,
    T.GAME,
    T.INTSTO,
    T.STRSTO,
    T.POINTS,
    T.DECK,
    T.AWARDS,
    T.ANY,
)
TYPE = {name: i for i, name in enumerate(TYPES)}

LOCATION_KINDS = ("vloc", "iloc", "hloc", "mem")
ARITH_OPS = ("+", "-", "*", "//", "%", "^")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")

#: flags
HAS_DECISION = 1
PURE = 2
FIXED = 4  # a statement whose options are actions alone (see _is_fixed)


@dataclass
class Procedure:
    name: int  # a string
    param_slots: list[int]
    param_types: list[int]  # TYPES: a card collection parameter takes a snapshot
    low: int
    high: int
    recursive: bool
    has_decision: bool
    default: int  # a DO node
    hooks: list[tuple[int, int]]  # (kind name, DO node)


@dataclass
class IR:
    """A game in the native engine's form (see the module docstring)."""

    nplayers: int
    n_registers: int
    version: int = IR_VERSION
    strings: list[str] = field(default_factory=list)
    nodes: list[tuple[int, ...]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    lists: list[list[int]] = field(default_factory=list)
    values: list[tuple[int, int]] = field(default_factory=list)
    kinds: list[tuple[int, list[tuple[int, int]]]] = field(default_factory=list)
    decks: list[list[list[tuple[int, int]]]] = field(default_factory=list)
    procedures: list[Procedure] = field(default_factory=list)
    setup: list[int] = field(default_factory=list)
    program: int = -1
    scoring: list[tuple[int, int]] = field(default_factory=list)  # (1 max / 0 min, node)
    table_score: int = -1  # (table-score ...)'s node, -1 for none (for people: never played)
    ending: list[int] = field(default_factory=list)  # (end-reason ...)s, then (score-part ...)s
    slot_types: list[int] = field(default_factory=list)
    # per node, its source text as an option label shows it (a string), -1 for none
    snippets: list[int] = field(default_factory=list)
    # per node, the AST node it was made from (for labels, keys and errors)
    ast_nodes: list[ast.Node] = field(default_factory=list)
    limits: dict[str, int] = field(default_factory=dict)

    def string(self, text: str) -> int:
        return self._strings_index.setdefault(text, len(self._strings_index))

    def __post_init__(self) -> None:
        self._strings_index: dict[str, int] = {}

    def finish(self) -> None:
        self.strings = list(self._strings_index)


def lower(checked: CheckedGame, nplayers: int) -> IR:
    """The IR of a checked game whose number of players is ``nplayers``."""
    return _Lowering(checked, nplayers).run()


class _Lowering:
    def __init__(self, checked: CheckedGame, nplayers: int) -> None:
        self.checked = checked
        self.source = checked.source
        self.ir = IR(nplayers=nplayers, n_registers=checked.n_slots)
        self.ir.limits = {
            "max_options": MAX_OPTIONS,
            "max_call_depth": MAX_CALL_DEPTH,
            "max_range": MAX_RANGE,
            "max_repeat": MAX_REPEAT,
            "max_option_passes": MAX_OPTION_PASSES,
            "max_cards": MAX_CARDS,
        }
        self._span_ids: dict[Span, int] = {}
        self._procedures: dict[str, int] = {}
        self._declared: dict[int, int] = {}  # id(declare) -> node of its value
        self._secret = False  # lowering the body of a (simultaneous ...) block

    # ------------------------------------------------------------ the game
    def run(self) -> IR:
        checked, ir = self.checked, self.ir
        tree = checked.game
        ir.string(KIND_ATTRIBUTE)  # string 0: the attribute a call dispatches on
        ir.slot_types = [
            TYPE.get(checked.slot_types.get(s, T.ANY), TYPE[T.ANY]) for s in range(checked.n_slots)
        ]
        for name, attrs in kind_attribute_tables(checked).items():
            ir.kinds.append(
                (ir.string(name), [(ir.string(k), self._value(v)) for k, v in attrs.items()])
            )
        for name in checked.procedures:
            self._procedure_index(name)
        for d in tree.declares:
            slot = checked.declare_slots.get(id(d))
            if slot is not None:
                value = self.expr(d.value)
                ir.setup.append(self._node("STORE", d, T.ANY, p0=slot, kids=[value]))
        ir.setup.extend(self.stmt(s) for s in tree.setup.body)
        ir.program = self._do(tree.body, tree.span)
        modes = [tree.scoring.mode] + [mode for mode, _ in tree.scoring.tiebreaks]
        values = [tree.scoring.value] + [node for _, node in tree.scoring.tiebreaks]
        ir.scoring = [
            (1 if m == "max" else 0, self.expr(v)) for m, v in zip(modes, values, strict=True)
        ]
        shown = self.checked.presentation.table_score
        ir.table_score = -1 if shown is None else self.expr(shown)
        ir.ending = [self.expr(node) for node in self.checked.presentation.ending_nodes()]
        ir.finish()
        return ir

    def _procedure_index(self, name: str) -> int:
        found = self._procedures.get(name)
        if found is not None:
            return found
        info = self.checked.procedures[name]
        index = self._procedures[name] = len(self.ir.procedures)
        proc = Procedure(
            name=self.ir.string(name),
            param_slots=list(info.param_slots),
            param_types=[TYPE.get(t, TYPE[T.ANY]) for t in info.param_types],
            low=info.slots[0],
            high=info.slots[1],
            recursive=info.recursive,
            has_decision=info.has_decision,
            default=-1,
            hooks=[],
        )
        self.ir.procedures.append(proc)
        proc.default = self._do(info.node.body, info.node.span)
        proc.hooks = [
            (self.ir.string(kind), self._do(hook.body, hook.span))
            for kind, hook in info.hooks.items()
        ]
        return index

    # ------------------------------------------------------------ tables
    def _span(self, span: Span) -> int:
        found = self._span_ids.get(span)
        if found is None:
            found = self._span_ids[span] = len(self.ir.spans)
            self.ir.spans.append(span)
        return found

    def _list(self, items: list[int]) -> int:
        self.ir.lists.append(list(items))
        return len(self.ir.lists) - 1

    def _value(self, value: Any) -> int:
        """A typed constant (an attribute's value): its index in ``values``."""
        if isinstance(value, bool) or not isinstance(value, int | str | tuple):
            raise TypeError(f"no IR value for {value!r}")
        if isinstance(value, int):
            typed = (0, value)
        elif isinstance(value, str):
            typed = (1, self.ir.string(value))
        else:
            typed = (2, self._list([self.ir.string(v) for v in value]))
        self.ir.values.append(typed)
        return len(self.ir.values) - 1

    def _node(
        self,
        op: str,
        node: ast.Node,
        type_: str | None = None,
        *,
        p0: int = 0,
        p1: int = 0,
        p2: int = 0,
        p3: int = 0,
        kids: list[int] = (),  # type: ignore[assignment]
        flags: int = 0,
    ) -> int:
        t = self.checked.type_of(node) if type_ is None else type_
        ir = self.ir
        ir.nodes.append(
            (OP[op], TYPE.get(t, TYPE[T.ANY]), self._span(node.span), flags, p0, p1, p2, p3, *kids)
        )
        ir.ast_nodes.append(node)
        ir.snippets.append(-1)
        return len(ir.nodes) - 1

    # ------------------------------------------------------------ expressions
    def expr(self, node: ast.Node) -> int:
        method = getattr(self, "e_" + type(node).__name__)
        index: int = method(node)
        if is_pure(self.checked, node):
            op, t, span, flags, *rest = self.ir.nodes[index]
            self.ir.nodes[index] = (op, t, span, flags | PURE, *rest)
        return index

    def e_IntLiteral(self, n: ast.IntLiteral) -> int:
        return self._node("INT", n, T.INT, p0=n.value)

    def e_NameLiteral(self, n: ast.NameLiteral) -> int:
        return self._node("STR", n, T.STR, p0=self.ir.string(n.value))

    def e_StrList(self, n: ast.StrList) -> int:
        strings = [self.ir.string(v) for v in n.values]
        return self._node("STRLIST", n, T.STRS, p0=self._list(strings))

    def e_Variable(self, n: ast.Variable) -> int:
        declare = self.checked.declares.get(id(n))
        if declare is not None:
            slot = self.checked.declare_slots.get(id(declare))
            if slot is None:  # a name for its expression, evaluated where it is used
                return self.expr(declare.value)
            return self._node("REG", n, p0=slot)
        return self._node("REG", n, p0=self.checked.slots[id(n)])

    def e_GameOwner(self, n: ast.GameOwner) -> int:
        return self._node("GAME", n, T.GAME)

    def e_AllOfKind(self, n: ast.AllOfKind) -> int:
        return self._node("ALL", n, p0=0 if n.kind == "player" else 1)

    def e_CardAt(self, n: ast.CardAt) -> int:
        groups = int(self.checked.type_of(n.collection) == T.CARDSS)
        coll = self.expr(n.collection)
        if n.position in ("top", "bottom"):
            return self._node(
                "CARDAT", n, p0=0 if n.position == "top" else 1, p1=groups, kids=[coll]
            )
        assert isinstance(n.position, ast.Node)
        return self._node("CARDAT", n, p0=2, p1=groups, kids=[coll, self.expr(n.position)])

    def e_TopN(self, n: ast.TopN) -> int:
        kids = [self.expr(n.count), self.expr(n.collection)]
        return self._node("TOPN", n, p0=0 if n.end == "top" else 1, kids=kids)

    def e_MaxMin(self, n: ast.MaxMin) -> int:
        kids = [self.expr(n.collection), self.expr(n.points)]
        return self._node("MAXMIN", n, p0=int(n.mode == "max"), kids=kids)

    def e_Actual(self, n: ast.Actual) -> int:
        return self.expr(n.card)

    def e_Location(self, n: ast.Location) -> int:
        kids = [self.expr(n.owner), self.expr(n.name)]
        if n.index is not None:
            kids.append(self.expr(n.index))
        kind = LOCATION_KINDS.index(n.kind)
        return self._node("LOCATION", n, p0=kind, p1=int(n.index is not None), kids=kids)

    def e_IndexedLocations(self, n: ast.IndexedLocations) -> int:
        kids = [self.expr(n.owner), self.expr(n.name)]
        return self._node("INDEXED", n, p0=LOCATION_KINDS.index(n.kind), kids=kids)

    def e_Storage(self, n: ast.Storage) -> int:
        t = self.checked.type_of(n)
        table = {T.INTSTO: 0, T.STRSTO: 1, T.POINTS: 2}.get(t, 0)
        return self._node("STORAGE", n, p0=table, kids=[self.expr(n.owner), self.expr(n.name)])

    def e_PlayerRef(self, n: ast.PlayerRef) -> int:
        return self._which("PLAYER", n, n.which)

    def e_TeamRef(self, n: ast.TeamRef) -> int:
        return self._which("TEAM", n, n.which)

    def _which(self, op: str, n: ast.Node, which: str | ast.Node) -> int:
        if isinstance(which, str):
            return self._node(op, n, p0=("current", "next", "previous").index(which))
        return self._node(op, n, p0=3, kids=[self.expr(which)])

    def e_OwnerOf(self, n: ast.OwnerOf) -> int:
        return self._node("OWNER", n, kids=[self.expr(n.card)])

    def e_PlayerId(self, n: ast.PlayerId) -> int:
        return self.expr(n.player)

    def e_TeamId(self, n: ast.TeamId) -> int:
        return self.expr(n.team)

    def e_TeamOf(self, n: ast.TeamOf) -> int:
        return self._node("TEAMOF", n, kids=[self.expr(n.player)])

    def e_Other(self, n: ast.Other) -> int:
        return self._node("OTHER", n, p0=0 if n.kind == "player" else 1)

    def e_SetOp(self, n: ast.SetOp) -> int:
        op = ("union", "intersect", "disjunction").index(n.op)
        return self._node("SETOP", n, p0=op, kids=[self.expr(p) for p in n.parts])

    def e_Filter(self, n: ast.Filter) -> int:
        kids = [self.expr(n.collection), self.expr(n.condition)]
        return self._node("FILTER", n, p0=self.checked.slots[id(n)], kids=kids)

    def e_Sort(self, n: ast.Sort) -> int:
        return self._node("SORT", n, kids=[self.expr(n.collection), self.expr(n.points)])

    def e_RunEnd(self, n: ast.RunEnd) -> int:
        kids = [self.expr(n.count), self.expr(n.collection), self.expr(n.points)]
        return self._node("RUNEND", n, p0=0 if n.end == "top" else 1, kids=kids)

    def e_Runs(self, n: ast.Runs) -> int:
        kids = [self.expr(n.count), self.expr(n.collection), self.expr(n.points)]
        return self._node("RUNS", n, p0=0 if n.mode == "all" else 1, kids=kids)

    def e_Tuples(self, n: ast.Tuples) -> int:
        kids = [self.expr(n.count), self.expr(n.collection), self.expr(n.points)]
        return self._node("TUPLES", n, kids=kids)

    def e_Subsets(self, n: ast.Subsets) -> int:
        return self._node("SUBSETS", n, kids=[self.expr(n.collection)])

    def e_Partition(self, n: ast.Partition) -> int:
        kids = [self.expr(n.key)] + [self.expr(p) for p in n.parts]
        return self._node("PARTITION", n, kids=kids)

    def e_Aggregate(self, n: ast.Aggregate) -> int:
        kids = [self.expr(n.collection), self.expr(n.body)]
        q = 0 if n.quantifier == "any" else 1
        return self._node("AGGREGATE", n, p0=q, p1=self.checked.slots[id(n)], kids=kids)

    def e_Range(self, n: ast.Range) -> int:
        return self._node("RANGE", n, kids=[self.expr(n.low), self.expr(n.high)])

    def e_Random(self, n: ast.Random) -> int:
        low = self.expr(n.low) if n.low is not None else self._node("INT", n, T.INT, p0=0)
        return self._node("RANDOM", n, kids=[low, self.expr(n.high)])

    def e_Arith(self, n: ast.Arith) -> int:
        # (+ A B C ...) and (* ...) as one node of all the operands (the exact result of
        # the whole form is checked: vm_eval_scalar.cpp O_ARITH)
        kids = [self.expr(o) for o in written_operands(n)]
        return self._node("ARITH", n, p0=ARITH_OPS.index(n.op), kids=kids)

    def e_UnaryInt(self, n: ast.UnaryInt) -> int:
        return self._node("UNARY", n, p0=0 if n.op == "tri" else 1, kids=[self.expr(n.operand)])

    def e_ScoreExtreme(self, n: ast.ScoreExtreme) -> int:
        kids = [self.expr(n.collection), self.expr(n.points)]
        return self._node("SCOREEXT", n, p0=int(n.mode == "max"), kids=kids)

    def e_Size(self, n: ast.Size) -> int:
        return self._node("SIZE", n, kids=[self.expr(n.collection)])

    def e_Sum(self, n: ast.Sum) -> int:
        return self._node("SUM", n, kids=[self.expr(n.collection), self.expr(n.points)])

    def e_Score(self, n: ast.Score) -> int:
        return self._node("SCORE", n, kids=[self.expr(n.card), self.expr(n.points)])

    def e_CardAtt(self, n: ast.CardAtt) -> int:
        return self._node("CARDATT", n, kids=[self.expr(n.key), self.expr(n.card)])

    def e_Attr(self, n: ast.Attr) -> int:
        default = {T.INT: 0, T.STR: "", T.STRS: ()}.get(self.checked.type_of(n), "")
        return self._node(
            "ATTR", n, p0=self.ir.string(n.name), p1=self._value(default), kids=[self.expr(n.card)]
        )

    def e_Total(self, n: ast.Total) -> int:
        return self._node("TOTAL", n, p0=self.ir.string(n.name), kids=[self.expr(n.collection)])

    def e_Connects(self, n: ast.Connects) -> int:
        kids = [self.expr(n.collection), self.expr(n.x), self.expr(n.y)]
        names = self._names(n.source, n.target)
        return self._node("CONNECTS", n, p0=names[0], p1=names[1], kids=kids)

    def e_LongestPath(self, n: ast.LongestPath) -> int:
        p0, p1, p2 = self._names(n.source, n.target, n.length)
        return self._node("LONGEST", n, p0=p0, p1=p1, p2=p2, kids=[self.expr(n.collection)])

    def _names(self, *attributes: ast.NameLiteral) -> list[int]:
        return [self.ir.string(a.value) for a in attributes]

    def e_Contains(self, n: ast.Contains) -> int:
        return self._node("CONTAINS", n, kids=[self.expr(n.items), self.expr(n.value)])

    def e_Others(self, n: ast.Others) -> int:
        return self._node("OTHERS", n, kids=[self.expr(n.player)])

    def e_If(self, n: ast.If) -> int:
        kids = [self.expr(n.condition), self.expr(n.then), self.expr(n.otherwise)]
        return self._node("IF", n, kids=kids)

    def e_Compare(self, n: ast.Compare) -> int:
        cards = T.CARD in (self.checked.type_of(n.left), self.checked.type_of(n.right))
        kids = [self.expr(n.left), self.expr(n.right)]
        return self._node("COMPARE", n, p0=COMPARE_OPS.index(n.op), p1=int(cards), kids=kids)

    def e_BoolOp(self, n: ast.BoolOp) -> int:
        op = "AND" if n.op == "and" else "OR"
        return self._node(op, n, kids=[self.expr(o) for o in n.operands])

    def e_Not(self, n: ast.Not) -> int:
        return self._node("NOT", n, kids=[self.expr(n.operand)])

    def e_Awards(self, n: ast.Awards) -> int:
        return self._node("AWARDS", n, T.AWARDS, kids=[self._award(a) for a in n.awards])

    def _award(self, a: ast.Award) -> int:
        kids = [self.expr(a.points)]
        for c in a.conditions:
            kids += [self.expr(c.key), self.expr(c.value)]
        return self._node("AWARD", a, T.AWARDS, kids=kids)

    # ------------------------------------------------------------ statements
    def _has_decision(self, node: ast.Node) -> bool:
        return reaches_decision(node, self.checked.procedures)

    def stmt(self, node: ast.Node) -> int:
        method = getattr(self, "s_" + type(node).__name__)
        index: int = method(node)
        op, t, span, flags, *rest = self.ir.nodes[index]
        if self._has_decision(node):
            flags |= HAS_DECISION
        if self._is_fixed(node):
            flags |= FIXED
        self.ir.nodes[index] = (op, t, span, flags, *rest)
        self.ir.snippets[index] = self.ir.string(self.source.snippet(node.span))
        return index

    def _is_fixed(self, node: ast.Node) -> bool:
        """Whether the Python engine's expander of this statement is *fixed* (actions
        alone: ``compiler/choices.py``, ``_fixed_steps``): a fork whose body is fixed
        binds its variable without applying it (``fork_fixed``), and the VM does the
        same."""
        repeats = isinstance(node, ast.Repeat) or (
            isinstance(node, ast.ForEach) and node.quantifier == "all"
        )
        if repeats and self._has_decision(node):
            return True
        if isinstance(node, ast.Guarded | ast.ForEach | ast.Let | ast.Repeat):
            return False  # a repeat's passes are listed one by one, its count a literal too
        if isinstance(node, ast.Do):
            return all(self._is_fixed(b) for b in node.body)
        return True

    def _do(self, body: tuple[ast.Node, ...], span: Span) -> int:
        """A block (a procedure's body, the program): a DO node."""
        kids = [self.stmt(s) for s in body]
        flags = HAS_DECISION if any(self.ir.nodes[k][3] & HAS_DECISION for k in kids) else 0
        do = ast.Do(body, span=span)
        return self._node("DO", do, T.ANY, kids=kids, flags=flags)

    def s_Move(self, n: ast.Move) -> int:
        return self._move("MOVE", n, self._move_message(n))

    def s_Remember(self, n: ast.Remember) -> int:
        return self._move("REMEMBER", n, self.ir.string(""))

    def _move(self, op: str, n: ast.Move | ast.Remember, message: int) -> int:
        dest = n.dest
        assert isinstance(dest, ast.CardAt)
        kids = [self.expr(n.card), self.expr(dest.collection)]
        if dest.position in ("top", "bottom"):
            where = 0 if dest.position == "top" else 1
        else:
            assert isinstance(dest.position, ast.Node)
            where = 2
            kids.append(self.expr(dest.position))
        return self._node(op, n, T.ANY, p0=where, p1=message, kids=kids)

    def _move_message(self, n: ast.Move) -> int:
        what = self.source.snippet(n.card.span, 60)
        return self.ir.string(f"move from an empty location: {what} has no card")

    def s_Forget(self, n: ast.Forget) -> int:
        assert isinstance(n.card, ast.CardAt)
        kids = [self.expr(n.card), self.expr(n.card.collection)]
        return self._node("FORGET", n, T.ANY, kids=kids)

    def s_Shuffle(self, n: ast.Shuffle) -> int:
        return self._node("SHUFFLE", n, T.ANY, kids=[self.expr(n.location)])

    def s_SetValue(self, n: ast.SetValue) -> int:
        t = self.checked.type_of(n.target)
        table = {T.INTSTO: 0, T.STRSTO: 1, T.POINTS: 2}[t]
        awards = int(t == T.POINTS and isinstance(n.value, ast.Awards))
        kids = [self.expr(n.target), self.expr(n.value)]
        return self._node("SET", n, T.ANY, p0=table, p1=awards, kids=kids)

    def s_Increment(self, n: ast.Increment) -> int:
        kids = [self.expr(n.target), self.expr(n.amount)]
        return self._node("INC", n, T.ANY, p0=n.sign, kids=kids)

    def s_Cycle(self, n: ast.Cycle) -> int:
        queue = int(n.mode == "next")
        if isinstance(n.target, str):
            which = ("current", "next", "previous").index(n.target)
            return self._node("CYCLE", n, T.ANY, p0=queue, p1=which)
        return self._node("CYCLE", n, T.ANY, p0=queue, p1=3, kids=[self.expr(n.target)])

    def s_TurnPass(self, n: ast.TurnPass) -> int:
        return self._node("PASS", n, T.ANY)

    def s_Pass(self, n: ast.Pass) -> int:
        return self._node("PASS", n, T.ANY)

    def s_Repeat(self, n: ast.Repeat) -> int:
        literal = int(isinstance(n.count, ast.IntLiteral))
        kids = [self.expr(n.count), self.stmt(n.body)]
        return self._node("REPEAT", n, T.ANY, p0=literal, kids=kids)

    def s_RepeatAll(self, n: ast.RepeatAll) -> int:
        source = ast.repeat_all_source(n.body)
        assert source is not None, "the checker guarantees a source collection"
        return self._node("REPEATALL", n, T.ANY, kids=[self.stmt(n.body), self.expr(source)])

    def s_Swap(self, n: ast.Swap) -> int:
        return self._node("SWAP", n, T.ANY, kids=[self.expr(n.first), self.expr(n.second)])

    def s_Call(self, n: ast.Call) -> int:
        proc = self._procedure_index(n.name)
        return self._node("CALL", n, T.ANY, p0=proc, kids=[self.expr(a) for a in n.args])

    def s_CreateCards(self, n: ast.CreateCards) -> int:
        kids = [self.expr(n.location), self.expr(n.kind), self.expr(n.count)]
        return self._node("CREATECARDS", n, T.ANY, kids=kids)

    def s_CreateDeck(self, n: ast.CreateDeck) -> int:
        assert isinstance(n.deck, ast.Deck)
        cards = [
            [(self.ir.string(k), self.ir.string(v)) for k, v in card.items()]
            for card in deck_cards(n.deck)
        ]
        self.ir.decks.append(cards)
        kids = [self.expr(n.location)]
        if n.name is not None:
            kids.append(self.expr(n.name))
        deck = len(self.ir.decks) - 1
        return self._node("CREATEDECK", n, T.ANY, p0=deck, p1=int(n.name is not None), kids=kids)

    def s_CreatePlayers(self, n: ast.CreatePlayers) -> int:
        count = static_int(n.count, lambda name: None)
        return self._node("CREATEPLAYERS", n, T.ANY, p0=-1 if count is None else count)

    def s_CreateTeams(self, n: ast.CreateTeams) -> int:
        listed = [tuple(t) for t in n.teams]
        if one_based_teams(n, self.ir.nplayers):
            listed = [tuple(p - 1 for p in t) for t in listed]
        teams = self._list([self._list(list(t)) for t in listed])
        return self._node("CREATETEAMS", n, T.ANY, p0=teams)

    def s_Do(self, n: ast.Do) -> int:
        return self._node("DO", n, T.ANY, kids=[self.stmt(s) for s in n.body])

    def s_Guarded(self, n: ast.Guarded) -> int:
        return self._node("GUARD", n, T.ANY, kids=[self.expr(n.condition), self.stmt(n.body)])

    def s_Let(self, n: ast.Let) -> int:
        kids = [self.expr(n.value), self.stmt(n.body)]
        slot = self.checked.slots[id(n)]
        return self._node("LET", n, T.ANY, p0=slot, p1=self.ir.string(n.var), kids=kids)

    def s_ForEach(self, n: ast.ForEach) -> int:
        kids = [self.expr(n.collection), self.stmt(n.body)]
        q = 0 if n.quantifier == "any" else 1
        slot = self.checked.slots[id(n)]
        return self._node("FOREACH", n, T.ANY, p0=q, p1=slot, p2=self.ir.string(n.var), kids=kids)

    def s_While(self, n: ast.While) -> int:
        kids = [self.expr(n.condition)] + [self.stmt(s) for s in n.body]
        return self._node("WHILE", n, T.ANY, kids=kids)

    def s_Stage(self, n: ast.Stage) -> int:
        kids = [self.expr(n.end)] + [self.stmt(s) for s in n.body]
        return self._node("STAGE", n, T.ANY, p0=int(n.kind == "team"), kids=kids)

    def s_Choice(self, n: ast.Choice) -> int:
        kids = [self.expr(n.chooser)] if n.chooser is not None else []
        kids += [self.stmt(b) for b in n.body]
        situation = self.ir.string(n.situation or "CHOICE")
        return self._node(
            "CHOICE",
            n,
            T.ANY,
            p0=situation,
            p1=int(n.chooser is not None),
            p2=int(self._secret),
            kids=kids,
        )

    def s_Simultaneous(self, n: ast.Simultaneous) -> int:
        self._secret = True  # the checker allows no nesting
        try:
            body = self._do(n.body, n.span)
        finally:
            self._secret = False
        return self._node("SIMULTANEOUS", n, T.ANY, kids=[body])
