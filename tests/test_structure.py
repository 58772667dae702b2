"""Structural contracts: the grammar ships in the package and is conflict-free; every AST
class has a checker rule and a compiler; agents import from the installed package."""

from __future__ import annotations

import builtins
import dataclasses
import gc
import inspect
import os
import random
import sys
import types
from pathlib import Path

import pytest

from cardlang.compiler.expressions import ExprCompiler
from cardlang.compiler.statements import StmtCompiler
from cardlang.language import ast
from cardlang.language.checker import Checker
from cardlang.language.parser import grammar_text

NOT_STANDALONE = {
    ast.Node,
    ast.Span,
    ast.Game,
    ast.Setup,
    ast.Scoring,
    ast.Declare,
    ast.Attribute,
    ast.Award,
    ast.AwardCondition,
    ast.Define,
    ast.Param,
    ast.CardKind,
    ast.KindAttribute,
    ast.KindHook,
    ast.Situation,
    ast.LabelText,  # the text of a (label ...), kept by its choice
    # the presentation forms: for people, checked by checker_presentation.py, never played
    ast.KindText,
    ast.Display,
    ast.Bookkeeping,
    ast.HandOrder,
    ast.TableScore,
    ast.Presentation,
    ast.CardBadge,
    ast.CardColour,
    ast.ColourPair,
    ast.FaceDown,
    ast.DisplayValues,
    ast.ValueText,
    ast.DuringTurn,
    ast.RoundNumber,
    # the end told in the game's words: checked by checker_presentation.py, read at the end
    ast.EndReason,
    ast.ScorePart,
    # what --param may set: checked with the declarations (Checker._parameter_values)
    ast.ParameterValues,
    ast.Choose,
}


def ast_classes() -> list[type]:
    return [
        c
        for _, c in inspect.getmembers(ast, inspect.isclass)
        if dataclasses.is_dataclass(c)
        and c.__module__.startswith(ast.__name__ + ".")
        and c not in NOT_STANDALONE
    ]


@pytest.mark.parametrize("cls", ast_classes(), ids=lambda c: c.__name__)
def test_every_ast_class_has_a_checker_rule_and_a_compiler(cls: type) -> None:
    name = cls.__name__
    if cls in ast.STATEMENT_CLASSES:
        assert hasattr(Checker, "s_" + name), f"checker has no rule for statement {name}"
        # control nodes only; a (label ...) is folded into its choice by the parser, and
        # one left anywhere else is a checker error
        if cls not in (ast.Stage, ast.Choice, ast.Simultaneous, ast.Labeled):
            assert hasattr(StmtCompiler, "a_" + name), f"no compiler for action {name}"
    elif cls not in (ast.Deck, ast.Awards):
        assert hasattr(Checker, "e_" + name), f"checker has no rule for expression {name}"
        assert hasattr(ExprCompiler, "c_" + name), f"no compiler for expression {name}"


def test_grammar_ships_inside_the_package() -> None:
    assert "game:" in grammar_text()


def test_grammar_is_lalr_without_conflicts() -> None:
    pytest.importorskip("interegular")
    from lark import Lark

    Lark(grammar_text(), parser="lalr", strict=True)


def test_agents_are_part_of_the_installed_package() -> None:
    from cardlang.agents import BUILTIN_AGENTS, make_agent

    assert "random" in BUILTIN_AGENTS
    assert make_agent("random", 1).choose(None, [object(), object()]) in (0, 1)


#: Names Python would act on, as a game file may spell them (upper-case words).
PYTHON_WORDS = {"EVAL", "OPEN", "EXEC", "IMPORT-OS", "BUILTINS", "SYSTEM", "COMPILE"}
FORBIDDEN = {"__import__", "open", "eval", "exec", "compile", "getattr", "globals", "vars"}


def _game_text(body: str) -> str:
    return f"""(game (setup (create players 2) (create deck (game vloc S) (deck (R (A, B)))))
 (do ({body}))
 (scoring max 0))"""


def _generated_functions() -> list:  # type: ignore[type-arg]
    """Every live function compiled from generated code (``<cardlang ...>`` sources).
    ``type(o) is``, not ``isinstance``: the heap holds weak proxies (torch's, among
    others), and ``isinstance`` of a proxy whose object is gone raises ReferenceError."""
    return [
        o
        for o in gc.get_objects()
        if type(o) is types.FunctionType and o.__code__.co_filename.startswith("<cardlang")
    ]


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names a code object (and its nested code) looks up."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


@pytest.mark.parametrize(
    "payload",
    [
        "__import__('os').system('touch {sentinel}')",
        "(set (game str X) __IMPORT__)",
        "(set (game str X) 'A\\'); open('{sentinel}', 'w'); (\\'')",
        '(set (game str X) "os")',
        "(cardatt (open '{sentinel}' 'w') 'C)",
    ],
)
def test_python_in_a_game_file_is_rejected(payload: str, tmp_path: Path) -> None:
    """Python text in a .rcy file is a positioned syntax error, and never runs."""
    from cardlang import GameFileError, load_game

    sentinel = tmp_path / "SENTINEL"
    with pytest.raises(GameFileError) as caught:
        load_game(text=_game_text(payload.format(sentinel=sentinel)), name="payload.rcy")
    assert caught.value.errors
    assert all(d.span.line >= 1 and d.span.column >= 1 for d in caught.value.errors)
    assert not sentinel.exists()


def test_a_game_file_is_data_not_code(tmp_path: Path) -> None:
    """Nothing in a .rcy file can run Python: names are upper-case words and enter the
    generated code only through repr().  A game whose names are Python's words (and whose
    comment holds a Python statement) loads, plays, and touches nothing but its state; the
    generated code names none of its words and cannot reach __import__, open or eval."""
    from cardlang import load_game

    sentinel = tmp_path / "SENTINEL"
    body = f"""
 ;; '); __import__('os').system('touch {sentinel}'); open('{sentinel}', 'w'); ('
 (set (game str EVAL) OPEN)
 (set (game str IMPORT-OS) (cardatt R (top (game vloc S))))
 (inc (game sto EXEC) 3)
 (set (game str COMPILE) SYSTEM)
 (move (top (game vloc S)) (top (game vloc BUILTINS)))"""
    builtins_before = dict(vars(builtins))
    game = load_game(text=_game_text(body), name="payload.rcy")
    master = game.master()
    st = master.new_game(1)
    rng = random.Random(1)
    while not st.is_over:
        master.apply(st, rng.randrange(len(master.legal_options(st))))

    # the words were data: they ended up as values and keys of the game state
    assert st.status == "completed"
    assert st.strs[(-1, "EVAL")] == "OPEN" and st.strs[(-1, "COMPILE")] == "SYSTEM"
    assert st.strs[(-1, "IMPORT-OS")] in ("A", "B") and st.ints[(-1, "EXEC")] == 3
    assert len(st.zones[(-1, "vloc", "BUILTINS")]) == 1
    # ... and had no effect outside it
    assert not sentinel.exists(), "the comment's Python ran"
    assert dict(vars(builtins)) == builtins_before, "playing the game changed builtins"

    generated = _generated_functions()
    assert generated, "no generated code found (is its filename still '<cardlang ...>'?)"
    for fn in generated:
        names = _names(fn.__code__)
        assert not names & PYTHON_WORDS, f"a game's name became code: {names & PYTHON_WORDS}"
        assert not names & FORBIDDEN, f"generated code names {names & FORBIDDEN}"
        allowed = fn.__globals__["__builtins__"]
        assert isinstance(allowed, dict), "generated code sees the whole builtins module"
        assert not set(allowed) & FORBIDDEN, f"generated code may call {set(allowed) & FORBIDDEN}"
        reachable = {id(v) for v in [*fn.__globals__.values(), *allowed.values()]}
        for name in FORBIDDEN:
            assert id(getattr(builtins, name)) not in reachable, f"{name} is in reach"
        assert (
            id(builtins) not in reachable and id(os) not in reachable and id(sys) not in reachable
        )


def test_generated_code_sees_only_allowed_builtins() -> None:
    from cardlang.engine.runtime import RUNTIME

    allowed = set(RUNTIME["__builtins__"])
    assert "__import__" not in allowed and "open" not in allowed and "eval" not in allowed
