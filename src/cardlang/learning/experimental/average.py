"""The average of the policies PPO has played: NFSP's average network (torch).

Pipeline position: learning/experimental, a remedy (learning/remedy.py) that PPO's actor
and learner call through the seam (``--average``, ``--opponents ...,average@W``).  No
shipped model is its output: models/leduc's recipe passes ``--average`` and learns it
beside the policy it ships (the current one), and its figures are the research's
(benchmarks/leduc_exploitability.py).

Self-play's current policy in a game of hidden information circles a mixed equilibrium
rather than settling on it (Leduc poker: NashConv 1-2 chips per hand, up and down); the
*average* of the policies played is what converges in two-player zero-sum games
(fictitious play; Heinrich & Silver, "Deep Reinforcement Learning from Self-Play in
Imperfect-Information Games", 2016).

A network of the policy's shape learns it by imitation: every decision PPO learns from
joins a reservoir (Vitter's algorithm R: after n decisions, each of them is in it with
the same chance, capacity / n; with ``recent``, each new decision replaces a random one
once it is full, so the average weighs the recent policies most, over an exponential
window of about ``capacity`` decisions) with the policy's move probabilities there, and the
network is fitted to the reservoir's probabilities (cross-entropy over the decision's
legal moves).  With ``linear``, each decision's cross-entropy weighs as the number of the
update that played it (CFR+'s linear averaging: the policy of update t counts t times, so
the early policies, far from any equilibrium, fade from the average instead of weighing
as much as the latest; the reservoir itself stays uniform, so the weights are exact in
expectation).  A decision is sampled as often as the policies played reach it, so the
network learns each state's moves averaged over the policies in proportion to how often
each reached it: the average strategy, up to the opponents' share of the reach.

Its checkpoint state is tensors only (``torch.load(weights_only=True)`` reads it).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.agents.neural.model import NeuralModel
from cardlang.errors import UsageError, check_loss
from cardlang.learning.lanes import AVERAGE
from cardlang.learning.ppo import PPOConfig, load_weights, weights_of
from cardlang.learning.remedy import Remedy
from cardlang.learning.steps import Step, collate_steps

__all__ = ["AVERAGE_FILE", "AveragePolicy", "AverageRemedy", "check_weighting"]

#: The average policy's file in a run's folder (loadable as neural:model=DIR/average.pt).
AVERAGE_FILE = "average.pt"


def check_weighting(recent: bool, linear: bool) -> None:
    """The average is over recent decisions or weighted linearly, not both."""
    if recent and linear:
        raise UsageError("--average-recent and --average-linear: choose one weighting")


class AveragePolicy:
    """The average policy's network, its reservoir and its optimizer."""

    def __init__(
        self,
        net: nn.Module,
        capacity: int,
        lr: float,
        minibatch: int,
        seed: int,
        recent: bool = False,
        linear: bool = False,
    ) -> None:
        check_weighting(recent, linear)
        self.net = copy.deepcopy(net)  # starts as the policy it averages from
        self.net.eval()
        self.capacity, self.minibatch = capacity, minibatch
        self.recent, self.linear = recent, linear
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr, fused=True)
        self.draws = np.random.default_rng([seed, 1])  # reservoir places
        self.rng = torch.Generator().manual_seed(seed + 1)  # minibatches
        self.reservoir: list[Step] = []
        self.played: list[int] = []  # the update that played each of the reservoir's
        self.seen = 0

    def add(self, steps: list[Step], update: int = 1) -> None:
        """Offer decisions (with their ``probs``), played in update ``update`` (from 1),
        to the reservoir."""
        for step in steps:
            self.seen += 1
            if len(self.reservoir) < self.capacity:
                self.reservoir.append(_owned(step))
                self.played.append(update)
                continue
            # reservoir: the n-th decision kept with chance capacity / n; recent: always,
            # over a random one (ages exponential, about ``capacity`` decisions)
            place = int(self.draws.integers(self.capacity if self.recent else self.seen))
            if place < self.capacity:
                self.reservoir[place] = _owned(step)
                self.played[place] = update

    def learn(self, batches: int) -> float:
        """``batches`` gradient steps on minibatches drawn from the reservoir; the mean
        cross-entropy."""
        if not self.reservoir:
            return float("nan")
        self.net.train()
        losses = []
        for _ in range(batches):
            size = min(self.minibatch, len(self.reservoir))
            picks = torch.randint(len(self.reservoir), (size,), generator=self.rng).tolist()
            batch = [self.reservoir[j] for j in picks]
            x = collate_steps(batch)
            logits, _ = self.net(**x)
            logp = torch.log_softmax(logits, dim=-1).masked_fill(~x["action_mask"], 0.0)
            target = torch.zeros_like(logp)
            for i, step in enumerate(batch):
                assert step.probs is not None
                target[i, : len(step.probs)] = torch.from_numpy(step.probs)
            per_decision = -(target * logp).sum(1)
            if self.linear:
                weights = torch.tensor([self.played[j] for j in picks], dtype=logp.dtype)
                loss = (per_decision * weights).sum() / weights.sum()
            else:
                loss = per_decision.mean()
            check_loss(loss, "the average policy's step")
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
            self.optimizer.step()
            losses.append(loss.item())
        self.net.eval()
        return float(np.mean(losses))

    # ------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """Everything a resumed run needs, as tensors and numbers."""
        return {
            "net": {k: v.detach().clone() for k, v in self.net.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
            "draws": self.draws.bit_generator.state,
            "rng": self.rng.get_state(),
            "seen": self.seen,
            "reservoir": _pack(self.reservoir),
            "played": torch.tensor(self.played, dtype=torch.int64),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.draws.bit_generator.state = state["draws"]
        self.rng.set_state(state["rng"])
        self.seen = int(state["seen"])
        self.reservoir = _unpack(state["reservoir"])
        played = state.get("played")  # a checkpoint from before linear weights: all alike
        self.played = played.tolist() if played is not None else [1] * len(self.reservoir)
        if len(self.played) != len(self.reservoir):
            raise ValueError("the average policy's reservoir and its update numbers disagree")


class AverageRemedy(Remedy):
    """The average policy as PPO's remedy: the learner adds each update's decisions to
    it and fits it; an actor plays it in the other seats of ``average`` lanes with the
    weights the learner shares (only where the actors play such lanes, ``shares``)."""

    key = "average"
    keeps_probs = True  # the reservoir keeps each decision's move probabilities

    def __init__(
        self, config: PPOConfig, net: nn.Module, seed: int, learner: bool, shares: bool
    ) -> None:
        self.learner, self.shares = learner, shares
        self.policy = AveragePolicy(
            net,
            config.average,
            config.lr,
            config.minibatch,
            seed,
            recent=config.average_recent,
            linear=config.average_linear,
        )

    def opponents(self, kind: str) -> nn.Module | None:
        return self.policy.net if kind == AVERAGE else None

    def receive(self, weights: dict[str, np.ndarray]) -> None:
        load_weights(self.policy.net, weights)

    def shared(self) -> dict[str, np.ndarray] | None:
        return weights_of(self.policy.net) if self.shares else None

    def learnt(self, steps: list[Step], updates: int, minibatch: int) -> dict[str, float]:
        self.policy.add(steps, updates)
        return {"average": self.policy.learn(math.ceil(len(steps) / minibatch))}

    def state(self) -> dict[str, Any] | None:
        return self.policy.state() if self.learner else None  # an actor's is the learner's

    def load_state(self, state: Any) -> None:
        self.policy.load_state(state)

    def save(self, out: Path, model: NeuralModel) -> None:
        """The average policy beside the model, loadable as ``neural:model=DIR/average.pt``."""
        info = model.info | {"policy": "average of the policies played (--average)"}
        weights = {k: v.detach().cpu() for k, v in self.policy.net.state_dict().items()}
        model.save(out / AVERAGE_FILE, extra={"state_dict": weights, "info": info})


def _owned(step: Step) -> Step:
    """What the reservoir keeps of a decision: its inputs and move probabilities in arrays
    of their own.  A step from an actor is a view into its whole update's packed arrays
    (steps.unpack_steps), so keeping the view would keep every update that still has a
    decision in the reservoir alive (Leduc, a reservoir of 200,000: the process grew
    from 3.2 to 4.7 GB over every 50 rounds; with copies it stays at 1.8 GB)."""
    assert step.probs is not None
    return Step(
        tokens=tuple(np.array(t) for t in step.tokens),
        actions=np.array(step.actions),
        chosen=step.chosen,
        logp=0.0,
        value=0.0,
        seat=step.seat,
        probs=np.array(step.probs),
    )


def _pack(steps: list[Step]) -> dict[str, torch.Tensor]:
    """Decisions as flat tensors: each array of every step concatenated, with counts, in
    the narrow types the network's inputs use (collate_steps): the checkpoint is written
    every round, and int64 names made it twice the size (800 MB on Leduc)."""
    if not steps:
        return {}
    tokens = [np.concatenate([s.tokens[k] for s in steps]) for k in range(4)]
    return {
        "token_counts": torch.tensor([len(s.tokens[1]) for s in steps]),
        "action_counts": torch.tensor([len(s.actions) for s in steps]),
        "names": torch.from_numpy(tokens[0].astype(np.int32)),
        "kinds": torch.from_numpy(tokens[1].astype(np.int8)),
        "buckets": torch.from_numpy(tokens[2].astype(np.int8)),
        "continuous": torch.from_numpy(tokens[3].astype(np.float32)),
        "actions": torch.from_numpy(np.concatenate([s.actions for s in steps]).astype(np.int32)),
        "probs": torch.from_numpy(np.concatenate([s.probs for s in steps]).astype(np.float32)),
    }


def _unpack(packed: dict[str, torch.Tensor]) -> list[Step]:
    if not packed:
        return []
    token_ends = np.cumsum(packed["token_counts"].numpy())
    action_ends = np.cumsum(packed["action_counts"].numpy())
    arrays = [packed[k].numpy() for k in ("names", "kinds", "buckets", "continuous")]
    actions, probs = packed["actions"].numpy(), packed["probs"].numpy()
    steps = []
    t0 = a0 = 0
    for t1, a1 in zip(token_ends.tolist(), action_ends.tolist(), strict=True):
        tokens = tuple(array[t0:t1].copy() for array in arrays)
        step = Step(tokens, actions[a0:a1].copy(), chosen=0, logp=0.0, value=0.0, seat=0)
        step.probs = probs[a0:a1].copy()
        steps.append(step)
        t0, a0 = t1, a1
    return steps
