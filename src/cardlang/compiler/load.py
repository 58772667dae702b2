"""Loading a game: the pipeline from text to a ``Game``, behind ``load_game``.

    text --parser--> AST --params--> AST --checker--> CheckedGame --compilers--> Game

Pipeline position: the last step of the compiler layer; it may import the language and
the engine (the ``Game`` it builds), never what plays or looks at games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardlang.compiler.expressions import ExprCompiler, Fn
from cardlang.compiler.ir import lower
from cardlang.compiler.statements import StmtCompiler
from cardlang.engine.control import Action
from cardlang.engine.engines import engine_named
from cardlang.engine.game import Game
from cardlang.engine.state import Gamestate
from cardlang.errors import Diagnostic, GameFileError, SourceFile, UsageError
from cardlang.inputs import read_bounded
from cardlang.language import ast
from cardlang.language.checker import CheckedGame, check, static_int
from cardlang.language.params import apply_params
from cardlang.language.parser import parse

#: The largest game file read (ours are under 100 KB): a bound on what parsing and
#: checking an untrusted file may cost; /dev/zero or a stray binary is refused at once.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def read_source(path: str | Path) -> SourceFile:
    data = read_bounded(path, MAX_SOURCE_BYTES, "game file")
    _check_size(len(data), path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UsageError(
            f"cannot read {path}: it is not UTF-8 text (byte {err.start}: {err.reason})"
        ) from None
    return SourceFile(str(path), text)


def _check_size(size: int, name: str | Path) -> None:
    if size > MAX_SOURCE_BYTES:
        raise UsageError(
            f"{name} is larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB: too large for "
            "a game file (is it one?)"
        )


def load_game(
    path: str | Path | None = None,
    *,
    text: str | None = None,
    name: str = "<game>",
    params: Mapping[str, str] | None = None,
    engine: str | None = None,
    agents_inside: bool = True,
) -> Game:
    """Parse, check and compile a game file (or ``text``).  Raises GameFileError.

    ``params`` overrides declared constants by name (see params.py); ``engine`` is the
    engine the game plays with (``Game.master()``; None: the native engine where it is
    built, else the Python one); ``agents_inside=False`` keeps every agent in Python
    even on the native engine, one call per decision (``Game.agents_inside``).
    """
    if engine is not None:
        engine_named(engine)  # a name the registry knows, before any parsing
    if text is not None:
        _check_size(len(text.encode("utf-8", "surrogatepass")), name)
        source = SourceFile(name, text.lstrip("\ufeff"))
    elif path is not None:
        source = read_source(path)
    else:
        raise UsageError("load_game needs a path or text")
    tree, warnings = parse(source)
    tree = apply_params(tree, params or {})
    checked = check(tree, source)
    diagnostics = warnings + checked.diagnostics
    if any(d.severity == "error" for d in diagnostics):
        raise GameFileError(source, diagnostics)
    game = compile_game(checked, [d for d in diagnostics if d.severity == "warning"])
    game.engine, game.agents_inside = engine, agents_inside
    return game


def compile_game(checked: CheckedGame, warnings: list[Diagnostic]) -> Game:
    tree = checked.game
    first = tree.setup.body[0]
    assert isinstance(first, ast.CreatePlayers)
    declared = {d.var: d for d in tree.declares}

    def lookup(var: str) -> Any:
        d = declared.get(var)
        return None if d is None else _DeclaredBinding(d)

    nplayers = static_int(first.count, lookup)
    assert nplayers is not None
    exprs = ExprCompiler(checked, nplayers)
    stmts = StmtCompiler(checked, exprs)
    return Game(
        source=checked.source,
        ast=tree,
        checked=checked,
        nplayers=nplayers,
        n_registers=checked.n_slots,
        setup_actions=_declared_values(checked, exprs)
        + [stmts.action(item) for item in tree.setup.body],
        program=stmts.block(tree.body, tree.span),
        scoring=exprs.value(tree.scoring.value),
        scoring_mode=tree.scoring.mode,
        tiebreaks=[(mode, exprs.value(node)) for mode, node in tree.scoring.tiebreaks],
        warnings=warnings,
        table_score=_table_score(checked, exprs),
        ending=tuple(exprs.value(node) for node in checked.presentation.ending_nodes()),
        ir_factory=lambda: lower(checked, nplayers),
    )


def _declared_values(checked: CheckedGame, exprs: ExprCompiler) -> list[Action]:
    """Actions that evaluate the declared values once, in order, as the game starts."""
    actions: list[Action] = []
    for d in checked.game.declares:
        slot = checked.declare_slots.get(id(d))
        if slot is not None:
            actions.append(_store(slot, exprs.value(d.value)))
    return actions


def _table_score(checked: CheckedGame, exprs: ExprCompiler) -> Fn | None:
    shown = checked.presentation.table_score
    return None if shown is None else exprs.value(shown)


def _store(slot: int, value: Fn) -> Action:
    def store(st: Gamestate) -> None:
        st.regs[slot] = value(st)

    return store


@dataclass
class _DeclaredBinding:
    declare: ast.Declare
