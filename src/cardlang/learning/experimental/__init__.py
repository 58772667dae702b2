"""The experimental room: what learning tried, kept working, and no shipped model needs.

Supported training is PPO (``cardlang train --algorithm ppo``, learning/ppo.py and the
recipe in each shipped model's MODEL_CARD.md).  What is here is off that path: research
on games whose self-play circles (Leduc poker, benchmarks/results/leduc-research-log.md
says what each measured) and the first trainer.  It keeps working, and its tests run,
but it may change or go without notice.  Nothing of the supported code imports it
except the registration point, learning/seam.py (pyproject.toml's ``experimental-room``
contract holds the rest to that).

PPO's remedies (learning/remedy.py: the points where the actor and the learner call
them), in the order they are called:

- ``magnet``: R-NaD's pull towards a frozen copy of the policy (``--magnet``,
  ``--magnet-every``, ``--magnet-reward``);
- ``average``: NFSP's average of the policies played (``--average``, the ``average``
  opponent); models/leduc's recipe learns it beside the policy it ships, and saves it as
  ``average.pt``;
- ``rollouts``: every move of a learnt decision valued by rollouts forked from its row
  (``--rollouts``);

and a trainer:

- ``search``: ``cardlang train --algorithm search``, self-play with search, AlphaZero's
  way (models/dominion-2p-search was trained by it).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from torch import nn

from cardlang.learning.experimental.average import AverageRemedy
from cardlang.learning.experimental.magnet import Magnet
from cardlang.learning.experimental.rollouts import RolloutsRemedy
from cardlang.learning.experimental.rollouts import spare_rows as rollout_rows
from cardlang.learning.lanes import AVERAGE
from cardlang.learning.ppo import PPOConfig
from cardlang.learning.remedy import Remedy

__all__ = ["remedies", "spare_rows"]


def remedies(
    config: PPOConfig, net: nn.Module, seed: int, learner: bool, kinds: Collection[str]
) -> list[Remedy]:
    """The remedies ``config`` asks for, in the order they are called (what each adds to
    the update's figures comes in this order too)."""
    chosen: list[Remedy] = []
    if config.magnet:
        chosen.append(Magnet(config, net))
    if config.average:
        chosen.append(AverageRemedy(config, net, seed, learner, shares=AVERAGE in kinds))
    if config.rollouts:
        chosen.append(RolloutsRemedy(config))
    return chosen


def spare_rows(config: Any, kind: str, rows: int) -> int:
    """The spare rows a lane of ``kind`` with ``rows`` games needs (rollouts')."""
    return rollout_rows(kind, rows, config.rollouts) if config.rollouts else 0
