"""Control flow: control nodes, procedures, and the closures of calls, loops and guards.

Pipeline position: compiler, a part of ``StmtCompiler`` (statements.py).

A statement that can reach a decision becomes a control node (``control``; a body, a
``block``): a stage, a choice, a loop, a guard, a let, a procedure call.  A procedure is
compiled once (``procedure``), before its bodies, so that it can call itself.  Without a
decision, a call is generated code (``_call_lines``) and loops, guards and lets are
closures (``a_*``) where statements.py does not write them as code; (cycle ...) sets the
turn order of the running stage.
"""

from __future__ import annotations

from typing import Any

from cardlang.compiler.stmt_base import StmtCompilerBase, with_locals
from cardlang.engine.control import (
    MAX_CALL_DEPTH,
    Action,
    Atomic,
    CallNode,
    ChoiceNode,
    CompiledProcedure,
    Control,
    GuardNode,
    LetNode,
    LoopNode,
    RepeatNode,
    Seq,
    SimultaneousNode,
    StageNode,
    WhileNode,
)
from cardlang.engine.frames import F_CUR, F_QUEUED, F_TEAM
from cardlang.engine.runtime import MAX_REPEAT, Fn, charge_work, repeat_count
from cardlang.engine.state import (
    Gamestate,
    cycle_size,
    next_in_cycle,
    previous_in_cycle,
    set_current,
)
from cardlang.errors import RuleError
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import Procedure
from cardlang.language.kinds import KIND_ATTRIBUTE


class ControlFlowMixin(StmtCompilerBase):
    """Control nodes, procedures, and atomic calls, loops, guards, lets and cycles."""

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
                secret=self.secret,
            )
        if isinstance(node, ast.Simultaneous):
            self.secret = True  # the checker allows no nesting
            try:
                return SimultaneousNode(self.block(node.body, node.span), node.span)
            finally:
                self.secret = False
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

    # ------------------------------------------------------------ without a decision
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
        lines = ["def call(st):", *with_locals(self._call_lines(n, "    ", consts))]
        return self.x.define("call", lines, **consts)  # type: ignore[no-any-return]

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
                # a pass is work: nested loops could otherwise run 10^12 passes
                charge_work(st, 1, span, "(while ...)")
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
        span = n.span
        # one unit per element, as an aggregate's (not over all players or teams)
        charged = not isinstance(n.collection, ast.AllOfKind)

        def for_each(st: Gamestate) -> None:
            regs = st.regs
            elements = tuple(items(st))
            if charged:
                charge_work(st, len(elements), span, "(all ...)")
            for e in elements:
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

    def a_Repeat(self, n: ast.Repeat) -> Action:
        if isinstance(n.body, ast.Move):
            loop = self._move_code(n.body, self.x.src(n.count), n)
            if loop is not None:
                return loop
        count = self.x.value(n.count)
        body = self.action(n.body)
        span = n.span

        def repeat(st: Gamestate) -> None:
            times = repeat_count(count(st), span)
            charge_work(st, times, span, "(repeat ...)")  # its passes, before the first
            for _ in range(times):
                body(st)

        return repeat

    def a_RepeatAll(self, n: ast.RepeatAll) -> Action:
        # Repeat as many times as the source has cards when the loop starts, so a move
        # back into the same location cannot loop for ever.
        inner = n.body
        if isinstance(inner, ast.Move):
            end = self._end_of_location(inner.card)
            if end is not None:
                loop = self._move_code(inner, f"len(st.zones.get({end[0]}, ()))", n)
                if loop is not None:
                    return loop
        body = self.action(n.body)
        source_collection = ast.repeat_all_source(inner)
        assert source_collection is not None, "the checker guarantees a source collection"
        source = self.x.cards(source_collection)
        span = n.span

        def repeat_all(st: Gamestate) -> None:
            times = len(source(st))
            charge_work(st, times, span, "(repeat ...)")
            for _ in range(times):
                body(st)

        return repeat_all

    def a_TurnPass(self, n: ast.TurnPass) -> Action:
        return _no_op

    def a_Pass(self, n: ast.Pass) -> Action:
        return _no_op

    # ------------------------------------------------------------ turn order
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


def _no_op(st: Gamestate) -> None:
    pass
