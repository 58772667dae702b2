"""The random agent: a uniformly random legal option, from its own seeded generator.

It draws from a SplitMix64 stream of its own (one integer of state), which is cheap to
seed for every game of a batch and independent of the game's RNG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardlang.agents.base import Capabilities

from cardlang.engine.state import MASK64, splitmix64

if TYPE_CHECKING:
    from cardlang.engine.control import Option
    from cardlang.information.views import PlayerView


class RandomAgent:
    name = "random"
    capabilities = Capabilities(view=False)  # the runner builds no view for it

    def __init__(self, seed: int = 0) -> None:
        self._state = seed & MASK64

    def choose(self, view: PlayerView | None, options: list[Option]) -> int:
        self._state, z = splitmix64(self._state)
        return (z * len(options)) >> 64
