"""The checklist for adding a language form, enforced (docs/internals.md, "Adding a
language form"): a form is done when the checker knows it, both engines run it and a
test plays it.

- every expression the checker types has a Python compiler (``ExprCompiler.c_NAME``) and
  an IR lowering (``_Lowering.e_NAME``); every statement the checker checks has a Python
  compiler (``StmtCompiler.a_NAME``, or the one place that compiles it, named below) and
  a lowering (``_Lowering.s_NAME``);
- every IR op has a case in the VM (``case O_NAME`` in native/src/);
- every keyword of the grammar is written in a game file or a test (so that the
  differential tests, which play them, meet it).
"""

from __future__ import annotations

import re
from pathlib import Path

from cardlang.compiler.expressions import ExprCompiler
from cardlang.compiler.ir import OPS, _Lowering
from cardlang.compiler.statements import StmtCompiler
from cardlang.language.checker_expressions import ExpressionRules
from cardlang.language.checker_statements import StatementRules

ROOT = Path(__file__).resolve().parent.parent

#: Statements the Python compiler compiles in one place of its own, not by a_NAME: the
#: decisions and the flow around them (compiler/control_flow.py, choices.py).
COMPILED_ELSEWHERE = {
    "Stage": "StmtCompiler.stage (control_flow.py): a stage is a loop of turns",
    "Choice": "ChoicesMixin (choices.py): a decision, its condacts listed as options",
    "Simultaneous": "ChoicesMixin (choices.py): secret picks, then revealed",
    "Labeled": "a label wraps a condact: compiled with its choice's options",
}
#: Expressions the checker types that are parts of other forms, lowered with them.
PARTS = {
    "Awards": "lowered by s_SetValue (a point map's awards)",
    "Deck": "lowered by s_CreateDeck (a deck description)",
}


def _handled(cls: type, prefix: str) -> set[str]:
    return {name[len(prefix) :] for name in dir(cls) if name.startswith(prefix)}


def test_every_expression_has_both_compilers() -> None:
    typed = _handled(ExpressionRules, "e_")
    missing_python = typed - _handled(ExprCompiler, "c_") - set(PARTS)
    missing_ir = typed - _handled(_Lowering, "e_") - set(PARTS)
    assert not missing_python, f"no ExprCompiler.c_NAME for {sorted(missing_python)}"
    assert not missing_ir, f"no _Lowering.e_NAME for {sorted(missing_ir)}"


def test_every_statement_has_both_compilers() -> None:
    checked = _handled(StatementRules, "s_")
    missing_python = checked - _handled(StmtCompiler, "a_") - set(COMPILED_ELSEWHERE)
    missing_ir = checked - _handled(_Lowering, "s_") - {"Labeled"}  # with its choice
    assert not missing_python, f"no StmtCompiler.a_NAME for {sorted(missing_python)}"
    assert not missing_ir, f"no _Lowering.s_NAME for {sorted(missing_ir)}"
    assert set(COMPILED_ELSEWHERE) <= checked, "an exception names a statement that is gone"


def test_every_ir_op_has_a_case_in_the_vm() -> None:
    sources = "".join(path.read_text() for path in sorted((ROOT / "native/src").glob("*.cpp")))
    cased = set(re.findall(r"case O_([A-Z]+)\b", sources))
    missing = [op for op in OPS if op not in cased]
    assert not missing, f"IR ops the VM has no case for: {missing}"


def test_every_keyword_of_the_grammar_is_played_somewhere() -> None:
    grammar = (ROOT / "grammar/cardlang.lark").read_text()
    keywords = set(re.findall(r'"\(" "([a-z][a-z-]*)"', grammar))
    assert len(keywords) > 50
    written = "".join(
        path.read_text(errors="ignore")
        for pattern in ("games/*.rcy", "tests/*.py", "tests/**/*.rcy")
        for path in ROOT.glob(pattern)
    )
    missing = sorted(k for k in keywords if not re.search(rf"\(\s*{re.escape(k)}\b", written))
    assert not missing, f"keywords no game file or test writes: {missing}"
