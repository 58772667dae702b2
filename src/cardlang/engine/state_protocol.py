"""The state protocol: what every layer above the engine reads of a game in progress.

Pipeline position: engine.  engine/protocol.py says what a state is for and re-exports
``EngineState`` beside ``Engine``; it lives here, apart, because modules the game itself
imports (labels.py) read states, and the engine protocol names the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from cardlang.engine.owners import ZoneKey

if TYPE_CHECKING:
    from cardlang.engine.traits import EngineTraits

__all__ = ["EngineState"]


@runtime_checkable
class EngineState(Protocol):
    """A game in progress, as every layer above the engine reads it."""

    # read-only here (properties): each engine keeps them in its own containers
    @property
    def status(self) -> str: ...  # "running", "completed", "failed", "cutoff"
    @property
    def mover(self) -> int: ...  # the seat whose decision is pending, -1 when none is
    @property
    def decisions(self) -> int: ...
    @property
    def turns(self) -> int: ...
    @property
    def nplayers(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def pending(self) -> Any: ...  # the pending choice (its situation, who decides), or None
    @property
    def team_of(self) -> Sequence[int]: ...  # each seat's team
    @property
    def zones(self) -> Mapping[ZoneKey, Sequence[int]]: ...
    @property
    def card_zone(self) -> Sequence[ZoneKey]: ...
    @property
    def cards(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def ints(self) -> Mapping[tuple[int, str], int]: ...
    @property
    def strs(self) -> Mapping[tuple[int, str], str]: ...
    @property
    def scores(self) -> Sequence[tuple[int, ...]] | None: ...  # per seat, once over

    log: list[tuple[Any, ...]] | None  # the event log, if recorded (None: not kept)
    # slots the information layer keeps its caches in (information/knowledge.py)
    tracker: object
    attached: object
    rng: int  # the state's random stream (a determinization reseeds it)
    traits: EngineTraits  # the engine it belongs to, as its master declares it

    @property
    def is_over(self) -> bool: ...

    @property
    def current_seat(self) -> int: ...

    # every non-empty location and its top card's attributes (read-only), in made order
    def top_attributes(self) -> list[tuple[ZoneKey, Mapping[str, Any]]]: ...

    # how many picks of a running (simultaneous ...) block wait to be revealed
    def pick_count(self) -> int: ...

    def clone(self) -> Any: ...
