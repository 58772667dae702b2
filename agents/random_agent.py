"""The random agent: a uniformly random legal option, from its own seeded generator.

It draws from a SplitMix64 stream of its own (one integer of state), which is cheap to
seed for every game of a batch and independent of the game's RNG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardlang.agents.base import Capabilities

from cardlang.engine.protocol import Engine
from cardlang.engine.state import MASK64, splitmix64

if TYPE_CHECKING:
    from cardlang.engine.control import Option
    from cardlang.information.views import PlayerView


class RandomAgent:
    name = "random"
    capabilities = Capabilities(view=False)  # the runner builds no view for it

    def __init__(self, seed: int = 0) -> None:
        self._state = seed & MASK64
        self._twin: Any = None  # the native engine's copy, once asked for

    def choose(self, view: PlayerView | None, options: list[Option]) -> int:
        if self._twin is not None:  # one stream: the twin's, from the moment it exists
            return self._twin.draw(len(options))  # type: ignore[no-any-return]
        self._state, z = splitmix64(self._state)
        return (z * len(options)) >> 64

    def native_agent(self, master: Engine | None = None) -> Any:
        """This agent as the native engine runs it, choice for choice the same (the play
        loop hands it whole stretches of a game); it draws from this agent's stream."""
        if self._twin is None:
            from cardlang.engine.native import native_random_agent

            self._twin = native_random_agent(self._state)
        return self._twin
