"""The magnet: R-NaD's regularisation towards a frozen copy of the policy (torch).

Pipeline position: learning/experimental, a remedy (learning/remedy.py) that PPO's actor
and learner call through the seam (``--magnet``, ``--magnet-every``, ``--magnet-reward``).

Self-play's last iterate circles a mixed equilibrium in poker (Leduc); pulled towards a
magnet that itself moves slowly, it settles (Perolat et al., "Mastering the game of
Stratego with model-free multiagent reinforcement learning", 2022: R-NaD; magnetic
mirror descent).  The magnet is a frozen copy of the policy, taken at the start and
every ``magnet_every`` updates (0: the policy it started from, kept).  The pull is
either a loss term, ``magnet`` times KL(policy || magnet) over the batch's decisions, or
(``magnet_reward``) R-NaD's reward transformation: each move's mover is paid ``-magnet *
log(policy / magnet)`` of the move it made, and in a two-player game its opponent the
same with the sign turned (zero sum), so the game itself is regularised.  The value
head still learns the outcome; the rewards enter the advantages.

No shipped model uses it; the Leduc research log (benchmarks/results/) says what it
measured.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import nn

from cardlang.learning.lanes import Lane, Moves
from cardlang.learning.ppo import PPOConfig
from cardlang.learning.remedy import Remedy
from cardlang.learning.steps import Step

__all__ = ["MAGNET_LOGP", "PULLS", "Magnet", "pull_share"]

#: The moves' marks it makes (``Moves.marks``): the magnet's log-probability of each
#: row's move, and every move's R-NaD reward to its mover (rollouts' first moves).
MAGNET_LOGP = "magnet_logp"
PULLS = "pulls"


def pull_share(mover: int, seat: int, players: int) -> float:
    """The share of a move's R-NaD reward that goes to ``seat``: all of it to the mover,
    the opposite to the other seat of a two-player (zero-sum) game, none otherwise."""
    if mover == seat:
        return 1.0
    return -1.0 if players == 2 else 0.0


class Magnet(Remedy):
    """The magnet of the policy ``net``, on either side: an actor records its odds of
    each move (the reward form), a learner adds its pull to the loss (the loss form)."""

    key = "magnet"

    def __init__(self, config: PPOConfig, net: nn.Module) -> None:
        self.config, self.net = config, net
        self.magnet = self._frozen_copy()

    def _frozen_copy(self) -> nn.Module:
        magnet = copy.deepcopy(self.net)
        magnet.eval()
        for parameter in magnet.parameters():
            parameter.requires_grad_(False)
        return magnet

    def refresh(self) -> None:
        """The magnet becomes a frozen copy of the current policy."""
        self.magnet = self._frozen_copy()

    def end_update(self, updates: int) -> None:
        if self.config.magnet_every and updates % self.config.magnet_every == 0:
            self.refresh()

    def state(self) -> dict[str, torch.Tensor]:
        return self.magnet.state_dict()

    def load_state(self, state: Any) -> None:
        self.magnet.load_state_dict(state)

    # ------------------------------------------------------------ the reward form
    def moved(
        self, x: dict[str, torch.Tensor], logp: torch.Tensor, chosen: torch.Tensor, moves: Moves
    ) -> None:
        """The magnet's log-probability of each move drawn (``magnet_logp``) and, for
        rollouts whose first move is any move, every move's reward to its mover
        (``pulls``), among the moves' marks."""
        if not self.config.magnet_reward:
            return
        magnet_logp = torch.log_softmax(self.magnet(**x)[0], dim=-1)
        moves.marks[MAGNET_LOGP] = magnet_logp.gather(1, chosen[:, None]).squeeze(1).numpy()
        if self.config.rollouts:
            gap = (logp - magnet_logp).masked_fill(~x["action_mask"], 0.0)
            moves.marks[PULLS] = (-self.config.magnet * gap).numpy()

    def before_step(
        self, lane: Lane, learners: list[int], moves: Moves, actions: np.ndarray
    ) -> None:
        """Each learnt decision keeps the magnet's log-probability of its move."""
        pulled = moves.marks.get(MAGNET_LOGP)
        if pulled is None:
            return
        for i in learners:
            lane.games[i].steps[-1].magnet_logp = float(pulled[i])

    def rewards(self, steps: list[Step], players: int) -> dict[int, float]:
        """R-NaD's transformed rewards, by index into ``steps`` (the game's learnt
        decisions in order): each decision's mover is paid ``-magnet * log(policy /
        magnet)`` of its move, and in a two-player game the other seat is paid the
        opposite, credited to its own decision before (the rewards a seat earns between
        its decisions are its last decision's).  Empty in the loss form."""
        if not self.config.magnet_reward:
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

    # ------------------------------------------------------------ the loss form
    def loss(
        self, x: dict[str, torch.Tensor], probs: torch.Tensor, logp_all: torch.Tensor
    ) -> tuple[torch.Tensor, float] | None:
        if self.config.magnet_reward:
            return None
        pull = self.divergence(x, probs, logp_all)
        return self.config.magnet * pull, pull.item()

    def divergence(
        self, x: dict[str, torch.Tensor], probs: torch.Tensor, logp_all: torch.Tensor
    ) -> torch.Tensor:
        """Mean KL(policy || magnet) over the batch's decisions (legal moves only)."""
        with torch.no_grad():
            magnet_logits, _ = self.magnet(**x)
            magnet_logp = torch.log_softmax(magnet_logits, dim=-1)
        legal = x["action_mask"]
        gap = (logp_all - magnet_logp).masked_fill(~legal, 0.0)
        return (probs * gap).sum(1).mean()
