"""``Game``: the compiled rules that an engine plays.

Pipeline position: engine, its top: it imports gamemaster.py (``Game.master()``), which
reads a game only through its ``Rules`` protocol and so does not import this module.
Built by the compiler (``cardlang.compiler.load``); read by every engine, view and agent.
A ``Game`` is immutable once built: the closures of the setup and the flow, the scoring
function, and static tables (number of players, register count, variable types), and the
label of an option (from labels.py).  All mutable data lives in ``Gamestate``
values; the ``Gamemaster`` drives them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cardlang.engine.control import Action, Option, Seq
from cardlang.engine.gamemaster import Limits
from cardlang.engine.labels import OptionText, SeesCard, SeesZone, option_label
from cardlang.engine.runtime import Fn
from cardlang.engine.state import Gamestate
from cardlang.errors import Diagnostic, SourceFile, UsageError
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import CheckedGame
from cardlang.language.statics import kind_attribute_tables

if TYPE_CHECKING:
    from cardlang.engine.protocol import Engine


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
    # (table-score ...): each seat's score while playing, for people (None: the game has none)
    table_score: Fn | None = None
    # (end-reason ...) conditions, then (score-part ...) values: told at the end, for people
    ending: tuple[Fn, ...] = ()
    # the native engine's form of the game (cardlang.compiler.ir), made on first use
    ir_factory: Callable[[], Any] | None = None
    # the engine ``master()`` plays with: "python", "native", or None for the default (the
    # native engine where it is built); ``load_game(engine=...)`` sets it, from --engine
    engine: str | None = None
    # False: every agent plays in Python, even one with a twin inside the native engine
    # (its master declares no agents inside: traits.py ``agents_kept_in_python``);
    # ``load_game(agents_inside=...)`` sets it, from CARDLANG_NATIVE_AGENTS=0
    agents_inside: bool = True

    @property
    def name(self) -> str:
        return Path(self.source.name).stem

    def master(self, limits: Limits | None = None, engine: str | None = None) -> Engine[Game]:
        """The engine that plays this game (under ``limits``, else the defaults): the
        engine named ``engine``, else the game's, else the default (engines.py, the
        registry, makes its master)."""
        from cardlang.engine.engines import open_master

        return open_master(self, limits, engine or self.engine)

    @cached_property
    def ir(self) -> Any:
        """The game in the native engine's form (cardlang.compiler.ir.IR)."""
        if self.ir_factory is None:
            raise UsageError("this game was not compiled for the native engine")
        return self.ir_factory()

    def native_program(self) -> Any:
        """The native engine's program of this game (one per game, made on first use)."""
        found = self.__dict__.get("_native_program")
        if found is None:
            from cardlang.engine.native import make_program

            found = self.__dict__["_native_program"] = make_program(self.ir)
        return found

    def use_native_program(self, program: Any) -> None:
        """Play from now on with ``program`` (a fresh one of this game's IR that took a
        sent state's tables: engine/transfer.py); masters made afterwards use it."""
        self.__dict__["_native_program"] = program

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

    def describe_option(self, st: Gamestate, option: Option) -> str:
        """The option's label in event logs (engine/labels.py): its bindings and the
        source of its actions, as the native engine writes it too."""
        return option_label(self.source, self.checked.slot_types, st, option)

    @cached_property
    def _option_text(self) -> OptionText:
        return OptionText(self)

    def option_text(
        self,
        st: Any,
        option: Option,
        choice: Any = None,
        *,
        mover: int | None = None,
        sees_card: SeesCard | None = None,
        sees_zone: SeesZone | None = None,
    ) -> str:
        """The option's readable label ("Buy Province ($8)", "Play the 7 of Hearts"):
        its condact's ``(label ...)`` text filled in, else made from what it does
        (engine/labels.py ``OptionText``).  For people only: never logged, and it may
        change without changing any game.  ``choice``: the pending decision's by default;
        ``sees_card``/``sees_zone``: what the reader sees (all by default)."""
        node = st.pending if choice is None else choice
        return self._option_text(st, node, option, mover, sees_card, sees_zone)
