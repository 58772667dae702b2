"""The experimental room: what learning tried and keeps working, off the supported path.

Supported training is PPO (``cardlang train --algorithm ppo``, learning/ppo.py and the
recipe in each shipped model's MODEL_CARD.md).  What is here is off that path: research
on games whose self-play circles (Leduc poker, benchmarks/results/leduc-research-log.md
says what each measured) and the first trainer.  It keeps working, and its tests run,
but it may change or go without notice.  Nothing of the supported code imports it
except the registration point, learning/seam.py (pyproject.toml's ``experimental-room``
contract holds the rest to that).

PPO's remedies (learning/remedy.py: the points where the actor and the learner call
them), in the order they are called; no shipped model is a remedy's output:

- ``magnet``: R-NaD's pull towards a frozen copy of the policy (``--magnet``,
  ``--magnet-every``, ``--magnet-reward``);
- ``average``: NFSP's average of the policies played (``--average``, the ``average``
  opponent); models/leduc's recipe passes ``--average`` and learns it beside the
  policy it ships (the current one, not the average), and saves it as ``average.pt``;
- ``rollouts``: every move of a learnt decision valued by rollouts forked from its row
  (``--rollouts``);

and a trainer:

- ``search``: ``cardlang train --algorithm search``, self-play with search, AlphaZero's
  way (models/dominion-2p-search was trained by it).
"""

from __future__ import annotations

from collections.abc import Collection

from torch import nn

from cardlang.errors import UsageError
from cardlang.learning.config import TrainConfig
from cardlang.learning.experimental.average import AverageRemedy, check_weighting
from cardlang.learning.experimental.magnet import Magnet
from cardlang.learning.experimental.rollouts import RolloutsRemedy
from cardlang.learning.lanes import AVERAGE, parse_pool
from cardlang.learning.ppo import PPOConfig
from cardlang.learning.remedy import Remedy

__all__ = ["check_settings", "remedies"]


def check_settings(config: TrainConfig) -> None:
    """A usage error where a PPO run's remedies' settings disagree (with each other or
    with its opponent pool)."""
    if any(spec == AVERAGE for spec, _ in parse_pool(config.opponents)) and not config.average:
        raise UsageError("--opponents average: the average policy needs --average N")
    if config.magnet_reward and not config.magnet:
        raise UsageError("--magnet-reward: the pull needs a weight (--magnet ETA)")
    check_weighting(config.average_recent, config.average_linear)


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
