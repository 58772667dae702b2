"""The registration point of the experimental room: the one module of the supported
learning code that reaches ``cardlang.learning.experimental`` (pyproject.toml's
``experimental-room`` contract holds every other to that).

Pipeline position: learning, under ppo_actor.py, ppo_learner.py, actors.py and
ppo_run.py (which ask it for a run's remedies, their spare rows and the check of their
settings) and the train command (which asks it for the search run).  What the
experimental room holds and why it is apart: its package docstring.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch import nn

    from cardlang.learning.config import TrainConfig
    from cardlang.learning.experimental.search import TrainingRun
    from cardlang.learning.ppo import PPOConfig
    from cardlang.learning.remedy import Remedy

__all__ = ["check_settings", "remedies_for", "search_run", "spare_rows"]


def check_settings(config: TrainConfig) -> None:
    """A usage error where the remedies' settings of a PPO run disagree."""
    from cardlang.learning.experimental import check_settings as check

    check(config)


def remedies_for(
    config: PPOConfig, net: nn.Module, seed: int, learner: bool, kinds: Collection[str]
) -> list[Remedy]:
    """The remedies ``config`` asks for, on the ``learner``'s side or an actor's, for
    the policy ``net``; ``kinds``: the lanes' kinds the actors play."""
    from cardlang.learning.experimental import remedies

    return remedies(config, net, seed, learner, kinds)


def spare_rows(config: TrainConfig, kind: str, rows: int) -> int:
    """The spare rows a lane of ``kind`` with ``rows`` games needs for the remedies
    ``config`` (a run's settings) asks for: rollouts' (none without)."""
    from cardlang.learning.experimental.rollouts import spare_rows as needed

    return needed(kind, rows, config.rollouts)


def search_run() -> type[TrainingRun]:
    """``cardlang train --algorithm search``'s run folder class."""
    from cardlang.learning.experimental.search import TrainingRun

    return TrainingRun
