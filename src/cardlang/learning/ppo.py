"""PPO over lockstep games: the neural agent learning at the engine's speed (torch).

Pipeline position: learning, above env (``VectorEnv`` stepped inside the native engine,
with the engine writing each view's tokens) and agents/neural (the network).  The first
cut of issue 30's item 4: the algorithm and its loop, not yet ``cardlang train
--algorithm ppo`` (no opponent pool, evaluation, checkpoints or report yet).

One *update*: every row of the env plays ``horizon`` steps with the current policy (a
softmax over the row's action tokens; the action stepped is the token's vocabulary
index), then the steps of the games that ended are learnt from, by clipped-ratio PPO
with an entropy term and a value loss, in ``epochs`` passes of minibatches.  A game's
steps wait in their row until it ends (a game is one episode: its outcome is the only
reward), so every step is learnt from with its true return.

Values are standings, as the network's value head gives them (sigmoid, one output per
seat offset, the viewer's first): a seat's return is its *credit*, the share of the win
it got (``GameResult.credits``: 1 alone first, 1/k among k tied first, 0 otherwise; a
game cut off gives 0).  With every seat the caller's (self-play), each seat's decisions
form its own trajectory; generalised advantage estimates run along it (``lam``; no
discount: the return is the game's end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import UNIFORM_COUNTS, NeuralModel
from cardlang.env.vector import VectorEnv

__all__ = ["PPOConfig", "PPOTrainer", "Step", "token_inputs"]


@dataclass
class PPOConfig:
    horizon: int = 16  # steps per row and update
    epochs: int = 3
    minibatch: int = 256  # steps per gradient step
    lr: float = 3e-4
    clip: float = 0.2
    entropy: float = 0.01
    value_weight: float = 0.5
    lam: float = 0.95
    max_grad_norm: float = 0.5


@dataclass
class Step:
    """One decision of one row, as the network read it."""

    tokens: tuple[np.ndarray, ...]  # names, kinds, buckets, continuous (trimmed)
    actions: np.ndarray  # action token names [A, N]
    chosen: int  # the action token taken
    logp: float
    value: float  # the mover's standing as the network valued it
    seat: int
    advantage: float = 0.0
    ret: float = 0.0


@dataclass
class _Game:
    """A row's game in progress: its steps so far."""

    steps: list[Step] = field(default_factory=list)


class PPOTrainer:
    """PPO on ``env`` (a ``VectorEnv`` with ``tokens=model.table``) for ``model``."""

    def __init__(self, env: VectorEnv, model: NeuralModel, config: PPOConfig, seed: int = 0):
        if getattr(env, "token_names", None) is None:
            raise ValueError("PPO reads tokens: make the VectorEnv with tokens=model.table")
        self.env, self.model, self.config = env, model, config
        # the engine's tokens read hidden locations as uniform odds: so does the model
        # when it plays (NeuralModel.tokenizer)
        model.info["expected_counts"] = UNIFORM_COUNTS
        self.net: nn.Module = model.net
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr)
        self.rng = torch.Generator().manual_seed(seed)
        self.games = [_Game() for _ in range(env.n)]
        self.finished: list[Step] = []
        self.results: list[Any] = []
        self._mask = env.reset()[1]

    # ------------------------------------------------------------ acting
    def _inputs(self) -> dict[str, torch.Tensor]:
        return token_inputs(self.env)

    def greedy(self, games: int, seat: int) -> float:
        """``seat``'s mean credit over the next ``games`` games of the env, every move
        the policy's most likely (learning nothing; the games' steps are dropped)."""
        env = self.env
        results: list[Any] = []
        self.net.eval()
        while len(results) < games:
            with torch.no_grad():
                logits, _ = self.net(**self._inputs())
            picked = logits.argmax(dim=-1).numpy()
            *_, info = env.step(env.action_key[np.arange(env.n), picked])
            results.extend(info["results"].values())
        self.games = [_Game() for _ in range(env.n)]  # their steps were not the policy's draws
        return win_rate(results[:games], seat)

    def collect(self) -> int:
        """Play ``horizon`` steps in every row; the steps of the games that ended move
        to ``finished``.  How many games ended."""
        env, ended = self.env, 0
        self.net.eval()
        for _ in range(self.config.horizon):
            x = self._inputs()
            with torch.no_grad():
                logits, values = self.net(**x)
                logp = torch.log_softmax(logits, dim=-1)
                chosen = torch.multinomial(logp.exp(), 1, generator=self.rng).squeeze(1)
            picked = chosen.numpy()
            actions = env.action_key[np.arange(env.n), picked]
            for i in range(env.n):
                c, a = int(env.token_count[i]), int(env.action_count[i])
                self.games[i].steps.append(
                    Step(
                        tokens=(
                            env.token_names[i, :c].copy(),
                            env.token_kinds[i, :c].copy(),
                            env.token_buckets[i, :c].copy(),
                            env.token_continuous[i, :c].copy(),
                        ),
                        actions=env.action_names[i, :a].copy(),
                        chosen=int(picked[i]),
                        logp=float(logp[i, picked[i]]),
                        value=float(values[i, 0]),
                        seat=int(env.seat[i]),
                    )
                )
            *_, info = env.step(actions)
            for i, result in info["results"].items():
                self._finish(self.games[i], result)
                self.games[i] = _Game()
                self.results.append(result)
                ended += 1
        return ended

    def _finish(self, game: _Game, result: Any) -> None:
        """Returns and advantages of a finished game, seat by seat (GAE along each
        seat's own decisions)."""
        lam = self.config.lam
        credits = result.credits
        by_seat: dict[int, list[Step]] = {}
        for step in game.steps:
            by_seat.setdefault(step.seat, []).append(step)
        for seat, steps in by_seat.items():
            ret = float(credits[seat])
            advantage = 0.0
            following = ret  # the value after the seat's last decision: its credit
            for step in reversed(steps):
                delta = following - step.value
                advantage = delta + lam * advantage
                step.advantage, step.ret = advantage, ret
                following = step.value
            self.finished.extend(steps)

    # ------------------------------------------------------------ learning
    def learn(self) -> dict[str, float]:
        """PPO passes over the finished games' steps (then forgotten)."""
        steps, self.finished = self.finished, []
        if not steps:
            return {}
        c = self.config
        self.net.train()
        advantages = np.array([s.advantage for s in steps], dtype=np.float32)
        mean, std = float(advantages.mean()), float(advantages.std()) + 1e-8
        stats: dict[str, list[float]] = {"policy": [], "value": [], "entropy": []}
        for _ in range(c.epochs):
            order = torch.randperm(len(steps), generator=self.rng).tolist()
            for start in range(0, len(order), c.minibatch):
                batch = [steps[j] for j in order[start : start + c.minibatch]]
                loss, parts = self._loss(batch, mean, std)
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                self.optimizer.step()
                for key, value in parts.items():
                    stats[key].append(value)
        return {k: float(np.mean(v)) for k, v in stats.items()} | {"steps": float(len(steps))}

    def _loss(self, batch: list[Step], mean: float, std: float) -> tuple[torch.Tensor, dict]:
        c = self.config
        x = _collate(batch)
        logits, values = self.net(**x)
        logp_all = torch.log_softmax(logits, dim=-1)
        chosen = torch.tensor([s.chosen for s in batch])
        logp = logp_all.gather(1, chosen[:, None]).squeeze(1)
        old = torch.tensor([s.logp for s in batch])
        advantage = (torch.tensor([s.advantage for s in batch]) - mean) / std
        ratio = torch.exp(logp - old)
        clipped = torch.clamp(ratio, 1 - c.clip, 1 + c.clip)
        policy = -torch.min(ratio * advantage, clipped * advantage).mean()
        probs = logp_all.exp()
        entropy = -(probs * logp_all.masked_fill(~x["action_mask"], 0.0)).sum(1).mean()
        value = ((values[:, 0] - torch.tensor([s.ret for s in batch])) ** 2).mean()
        loss = policy + c.value_weight * value - c.entropy * entropy
        parts = {"policy": policy.item(), "value": value.item(), "entropy": entropy.item()}
        return loss, parts


def token_inputs(env: VectorEnv) -> dict[str, torch.Tensor]:
    """The network's inputs for every row of ``env`` (made with tokens): its token and
    action arrays trimmed to the longest row, with their masks."""
    t = max(int(env.token_count.max()), 1)
    a = max(int(env.action_count.max()), 1)
    return {
        "names": torch.from_numpy(env.token_names[:, :t].astype(np.int64)),
        "kinds": torch.from_numpy(env.token_kinds[:, :t].astype(np.int64)),
        "buckets": torch.from_numpy(env.token_buckets[:, :t].astype(np.int64)),
        "continuous": torch.from_numpy(env.token_continuous[:, :t].copy()),
        "token_mask": torch.from_numpy(np.arange(t) < env.token_count[:, None]),
        "action_names": torch.from_numpy(env.action_names[:, :a].astype(np.int64)),
        "action_mask": torch.from_numpy(np.arange(a) < env.action_count[:, None]),
    }


def _collate(batch: list[Step]) -> dict[str, torch.Tensor]:
    """Steps padded into the network's inputs."""
    b = len(batch)
    t = max(max(len(s.tokens[1]) for s in batch), 1)
    a = max(max(len(s.actions) for s in batch), 1)
    n = batch[0].tokens[0].shape[1] if len(batch[0].tokens[0]) else 16
    names = np.zeros((b, t, n), dtype=np.int64)
    kinds = np.zeros((b, t), dtype=np.int64)
    buckets = np.zeros((b, t), dtype=np.int64)
    continuous = np.zeros((b, t, 3), dtype=np.float32)
    token_mask = np.zeros((b, t), dtype=np.bool_)
    action_names = np.zeros((b, a, n), dtype=np.int64)
    action_mask = np.zeros((b, a), dtype=np.bool_)
    for i, s in enumerate(batch):
        k = len(s.tokens[1])
        names[i, :k], kinds[i, :k], buckets[i, :k], continuous[i, :k] = s.tokens
        token_mask[i, :k] = True
        m = len(s.actions)
        action_names[i, :m] = s.actions
        action_mask[i, :m] = True
    return {
        "names": torch.from_numpy(names),
        "kinds": torch.from_numpy(kinds),
        "buckets": torch.from_numpy(buckets),
        "continuous": torch.from_numpy(continuous),
        "token_mask": torch.from_numpy(token_mask),
        "action_names": torch.from_numpy(action_names),
        "action_mask": torch.from_numpy(action_mask),
    }


def win_rate(results: list[Any], seat: int) -> float:
    """The mean credit of ``seat`` over results (a win 1, a shared win its share)."""
    return float(np.mean([r.credits[seat] for r in results])) if results else math.nan
