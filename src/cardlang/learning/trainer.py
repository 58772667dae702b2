"""Gradient steps on samples, and the replay buffer they are drawn from (torch).

Pipeline position: learning.  The loss of a batch is AlphaZero's: cross-entropy of the
network's policy against the target move distribution (over the decision's action
tokens; illegal and padding entries excluded), plus ``value_weight`` times the mean
squared error of the value head against the outcome per seat.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch

from cardlang.agents.neural.model import NeuralModel
from cardlang.agents.neural.network import batch_tensors
from cardlang.errors import check_loss
from cardlang.information.tokens import collate
from cardlang.learning.samples import Sample


class ReplayBuffer:
    """The most recent ``capacity`` samples; batches are drawn uniformly."""

    def __init__(self, capacity: int) -> None:
        self.samples: deque[Sample] = deque(maxlen=capacity)

    def extend(self, samples: Iterable[Sample]) -> None:
        self.samples.extend(samples)

    def __len__(self) -> int:
        return len(self.samples)

    def draw(self, size: int, rng: random.Random) -> list[Sample]:
        n = len(self.samples)
        return [self.samples[rng.randrange(n)] for _ in range(min(size, n) if n else 0)]


class Trainer:
    def __init__(
        self,
        model: NeuralModel,
        lr: float = 1e-3,
        weight_decay: float = 1e-4,
        value_weight: float = 1.0,
    ) -> None:
        self.model = model
        self.value_weight = value_weight
        self.optimizer = torch.optim.AdamW(model.net.parameters(), lr=lr, weight_decay=weight_decay)
        self.steps = 0

    def step(self, samples: Sequence[Sample]) -> dict[str, float]:
        """One gradient step; the batch's losses."""
        net, device = self.model.net, self.model.device
        net.train()
        batch = collate([s.tokens for s in samples])
        inputs = batch_tensors(batch, device)
        policy = np.zeros(batch.action_mask.shape, dtype=np.float32)
        for i, s in enumerate(samples):
            policy[i, : len(s.policy)] = s.policy
        seats = self.model.config.seats
        values = np.zeros((len(samples), seats), dtype=np.float32)
        for i, s in enumerate(samples):
            values[i, : min(seats, len(s.value))] = s.value[:seats]
        target_policy = torch.from_numpy(policy).to(device)
        target_value = torch.from_numpy(values).to(device)
        logits, predicted = net(**inputs)
        mask = inputs["action_mask"]
        log_p = torch.log_softmax(logits, dim=-1)
        log_p = torch.where(mask, log_p, torch.zeros_like(log_p))
        policy_loss = -(target_policy * log_p).sum(-1).mean()
        value_loss = ((predicted - target_value) ** 2).mean()
        loss = policy_loss + self.value_weight * value_loss
        check_loss(loss, "a training step")
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        self.optimizer.step()
        net.eval()  # what plays and evaluates between steps
        self.steps += 1
        with torch.no_grad():
            # the target's own entropy: the floor of the policy loss
            entropy = -(target_policy * torch.log(target_policy.clamp(min=1e-12))).sum(-1).mean()
            chosen = torch.where(mask, logits, torch.full_like(logits, -1e9)).argmax(-1)
            agree = (target_policy.argmax(-1) == chosen).float().mean()
        return {
            "loss": float(loss.detach()),
            "policy_loss": float(policy_loss.detach()),
            "value_loss": float(value_loss.detach()),
            "target_entropy": float(entropy),
            "policy_agreement": float(agree),
        }

    def state(self) -> dict[str, Any]:
        return {"optimizer": self.optimizer.state_dict(), "steps": self.steps}

    def load_state(self, state: dict[str, Any]) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.steps = int(state["steps"])
