"""Barred lanes: the learner against its own policy barred from one kingdom card (numpy,
torch; ``--opponents barred@W``).

Pipeline position: learning, beside lanes.py; ppo_actor.py calls it for the rows of a
``barred`` lane that the learner does not move in.

Self-play cannot see a mistake both seats make: a policy that buys a card against its
own interest (issue 54 measured its known model's seat that may buy Laboratory winning
0.16-0.45 against its own copy barred from it) meets an opponent that makes the same
buys, and the games stay even.  The card report judges a card by exactly that
comparison, the policy against itself barred from the card (learning/card_worth.py).
A barred lane plays it in training: each game draws a seat for the learner and a
kingdom card; the other seats are the current policy with every option that binds the
card masked (as ``barred_mirror`` masks them; a decision whose every option binds it is
left alone).  The learner's games then pay it for what the card is worth to it, against
a player that does without.  The card is drawn among those the row's game deals (the
kinds in places every seat sees at its start, ``VectorEnv.open_card_kinds``): a card
the kingdom does not hold would mask nothing, and the game would be ordinary self-play
(drawn among all the cards, 10 of Dominion's 26 base cards or of a pool's 56 are dealt:
most barred games were wasted).  A game that deals none of them bars nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from cardlang.env.vector import VectorEnv

__all__ = ["CardBars", "bar_options"]


class CardBars:
    """The binding tables of ``cards`` per env, and the masking of barred rows' logits."""

    def __init__(self, cards: Sequence[str]) -> None:
        if not cards:
            raise ValueError("a barred lane needs the kingdom cards it draws from")
        self.cards = tuple(cards)
        self._binds: dict[int, np.ndarray] = {}  # id(env): [card, situation, key]

    def draw(self, env: VectorEnv, i: int, rng: np.random.Generator) -> int:
        """A card for row ``i``'s game to bar, drawn among those it deals (an index of
        ``cards``; -1 where it deals none of them)."""
        dealt = env.open_card_kinds(i)
        present = [k for k, card in enumerate(self.cards) if card in dealt]
        return int(present[rng.integers(len(present))]) if present else -1

    def _table(self, env: VectorEnv) -> np.ndarray:
        key = id(env)
        if key not in self._binds:
            vocabulary = env.vocabulary
            self._binds[key] = np.stack([vocabulary.keys_binding([c]) for c in self.cards])
        return self._binds[key]

    def mask(
        self,
        env: VectorEnv,
        rows: np.ndarray,
        barred: np.ndarray,
        legal: np.ndarray,
        logits: torch.Tensor,
    ) -> None:
        """Mask (in place) ``logits``' options that bind row ``rows[j]``'s barred card
        (``barred[j]``, an index of ``cards``; -1 none), ``legal`` the rows' legal
        options; a row whose every legal option binds it is left alone."""
        if not len(rows):
            return
        table = self._table(env)
        width = logits.shape[1]
        keys = env.action_key[rows, :width].astype(np.int64)
        situation = env.situation[rows].astype(np.int64)[:, None]
        card = np.clip(barred, 0, None)[:, None]
        forbidden = table[card, situation, np.clip(keys, 0, table.shape[2] - 1)]
        forbidden &= (keys >= 0) & (barred >= 0)[:, None]
        if forbidden.any():
            picked = torch.from_numpy(rows)
            logits[picked] = bar_options(logits[picked], forbidden, legal)


def bar_options(logits: torch.Tensor, forbidden: np.ndarray, legal: np.ndarray) -> torch.Tensor:
    """``logits`` with the ``forbidden`` legal options at -inf, except in a row whose
    every legal option is forbidden (a Throne Room holding two of the card): that
    decision is left to the policy, never a move with no option.  The one rule of
    barring, for barred lanes and the card report's mirror (card_worth.py)."""
    forbidden = forbidden & legal
    forbidden[~(legal & ~forbidden).any(axis=1)] = False
    return logits.masked_fill(torch.from_numpy(forbidden), float("-inf"))
