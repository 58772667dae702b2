"""Statements to runnable pieces: generated actions, control nodes and option listers.

Pipeline position: compiler, after the checker, beside expressions.py; it builds the
structures of cardlang.engine.control, which the Gamemaster runs.

A statement that cannot reach a decision compiles to one action: generated Python for
blocks, guards, loops, storage updates, moves and calls, closures for the rest.  A
statement that can (a choice, a stage, or anything holding one) compiles to a control
node.  Inside a choice, statements compile to *expanders* and generated *listers* that
list the options: an option is the sequence of steps (variable bindings and actions) one
path through the choice takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from cardlang.compiler.expressions import ExprCompiler
from cardlang.engine.control import (
    MAX_CALL_DEPTH,
    Action,
    Atomic,
    CallDepth,
    CallNode,
    ChoiceNode,
    CompiledProcedure,
    Control,
    Emit,
    Expander,
    GuardNode,
    LetNode,
    LoopNode,
    RepeatNode,
    Seq,
    StageNode,
    Steps,
    WhileNode,
)
from cardlang.engine.frames import F_CUR, F_QUEUED, F_TEAM
from cardlang.engine.points import PointMap
from cardlang.engine.runtime import MAX_REPEAT, Fn, repeat_count
from cardlang.engine.state import (
    Gamestate,
    cycle_size,
    next_in_cycle,
    previous_in_cycle,
    set_current,
    shuffle_in_place,
)
from cardlang.errors import RuleError, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import (
    CheckedGame,
    Procedure,
    deck_cards,
    one_based_teams,
    reaches_decision,
    static_int,
)
from cardlang.language.kinds import KIND_ATTRIBUTE
from cardlang.language.statics import kind_attribute_tables

# ---------------------------------------------------------------- the compiler


class StmtCompiler:
    def __init__(self, checked: CheckedGame, exprs: ExprCompiler) -> None:
        self.checked = checked
        self.x = exprs
        self.procedures: dict[str, CompiledProcedure] = {}
        # nesting of atomic calls of recursive procedures now running, all procedures
        # together (mutual recursion is bounded too)
        self.call_depth = CallDepth()
        self.kind_cards = kind_attribute_tables(checked)

    # ------------------------------------------------------------ classification
    def has_decision(self, node: ast.Node) -> bool:
        return reaches_decision(node, self.checked.procedures)

    # ------------------------------------------------------------ procedures
    def procedure(self, name: str) -> CompiledProcedure:
        """The compiled procedure; the object exists before its bodies (recursion)."""
        proc = self.procedures.get(name)
        if proc is not None:
            return proc
        info = self.checked.procedures[name]
        proc = self.procedures[name] = CompiledProcedure(info)
        proc.default = self._procedure_body(info, info.node.body, info.node.span)
        proc.hooks = {
            kind: self._procedure_body(info, hook.body, hook.span)
            for kind, hook in info.hooks.items()
        }
        return proc

    def _procedure_body(self, info: Procedure, body: tuple[ast.Node, ...], span: ast.Span) -> Any:
        """An action when this body reaches no decision; else a control node (a body of a
        procedure with decisions elsewhere is an Atomic control: it runs at once)."""
        atomic = not any(self.has_decision(item) for item in body)
        if not info.has_decision:
            return self.action(ast.Do(body, span=span))
        if atomic:
            return Atomic(self.action(ast.Do(body, span=span)), span)
        return self.block(body, span)

    def _arg_sources(self, n: ast.Call) -> list[str]:
        """The source of each argument of a call; a card collection is passed as a
        snapshot, never as a location's own list."""
        types = self.checked.procedures[n.name].param_types
        return [
            f"tuple({self.x.cards_src(a)})" if t == T.CARDS else self.x.src(a)
            for a, t in zip(n.args, types, strict=True)
        ]

    def _call_args(self, n: ast.Call) -> list[Fn]:
        return [self.x.value_of_source(src) for src in self._arg_sources(n)]

    # ------------------------------------------------------------ control
    def block(self, items: tuple[ast.Node, ...], span: ast.Span) -> Seq:
        """A sequence; each run of consecutive statements with no decision is compiled
        as one generated action."""
        controls: list[Control] = []
        run: list[ast.Node] = []
        for item in (*items, None):
            if item is not None and not self.has_decision(item):
                run.append(item)
                continue
            if run:
                group = run[0] if len(run) == 1 else ast.Do(tuple(run), span=run[0].span)
                controls.append(Atomic(self.action(group), run[0].span))
                run = []
            if item is not None:
                controls.append(self.control(item))
        return Seq(controls, span)

    def control(self, node: ast.Node) -> Control:
        if not self.has_decision(node):
            return Atomic(self.action(node), node.span)
        if isinstance(node, ast.Stage):
            body = self.block(node.body, node.span)
            end = self.x.value(node.end)
            return StageNode(node.kind == "team", end, body, node.span)
        if isinstance(node, ast.Choice):
            expanders = [self.expander(b) for b in node.body]
            lister, all_chains = self._choice_lister(node, expanders)
            chooser = self.x.value(node.chooser) if node.chooser is not None else None
            return ChoiceNode(
                expanders,
                node.span,
                situation=node.situation or "CHOICE",
                branches=tuple(b.span for b in node.body),
                lister=lister,
                all_chains=all_chains,
                chooser=chooser,
            )
        if isinstance(node, ast.Call):
            return CallNode(self.procedure(node.name), self._call_args(node), node.span)
        if isinstance(node, ast.While):
            return WhileNode(
                self.x.value(node.condition), self.block(node.body, node.span), node.span
            )
        if isinstance(node, ast.Do):
            return self.block(node.body, node.span)
        if isinstance(node, ast.Guarded):
            return GuardNode(self.x.value(node.condition), self.control(node.body), node.span)
        if isinstance(node, ast.Let):
            slot = self.checked.slots[id(node)]
            return LetNode(slot, self.x.value(node.value), self.control(node.body), node.span)
        if isinstance(node, ast.ForEach):
            slot = self.checked.slots[id(node)]
            return LoopNode(slot, self.x.cards(node.collection), self.control(node.body), node.span)
        if isinstance(node, ast.Repeat):
            return RepeatNode(self.x.value(node.count), self.control(node.body), node.span)
        raise AssertionError(f"no control node for {type(node).__name__}")

    # ------------------------------------------------------------ atomic actions
    def action(self, node: ast.Node) -> Action:
        """A statement that reaches no decision, as one function.

        Blocks, guards, lets, loops, storage updates and calls become one generated
        function (see ``_lines``); anything else is a closure (``a_*``), which the
        generated code calls.
        """
        if not isinstance(node, _INLINED):
            return self._closure(node)
        consts: dict[str, Any] = {}
        body = self._lines(node, 1, consts)
        if body == ["    C0(st)"] and list(consts) == ["C0"]:  # one closure: no wrapper
            return consts["C0"]  # type: ignore[no-any-return]
        lines = ["def act(st):", *_with_locals(body or ["    pass"])]
        return self.x.define("act", lines, **consts)  # type: ignore[no-any-return]

    def _closure(self, node: ast.Node) -> Action:
        method = getattr(self, "a_" + type(node).__name__)
        return method(node)  # type: ignore[no-any-return]

    def _lines(self, node: ast.Node, depth: int, consts: dict[str, Any]) -> list[str]:
        """Python statements (indented ``depth`` levels) that run an atomic statement."""
        pad = "    " * depth
        n = len(consts)
        src = self.x.src
        if depth > _MAX_INLINE_DEPTH or not isinstance(node, _INLINED):
            name = f"C{n}"
            consts[name] = self._closure(node)
            return [f"{pad}{name}(st)"]
        if isinstance(node, ast.Do):
            return [line for b in node.body for line in self._lines(b, depth, consts)]
        if isinstance(node, ast.Pass | ast.TurnPass):
            return []
        if isinstance(node, ast.Guarded):
            body = self._lines(node.body, depth + 1, consts) or [f"{pad}    pass"]
            return [f"{pad}if {src(node.condition)}:", *body]
        if isinstance(node, ast.Let):
            slot = self.checked.slots[id(node)]
            return [f"{pad}regs[{slot}] = {src(node.value)}"] + self._lines(
                node.body, depth, consts
            )
        if isinstance(node, ast.ForEach):
            if self.x.unrolled(node, lambda: None) is not None:  # one body per seat: closure
                return self._lines_by_closure(node, pad, consts)
            slot = self.checked.slots[id(node)]
            consts[f"_anchor{n}"] = None  # keeps the loop variable's name unique
            body = self._lines(node.body, depth + 1, consts) or [f"{pad}    pass"]
            return [
                f"{pad}for e{n} in tuple({self.x.cards_src(node.collection)}):",
                f"{pad}    regs[{slot}] = e{n}",
                *body,
            ]
        if isinstance(node, ast.Increment):
            k, v = f"k{n}", f"v{n}"
            consts[f"_anchor{n}"] = None  # keeps temporary names unique
            return [
                f"{pad}{k} = {self.x.raw_src(node.target)}",
                f"{pad}{v} = st.ints[{k}] = st.ints.get({k}, 0) "
                f"{'+' if node.sign > 0 else '-'} ({src(node.amount)})",
                f"{pad}if st.log is not None:",
                f"{pad}    st.log.append(('set', {k}, {v}))",
            ]
        if isinstance(node, ast.SetValue):
            t = self.checked.type_of(node.target)
            if t not in (T.INTSTO, T.STRSTO) or isinstance(node.value, ast.Awards):
                return self._lines_by_closure(node, pad, consts)
            k, v = f"k{n}", f"v{n}"
            consts[f"_anchor{n}"] = None
            table = "ints" if t == T.INTSTO else "strs"
            return [
                f"{pad}{v} = {src(node.value)}",
                f"{pad}{k} = {self.x.raw_src(node.target)}",
                f"{pad}st.{table}[{k}] = {v}",
                f"{pad}if st.log is not None:",
                f"{pad}    st.log.append(('set', {k}, {v}))",
            ]
        if isinstance(node, ast.Call):
            return self._call_lines(node, pad, consts)
        if isinstance(node, ast.Move):
            return self._move_lines(node, pad, consts)
        if isinstance(node, ast.Repeat) and not isinstance(node.body, ast.Move):
            sp = f"SPAN{n}"
            consts[sp] = node.span
            body = self._lines(node.body, depth + 1, consts) or [f"{pad}    pass"]
            return [f"{pad}for _ in range(repeat_count({src(node.count)}, {sp})):", *body]
        return self._lines_by_closure(node, pad, consts)

    def _move_lines(self, n: ast.Move, pad: str, consts: dict[str, Any]) -> list[str]:
        """A move of any card to the top or bottom of a location, written inline; the
        common (top LOCATION) -> (top LOCATION) keeps its own generated function."""
        dest = n.dest
        fast = self._end_of_location(n.card) is not None
        if fast or not (isinstance(dest, ast.CardAt) and dest.position in ("top", "bottom")):
            return self._lines_by_closure(n, pad, consts)
        t = len(consts)
        consts[f"MESSAGE{t}"], consts[f"SPAN{t}"] = self._move_message(n), n.span
        c, k, z, dk, dz = (f"{x}{t}" for x in ("c", "k", "z", "dk", "dz"))
        put = f"{dz}.append({c})" if dest.position == "top" else f"{dz}.insert(0, {c})"
        at = f"len({dz}) - 1" if dest.position == "top" else "0"
        return [
            f"{pad}{c} = {self.x.src(n.card)}",
            f"{pad}if {c} is None:",
            f"{pad}    raise RuleError(MESSAGE{t}, SPAN{t})",
            f"{pad}{k} = st.card_zone[{c}]",
            f"{pad}{z} = st.zones[{k}]",
            f"{pad}if {z}[-1] == {c}:",
            f"{pad}    {z}.pop()",
            f"{pad}else:",
            f"{pad}    {z}.remove({c})",
            f"{pad}{dk} = {self.x.raw_src(dest.collection)}",
            f"{pad}{dz} = st.zones.get({dk})",
            f"{pad}if {dz} is None:",
            f"{pad}    {dz} = st.zones[{dk}] = []",
            f"{pad}{put}",
            f"{pad}st.card_zone[{c}] = {dk}",
            f"{pad}if st.log is not None:",
            f"{pad}    st.log.append(('move', {c}, {k}, {dk}, {at}))",
        ]

    def _lines_by_closure(self, node: ast.Node, pad: str, consts: dict[str, Any]) -> list[str]:
        name = f"C{len(consts)}"
        consts[name] = self._closure(node)
        return [f"{pad}{name}(st)"]

    def _call_lines(self, n: ast.Call, pad: str, consts: dict[str, Any]) -> list[str]:
        """A call of a procedure that reaches no decision: evaluate the arguments, bind
        the parameters, run the body; a recursive procedure's registers are saved and
        restored around it, and its depth is bounded."""
        proc = self.procedure(n.name)
        info = proc.info
        tag = len(consts)
        p, sp = f"PROC{tag}", f"SPAN{tag}"
        consts[p], consts[sp] = proc, n.span
        consts[f"MESSAGE{tag}"] = f"procedure calls nested too deeply (recursion in {n.name}?)"
        lines = [f"{pad}a{tag}_{i} = {s}" for i, s in enumerate(self._arg_sources(n))]
        body = f"{p}.default"
        if info.hooks:  # the kind's own body, dispatched inline (body_for when no card)
            a0 = f"a{tag}_0"
            body = (
                f"({p}.hooks.get(st.cards[{a0}].get({KIND_ATTRIBUTE!r}), {p}.default) "
                f"if {a0} is not None else {p}.body_for(st, {a0}, {sp}))"
            )
        consts["DEPTH"] = self.call_depth
        low, high = info.slots
        binds = [f"{pad}regs[{slot}] = a{tag}_{i}" for i, slot in enumerate(info.param_slots)]
        if not info.recursive:
            return lines + binds + [f"{pad}{body}(st)"]
        return lines + [
            f"{pad}saved{tag} = regs[{low}:{high}]",
            f"{pad}if DEPTH.n >= {MAX_CALL_DEPTH}:",
            f"{pad}    raise RuleError(MESSAGE{tag}, {sp})",
            f"{pad}DEPTH.n += 1",
            *binds,
            f"{pad}try:",
            f"{pad}    {body}(st)",
            f"{pad}finally:",
            f"{pad}    DEPTH.n -= 1",
            f"{pad}regs[{low}:{high}] = saved{tag}",
        ]

    def a_Do(self, n: ast.Do) -> Action:
        actions = [self.action(b) for b in n.body]
        if len(actions) == 1:
            return actions[0]

        def run_all(st: Gamestate) -> None:
            for a in actions:
                a(st)

        return run_all

    def a_Call(self, n: ast.Call) -> Action:
        consts: dict[str, Any] = {}
        lines = ["def call(st):", *_with_locals(self._call_lines(n, "    ", consts))]
        return self.x.define("call", lines, **consts)  # type: ignore[no-any-return]

    def a_CreateCards(self, n: ast.CreateCards) -> Action:
        key = self.x.location_key(n.location)
        kind = self.x.value(n.kind)
        count = self.x.value(n.count)
        tables = self.kind_cards
        span = n.span

        def create_cards(st: Gamestate) -> None:
            name = kind(st)
            attrs = tables.get(name)
            if attrs is None:
                hint = did_you_mean(name, tables)
                raise RuleError(f"no card kind named {name}" + (f" ({hint})" if hint else ""), span)
            k = key(st)
            z = st.zones.get(k)
            if z is None:
                z = st.zones[k] = []
            made = repeat_count(count(st), span)
            first = len(st.cards)
            st.cards.extend([attrs] * made)
            st.card_zone.extend([k] * made)
            z.extend(range(first, first + made))
            if st.log is not None:
                st.log.append(("create", made, k))

        return create_cards

    def a_While(self, n: ast.While) -> Action:
        # No decision inside: run to the end now, bounded like any single action.
        cond = self.x.value(n.condition)
        body = self.action(ast.Do(n.body, span=n.span))
        span = n.span

        def while_loop(st: Gamestate) -> None:
            passes = 0
            while cond(st):
                passes += 1
                if passes > MAX_REPEAT:
                    raise RuleError(
                        f"(while ...) ran more than {MAX_REPEAT} passes without a decision", span
                    )
                body(st)

        return while_loop

    def a_Guarded(self, n: ast.Guarded) -> Action:
        cond = self.x.value(n.condition)
        body = self.action(n.body)

        def guarded(st: Gamestate) -> None:
            if cond(st):
                body(st)

        return guarded

    def a_ForEach(self, n: ast.ForEach) -> Action:
        # Outside a choice there is nobody to pick "any" element; CardStock runs the
        # body for every element, and so do we (documented in docs/language.md).
        copies = self.x.unrolled(n, lambda: self.action(n.body))
        if copies is not None:  # all players, a number fixed by the game: one body per seat

            def for_each_seat(st: Gamestate) -> None:
                for body_for_seat in copies:
                    body_for_seat(st)

            return for_each_seat
        items = self.x.cards(n.collection)
        slot = self.checked.slots[id(n)]
        body = self.action(n.body)

        def for_each(st: Gamestate) -> None:
            regs = st.regs
            for e in tuple(items(st)):
                regs[slot] = e
                body(st)

        return for_each

    def a_Let(self, n: ast.Let) -> Action:
        value = self.x.value(n.value)
        slot = self.checked.slots[id(n)]
        body = self.action(n.body)

        def let(st: Gamestate) -> None:
            st.regs[slot] = value(st)
            body(st)

        return let

    def _end_of_location(self, node: ast.Node) -> tuple[str, str] | None:
        """For (top|bottom LOCATION) of a real location: (its key's source, position)."""
        if (
            isinstance(node, ast.CardAt)
            and node.position in ("top", "bottom")
            and self.checked.type_of(node.collection) == T.LOC
        ):
            return self.x.raw_src(node.collection), node.position
        return None

    def _move_code(self, n: ast.Move, count_src: str | None = None) -> Action | None:
        """Generated code for (move (top|bottom LOC) (top|bottom LOC)), the common move, done
        once or, with ``count_src``, that many times (dealing, gathering).

        A repeated move looks both locations up once, before the loop, when moving cards
        cannot change their keys (no card, location size or owner-of-card in them).
        """
        source, dest = self._end_of_location(n.card), self._end_of_location(n.dest)
        if source is None or dest is None:
            return None
        source_lookup = [f"z = zones.get({source[0]})"]
        take = [
            "if not z:",
            "    raise RuleError(MESSAGE, SPAN)",
            "c = z.pop()" if source[1] == "top" else "c = z.pop(0)",
        ]
        dest_lookup = [
            f"dk = {dest[0]}",
            "dz = zones.get(dk)",
            "if dz is None:",
            "    dz = zones[dk] = []",
        ]
        landed = "len(dz) - 1" if dest[1] == "top" else "0"  # where the card lies now
        put = [
            "dz.append(c)" if dest[1] == "top" else "dz.insert(0, c)",
            "src = st.card_zone[c]",
            "st.card_zone[c] = dk",
            "if st.log is not None:",
            f"    st.log.append(('move', c, src, dk, {landed}))",
        ]
        # As in the general move, the destination is evaluated after the card is taken.
        one_move = source_lookup + take + dest_lookup + put
        lines = ["def moves(st):", "    zones = st.zones"]
        if count_src is None:
            lines += _indent(one_move, 1)
        elif _stable_key(source[0]) and _stable_key(dest[0]):
            lines += [
                f"    count = repeat_count({count_src}, SPAN)",
                "    if count <= 0:",
                "        return",
            ]
            lines += _indent(source_lookup + dest_lookup, 1) + ["    for _ in range(count):"]
            lines += _indent(take + put, 2)
        else:
            lines += [f"    for _ in range(repeat_count({count_src}, SPAN)):"]
            lines += _indent(one_move, 2)
        return self.x.define(  # type: ignore[no-any-return]
            "moves", lines, MESSAGE=self._move_message(n), SPAN=n.span
        )

    def _move_message(self, n: ast.Move) -> str:
        what = self.checked.source.snippet(n.card.span, 60)
        return f"move from an empty location: {what} has no card"

    def a_Move(self, n: ast.Move) -> Action:
        fast = self._move_code(n)
        if fast is not None:
            return fast
        card = self.x.value(n.card)
        dest_key, place = self._position(n.dest)
        on_top = isinstance(n.dest, ast.CardAt) and n.dest.position == "top"
        span = n.span
        message = self._move_message(n)

        def move(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError(message, span)
            zones = st.zones
            src = st.card_zone[c]
            z = zones[src]
            if z[-1] == c:
                z.pop()
            else:
                z.remove(c)
            dk = dest_key(st)
            dz = zones.get(dk)
            if dz is None:
                dz = zones[dk] = []
            if on_top:
                dz.append(c)
                at = len(dz) - 1
            else:
                at = place(st, dz, c)
            st.card_zone[c] = dk
            if st.log is not None:
                st.log.append(("move", c, src, dk, at))

        return move

    def _position(self, node: ast.Node) -> tuple[Fn, Callable[[Gamestate, list[int], int], int]]:
        """(top|bottom|N LOCATION) as a destination: its key, and how to insert there
        (which gives the index the card took, for the event log)."""
        assert isinstance(node, ast.CardAt)
        key = self.x.location_key(node.collection)
        if node.position == "top":
            return key, _put_on_top
        if node.position == "bottom":
            return key, _put_at_bottom
        index = self.x.value(node.position)  # type: ignore[arg-type]

        def put_at(st: Gamestate, z: list[int], c: int) -> int:
            at = min(max(index(st), 0), len(z))  # N from the bottom, as list.insert clamps
            z.insert(at, c)
            return at

        return key, put_at

    def a_Remember(self, n: ast.Remember) -> Action:
        card = self.x.value(n.card)
        dest_key, place = self._position(n.dest)
        span = n.span

        def remember(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError("remember of a card in an empty location", span)
            dk = dest_key(st)
            dz = st.zones.get(dk)
            if dz is None:
                dz = st.zones[dk] = []
            place(st, dz, c)
            if st.log is not None:  # a remembered card is shown to everyone
                st.log.append(("remember", c, dk))

        return remember

    def a_Forget(self, n: ast.Forget) -> Action:
        assert isinstance(n.card, ast.CardAt)
        key = self.x.location_key(n.card.collection)
        card = self.x.value(n.card)
        span = n.span

        def forget(st: Gamestate) -> None:
            c = card(st)
            if c is None:
                raise RuleError("forget from an empty mem location", span)
            z = st.zones[key(st)]
            # remove the reference at that position: search from the top
            for i in range(len(z) - 1, -1, -1):
                if z[i] == c:
                    del z[i]
                    return

        return forget

    def a_Shuffle(self, n: ast.Shuffle) -> Action:
        key = self.x.location_key(n.location)

        def shuffle(st: Gamestate) -> None:
            z = st.zones.get(key(st))
            if z:
                shuffle_in_place(st, z)
                if st.log is not None:  # with the new order, for knowledge.py
                    st.log.append(("shuffle", key(st), tuple(z)))

        return shuffle

    def a_SetValue(self, n: ast.SetValue) -> Action:
        t = self.checked.type_of(n.target)
        key = self.x.storage_key(n.target)
        if t == T.POINTS and isinstance(n.value, ast.Awards):
            make = self._awards(n.value)

            def set_points(st: Gamestate) -> None:
                st.points[key(st)] = make(st)

            return set_points
        value = self.x.value(n.value)
        table = {T.INTSTO: "ints", T.STRSTO: "strs", T.POINTS: "points"}[t]

        def set_value(st: Gamestate) -> None:
            v = value(st)
            getattr(st, table)[key(st)] = v
            if st.log is not None:
                st.log.append(("set", key(st), v))

        return set_value

    def _awards(self, n: ast.Awards) -> Callable[[Gamestate], PointMap]:
        # One generated function builds the whole awards tuple; Python folds the
        # constant parts at compile time.
        def award_src(award: ast.Award) -> str:
            conds = "".join(
                f"({self.x.src(c.key)}, {self.x.src(c.value)}), " for c in award.conditions
            )
            return f"(({conds}), {self.x.src(award.points)})"

        build = self.x.value_of_source("(" + "".join(award_src(a) + ", " for a in n.awards) + ")")

        # Point maps are immutable, so equal ones are shared: a trick-taking game that
        # re-sets its precedence map every trick then keeps the scores it computed.
        interned: dict[Any, PointMap] = {}

        def make(st: Gamestate) -> PointMap:
            awards = build(st)
            pm = interned.get(awards)
            if pm is None:
                if len(interned) >= 4096:
                    interned.clear()
                pm = interned[awards] = PointMap(awards)
            return pm

        return make

    def a_Increment(self, n: ast.Increment) -> Action:
        key = self.x.storage_key(n.target)
        amount = self.x.value(n.amount)
        sign = n.sign

        def increment(st: Gamestate) -> None:
            k = key(st)
            v = st.ints[k] = st.ints.get(k, 0) + sign * amount(st)
            if st.log is not None:
                st.log.append(("set", k, v))

        return increment

    def a_Cycle(self, n: ast.Cycle) -> Action:
        target: Fn
        if n.target == "current":
            target = lambda st: st.stack[st.stage_idx][F_CUR]  # noqa: E731
        elif n.target == "next":
            target = next_in_cycle
        elif n.target == "previous":
            target = previous_in_cycle
        else:
            player = self.x.value(n.target)  # type: ignore[arg-type]

            def target(st: Gamestate) -> Any:  # a player; its team in a team stage
                frame = st.stack[st.stage_idx]
                return st.team_of[player(st)] if frame[F_TEAM] else player(st)

        queue = n.mode == "next"

        def cycle(st: Gamestate) -> None:
            frame = st.stack[st.stage_idx]
            value = target(st)
            if not 0 <= value < cycle_size(st, frame):
                raise RuleError(f"cannot cycle to {value}", n.span)
            if queue:
                frame[F_QUEUED] = value
            else:
                set_current(frame, value)

        return cycle

    def a_Swap(self, n: ast.Swap) -> Action:
        first, second = self.x.value(n.first), self.x.value(n.second)
        span = n.span

        def swap(st: Gamestate) -> None:
            a, b = first(st), second(st)
            if a is None or b is None:
                raise RuleError("swap with an empty location: there is no card to swap", span)
            if a == b:
                return
            ka, kb = st.card_zone[a], st.card_zone[b]
            za, zb = st.zones[ka], st.zones[kb]
            ia, ib = za.index(a), zb.index(b)
            za[ia], zb[ib] = b, a
            st.card_zone[a], st.card_zone[b] = kb, ka
            if st.log is not None:
                # as two moves, each to where the card now lies (replayed in this order,
                # they reproduce the swap: see knowledge.py)
                st.log.append(("move", a, ka, kb, ib))
                st.log.append(("move", b, kb, ka, ia))

        return swap

    def a_TurnPass(self, n: ast.TurnPass) -> Action:
        return _no_op

    def a_Pass(self, n: ast.Pass) -> Action:
        return _no_op

    def a_Repeat(self, n: ast.Repeat) -> Action:
        if isinstance(n.body, ast.Move):
            loop = self._move_code(n.body, self.x.src(n.count))
            if loop is not None:
                return loop
        count = self.x.value(n.count)
        body = self.action(n.body)
        span = n.span

        def repeat(st: Gamestate) -> None:
            for _ in range(repeat_count(count(st), span)):
                body(st)

        return repeat

    def a_RepeatAll(self, n: ast.RepeatAll) -> Action:
        # Repeat as many times as the source has cards when the loop starts, so a move
        # back into the same location cannot loop for ever.
        inner = n.body
        if isinstance(inner, ast.Move):
            end = self._end_of_location(inner.card)
            if end is not None:
                loop = self._move_code(inner, f"len(st.zones.get({end[0]}, ()))")
                if loop is not None:
                    return loop
        body = self.action(n.body)
        source_collection = ast.repeat_all_source(inner)
        assert source_collection is not None, "the checker guarantees a source collection"
        source = self.x.cards(source_collection)

        def repeat_all(st: Gamestate) -> None:
            for _ in range(len(source(st))):
                body(st)

        return repeat_all

    def a_CreatePlayers(self, n: ast.CreatePlayers) -> Action:
        count = static_int(n.count, lambda name: None)
        span = n.span

        def create_players(st: Gamestate) -> None:
            if count is not None and count != st.nplayers:
                raise RuleError("the number of players cannot change during a game", span)

        return create_players

    def a_CreateTeams(self, n: ast.CreateTeams) -> Action:
        listed = [tuple(t) for t in n.teams]
        if one_based_teams(n, self.x.nplayers):  # the checker warned about it
            listed = [tuple(p - 1 for p in t) for t in listed]
        span = n.span

        def create_teams(st: Gamestate) -> None:
            teams = [t for t in listed]
            named = {p for t in teams for p in t}
            if any(not 0 <= p < st.nplayers for p in named):
                raise RuleError(f"teams name players outside 0..{st.nplayers - 1}", span)
            teams += [(p,) for p in range(st.nplayers) if p not in named]
            st.teams = teams
            st.team_of = [0] * st.nplayers
            for i, team in enumerate(teams):
                for p in team:
                    st.team_of[p] = i

        return create_teams

    def a_CreateDeck(self, n: ast.CreateDeck) -> Action:
        assert isinstance(n.deck, ast.Deck)
        descriptions = deck_cards(n.deck)
        key = self.x.location_key(n.location)
        name = self.x.value(n.name) if n.name is not None else None
        # One attribute dict per description, shared by every state (point maps cache
        # scores by its identity).  A named deck records its name as attribute DECK.
        shared: dict[str, list[dict[str, str]]] = {}

        def attrs_for(deck_name: str) -> list[dict[str, str]]:
            if deck_name not in shared:
                extra = {"DECK": deck_name} if deck_name else {}
                shared[deck_name] = [dict(d, **extra) for d in descriptions]
            return shared[deck_name]

        def create_deck(st: Gamestate) -> None:
            k = key(st)
            z = st.zones.get(k)
            if z is None:
                z = st.zones[k] = []
            made = attrs_for(name(st) if name else "")
            first = len(st.cards)
            st.cards.extend(made)
            st.card_zone.extend([k] * len(made))
            z.extend(range(first, first + len(made)))
            if st.log is not None:
                st.log.append(("create", len(made), k))

        return create_deck

    # ------------------------------------------------------------ choice listing
    def _choice_lister(self, node: ast.Choice, expanders: list[Expander]) -> Any:
        """Generated code listing a choice's options, for speed.

        A condact that is a *chain* -- guards, forks (any) and lets, ending in actions
        alone -- becomes nested ``if``/``for`` statements that append whole options:
        nothing is evaluated after an action of the same option, so no intermediate
        state is needed.  Any other condact calls its expander, in the same order.
        """
        # ``out`` is the list of options found so far; ``emit`` (for the expanders) adds
        # to that same list, so options keep the order of the condacts.
        constants: dict[str, Any] = {}
        all_chains = True
        body: list[str] = []
        reads: dict[str, str] = {}
        for k, (condact, expander) in enumerate(zip(node.body, expanders, strict=True)):
            chain = self._chain_lines(condact, 1, "()", constants, reads)
            if chain is None:
                all_chains = False
                constants[f"EXPAND{k}"] = expander
                chain = [f"    EXPAND{k}(st, (), 0, emit)"]
            body.extend(chain)
        # storage reads the conditions share are read once, first (nothing changes while
        # options are listed)
        lines = [f"    {name} = {read}" for read, name in reads.items()] + body
        lister = ["def lister(st, out, emit):", *_hoist_location_reads(_with_locals(lines))]
        return self.x.define("lister", lister, **constants), all_chains

    def _listing_src(self, node: ast.Node, reads: dict[str, str], cards: bool = False) -> str:
        """An expression of a chain, with the lister's loop variables and hoisted reads."""
        self.x.hoisted_reads = reads
        try:
            return self.x.cards_src(node) if cards else self.x.src(node)
        finally:
            self.x.hoisted_reads = None

    def _chain_lines(
        self,
        node: ast.Node,
        depth: int,
        steps: str,
        constants: dict[str, Any],
        reads: dict[str, str],
    ) -> list[str] | None:
        """The lines of a chain condact (see ``_choice_lister``), or None if it is not one.

        A variable the chain binds lives in a local of the lister (the expressions of the
        chain read it there, through ``ExprCompiler.aliases``); the option records the
        binding, which sets the register when the option is played.
        """
        pad = "    " * depth
        if _is_plain(node):
            # actions run later, from registers: no lister locals in their code
            saved = self.x.aliases, self.x.location_contents
            self.x.aliases, self.x.location_contents = {}, {}
            try:
                fixed = _fixed_steps(self.expander(node))
            finally:
                self.x.aliases, self.x.location_contents = saved
            if fixed is not None:
                name = f"FIXED{len(constants)}"
                constants[name] = fixed
                return [f"{pad}out.append({steps} + {name})"]
        if isinstance(node, ast.Guarded):
            body = self._chain_lines(node.body, depth + 1, steps, constants, reads)
            if body is None:
                return None
            return [f"{pad}if {self._listing_src(node.condition, reads)}:", *body]
        if isinstance(node, ast.Let) or (
            isinstance(node, ast.ForEach) and node.quantifier == "any"
        ):
            slot = self.checked.slots[id(node)]
            var = f"e{depth}"
            bound = f"{steps} + ((None, ({slot}, {var}, {node.var!r})),)"
            if isinstance(node, ast.Let):
                head = [f"{pad}{var} = {self._listing_src(node.value, reads)}", f"{pad}if True:"]
            else:
                items = self._listing_src(node.collection, reads, cards=True)
                head = [f"{pad}for {var} in {items}:"]
            self.x.aliases[slot] = var
            if self.checked.slot_types.get(slot) in (T.LOC, T.MEMLOC):
                # a location's cards are read once per pass: nothing moves while listing
                head.append(f"{pad}    z{depth} = st.zones.get({var}, EMPTY)")
                self.x.location_contents[slot] = f"z{depth}"
            try:
                body = self._chain_lines(node.body, depth + 1, bound, constants, reads)
            finally:
                del self.x.aliases[slot]
                self.x.location_contents.pop(slot, None)
            return None if body is None else [*head, *body]
        return None

    # ------------------------------------------------------------ choice expansion
    def expander(self, node: ast.Node) -> Expander:
        """Compile a statement inside a choice into a function that lists its options.

        An expander gets the state as the option so far leaves it, the option's steps so
        far, how many of them that state reflects, and ``emit`` (the rest of the option).
        A *fixed* part, actions alone with no guard, fork or binding, carries its steps
        as ``fixed_steps`` so that enclosing parts add them in one go.
        """
        repeats = isinstance(node, ast.Repeat) or (
            isinstance(node, ast.ForEach) and node.quantifier == "all"
        )
        if repeats and self.has_decision(node):
            # a loop whose body decides runs as one statement after the option's actions
            return _fixed(((self.control(node).enter, node),))
        if isinstance(node, ast.Guarded):
            return self._expand_guarded(node)
        if isinstance(node, ast.ForEach):
            return self._expand_for_each(node)
        if isinstance(node, ast.Let):
            value = self.x.value(node.value)
            slot = self.checked.slots[id(node)]
            body = self.expander(node.body)
            var = node.var

            def let(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
                st, applied = _materialize(st, steps, applied)
                v = value(st)
                st.regs[slot] = v
                body(st, steps + ((None, (slot, v, var)),), applied + 1, emit)

            return let
        if isinstance(node, ast.Do):
            return _sequence([self.expander(b) for b in node.body])
        if isinstance(node, ast.Repeat):
            return self._expand_repeat(node)
        if self.has_decision(node):
            # the option's last step (the checker makes sure): it enters the statement,
            # whose decisions come after the option's actions
            return _fixed(((self.control(node).enter, node),))
        return _fixed(((self.action(node), node),))

    def _expand_repeat(self, node: ast.Repeat) -> Expander:
        if isinstance(node.count, ast.IntLiteral):
            return _sequence([self.expander(node.body)] * node.count.value)
        count = self.x.value(node.count)
        body = self.expander(node.body)

        def repeat(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
            st, applied = _materialize(st, steps, applied)
            times = repeat_count(count(st), node.span)

            def go(i: int, st: Gamestate, steps: Steps, applied: int) -> None:
                if i == times:
                    emit(st, steps, applied)
                else:
                    body(st, steps, applied, lambda s, t, a: go(i + 1, s, t, a))

            go(0, st, steps, applied)

        return repeat

    def _expand_guarded(self, node: ast.Guarded) -> Expander:
        cond = self.x.value(node.condition)
        body = self.expander(node.body)
        pure = _is_pure(self.checked, node.condition)
        fixed = _fixed_steps(body)

        # A false guard adds nothing and the option goes on; an option that ends up with
        # no action at all is dropped by list_options.
        if fixed is not None:

            def guarded_fixed(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
                if not pure and applied != len(steps):
                    st, applied = _materialize(st, steps, applied)
                emit(st, steps + fixed if cond(st) else steps, applied)

            return guarded_fixed

        def guarded(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
            if not pure and applied != len(steps):
                st, applied = _materialize(st, steps, applied)
            if cond(st):
                body(st, steps, applied, emit)
            else:
                emit(st, steps, applied)

        return guarded

    def _expand_for_each(self, node: ast.ForEach) -> Expander:
        items = self.x.cards(node.collection)
        slot = self.checked.slots[id(node)]
        body = self.expander(node.body)
        pure = _is_pure(self.checked, node.collection)
        var = node.var
        if node.quantifier == "any":
            fixed = _fixed_steps(body)
            if fixed is not None:

                def fork_fixed(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
                    if not pure and applied != len(steps):
                        st, applied = _materialize(st, steps, applied)
                    elements = items(st)
                    if not elements:  # like a false guard: the option goes on
                        emit(st, steps, applied)
                        return
                    for e in tuple(elements):
                        emit(st, steps + ((None, (slot, e, var)),) + fixed, applied)

                return fork_fixed

            def fork(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
                if not pure and applied != len(steps):
                    st, applied = _materialize(st, steps, applied)
                elements = tuple(items(st))
                if not elements:  # like a false guard: nothing to add, the option goes on
                    emit(st, steps, applied)
                    return
                for e in elements:
                    st.regs[slot] = e
                    body(st, steps + ((None, (slot, e, var)),), applied + 1, emit)

            return fork

        def every(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
            st, applied = _materialize(st, steps, applied)
            elements = tuple(items(st))

            def go(i: int, st: Gamestate, steps: Steps, applied: int) -> None:
                if i == len(elements):
                    emit(st, steps, applied)
                    return
                st.regs[slot] = elements[i]
                bound = steps + ((None, (slot, elements[i], var)),)
                body(st, bound, applied + 1, lambda s, t, a: go(i + 1, s, t, a))

            go(0, st, steps, applied)

        return every


_UNSTABLE_IN_KEYS = (
    "zones",
    "card_zone",
    "cards",
    "_owner_of",
    "_best",
    "_top",
    "_bottom",
    "_nth",
    "ops.",
    "len(",
    "_att",
    "_sum",
    "_score",
    "_random",
)


def _put_on_top(st: Gamestate, z: list[int], c: int) -> int:
    z.append(c)
    return len(z) - 1


def _put_at_bottom(st: Gamestate, z: list[int], c: int) -> int:
    z.insert(0, c)
    return 0


def _indent(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]


def _stable_key(key_src: str) -> bool:
    """A location key that moving cards cannot change (it reads no card or location)."""
    return not any(word in key_src for word in _UNSTABLE_IN_KEYS)


def _is_plain(node: ast.Node) -> bool:
    """Actions alone: nothing to evaluate while listing (no guard, fork, let, repeat)."""
    if isinstance(node, ast.Do):
        return all(_is_plain(b) for b in node.body)
    return not isinstance(node, ast.Guarded | ast.ForEach | ast.Let | ast.Repeat | ast.Stage)


def _fixed(fixed: Steps) -> Expander:
    def add_fixed(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
        emit(st, steps + fixed, applied)

    add_fixed.fixed_steps = fixed  # type: ignore[attr-defined]
    return add_fixed


def _fixed_steps(expander: Expander) -> Steps | None:
    return getattr(expander, "fixed_steps", None)


def _materialize(st: Gamestate, steps: Steps, applied: int) -> tuple[Gamestate, int]:
    """The state as it is after the option's steps so far (a clone if any acted)."""
    if applied == len(steps):
        return st, applied
    if all(fn is None for fn, _ in steps[applied:]):
        for _, (slot, value, _var) in steps[applied:]:
            st.regs[slot] = value
        return st, len(steps)
    clone = st.clone()
    clone.log = None
    for fn, arg in steps[applied:]:
        if fn is None:
            clone.regs[arg[0]] = arg[1]
        else:
            fn(clone)
    return clone, len(steps)


def _sequence(parts: list[Expander]) -> Expander:
    fixed = [_fixed_steps(p) for p in parts]
    if all(f is not None for f in fixed):
        return _fixed(tuple(step for f in fixed for step in f))  # type: ignore[union-attr]

    def run(i: int, st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
        if i == len(parts):
            emit(st, steps, applied)
            return
        parts[i](st, steps, applied, lambda s, t, a: run(i + 1, s, t, a, emit))

    return lambda st, steps, applied, emit: run(0, st, steps, applied, emit)


def _is_pure(checked: CheckedGame, node: ast.Node) -> bool:
    """True when the value cannot depend on the game's state (only on variables)."""
    if isinstance(node, ast.IntLiteral | ast.NameLiteral | ast.StrList):
        return True
    if isinstance(node, ast.Variable):
        declare = checked.declares.get(id(node))
        return declare is None or _is_pure(checked, declare.value)
    return False


def _no_op(st: Gamestate) -> None:
    pass


#: Parts of the state that generated functions read through locals.  These attributes
#: are never rebound while a function runs (their contents change, not the objects).
_LOCALS = ("regs", "zones", "ints", "strs", "cards", "card_zone")


def _with_locals(body: list[str]) -> list[str]:
    """A generated function's body reading ``st.regs`` etc. through locals."""
    text = "\n".join(body)
    used = []
    for name in _LOCALS:
        text_after = text.replace(f"st.{name}", name)
        if text_after != text or name == "regs":
            used.append(name)
        text = text_after
    return [f"    {name} = st.{name}" for name in used] + text.split("\n")


def _hoist_location_reads(body: list[str]) -> list[str]:
    """A lister's body with each location it reads more than once looked up once, first.

    Listing changes nothing (no zone, register or stack frame), so a lookup
    ``zones.get(KEY, EMPTY)`` whose KEY names none of the lister's own variables (loop
    variables ``eN``, comprehension variables ``vN``, location contents ``zN``) gives
    the same list wherever it is; a lookup cannot fail, so doing it early is safe.
    (Hearts' play decision reads each player's PLAYED pile in five conditions.)
    """
    text = "\n".join(body)
    counts: dict[str, int] = {}
    for call in _location_reads(text):
        counts[call] = counts.get(call, 0) + 1
    hoisted = [call for call, n in counts.items() if n > 1]
    if not hoisted:
        return body
    names = {call: f"z_{i}" for i, call in enumerate(hoisted)}
    for call in sorted(hoisted, key=len, reverse=True):  # an outer call before its parts
        text = text.replace(call, names[call])
    lines = text.split("\n")
    prologue = 0  # after the locals (``zones = st.zones`` ...)
    while prologue < len(lines) and _LOCAL_LINE.match(lines[prologue]):
        prologue += 1
    reads = [f"    {names[call]} = {call}" for call in hoisted]
    return lines[:prologue] + reads + lines[prologue:]


_LOCAL_LINE = re.compile(r"    [a-z_]+ = st\.[a-z_]+$")
_LISTER_VARIABLE = re.compile(r"\b[evz]\d+\b")


def _location_reads(text: str) -> Iterator[str]:
    """Every ``zones.get(..., EMPTY)`` call in ``text`` that uses no lister variable."""
    start = text.find("zones.get(")
    while start >= 0:
        if start == 0 or not (text[start - 1].isalnum() or text[start - 1] in "._"):
            depth, i = 0, start + len("zones.get")
            while i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                if depth == 0:
                    break
                i += 1
            call = text[start : i + 1]
            if call.endswith(", EMPTY)") and not _LISTER_VARIABLE.search(call):
                yield call
        start = text.find("zones.get(", start + 1)


#: Statements ``StmtCompiler._lines`` writes as Python code (the rest are closures).
_INLINED = (
    ast.Do,
    ast.Move,
    ast.Repeat,
    ast.Guarded,
    ast.Let,
    ast.ForEach,
    ast.Increment,
    ast.SetValue,
    ast.Call,
    ast.Pass,
    ast.TurnPass,
)
#: Blocks nest at most this deep in generated code (Python allows 20).
_MAX_INLINE_DEPTH = 12
