"""Every move of a learnt decision valued by rollouts from the position as it lies.

Pipeline position: learning/experimental, a remedy (learning/remedy.py) that PPO's actor
and learner call through the seam (``--rollouts``, ``PPOConfig.rollouts``).  No shipped
model uses it; the Leduc research log (benchmarks/results/) says what it measured.

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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from cardlang.errors import UsageError
from cardlang.learning.experimental.magnet import PULLS, pull_share
from cardlang.learning.lanes import SEATED, SELF, Lane, LaneGame, Moves
from cardlang.learning.ppo import ADVANTAGE_FLOOR, PPOConfig
from cardlang.learning.remedy import Remedy
from cardlang.learning.steps import Step

__all__ = ["SPARE_PER_ROLLOUT", "Rollouts", "RolloutsRemedy", "Valued", "spare_rows"]

#: Spare rows per game row and rollout per move: a decision forks a rollout per move
#: and each lasts the rest of the game, so several are under way per game; a decision
#: that finds too few free is learnt from without (the ``forked`` figure counts them).
SPARE_PER_ROLLOUT = 8


def spare_rows(kind: str, rows: int, rollouts: int) -> int:
    """The spare rows a lane of ``kind`` with ``rows`` games forks ``rollouts`` rollouts
    per move into: the self lane's games and an agent's are forked, not a past or an
    average lane's (their other seats are no current policy to roll out)."""
    if kind in SEATED and kind != SELF:
        return 0
    return rows * rollouts * SPARE_PER_ROLLOUT


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
class _Forked:
    """A game's forked decisions: what their rollouts valued so far (by step index),
    and how many of its rollouts are still under way (while any is, the game waits
    once it has ended, its ``result`` kept)."""

    valued: dict[int, Valued] = field(default_factory=dict)
    open: int = 0


@dataclass
class _Rollout:
    """A spare row's rollout in progress: whose decision's move it values, and what the
    decision's mover has earned on its way so far."""

    game: LaneGame
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
    games: dict[LaneGame, _Forked] = field(default_factory=dict)  # the lane's, forked

    def __post_init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        """Every spare row free (the env's rows started afresh; rollouts dropped)."""
        self.busy, self.forced, self.games = {}, {}, {}
        self.free = list(range(self.first + self.spare - 1, self.first - 1, -1))

    def fork(self, env: Any, row: int, game: LaneGame, step: int, pulls: np.ndarray) -> bool:
        """Fork ``row``'s decision (the game's step ``step``, its move already drawn) into
        its rollouts: every legal move ``per_move`` times, the one played once less (the
        game goes on with it).  ``pulls``: each move's R-NaD reward to its mover.  False,
        and nothing forked, where too few spare rows are free."""
        taken = game.steps[step]
        moves = len(taken.actions)
        wanted = moves * self.per_move - 1
        if len(self.free) < wanted:
            return False
        forked = self.games.setdefault(game, _Forked())
        forked.valued[step] = Valued(np.zeros(moves), np.zeros(moves))
        for move in range(moves):
            for _ in range(self.per_move - (move == taken.chosen)):
                spare = self.free.pop()
                env.fork(row, spare)
                self.forced[spare] = int(env.action_key[row, move])
                self.busy[spare] = _Rollout(game, step, move, taken.seat, float(pulls[move]))
        forked.open += wanted
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
    ) -> list[LaneGame]:
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
            forked = self.games[game]
            valued = forked.valued[rollout.step]
            valued.sums[rollout.move] += rollout.earned + float(returns(result, rollout.seat)[0])
            valued.counts[rollout.move] += 1
            forked.open -= 1
            if forked.open == 0 and game.result is not None:
                complete.append(game)
        return complete


class RolloutsRemedy(Remedy):
    """Rollouts as PPO's remedy: an actor forks its lanes' decisions into their spare
    rows and values every move (``Rollouts``, one per lane that has spare rows); a
    learner takes each valued decision's every move into its surrogate."""

    key = "rollouts"
    keeps_probs = True  # every move's advantage is taken against the policy's mean

    def __init__(self, config: PPOConfig) -> None:
        self.config = config
        self.lanes: dict[Lane, Rollouts] = {}  # the lanes with spare rows

    def _forked(self, game: LaneGame) -> tuple[Rollouts, _Forked] | None:
        """The lane's rollouts and the game's forked decisions (None: none forked)."""
        for rollouts in self.lanes.values():
            forked = rollouts.games.get(game)
            if forked is not None:
                return rollouts, forked
        return None

    def attach(self, lanes: Sequence[Lane]) -> None:
        for lane in lanes:
            if not lane.spare:
                continue
            if lane.kind in SEATED and lane.kind != SELF:
                raise ValueError("rollouts fork self and agent lanes, into spare rows of their env")
            if lane.env.learner is not None and not lane.env.in_engine:
                raise UsageError(
                    "--rollouts: games against agents fork only inside the native engine"
                )
            rollouts = Rollouts(lane.main, lane.spare, self.config.rollouts, lane.env.nplayers)
            self.lanes[lane] = rollouts

    def restart(self, lane: Lane) -> None:
        rollouts = self.lanes.get(lane)
        if rollouts is not None:
            rollouts.restart()

    def acting(self, lane: Lane, acting: np.ndarray) -> None:
        """A spare row moves only while a rollout plays in it."""
        rollouts = self.lanes.get(lane)
        if rollouts is not None:
            acting[list(rollouts.busy)] = True

    def moved(
        self, x: dict[str, torch.Tensor], logp: torch.Tensor, chosen: torch.Tensor, moves: Moves
    ) -> None:
        if PULLS not in moves.marks:  # no magnet's rewards: every move earns nothing
            moves.marks[PULLS] = np.zeros(tuple(logp.shape), dtype=np.float32)

    def before_step(
        self, lane: Lane, learners: list[int], moves: Moves, actions: np.ndarray
    ) -> None:
        """The learner's decisions forked (before the step moves the rows on), and the
        spare rows' moves set: each row's drawn move's reward to its mover."""
        rollouts = self.lanes.get(lane)
        if rollouts is None:
            return
        pulls = moves.marks[PULLS]
        for i in learners:
            game = lane.games[i]
            rollouts.fork(lane.env, i, game, len(game.steps) - 1, pulls[i])
        rollouts.play(lane.env, actions, pulls[np.arange(lane.env.n), moves.picked])

    def holds(self, game: LaneGame) -> bool:
        found = self._forked(game)
        return found is not None and found[1].open > 0

    def after_step(
        self, lane: Lane, results: dict[int, Any], returns: Callable[[Any, int], np.ndarray]
    ) -> list[LaneGame]:
        rollouts = self.lanes.get(lane)
        if rollouts is None:
            return []
        return rollouts.settle(results, returns)

    def finish_step(self, game: LaneGame, k: int, step: Step, earned: float) -> None:
        """The game itself is one rollout of the move played: with it the decision's
        every move is valued, and its advantage is its move's (the game's record of it
        is dropped with its last valued decision's)."""
        found = self._forked(game)
        if found is None:
            return
        rollouts, forked = found
        valued = forked.valued.pop(k, None)
        if not forked.valued and not forked.open:
            del rollouts.games[game]
        if valued is None:
            return
        valued.sums[step.chosen] += earned
        valued.counts[step.chosen] += 1
        assert step.probs is not None
        step.move_advantages = valued.advantages(step.probs)
        step.advantage = float(step.move_advantages[step.chosen])

    # ------------------------------------------------------------ the learner's
    def advantage_scale(self, steps: list[Step]) -> tuple[float, float]:
        """The sampled moves' advantages' mean, and the spread of every advantage: a
        valued decision's is its every move's under the policy (their mean is the
        policy's by construction)."""
        sampled = np.array([s.advantage for s in steps if s.move_advantages is None])
        squares = [
            float(s.probs @ s.move_advantages**2)  # type: ignore[operator]
            for s in steps
            if s.move_advantages is not None
        ]
        mean = float(sampled.mean()) if len(sampled) else 0.0
        squares += ((sampled - mean) ** 2).tolist()
        return mean, max(math.sqrt(float(np.mean(squares))), ADVANTAGE_FLOOR)

    def surrogate(
        self,
        batch: list[Step],
        logp_all: torch.Tensor,
        surrogate: torch.Tensor,
        std: float,
        clip: float,
    ) -> torch.Tensor:
        """A valued decision's surrogate is every move's clipped term, weighed by the
        probability the policy that played gave it."""
        every = _every_move(batch, logp_all.shape[1])
        if every is None:
            return surrogate
        rows, old_probs, advantages = every
        ratios = torch.exp(logp_all[rows] - torch.log(old_probs.clamp_min(1e-30)))
        scaled = advantages / std
        terms = torch.min(ratios * scaled, torch.clamp(ratios, 1 - clip, 1 + clip) * scaled)
        return surrogate.index_put((rows,), (old_probs * terms).sum(1))

    def learnt(self, steps: list[Step], updates: int, minibatch: int) -> dict[str, float]:
        """The share of decisions whose every move was valued."""
        return {"forked": float(np.mean([s.move_advantages is not None for s in steps]))}

    def round_text(self, row: dict[str, Any]) -> str:
        return f", {row['forked']:.0%} of decisions forked" if "forked" in row else ""


def _every_move(
    batch: list[Step], width: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """The batch's steps whose every move was valued: their indices, the policy's
    probabilities that played them and the moves' advantages, padded to ``width`` moves
    (padding: probability and advantage 0)."""
    rows = [k for k, s in enumerate(batch) if s.move_advantages is not None]
    if not rows:
        return None
    probs = np.zeros((len(rows), width), dtype=np.float32)
    advantages = np.zeros((len(rows), width), dtype=np.float32)
    for j, k in enumerate(rows):
        step = batch[k]
        assert step.probs is not None and step.move_advantages is not None
        probs[j, : len(step.probs)] = step.probs
        advantages[j, : len(step.move_advantages)] = step.move_advantages
    return torch.tensor(rows), torch.from_numpy(probs), torch.from_numpy(advantages)
