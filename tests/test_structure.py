"""Structural contracts: the grammar ships in the package and is conflict-free; every AST
class has a checker rule and a compiler; agents import from the installed package."""

from __future__ import annotations

import dataclasses
import inspect

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
}


def ast_classes() -> list[type]:
    return [
        c
        for _, c in inspect.getmembers(ast, inspect.isclass)
        if dataclasses.is_dataclass(c) and c.__module__ == ast.__name__ and c not in NOT_STANDALONE
    ]


@pytest.mark.parametrize("cls", ast_classes(), ids=lambda c: c.__name__)
def test_every_ast_class_has_a_checker_rule_and_a_compiler(cls: type) -> None:
    name = cls.__name__
    if cls in ast.STATEMENT_CLASSES:
        assert hasattr(Checker, "s_" + name), f"checker has no rule for statement {name}"
        if cls not in (ast.Stage, ast.Choice):  # those are control nodes only
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


@pytest.mark.parametrize(
    "payload",
    [
        "__import__('os').system('true')",
        "(set (game str X) __IMPORT__)",
        "(set (game str X) 'A\\'); import os; (\\'')",
        '(set (game str X) "os")',
        "(cardatt (open '/etc/passwd') 'C)",
    ],
)
def test_a_game_file_is_data_not_code(payload: str) -> None:
    """Nothing in a .rcy file can run Python: names are upper-case words and enter the
    generated code only through repr(); anything else is a syntax error."""
    from cardlang import GameFileError, load_game

    text = f"""(game (setup (create players 2) (create deck (game vloc S) (deck (R (A, B)))))
 (do ({payload}))
 (scoring max 0))"""
    try:
        game = load_game(text=text, name="payload.rcy")
    except GameFileError:
        return
    # if it parsed, it must be inert: playing it touches nothing but the game state
    game.master().new_game(1)


def test_generated_code_sees_only_allowed_builtins() -> None:
    from cardlang.engine.runtime import RUNTIME

    allowed = set(RUNTIME["__builtins__"])
    assert "__import__" not in allowed and "open" not in allowed and "eval" not in allowed
