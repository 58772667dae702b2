"""What the Gamemaster runs: control nodes, procedures at run time, and options.

Pipeline position: engine.  The compiler (compiler/statements.py) builds these from the
checked AST; gamemaster.py steps through them with the frame stack kept in the Gamestate
(state.py; the frames' layouts are in frames.py).

A statement that cannot reach a decision is an ``Atomic`` action that runs it whole.  A
statement that can (a choice, a stage, or anything holding one) is a control node whose
``enter`` pushes frames, so that a game can stop at a decision, be cloned, and go on.
An option of a decision is the tuple of steps (variable bindings and actions) that one
path through the choice takes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardlang.engine.frames import (
    CALL,
    F_CALL_DEPTH,
    F_CUR,
    F_KIND,
    F_TEAM,
    LOOP,
    REPEAT,
    SECRET,
    SEQ,
    STAGE,
    WHILE,
)
from cardlang.engine.runtime import Fn, repeat_count
from cardlang.engine.state import Gamestate, current_player
from cardlang.errors import RuleError
from cardlang.language import ast
from cardlang.language.checker import Procedure
from cardlang.language.kinds import KIND_ATTRIBUTE

Action = Callable[[Gamestate], None]
# A step of an option: (None, (slot, value, var)) binds a variable; (action, node) acts.
Step = tuple[Any, Any]
Steps = tuple[Step, ...]
Emit = Callable[[Gamestate, Steps, int], None]
Expander = Callable[[Gamestate, Steps, int, Emit], None]

#: A choice that lists more options than this is a rule error (see docs/language.md).
MAX_OPTIONS = 20_000
#: How deeply procedure calls may nest (a recursion that never ends is a rule error).
MAX_CALL_DEPTH = 200


# ---------------------------------------------------------------- control nodes


class Control:
    """A statement that can reach a decision; ``enter`` starts it on the frame stack."""

    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        raise NotImplementedError


@dataclass(eq=False)
class Atomic(Control):
    run: Action
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        self.run(st)


@dataclass(eq=False)
class Seq(Control):
    items: list[Control]
    span: ast.Span
    runners: list[Callable[[Gamestate], None]] = field(init=False)

    def __post_init__(self) -> None:
        # One call per step on the hot path: an atomic item's own function, else enter.
        # (StmtCompiler.block compiles each run of statements with no decision as one.)
        self.runners = [i.run if isinstance(i, Atomic) else i.enter for i in self.items]

    def enter(self, st: Gamestate) -> None:
        st.stack.append([SEQ, self, 0])  # frames.py: [SEQ, seq, next]


@dataclass(eq=False)
class StageNode(Control):
    is_team: bool
    end: Fn
    body: Seq
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        outer = st.stack[st.stage_idx]
        player = current_player(st)
        # A team stage cycles over teams and leaves the current player as it was.
        cur = (outer[F_CUR] if outer[F_TEAM] else st.team_of[player]) if self.is_team else player
        # frames.py: [STAGE, node, current, queued, started, outer, is_team, player, counted]
        st.stack.append([STAGE, self, cur, None, False, st.stage_idx, self.is_team, player, False])
        st.stage_idx = len(st.stack) - 1


@dataclass(eq=False)
class ChoiceNode(Control):
    expanders: list[Expander]
    span: ast.Span
    situation: str = "CHOICE"
    # Generated code that lists every option (see StmtCompiler._choice_lister).
    lister: Callable[[Gamestate, list[Steps], Emit | None], None] | None = None
    all_chains: bool = False  # the lister needs no expander (and so no emit)
    chooser: Fn | None = None  # (choice by PLAYER ...); None: the current player
    secret: bool = False  # a pick of a (simultaneous ...) block: its option runs later
    branches: tuple[ast.Span, ...] = ()  # the span of each condact, in order
    _branch_cache: dict[int, int] = field(default_factory=dict, repr=False)

    def branch_of(self, action_node: ast.Node | None) -> int:
        """Which condact an option comes from, found by where its first action is."""
        if action_node is None:
            return 0
        found = self._branch_cache.get(id(action_node))
        if found is None:
            pos = action_node.span.start_pos
            found = next(
                (i for i, s in enumerate(self.branches) if s.start_pos <= pos < s.end_pos), 0
            )
            self._branch_cache[id(action_node)] = found  # nodes live as long as the game
        return found

    def enter(self, st: Gamestate) -> None:
        st.pending = self
        st.options = None
        st.mover = current_player(st) if self.chooser is None else self.chooser(st)


@dataclass(eq=False)
class SimultaneousNode(Control):
    """(simultaneous BODY+): the choices of BODY are secret picks, kept in the SECRET
    frame until BODY is done (frames.py; the Gamemaster keeps and reveals them)."""

    body: Control
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        st.stack.append([SECRET, self, ()])  # frames.py: [SECRET, node, picks]
        self.body.enter(st)


@dataclass(eq=False)
class CompiledProcedure:
    """A procedure at run time: its bodies (the default one, and each card kind's own),
    compiled as actions when no decision can be reached, else as control nodes.  The
    bodies are filled in after the object exists, so recursive calls can refer to it."""

    info: Procedure
    default: Any = None
    hooks: dict[str, Any] = field(default_factory=dict)

    def body_for(self, st: Gamestate, card: Any, span: ast.Span) -> Any:
        """The body to run: the kind's own when the first argument's kind has one."""
        if not self.hooks:
            return self.default
        if card is None:
            name = self.info.node.name
            raise RuleError(f"(call {name} ...) of a card in an empty location", span)
        return self.hooks.get(st.cards[card].get(KIND_ATTRIBUTE), self.default)


class CallDepth:
    """A counter shared by a game's atomic calls of recursive procedures."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


@dataclass(eq=False)
class CallNode(Control):
    """A call of a procedure that can reach a decision: its body goes on the frame stack
    (above a CALL frame that restores the registers of a recursive procedure)."""

    proc: CompiledProcedure
    args: list[Fn]
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        values = [a(st) for a in self.args]
        info = self.proc.info
        body = self.proc.body_for(st, values[0] if values else None, self.span)
        regs = st.regs
        if info.recursive and type(body) is Atomic:  # runs at once: restore right after
            low, high = info.slots
            saved = regs[low:high]
            for slot, v in zip(info.param_slots, values, strict=True):
                regs[slot] = v
            body.run(st)
            regs[low:high] = saved
            return
        if info.recursive:
            depth = _call_depth(st.stack) + 1
            if depth > MAX_CALL_DEPTH:
                raise RuleError(
                    f"procedure calls nested too deeply (recursion in {info.node.name}?)",
                    self.span,
                )
            low, high = info.slots
            st.stack.append([CALL, regs[low:high], low, high, depth])  # see frames.py
        for slot, v in zip(info.param_slots, values, strict=True):
            regs[slot] = v
        body.enter(st)


@dataclass(eq=False)
class GuardNode(Control):
    condition: Fn
    body: Control
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        if self.condition(st):
            self.body.enter(st)


@dataclass(eq=False)
class LetNode(Control):
    slot: int
    value: Fn
    body: Control
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        st.regs[self.slot] = self.value(st)
        self.body.enter(st)


@dataclass(eq=False)
class LoopNode(Control):
    slot: int
    items: Fn
    body: Control
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        st.stack.append([LOOP, self, tuple(self.items(st)), 0])  # [LOOP, node, items, next]


@dataclass(eq=False)
class WhileNode(Control):
    """(while BOOL BODY+) holding a decision: a WHILE frame re-tests BOOL before each pass."""

    condition: Fn
    body: Seq
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        st.stack.append([WHILE, self])  # [WHILE, node]


@dataclass(eq=False)
class RepeatNode(Control):
    count: Fn
    body: Control
    span: ast.Span

    def enter(self, st: Gamestate) -> None:
        # frames.py: [REPEAT, node, left]
        st.stack.append([REPEAT, self, repeat_count(self.count(st), self.span)])


#: One legal move of a decision is the tuple of the steps it runs (bindings and actions);
#: ``Game.describe_option`` gives it a label for people.  Options are immutable and never
#: created one by one: listing a decision costs no object per option.
Option = Steps


def too_many_options(span: ast.Span) -> RuleError:
    """The rule error of a choice with more than MAX_OPTIONS options (native: the same)."""
    return RuleError(f"this choice lists more than {MAX_OPTIONS} options", span)


def list_options(choice: ChoiceNode, st: Gamestate) -> list[Option]:
    """Every option of a pending choice; the state is left exactly as it was."""
    saved_rng = st.rng
    found: list[Steps] = []
    if choice.all_chains:  # the common case, kept lean: no emit, no expanders
        # a chain lister keeps its variables in locals: only the RNG needs restoring
        try:
            choice.lister(st, found, None)  # type: ignore[misc]
        finally:
            st.rng = saved_rng
        if len(found) > MAX_OPTIONS:
            raise RuleError(f"this choice lists more than {MAX_OPTIONS} options", choice.span)
        return found

    saved_regs = st.regs[:]

    def emit(s: Gamestate, steps: Steps, applied: int) -> None:
        for fn, _ in steps:
            if fn is not None:
                break
        else:
            return  # an option with no action is dropped
        found.append(steps)
        if len(found) > MAX_OPTIONS:
            raise RuleError(f"this choice lists more than {MAX_OPTIONS} options", choice.span)

    try:
        if choice.lister is not None:
            choice.lister(st, found, emit)
            if len(found) > MAX_OPTIONS:
                raise RuleError(f"this choice lists more than {MAX_OPTIONS} options", choice.span)
        else:
            for expand in choice.expanders:
                expand(st, (), 0, emit)
    finally:
        st.regs[:] = saved_regs
        st.rng = saved_rng
    return found


def run_option(st: Gamestate, option: Option) -> None:
    regs = st.regs
    for fn, arg in option:
        if fn is None:
            regs[arg[0]] = arg[1]
        else:
            fn(st)


def _call_depth(stack: list[list[Any]]) -> int:
    """How many calls of recursive procedures are open on the frame stack (the nearest
    CALL frame records its depth)."""
    for frame in reversed(stack):
        if frame[F_KIND] == CALL:
            return frame[F_CALL_DEPTH]  # type: ignore[no-any-return]
    return 0
