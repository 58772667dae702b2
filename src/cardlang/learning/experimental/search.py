"""``cardlang train --algorithm search``: self-play with search, learn, evaluate, checkpoint.

Pipeline position: learning/experimental, above the runs (batches, records) and the
analysis; the train command reaches it through learning/seam.py.  The first trainer,
kept because models/dominion-2p-search was trained by it, and off the supported path
(PPO, learning/ppo.py).  A run lives in one folder (``--out``):

- ``model.pt``: the current network (what self-play plays and what the agent spec
  ``neural:model=DIR`` loads), ``checkpoint.pt``: the same with the optimizer, the round,
  the random state and the metrics, both written atomically after every round, model
  first; ``MODEL_CARD.md``: how it was trained, the compute, the latest figures;
- ``records.sqlite``: every self-play game, recorded like any batch (each neural
  decision keeps its search's move distribution), so ``cardlang transcript --db`` shows
  them and the heuristics read them;
- ``metrics.jsonl``: one line per round; ``plots/`` and ``report.html``: the losses and
  the evaluations over training.

A round: the current model plays ``games`` games against itself through the batch
runner (any backend: ``process`` workers here, Ray on a cluster), with search, root
noise and temperature; the games are replayed into samples (samples.py) and join the
replay buffer; ``steps`` gradient steps follow; every ``evaluate_every`` rounds the
model (greedy, ``eval_iterations`` of search) plays ``eval_games`` games against each
named agent, seats rotated.  A killed run started again with the same ``--out``
resumes from the last checkpoint: the round it was in is played again from its seed,
and the games it had already recorded are read back, not played.

``--warm-start DB`` first imitates the recorded games of DB (scripted bots, say: their
moves as one-hot targets) for ``warm_steps`` steps; the model card says so.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from cardlang.agents.neural.model import load_weights
from cardlang.engine.state import RUNNING
from cardlang.information.views import PlayerView
from cardlang.learning.config import TrainConfig
from cardlang.learning.evaluate import length_figures
from cardlang.learning.imitation import imitate
from cardlang.learning.report import evaluation_text
from cardlang.learning.run_folder import CHECKPOINT, MODEL, Report, RunFolder
from cardlang.learning.samples import Sample, batch_games, game_samples
from cardlang.learning.trainer import ReplayBuffer, Trainer
from cardlang.runs.progress import games_bar
from cardlang.runs.simulate import run_batch
from cardlang.runs.statistics import wilson_interval
from cardlang.runs.store import RunStore

RECORDS = "records.sqlite"


class TrainingRun(RunFolder):
    """One run folder: its model, trainer, buffer and records; see the module docstring."""

    algorithm = "search"

    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        report: Report,
        checkpoint: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(config, out, report, checkpoint)
        self.resumed = checkpoint is not None  # (written only after the warm start)
        self.selfplay_batches: list[int] = []
        self.rng = random.Random(config.seed)
        torch.manual_seed(config.seed)
        self.model = self._model(config.device, checkpoint)
        self.trainer = Trainer(self.model, lr=config.lr, value_weight=config.value_weight)
        self.buffer = ReplayBuffer(config.buffer)

    def _restore(self, data: dict[str, Any]) -> None:
        self.model.info = dict(data.get("info") or self.model.info)  # its warm start, its init
        self.model.set_names(data["names"])  # read as the info says (pile_cards)
        load_weights(self.model.net, data["state_dict"], self.out / CHECKPOINT)
        training = data["training"]
        self.trainer.load_state(training["trainer"])
        self.round = int(training["round"])
        self.metrics = list(training["metrics"])
        self.selfplay_batches = list(training["selfplay_batches"])
        self.cpu_before = float(training["cpu_seconds"])
        self.rng.setstate(_tuple_state(training["rng"]))
        torch.set_rng_state(training["torch_rng"])
        with RunStore.open(self.out / RECORDS) as store:  # the buffer, from the records
            for batch_id in self.selfplay_batches[-self._batches_in_buffer() :]:
                self.buffer.extend(self._batch_samples(store, batch_id))

    def _batches_in_buffer(self) -> int:
        return max(1, len(self.selfplay_batches))

    # ------------------------------------------------------------ the loop
    def run(self) -> None:
        c = self.config
        if not self.resumed:  # a checkpoint exists only once this is done
            self._warm_up_names()
            if c.warm_start:
                self._imitate(c.warm_start, c.warm_steps)
            self._save()  # round 0: what the first self-play plays
        evaluated = any(m["round"] == 0 for m in self.metrics)
        if c.warm_start and c.evaluate_every and not evaluated and self.round == 0:
            # the figure self-play must improve on
            row: dict[str, Any] = {"round": 0, "warm_start": True}
            row["evaluation"] = self.evaluate(c.eval_games, c.eval_iterations, 0)
            row["cpu_hours"] = self.cpu_seconds() / 3600
            self.metrics.append(row)
            self._save()
            self.report(f"after the warm start: {evaluation_text(row['evaluation'])}")
        self._rounds()

    def _round(self, number: int) -> None:
        c = self.config
        t0 = time.monotonic()
        games, samples = self._self_play(number)
        losses = [
            self.trainer.step(self.buffer.draw(c.batch_size, self.rng)) for _ in range(c.steps)
        ]
        row: dict[str, Any] = {
            "round": number,
            "games": games,
            "samples": samples,
            "buffer": len(self.buffer),
            "steps": self.trainer.steps,
            **{k: sum(x[k] for x in losses) / len(losses) for k in losses[0]},
        }
        self.round = number
        if c.evaluate_every and (number % c.evaluate_every == 0 or number == c.rounds):
            row["evaluation"] = self.evaluate(c.eval_games, c.eval_iterations, number)
        row["seconds"] = time.monotonic() - t0
        row["cpu_hours"] = self.cpu_seconds() / 3600
        self.metrics.append(row)
        self._save()
        self.report(_round_line(row, c.rounds))

    def _self_play(self, number: int) -> tuple[int, int]:
        c = self.config
        spec = (
            f"neural:model={self.out / MODEL}:iterations={c.iterations}:temperature={c.temperature}"
            f":noise={c.noise}:alpha={c.alpha}:determinizations={c.determinizations}"
            f":policy={c.policy}:considered={c.considered}"
        )
        with (
            RunStore.open(self.out / RECORDS) as store,
            games_bar(f"round {number}: self-play", c.games) as bar,
        ):
            summary = run_batch(
                self.game,
                games=c.games,
                seed=_round_seed(c.seed, number),
                agent_specs=[spec] * self.game.nplayers,
                limits=self.limits,
                store=store,
                params=c.params,
                backend=c.backend if c.games > 1 else "serial",
                workers=c.workers,
                on_game=(lambda _: bar.advance(1)) if bar is not None else None,
            )
            assert summary.batch_id is not None
            self.selfplay_batches.append(summary.batch_id)
            samples = self._batch_samples(store, summary.batch_id)
        self.buffer.extend(samples)
        return summary.games, len(samples)

    def _batch_samples(self, store: RunStore, batch_id: int) -> list[Sample]:
        tokenizer = self.model.tokenizer(self.game)
        out: list[Sample] = []
        for stored in batch_games(store, batch_id):
            out.extend(
                game_samples(self.game, stored, store.decisions(stored.id), tokenizer, self.solo)
            )
        return out

    def _warm_up_names(self) -> None:
        """Give the name table the names met in the views of two random games, so that
        the first self-play already tells locations, storages and cards apart (names
        met later join as training sees them)."""
        tokenizer = self.model.tokenizer(self.game)
        master = self.game.master(self.limits)
        for seed in range(2):
            st = master.new_game(seed, record=True)
            rng = random.Random(seed)
            while st.status == RUNNING:
                options = master.legal_options(st)
                tokenizer.tokenize(PlayerView.live(st, st.mover, self.game, options, master.limits))
                master.apply(st, rng.randrange(len(options)))

    def _imitate(self, db: str, steps: int) -> None:
        """Warm start: learn the moves of the games recorded in ``db``."""
        c = self.config
        imitate(
            self.model,
            self.game,
            db,
            steps,
            c.batch_size,
            self.rng,
            self.solo,
            self.report,
            self.trainer,
        )

    # ------------------------------------------------------------ evaluation
    def evaluate(self, games: int, iterations: int, number: int) -> dict[str, Any]:
        """The model (greedy) against each evaluation agent: win share with a Wilson
        interval (seats rotated), or in a solo game its mean length beside theirs."""
        spec = f"neural:model={self.out / MODEL}:iterations={iterations}"
        if iterations:
            spec += f":policy={self.config.policy}:considered={self.config.considered}"
        seed = _round_seed(self.config.seed, number) + 7_919
        if self.game.nplayers == 1:
            return {
                name: self._solo_figures(s, games, seed)
                for name, s in [("neural", spec)] + [(a, a) for a in self.config.eval_agents]
            }
        out: dict[str, Any] = {}
        for opponent in self.config.eval_agents:
            agents = [spec] + [opponent] * (self.game.nplayers - 1)
            summary = run_batch(
                self.game,
                games=games,
                seed=seed,
                agent_specs=agents,
                limits=self.limits,
                rotate_seats=True,
                params=self.config.params,
                backend=self._backend(games),
                workers=self.config.workers,
            )
            credit = summary.agent_credits.get(spec, 0.0)
            n = summary.agent_games.get(spec, 0)
            low, high = wilson_interval(credit, n)
            out[opponent] = {
                "win_share": credit / n if n else float("nan"),
                "low": low,
                "high": high,
                "games": n,
            }
        return out

    def _solo_figures(self, spec: str, games: int, seed: int) -> dict[str, Any]:
        lengths: list[float] = []
        summary = run_batch(
            self.game,
            games=games,
            seed=seed,
            agent_specs=[spec],
            limits=self.limits,
            params=self.config.params,
            backend=self._backend(games),
            workers=self.config.workers,
            on_game=lambda r: (
                lengths.append(float(r.turns)) if r.end_reason == "completed" else None
            ),
        )
        return length_figures(lengths, summary.games)

    def _backend(self, games: int) -> str:
        return self.config.backend if games > 1 else "serial"

    # ------------------------------------------------------------ files
    def _save(self) -> None:
        self.model.info["training"] = {
            "rounds": self.round,
            "steps": self.trainer.steps,
            "cpu_hours": self.cpu_seconds() / 3600,
        }
        training = {
            "config": self.config.to_dict(),
            "round": self.round,
            "trainer": self.trainer.state(),
            "metrics": self.metrics,
            "selfplay_batches": self.selfplay_batches,
            "cpu_seconds": self.cpu_seconds(),
            "rng": _list_state(self.rng.getstate()),
            "torch_rng": torch.get_rng_state(),
        }
        self._write(training)


def _round_seed(seed: int, number: int) -> int:
    return seed * 1_000_003 + number


def _list_state(state: tuple[Any, ...]) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _tuple_state(data: Sequence[Any]) -> tuple[Any, ...]:
    version, internal, gauss = data
    return (version, tuple(internal), gauss)


def _round_line(row: dict[str, Any], rounds: int) -> str:
    text = (
        f"round {row['round']}/{rounds}: {row['games']} games, {row['samples']} samples "
        f"(buffer {row['buffer']}), loss {row['loss']:.3f} (policy {row['policy_loss']:.3f}, "
        f"value {row['value_loss']:.3f}), {row['seconds']:.0f} s"
    )
    evaluation = evaluation_text(row.get("evaluation"))
    return f"{text}; {evaluation}" if evaluation else text
