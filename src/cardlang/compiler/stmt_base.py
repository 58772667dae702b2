"""What the parts of the statement compiler share: its state, the methods one part calls
in another, and how a generated function reads the state.

Pipeline position: compiler, under statements.py.  ``StmtCompiler`` (statements.py) is
assembled from one mixin per job -- control nodes, procedures and loops
(control_flow.py), card moves (moves.py), creation and storage (board.py), choices and
their options (choices.py) -- each a subclass of ``StmtCompilerBase``.  The base holds
the compiler's state and declares, as methods that raise NotImplementedError, what a part
calls in another part; the assembled class inherits every real one.
"""

from __future__ import annotations

from typing import Any

from cardlang.compiler.expressions import ExprCompiler
from cardlang.engine.control import Action, CallDepth, CompiledProcedure, Control, Expander
from cardlang.language import ast
from cardlang.language.checker import CheckedGame, reaches_decision
from cardlang.language.statics import kind_attribute_tables


class StmtCompilerBase:
    """The statement compiler's state, and the methods its parts call across modules."""

    def __init__(self, checked: CheckedGame, exprs: ExprCompiler) -> None:
        self.checked = checked
        self.x = exprs
        self.procedures: dict[str, CompiledProcedure] = {}
        # nesting of atomic calls of recursive procedures now running, all procedures
        # together (mutual recursion is bounded too)
        self.call_depth = CallDepth()
        self.kind_cards = kind_attribute_tables(checked)
        self.secret = False  # compiling the body of a (simultaneous ...) block

    # ------------------------------------------------------------ classification
    def has_decision(self, node: ast.Node) -> bool:
        return reaches_decision(node, self.checked.procedures)

    # ------------------------------------------------------------ across the parts
    def action(self, node: ast.Node) -> Action:
        """A statement that reaches no decision, as one function (statements.py)."""
        raise NotImplementedError

    def _lines_by_closure(self, node: ast.Node, pad: str, consts: dict[str, Any]) -> list[str]:
        """A generated-code line calling the statement's closure (statements.py)."""
        raise NotImplementedError

    def control(self, node: ast.Node) -> Control:
        """A statement that may reach a decision, as a control node (control_flow.py)."""
        raise NotImplementedError

    def _call_lines(self, n: ast.Call, pad: str, consts: dict[str, Any]) -> list[str]:
        """Generated code calling a procedure with no decision (control_flow.py)."""
        raise NotImplementedError

    def _move_lines(self, n: ast.Move, pad: str, consts: dict[str, Any]) -> list[str]:
        """Generated code moving a card (moves.py)."""
        raise NotImplementedError

    def _end_of_location(self, node: ast.Node) -> tuple[str, str] | None:
        """(top|bottom LOCATION): its key's source and position (moves.py)."""
        raise NotImplementedError

    def _move_code(
        self, n: ast.Move, count_src: str | None = None, repeat: ast.Node | None = None
    ) -> Action | None:
        """A generated function for the common move, once or repeated (moves.py)."""
        raise NotImplementedError

    def expander(self, node: ast.Node) -> Expander:
        """A statement inside a choice, as a function listing its options (choices.py)."""
        raise NotImplementedError

    def _choice_lister(self, node: ast.Choice, expanders: list[Expander]) -> Any:
        """Generated code listing a choice's options (choices.py)."""
        raise NotImplementedError


#: Parts of the state that generated functions read through locals.  These attributes
#: are never rebound while a function runs (their contents change, not the objects).
_LOCALS = ("regs", "zones", "ints", "strs", "cards", "card_zone")


def with_locals(body: list[str]) -> list[str]:
    """A generated function's body reading ``st.regs`` etc. through locals."""
    text = "\n".join(body)
    used = []
    for name in _LOCALS:
        text_after = text.replace(f"st.{name}", name)
        if text_after != text or name == "regs":
            used.append(name)
        text = text_after
    return [f"    {name} = st.{name}" for name in used] + text.split("\n")
