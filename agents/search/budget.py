"""The search budget: how long a search agent may think at one decision.

Every search agent takes the same two parameters and spends them the same way (Ludii's
single budget contract): ``iterations`` units of search (ISMCTS and MCTS: simulations;
PIMC: determinizations), or, with ``time`` > 0, as many units as fit in that many
seconds (at least one, so an agent always has an answer).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from cardlang.errors import UsageError


@dataclass(frozen=True)
class Budget:
    """``iterations`` per decision, or with ``seconds`` > 0 as many as fit in that time."""

    iterations: int
    seconds: float = 0.0

    def check(self, agent: str, unit: str = "iterations") -> None:
        """Refuse a budget that allows no search, naming the agent and its parameter."""
        if self.iterations <= 0:
            raise UsageError(f"{agent}: {unit} must be positive (got {self.iterations})")
        if self.seconds < 0:
            raise UsageError(f"{agent}: time must not be negative (got {self.seconds})")

    def spend(self) -> Iterator[int]:
        """Yields 0, 1, 2 ... while the budget lasts: ``iterations`` times, or until
        ``seconds`` have passed since the first (never fewer than one)."""
        if self.seconds <= 0:
            yield from range(self.iterations)
            return
        clock = time.perf_counter
        deadline = clock() + self.seconds
        done = 0
        while done == 0 or clock() < deadline:
            yield done
            done += 1
