"""The engine protocol: what everything above the engine needs from one.

Pipeline position: engine.  The runner (cardlang.runs.runner), the play loop
(cardlang.agents.loop), views and knowledge (cardlang.information), search agents and the
records use an engine only through these two protocols, so that a second engine (the
native one) can take the Python engine's place without the rest changing.  The Python
engine implements them with ``Gamemaster`` and ``Gamestate``; a test checks that it does.

An engine (``Engine[Game]``) plays one compiled ``Game`` under ``Limits``, and declares which
engine it is and what it offers besides (``traits``: engine/traits.py ``EngineTraits``,
its agents' twins inside, search inside, whole batches), so that callers ask rather than
probe:

| call                         | what it does                                              |
| ---------------------------- | --------------------------------------------------------- |
| ``new_game(seed, record=,``  | a new state: setup run, advanced to the first decision     |
| ``tally=)``                  | (``tally``: its picks counted per card type, tally.py:    |
|                              | ``result`` reports them as ``GameResult.cards``)           |
| ``legal_options(st)``        | the pending decision's options, in a fixed order; the     |
|                              | state is not changed                                       |
| ``apply(st, choice)``        | play one option (index or option), advance to the next    |
|                              | decision; anything else is refused (``UsageError``)        |
| ``result(st)``               | a finished game's ``GameResult`` (scores, ranks, credits) |
| ``current_scores(st)``       | (score, tie-breaks...) per seat as they stand (rewards)    |
| ``table_scores(st)``         | the ``(table-score ...)`` per seat, for people (or None)   |
| ``ending_values(st)``        | per seat, the end reasons' conditions and the score parts |
| ``ranking_keys(keys)``       | those keys turned so that smaller is better               |
| ``option_steps(st)``         | each option's steps: (slot, value) per binding, (None,    |
|                              | action node) per action (env/vector.py's key writer)      |
| ``card_zones(st)``           | each card's location key, by card id                      |
| ``board_parts(st, type_id,`` | locations, card type ids, storages and the current seat:  |
| ``memo)``                    | what an observation reads (information/encode.py Board)   |

A state (``EngineState``) is plain data that any layer may read but only its engine
writes: where the flow is (``status``, ``mover``, ``decisions``, ``turns``), the events
so far (``log``, kept when the game was made with ``record=True``), the board (``zones``:
location key -> card ids, bottom first; ``card_zone``; ``cards``: each card's
attributes; ``ints`` and ``strs``: storages), ``pick_count()`` (the secret picks of a
``(simultaneous ...)`` block still to be revealed), and ``clone()``, an independent copy
in time linear in its size.  Limits: a game that runs past ``Limits.max_decisions`` or
``max_steps`` ends as a cut-off, never with a result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

# the state's protocol has a module of its own: modules the game imports (labels) read
# states, and this one names the game
from cardlang.engine.owners import ZoneKey
from cardlang.engine.state_protocol import EngineState
from cardlang.errors import UsageError

if TYPE_CHECKING:
    from cardlang.engine.gamemaster import GameResult, Limits
    from cardlang.engine.traits import EngineTraits

__all__ = [
    "AgentsInsideEngine",
    "BatchEngine",
    "Engine",
    "EngineState",
    "SearchInsideEngine",
    "WorldDealingEngine",
    "ZoneKey",
    "agents_inside",
    "batch_engine",
    "search_inside",
    "worlds_dealt_by",
]


#: The game an engine plays: an engine.game.Game for every master Game.master() makes.
#: A type parameter rather than an import, because the game names this protocol (what
#: its ``master()`` returns); ``Engine`` alone reads as ``Engine[Any]``.
GameT = TypeVar("GameT")


@runtime_checkable
class Engine(Protocol[GameT]):
    """Plays one compiled game: the calls of the table in the module docstring."""

    game: GameT
    limits: Limits
    traits: EngineTraits  # its name and what it offers beyond this protocol (traits.py)

    def new_game(self, seed: int, *, record: bool = False, tally: bool = False) -> Any: ...

    def legal_options(self, st: Any) -> Sequence[Any]: ...

    def apply(self, st: Any, choice: Any) -> None: ...

    def result(self, st: Any) -> GameResult: ...

    def current_scores(self, st: Any) -> list[tuple[int, ...]]: ...

    def table_scores(self, st: Any) -> list[int] | None: ...

    def ending_values(self, st: Any) -> list[tuple[int, ...]]: ...

    def ranking_keys(self, keys: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]: ...

    # whole readings: what a layer above reads of a state in one call, each engine its own
    # way (the Python engine from its dicts, the native one in one call per part)
    def option_steps(self, st: Any) -> list[list[tuple[int | None, Any]]]: ...

    def card_zones(self, st: Any) -> Sequence[ZoneKey | None]: ...

    def board_parts(
        self, st: Any, type_id: Callable[[Any], int], memo: dict[int, int]
    ) -> tuple[Any, list[int], Any, int]: ...


@runtime_checkable
class AgentsInsideEngine(Engine, Protocol):
    """An engine that plays agents' twins inside it (``traits.agents_inside``: the native
    engine), whole stretches of a game without coming back to Python."""

    def play_native(self, st: Any, seats: Sequence[Any], limit: int) -> int:
        """Play on while the mover's seat has a twin (None: a Python agent's turn), up to
        ``limit`` decisions in all; the decisions taken."""
        ...

    def random_agent(self, seed: int) -> Any:
        """The random agent's twin, drawing from ``seed``'s stream."""
        ...

    def dominion_bot(self, rules: list[tuple[str, list[Any]]], play_order: list[str]) -> Any:
        """The Dominion bot's twin (agents/scripted/dominion.py; native/src/bots.cpp):
        its buy rules (card, compiled condition) and its order of play."""
        ...

    @property
    def twin_scope(self) -> Any:
        """What the engine's twins and searches belong to: one made for a scope plays in
        every master of it (a view makes a master per decision; the scope is the game's
        compiled program), and is made again for another."""
        ...


def agents_inside(master: Engine, why: str) -> AgentsInsideEngine:
    """``master`` as an ``AgentsInsideEngine``, where its traits say it is one; else a
    usage error that says ``why`` the caller needs one."""
    if not master.traits.agents_inside:
        raise UsageError(why)
    return cast(AgentsInsideEngine, master)


@runtime_checkable
class WorldDealingEngine(Engine, Protocol):
    """An engine that builds a determinization's state itself (``traits.deals_worlds``:
    the native engine), from a base state it holds of a seat's skeleton: the hidden
    locations emptied, each reference to an unidentified card a stand-in number.  The
    handles are the engine's own; information/knowledge.py deals the worlds."""

    def skeleton_base(
        self,
        st: Any,
        emptied: list[tuple[ZoneKey, list[int]]],
        stand_ins: dict[int, int],
        unplaced: list[int],
        seat: int,
    ) -> Any:
        """``st`` with ``emptied``'s locations emptied and ``stand_ins`` in place of its
        references (``unplaced``: the cards now in no location), the other seats' secret
        picks hidden from ``seat``: the base of every world."""
        ...

    def dealt_state(
        self,
        base: Any,
        zones: list[tuple[ZoneKey, list[int]]],
        refs: dict[int, int],
        rng_state: int,
        draw: Callable[[int], int],
        seed: int,
    ) -> Any:
        """A state of this engine: ``base`` with ``zones`` dealt, each stand-in of
        ``refs`` the card dealt to its place, its random stream ``rng_state``, and each
        secret pick the seat has not seen drawn by ``draw(number of options)``."""
        ...

    def deal_plan(
        self,
        hidden: list[tuple[ZoneKey, list[int]]],
        members: Any,
        pools: list[list[tuple[int, int]]],
        refs: list[tuple[int, int]],
    ) -> Any:
        """The deal flattened to numbers, as the engine's own search makes it."""
        ...


def worlds_dealt_by(st: EngineState) -> WorldDealingEngine | None:
    """The engine of ``st`` where it builds its worlds itself (its traits say so)."""
    if not st.traits.deals_worlds:
        return None
    return cast(WorldDealingEngine, st.master)  # type: ignore[attr-defined]


@runtime_checkable
class SearchInsideEngine(AgentsInsideEngine, Protocol):
    """An engine that runs ISMCTS inside it (``traits.search_inside``: the native engine;
    agents/search/in_engine.py drives it)."""

    @property
    def engine_limits(self) -> tuple[int, int, int, int]:
        """(max decisions, max steps, max work, max game work) of every call that plays."""
        ...

    @property
    def secret_picks(self) -> bool:
        """Whether the game has ``(simultaneous ...)`` blocks: the engine's search deals
        no secret pick a seat has not seen (information/knowledge.py draws them)."""
        ...

    def search_engine(self) -> Any:
        """A search of the engine's own, one per search agent."""
        ...

    def name_moves(self, card_slots: frozenset[int]) -> None:
        """Give the engine the names its move keys are made of, unless it has them."""
        ...


def search_inside(master: Engine, why: str) -> SearchInsideEngine:
    """``master`` as a ``SearchInsideEngine``, where its traits say it is one; else a
    usage error that says ``why`` the caller needs one."""
    if not master.traits.search_inside:
        raise UsageError(why)
    return cast(SearchInsideEngine, master)


@runtime_checkable
class BatchEngine(AgentsInsideEngine, Protocol):
    """An engine that plays whole batches of games in one call (``traits.batch_stepping``:
    the native engine), its seats' agents inside it (agents/base.py ``native_twin``)."""

    def play_batch(
        self,
        seeds: Sequence[int],
        seat_sets: Sequence[Sequence[Any]],
        which: Sequence[int],
        tally: bool = False,
    ) -> list[GameResult | None]: ...

    def vector_batch(self, plan: dict[str, Any], rows: int) -> Any:
        """The engine's lockstep batch of ``rows`` games for ``plan`` (env/batch.py
        makes the plan and binds the env's arrays to it)."""
        ...

    def state(self, handle: Any, seed: int) -> Any:
        """This engine's state of a batch's game (its handle, from ``vector_batch``)."""
        ...


def batch_engine(master: Engine, why: str) -> BatchEngine:
    """``master`` as a ``BatchEngine``, where its traits say it is one; else a usage
    error that says ``why`` the caller needs one (asked, not probed: traits.py)."""
    if not master.traits.batch_stepping:
        raise UsageError(why)
    return cast(BatchEngine, master)
