"""Imitation of recorded games: the warm start of a training run (``--warm-start DB``).

Pipeline position: learning, above the records (cardlang.runs.store) and samples.py
(recorded games replayed into samples), with trainer.py's gradient steps.  PPO's
recipes that start from a scripted bot's play (models/dominion-random, dominion-solo)
begin here, and so does the experimental search trainer.
"""

from __future__ import annotations

import random
from typing import Any

from cardlang.agents.neural.model import NeuralModel
from cardlang.agents.neural.search import SoloValue
from cardlang.errors import UsageError
from cardlang.learning.run_folder import Report
from cardlang.learning.samples import Sample, game_samples, recorded_games
from cardlang.learning.trainer import ReplayBuffer, Trainer
from cardlang.runs.store import RunStore, file_sha256

__all__ = ["imitate"]


def imitate(
    model: NeuralModel,
    game: Any,
    db: str,
    steps: int,
    batch_size: int,
    rng: random.Random,
    solo: SoloValue,
    report: Report,
    trainer: Trainer | None = None,
) -> None:
    """Warm start: ``steps`` gradient steps learning the moves (one-hot) and outcomes
    of the games of ``game`` recorded in ``db`` (a ``simulate --db`` of bots, say); the
    model's info says so (its card tells it)."""
    tokenizer = model.tokenizer(game)
    samples: list[Sample] = []
    with RunStore.open(db, create=False) as store:
        for stored in recorded_games(store, file_sha256(game.source.text)):
            samples.extend(game_samples(game, stored, store.decisions(stored.id), tokenizer, solo))
    if not samples:
        raise UsageError(f"{db} holds no finished game of {game.source.name}")
    buffer = ReplayBuffer(len(samples))
    buffer.extend(samples)
    trainer = trainer or Trainer(model)
    losses = [trainer.step(buffer.draw(batch_size, rng)) for _ in range(steps)]
    model.info["warm_start"] = {"records": str(db), "samples": len(samples), "steps": steps}
    if losses:
        report(
            f"warm start: {len(samples)} samples from {db}, {steps} steps, policy loss "
            f"{losses[0]['policy_loss']:.3f} -> {losses[-1]['policy_loss']:.3f}"
        )
