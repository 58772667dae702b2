"""``load_game``: the facade over the pipeline, and ``Game``, the compiled rules.

    text --parser--> AST --checker--> typed AST --compilers--> Game --Gamemaster--> play

A ``Game`` is immutable once built: the closures of the setup and the flow, the scoring
function, and static tables (number of players, register count, variable types).  All
mutable data lives in ``Gamestate`` values; the ``Gamemaster`` drives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cardlang import ast
from cardlang import types as T
from cardlang.checker import KIND_ATTRIBUTE, CheckedGame, check, static_int
from cardlang.compile_expr import ExprCompiler, Fn
from cardlang.compile_stmt import StmtCompiler, kind_attribute_tables
from cardlang.control import Action, Option, Seq
from cardlang.errors import Diagnostic, GameFileError, SourceFile, UsageError
from cardlang.gamemaster import Gamemaster, Limits
from cardlang.params import apply_params
from cardlang.parser import parse
from cardlang.state import Gamestate, describe_owner


@dataclass(eq=False)
class Game:
    source: SourceFile
    ast: ast.Game
    checked: CheckedGame
    nplayers: int
    n_registers: int
    setup_actions: list[Action]
    program: Seq
    scoring: Fn
    scoring_mode: str
    # further (mode, score) pairs that break ties, in order
    tiebreaks: list[tuple[str, Fn]] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def name(self) -> str:
        return Path(self.source.name).stem

    def master(self, limits: Limits | None = None) -> Gamemaster:
        return Gamemaster(self, limits)

    # ------------------------------------------------------------ describing
    @cached_property
    def kind_attributes(self) -> Mapping[str, Mapping[str, Any]]:
        """Card kind name -> its attributes (read-only), as every card of it has them."""
        tables = kind_attribute_tables(self.checked)
        return MappingProxyType({k: MappingProxyType(v) for k, v in tables.items()})

    @cached_property
    def card_slots(self) -> frozenset[int]:
        """The registers that hold a card (for describing options)."""
        return frozenset(s for s, t in self.checked.slot_types.items() if t == T.CARD)

    @cached_property
    def location_slots(self) -> frozenset[int]:
        """The registers that hold a location (for describing options)."""
        types = (T.LOC, T.MEMLOC)
        return frozenset(s for s, t in self.checked.slot_types.items() if t in types)

    @property
    def situations(self) -> dict[str, str]:
        """Situation name -> its text for people, as the game file declares them."""
        return self.checked.situations

    def card_name(self, st: Gamestate, card: int | None) -> str:
        if card is None:
            return "(none)"
        attrs = st.cards[card]
        kind = attrs.get(KIND_ATTRIBUTE)
        if kind is not None:
            return str(kind)
        return " ".join(str(v) for v in attrs.values())

    def describe_value(self, st: Gamestate, value: Any, type_: str) -> str:
        if type_ == T.CARD:
            return self.card_name(st, value)
        if type_ == T.PLAYER:
            return f"P{value}"
        if type_ == T.TEAM:
            return f"team {value}"
        if type_ in (T.LOC, T.MEMLOC):  # a location: its name, and an open one's top card
            cards = st.zones.get(value, ())
            top = ""
            if value[1] == "vloc":
                top = f" (top {self.card_name(st, cards[-1])})" if cards else " (empty)"
            return self.describe_location(value) + top
        if isinstance(value, list | tuple):
            return "[" + ", ".join(self.card_name(st, c) for c in value) + "]"
        return str(value)

    def describe_option(self, st: Gamestate, option: Option) -> str:
        """'C=Q SPADES: move 'C (top ...)' -- the bindings, then the actions' source."""
        binds, acts = [], []
        for fn, arg in option:
            if fn is None:
                slot, value, var = arg
                type_ = self.checked.slot_types.get(slot, T.ANY)
                binds.append(f"'{var}={self.describe_value(st, value, type_)}")
            else:
                acts.append(self.source.snippet(arg.span))
        label = ", ".join(binds)
        text = "; ".join(acts)
        return f"{label}: {text}" if label else text

    def describe_location(self, key: tuple[int, str, str]) -> str:
        owner, kind, name = key
        return f"{describe_owner(owner)}.{name}" + ("" if kind == "vloc" else f"({kind})")


def read_source(path: str | Path) -> SourceFile:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"no such game file: {path}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    return SourceFile(str(path), text)


def load_game(
    path: str | Path | None = None,
    *,
    text: str | None = None,
    name: str = "<game>",
    params: Mapping[str, str] | None = None,
) -> Game:
    """Parse, check and compile a game file (or ``text``).  Raises GameFileError.

    ``params`` overrides declared constants by name (see params.py).
    """
    if text is not None:
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
    return compile_game(checked, [d for d in diagnostics if d.severity == "warning"])


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
    )


def _declared_values(checked: CheckedGame, exprs: ExprCompiler) -> list[Action]:
    """Actions that evaluate the declared values once, in order, as the game starts."""
    actions: list[Action] = []
    for d in checked.game.declares:
        slot = checked.declare_slots.get(id(d))
        if slot is not None:
            actions.append(_store(slot, exprs.value(d.value)))
    return actions


def _store(slot: int, value: Fn) -> Action:
    def store(st: Gamestate) -> None:
        st.regs[slot] = value(st)

    return store


@dataclass
class _DeclaredBinding:
    declare: ast.Declare
