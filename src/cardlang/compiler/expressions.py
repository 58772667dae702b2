"""Expressions to functions: every checked expression becomes ``f(state) -> value``.

Pipeline position: compiler, after the checker; statements.py calls ``ExprCompiler`` for the
expressions inside actions.  Names are resolved here, once: a variable bound by a
statement becomes a register read, a variable bound inside an expression (filter, any,
all) becomes a local of a comprehension, a declared constant is compiled in place, a
location with a literal name becomes a tuple built inline.

How: each expression is translated to the text of one Python expression and compiled
into one function, so evaluating ``(filter HAND 'C (== (cardatt SUIT 'C) LEAD))`` is
one list comprehension, not a tree of closure calls (several times faster; see
benchmarks/).  Game files cannot inject code: every name or string from a file enters
the generated text only through ``repr`` or as a constant of the function's globals.

Values at run time: integers, strings and booleans are Python's; a card is its id (None
when a location is empty); a location is its key; a player is a seat number, a team a
team number; a collection is a sequence (cards bottom first, top last).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardlang.engine.frames import F_PLAYER
from cardlang.engine.owners import GAME_OWNER
from cardlang.engine.runtime import (
    RUNTIME,
    Fn,
    _location_name,
)
from cardlang.errors import RuleError
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast.scalars import written_operands
from cardlang.language.checker import CheckedGame


def _constant_function(value: Any) -> Fn:
    """A function whose value is known at compile time; callers may fold it."""
    f: Any = lambda st: value  # noqa: E731
    f.constant_value = value
    return f  # type: ignore[no-any-return]


# Forms worth hoisting out of a loop, and forms that may fail or draw from the RNG (which
# must keep being evaluated where, and as often as, the game says).
_COSTLY = (
    ast.CardAtt,
    ast.CardAt,
    ast.Size,
    ast.Score,
)
# (the forms that charge the work budget, engine/work.py, are here too: the native engine
# charges them once per evaluation, hoisted or not)
_UNSAFE = (
    ast.Sort,
    ast.SetOp,
    ast.Partition,
    ast.RunEnd,
    ast.Sum,
    ast.Total,
    ast.ScoreExtreme,
    ast.Contains,
    ast.TopN,
    ast.Connects,
    ast.Random,
    ast.Tuples,
    ast.Runs,
    ast.LongestPath,
    ast.MaxMin,
    ast.OwnerOf,
    ast.Arith,
    ast.Subsets,
    ast.PlayerRef,
    ast.TeamRef,
    ast.Aggregate,
    ast.Filter,
    ast.Range,  # fails past a million numbers: where the game evaluates it, not before
)


def _invariant_parts(
    node: ast.Node, loop_slots: set[int], checked: CheckedGame, found: list[ast.Node]
) -> bool:
    """Collect in ``found`` the largest costly parts of ``node`` that depend on no loop
    variable and are safe to evaluate early; return whether ``node`` itself qualifies."""
    if isinstance(node, ast.Variable):
        return checked.slots.get(id(node)) not in loop_slots
    if isinstance(node, ast.Filter | ast.Aggregate):  # a loop inside: its variable varies
        loop_slots = loop_slots | {checked.slots[id(node)]}
    children = [
        v
        for name in node.__dataclass_fields__  # type: ignore[attr-defined]
        for v in _as_tuple(getattr(node, name))
        if isinstance(v, ast.Node)
    ]
    # one pass over each child (linear time): what it found is used only if it is not
    # invariant as a whole
    marks = []
    for child in children:
        inside: list[ast.Node] = []
        marks.append((child, _invariant_parts(child, loop_slots, checked, inside), inside))
    if not isinstance(node, _UNSAFE) and all(ok for _, ok, _ in marks):
        return True
    for child, ok, inside in marks:
        if ok and isinstance(child, _COSTLY):
            found.append(child)
        elif not ok:
            found.extend(inside)
    return False


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return value if isinstance(value, tuple) else (value,)


def _distinct_locations(node: ast.Node, checked: CheckedGame) -> bool:
    """(all COLL 'P ('P KIND NAME)): one real location per element, so no card twice."""
    if not (isinstance(node, ast.Aggregate) and isinstance(node.body, ast.Location)):
        return False
    owner = node.body.owner
    return (
        node.body.kind != "mem"
        and isinstance(owner, ast.Variable)
        and checked.slots.get(id(owner)) == checked.slots.get(id(node))
    )


#: Aggregates over `player` are unrolled (one copy of the body per seat) up to this many.
MAX_UNROLLED_PLAYERS = 8


#: What (attr NAME CARD) reads when the card's kind does not set NAME.
_ATTR_DEFAULTS = {T.INT: "0", T.STR: "''", T.STRS: "()"}


class ExprCompiler:
    def __init__(self, checked: CheckedGame, nplayers: int | None = None) -> None:
        self.checked = checked
        self.nplayers = nplayers  # known when the game fixes it (create players N)
        self._bound: dict[int, str] = {}  # slots bound to a literal (unrolled aggregates)
        # While a choice's option lister is generated: its loop variables, read from the
        # lister's locals, and the storage reads it computes once, at its top.
        self.aliases: dict[int, str] = {}
        self.hoisted_reads: dict[str, str] | None = None
        # ... and for a loop over locations, the local holding the current one's cards
        self.location_contents: dict[int, str] = {}
        self._hoisted_src: dict[int, str] = {}  # id(node) -> name of its hoisted value
        self.env: dict[str, Any] = dict(RUNTIME)
        self._consts: dict[int, str] = {}  # id(value) -> name in env
        self._locals: set[int] = set()  # slots bound inside expressions (comprehension locals)

    def type_of(self, node: ast.Node) -> str:
        return self.checked.type_of(node)

    def slot(self, node: ast.Node) -> int:
        return self.checked.slots[id(node)]

    # ------------------------------------------------------------ entry points
    def value(self, node: ast.Node) -> Fn:
        """A function giving the node's value; storages are read (an int, not a key)."""
        return self._function(self.src(node))

    def value_of_source(self, source: str) -> Fn:
        """A function for source text built by another compiler from ``src`` pieces."""
        return self._function(source)

    def cards(self, node: ast.Node) -> Fn:
        """A function giving a sequence: a location's cards, or any collection's elements."""
        return self._function(self.cards_src(node))

    def location_key(self, node: ast.Node) -> Fn:
        return self._function(self.raw_src(node))

    def storage_key(self, node: ast.Node) -> Fn:
        return self._function(self.raw_src(node))

    def owner(self, node: ast.Node) -> Fn:
        return self._function(self.owner_src(node))

    def _function(self, source: str) -> Fn:
        try:
            value = eval(source, {"__builtins__": {}}, {})  # constant: fold it
        except Exception:
            code = compile(f"lambda st: {source}", "<cardlang expression>", "eval")
            return eval(code, self.env)  # type: ignore[no-any-return]
        return _constant_function(value)

    def define(self, name: str, lines: list[str], **constants: Any) -> Any:
        """Compile a generated function definition (statements that must be fast)."""
        env = dict(self.env)
        env.update(constants)
        env["RuleError"] = RuleError
        code = compile("\n".join(lines), f"<cardlang {name}>", "exec")
        exec(code, env)
        return env[name]

    # ------------------------------------------------------------ source text
    def const(self, value: Any) -> str:
        """A name in the generated code's globals that holds ``value``."""
        if isinstance(value, bool | int | str | type(None)):
            return repr(value)
        name = self._consts.get(id(value))
        if name is None:
            name = f"K{len(self._consts)}"
            self._consts[id(value)] = name
            self.env[name] = value
        return name

    def src(self, node: ast.Node) -> str:
        """Python source for the node's value (storages read)."""
        t = self.type_of(node)
        if t in (T.INTSTO, T.STRSTO, T.POINTS):
            table, default = {
                T.INTSTO: ("ints", "0"),
                T.STRSTO: ("strs", "''"),
                T.POINTS: ("points", "EMPTY_POINTS"),
            }[t]
            read = f"st.{table}.get({self.raw_src(node)}, {default})"
            if self.hoisted_reads is not None and self._fixed_while_listing(node):
                return self.hoisted_reads.setdefault(read, f"s{len(self.hoisted_reads)}")
            return read
        return self.raw_src(node)

    def _fixed_while_listing(self, node: ast.Node) -> bool:
        """A storage named by a literal whose owner is the game, the current player or a
        variable bound outside the lister: while options are listed nothing changes it,
        so the lister reads it once."""
        if not (isinstance(node, ast.Storage) and isinstance(node.name, ast.NameLiteral)):
            return False
        owner = node.owner
        if isinstance(owner, ast.GameOwner):
            return True
        if isinstance(owner, ast.PlayerRef):
            return owner.which == "current"
        if isinstance(owner, ast.Variable):
            slot = self.checked.slots.get(id(owner))
            loop_bound = set(self.aliases) | set(self._bound) | self._locals
            return slot is not None and slot not in loop_bound
        return False

    def cards_src(self, node: ast.Node) -> str:
        t = self.type_of(node)
        if t in (T.LOC, T.MEMLOC):
            if isinstance(node, ast.Variable):
                content = self.location_contents.get(self.checked.slots.get(id(node), -1))
                if content is not None:
                    return content
            return f"st.zones.get({self.raw_src(node)}, EMPTY)"
        if t == T.TEAM:
            return f"_team_members(st, {self.src(node)}, {self.const(node.span)})"
        return self.src(node)

    def owner_src(self, node: ast.Node) -> str:
        t = self.type_of(node)
        if t == T.GAME:
            return str(GAME_OWNER)
        if t == T.TEAM:
            return f"(-2 - {self.src(node)})"  # engine/state.py team_owner, inlined
        return self.src(node)

    def raw_src(self, node: ast.Node) -> str:
        """The node's own value: a key for locations and storages, not their content."""
        hoisted = self._hoisted_src.get(id(node))
        if hoisted is not None:
            return hoisted
        method = getattr(self, "c_" + type(node).__name__)
        return f"({method(node)})"

    def _bind_local(self, node: ast.Node) -> str:
        slot = self.slot(node)
        self._locals.add(slot)
        return f"v{slot}"

    # ------------------------------------------------------------ atoms
    def c_IntLiteral(self, n: ast.IntLiteral) -> str:
        return repr(n.value)

    def c_NameLiteral(self, n: ast.NameLiteral) -> str:
        return repr(n.value)

    def c_StrList(self, n: ast.StrList) -> str:
        return repr(n.values)

    def c_Variable(self, n: ast.Variable) -> str:
        declare = self.checked.declares.get(id(n))
        if declare is not None:
            slot = self.checked.declare_slots.get(id(declare))
            return self.raw_src(declare.value) if slot is None else f"st.regs[{slot}]"
        slot = self.slot(n)
        if slot in self._bound:
            return self._bound[slot]
        if slot in self.aliases:
            return self.aliases[slot]
        return f"v{slot}" if slot in self._locals else f"st.regs[{slot}]"

    def c_GameOwner(self, n: ast.GameOwner) -> str:
        return str(GAME_OWNER)

    def c_AllOfKind(self, n: ast.AllOfKind) -> str:
        return "range(st.nplayers)" if n.kind == "player" else "range(len(st.teams))"

    # ------------------------------------------------------------ cards
    def c_CardAt(self, n: ast.CardAt) -> str:
        items = self.cards_src(n.collection)
        # Cards lie bottom first, top last.  A collection of collections (tuples, runs,
        # partition ...) is a list of groups whose *first* group is its top, as in
        # CardStock: (top (tuples 2 HAND using P)) is the lowest-scoring pair.
        groups = self.type_of(n.collection) == T.CARDSS
        if n.position in ("top", "bottom"):
            first = (n.position == "top") == groups
            return f"{'_bottom' if first else '_top'}({items})"
        return f"_nth({items}, {self.src(n.position)}, {self.const(n.span)})"  # type: ignore[arg-type]

    def c_TopN(self, n: ast.TopN) -> str:
        fn = "_top_n" if n.end == "top" else "_bottom_n"
        cards, count = self.cards_src(n.collection), self.src(n.count)
        return f"{fn}(st, {cards}, {count}, {self.const(n.span)})"

    def c_MaxMin(self, n: ast.MaxMin) -> str:
        return (
            f"_best(st, {self.cards_src(n.collection)}, {self.src(n.points)}, {n.mode == 'max'}, "
            f"{self.const(n.span)})"
        )

    def c_Actual(self, n: ast.Actual) -> str:
        return self.src(n.card)  # cards are ids: a reference is the card itself

    # ------------------------------------------------------------ locations, storages
    def c_Location(self, n: ast.Location) -> str:
        name = self.src(n.name)
        if isinstance(n.index, ast.IntLiteral) and isinstance(n.name, ast.NameLiteral):
            name = repr(_location_name(n.name.value, n.index.value))  # known now
        elif n.index is not None:
            name = f"_location_name({name}, {self.src(n.index)})"
        return f"{self.owner_src(n.owner)}, {n.kind!r}, {name}"

    def c_Storage(self, n: ast.Storage) -> str:
        return f"{self.owner_src(n.owner)}, {self.src(n.name)}"

    # ------------------------------------------------------------ owners
    def c_PlayerRef(self, n: ast.PlayerRef) -> str:
        if n.which == "current":
            # state.current_player, inlined (the field's number is written into the text)
            return f"st.stack[st.stage_idx][{F_PLAYER}]"
        if n.which == "next":
            return "next_player(st)"
        if n.which == "previous":
            return "previous_player(st)"
        return f"_nth_player(st, {self.src(n.which)}, {self.const(n.span)})"  # type: ignore[arg-type]

    def c_TeamRef(self, n: ast.TeamRef) -> str:
        if n.which == "current":
            return "current_team(st)"
        if n.which in ("next", "previous"):
            return f"_relative_team(st, {1 if n.which == 'next' else -1})"
        return f"_nth_team(st, {self.src(n.which)}, {self.const(n.span)})"  # type: ignore[arg-type]

    def c_OwnerOf(self, n: ast.OwnerOf) -> str:
        return f"_owner_of(st, {self.src(n.card)}, {self.const(n.span)})"

    def c_TeamOf(self, n: ast.TeamOf) -> str:
        return f"st.team_of[{self.src(n.player)}]"

    def c_Other(self, n: ast.Other) -> str:
        return "_other_players(st)" if n.kind == "player" else "_other_teams(st)"

    # ------------------------------------------------------------ collections
    def _parts(self, parts: Sequence[ast.Node]) -> str:
        items = ", ".join(f"({self.type_of(p) == T.CARDSS}, {self.cards_src(p)})" for p in parts)
        return f"_gather(({items},))"

    def c_SetOp(self, n: ast.SetOp) -> str:
        # one unit per card of the parts, once all are evaluated (runtime.py: _joined)
        charge = f"{self.const(n.span)}, {f'({n.op} ...)'!r}"
        if n.op == "union" and len(n.parts) == 1 and self.type_of(n.parts[0]) == T.CARDSS:
            part = f"_joined(st, {self.cards_src(n.parts[0])}, {charge})"
            if _distinct_locations(n.parts[0], self.checked):
                return f"_flatten({part})"
            return f"ops.union({part})"
        return f"ops.{n.op}(_joined(st, {self._parts(n.parts)}, {charge}))"

    def passes_src(self, n: ast.Filter | ast.Aggregate | ast.ForEach, what: str) -> str:
        """The collection ``n`` loops over, its elements charged to the work budget (one
        unit each; a loop over all players or teams is free: engine/work.py)."""
        items = self.cards_src(n.collection)
        if isinstance(n.collection, ast.AllOfKind):
            return items
        return f"_passes(st, {items}, {self.const(n.span)}, {what!r})"

    def c_Filter(self, n: ast.Filter) -> str:
        items = self.passes_src(n, "(filter ...)")
        var = self._bind_local(n)
        return self._hoisted(
            n.condition, lambda: f"[{var} for {var} in {items} if {self.src(n.condition)}]"
        )

    def _hoisted(self, body: ast.Node, loop: Callable[[], str]) -> str:
        """``loop`` with the parts of ``body`` that do not depend on its loop variables
        computed once, before the loop, instead of once per element.

        Only parts that are pure (no RNG), cannot fail and cost something are hoisted:
        `(filter HAND 'C (== (cardatt SUIT 'C) (cardatt SUIT (top PILE))))` reads the
        pile's top card once.  The hoisted values are passed to a one-off lambda, so this
        works anywhere an expression may stand.
        """
        found: list[ast.Node] = []
        _invariant_parts(body, self._loop_slots(body), self.checked, found)
        # a part an enclosing loop already hoisted is read from its name as it is
        found = [part for part in found if id(part) not in self._hoisted_src]
        if not found:
            return loop()
        names = []
        values = []
        for part in found:
            names.append(f"h{len(self._hoisted_src)}")
            values.append(self.src(part))
            self._hoisted_src[id(part)] = names[-1]
        try:
            text = loop()
        finally:
            for part in found:
                del self._hoisted_src[id(part)]
        return f"(lambda {', '.join(names)}: {text})({', '.join(values)})"

    def _loop_slots(self, body: ast.Node) -> set[int]:
        """Slots bound by loops being compiled around ``body`` (expression-level)."""
        return set(self._locals) | set(self._bound)

    def c_Sort(self, n: ast.Sort) -> str:
        return (
            f"_sort(st, {self.cards_src(n.collection)}, {self.src(n.points)}, {self.const(n.span)})"
        )

    def c_RunEnd(self, n: ast.RunEnd) -> str:
        return (
            f"_run_at_end(st, {self.cards_src(n.collection)}, {self.src(n.points)},"
            f" {self.src(n.count)}, {n.end!r}, {self.const(n.span)})"
        )

    def c_Runs(self, n: ast.Runs) -> str:
        return (
            f"_runs(st, {self.cards_src(n.collection)}, _scorer(st, {self.src(n.points)}), "
            f"{self.src(n.count)}, {n.mode!r}, {self.const(n.span)})"
        )

    def c_Tuples(self, n: ast.Tuples) -> str:
        return (
            f"_tuples(st, {self.cards_src(n.collection)}, _scorer(st, {self.src(n.points)}), "
            f"{self.src(n.count)}, {self.const(n.span)})"
        )

    def c_Subsets(self, n: ast.Subsets) -> str:
        return f"_subsets(st, {self.cards_src(n.collection)}, {self.const(n.span)})"

    def c_Partition(self, n: ast.Partition) -> str:
        return (
            f"_partition(st, _flatten({self._parts(n.parts)}), {self.src(n.key)}, "
            f"{self.const(n.span)})"
        )

    def unrolled(self, n: ast.Aggregate | ast.ForEach, body: Callable[[], Any]) -> list[Any] | None:
        """The body once per seat, for an aggregate over all players when their number is
        fixed: (all player 'P (== (size ('P vloc TRICK)) 1)) becomes four comparisons with
        constant keys, with no loop or generator."""
        if not (
            isinstance(n.collection, ast.AllOfKind)
            and n.collection.kind == "player"
            and self.nplayers is not None
            and self.nplayers <= MAX_UNROLLED_PLAYERS
        ):
            return None
        if self._bound:  # only the outermost loop over players unrolls: code stays linear
            return None
        slot = self.slot(n)
        copies = []
        for seat in range(self.nplayers):
            self._bound[slot] = str(seat)
            copies.append(body())
        del self._bound[slot]
        return copies

    def c_Aggregate(self, n: ast.Aggregate) -> str:
        if self.type_of(n) == T.CARDSS:
            unrolled = self.unrolled(n, lambda: self.cards_src(n.body))
            if unrolled is not None:
                return "[" + ", ".join(unrolled) + "]"
        else:
            unrolled = self.unrolled(n, lambda: self.src(n.body))
            if unrolled is not None:
                return f" {'or' if n.quantifier == 'any' else 'and'} ".join(
                    f"({u})" for u in unrolled
                )
        items = self.passes_src(n, f"({n.quantifier} ...)")
        var = self._bind_local(n)
        if self.type_of(n) == T.CARDSS:
            if isinstance(n.collection, ast.AllOfKind):  # free, as its passes are
                return f"[{self.cards_src(n.body)} for {var} in {items}]"
            group = f"_group(st, {self.cards_src(n.body)}, {self.const(n.span)})"
            return f"[{group} for {var} in {items}]"
        quantifier = "any" if n.quantifier == "any" else "all"
        return self._hoisted(
            n.body, lambda: f"{quantifier}({self.src(n.body)} for {var} in {items})"
        )

    def c_Range(self, n: ast.Range) -> str:
        return f"_range({self.src(n.low)}, {self.src(n.high)}, {self.const(n.span)})"

    # ------------------------------------------------------------ integers
    def c_Random(self, n: ast.Random) -> str:
        low = self.src(n.low) if n.low is not None else "0"
        return f"_random(st, {low}, {self.src(n.high)}, {self.const(n.span)})"

    def c_Arith(self, n: ast.Arith) -> str:
        operands = written_operands(n)
        if len(operands) > 2:  # (+ A B C ...): the exact result of the whole form, checked
            fn = "_add_all" if n.op == "+" else "_mul_all"
            values = ", ".join(self.src(o) for o in operands)
            return f"{fn}(({values}), {self.const(n.span)})"
        a, b = self.src(n.left), self.src(n.right)
        if n.op in ("+", "-", "*"):  # checked 64-bit (runtime.py)
            fn = {"+": "_add", "-": "_sub", "*": "_mul"}[n.op]
            return f"{fn}({a}, {b}, {self.const(n.span)})"
        if n.op == "^":
            return f"_power({a}, {b}, {self.const(n.span)})"
        return f"_divide({n.op!r}, {a}, {b}, {self.const(n.span)})"

    def c_UnaryInt(self, n: ast.UnaryInt) -> str:
        x = self.src(n.operand)
        fn = "_tri" if n.op == "tri" else "_fib"
        return f"{fn}({x}, {self.const(n.span)})"

    def c_ScoreExtreme(self, n: ast.ScoreExtreme) -> str:
        return (
            f"_score_extreme(st, {self.cards_src(n.collection)}, {self.src(n.points)}, "
            f"{n.mode == 'max'}, {self.const(n.span)})"
        )

    def c_PlayerId(self, n: ast.PlayerId) -> str:
        return self.src(n.player)  # a player is its seat number

    def c_TeamId(self, n: ast.TeamId) -> str:
        return self.src(n.team)

    def c_IndexedLocations(self, n: ast.IndexedLocations) -> str:
        return f"_indexed(st, {self.owner_src(n.owner)}, {n.kind!r}, {self.src(n.name)})"

    def c_Size(self, n: ast.Size) -> str:
        return f"len({self.cards_src(n.collection)})"

    def c_Sum(self, n: ast.Sum) -> str:
        return (
            f"_sum(st, {self.cards_src(n.collection)}, {self.src(n.points)}, {self.const(n.span)})"
        )

    def c_Score(self, n: ast.Score) -> str:
        return f"_score(st, {self.src(n.card)}, {self.src(n.points)})"

    # ------------------------------------------------------------ strings
    def c_CardAtt(self, n: ast.CardAtt) -> str:
        card, key = self.src(n.card), self.src(n.key)
        if isinstance(n.card, ast.Variable) and self.checked.slots.get(id(n.card)) in (
            self.checked.element_slots
        ):  # an element is never a missing card
            if isinstance(n.key, ast.NameLiteral) and n.key.value in (
                self.checked.universal_attributes or ()
            ):
                return f"st.cards[{card}][{key}]"  # every card has it: no default needed
            return f"st.cards[{card}].get({key}, '')"
        return f"_att(st, {card}, {key})"

    def c_Attr(self, n: ast.Attr) -> str:
        default = _ATTR_DEFAULTS.get(self.type_of(n), "''")
        if (
            isinstance(n.card, ast.CardAt)
            and n.card.position == "top"
            and self.type_of(n.card.collection) in T.CARD_COLLECTIONS
        ):
            items = self.cards_src(n.card.collection)
            if items.isidentifier():  # a lister's local: read inline, the helper when empty
                return (
                    f"(st.cards[{items}[-1]].get({n.name!r}, {default}) if {items} "
                    f"else _top_attr({items}, st.cards, {n.name!r}, {default}, "
                    f"{self.const(n.span)}))"
                )
            return f"_top_attr({items}, st.cards, {n.name!r}, {default}, {self.const(n.span)})"
        card = self.src(n.card)
        if isinstance(n.card, ast.Variable) and self.checked.slots.get(id(n.card)) in (
            self.checked.element_slots
        ):  # an element is never a missing card
            return f"st.cards[{card}].get({n.name!r}, {default})"
        slow = f"_attr(st, {card}, {n.name!r}, {default}, {self.const(n.span)})"
        if isinstance(n.card, ast.Variable):  # reading a variable twice costs nothing
            fast = f"st.cards[{card}].get({n.name!r}, {default})"
            return f"({fast} if {card} is not None else {slow})"
        return slow

    def c_Total(self, n: ast.Total) -> str:
        return f"_total(st, {self.cards_src(n.collection)}, {n.name!r}, {self.const(n.span)})"

    def c_Connects(self, n: ast.Connects) -> str:
        # the collection, then X, then Y: the order the native engine evaluates them in
        edges = self._routes(n, n.source, n.target)
        return f"ops.connected({edges}, {self.src(n.x)}, {self.src(n.y)})"

    def c_LongestPath(self, n: ast.LongestPath) -> str:
        edges = self._routes(n, n.source, n.target, n.length)
        return f"_longest_trail(st, {edges}, {self.const(n.span)})"

    def _routes(self, n: ast.Connects | ast.LongestPath, *attributes: ast.NameLiteral) -> str:
        names = ", ".join(repr(a.value) for a in attributes)
        what = "(connects ...)" if isinstance(n, ast.Connects) else "(longest-path ...)"
        cards = f"_reads(st, {self.cards_src(n.collection)}, {self.const(n.span)}, {what!r})"
        return f"ops.routes({cards}, st.cards, {names})"

    def c_Contains(self, n: ast.Contains) -> str:
        if isinstance(self._inlined(n.items), ast.Attr | ast.StrList):  # written in the file
            return f"{self.src(n.value)} in {self.src(n.items)}"
        return f"_contains(st, {self.src(n.value)}, {self.src(n.items)}, {self.const(n.span)})"

    def _inlined(self, node: ast.Node) -> ast.Node:
        """The expression a declared name stands for where it is used (as the IR inlines
        it: compiler/ir.py e_Variable), else the node itself."""
        while isinstance(node, ast.Variable):
            declare = self.checked.declares.get(id(node))
            if declare is None or self.checked.declare_slots.get(id(declare)) is not None:
                break
            node = declare.value
        return node

    def c_Others(self, n: ast.Others) -> str:
        return f"_others(st, {self.src(n.player)})"

    # ------------------------------------------------------------ booleans
    def c_Compare(self, n: ast.Compare) -> str:
        left, right = self.src(n.left), self.src(n.right)
        if n.op in ("==", "!=") and T.CARD in (self.type_of(n.left), self.type_of(n.right)):
            # cards compare by identity; a missing card (empty location) equals nothing
            return f"{'' if n.op == '==' else 'not '}_same_card({left}, {right})"
        return f"{left} {n.op} {right}"

    def c_BoolOp(self, n: ast.BoolOp) -> str:
        return f" {n.op} ".join(self.src(o) for o in n.operands)

    def c_If(self, n: ast.If) -> str:
        # a location on one side and a computed collection on the other: compare cards
        to_cards = self.type_of(n) == T.CARDS
        side = self.cards_src if to_cards else self.src
        return f"{side(n.then)} if {self.src(n.condition)} else {side(n.otherwise)}"

    def c_Not(self, n: ast.Not) -> str:
        return f"not {self.src(n.operand)}"
