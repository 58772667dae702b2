"""Every move of a learnt decision valued by rollouts from the position as it lies.

Pipeline position: learning, under ppo.py (``PPOConfig.rollouts``); no torch.

Self-play's usual advantage, a decision's return less the value head's guess, is one
sample of one move, and in a game of hidden cards the value head cannot know the cards:
what it cannot know stays in the gradient as noise (Leduc: benchmarks/leduc_diagnostics.py
measured that every move's value in the position as it lies, hidden cards included, takes
the average policy's NashConv from 0.84 to 0.39 at a million hands, and one rollout per
move from the position to 0.56-0.61).  So each learnt decision's row is *forked*
(``VectorEnv.fork``) into spare rows of its own env, ``per_move`` rollouts for each legal
move (the game itself is one of the move played): each fork plays its move, then the
current policy plays on to the game's end, the cards still to come the same as in the game
(common random numbers: the moves are compared on one deal).  A move's value is the mean
of its rollouts' returns, each with the R-NaD rewards earned on its way; every move's
advantage over the policy's mean of them enters PPO's surrogate (the all-action form:
TRPO's "vine" estimator, Schulman et al. 2015, Sec. 5.2).

A decision is forked only when spare rows for all its rollouts are free; one that finds
too few is learnt from as without rollouts (its sampled move, generalised advantage);
PPO's ``forked`` figure is the share of decisions that were forked.  Spare rows idle
between rollouts play games nobody learns from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Rollouts", "Valued", "pull_share"]


def pull_share(mover: int, seat: int, players: int) -> float:
    """The share of a move's R-NaD reward that goes to ``seat``: all of it to the mover,
    the opposite to the other seat of a two-player (zero-sum) game, none otherwise."""
    if mover == seat:
        return 1.0
    return -1.0 if players == 2 else 0.0


@dataclass
class Valued:
    """A learnt decision's moves, as its rollouts valued them so far."""

    sums: np.ndarray  # per move: the sum of its rollouts' returns (the mover's)
    counts: np.ndarray  # per move: how many have come back

    def advantages(self, probs: np.ndarray) -> np.ndarray:
        """Each move's value less the policy's mean of the values."""
        values = self.sums / self.counts
        return values - float(probs @ values)


@dataclass
class _Rollout:
    """A spare row's rollout in progress: whose decision's move it values, and what the
    decision's mover has earned on its way so far."""

    game: Any  # ppo._Game
    step: int  # the decision's index among the game's steps
    move: int
    seat: int
    earned: float


@dataclass
class Rollouts:
    """One lane's spare rows (``first`` .. ``first + spare - 1`` of its env) and the
    rollouts they play."""

    first: int
    spare: int
    per_move: int
    players: int
    busy: dict[int, _Rollout] = field(default_factory=dict)
    free: list[int] = field(default_factory=list)
    forced: dict[int, int] = field(default_factory=dict)  # row -> its action this step

    def __post_init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        """Every spare row free (the env's rows started afresh; rollouts dropped)."""
        self.busy, self.forced = {}, {}
        self.free = list(range(self.first + self.spare - 1, self.first - 1, -1))

    def fork(self, env: Any, row: int, game: Any, step: int, pulls: np.ndarray) -> bool:
        """Fork ``row``'s decision (the game's step ``step``, its move already drawn) into
        its rollouts: every legal move ``per_move`` times, the one played once less (the
        game goes on with it).  ``pulls``: each move's R-NaD reward to its mover.  False,
        and nothing forked, where too few spare rows are free."""
        taken = game.steps[step]
        moves = len(taken.actions)
        wanted = moves * self.per_move - 1
        if len(self.free) < wanted:
            return False
        game.valued[step] = Valued(np.zeros(moves), np.zeros(moves))
        for move in range(moves):
            for _ in range(self.per_move - (move == taken.chosen)):
                spare = self.free.pop()
                env.fork(row, spare)
                self.forced[spare] = int(env.action_key[row, move])
                self.busy[spare] = _Rollout(game, step, move, taken.seat, float(pulls[move]))
        game.open += wanted
        return True

    def play(self, env: Any, actions: np.ndarray, pulls: np.ndarray) -> None:
        """This step's actions of the spare rows (in ``actions``, drawn for every row):
        a fresh fork plays its move; a rollout under way plays the policy's draw and
        earns its R-NaD reward (``pulls``, each row's move's, to its mover: the rollout's
        seat gains its own and, two playing, loses the other's)."""
        for row, rollout in self.busy.items():
            if row not in self.forced:
                share = pull_share(int(env.seat[row]), rollout.seat, self.players)
                rollout.earned += share * float(pulls[row])
        for row, action in self.forced.items():
            actions[row] = action
        self.forced = {}

    def settle(
        self, results: dict[int, Any], returns: Callable[[Any, int], np.ndarray]
    ) -> list[Any]:
        """The rollouts that ended (``results``: the env's, by row) bring back their
        returns and free their rows.  The games whose every rollout is back, and that
        have ended, in the order they became complete."""
        complete = []
        for row, result in results.items():
            rollout = self.busy.pop(row, None)
            if rollout is None:
                continue  # a game row's (held spare rows end no game)
            self.free.append(row)
            game = rollout.game
            valued = game.valued[rollout.step]
            valued.sums[rollout.move] += rollout.earned + float(returns(result, rollout.seat)[0])
            valued.counts[rollout.move] += 1
            game.open -= 1
            if game.open == 0 and game.result is not None:
                complete.append(game)
        return complete
