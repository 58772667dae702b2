"""Choices: the options of a choice, listed by generated listers and by expanders.

Pipeline position: compiler, a part of ``StmtCompiler`` (statements.py).

An option is the sequence of steps one path through a choice takes: variable bindings
``(None, (slot, value, name))`` and actions ``(function, node)``.  Each statement inside
a choice compiles to an *expander* (``expander``), which lists the options of that
statement; a choice's *lister* (``_choice_lister``) is generated code that lists the
options of its chain condacts directly and calls the expanders of the rest.  An expander
sees the state as the option's steps so far leave it (``_materialize``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Any

from cardlang.compiler.stmt_base import StmtCompilerBase, with_locals
from cardlang.engine.control import MAX_OPTIONS, Emit, Expander, Steps, too_many_options
from cardlang.engine.runtime import charge_passes, charge_work, option_passes, repeat_count
from cardlang.engine.state import Gamestate
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import CheckedGame


class ChoicesMixin(StmtCompilerBase):
    """Choice listing (generated listers of chain condacts) and choice expansion."""

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
        lister = ["def lister(st, out, emit):", *_hoist_location_reads(with_locals(lines))]
        constants["MAX_OPTIONS"] = MAX_OPTIONS
        constants["TOO_MANY"] = partial(too_many_options, node.span)
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
                # the cap checked at every option, as the native engine does: listing
                # stops there, not after making millions (MAX_OPTIONS)
                return [
                    f"{pad}out.append({steps} + {name})",
                    f"{pad}if len(out) > MAX_OPTIONS:",
                    f"{pad}    raise TOO_MANY()",
                ]
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
                if not isinstance(node.collection, ast.AllOfKind):  # charged (work.py)
                    span = self.x.const(node.span)
                    items = f"_passes(st, {items}, {span}, '(any ...)')"
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
            return _sequence([self.expander(b) for b in node.body], node.span)
        if isinstance(node, ast.Repeat):
            return self._expand_repeat(node)
        if self.has_decision(node):
            # the option's last step (the checker makes sure): it enters the statement,
            # whose decisions come after the option's actions
            return _fixed(((self.control(node).enter, node),))
        return _fixed(((self.action(node), node),))

    def _expand_repeat(self, node: ast.Repeat) -> Expander:
        # a literal count too is listed pass by pass (not as its steps in one go), so
        # that it is charged and bounded like any count, as natively
        literal = isinstance(node.count, ast.IntLiteral)
        count = self.x.value(node.count)
        body = self.expander(node.body)

        def repeat(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
            if not literal:
                st, applied = _materialize(st, steps, applied)
            times = repeat_count(count(st), node.span)
            charge_work(st, times, node.span, "(repeat ...)")

            def go(i: int, st: Gamestate, steps: Steps, applied: int) -> None:
                if i == times:
                    emit(st, steps, applied)
                else:
                    body(st, steps, applied, lambda s, t, a: go(i + 1, s, t, a))

            with option_passes(times, node.span, "(repeat ...)"):
                go(0, st, steps, applied)

        return repeat

    def _expand_guarded(self, node: ast.Guarded) -> Expander:
        cond = self.x.value(node.condition)
        body = self.expander(node.body)
        pure = is_pure(self.checked, node.condition)
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
        pure = is_pure(self.checked, node.collection)
        var = node.var
        if node.quantifier == "any":
            fixed = _fixed_steps(body)
            # one unit of work per element (engine/work.py), unless over all players
            charged = not isinstance(node.collection, ast.AllOfKind)
            span = node.span
            if fixed is not None:

                def fork_fixed(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
                    if not pure and applied != len(steps):
                        st, applied = _materialize(st, steps, applied)
                    elements = items(st)
                    if charged:
                        charge_passes(st, elements, span, "(any ...)")
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
                if charged:
                    charge_passes(st, elements, span, "(any ...)")
                if not elements:  # like a false guard: nothing to add, the option goes on
                    emit(st, steps, applied)
                    return
                for e in elements:
                    st.regs[slot] = e
                    body(st, steps + ((None, (slot, e, var)),), applied + 1, emit)

            return fork

        charged_all = not isinstance(node.collection, ast.AllOfKind)

        def every(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
            st, applied = _materialize(st, steps, applied)
            elements = tuple(items(st))
            if charged_all:  # one unit per element, as the statement's (all ...)
                charge_passes(st, elements, node.span, "(all ...)")

            def go(i: int, st: Gamestate, steps: Steps, applied: int) -> None:
                if i == len(elements):
                    emit(st, steps, applied)
                    return
                st.regs[slot] = elements[i]
                bound = steps + ((None, (slot, elements[i], var)),)
                body(st, bound, applied + 1, lambda s, t, a: go(i + 1, s, t, a))

            with option_passes(len(elements), node.span, "(all ...)"):
                go(0, st, steps, applied)

        return every


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


def _sequence(parts: list[Expander], span: ast.Span) -> Expander:
    """A ``do``'s parts in turn: fixed parts' steps in one go; else each part lists the
    rest inside itself, so its parts count toward the option's depth as a loop's passes
    do (``option_passes``; native: VM::expand's O_DO)."""
    fixed = [_fixed_steps(p) for p in parts]
    if all(f is not None for f in fixed):
        return _fixed(tuple(step for f in fixed for step in f))  # type: ignore[union-attr]

    def run(i: int, st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
        if i == len(parts):
            emit(st, steps, applied)
            return
        parts[i](st, steps, applied, lambda s, t, a: run(i + 1, s, t, a, emit))

    def sequence(st: Gamestate, steps: Steps, applied: int, emit: Emit) -> None:
        with option_passes(len(parts), span, "(do ...)"):
            run(0, st, steps, applied, emit)

    return sequence


def is_pure(checked: CheckedGame, node: ast.Node) -> bool:
    """True when the value cannot depend on the game's state (only on variables); the
    native engine's IR (ir.py) marks the same expressions PURE."""
    if isinstance(node, ast.IntLiteral | ast.NameLiteral | ast.StrList):
        return True
    if isinstance(node, ast.Variable):
        declare = checked.declares.get(id(node))
        return declare is None or is_pure(checked, declare.value)
    return False


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


#: a line of the prologue ``with_locals`` writes (``zones = st.zones``)
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
