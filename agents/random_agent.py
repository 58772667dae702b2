"""The random agent: a uniformly random legal option, from its own seeded generator."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardlang.compile_stmt import Option
    from cardlang.views import PlayerView


class RandomAgent:
    name = "random"
    needs_view = False  # the runner may skip building a view for it

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView | None, options: list[Option]) -> int:
        return self.rng.randrange(len(options))
