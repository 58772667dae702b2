"""Expressions to closures: every checked expression becomes ``f(state) -> value``.

Pipeline position: after the checker; compile_stmt.py calls ``ExprCompiler`` for the
expressions inside actions.  Names are resolved here, once: a variable becomes a register
index, a declared constant is compiled in place, a location with a literal owner and name
becomes a constant key.

Values at run time: integers, strings and booleans are Python's; a card is its id (None
when a location is empty); a location is its key; a player is a seat number, a team a
team number; a collection is a sequence (cards bottom first, top last).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardlang import ast
from cardlang import collections_ops as ops
from cardlang import types as T
from cardlang.checker import CheckedGame
from cardlang.errors import RuleError
from cardlang.points import EMPTY_POINTS, PointMap
from cardlang.state import (
    F_CUR,
    GAME_OWNER,
    Gamestate,
    current_player,
    current_team,
    next_in_cycle,
    next_player,
    previous_in_cycle,
    previous_player,
    rand_below,
)

Fn = Callable[[Gamestate], Any]
EMPTY: tuple[int, ...] = ()


class ExprCompiler:
    def __init__(self, checked: CheckedGame) -> None:
        self.checked = checked
        self._declared: dict[int, Fn] = {}

    def type_of(self, node: ast.Node) -> str:
        return self.checked.type_of(node)

    def slot(self, node: ast.Node) -> int:
        return self.checked.slots[id(node)]

    # ------------------------------------------------------------ entry points
    def value(self, node: ast.Node) -> Fn:
        """A closure giving the node's value; storages are read (an int, not a key)."""
        t = self.type_of(node)
        if t in (T.INTSTO, T.STRSTO, T.POINTS):
            return self._read_storage(node, t)
        return self._compile(node)

    def _read_storage(self, node: ast.Node, t: str) -> Fn:
        table, default = {T.INTSTO: ("ints", 0), T.STRSTO: ("strs", ""),
                          T.POINTS: ("points", EMPTY_POINTS)}[t]
        # Hot path: build the key inline rather than through another closure.
        if isinstance(node, ast.Storage) and isinstance(node.name, ast.NameLiteral):
            owner = self.owner(node.owner)
            name = node.name.value
            if _is_constant(owner):
                k = (owner(None), name)
                if table == "ints":
                    return lambda st: st.ints.get(k, 0)
                if table == "strs":
                    return lambda st: st.strs.get(k, "")
                return lambda st: st.points.get(k, default)
            if table == "ints":
                return lambda st: st.ints.get((owner(st), name), 0)
            if table == "strs":
                return lambda st: st.strs.get((owner(st), name), "")
            return lambda st: st.points.get((owner(st), name), default)
        key = self.storage_key(node)
        return lambda st: getattr(st, table).get(key(st), default)

    def cards(self, node: ast.Node) -> Fn:
        """A closure giving a sequence: a location's cards, or any collection's elements."""
        t = self.type_of(node)
        if t in (T.LOC, T.MEMLOC):
            key = self.location_key(node)
            if _is_constant(key):
                k = key(None)
                return lambda st: st.zones.get(k, EMPTY)
            if (isinstance(node, ast.Location) and isinstance(node.name, ast.NameLiteral)
                    and node.index is None):
                owner, kind, name = self.owner(node.owner), node.kind, node.name.value
                return lambda st: st.zones.get((owner(st), kind, name), EMPTY)
            return lambda st: st.zones.get(key(st), EMPTY)
        if t == T.TEAM:
            team = self.value(node)
            return lambda st: st.teams[team(st)]
        return self.value(node)

    def location_key(self, node: ast.Node) -> Fn:
        """For a location-typed node: a closure giving its key."""
        return self._compile(node)

    def storage_key(self, node: ast.Node) -> Fn:
        if isinstance(node, ast.Storage):
            owner = self.owner(node.owner)
            name = self.value(node.name)
            if _is_constant(owner) and _is_constant(name):
                k = (owner(None), name(None))
                return lambda st: k
            if _is_constant(name):
                n = name(None)
                return lambda st: (owner(st), n)
            return lambda st: (owner(st), name(st))
        return self._compile(node)  # a variable bound to a storage

    def owner(self, node: ast.Node) -> Fn:
        """An owner code: -1 for the game, a seat for a player, -2-t for team t."""
        t = self.type_of(node)
        if t == T.GAME:
            return _const(GAME_OWNER)
        f = self.value(node)
        if t == T.TEAM:
            return lambda st: -2 - f(st)
        return f

    def _compile(self, node: ast.Node) -> Fn:
        method = getattr(self, "c_" + type(node).__name__)
        return method(node)  # type: ignore[no-any-return]

    # ------------------------------------------------------------ atoms
    def c_IntLiteral(self, n: ast.IntLiteral) -> Fn:
        return _const(n.value)

    def c_NameLiteral(self, n: ast.NameLiteral) -> Fn:
        return _const(n.value)

    def c_StrList(self, n: ast.StrList) -> Fn:
        return _const(n.values)

    def c_Variable(self, n: ast.Variable) -> Fn:
        declare = self.checked.declares.get(id(n))
        if declare is not None:
            if id(declare) not in self._declared:
                self._declared[id(declare)] = self.value(declare.value)
            return self._declared[id(declare)]
        slot = self.slot(n)
        return lambda st: st.regs[slot]

    def c_GameOwner(self, n: ast.GameOwner) -> Fn:
        return _const(GAME_OWNER)

    def c_AllOfKind(self, n: ast.AllOfKind) -> Fn:
        if n.kind == "player":
            return lambda st: range(st.nplayers)
        return lambda st: range(len(st.teams))

    # ------------------------------------------------------------ cards
    def c_CardAt(self, n: ast.CardAt) -> Fn:
        items = self.cards(n.collection)
        span = n.span
        # Cards lie bottom first, top last.  A collection of collections (tuples, runs,
        # partition ...) is a list of groups whose *first* group is its top, as in
        # CardStock: (top (tuples 2 HAND using P)) is the lowest-scoring pair.
        groups = self.type_of(n.collection) == T.CARDSS
        top, bottom = (0, -1) if groups else (-1, 0)
        if n.position == "top":
            return lambda st: (z[top] if (z := items(st)) else None)
        if n.position == "bottom":
            return lambda st: (z[bottom] if (z := items(st)) else None)
        index = self.value(n.position)  # type: ignore[arg-type]

        def nth_from_bottom(st: Gamestate) -> Any:
            z = items(st)
            i = index(st)
            if i < 0:
                raise RuleError(f"position {i} is negative", span)
            return z[i] if i < len(z) else None

        return nth_from_bottom

    def c_TopN(self, n: ast.TopN) -> Fn:
        items = self.cards(n.collection)
        count = self.value(n.count)
        if n.end == "top":
            return lambda st: (z[-c:] if (c := count(st)) > 0 and (z := items(st)) else EMPTY)
        return lambda st: (z[:c] if (c := count(st)) > 0 and (z := items(st)) else EMPTY)

    def c_MaxMin(self, n: ast.MaxMin) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)
        want_max = n.mode == "max"

        def best(st: Gamestate) -> Any:
            cards = items(st)
            if not cards:
                return None
            pm: PointMap = points(st)
            table = st.cards
            scores = [pm.score(table[c]) for c in cards]
            target = max(scores) if want_max else min(scores)
            tied = [c for c, s in zip(cards, scores, strict=True) if s == target]
            # CardStock breaks ties non-uniformly; we draw uniformly from the game's RNG.
            return tied[0] if len(tied) == 1 else tied[rand_below(st, len(tied))]

        return best

    def c_Actual(self, n: ast.Actual) -> Fn:
        return self.value(n.card)  # cards are ids: a reference is the card itself

    # ------------------------------------------------------------ locations, storages
    def c_Location(self, n: ast.Location) -> Fn:
        owner = self.owner(n.owner)
        name = self.value(n.name)
        kind = n.kind
        if n.index is not None:
            index = self.value(n.index)
            base = name
            name = lambda st: f"{base(st)}#{index(st)}" if index(st) else base(st)  # noqa: E731
        if _is_constant(owner) and _is_constant(name):
            return _const((owner(None), kind, name(None)))
        if _is_constant(name):
            nm = name(None)
            return lambda st: (owner(st), kind, nm)
        return lambda st: (owner(st), kind, name(st))

    def c_Storage(self, n: ast.Storage) -> Fn:
        return self.storage_key(n)

    # ------------------------------------------------------------ owners
    def c_PlayerRef(self, n: ast.PlayerRef) -> Fn:
        if n.which == "current":
            return current_player
        if n.which == "next":
            return next_player
        if n.which == "previous":
            return previous_player
        index = self.value(n.which)  # type: ignore[arg-type]
        span = n.span

        def nth_player(st: Gamestate) -> int:
            i = index(st)
            if not 0 <= i < st.nplayers:
                raise RuleError(f"there is no player {i} (players are 0..{st.nplayers - 1})", span)
            return i  # type: ignore[no-any-return]

        return nth_player

    def c_TeamRef(self, n: ast.TeamRef) -> Fn:
        if n.which == "current":
            return current_team
        if n.which in ("next", "previous"):
            in_cycle = next_in_cycle if n.which == "next" else previous_in_cycle
            step = 1 if n.which == "next" else -1

            def relative_team(st: Gamestate) -> int:
                frame = st.stack[st.stage_idx]
                if frame[6]:  # a team stage cycles over teams
                    return in_cycle(st)
                return (st.team_of[frame[F_CUR]] + step) % len(st.teams)

            return relative_team
        index = self.value(n.which)  # type: ignore[arg-type]
        span = n.span

        def nth_team(st: Gamestate) -> int:
            i = index(st)
            if not 0 <= i < len(st.teams):
                raise RuleError(f"there is no team {i}", span)
            return i  # type: ignore[no-any-return]

        return nth_team

    def c_OwnerOf(self, n: ast.OwnerOf) -> Fn:
        card = self.value(n.card)
        span = n.span

        def owner_of(st: Gamestate) -> int:
            c = card(st)
            if c is None:
                raise RuleError("(owner ...) of a card in an empty location", span)
            owner = st.card_zone[c][0]
            if owner < 0:
                raise RuleError("(owner ...) of a card that no player holds", span)
            return owner  # type: ignore[no-any-return]

        return owner_of

    def c_TeamOf(self, n: ast.TeamOf) -> Fn:
        player = self.value(n.player)
        return lambda st: st.team_of[player(st)]

    def c_Other(self, n: ast.Other) -> Fn:
        if n.kind == "player":
            return lambda st: [p for p in range(st.nplayers) if p != current_player(st)]
        return lambda st: [t for t in range(len(st.teams)) if t != current_team(st)]

    # ------------------------------------------------------------ collections
    def _card_parts(self, parts: Sequence[ast.Node]) -> list[tuple[bool, Fn]]:
        return [(self.type_of(p) == T.CARDSS, self.cards(p)) for p in parts]

    def c_SetOp(self, n: ast.SetOp) -> Fn:
        parts = self._card_parts(n.parts)

        def gather(st: Gamestate) -> list[Sequence[int]]:
            out: list[Sequence[int]] = []
            for nested, f in parts:
                if nested:
                    out.extend(f(st))
                else:
                    out.append(f(st))
            return out

        op = {"union": ops.union, "intersect": ops.intersect, "disjunction": ops.disjunction}[n.op]
        if n.op == "union" and len(parts) == 1 and parts[0][0]:
            f = parts[0][1]
            return lambda st: [c for group in f(st) for c in group]
        return lambda st: op(gather(st))

    def c_Filter(self, n: ast.Filter) -> Fn:
        items = self.cards(n.collection)
        slot = self.slot(n)
        cond = self.value(n.condition)

        def filtered(st: Gamestate) -> list[Any]:
            regs = st.regs
            out = []
            for e in items(st):
                regs[slot] = e
                if cond(st):
                    out.append(e)
            return out

        return filtered

    def c_Sort(self, n: ast.Sort) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)
        return lambda st: ops.sort_by_score(items(st), _scorer(st, points))

    def c_RunEnd(self, n: ast.RunEnd) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)
        count = self.value(n.count)
        end = n.end
        return lambda st: ops.run_at_end(items(st), _scorer(st, points), count(st), end)

    def c_Runs(self, n: ast.Runs) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)
        count = self.value(n.count)
        mode = n.mode
        return lambda st: ops.runs(items(st), _scorer(st, points), count(st), mode)

    def c_Tuples(self, n: ast.Tuples) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)
        count = self.value(n.count)
        return lambda st: ops.tuples(items(st), _scorer(st, points), count(st))

    def c_Subsets(self, n: ast.Subsets) -> Fn:
        items = self.cards(n.collection)
        span = n.span

        def subsets(st: Gamestate) -> list[tuple[int, ...]]:
            cards = items(st)
            if len(cards) > ops.MAX_SUBSET_CARDS:
                raise RuleError(
                    f"(subsets ...) of {len(cards)} cards would make {2 ** len(cards)} "
                    f"collections; the limit is {ops.MAX_SUBSET_CARDS} cards "
                    f"({2 ** ops.MAX_SUBSET_CARDS} subsets)",
                    span,
                )
            return ops.subsets(cards)

        return subsets

    def c_Partition(self, n: ast.Partition) -> Fn:
        key = self.value(n.key)
        parts = self._card_parts(n.parts)

        def partition(st: Gamestate) -> list[list[int]]:
            cards: list[int] = []
            for nested, f in parts:
                if nested:
                    for group in f(st):
                        cards.extend(group)
                else:
                    cards.extend(f(st))
            return ops.partition(cards, st.cards, key(st))

        return partition

    def c_Aggregate(self, n: ast.Aggregate) -> Fn:
        items = self.cards(n.collection)
        slot = self.slot(n)
        if self.type_of(n) == T.CARDSS:
            body = self.cards(n.body)

            def gather(st: Gamestate) -> list[Sequence[int]]:
                regs = st.regs
                out = []
                for e in items(st):
                    regs[slot] = e
                    out.append(body(st))
                return out

            return gather
        cond = self.value(n.body)
        if n.quantifier == "any":

            def exists(st: Gamestate) -> bool:
                regs = st.regs
                for e in items(st):
                    regs[slot] = e
                    if cond(st):
                        return True
                return False

            return exists

        def forall(st: Gamestate) -> bool:
            regs = st.regs
            for e in items(st):
                regs[slot] = e
                if not cond(st):
                    return False
            return True

        return forall

    def c_Range(self, n: ast.Range) -> Fn:
        low, high = self.value(n.low), self.value(n.high)
        return lambda st: range(low(st), high(st) + 1)

    # ------------------------------------------------------------ integers
    def c_Random(self, n: ast.Random) -> Fn:
        high = self.value(n.high)
        low = self.value(n.low) if n.low is not None else _const(0)
        span = n.span

        def random(st: Gamestate) -> int:
            lo, hi = low(st), high(st)
            if hi < lo:
                raise RuleError(f"(random {lo} .. {hi}) is an empty range", span)
            return lo + rand_below(st, hi - lo + 1)

        return random

    def c_Arith(self, n: ast.Arith) -> Fn:
        a, b = self.value(n.left), self.value(n.right)
        span = n.span
        if n.op == "+":
            return lambda st: a(st) + b(st)
        if n.op == "-":
            return lambda st: a(st) - b(st)
        if n.op == "*":
            return lambda st: a(st) * b(st)
        if n.op == "^":

            def power(st: Gamestate) -> int:
                base, exp = a(st), b(st)
                if exp < 0 or exp > 64:
                    raise RuleError(f"exponent {exp} is outside 0..64", span)
                return base**exp  # type: ignore[no-any-return]

            return power
        op = n.op

        def divide(st: Gamestate) -> int:
            x, y = a(st), b(st)
            if y == 0:
                raise RuleError(f"({op} {x} 0): division by zero", span)
            return x // y if op == "//" else x % y  # type: ignore[no-any-return]

        return divide

    def c_UnaryInt(self, n: ast.UnaryInt) -> Fn:
        f = self.value(n.operand)
        if n.op == "tri":
            return lambda st: (x := f(st)) * (x + 1) // 2
        return lambda st: ops.fibonacci(f(st))

    def c_Size(self, n: ast.Size) -> Fn:
        items = self.cards(n.collection)
        return lambda st: len(items(st))

    def c_Sum(self, n: ast.Sum) -> Fn:
        items = self.cards(n.collection)
        points = self.value(n.points)

        def total(st: Gamestate) -> int:
            pm = points(st)
            table = st.cards
            return sum(pm.score(table[c]) for c in items(st))

        return total

    def c_Score(self, n: ast.Score) -> Fn:
        card = self.value(n.card)
        points = self.value(n.points)
        return lambda st: 0 if (c := card(st)) is None else points(st).score(st.cards[c])

    # ------------------------------------------------------------ strings
    def c_CardAtt(self, n: ast.CardAtt) -> Fn:
        card = self.value(n.card)
        key = self.value(n.key)
        if _is_constant(key):
            k = key(None)
            if isinstance(n.card, ast.Variable) and id(n.card) in self.checked.slots:
                slot = self.slot(n.card)
                return lambda st: "" if (c := st.regs[slot]) is None else st.cards[c].get(k, "")
            return lambda st: "" if (c := card(st)) is None else st.cards[c].get(k, "")
        return lambda st: "" if (c := card(st)) is None else st.cards[c].get(key(st), "")

    # ------------------------------------------------------------ booleans
    def c_Compare(self, n: ast.Compare) -> Fn:
        a, b = self.value(n.left), self.value(n.right)
        if _is_constant(b):
            v = b(None)
            match n.op:
                case "==":
                    return lambda st: a(st) == v
                case "!=":
                    return lambda st: a(st) != v
                case "<":
                    return lambda st: a(st) < v
                case ">":
                    return lambda st: a(st) > v
                case "<=":
                    return lambda st: a(st) <= v
                case _:
                    return lambda st: a(st) >= v
        match n.op:
            case "==":
                return lambda st: a(st) == b(st)
            case "!=":
                return lambda st: a(st) != b(st)
            case "<":
                return lambda st: a(st) < b(st)
            case ">":
                return lambda st: a(st) > b(st)
            case "<=":
                return lambda st: a(st) <= b(st)
            case _:
                return lambda st: a(st) >= b(st)

    def c_BoolOp(self, n: ast.BoolOp) -> Fn:
        fs = [self.value(o) for o in n.operands]
        if len(fs) == 2:
            f, g = fs
            if n.op == "and":
                return lambda st: f(st) and g(st)
            return lambda st: f(st) or g(st)
        if n.op == "and":
            return lambda st: all(f(st) for f in fs)
        return lambda st: any(f(st) for f in fs)

    def c_Not(self, n: ast.Not) -> Fn:
        f = self.value(n.operand)
        return lambda st: not f(st)


def _scorer(st: Gamestate, points: Fn) -> Callable[[int], int]:
    pm: PointMap = points(st)
    table = st.cards
    return lambda c: pm.score(table[c])


class _Const:
    """A closure with a value known at compile time (lets callers fold constants)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __call__(self, st: Any) -> Any:
        return self.value


def _const(value: Any) -> Fn:
    return _Const(value)


def _is_constant(f: Fn) -> bool:
    return isinstance(f, _Const)
