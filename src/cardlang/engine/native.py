"""The native engine: the C++ VM (``cardlang._native``) behind the engine protocol.

Pipeline position: engine, beside gamemaster.py, which it stands in for.  A compiled
``Game`` carries its IR (cardlang.compiler.ir, built on first use); ``NativeMaster``
hands it to the extension and implements ``engine.protocol.Engine`` on ``NativeState``
values, which implement ``EngineState``.  The Python engine is the reference: for the
same game, seed and choices both give the same event log, options (in order), results
and rule errors, and ``tests/test_native.py`` holds them to it.

What crosses to Python is made on demand and kept while the state does not change: the
options of the pending decision (as the Python engine's tuples of steps, so labels,
action keys and agents read them alike), the event log (converted from where it was
last read), the board (zones, cards, storages) for views.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cardlang.engine.gamemaster import GameResult, Limits, game_result, ranking_keys, result_of
from cardlang.engine.lazy_options import LazyOptions
from cardlang.engine.points import PointMap
from cardlang.engine.state import FAILED
from cardlang.engine.tally import CardCounts
from cardlang.engine.traits import NATIVE, EngineTraits, agents_kept_in_python
from cardlang.errors import RuleError, Span, UsageError, did_you_mean
from cardlang.language.kinds import card_type

if TYPE_CHECKING:  # the extension's types (_native.pyi, made by nanobind's stubgen)
    import cardlang._native as native_types


def _load_extension() -> Any:
    """The extension: the installed one, or the build ``CARDLANG_NATIVE_MODULE`` names (a
    sanitizer build: native/sanitize.sh); None when it is not built."""
    path = os.environ.get("CARDLANG_NATIVE_MODULE")
    try:
        if path:
            spec = importlib.util.spec_from_file_location("cardlang._native", path)
            if spec is None or spec.loader is None:
                raise ImportError(path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        # by name: the import checker cannot see into an extension module, and would
        # read ``import cardlang._native`` as an import of the package's facade
        return importlib.import_module("cardlang._native")
    except ImportError:  # pragma: no cover - depends on the build
        return None


_native: Any = _load_extension()


def native_available() -> bool:
    return _native is not None


def native_extension() -> Any:
    """The extension module itself, or None when it is not built (its tensor kernels
    serve agents/neural, which has no engine state to go through)."""
    return _native


def native_game_seeds(entropy: int, start: int, count: int) -> list[int] | None:
    """``runs.simulate.game_seeds`` for games ``start`` .. ``start + count - 1``,
    computed by the extension (numpy's SeedSequence, word for word: a test holds them
    equal); None when the extension is not built."""
    if _native is None or entropy < 0:  # numpy says what is wrong with a negative seed
        return None
    words = []
    while True:
        words.append(entropy & 0xFFFFFFFF)
        entropy >>= 32
        if not entropy:
            break
    return _native.game_seeds(words, start, count)  # type: ignore[no-any-return]


def require_extension() -> None:
    """A usage error saying how to build the extension, where it is not built."""
    if _native is None:
        raise UsageError(
            "the native engine is not built: reinstall with `pip install -e .` "
            "(it needs a C++ compiler and CMake), or use --engine python"
        )


def make_program(ir: Any) -> native_types.Program:
    """The extension's program for an IR (cardlang.compiler.ir.IR)."""
    require_extension()
    assert _native is not None
    return _native.Program(
        {
            "version": ir.version,
            "nplayers": ir.nplayers,
            "n_registers": ir.n_registers,
            "strings": ir.strings,
            "nodes": ir.nodes,
            "lists": ir.lists,
            "values": ir.values,
            "kinds": ir.kinds,
            "decks": ir.decks,
            "procedures": [
                (
                    p.name,
                    p.param_slots,
                    p.low,
                    p.high,
                    p.recursive,
                    p.has_decision,
                    p.default,
                    p.hooks,
                    p.param_types,
                )
                for p in ir.procedures
            ],
            "setup": ir.setup,
            "program": ir.program,
            "scoring": ir.scoring,
            "table_score": ir.table_score,
            "ending": ir.ending,
            "slot_types": ir.slot_types,
            "snippets": ir.snippets,
            "limits": ir.limits,
        }
    )


def native_random_agent(seed: int) -> Any:
    """The random agent (agents/random_agent.py) inside the engine, from its stream."""
    require_extension()
    return _native.RandomAgent(seed)


def _native_action(st: Any) -> None:
    """The function of an action step in a native option: the native engine runs the
    action itself, so nothing else ever calls this."""
    raise UsageError("an option of the native engine is played by the native engine only")


@dataclass(eq=False)
class NativeChoice:
    """What the layers above read of a pending choice (engine.control.ChoiceNode's
    reading side): its situation, where it is written, and which condact an option's
    first action comes from."""

    situation: str
    span: Span
    branches: tuple[Span, ...]

    def branch_of(self, action_node: Any) -> int:
        if action_node is None:
            return 0
        pos = action_node.span.start_pos
        return next((i for i, s in enumerate(self.branches) if s.start_pos <= pos < s.end_pos), 0)


class _Table(Mapping[Any, Any]):
    """One of a native state's tables as the Python engine's dict reads (locations: key
    -> card ids; integer storages: key -> value), read one entry at a time: a view that
    asks for two locations converts two, not all.  Read-only: values are copies.
    ``one(raw, *key)`` gives an entry or None; ``whole(raw)`` the table as a dict;
    ``keys(raw)``, if given, the keys alone (iterating converts no entry)."""

    __slots__ = ("_raw", "_one", "_whole", "_keys")

    def __init__(self, raw: Any, one: Any, whole: Any, keys: Any = None) -> None:
        self._raw, self._one, self._whole, self._keys = raw, one, whole, keys

    def __getitem__(self, key: Any) -> Any:
        found = self._one(self._raw, *key)
        if found is None:
            raise KeyError(key)
        return found

    def get(self, key: Any, default: Any = None) -> Any:
        found = self._one(self._raw, *key)
        return default if found is None else found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, tuple) and self._one(self._raw, *key) is not None

    def __iter__(self) -> Iterator[Any]:
        if self._keys is not None:
            return iter(self._keys(self._raw))
        return iter(self._whole(self._raw))

    def __len__(self) -> int:
        if self._keys is not None:
            return len(self._keys(self._raw))
        return len(self._whole(self._raw))

    def items(self) -> Any:
        return self._whole(self._raw).items()

    def values(self) -> Any:
        return self._whole(self._raw).values()


class _Options(LazyOptions):
    """A decision's options as the Python engine's tuples of steps, each made the first
    time it is read: an agent that answers by index converts none.  It holds the
    engine's list of that decision, so it stays right after the state moves on."""

    __slots__ = ("_handle", "_master", "_count", "_items", "_raw", "_decision")

    def __init__(self, handle: Any, master: NativeMaster, raw: Any) -> None:
        self._handle = handle
        self._master = master
        self._count: int = len(handle)
        self._items: list[Any] | None = None  # made at the first option read
        self._raw = raw  # the state listed (not its NativeState: no reference cycle)
        self._decision = raw.decisions

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._count))]
        items = self._items
        if items is None:
            items = self._items = [None] * self._count
        item = items[i]
        if item is None:
            if i < 0:
                i += self._count
            item = items[i] = self._master._option(self._handle.steps(i))
        return item

    def __iter__(self) -> Iterator[Any]:
        for i in range(self._count):
            yield self[i]

    def index_of(self, option: Any) -> int:
        """The index of one of these very option objects, -1 for anything else."""
        return next((i for i, o in enumerate(self._items or ()) if o is option), -1)

    def _pending(self) -> bool:
        """Whether the state these options were listed in is still at that decision
        (every move the engine makes counts a decision, the last one too)."""
        return self._raw.decisions == self._decision  # type: ignore[no-any-return]

    def move_keys(self, st: Any, card_slots: frozenset[int]) -> list[Any] | None:
        """``MoveKeys.keys`` for these options, made inside the engine; None once the
        state has moved on, for another state, or where Python must make them."""
        if getattr(st, "raw", None) is not self._raw or not self._pending():
            return None
        return self._master.move_keys(self._handle, self._raw, card_slots)

    def engine_list(self) -> Any:
        """The engine's own list of these options (what its search names and plays)."""
        return self._handle

    def option_kinds(self, seat: int) -> tuple[str | None, ...] | None:
        """``PlayerView.option_kinds`` for ``seat``, read inside the engine without
        converting any option; None once the state has moved on (or where a KIND is not
        a string), and the view then reads the options itself."""
        if not self._pending():
            return None
        return self._handle.kinds(self._raw, seat)  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class _CardAttributes(Sequence[dict[str, Any]]):
    """Each card's attributes (its type's, shared: read-only), read one card at a time:
    a view that looks at one card converts one card type at most."""

    __slots__ = ("_raw", "_master")

    def __init__(self, raw: Any, master: NativeMaster) -> None:
        self._raw, self._master = raw, master

    def __getitem__(self, card: Any) -> Any:
        if isinstance(card, slice):
            return [self[c] for c in range(*card.indices(len(self)))]
        if card < 0:
            card += len(self)
        return self._master.card_attributes(self._master.program.card_type_of(self._raw, card))

    def __len__(self) -> int:
        return self._raw.n_cards  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        attrs = self._master.card_attributes
        return iter([attrs(t) for t in self._master.program.card_types(self._raw)])


class _CardZones(Sequence[tuple[int, str, str] | None]):
    """Where each card of a native state lies (its location's key), read one at a time."""

    __slots__ = ("_raw", "_program")

    def __init__(self, raw: Any, program: Any) -> None:
        self._raw, self._program = raw, program

    def __getitem__(self, card: Any) -> Any:
        if isinstance(card, slice):
            return self._program.card_zone(self._raw)[card]
        return self._program.card_zone_of(self._raw, card)

    def __len__(self) -> int:
        return self._raw.n_cards  # type: ignore[no-any-return]


class NativeState:
    """A game in progress in the native engine (``engine.protocol.EngineState``)."""

    __slots__ = (
        "raw",
        "master",
        "seed",
        "_log",
        "_options",
        "_options_of",
        "_board",
        "tracker",
        "attached",
    )

    def __init__(self, raw: native_types.State, master: NativeMaster, seed: int) -> None:
        self.raw = raw
        self.master = master
        self.seed = seed
        self._log: list[tuple[Any, ...]] | None = [] if raw.recording else None
        self._options: list[Any] | None = None
        self._options_of: int = -1  # the decision count the options belong to
        self._board: dict[str, Any] = {}
        self.tracker: object = None
        self.attached: object = None

    @property
    def traits(self) -> EngineTraits:
        """The engine this state belongs to, as its master declares it (engine/traits.py:
        a master of a game whose agents play in Python declares none inside)."""
        return self.master.traits

    # ------------------------------------------------------------ the flow
    @property
    def options(self) -> list[Any] | None:
        """The pending decision's options once listed (None: list them again)."""
        return self._options if self._options_of == self.raw.decisions else None

    @options.setter
    def options(self, value: None) -> None:
        if value is not None:
            raise UsageError("a native state's options are listed by its engine")
        self._options = None
        self.raw.forget_options()

    @property
    def rng(self) -> int:
        return self.raw.rng  # type: ignore[no-any-return]

    @rng.setter
    def rng(self, value: int) -> None:
        self.raw.rng = value & ((1 << 64) - 1)

    @property
    def status(self) -> str:
        return self.raw.status  # type: ignore[no-any-return]

    @property
    def end_reason(self) -> str:
        return self.raw.end_reason  # type: ignore[no-any-return]

    @property
    def is_over(self) -> bool:
        return self.raw.over  # type: ignore[no-any-return]

    @property
    def mover(self) -> int:
        return self.raw.mover  # type: ignore[no-any-return]

    @property
    def current_seat(self) -> int:
        return self.raw.current_seat  # type: ignore[no-any-return]

    @property
    def decisions(self) -> int:
        return self.raw.decisions  # type: ignore[no-any-return]

    @property
    def turns(self) -> int:
        return self.raw.turns  # type: ignore[no-any-return]

    @property
    def work(self) -> int:
        """The game's work so far, its steps included (Gamestate.work)."""
        return self.raw.work  # type: ignore[no-any-return]

    @property
    def nplayers(self) -> int:
        return self.raw.nplayers  # type: ignore[no-any-return]

    @property
    def team_of(self) -> list[int]:
        return list(self.raw.team_of)

    @property
    def teams(self) -> list[tuple[int, ...]]:
        return [tuple(t) for t in self.raw.teams]

    @property
    def pending(self) -> NativeChoice | None:
        node = self.raw.pending
        return None if node < 0 else self.master.choice(node)

    @property
    def error(self) -> RuleError | None:
        found: Any = self.master.program.error(self.raw)  # None or (message, span)
        return None if found is None else self.master.rule_error(self, *found)

    @property
    def scores(self) -> list[tuple[int, ...]] | None:
        scores: Any = self.master.program.scores(self.raw)  # None until it is over
        return scores  # type: ignore[no-any-return]

    # ------------------------------------------------------------ the record
    @property
    def log(self) -> list[tuple[Any, ...]] | None:
        if self._log is None:
            return None
        seen = len(self._log)
        if seen < self.raw.log_size:
            self._log.extend(self.master.events(self.raw, seen))
        return self._log

    # ------------------------------------------------------------ the board
    def _read(self, what: str) -> Any:
        key = (what, self.raw.decisions, self.raw.status)
        found = self._board.get(what)
        if found is None or found[0] != key:
            found = (key, getattr(self.master.program, what)(self.raw))
            self._board[what] = found
        return found[1]

    @property
    def zones(self) -> Mapping[tuple[int, str, str], list[int]]:
        program = self.master.program
        return _Table(self.raw, program.zone_get, program.zones, program.zone_keys)

    def top_attributes(self) -> list[tuple[tuple[int, str, str], Mapping[str, Any]]]:
        # each card type's attributes read-only, made once
        return self.master.program.top_attributes(self.raw, self.master.attribute_views())  # type: ignore[no-any-return]

    @property
    def card_zone(self) -> Sequence[tuple[int, str, str] | None]:
        return _CardZones(self.raw, self.master.program)

    @property
    def cards(self) -> Sequence[dict[str, Any]]:
        return _CardAttributes(self.raw, self.master)

    @property
    def ints(self) -> Mapping[tuple[int, str], int]:
        program = self.master.program
        return _Table(self.raw, program.int_get, program.ints)

    @property
    def strs(self) -> dict[tuple[int, str], str]:
        return self._read("strs")  # type: ignore[no-any-return]

    @property
    def regs(self) -> list[Any]:
        return self._read("regs")  # type: ignore[no-any-return]

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything that defines the game's position, for equality tests (as
        ``Gamestate.fingerprint``; comparable between states of this engine)."""
        program = self.master.program
        return (
            tuple(sorted((k, tuple(v)) for k, v in program.zones(self.raw).items() if v)),
            tuple(sorted(program.ints(self.raw).items())),
            tuple(sorted(program.strs(self.raw).items())),
            tuple(program.frames(self.raw)),
            tuple(program.picks(self.raw)),  # a (simultaneous ...) block's secret picks
            self.raw.rng,
            self.raw.decisions,
            self.raw.status,
        )

    def pick_count(self) -> int:
        """How many picks of the running ``(simultaneous ...)`` block wait to be revealed
        (the program keeps them in its tables)."""
        return len(tuple(self.master.program.picks(self.raw)))

    def clone(self) -> NativeState:
        c = NativeState(self.raw.clone(), self.master, self.seed)
        if self._log is not None:
            c._log = self._log[:]
        return c


class NativeMaster:
    """The native engine's Gamemaster: ``engine.protocol.Engine`` over ``NativeState``."""

    traits = NATIVE  # agents' twins, search and whole batches inside

    def __init__(self, game: Any, limits: Limits | None = None) -> None:
        # game: an engine.game.Game (not imported: the registry, engines.py, makes NativeMasters)
        require_extension()
        if not game.agents_inside:  # this game's agents all play in Python (game.py)
            self.traits = agents_kept_in_python(NATIVE)
        self.game = game
        self.limits = limits or Limits()
        # for each call
        self._limits = (
            self.limits.max_decisions,
            self.limits.max_steps,
            self.limits.max_work,
            self.limits.max_game_work,
        )
        self.ir = game.ir
        self.program: native_types.Program = game.native_program()
        self._choices: dict[int, NativeChoice] = {}
        self._attrs: dict[int, dict[str, Any]] = {}
        self._attr_views: list[Mapping[str, Any]] = []
        self._key_names: tuple[int, frozenset[int]] | None = None  # move_keys' names

    # ------------------------------------------------------------ the protocol
    def new_game(self, seed: int, *, record: bool = False, tally: bool = False) -> NativeState:
        raw = self.program.new_game(seed & ((1 << 64) - 1), record, *self._limits)
        raw.tallying = tally  # no decision is taken before the first
        return NativeState(raw, self, seed)

    def legal_options(self, st: NativeState) -> Sequence[Any]:
        if st.is_over:
            return []
        if st._options is None or st._options_of != st.raw.decisions:
            st._options = _Options(self.program.options_of(st.raw), self, st.raw)  # type: ignore[assignment]
            st._options_of = st.raw.decisions
        return st._options  # type: ignore[return-value]

    def apply(self, st: NativeState, choice: Any) -> None:
        if st.is_over:
            raise UsageError(f"the game is over ({st.end_reason}); no move can be applied")
        if type(choice) is int:
            if choice < 0:
                raise self._not_legal(st, choice)
            index = choice
        else:
            options = self.legal_options(st)
            index = options.index_of(choice) if isinstance(options, _Options) else -1
            if index < 0:
                raise UsageError(f"{choice!r} is not a legal option of this decision")
        try:
            self.program.apply(st.raw, index, *self._limits)
        except (IndexError, TypeError):  # the engine checks the index (one call, not two)
            raise self._not_legal(st, index) from None
        st._options = None

    def _not_legal(self, st: NativeState, index: int) -> UsageError:
        count = self.program.option_count(st.raw)
        return UsageError(f"option {index} is not legal: there are {count} options")

    def random_agent(self, seed: int) -> Any:
        """The random agent inside the engine, drawing from ``seed``'s stream (one stream
        for every seat it plays: a search's random rollout)."""
        return native_random_agent(seed)

    def state(self, raw: Any, seed: int) -> NativeState:
        """A state of this engine around the extension's (a determinization)."""
        return NativeState(raw, self, seed)

    def play_batch(
        self,
        seeds: Sequence[int],
        seat_sets: Sequence[Sequence[Any]],
        which: Sequence[int],
        tally: bool = False,
    ) -> list[GameResult | None]:
        """Whole games played inside the engine, one call for all: game i from
        ``seeds[i]`` by the native agents ``seat_sets[which[i]]``, each agent first made
        the one a fresh agent seeded as runs/planned.py ``agent_seeds`` says would be
        (``start_game``); with ``tally``, each result with its card counts.  None for a
        game that failed: its rule error is the caller's to find, by playing it again
        the usual way."""
        mask = (1 << 64) - 1
        rows = self.program.play_batch(
            [seed & mask for seed in seeds],
            [list(s) for s in seat_sets],
            list(which),
            tally,
            *self._limits,
        )
        results: list[GameResult | None] = []
        for seed, (status, end_reason, keys, decisions, turns, team_of, cards) in zip(
            seeds, rows, strict=True
        ):
            if status == FAILED:
                results.append(None)
                continue
            results.append(
                result_of(
                    self.game,
                    seed=seed,
                    status=status,
                    end_reason=end_reason,
                    keys=keys,
                    decisions=decisions,
                    turns=turns,
                    team_of=tuple(team_of),
                    cards=None if cards is None else CardCounts(*cards),  # flat, as made
                )
            )
        return results

    def vector_batch(self, plan: dict[str, Any], rows: int) -> Any:
        """The engine's lockstep batch (native/src/batch.h) of ``rows`` games."""
        return self.program.vector_batch(plan, rows, *self._limits)

    def play_native(self, st: NativeState, seats: Sequence[Any], limit: int) -> int:
        """Play on inside the engine while the mover's seat has a native agent (None: a
        Python agent's turn), up to ``limit`` decisions in all; the decisions taken."""
        return self.program.play(st.raw, list(seats), limit, *self._limits)  # type: ignore[no-any-return]

    def result(self, st: NativeState) -> GameResult:
        cards: Any = self.program.card_counts(st.raw)  # None unless tallied
        return game_result(self.game, st, None if cards is None else CardCounts(*cards))

    def current_scores(self, st: NativeState) -> list[tuple[int, ...]]:
        return self._scores(self.program.current_scores, st)  # type: ignore[no-any-return]

    def table_scores(self, st: NativeState) -> list[int] | None:
        return self._scores(self.program.table_scores, st)  # type: ignore[no-any-return]

    def ending_values(self, st: NativeState) -> list[tuple[int, ...]]:
        return self._scores(self.program.ending_values, st)  # type: ignore[no-any-return]

    def _scores(self, read: Callable[[Any], Any], st: NativeState) -> Any:
        """``read(st.raw)``; a rule error the native scoring reports ("rule:SPAN:TEXT")
        raised as the Python engine raises it."""
        try:
            return read(st.raw)
        except ValueError as err:
            text = str(err)
            if not text.startswith("rule:"):
                raise
            _, span, message = text.split(":", 2)
            raise self.rule_error(st, message, int(span)) from None

    def ranking_keys(self, keys: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        return ranking_keys(self.game, keys)

    # ------------------------------------------------------------ whole readings
    def option_steps(self, st: NativeState) -> list[list[tuple[int | None, Any]]]:
        """As ``Gamemaster.option_steps``, read from the engine in one call per option."""
        handle = self.program.options_of(st.raw)
        nodes = self.ir.ast_nodes
        return [
            [
                (slot, value) if slot >= 0 else (None, nodes[value])
                for slot, value, _ in handle.steps(i)
            ]
            for i in range(len(handle))
        ]

    def card_zones(self, st: NativeState) -> Sequence[tuple[int, str, str] | None]:
        """As ``Gamemaster.card_zones``: the whole list in one call."""
        return self.program.card_zone(st.raw)  # type: ignore[no-any-return]

    def board_parts(
        self, st: NativeState, type_id: Callable[[Any], int], memo: dict[int, int]
    ) -> tuple[Any, list[int], Any, int]:
        """As ``Gamemaster.board_parts``, one engine call for each part; ``memo`` is
        kept by the engine's card type (a game may make card types as it goes)."""
        raw, program = st.raw, self.program
        for t in range(len(memo), program.card_type_count):
            memo[t] = type_id(self.card_attributes(t))
        types = [memo[t] for t in program.card_types(raw)]
        return program.zones(raw), types, program.ints(raw), raw.current_seat

    # ------------------------------------------------------------ conversions
    def _option(self, steps: list[tuple[int, Any, Any]]) -> tuple[tuple[Any, Any], ...]:
        nodes = self.ir.ast_nodes
        return tuple(
            (None, (slot, value, var)) if slot >= 0 else (_native_action, nodes[value])
            for slot, value, var in steps
        )

    def move_keys(self, handle: Any, raw: Any, card_slots: frozenset[int]) -> list[Any] | None:
        """The move keys of a decision's options (``_Options.move_keys``): the engine
        makes them from the names this master gives it."""
        self.name_moves(card_slots)
        return handle.move_keys(raw)  # type: ignore[no-any-return]

    def name_moves(self, card_slots: frozenset[int]) -> None:
        """Give the engine the names move keys are made of (search's ``MoveKeys``),
        unless it has them: the program keeps them for every master of the game (a view
        makes a master per decision), and they are given again only when the game has
        made card types since (a named deck's) or other card slots are asked for."""
        count = self.program.card_type_count
        if self._key_names == (count, card_slots):
            return
        if self.program.move_key_names != (count, sorted(card_slots)):
            self._set_move_key_names(card_slots)
        self._key_names = (count, card_slots)

    def dominion_bot(self, rules: list[tuple[str, list[Any]]], play_order: list[str]) -> Any:
        """The Dominion bot's twin (native/src/bots.cpp)."""
        return self.program.dominion_bot(rules, play_order)

    @property
    def twin_scope(self) -> Any:
        """The program: every master of the game shares it, and its twins."""
        return self.program

    @property
    def secret_picks(self) -> bool:
        return bool(self.program.has_simultaneous)

    # ------------------------------------------------------------ worlds (WorldDealingEngine)
    def skeleton_base(
        self,
        st: NativeState,
        emptied: list[tuple[Any, list[int]]],
        stand_ins: dict[int, int],
        unplaced: list[int],
        seat: int,
    ) -> Any:
        base = self.program.determinized(st.raw, emptied, stand_ins, 0, unplaced)
        self.program.hide_picks(base, seat)  # the others' secret picks: drawn in each world
        return base

    def dealt_state(
        self,
        base: Any,
        zones: list[tuple[Any, list[int]]],
        refs: dict[int, int],
        rng_state: int,
        draw: Callable[[int], int],
        seed: int,
    ) -> NativeState:
        program = self.program
        raw = program.determinized(base, zones, refs, rng_state, [])
        for k in program.blank_picks(raw):
            program.set_pick(raw, k, draw(program.pick_option_count(raw, k)))
        return NativeState(raw, self, seed)

    def deal_plan(
        self,
        hidden: list[tuple[Any, list[int]]],
        members: Any,
        pools: list[list[tuple[int, int]]],
        refs: list[tuple[int, int]],
    ) -> Any:
        return self.program.deal_plan(hidden, members, pools, refs)

    def search_engine(self) -> Any:
        """ISMCTS inside the engine (native/src/search.h), one per search agent:
        agents/search/in_engine.py drives it."""
        return self.program.ismcts()

    @property
    def engine_limits(self) -> tuple[int, int, int, int]:
        """(max decisions, max steps, max work, max game work): the limits every call
        that plays on is given."""
        return self._limits

    def _set_move_key_names(self, card_slots: frozenset[int]) -> None:
        count = self.program.card_type_count
        types = [card_type(self.card_attributes(t)) for t in range(count)]
        actions = [id(node) for node in self.ir.ast_nodes]
        self.program.set_move_key_names(types, actions, sorted(card_slots))

    def choice(self, node: int) -> NativeChoice:
        found = self._choices.get(node)
        if found is None:
            ast_node = self.ir.ast_nodes[node]
            found = self._choices[node] = NativeChoice(
                situation=ast_node.situation or "CHOICE",
                span=ast_node.span,
                branches=tuple(b.span for b in ast_node.body),
            )
        return found

    def events(self, raw: Any, start: int) -> list[tuple[Any, ...]]:
        events = self.program.events(raw, start)
        for i, e in enumerate(events):
            if e[0] == "set-points":
                events[i] = ("set", e[1], PointMap(self.program.awards(e[2])))
        return events  # type: ignore[no-any-return]

    def attribute_views(self) -> list[Mapping[str, Any]]:
        """Every card type's attributes, read-only, by type (types made mid-game added as
        they appear)."""
        views = self._attr_views
        count = self.program.card_type_count
        while len(views) < count:
            views.append(MappingProxyType(self.card_attributes(len(views))))
        return views

    def card_attributes(self, card_type: int) -> dict[str, Any]:
        found = self._attrs.get(card_type)
        if found is None:
            found = self._attrs[card_type] = dict(self.program.card_type_attrs(card_type))
        return found

    def rule_error(self, st: NativeState, message: str, span: int) -> RuleError:
        where = self.ir.spans[span] if span >= 0 else None
        prefix = "no card kind named "
        if message.startswith(prefix):
            hint = did_you_mean(message[len(prefix) :], self.game.checked.kinds)
            if hint:
                message += f" ({hint})"
        err = RuleError(message, where)
        err.turn = st.turns
        err.seed = st.seed
        err.source = self.game.source
        return err
