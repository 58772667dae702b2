"""Statements to runnable pieces: generated actions, control nodes and option listers.

Pipeline position: compiler, after the checker, beside expressions.py; it builds the
structures of cardlang.engine.control, which the Gamemaster runs.

A statement that cannot reach a decision compiles to one action: generated Python for
blocks, guards, loops, storage updates, moves and calls, closures for the rest.  A
statement that can (a choice, a stage, or anything holding one) compiles to a control
node.  Inside a choice, statements compile to *expanders* and generated *listers* that
list the options: an option is the sequence of steps (variable bindings and actions) one
path through the choice takes.

``StmtCompiler`` is assembled here from one part per job, each a mixin on
``StmtCompilerBase`` (stmt_base.py, the shared state):

- this module: atomic actions -- ``action``, and ``_lines``, which writes a statement as
  Python code, with the dispatch to a part's closure (``a_*``) for the rest;
- control_flow.py: control nodes (blocks, stages, choices, loops, procedure calls),
  procedures, and the closures of calls, loops, guards, lets and turn order;
- moves.py: moving, remembering, forgetting, shuffling and swapping cards;
- board.py: creating players, teams, decks and cards; setting storages;
- choices.py: option listers (generated code) and expanders.
"""

from __future__ import annotations

from typing import Any

from cardlang.compiler.board import BoardMixin
from cardlang.compiler.choices import ChoicesMixin
from cardlang.compiler.control_flow import ControlFlowMixin
from cardlang.compiler.moves import MovesMixin
from cardlang.compiler.stmt_base import with_locals
from cardlang.engine.control import Action
from cardlang.language import ast
from cardlang.language import types as T

# ---------------------------------------------------------------- the compiler


class StmtCompiler(ControlFlowMixin, MovesMixin, BoardMixin, ChoicesMixin):
    """The statement compiler: built once per game (by compiler/load.py) on the game's
    expression compiler; ``block`` and ``action`` compile the program and its setup."""

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
        lines = ["def act(st):", *with_locals(body or ["    pass"])]
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
            charge = []
            if not isinstance(node.collection, ast.AllOfKind):  # one unit per element
                consts[f"SPAN{n}"] = node.span
                charge = [f"{pad}_charge(st, len(items{n}), SPAN{n}, '(all ...)')"]
            return [
                f"{pad}items{n} = tuple({self.x.cards_src(node.collection)})",
                *charge,
                f"{pad}for e{n} in items{n}:",
                f"{pad}    regs[{slot}] = e{n}",
                *body,
            ]
        if isinstance(node, ast.Increment):
            k, v, sp = f"k{n}", f"v{n}", f"SPAN{n}"
            consts[f"_anchor{n}"] = None  # keeps temporary names unique
            consts[sp] = node.span
            return [
                f"{pad}{k} = {self.x.raw_src(node.target)}",
                f"{pad}{v} = st.ints[{k}] = checked_increment(st.ints.get({k}, 0), "
                f"{node.sign}, {src(node.amount)}, {sp})",
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
            return [
                f"{pad}times{n} = repeat_count({src(node.count)}, {sp})",
                f"{pad}_charge(st, times{n}, {sp}, '(repeat ...)')",  # its passes, first
                f"{pad}for _ in range(times{n}):",
                *body,
            ]
        return self._lines_by_closure(node, pad, consts)

    def _lines_by_closure(self, node: ast.Node, pad: str, consts: dict[str, Any]) -> list[str]:
        name = f"C{len(consts)}"
        consts[name] = self._closure(node)
        return [f"{pad}{name}(st)"]


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
