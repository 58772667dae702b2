"""``cardlang train --algorithm ppo``: PPO over lockstep games, with its run folder.

Pipeline position: learning, around ppo.py (the algorithm).  A run lives in one folder
(``--out``), as a search run's does (loop.py): ``model.pt`` (what ``neural:model=DIR``
loads), ``checkpoint.pt`` (the model with the optimizer, the random states, the past
pool and the metrics), both written atomically after every round, model first;
``metrics.jsonl``, ``plots/``, ``report.html`` and ``MODEL_CARD.md``.  PPO games are not
recorded (hundreds of thousands of them): the figures are the record.

A *round* is ``updates`` PPO updates.  Every round starts every lane's rows afresh from
the round's seed, so a run killed at any moment and started again with the same
``--out`` goes on from its last checkpoint exactly as if it had never stopped (what a
round had played before the kill is played again the same way).

The opponent pool (``--opponents``, comma separated ``SPEC@WEIGHT``): ``self`` (the
current policy in every seat), ``past`` (snapshots of earlier policies in the other
seats), ``average`` (the average policy in the other seats: fictitious self-play; needs
``--average``) and any agent that plays inside the engine (``random``, the Dominion bots, a
TOML bot file).  The weights are shares of the ``--envs`` rows; an agent's rows are
split among the seats, so the learner meets it from every seat.

Evaluation every ``evaluate_every`` rounds: the greedy policy against each evaluation
agent, seats rotated, each row's first game only (so short games are not favoured),
with Wilson intervals; in a solo game its mean turns beside each scripted agent's.
Agents that cannot play inside the engine are played through the batch runner with the
agent spec ``neural:model=DIR`` (slower, the same policy).
"""

from __future__ import annotations

import random
import resource
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cardlang.agents.neural.model import (
    UNIFORM_COUNTS,
    load_weights,
)
from cardlang.env.vector import VectorEnv
from cardlang.errors import UsageError
from cardlang.learning.config import TrainConfig
from cardlang.learning.evaluate import GreedyEvaluator, game_length_of
from cardlang.learning.loop import imitate
from cardlang.learning.ppo import AVERAGE, SEATED, SELF, Lane, PPOConfig, PPOTrainer
from cardlang.learning.report import evaluation_text
from cardlang.learning.run_folder import CHECKPOINT, MODEL, Report, RunFolder
from cardlang.runs.progress import games_bar

AVERAGE_FILE = "average.pt"


def parse_pool(text: str) -> list[tuple[str, float]]:
    """``self@4,past@1,bmu@1`` -> [(spec, weight)]; a spec without ``@`` weighs 1."""
    pool: list[tuple[str, float]] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        spec, _, weight = item.rpartition("@") if "@" in item else (item, "", "1")
        try:
            w = float(weight)
        except ValueError:
            raise UsageError(
                f"--opponents: {item!r}: the weight after @ must be a number"
            ) from None
        if not spec or w < 0:
            raise UsageError(f"--opponents: {item!r}: write SPEC@WEIGHT with a weight >= 0")
        pool.append((spec, w))
    if not pool or sum(w for _, w in pool) <= 0:
        raise UsageError("--opponents: name at least one opponent with a positive weight")
    return pool


def split_rows(total: int, weights: list[float], least: list[int]) -> list[int]:
    """``total`` rows shared by ``weights`` (largest remainders), each share at least
    ``least`` (a lane's seats); a zero weight gets none."""
    scale = sum(weights)
    raw = [total * w / scale for w in weights]
    rows = [max(int(r), m) if w > 0 else 0 for r, w, m in zip(raw, weights, least, strict=True)]
    order = sorted(range(len(raw)), key=lambda k: raw[k] - int(raw[k]), reverse=True)
    for k in order:
        if sum(rows) >= total:
            break
        if weights[k] > 0:
            rows[k] += 1
    return rows


class PPORun(RunFolder):
    """One PPO run folder: its model, trainer and lanes (see the module docstring)."""

    algorithm = "ppo"

    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        report: Report,
        checkpoint: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(config, out, report, checkpoint)
        self.games = 0
        self.bot_figures: dict[str, Any] = {}  # solo: the scripted agents' lengths
        torch.manual_seed(config.seed)
        self.model = self._model("cpu", checkpoint)
        if checkpoint is not None:  # the envs write the names the run learnt with
            self.model.set_names(checkpoint["names"])
        if not self.game.master(self.limits).traits.batch_stepping:
            raise UsageError(
                "--algorithm ppo steps its games inside the native engine, and this game "
                "is played by the Python one (--engine python, or the engine is not built): "
                "use --algorithm search"
            )
        self.trainer = PPOTrainer(
            self._lanes(), self.model, self._ppo_config(), config.seed, returns=self._returns
        )

    # ------------------------------------------------------------ set-up
    def _ppo_config(self) -> PPOConfig:
        """The algorithm's settings: the run's of the same names (its batch size is
        PPO's minibatch; the schedules end at round ``anneal_rounds``'s last update)."""
        names = {f.name for f in fields(PPOConfig)}
        same = {k: v for k, v in asdict(self.config).items() if k in names}
        anneal = self.config.anneal_rounds * self.config.updates
        return PPOConfig(**same, minibatch=self.config.batch_size, anneal_updates=anneal)

    def _lanes(self) -> list[Lane]:
        """The opponent pool as lanes: ``self`` and ``past`` each one env of every
        seat; an agent one env per learner seat."""
        c, n = self.config, self.game.nplayers
        pool = parse_pool(c.opponents)
        if n == 1 and any(spec != SELF for spec, _ in pool):
            raise UsageError("--opponents: a solo game has no opponent: use self")
        if any(spec == AVERAGE for spec, _ in pool) and not c.average:
            raise UsageError("--opponents average: the average policy needs --average N")
        if c.average_recent and c.average_linear:
            raise UsageError("--average-recent and --average-linear: choose one weighting")
        least = [1 if spec in SEATED else n for spec, _ in pool]
        rows = split_rows(c.envs, [w for _, w in pool], least)
        lanes: list[Lane] = []
        for k, ((spec, _), count) in enumerate(zip(pool, rows, strict=True)):
            if not count:
                continue
            if spec in SEATED:
                lanes.append(Lane(self._env(count, "all", "random", k), spec))
                continue
            per_seat = split_rows(count, [1.0] * n, [1] * n)
            for seat in range(n):
                env = self._env(per_seat[seat], seat, spec, k * n + seat)
                lanes.append(Lane(env, spec))
        return lanes

    def _env(self, rows: int, seats: str | int, opponents: str, salt: int) -> VectorEnv:
        try:
            return VectorEnv(
                self.game,
                rows,
                seats=seats,
                opponents=opponents,
                seed=self.config.seed * 7_919 + salt,
                max_decisions=self.config.max_decisions,
                tokens=self.model.table,
            )
        except UsageError as err:
            raise UsageError(f"--opponents {opponents}: {err}") from None

    def _returns(self, result: Any, seat: int) -> np.ndarray:
        """A solo game's return: its scaled inverse length.  Else per seat offset from
        ``seat``: its credit, or with ``--reward score`` its score (signed so that more
        is better) mapped to [0, 1] by ``score_scale`` (0.5 + score / (2 scale),
        clipped): the value head's range, and a linear map, so the expected return
        ranks policies as the expected score does (chips in poker).  ``--reward
        margin``: the score less the best other seat's, mapped the same way; a lead
        that grows with every good buy, where the outcome against a strong bot is a
        loss whatever a beginner does (learning from nothing)."""
        if self.game.nplayers == 1:
            value = self.solo(game_length_of(result)) if result.completed else -1.0
            return np.array([value], dtype=np.float32)
        if self.config.reward in ("score", "margin"):
            n, scale = len(result.scores), self.config.score_scale
            sign = -1.0 if self.game.scoring_mode == "min" else 1.0
            scores = np.array(
                [sign * result.scores[(seat + k) % n] for k in range(n)], dtype=np.float64
            )
            if self.config.reward == "margin":
                scores = np.array([s - np.delete(scores, k).max() for k, s in enumerate(scores)])
            return np.clip(0.5 + scores.astype(np.float32) / (2 * scale), 0.0, 1.0)
        return self.trainer._credits(result, seat)

    def _imitate(self) -> None:
        """Warm start: imitate recorded games, read as the engine's tokens read them
        (uniform odds for hidden locations); the PPO optimizer starts afresh after."""
        c = self.config
        self.model.info["expected_counts"] = UNIFORM_COUNTS
        rng = random.Random(c.seed)
        assert c.warm_start is not None
        imitate(self.model, self.game, c.warm_start, c.warm_steps, 128, rng, self.solo, self.report)
        self.trainer.snapshot()  # the imitated policy joins the past pool

    # ------------------------------------------------------------ resume
    def _restore(self, data: dict[str, Any]) -> None:
        load_weights(self.model.net, data["state_dict"], self.out / CHECKPOINT)
        self.model.info = dict(data.get("info") or self.model.info)
        training = data["training"]
        self.trainer.load_state(training["trainer"])
        self.round = int(training["round"])
        self.games = int(training["games"])
        self.metrics = list(training["metrics"])
        self.cpu_before = float(training["cpu_seconds"])
        self.bot_figures = dict(training.get("bot_figures") or {})

    # ------------------------------------------------------------ the loop
    def run(self) -> None:
        if self.round == 0 and not (self.out / CHECKPOINT).is_file():
            if self.config.warm_start:
                self._imitate()
            self._save()
        self._rounds()

    def _round(self, number: int) -> None:
        c = self.config
        t0, cpu0 = time.monotonic(), self.cpu_seconds()
        self.trainer.reset(round_seed(c.seed, number))
        start = len(self.trainer.results)
        sums: dict[str, float] = {}
        learnt = 0
        with games_bar(f"round {number}", c.updates, unit="updates") as bar:
            for _ in range(c.updates):
                self.trainer.collect()
                stats = self.trainer.learn()
                learnt += int(stats.pop("steps", 0))
                for key, value in stats.items():
                    sums[key] = sums.get(key, 0.0) + value
                if bar is not None:  # live figures: the games so far and their shares
                    played = self.trainer.results[start:]
                    bar.describe(f"round {number}: {len(played)} games; {live_text(played)}")
                    bar.advance(1)
        played = self.trainer.results[start:]
        del self.trainer.results[:]
        self.games += len(played)
        self.round = number
        row: dict[str, Any] = {
            "round": number,
            "games": len(played),
            "games_total": self.games,
            "steps": learnt,
            "updates": self.trainer.updates,
            **{k: v / c.updates for k, v in sums.items()},
            **self._pool_figures(played),
        }
        cpu = self.cpu_seconds() - cpu0  # training alone, evaluation apart
        row["games_per_core_hour"] = len(played) / cpu * 3600 if cpu > 0 else float("nan")
        if c.evaluate_every and (number % c.evaluate_every == 0 or number == c.rounds):
            row["evaluation"] = self.evaluate(c.eval_games, number)
        row["seconds"] = time.monotonic() - t0
        row["cpu_hours"] = self.cpu_seconds() / 3600
        row["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.metrics.append(row)
        self._save()
        self.report(round_line(row, c.rounds))

    def _pool_figures(self, played: list[tuple[str, int | None, Any]]) -> dict[str, Any]:
        """The training games' figures: the learner's mean credit against each pool
        member (solo: mean turns of completed games)."""
        if self.game.nplayers == 1:
            turns = [game_length_of(r) for _, _, r in played if r.completed]
            return {"train_turns": float(np.mean(turns)) if turns else float("nan")}
        shares: dict[str, list[float]] = {}
        for kind, seat, result in played:
            if seat is not None:
                shares.setdefault(kind, []).append(result.credits[seat])
        return {"train_share": {k: float(np.mean(v)) for k, v in shares.items()}}

    # ------------------------------------------------------------ evaluation
    def evaluate(self, games: int, number: int) -> dict[str, Any]:
        """The greedy policy against each evaluation agent (seats rotated; Wilson
        intervals), or in a solo game its mean length beside the agents' (a bot's
        length does not change: measured once, kept in the checkpoint)."""
        seed = round_seed(self.config.seed, number) + 7_919
        judge = GreedyEvaluator(
            self.model,
            self.game,
            self.limits,
            model_path=self.out / MODEL,
            params=self.config.params,
        )
        if self.game.nplayers == 1:
            out = {"neural": judge.solo(games, seed)}
            for spec in self.config.eval_agents:
                if spec not in self.bot_figures:
                    self.bot_figures[spec] = judge.solo_agent(spec, games, self.config.seed + 17)
                out[spec] = self.bot_figures[spec]
            return out
        return {spec: judge.share(spec, games, seed) for spec in self.config.eval_agents}

    # ------------------------------------------------------------ files
    def _save(self) -> None:
        self.model.info["training"] = {
            "algorithm": "ppo",
            "rounds": self.round,
            "updates": self.trainer.updates,
            "games": self.games,
            "cpu_hours": self.cpu_seconds() / 3600,
        }
        training = {
            "config": self.config.to_dict(),
            "round": self.round,
            "games": self.games,
            "trainer": self.trainer.state(),
            "metrics": self.metrics,
            "cpu_seconds": self.cpu_seconds(),
            "bot_figures": self.bot_figures,
        }
        self._write(training)
        average = self.trainer.average
        if average is not None:  # the average policy, loadable as neural:model=DIR/average.pt
            info = self.model.info | {"policy": "average of the policies played (--average)"}
            state = {k: v.detach().cpu() for k, v in average.net.state_dict().items()}
            self.model.save(self.out / AVERAGE_FILE, extra={"state_dict": state, "info": info})


def round_seed(seed: int, number: int) -> int:
    return seed * 1_000_003 + number


def live_text(played: list[tuple[str, int | None, Any]]) -> str:
    """The training games' shares so far, per pool member (solo: mean turns)."""
    shares: dict[str, list[float]] = {}
    turns: list[int] = []
    for kind, seat, result in played:
        if seat is not None:
            shares.setdefault(kind, []).append(result.credits[seat])
        elif len(result.credits) == 1 and result.completed:
            turns.append(game_length_of(result))
    if turns:
        return f"{np.mean(turns):.2f} turns"
    return "won " + ", ".join(f"{np.mean(v):.2f} vs {k}" for k, v in shares.items())


def round_line(row: dict[str, Any], rounds: int) -> str:
    text = (
        f"round {row['round']}/{rounds}: {row['games']} games ({row['games_total']} in all), "
        f"{row['steps']} steps learnt, policy {row.get('policy', float('nan')):.3f} "
        f"value {row.get('value', float('nan')):.3f} entropy {row.get('entropy', float('nan')):.2f}"
        f", {row['games_per_core_hour']:,.0f} games/core-hour, {row['seconds']:.0f} s"
    )
    if "train_share" in row:
        shares = ", ".join(f"{k} {v:.2f}" for k, v in row["train_share"].items())
        text += f"; training share: {shares}" if shares else ""
    elif "train_turns" in row:
        text += f"; training turns {row['train_turns']:.2f}"
    evaluation = evaluation_text(row.get("evaluation"))
    return f"{text}; {evaluation}" if evaluation else text


__all__ = ["PPORun", "parse_pool", "round_seed", "split_rows"]
