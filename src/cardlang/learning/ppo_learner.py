"""PPO's learner: one update of the network from an actor's experience (torch).

Pipeline position: learning, under ppo_run.py (which feeds it the actors' experience and
checkpoints its state) and above ppo.py (``Experience``, the hand-over).  The learner
never steps a game: ``learn(experience)`` counts the update (its schedules follow the
count, so a resumed run follows the same ones) and makes clipped-ratio PPO passes over
the experience's steps, with an entropy term and a value loss.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import NeuralModel
from cardlang.errors import check_loss
from cardlang.learning.ppo import ADVANTAGE_FLOOR, Experience, PPOConfig, reads_engine_tokens
from cardlang.learning.remedy import Remedy, load_remedy_states, remedy_states
from cardlang.learning.seam import remedies_for
from cardlang.learning.steps import Step, collate_steps

__all__ = ["PPOLearner"]


class PPOLearner:
    """The network's optimizer and schedules, learning from ``Experience``;
    ``remedies``: the experimental ones it calls (None: those ``config`` asks for,
    for actors that play lanes of ``kinds``)."""

    def __init__(
        self,
        model: NeuralModel,
        config: PPOConfig,
        seed: int = 0,
        remedies: list[Remedy] | None = None,
        kinds: Collection[str] = (),
    ) -> None:
        self.model, self.config = model, config
        reads_engine_tokens(model)
        self.net: nn.Module = model.net
        # fused: one kernel over every tensor (the 8,192-row name table included), a
        # ninth of the default loop's time on a CPU
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.lr, fused=True)
        self.entropy_weight = config.entropy  # this update's (_follow_schedules)
        self.rng = torch.Generator().manual_seed(seed)  # the minibatches' order
        self.updates = 0
        if remedies is None:
            remedies = remedies_for(config, self.net, seed, learner=True, kinds=kinds)
        self.remedies = remedies

    def shared(self) -> dict[str, Any]:
        """What the actors need of the remedies for the next update's play, by key."""
        return {r.key: weights for r in self.remedies if (weights := r.shared()) is not None}

    def learn(self, experience: Experience) -> dict[str, float]:
        """One update: counted, then PPO passes over the experience's steps.  The
        update's figures (none where no game ended)."""
        self.updates += 1
        for remedy in self.remedies:
            remedy.end_update(self.updates)
        steps = experience.steps
        if not steps:
            return {}
        self._note_trained(steps)
        c = self.config
        self._follow_schedules()
        self.net.train()
        mean, std = self._advantage_scale(steps)
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
        for remedy in self.remedies:
            figures = remedy.learnt(steps, self.updates, c.minibatch)
            stats.update({key: [value] for key, value in figures.items()})
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

    def _advantage_scale(self, steps: list[Step]) -> tuple[float, float]:
        """What the sampled moves' advantages are centred on and every advantage is
        divided by: their mean and spread (a remedy may take them otherwise).  Never
        blown up: where every return is alike (every game cut off, say) the advantages
        are the value head's noise, and dividing by their tiny spread would make that
        noise the whole of the gradient."""
        for remedy in self.remedies:
            scale = remedy.advantage_scale(steps)
            if scale is not None:
                return scale
        advantages = np.array([s.advantage for s in steps])
        mean = float(advantages.mean())
        squares = ((advantages - mean) ** 2).tolist()
        return mean, max(math.sqrt(float(np.mean(squares))), ADVANTAGE_FLOOR)

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
        for remedy in self.remedies:
            surrogate = remedy.surrogate(batch, logp_all, surrogate, std, c.clip)
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
        for remedy in self.remedies:
            term = remedy.loss(x, probs, logp_all)
            if term is not None:
                loss = loss + term[0]
                parts[remedy.key] = term[1]
        return loss, parts

    # ------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """What a resumed run's learner needs beside the network's weights."""
        state = {
            "rng": self.rng.get_state(),
            "updates": self.updates,
            "optimizer": self.optimizer.state_dict(),
        }
        return state | remedy_states(self.remedies)

    def load_state(self, state: dict[str, Any]) -> None:
        """A checkpoint's state (one written before the learner and the actor were
        apart holds the actor's parts too: they are not the learner's, and are left)."""
        self.optimizer.load_state_dict(state["optimizer"])
        self.rng.set_state(state["rng"])
        self.updates = int(state["updates"])
        load_remedy_states(self.remedies, state)
