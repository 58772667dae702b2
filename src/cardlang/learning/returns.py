"""What a finished game is worth to each seat, as PPO's value head learns it.

Pipeline position: learning; ppo_run.py makes one per run, and actors.py ships it to
the actors (a plain dataclass: it pickles to another process).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cardlang.agents.neural.search import SoloValue

__all__ = ["RunReturns", "credits_from"]


def credits_from(result: Any, seat: int, seats: int) -> np.ndarray:
    """Each seat offset's credit (its share of the win) from ``seat``'s point of view."""
    n = len(result.credits)
    return np.array([result.credits[(seat + k) % n] for k in range(seats)], dtype=np.float32)


def game_length_of(result: Any) -> int:
    """A result's length as ``game_length`` measures a state's: turns, else decisions."""
    return int(result.turns or result.decisions)


@dataclass(frozen=True)
class RunReturns:
    """A solo game's return: its scaled inverse length (``solo``).  Else per seat offset
    from ``seat``: its credit, or with ``reward`` score its score (signed so that more is
    better) mapped to [0, 1] by ``score_scale`` (0.5 + score / (2 scale), clipped): the
    value head's range, and a linear map, so the expected return ranks policies as the
    expected score does (chips in poker).  ``margin``: the score less the best other
    seat's, mapped the same way; a lead that grows with every good buy, where the outcome
    against a strong bot is a loss whatever a beginner does (learning from nothing)."""

    nplayers: int
    seats: int  # the value head's outputs: one per seat offset
    reward: str = "outcome"
    score_scale: float = 10.0
    minimise: bool = False  # the game's lowest score wins
    solo: SoloValue = SoloValue()

    def __call__(self, result: Any, seat: int) -> np.ndarray:
        if self.nplayers == 1:
            value = self.solo(game_length_of(result)) if result.completed else -1.0
            return np.array([value], dtype=np.float32)
        if self.reward in ("score", "margin"):
            n, scale = len(result.scores), self.score_scale
            sign = -1.0 if self.minimise else 1.0
            scores = np.array(
                [sign * result.scores[(seat + k) % n] for k in range(n)], dtype=np.float64
            )
            if self.reward == "margin":
                scores = np.array([s - np.delete(scores, k).max() for k, s in enumerate(scores)])
            return np.clip(0.5 + scores.astype(np.float32) / (2 * scale), 0.0, 1.0)
        return credits_from(result, seat, self.seats)
