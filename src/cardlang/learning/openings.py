"""Forced openings: a share of the learner's games begin with a kingdom card it did not
choose (numpy; ``PPOConfig.forced_openings``).

Pipeline position: learning, beside lanes.py; ppo_actor.py calls it as it plays.

Self-play learns to play the decks it builds.  A policy that settled on money and an
attack never holds a Chapel or a Laboratory, so it never learns what they are worth
in play, and its value of a state that holds them is a guess: it cannot judge them,
and it cannot use one a designer's report makes it own (issue 54).  Here each game's
learning seat draws, as the game starts, whether its first gain of a kingdom card is
forced: at the first decision where it may take one (a buy, a Workshop's gain), the
option taken is a gain of a card drawn uniformly among the kingdom cards it may take
there, whatever the policy would have picked.  The rest of the game is the policy's,
learnt from as ever; the forced decision itself is not learnt from (no policy chose
it: it is the game's, as a deal is), so the ratio PPO clips stays the policy's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardlang.env.vector import VectorEnv

__all__ = ["ForcedOpenings"]


class ForcedOpenings:
    """Per lane and row, the learning seats whose first kingdom-card gain is still to be
    forced (``chance`` per seat and game) and the gain tables of ``cards``."""

    def __init__(self, cards: Sequence[str], chance: float, seed: int) -> None:
        if not cards:
            raise ValueError("forced openings need the kingdom cards they draw from")
        self.cards = tuple(cards)
        self.chance = chance
        self.rng = np.random.default_rng([seed, 5401])
        self._gains: dict[int, np.ndarray] = {}  # id(env): [card, situation, key]
        self._pending: dict[int, np.ndarray] = {}  # id(env): [row, seat] still forced

    def _tables(self, env: VectorEnv) -> tuple[np.ndarray, np.ndarray]:
        key = id(env)
        if key not in self._gains:
            vocabulary = env.vocabulary
            self._gains[key] = np.stack([vocabulary.keys_gaining(c) for c in self.cards])
            self._pending[key] = np.zeros((env.n, env.nplayers), dtype=np.bool_)
        return self._gains[key], self._pending[key]

    def draw(self, env: VectorEnv, rows: Any) -> None:
        """New games in ``rows``: each seat's opening forced with the chance."""
        _, pending = self._tables(env)
        for i in rows:
            pending[i] = self.rng.random(env.nplayers) < self.chance

    def overrule(self, env: VectorEnv, picked: np.ndarray, learning: np.ndarray) -> np.ndarray:
        """Overrule ``picked`` (in place) in the ``learning`` rows whose mover's opening
        is pending and may gain a kingdom card now; the rows overruled."""
        gains, pending = self._tables(env)
        seat = env.seat
        movers = learning & (seat >= 0)
        rows = np.flatnonzero(movers)
        due = rows[pending[rows, seat[rows]]]
        forced = np.zeros(env.n, dtype=np.bool_)
        width = gains.shape[2]
        for i in due.tolist():
            count = int(env.action_count[i])
            keys = env.action_key[i, :count].astype(np.int64)
            takes = gains[:, int(env.situation[i]), np.clip(keys, 0, width - 1)] & (keys >= 0)
            offered = np.flatnonzero(takes.any(axis=1))
            if not len(offered):
                continue
            card = offered[self.rng.integers(len(offered))]
            picked[i] = int(np.flatnonzero(takes[card])[0])
            pending[i, seat[i]] = False
            forced[i] = True
        return forced

    def state(self) -> dict[str, Any]:
        return dict(self.rng.bit_generator.state)

    def load_state(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state
