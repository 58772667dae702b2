"""PPO's actor: plays the lanes with the policy it was sent and hands back experience.

Pipeline position: learning, between lanes.py (the rows and who plays them) and
ppo_learner.py (which learns from what the actor hands over, ``ppo.Experience``); an
actor of a run lives in actors.py's ``Actor``, in any process.

Every step, the current policy reads every lane's rows in one forward; the past pool's
snapshots (and a remedy's opponents) replace the rows they move in; one draw picks
every row's move.  The learner's decisions wait in their game's row until it ends, then
get their returns and generalised advantages (``lam``) seat by seat.  The actor keeps
what playing needs: the past pool (a snapshot every ``snapshot_every`` updates, one
drawn per update for the games that start in it), name dropout, the card bonus, the
forced openings (openings.py), its random streams and its update count.  Its state
(``state``) is what a resumed run's actor needs; the learner's optimizer is not in it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import NeuralModel
from cardlang.env.vector import HOLD, VectorEnv
from cardlang.errors import check_loss
from cardlang.learning.barring import CardBars
from cardlang.learning.lanes import (
    BARRED,
    PAST,
    SEATED,
    SELF,
    Lane,
    LaneGame,
    Moves,
    NameDropout,
)
from cardlang.learning.openings import ForcedOpenings
from cardlang.learning.ppo import (
    Experience,
    GameRecord,
    PPOConfig,
    load_weights,
    play_greedy,
    reads_engine_tokens,
    token_inputs,
    win_rate,
)
from cardlang.learning.remedy import Remedy, load_remedy_states, remedy_states
from cardlang.learning.returns import credits_from
from cardlang.learning.seam import remedies_for
from cardlang.learning.steps import Step

__all__ = ["PPOActor"]


class PPOActor:
    """Plays ``lanes`` (each a ``VectorEnv`` made with ``tokens=model.table``; or one
    env, one lane of its kind) with ``model``'s network; ``remedies``: the experimental
    ones it calls (None: those ``config`` asks for)."""

    def __init__(
        self,
        lanes: VectorEnv | Sequence[Lane],
        model: NeuralModel,
        config: PPOConfig,
        seed: int = 0,
        returns: Callable[[Any, int], np.ndarray] | None = None,
        remedies: list[Remedy] | None = None,
    ) -> None:
        if isinstance(lanes, VectorEnv):
            lanes = [Lane(lanes, SELF if lanes.learner is None else "agent")]
        self.lanes = list(lanes)
        self.model, self.config = model, config
        reads_engine_tokens(model)
        self.net: nn.Module = model.net
        self.seats = model.config.seats
        self.returns = returns or self._credits
        self.rng = torch.Generator().manual_seed(seed)  # the moves drawn
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
        self._finished: list[Step] = []  # steps of ended games, until collect hands them
        self._results: list[GameRecord] = []
        self.snapshot()  # the past pool's first member: the policy it starts from
        self.remedies = self._plug_in(remedies, seed)
        self.keeps_probs = any(r.keeps_probs for r in self.remedies)
        self.name_dropout = (
            NameDropout(model.table, config.name_dropout, seed) if config.name_dropout else None
        )
        self.card_keys = [
            lane.env.vocabulary.keys_binding(config.card_bonus_cards) for lane in self.lanes
        ]
        self.openings = (
            ForcedOpenings(config.kingdom, config.forced_openings, seed)
            if config.forced_openings
            else None
        )
        barring = any(lane.kind == BARRED for lane in self.lanes)
        self.bars = CardBars(config.kingdom) if barring else None
        for lane in self.lanes:
            lane.env.reset()
            self._draw_rows(lane, range(lane.env.n))

    def _plug_in(self, remedies: list[Remedy] | None, seed: int) -> list[Remedy]:
        """The remedies it calls (None: those its settings ask for), shown its lanes;
        who plays the other seats of a lane kind only a remedy plays (``average``)."""
        kinds = {lane.kind for lane in self.lanes}
        if remedies is None:
            remedies = remedies_for(self.config, self.net, seed, learner=False, kinds=kinds)
        self._opponents = {
            kind: net for r in remedies for kind in kinds if (net := r.opponents(kind)) is not None
        }
        for kind in kinds - {SELF, PAST, BARRED}:
            if kind in SEATED and kind not in self._opponents:
                raise ValueError(f"an {kind} lane needs a remedy that plays its other seats")
        for remedy in remedies:
            remedy.attach(self.lanes)
        return remedies

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
        if self.openings is not None:
            self.openings.draw(lane.env, rows)
        if lane.kind == SELF or lane.kind not in SEATED:
            return
        for i in rows:
            lane.learner[i] = self.draws.integers(lane.env.nplayers)
            lane.opponent[i] = self.update_opponent
            if self.bars is not None and lane.kind == BARRED:
                lane.barred[i] = self.bars.draw(lane.env, i, self.draws)

    def _restart(self, lane: Lane) -> None:
        lane.restart()
        for remedy in self.remedies:
            remedy.restart(lane)

    def reset(self, seed: int) -> None:
        """Start every row of every lane afresh from ``seed`` (the games in progress and
        their steps are dropped)."""
        for k, lane in enumerate(self.lanes):
            lane.env.reset(seed=seed * 1_000_003 + k)
            self._restart(lane)
            self._draw_rows(lane, range(lane.env.n))
        self._finished = []

    def receive(self, weights: dict[str, np.ndarray] | None, extra: dict[str, Any]) -> None:
        """The learner's weights (None: keep those it has) and what its remedies share
        (by remedy key), before an update's play."""
        if weights is not None:
            load_weights(self.net, weights)
        for remedy in self.remedies:
            if extra.get(remedy.key) is not None:
                remedy.receive(extra[remedy.key])

    # ------------------------------------------------------------ acting
    def greedy(self, games: int, seat: int) -> float:
        """``seat``'s mean credit over the next ``games`` games of the first lane, every
        move the policy's most likely (learning nothing; the games' steps are dropped)."""
        lane = self.lanes[0]
        results = play_greedy(self.net, lane.env, games, seed=10_007 * (self.updates + 1))
        self._restart(lane)
        self._draw_rows(lane, range(lane.env.n))
        return win_rate(results, seat)

    def collect(self) -> Experience:
        """Play ``horizon`` steps in every row of every lane: the update's experience,
        the learner's steps of the games that ended and their results."""
        self.net.eval()
        for _ in range(self.config.horizon):
            self._step_lanes()
        self._end_update()
        experience = Experience(self._finished, self._results)
        self._finished, self._results = [], []
        return experience

    def _end_update(self) -> None:
        """Count an update's games played: the pool's snapshot (and a remedy's refresh)
        fall due by the count, and the next update's snapshot is drawn."""
        self.updates += 1
        for remedy in self.remedies:
            remedy.end_update(self.updates)
        if self.config.snapshot_every and self.updates % self.config.snapshot_every == 0:
            self.snapshot()
        # the next update's snapshot, among the pool as it now stands
        self.update_opponent = int(self.draws.integers(len(self.snapshots)))

    def _step_lanes(self) -> None:
        """One step of every row of every lane: the current policy reads every lane's
        rows in one forward (a forward's cost is mostly per call at a lane's few rows),
        snapshots and remedies' opponents replace the rows they move in, one draw picks
        every row's move.  Idle spare rows are left out and held."""
        acting = [lane.acting() for lane in self.lanes]
        for lane, moves_now in zip(self.lanes, acting, strict=True):
            for remedy in self.remedies:
                remedy.acting(lane, moves_now)
        if self.name_dropout is not None:  # before anything reads or keeps the tokens
            for lane in self.lanes:
                self.name_dropout.apply(lane)
        x = token_inputs(*(lane.env for lane in self.lanes))
        moving = np.concatenate(acting)
        if not moving.all():
            kept = torch.from_numpy(np.flatnonzero(moving))
            x = {name: t[kept] for name, t in x.items()}
        bounds = np.cumsum([0] + [int(a.sum()) for a in acting])
        with torch.no_grad():
            logits, values = self.net(**x)
            for k, lane in enumerate(self.lanes):
                if lane.kind != SELF and lane.kind in SEATED:
                    rows = slice(int(bounds[k]), int(bounds[k + 1]))
                    part = {name: t[rows] for name, t in x.items()}
                    self._opponent_logits(lane, part, logits[rows])
            bonus = self._card_bonus(acting, x["action_mask"].shape[1])
            if bonus is not None:
                logits = logits + torch.from_numpy(bonus[moving])
            logp = torch.log_softmax(logits, dim=-1)
            every = logp.exp()
            if not bool(torch.isfinite(every).all()):  # weights gone NaN: say so
                check_loss(float("nan"), f"the policy playing update {self.updates + 1}")
            chosen = torch.multinomial(every, 1, generator=self.rng).squeeze(1)
            moves = Moves(
                picked=chosen.numpy(),
                taken=logp.gather(1, chosen[:, None]).squeeze(1).numpy(),
                value=values[:, 0].numpy(),
                probs=every.numpy() if self.keeps_probs else None,
            )
            for remedy in self.remedies:
                remedy.moved(x, logp, chosen, moves)
        for k, lane in enumerate(self.lanes):
            lane_moves = moves.rows(int(bounds[k]), int(bounds[k + 1])).spread(acting[k])
            self._advance(lane, lane_moves, acting[k])

    def _opponent_logits(
        self, lane: Lane, x: dict[str, torch.Tensor], logits: torch.Tensor
    ) -> None:
        """Replace the rows of ``lane`` the current policy does not move in by the logits
        of who plays them: a past snapshot, or a remedy's network."""
        others = ~lane.learns()
        if lane.kind == BARRED and self.bars is not None:  # the current policy, barred
            barred = np.flatnonzero(others)
            legal = x["action_mask"].numpy()[barred]
            self.bars.mask(lane.env, barred, lane.barred[barred], legal, logits)
            return
        if lane.kind != PAST:
            rows = torch.from_numpy(np.flatnonzero(others))
            if len(rows):
                net = self._opponents[lane.kind]
                logits[rows] = net(**{name: t[rows] for name, t in x.items()})[0]
            return
        for k in np.unique(lane.opponent[others]).tolist():
            rows = torch.from_numpy(np.flatnonzero(others & (lane.opponent == k)))
            sub = {name: t[rows] for name, t in x.items()}
            logits[rows] = self._frozen_net(k)(**sub)[0]

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

    def _advance(self, lane: Lane, moves: Moves, acting: np.ndarray) -> None:
        """Record the learner's decisions of ``lane``, play ``moves`` in the ``acting``
        rows (the others held), finish the games that ended."""
        env = lane.env
        learning = lane.learns()
        learning[lane.main :] = False
        if self.openings is not None:  # a forced move is the game's, not learnt from
            learning &= ~self.openings.overrule(env, moves.picked, learning & acting)
        learners = np.flatnonzero(learning).tolist()
        for i in learners:
            lane.games[i].steps.append(moves.step(env, i))
        actions = env.action_key[np.arange(env.n), moves.picked]
        actions[~acting] = HOLD
        for remedy in self.remedies:  # before the step moves the rows on
            remedy.before_step(lane, learners, moves, actions)
        *_, info = env.step(actions)
        for i, result in info["results"].items():
            if i < lane.main:  # a spare row's is a remedy's (after_step)
                self._end_game(lane, i, result)
        for remedy in self.remedies:
            for game in remedy.after_step(lane, info["results"], self.returns):
                self._finish(game, game.result)

    def _end_game(self, lane: Lane, i: int, result: Any) -> None:
        """Row ``i``'s game ended: counted, learnt from (once a remedy's plays for it
        are back), and the row's next game begun."""
        game = lane.games[i]
        self._results.append((lane.kind, lane.learner_seat(i), result))
        game.result = result
        if not any(remedy.holds(game) for remedy in self.remedies):  # else it finishes it
            self._finish(game, result)
        lane.games[i] = LaneGame()
        self._draw_rows(lane, [i])

    def _credits(self, result: Any, seat: int) -> np.ndarray:
        """Each seat offset's return from ``seat``'s point of view: its credit."""
        return credits_from(result, seat, self.seats)

    def _finish(self, game: LaneGame, result: Any) -> None:
        """Returns and advantages of a finished game, seat by seat (GAE along each
        seat's own decisions, with the rewards remedies pay along the way)."""
        lam = self.config.lam
        rewards: dict[int, float] = {}
        for remedy in self.remedies:
            for k, reward in remedy.rewards(game.steps, len(result.credits)).items():
                rewards[k] = rewards.get(k, 0.0) + reward
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
                for remedy in self.remedies:
                    remedy.finish_step(game, k, step, earned)
            self._finished.extend(game.steps[k] for k in indices)

    # ------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """What a resumed run's actor needs (taken at a reset)."""
        state = {
            "rng": self.rng.get_state(),
            "draws": self.draws.bit_generator.state,
            "snapshots": self.snapshots,
            "updates": self.updates,
            "update_opponent": self.update_opponent,
            "name_draws": None if self.name_dropout is None else self.name_dropout.state(),
            "opening_draws": None if self.openings is None else self.openings.state(),
        }
        return state | remedy_states(self.remedies)

    def load_state(self, state: dict[str, Any]) -> None:
        self.rng.set_state(state["rng"])
        self.draws.bit_generator.state = state["draws"]
        self.snapshots = list(state["snapshots"])
        self._frozen = []
        self.updates = int(state["updates"])
        self.update_opponent = int(state.get("update_opponent", 0))  # older: the first
        if not 0 <= self.update_opponent < len(self.snapshots):
            raise ValueError(f"update_opponent {self.update_opponent} names no snapshot")
        if self.name_dropout is not None and state.get("name_draws") is not None:
            self.name_dropout.load_state(state["name_draws"])
        if self.openings is not None and state.get("opening_draws") is not None:
            self.openings.load_state(state["opening_draws"])
        load_remedy_states(self.remedies, state)
