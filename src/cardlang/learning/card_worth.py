"""What a card is worth to a trained policy: the policy against itself barred from the card.

Pipeline position: learning, beside evaluate.py (torch).  ``barred_mirror`` plays games
in lockstep inside the engine (``VectorEnv`` with every seat the caller's), both seats
the model's greedy policy, reading the tokens the engine writes.  In each game one seat,
rotated, is *barred*: it may never take an option that binds the card (buy it, gain it,
play it), as if the card were not in the kingdom for it, while the other seat may.  The
free seat's mean credit less one half is what the card adds to the policy's play: the
"win rate added" of a designer's report (report/), with the figures the engine tallies
per seat and card (buys, plays, the turn of the first buy, copies owned at the end).

Against a bot the same policy wins most games with or without the card, so the card's
worth would hide under that ceiling; against itself every game is close, and the
difference is the card's.  A card that does nothing adds nothing; a card the policy
misjudges (buys and should not) adds less than nothing, and the report shows it.

``owned=K`` measures the card itself rather than the policy's judgement of it: the free
seat takes the card at its first ``K`` chances (a pile option that gains it, where legal:
a buy it can afford, a Workshop's gain) and plays the rest of the game, the card's plays
included, by the policy.  Whether the policy would have bought the card no longer counts,
only what two copies (say) add to its play: the figure a model that never met the card
and one that learnt it should agree on (as card-plus-money bots fix their buys).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardlang.agents.neural.model import NeuralModel
from cardlang.env.vector import VectorEnv
from cardlang.learning.barring import bar_options
from cardlang.learning.ppo import token_inputs
from cardlang.runs.cards import SeatCard, seat_cards

MAX_ROWS = 256  # lockstep games at once

__all__ = ["BarredGame", "MirrorCost", "barred_mirror"]


@dataclass(frozen=True)
class BarredGame:
    """One game of ``barred_mirror``: which seat was barred, and its result."""

    barred: int
    result: Any  # GameResult (with the engine's per-card tallies where it keeps them)

    @property
    def free_seats(self) -> list[int]:
        return [s for s in range(len(self.result.credits)) if s != self.barred]

    @property
    def free_credit(self) -> float:
        """The free seats' credit, shared among them (two players: the free seat's)."""
        free = self.free_seats
        return float(sum(self.result.credits[s] for s in free)) / len(free)

    def free_cards(self, card: str) -> list[SeatCard]:
        """Each free seat's figures of ``card`` in this game (the engine's tallies)."""
        counts = self.result.cards
        if counts is None:
            return []
        return [seat_cards(counts, s).get(card, SeatCard()) for s in self.free_seats]


@dataclass
class MirrorCost:
    """What ``barred_mirror`` spent, in units that are the same on any machine: its
    lockstep steps, and the rows the network read over them (a row whose game is over is
    still read until the round's last game ends).  A caller that sizes games to a CPU
    budget converts them at nominal speeds, so that the same seed plays the same games
    everywhere."""

    steps: int = 0
    row_steps: int = 0


def barred_mirror(
    model: NeuralModel,
    game: Any,
    card: str,
    games: int,
    seed: int,
    max_decisions: int = 600,
    cost: MirrorCost | None = None,
    owned: int = 0,
) -> list[BarredGame]:
    """``games`` games of ``game`` (a kingdom holding ``card``), the model's greedy
    policy in every seat, seat ``i % players`` of row ``i`` barred from ``card``; each
    row's first game counts (short games are not favoured), rows start again from
    ``seed + 1``, ... where ``games`` exceeds the rows.  ``cost``, where given, counts
    the steps and the rows read.  ``owned``: the free seats take the card at their first
    ``owned`` chances (module docstring)."""
    model.freeze()  # names never learnt read as unknown, as at play
    n = game.nplayers
    rows = min(games, MAX_ROWS)
    env = VectorEnv(
        game, rows, seats="all", max_decisions=max_decisions, tokens=model.table, cards=True
    )
    lut = env.vocabulary.keys_binding([card])
    take = env.vocabulary.keys_gaining(card) if owned else None
    played: list[BarredGame] = []
    try:
        for round_ in range((games + rows - 1) // rows):
            wanted = min(rows, games - len(played))
            barred = np.arange(rows) % n
            forced = _Forced(take, owned, barred, n) if take is not None else None
            first = _play_round(model, env, lut, barred, wanted, seed + round_, cost, forced)
            played.extend(BarredGame(int(barred[i]), first[i]) for i in range(wanted))
    finally:
        env.close()
    return played


def _play_round(
    model: NeuralModel,
    env: VectorEnv,
    lut: np.ndarray,
    barred: np.ndarray,
    wanted: int,
    seed: int,
    cost: MirrorCost | None,
    forced: _Forced | None = None,
) -> dict[int, Any]:
    """Every row's first game from ``reset(seed)``, greedy, the barred seats masked."""
    env.reset(seed=seed)
    first: dict[int, Any] = {}
    net = model.net
    net.eval()
    while len(first) < wanted:
        x = token_inputs(env)
        if cost is not None:
            cost.steps += 1
            cost.row_steps += env.n
        with torch.no_grad():
            logits, _ = net(**x)
        a = logits.shape[1]
        keys = env.action_key[:, :a]
        situation = env.situation.astype(np.int64)
        forbidden = lut[situation[:, None], np.clip(keys, 0, lut.shape[1] - 1)] & (keys >= 0)
        forbidden &= (env.seat == barred)[:, None]
        legal = x["action_mask"].numpy()
        logits = bar_options(logits, forbidden, legal)
        picked = logits.argmax(dim=-1).numpy()
        if forced is not None:
            forced.overrule(picked, situation, keys, legal, env.seat)
        *_, info = env.step(env.action_key[np.arange(env.n), picked])
        for i, result in info["results"].items():
            if i < wanted:
                first.setdefault(i, result)
    return first


class _Forced:
    """The free seats' first ``owned`` gains of the card, taken wherever legal: a row's
    pick is overruled by the first option that gains the card while its seat has gains
    left (each row's first game is the one that counts, so a row's count is never reset)."""

    def __init__(self, take: np.ndarray, owned: int, barred: np.ndarray, players: int) -> None:
        self.take = take
        self.left = np.full((len(barred), players), owned, dtype=np.int64)
        self.left[np.arange(len(barred)), barred] = 0

    def overrule(
        self,
        picked: np.ndarray,
        situation: np.ndarray,
        keys: np.ndarray,
        legal: np.ndarray,
        seat: np.ndarray,
    ) -> None:
        rows = np.arange(len(picked))
        mover = np.clip(seat, 0, self.left.shape[1] - 1)
        index = np.clip(keys, 0, self.take.shape[1] - 1)
        gains = self.take[situation[:, None], index] & (keys >= 0) & legal
        gains &= (self.left[rows, mover] > 0)[:, None] & (seat >= 0)[:, None]
        hit = gains.any(axis=1)
        picked[hit] = gains[hit].argmax(axis=1)
        self.left[rows[hit], mover[hit]] -= 1
