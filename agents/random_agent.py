"""The random agent: a uniformly random legal option, from its own seeded generator.

It draws from a SplitMix64 stream of its own (one integer of state), which is cheap to
seed for every game of a batch and independent of the game's RNG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardlang.compile_stmt import Option
    from cardlang.views import PlayerView

_MASK64 = (1 << 64) - 1


class RandomAgent:
    name = "random"
    needs_view = False  # the runner may skip building a view for it

    def __init__(self, seed: int = 0) -> None:
        self._state = seed & _MASK64

    def choose(self, view: PlayerView | None, options: list[Option]) -> int:
        z = self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return ((z ^ (z >> 31)) * len(options)) >> 64
