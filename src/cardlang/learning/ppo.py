"""PPO over lockstep games: the neural agent learning at the engine's speed (torch).

Pipeline position: learning, above env (``VectorEnv`` stepped inside the native engine,
with the engine writing each view's tokens) and agents/neural (the network).  This
module is the algorithm; ``ppo_run.py`` is ``cardlang train --algorithm ppo`` around it
(the run folder, checkpoints, evaluation, report).

The games are played in *lanes*, one ``VectorEnv`` each, and a lane says who plays its
seats: ``self`` (every seat the current policy, every decision learnt from), ``past``
(one seat per game the current policy, the others a frozen snapshot of an earlier
policy, drawn once per update for the games that start in it), ``average`` (one seat
the current policy, the others the average policy of average.py: PPO then learns a best
response to the average of its own past play, and the average follows it, which is
NFSP's fictitious self-play), or an
agent inside the engine (``bmu``, ``random``, a TOML bot:
the lane's env has one learner seat and the engine plays the rest).  The opponent pool
is the set of lanes; its weights are the lanes' shares of the rows.

One *update*: every row plays ``horizon`` steps with the current policy (a softmax over
the row's action tokens; the action stepped is the token's vocabulary index), then the
learner's steps of the games that ended are learnt from, by clipped-ratio PPO with an
entropy term and a value loss, in ``epochs`` passes of minibatches.  A game's steps wait
in their row until it ends (a game is one episode: its outcome is the only reward), so
every step is learnt from with its true return.  ``reset`` starts every row afresh
(dropping the games in progress): the run does so at each checkpoint, which is what
makes a resumed run the same as one never stopped.

Values are standings, as the network's value head gives them (sigmoid, one output per
seat offset, the viewer's first): a seat's return is its *credit*, the share of the win
it got (``GameResult.credits``: 1 alone first, 1/k among k tied first, 0 otherwise; a
game cut off gives 0), and every seat offset's output learns its seat's credit.  A solo
game's return is the scaled inverse of its length (``SoloValue``; tanh).  Generalised
advantage estimates run along each learning seat's own decisions (``lam``; no discount:
the return is the game's end).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import UNIFORM_COUNTS, NeuralModel
from cardlang.env.vector import HOLD, VectorEnv
from cardlang.errors import UsageError, check_loss
from cardlang.information.tokens import NameTable
from cardlang.language.kinds import KIND_ATTRIBUTE
from cardlang.learning.average import AveragePolicy
from cardlang.learning.config import ALGORITHM_DEFAULTS, default_of
from cardlang.learning.returns import credits_from
from cardlang.learning.rollouts import Rollouts, Valued, pull_share
from cardlang.learning.steps import Step, collate_steps

__all__ = ["Lane", "PPOConfig", "PPOTrainer", "Step", "token_inputs", "win_rate"]

SELF = "self"
PAST = "past"
AVERAGE = "average"
SEATED = (SELF, PAST, AVERAGE)  # lanes whose env gives the caller every seat
ADVANTAGE_FLOOR = 0.05  # the least spread advantages are divided by (returns span 1-2)


#: PPO's defaults where they depend on the algorithm (learning/config.py: the one home
#: of every default; a run's settings build this class, ppo_config in actors.py).
_PPO = ALGORITHM_DEFAULTS["ppo"]


@dataclass
class PPOConfig:
    horizon: int = default_of("horizon")  # steps per row and update
    epochs: int = default_of("epochs")
    minibatch: int = _PPO["batch_size"]  # steps per gradient step (a run's batch_size)
    lr: float = _PPO["lr"]
    clip: float = default_of("clip")
    entropy: float = default_of("entropy")
    # linear schedules (Stable-Baselines3's): the entropy weight and the learning rate
    # move from the values above at the first update to these at update ``anneal_updates``
    # and stay there (None: constant).  A regularised equilibrium's exploitability falls
    # with the entropy weight, but a small weight from the start collapses self-play to
    # pure moves (Leduc): start high, end low.
    entropy_final: float | None = default_of("entropy_final")
    lr_final: float | None = default_of("lr_final")
    anneal_updates: int = 0
    value_weight: float = _PPO["value_weight"]
    lam: float = default_of("lam")
    max_grad_norm: float = 0.5
    snapshot_every: int = default_of("snapshot_every")  # updates between snapshots (past pool)
    snapshots: int = default_of("snapshots")  # snapshots kept (the oldest forgotten first)
    # the magnet (R-NaD, magnetic mirror descent): a weight on KL(policy || magnet), the
    # magnet a frozen copy of the policy taken every ``magnet_every`` updates (0: the
    # policy it started from, kept).  Self-play's last iterate circles a mixed
    # equilibrium (Leduc); pulled towards a magnet that itself moves slowly, it settles.
    magnet: float = default_of("magnet")
    magnet_every: int = default_of("magnet_every")
    # R-NaD's reward transformation: the magnet's pull enters the rewards, not the loss.
    # Each move's mover is paid -magnet * log(policy / magnet) of the move it made, and in
    # a two-player game its opponent the same with the sign turned (zero sum): the game
    # itself is regularised, so its fixed point, not only each update, is held near the
    # magnet.  The value head still learns the outcome; the rewards enter the advantages.
    magnet_reward: bool = default_of("magnet_reward")
    # the average policy (average.py): a reservoir of this many decisions (0: none)
    average: int = default_of("average")
    average_recent: bool = default_of(
        "average_recent"
    )  # a window of recent decisions, not all alike (average.py)
    average_linear: bool = default_of(
        "average_linear"
    )  # each decision weighs as its update's number (average.py)
    # every move of each learnt decision valued by this many rollouts from the position
    # (rollouts.py; 0: none, the sampled move's generalised advantage): the lanes' envs
    # need spare rows to fork into (Lane)
    rollouts: int = default_of("rollouts")
    # the chance that a game reads a card kind without its name (NameDropout): the
    # network must then know the card by its components and effects, as it must a card
    # it meets first at play
    name_dropout: float = default_of("name_dropout")
    # cards the acting policy is pushed towards (a designer's new card, --always): this
    # many logits added to every option that binds one (log k less each where k do),
    # falling linearly to none at update ``card_bonus_updates``.  A model that has
    # never met a card rarely tries it, and PPO learns only from what it tries; the
    # stored log-probabilities are the pushed policy's, so the ratio corrects what is
    # learnt
    card_bonus: float = default_of("card_bonus")
    card_bonus_cards: tuple[str, ...] = ()
    card_bonus_updates: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def scheduled(self, start: float, final: float | None, update: int) -> float:
        """A setting's value at ``update`` on its linear schedule from ``start``."""
        if final is None or self.anneal_updates <= 0:
            return start
        progress = min(1.0, update / self.anneal_updates)
        return start + (final - start) * progress


@dataclass
class _Game:
    """A row's game in progress: its learner's steps so far, and (with rollouts) what
    they found of its decisions' moves: a game that ended waits, its ``result`` kept,
    until its ``open`` rollouts are back."""

    steps: list[Step] = field(default_factory=list)
    valued: dict[int, Valued] = field(default_factory=dict)  # by step index
    open: int = 0
    result: Any = None


@dataclass
class _Moves:
    """The moves drawn for a step's rows: each row's option, its log-probability, the
    mover's value, and (for the average policy) the whole distribution."""

    picked: np.ndarray
    taken: np.ndarray
    value: np.ndarray
    probs: np.ndarray | None
    pulled: np.ndarray | None = None  # (magnet_reward) the magnet's log-probability of each
    pulls: np.ndarray | None = None  # (rollouts) every move's R-NaD reward to its mover

    def spread(self, acting: np.ndarray) -> _Moves:
        """These moves, drawn for the ``acting`` rows alone, laid out over every row
        (zeros in the rows that do not move)."""
        if acting.all():
            return self

        def full(array: np.ndarray | None) -> np.ndarray | None:
            if array is None:
                return None
            out = np.zeros((len(acting), *array.shape[1:]), dtype=array.dtype)
            out[acting] = array
            return out

        return _Moves(*(full(getattr(self, f.name)) for f in fields(self)))  # type: ignore[arg-type]

    def rows(self, start: int, stop: int) -> _Moves:
        """The moves of rows ``start:stop`` (one lane's)."""
        parts = (getattr(self, f.name) for f in fields(self))
        return _Moves(*(None if p is None else p[start:stop] for p in parts))  # type: ignore[arg-type]


class Lane:
    """The rows of one ``VectorEnv`` and who plays their seats: ``kind`` is ``self``,
    ``past`` or the spec of the agent inside the engine (the env's opponents).  With
    ``rollouts`` (a ``self`` or agent lane), the env's last ``spare`` rows are not the
    lane's games but where its decisions fork their rollouts (rollouts.py)."""

    def __init__(self, env: VectorEnv, kind: str, rollouts: int = 0, spare: int = 0) -> None:
        if getattr(env, "token_names", None) is None:
            raise ValueError("PPO reads tokens: make the VectorEnv with tokens=model.table")
        if kind in SEATED and env.learner is not None:
            raise ValueError(f"a {kind} lane's env gives the caller every seat (seats='all')")
        if kind not in SEATED and env.learner is None:
            raise ValueError(f"the {kind} lane's env needs a learner seat")
        if rollouts and (kind in (PAST, AVERAGE) or not 0 < spare < env.n):
            raise ValueError("rollouts fork self and agent lanes, into spare rows of their env")
        if rollouts and env.learner is not None and not env.in_engine:
            raise UsageError("--rollouts: games against agents fork only inside the native engine")
        self.env, self.kind = env, kind
        self.main = env.n - spare if rollouts else env.n  # the rows whose games count
        self.rollouts = Rollouts(self.main, spare, rollouts, env.nplayers) if rollouts else None
        self.games = [_Game() for _ in range(self.main)]
        # past and average lanes: per row, the seat the current policy plays and (past)
        # the snapshot playing the others (set at every game's start: the update's draw)
        self.learner = np.zeros(env.n, dtype=np.int64)
        self.opponent = np.zeros(env.n, dtype=np.int64)
        # per row, each name id as its game reads it: itself, or 0 where NameDropout
        # dropped it (None: no dropout)
        self.names_kept: np.ndarray | None = None

    def learns(self) -> np.ndarray:
        """Per row: is the decision now the current policy's to learn from?"""
        if self.kind in (PAST, AVERAGE):
            return self.env.seat == self.learner
        return np.ones(self.env.n, dtype=np.bool_)

    def acting(self) -> np.ndarray:
        """Per row: does it move this step?  A spare row only while a rollout plays in
        it (the others are held: no forward, no engine work)."""
        acting = np.ones(self.env.n, dtype=np.bool_)
        if self.rollouts is not None:
            acting[self.main :] = False
            acting[list(self.rollouts.busy)] = True
        return acting

    def restart(self) -> None:
        """The env's rows started afresh: every game in progress and rollout dropped."""
        self.games = [_Game() for _ in range(self.main)]
        if self.rollouts is not None:
            self.rollouts.restart()


class PPOTrainer:
    """PPO for ``model`` on ``lanes`` (each a ``VectorEnv`` made with
    ``tokens=model.table``), or on one env (one lane; its kind from its seats)."""

    def __init__(
        self,
        lanes: VectorEnv | Sequence[Lane],
        model: NeuralModel,
        config: PPOConfig,
        seed: int = 0,
        returns: Callable[[Any, int], np.ndarray] | None = None,
    ) -> None:
        if isinstance(lanes, VectorEnv):
            lanes = [Lane(lanes, SELF if lanes.learner is None else "agent")]
        self.lanes = list(lanes)
        self.model, self.config = model, config
        # the engine's tokens read hidden locations as uniform odds: so does the model
        # when it plays (NeuralModel.tokenizer)
        model.info["expected_counts"] = UNIFORM_COUNTS
        self.net: nn.Module = model.net
        self.seats = model.config.seats
        self.returns = returns or self._credits
        # fused: one kernel over every tensor (the 8,192-row name table included), a
        # ninth of the default loop's time on a CPU
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, fused=True)
        self.entropy_weight = config.entropy  # this update's (_follow_schedules)
        self.rng = torch.Generator().manual_seed(seed)
        self.draws = np.random.default_rng(seed)  # past lanes' seats and snapshots
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self._frozen: list[nn.Module] = []
        # the snapshot the games that start in this update meet (a reset's rows too): one
        # draw per update, not per game, so that a step's past rows need a forward of one
        # or two snapshots, not of all of them (each forward costs about a millisecond
        # however few its rows); over the run every snapshot is met alike.  The first
        # update's is the only snapshot; each later one is drawn as the update before ends
        self.update_opponent = 0
        self.updates = 0
        self.finished: list[Step] = []
        self.results: list[tuple[str, int | None, Any]] = []  # (lane, learner seat, result)
        if self.lanes:  # a trainer that plays keeps the past pool (a learner fed by actors:
            self.snapshot()  # theirs); its first member, the policy it starts from
        self.average = (
            AveragePolicy(
                self.net,
                config.average,
                config.lr,
                config.minibatch,
                seed,
                recent=config.average_recent,
                linear=config.average_linear,
            )
            if config.average
            else None
        )
        if self.average is None and any(lane.kind == AVERAGE for lane in self.lanes):
            raise ValueError("an average lane needs the average policy (config.average > 0)")
        self.magnet: nn.Module | None = None
        if config.magnet:
            self.refresh_magnet()
        self.name_dropout = (
            NameDropout(model.table, config.name_dropout, seed) if config.name_dropout else None
        )
        self.card_keys = [
            lane.env.vocabulary.keys_binding(config.card_bonus_cards) for lane in self.lanes
        ]
        for lane in self.lanes:
            lane.env.reset()
            self._draw_rows(lane, range(lane.env.n))

    @property
    def env(self) -> VectorEnv:
        """The first lane's env (a trainer made on one env: that env)."""
        return self.lanes[0].env

    # ------------------------------------------------------------ the pool
    def snapshot(self) -> None:
        """Add the current policy to the past pool (frozen; the oldest forgotten past
        ``config.snapshots``)."""
        state = {k: v.detach().clone() for k, v in self.net.state_dict().items()}
        self.snapshots.append(state)
        dropped = max(0, len(self.snapshots) - self.config.snapshots)
        del self.snapshots[:dropped]
        self._frozen = []
        for lane in self.lanes:  # games in progress keep their opponent
            lane.opponent = np.maximum(lane.opponent - dropped, 0)
        self.update_opponent = max(self.update_opponent - dropped, 0)

    def refresh_magnet(self) -> None:
        """The magnet becomes a frozen copy of the current policy (a no-op without one)."""
        if not self.config.magnet:
            return
        self.magnet = copy.deepcopy(self.net)
        self.magnet.eval()
        for parameter in self.magnet.parameters():
            parameter.requires_grad_(False)

    def _frozen_net(self, k: int) -> nn.Module:
        if not self._frozen:
            for state in self.snapshots:
                net = copy.deepcopy(self.net)
                net.load_state_dict(state)
                net.eval()
                self._frozen.append(net)
        return self._frozen[k]

    def _draw_rows(self, lane: Lane, rows: Any) -> None:
        if self.name_dropout is not None:
            self.name_dropout.draw(lane, rows)
        if lane.kind not in (PAST, AVERAGE):
            return
        for i in rows:
            lane.learner[i] = self.draws.integers(lane.env.nplayers)
            lane.opponent[i] = self.update_opponent

    def reset(self, seed: int) -> None:
        """Start every row of every lane afresh from ``seed`` (the games in progress and
        their steps are dropped)."""
        for k, lane in enumerate(self.lanes):
            lane.env.reset(seed=seed * 1_000_003 + k)
            lane.restart()
            self._draw_rows(lane, range(lane.env.n))
        self.finished = []

    # ------------------------------------------------------------ acting
    def greedy(self, games: int, seat: int) -> float:
        """``seat``'s mean credit over the next ``games`` games of the first lane, every
        move the policy's most likely (learning nothing; the games' steps are dropped)."""
        lane = self.lanes[0]
        results = play_greedy(self.net, lane.env, games, seed=10_007 * (self.updates + 1))
        lane.restart()
        self._draw_rows(lane, range(lane.env.n))
        return win_rate(results, seat)

    def collect(self) -> int:
        """Play ``horizon`` steps in every row of every lane; the learner's steps of the
        games that ended move to ``finished``.  How many games ended."""
        ended = 0
        self.net.eval()
        for _ in range(self.config.horizon):
            ended += self._step_lanes()
        self.end_update()
        return ended

    def end_update(self) -> None:
        """Count an update's games played: the pool's snapshot and the magnet's refresh
        fall due by the count, and the next update's snapshot is drawn.  (A learner fed
        by actors, ``actors.py``, calls it for each update they played.)"""
        self.updates += 1
        if self.config.magnet_every and self.updates % self.config.magnet_every == 0:
            self.refresh_magnet()
        if not self.lanes:
            return
        if self.config.snapshot_every and self.updates % self.config.snapshot_every == 0:
            self.snapshot()
        # the next update's snapshot, among the pool as it now stands
        self.update_opponent = int(self.draws.integers(len(self.snapshots)))

    def _step_lanes(self) -> int:
        """One step of every row of every lane: the current policy reads every lane's
        rows in one forward (a forward's cost is mostly per call at a lane's few rows),
        snapshots and the average policy replace the rows they move in, one draw picks
        every row's move.  Idle spare rows (rollouts) are left out and held."""
        envs = [lane.env for lane in self.lanes]
        acting = [lane.acting() for lane in self.lanes]
        if self.name_dropout is not None:  # before anything reads or keeps the tokens
            for lane in self.lanes:
                self.name_dropout.apply(lane)
        x = token_inputs(*envs)
        moving = np.concatenate(acting)
        if not moving.all():
            kept = torch.from_numpy(np.flatnonzero(moving))
            x = {name: t[kept] for name, t in x.items()}
        bounds = np.cumsum([0] + [int(a.sum()) for a in acting])
        with torch.no_grad():
            logits, values = self.net(**x)
            for k, lane in enumerate(self.lanes):
                if lane.kind in (PAST, AVERAGE):
                    rows = slice(int(bounds[k]), int(bounds[k + 1]))
                    part = {name: t[rows] for name, t in x.items()}
                    others = logits[rows]
                    if lane.kind == PAST:
                        self._past_logits(lane, part, lane.learns(), others)
                    else:
                        self._average_logits(part, lane.learns(), others)
            bonus = self._card_bonus(acting, x["action_mask"].shape[1])
            if bonus is not None:
                logits = logits + torch.from_numpy(bonus[moving])
            logp = torch.log_softmax(logits, dim=-1)
            every = logp.exp()
            if not bool(torch.isfinite(every).all()):  # weights gone NaN: say so
                check_loss(float("nan"), f"the policy playing update {self.updates + 1}")
            chosen = torch.multinomial(every, 1, generator=self.rng).squeeze(1)
            pulled, pulls = None, None
            if self.magnet is not None and self.config.magnet_reward:
                magnet_logp = torch.log_softmax(self.magnet(**x)[0], dim=-1)
                pulled = magnet_logp.gather(1, chosen[:, None]).squeeze(1).numpy()
                if self.config.rollouts:  # a fork's first move is any move, not the drawn
                    gap = (logp - magnet_logp).masked_fill(~x["action_mask"], 0.0)
                    pulls = (-self.config.magnet * gap).numpy()
            if self.config.rollouts and pulls is None:
                pulls = np.zeros(tuple(logp.shape), dtype=np.float32)
        # average.py learns the probabilities; rollouts' advantages are taken against them
        keep_probs = self.average is not None or self.config.rollouts
        moves = _Moves(
            picked=chosen.numpy(),
            taken=logp.gather(1, chosen[:, None]).squeeze(1).numpy(),
            value=values[:, 0].numpy(),
            probs=every.numpy() if keep_probs else None,
            pulled=pulled,
            pulls=pulls,
        )
        ended = 0
        for k, lane in enumerate(self.lanes):
            lane_moves = moves.rows(int(bounds[k]), int(bounds[k + 1])).spread(acting[k])
            ended += self._advance(lane, lane_moves, acting[k])
        return ended

    def _card_bonus(self, acting: list[np.ndarray], width: int) -> np.ndarray | None:
        """Per row of every lane (acting or not) and action slot, the logits added to the
        options that bind a pushed card (``PPOConfig.card_bonus``), in the rows the
        current policy moves in; None where nothing is pushed now."""
        c = self.config
        if not c.card_bonus or not c.card_bonus_cards:
            return None
        left = 1.0 - self.updates / c.card_bonus_updates if c.card_bonus_updates else 1.0
        if left <= 0:
            return None
        parts = []
        for lane, lut in zip(self.lanes, self.card_keys, strict=True):
            env = lane.env
            keys = env.action_key[:, :width]
            situation = env.situation.astype(np.int64)[:, None]
            legal = np.arange(width)[None, :] < env.action_count[:, None]
            binds = lut[situation, np.clip(keys, 0, lut.shape[1] - 1)] & legal
            binds &= lane.learns()[:, None]
            # the push of the decision, not of each option: several pushed options (six
            # new cards in a Buy phase) share it, log k less each, as one would have it
            k = np.maximum(binds.sum(axis=1, keepdims=True), 1)
            push = np.maximum(c.card_bonus * left - np.log(k), 0.0)  # never a pull
            parts.append(binds * push.astype(np.float32))
        return np.concatenate(parts).astype(np.float32)

    def _advance(self, lane: Lane, moves: _Moves, acting: np.ndarray) -> int:
        """Record the learner's decisions of ``lane``, play ``moves`` in the ``acting``
        rows (the others held; with rollouts, the decisions forked first), finish the
        games that ended.  How many ended."""
        env = lane.env
        learners = np.flatnonzero(lane.learns()[: lane.main]).tolist()
        for i in learners:
            lane.games[i].steps.append(_step_of(env, i, moves))
        actions = env.action_key[np.arange(env.n), moves.picked]
        actions[~acting] = HOLD
        rollouts = lane.rollouts
        if rollouts is not None:
            assert moves.pulls is not None
            for i in learners:  # before the step moves the rows on
                game = lane.games[i]
                rollouts.fork(env, i, game, len(game.steps) - 1, moves.pulls[i])
            # each row's drawn move's reward to its mover
            rollouts.play(env, actions, moves.pulls[np.arange(env.n), moves.picked])
        *_, info = env.step(actions)
        ended = 0
        for i, result in info["results"].items():
            if i < lane.main:  # a spare row's is its rollout's (rollouts.settle)
                self._end_game(lane, i, result)
                ended += 1
        if rollouts is not None:
            for game in rollouts.settle(info["results"], self.returns):
                self._finish(game, game.result)
        return ended

    def _end_game(self, lane: Lane, i: int, result: Any) -> None:
        """Row ``i``'s game ended: counted, learnt from (once its rollouts are back),
        and the row's next game begun."""
        game = lane.games[i]
        self.results.append((lane.kind, self._learner_seat(lane, i), result))
        if game.open:  # its rollouts are still under way: settle finishes it
            game.result = result
        else:
            self._finish(game, result)
        lane.games[i] = _Game()
        self._draw_rows(lane, [i])

    def _past_logits(
        self, lane: Lane, x: dict[str, torch.Tensor], learns: np.ndarray, logits: torch.Tensor
    ) -> None:
        """Replace the rows the snapshots move in by the snapshots' logits."""
        others = ~learns
        for k in np.unique(lane.opponent[others]).tolist():
            rows = torch.from_numpy(np.flatnonzero(others & (lane.opponent == k)))
            sub = {name: t[rows] for name, t in x.items()}
            logits[rows] = self._frozen_net(k)(**sub)[0]

    def _average_logits(
        self, x: dict[str, torch.Tensor], learns: np.ndarray, logits: torch.Tensor
    ) -> None:
        """Replace the rows the average policy moves in by its logits."""
        assert self.average is not None
        rows = torch.from_numpy(np.flatnonzero(~learns))
        if len(rows):
            logits[rows] = self.average.net(**{name: t[rows] for name, t in x.items()})[0]

    @staticmethod
    def _learner_seat(lane: Lane, i: int) -> int | None:
        if lane.kind == SELF:
            return None
        return int(lane.learner[i]) if lane.kind in (PAST, AVERAGE) else lane.env.learner

    def _credits(self, result: Any, seat: int) -> np.ndarray:
        """Each seat offset's return from ``seat``'s point of view: its credit."""
        return credits_from(result, seat, self.seats)

    def _finish(self, game: _Game, result: Any) -> None:
        """Returns and advantages of a finished game, seat by seat (GAE along each
        seat's own decisions; with ``magnet_reward`` each decision also earns its
        regularising rewards, ``_pull_rewards``)."""
        lam = self.config.lam
        rewards = self._pull_rewards(game.steps, len(result.credits))
        by_seat: dict[int, list[int]] = {}
        for k, step in enumerate(game.steps):
            by_seat.setdefault(step.seat, []).append(k)
        for seat, indices in by_seat.items():
            returns = self.returns(result, seat)
            advantage = 0.0
            following = float(returns[0])  # the value after the seat's last decision
            earned = following  # the seat's return from the decision on, rewards included
            for k in reversed(indices):
                step = game.steps[k]
                delta = rewards.get(k, 0.0) + following - step.value
                advantage = delta + lam * advantage
                step.advantage, step.returns = advantage, returns
                following = step.value
                earned += rewards.get(k, 0.0)
                valued = game.valued.get(k)
                if valued is not None:  # the game itself is one rollout of the move played
                    valued.sums[step.chosen] += earned
                    valued.counts[step.chosen] += 1
                    assert step.probs is not None
                    step.move_advantages = valued.advantages(step.probs)
                    step.advantage = float(step.move_advantages[step.chosen])
            self.finished.extend(game.steps[k] for k in indices)

    def _pull_rewards(self, steps: list[Step], players: int) -> dict[int, float]:
        """R-NaD's transformed rewards (``magnet_reward``), by index into ``steps``
        (the game's learnt decisions in order): each decision's mover is paid
        ``-magnet * log(policy / magnet)`` of its move, and in a two-player game the
        other seat is paid the opposite, credited to its own decision before (the rewards
        a seat earns between its decisions are its last decision's).  Empty without
        the transformation."""
        if self.magnet is None or not self.config.magnet_reward:
            return {}
        eta = self.config.magnet
        rewards: dict[int, float] = {}
        last: dict[int, int] = {}  # each seat's latest decision so far
        for k, step in enumerate(steps):
            pull = -eta * (step.logp - step.magnet_logp)
            rewards[k] = rewards.get(k, 0.0) + pull
            for seat, decision in last.items():
                share = pull_share(step.seat, seat, players)
                if seat != step.seat and share:
                    rewards[decision] += share * pull
            last[step.seat] = k
        return rewards

    # ------------------------------------------------------------ learning
    def learn(self) -> dict[str, float]:
        """PPO passes over the finished games' steps (then forgotten)."""
        steps, self.finished = self.finished, []
        if not steps:
            return {}
        self._note_trained(steps)
        c = self.config
        self._follow_schedules()
        self.net.train()
        mean, std = _advantage_scale(steps)
        stats: dict[str, list[float]] = {"policy": [], "value": [], "entropy": [], "kl": []}
        for _ in range(c.epochs):
            order = torch.randperm(len(steps), generator=self.rng).tolist()
            for start in range(0, len(order), c.minibatch):
                batch = [steps[j] for j in order[start : start + c.minibatch]]
                loss, parts = self._loss(batch, mean, std)
                check_loss(loss, f"PPO update {self.updates}")
                self.optimizer.zero_grad()
                loss.backward()
                norm = nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                check_loss(norm, f"PPO update {self.updates}'s gradient")
                self.optimizer.step()
                for key, value in parts.items():
                    stats.setdefault(key, []).append(value)
        self.net.eval()
        if self.average is not None:
            self.average.add(steps, self.updates)
            stats["average"] = [self.average.learn(math.ceil(len(steps) / c.minibatch))]
        if c.rollouts:  # the share of decisions whose every move was valued
            stats["forked"] = [float(np.mean([s.move_advantages is not None for s in steps]))]
        return {k: float(np.mean(v)) for k, v in stats.items()} | {"steps": float(len(steps))}

    def _note_trained(self, steps: list[Step]) -> None:
        """The model remembers which names it learnt from (NeuralModel.freeze reads any
        other as the unknown name at play)."""
        seen = np.zeros(len(self.model.table), dtype=np.bool_)
        for step in steps:
            seen[step.tokens[0]] = True
            seen[step.actions] = True
        self.model.learnt(np.flatnonzero(seen))

    def _follow_schedules(self) -> None:
        """The entropy weight and the optimiser's learning rate for this update (the
        update count is a checkpoint's, so a resumed run follows the same schedule)."""
        c = self.config
        self.entropy_weight = c.scheduled(c.entropy, c.entropy_final, self.updates)
        for group in self.optimizer.param_groups:
            group["lr"] = c.scheduled(c.lr, c.lr_final, self.updates)

    def _loss(self, batch: list[Step], mean: float, std: float) -> tuple[torch.Tensor, dict]:
        c = self.config
        x = collate_steps(batch)
        logits, values = self.net(**x)
        logp_all = torch.log_softmax(logits, dim=-1)
        chosen = torch.tensor([s.chosen for s in batch])
        logp = logp_all.gather(1, chosen[:, None]).squeeze(1)
        old = torch.tensor([s.logp for s in batch])
        advantage = (torch.tensor([s.advantage for s in batch]) - mean) / std
        ratio = torch.exp(logp - old)
        clipped = torch.clamp(ratio, 1 - c.clip, 1 + c.clip)
        surrogate = torch.min(ratio * advantage, clipped * advantage)
        every = _every_move(batch, logp_all.shape[1])
        if every is not None:  # rollouts valued every move: each one's clipped term
            rows, old_probs, advantages = every
            ratios = torch.exp(logp_all[rows] - torch.log(old_probs.clamp_min(1e-30)))
            scaled = advantages / std
            terms = torch.min(ratios * scaled, torch.clamp(ratios, 1 - c.clip, 1 + c.clip) * scaled)
            surrogate = surrogate.index_put((rows,), (old_probs * terms).sum(1))
        policy = -surrogate.mean()
        probs = logp_all.exp()
        entropy = -(probs * logp_all.masked_fill(~x["action_mask"], 0.0)).sum(1).mean()
        targets = torch.from_numpy(np.stack([s.returns for s in batch]))  # type: ignore[misc]
        value = ((values - targets) ** 2).mean()
        loss = policy + c.value_weight * value - self.entropy_weight * entropy
        with torch.no_grad():
            kl = (old - logp).mean()
        parts = {
            "policy": policy.item(),
            "value": value.item(),
            "entropy": entropy.item(),
            "kl": kl.item(),
        }
        if self.magnet is not None and not c.magnet_reward:
            pull = self._magnet_divergence(x, probs, logp_all)
            loss = loss + c.magnet * pull
            parts["magnet"] = pull.item()
        return loss, parts

    def _magnet_divergence(
        self, x: dict[str, torch.Tensor], probs: torch.Tensor, logp_all: torch.Tensor
    ) -> torch.Tensor:
        """Mean KL(policy || magnet) over the batch's decisions (legal moves only)."""
        assert self.magnet is not None
        with torch.no_grad():
            magnet_logits, _ = self.magnet(**x)
            magnet_logp = torch.log_softmax(magnet_logits, dim=-1)
        legal = x["action_mask"]
        gap = (logp_all - magnet_logp).masked_fill(~legal, 0.0)
        return (probs * gap).sum(1).mean()

    # ------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """What a resumed run needs beside the network's weights (taken at a reset)."""
        return self.acting_state() | {
            "optimizer": self.optimizer.state_dict(),
            "average": None if self.average is None else self.average.state(),
        }

    def acting_state(self) -> dict[str, Any]:
        """What an actor's resume needs (``state`` less the learner's parts)."""
        return {
            "rng": self.rng.get_state(),
            "draws": self.draws.bit_generator.state,
            "snapshots": self.snapshots,
            "updates": self.updates,
            "update_opponent": self.update_opponent,
            "magnet": None if self.magnet is None else self.magnet.state_dict(),
            "name_draws": None if self.name_dropout is None else self.name_dropout.state(),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        if "optimizer" in state:  # an actor's state (acting_state) has none
            self.optimizer.load_state_dict(state["optimizer"])
        self.rng.set_state(state["rng"])
        self.draws.bit_generator.state = state["draws"]
        self.snapshots = list(state["snapshots"]) if self.lanes else []  # a learner: none
        self._frozen = []
        self.updates = int(state["updates"])
        self.update_opponent = int(state.get("update_opponent", 0))  # older: the first
        if self.lanes and not 0 <= self.update_opponent < len(self.snapshots):
            raise ValueError(f"update_opponent {self.update_opponent} names no snapshot")
        if self.magnet is not None and state.get("magnet") is not None:
            self.magnet.load_state_dict(state["magnet"])
        if self.name_dropout is not None and state.get("name_draws") is not None:
            self.name_dropout.load_state(state["name_draws"])
        if self.average is not None and state.get("average") is not None:
            self.average.load_state(state["average"])


def _step_of(env: VectorEnv, i: int, moves: _Moves) -> Step:
    """Row ``i``'s decision as the network read it, with the move drawn there."""
    c, a = int(env.token_count[i]), int(env.action_count[i])
    return Step(
        tokens=(
            env.token_names[i, :c].copy(),
            env.token_kinds[i, :c].copy(),
            env.token_buckets[i, :c].copy(),
            env.token_continuous[i, :c].copy(),
        ),
        actions=env.action_names[i, :a].copy(),
        chosen=int(moves.picked[i]),
        logp=float(moves.taken[i]),
        value=float(moves.value[i]),
        seat=int(env.seat[i]),
        probs=None if moves.probs is None else moves.probs[i, :a].copy(),
        magnet_logp=0.0 if moves.pulled is None else float(moves.pulled[i]),
    )


def _advantage_scale(steps: list[Step]) -> tuple[float, float]:
    """What the sampled moves' advantages are centred on and every advantage is divided
    by: their mean and spread (with rollouts, the spread of every move's under the
    policy; their mean is the policy's by construction).  Never blown up: where every
    return is alike (every game cut off, say) the advantages are the value head's noise,
    and dividing by their tiny spread would make that noise the whole of the gradient."""
    sampled = np.array([s.advantage for s in steps if s.move_advantages is None])
    squares = [
        float(s.probs @ s.move_advantages**2) for s in steps if s.move_advantages is not None
    ]  # type: ignore[operator]
    mean = float(sampled.mean()) if len(sampled) else 0.0
    squares += ((sampled - mean) ** 2).tolist()
    return mean, max(math.sqrt(float(np.mean(squares))), ADVANTAGE_FLOOR)


def _every_move(
    batch: list[Step], width: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """The batch's steps whose every move was valued (rollouts): their indices, the
    policy's probabilities that played them and the moves' advantages, padded to
    ``width`` moves (padding: probability and advantage 0)."""
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


def play_greedy(net: nn.Module, env: VectorEnv, games: int, seed: int = 0) -> list[Any]:
    """The results of ``games`` games of ``env``, every caller move the policy's most
    likely.  Each row's *first* game after a reset counts (a row plays one game, then
    idles), so short games are not favoured; with more games than rows, the rows start
    again from ``seed + 1``, ``seed + 2``, ..."""
    results: list[Any] = []
    net.eval()
    for round_ in range(math.ceil(games / env.n)):
        env.reset(seed=seed + round_)
        wanted = min(env.n, games - len(results))
        first: dict[int, Any] = {}
        while len(first) < wanted:
            with torch.no_grad():
                logits, _ = net(**token_inputs(env))
            picked = logits.argmax(dim=-1).numpy()
            *_, info = env.step(env.action_key[np.arange(env.n), picked])
            for i, result in info["results"].items():
                if i < wanted:
                    first.setdefault(i, result)
        results.extend(first[i] for i in range(wanted))
    return results


def token_inputs(*envs: VectorEnv) -> dict[str, torch.Tensor]:
    """The network's inputs for every row of ``envs`` (made with tokens), one env's rows
    after another: their token and action arrays trimmed to the longest row, with their
    masks, in the engine's narrow types (the network widens what it indexes with: a
    dedup hashes half the bytes)."""
    t = max(max(int(env.token_count.max()) for env in envs), 1)
    a = max(max(int(env.action_count.max()) for env in envs), 1)

    def joined(name: str, width: int, dtype: type) -> torch.Tensor:
        arrays = [getattr(env, name)[:, :width] for env in envs]
        if len(arrays) == 1:
            return torch.from_numpy(arrays[0].astype(dtype))
        out = np.zeros((sum(env.n for env in envs), width, *arrays[0].shape[2:]), dtype=dtype)
        row = 0
        for array in arrays:  # an env's arrays may be narrower than the widest
            out[row : row + len(array), : array.shape[1]] = array
            row += len(array)
        return torch.from_numpy(out)

    counts = np.concatenate([env.token_count for env in envs])
    actions = np.concatenate([env.action_count for env in envs])
    return {
        "names": joined("token_names", t, np.int32),
        "kinds": joined("token_kinds", t, np.int8),
        "buckets": joined("token_buckets", t, np.int8),
        "continuous": joined("token_continuous", t, np.float32),
        "token_mask": torch.from_numpy(np.arange(t) < counts[:, None]),
        "action_names": joined("action_names", a, np.int32),
        "action_mask": torch.from_numpy(np.arange(a) < actions[:, None]),
    }


def win_rate(results: list[Any], seat: int) -> float:
    """The mean credit of ``seat`` over results (a win 1, a shared win its share)."""
    return float(np.mean([r.credits[seat] for r in results])) if results else math.nan


class NameDropout:
    """Card kinds read without their names, a game at a time (``PPOConfig.name_dropout``).

    A card's tokens sum its name (``comp:KIND=SMITHY``, and the storages named after
    it, ``sto:P+0:SMITHY``) with its components and effects.  A network that always
    sees the name can rely on it and never learn what the components mean; then a card
    it has not met, whose name it does not know, is a blank.  Here each game, as it
    starts in a row, draws for every card kind whether the row's tokens name it: a
    dropped name becomes the unknown name (0) in every token and action of that game,
    before the network reads them and before the learner keeps them, so the moves
    played and the moves learnt see the same tokens.  Games of a deck without kinds
    (a card is its attributes) have nothing to drop."""

    def __init__(self, table: NameTable, chance: float, seed: int) -> None:
        self.chance = chance
        self.rng = np.random.default_rng([seed, 54])
        self.kinds = _kind_names(table.names)
        self.width = table.capacity

    def draw(self, lane: Lane, rows: Any) -> None:
        """New games in ``rows``: each kind's name dropped with the chance."""
        if lane.names_kept is None:
            lane.names_kept = np.tile(np.arange(self.width, dtype=np.int32), (lane.env.n, 1))
        for i in rows:
            kept = lane.names_kept[i]
            kept[:] = np.arange(self.width, dtype=np.int32)
            dropped = self.rng.random(len(self.kinds)) < self.chance
            for ids in (ids for ids, drop in zip(self.kinds, dropped, strict=True) if drop):
                kept[ids] = 0

    def apply(self, lane: Lane) -> None:
        """The dropped names of each row's game removed from its tokens (in place)."""
        env, kept = lane.env, lane.names_kept
        if kept is None:
            return
        rows = np.arange(env.n)[:, None, None]
        t, a = int(env.token_count.max()), int(env.action_count.max())
        env.token_names[:, :t] = kept[rows, env.token_names[:, :t]]
        env.action_names[:, :a] = kept[rows, env.action_names[:, :a]]

    def state(self) -> dict[str, Any]:
        return dict(self.rng.bit_generator.state)

    def load_state(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state


def _kind_names(names: Sequence[str]) -> list[np.ndarray]:
    """Per card kind, the ids of the names that name it: ``comp:KIND=K``, the integer
    storages named after it (``sto:OWNER:K``, Dominion's count of K owned) and the
    option values of a pile it tops (``val:BUY-PHASE/PILE=SUPPLY:K``: a buy's action
    token names the pile, not the card; left named, the policy learnt which pile to buy
    by that name, and a card whose name it never learnt was never bought)."""
    prefix = f"comp:{KIND_ATTRIBUTE}="
    kinds = {n[len(prefix) :]: [i] for i, n in enumerate(names) if n.startswith(prefix)}
    for i, name in enumerate(names):
        if name.startswith(("sto:", "val:")):
            kind = name.rpartition(":")[2]
            if kind in kinds:
                kinds[kind].append(i)
    return [np.array(ids, dtype=np.int64) for ids in kinds.values()]
