"""``cardlang train --algorithm ppo``: PPO over lockstep games, with its run folder.

Pipeline position: learning, around ppo.py (the algorithm): the learner (ppo_learner.py)
lives here, the actors (actors.py) wherever the backend puts them.  A run lives in one
folder (``--out``), as a search run's does (experimental/search.py): ``model.pt`` (what
``neural:model=DIR`` loads), ``checkpoint.pt`` (the model with the optimizer, the random
states, the past pool, each actor's state and the metrics), both written atomically
after every round (or every ``--checkpoint-every`` rounds, and after the last), model
first; ``metrics.jsonl``, ``plots/``, ``report.html`` and ``MODEL_CARD.md``.  PPO games
are not recorded (hundreds of thousands of them): the figures are the record.

The games are played by actors (actors.py: in worker processes by default, as Ray
actors, or in turn in this process), one update ahead of the learner here, which only
learns; the same seed and ``--actors`` give the same model wherever they play.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from cardlang.agents.neural.model import load_weights
from cardlang.compiler.load import load_game
from cardlang.errors import UsageError
from cardlang.language.params import always_draws, dealt_cards, param_variants
from cardlang.learning.actors import (
    ActorError,
    ActorGroup,
    ActorSpec,
    Played,
    build_lanes,
    default_actors,
    open_actors,
    pool_least,
    ppo_config,
    split_rows,
)
from cardlang.learning.config import TrainConfig
from cardlang.learning.evaluate import GreedyEvaluator
from cardlang.learning.imitation import imitate
from cardlang.learning.lanes import BARRED, SELF, parse_pool
from cardlang.learning.ppo import Experience, GameRecord, reads_engine_tokens, weights_of
from cardlang.learning.ppo_learner import PPOLearner
from cardlang.learning.remedy import Remedy
from cardlang.learning.report import evaluation_text
from cardlang.learning.returns import RunReturns, game_length_of
from cardlang.learning.run_folder import CHECKPOINT, MODEL, Report, RunFolder
from cardlang.learning.seam import check_settings
from cardlang.runs.backends import GamePayload
from cardlang.runs.progress import games_bar


class PPORun(RunFolder):
    """One PPO run folder: its model, learner and actors (see the module docstring)."""

    algorithm = "ppo"
    #: What a round's line says, printed once before the first (the words are short).
    legend: ClassVar[str] = (
        "each round: its games (and all so far), the steps learnt from, the losses of the "
        "policy and the value and the policy's entropy, training games per core-hour and "
        "the round's seconds; training share: the learner's win share in the round's "
        "games against each opponent of its pool (past: its earlier selves; a bar with "
        "the ETA runs during a round on a terminal)"
    )

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
        if checkpoint is not None:  # the envs write the names the run learnt with, read
            # as it read them (info: whether a pile's option names its card)
            self.model.info = dict(checkpoint.get("info") or self.model.info)
            self.model.set_names(checkpoint["names"])
        if not self.game.master(self.limits).traits.batch_stepping:
            raise UsageError(
                "--algorithm ppo steps its games inside the native engine, and this game "
                "is played by the Python one (--engine python, or the engine is not built): "
                "use --algorithm search"
            )
        self._check_settings()
        self.variants = self._variants()
        if config.actors is None:  # a new run: one actor per core the learner leaves
            config.actors = default_actors(config.backend, config.workers)
        self.rows = self._rows_per_actor()
        self.returns = RunReturns(
            nplayers=self.game.nplayers,
            seats=self.model.config.seats,
            reward=config.reward,
            score_scale=config.score_scale,
            minimise=self.game.scoring_mode == "min",
            solo=self.solo,
        )
        # the pool's lanes, a row each, made here and dropped: a pool the engine cannot
        # play is a usage error before any worker starts, and the names every actor's
        # envs write are in the model's table (every actor's table is then the same)
        build_lanes(self.variants, config, self.model, self._least() * len(self.variants))
        kinds = {spec for spec, _ in parse_pool(config.opponents)}
        self.learner = PPOLearner(self.model, ppo_config(config), config.seed, kinds=kinds)
        self.actors: ActorGroup | None = None  # started with the first round
        self.actor_states: list[dict[str, Any]] | None = None  # a checkpoint's
        self.actor_cpu = 0.0  # CPU seconds of actor processes in this session
        self.actor_rss = 0.0  # their peak resident memory, summed (MB)
        self.saved_round = self.round  # the round the checkpoint on disk holds

    # ------------------------------------------------------------ set-up
    def _check_settings(self) -> None:
        c, n = self.config, self.game.nplayers
        pool = parse_pool(c.opponents)
        if n == 1 and any(spec != SELF for spec, _ in pool):
            raise UsageError("--opponents: a solo game has no opponent: use self")
        check_settings(c)  # the experimental remedies' settings
        barring = any(spec == BARRED and w > 0 for spec, w in pool)
        if (c.forced_openings or barring) and not c.kingdom_cards:  # saved with the run
            c.kingdom_cards = list(dealt_cards(self.game.checked.game))
            if not c.kingdom_cards:
                asked = "--forced-openings" if c.forced_openings else "--opponents barred"
                raise UsageError(
                    f"{asked}: this game deals no cards by a parameter (Dominion's "
                    "KINGDOM), so there are no kingdom cards to draw"
                )

    def _variants(self) -> list[Any]:
        """The games trained on: the run's, or one per combination of ``--param-draw``'s
        alternatives (each checked as the run's game is)."""
        c = self.config
        draws = c.param_draws
        if c.always:
            drawn = always_draws(self.game.checked.game, c.always, c.params, c.always_games, c.seed)
            draws = draws | drawn
        if not draws:
            return [self.game]
        games = []
        for params in param_variants(c.params, draws):
            try:
                game = load_game(c.game, params=params, engine=c.engine)
            except UsageError as err:
                raise UsageError(f"--param-draw: {err}") from None
            if game.nplayers != self.game.nplayers:
                raise UsageError(
                    f"--param-draw: {_named(params)} makes a game of {game.nplayers} "
                    f"players, not {self.game.nplayers}: one network plays one seat count"
                )
            games.append(game)
        return games

    def _least(self) -> int:
        """The fewest rows one game's share of an actor can be played in."""
        return pool_least(self.config, self.game.nplayers)

    def _rows_per_actor(self) -> list[int]:
        c = self.config
        assert c.actors is not None
        least = self._least() * len(self.variants)
        if c.envs < least * c.actors:
            games = f" over {len(self.variants)} drawn games" if len(self.variants) > 1 else ""
            raise UsageError(
                f"--envs {c.envs} over --actors {c.actors}: each actor plays the whole "
                f"opponent pool{games}, which needs {least} rows (use --envs "
                f"{least * c.actors} or more, or fewer actors)"
            )
        return split_rows(c.envs, [1.0] * c.actors, [least] * c.actors)

    def actor_specs(self) -> list[ActorSpec]:
        """What builds each actor: the learner's weights as they now are."""
        payloads = [GamePayload.of(game.master(self.limits)) for game in self.variants]
        model = self.model.payload()
        return [
            ActorSpec(
                games=payloads,
                config=self.config.to_dict(),
                model=model,
                index=k,
                rows=rows,
                returns=self.returns,
            )
            for k, rows in enumerate(self.rows)
        ]

    def _start_actors(self) -> ActorGroup:
        """The run's actors, made with the learner's weights as they now are (a resumed
        run's actors then take their states from the checkpoint)."""
        model = self.model
        actors = open_actors(self.config.backend, self.config.workers, self.actor_specs())
        try:
            if any(names != list(model.table.names) for names in actors.names()):
                raise ActorError("an actor's envs named the game's tokens otherwise")
            if self.actor_states is not None:
                actors.load_states(self.actor_states)
        except BaseException:
            actors.close()
            raise
        return actors

    def _imitate(self) -> None:
        """Warm start: imitate recorded games, read as the engine's tokens read them
        (uniform odds for hidden locations); the PPO optimizer starts afresh after, and
        the actors, made after it, start their past pools with the imitated policy."""
        c = self.config
        reads_engine_tokens(self.model)
        rng = random.Random(c.seed)
        assert c.warm_start is not None
        imitate(self.model, self.game, c.warm_start, c.warm_steps, 128, rng, self.solo, self.report)

    # ------------------------------------------------------------ resume
    def _restore(self, data: dict[str, Any]) -> None:
        load_weights(self.model.net, data["state_dict"], self.out / CHECKPOINT)
        self.model.info = dict(data.get("info") or self.model.info)
        training = data["training"]
        self.learner.load_state(training["trainer"])
        self.round = int(training["round"])
        self.games = int(training["games"])
        self.metrics = list(training["metrics"])
        self.cpu_before = float(training["cpu_seconds"])
        self.bot_figures = dict(training.get("bot_figures") or {})
        self.actor_states = training.get("actors")
        if self.actor_states is not None and len(self.actor_states) != self.config.actors:
            raise ValueError(f"{len(self.actor_states)} actor states for {self.config.actors}")

    # ------------------------------------------------------------ the loop
    def run(self) -> None:
        try:
            if self.round == 0 and not (self.out / CHECKPOINT).is_file():
                if self.config.warm_start:
                    self._imitate()
                self._save()
            self._rounds()
        finally:
            if self.actors is not None:
                self.actors.close()
                self.actors = None

    def _round(self, number: int) -> None:
        """One round: the actors play each update while the learner learns the one
        before (actors.py); the round ends with every actor idle, at a checkpoint."""
        c = self.config
        t0, cpu0 = time.monotonic(), self.cpu_seconds()
        if self.actors is None:
            self.actors = self._start_actors()
        actors = self.actors
        actors.reset(round_seed(c.seed, number))
        played: list[GameRecord] = []
        sums: dict[str, float] = {}
        learnt = 0
        self._start_play(actors)
        with games_bar(f"round {number}", c.updates, unit="updates") as bar:
            for update in range(c.updates):
                batches = actors.finish()
                if update + 1 < c.updates:  # the next update's play, while this one learns
                    self._start_play(actors)
                stats = self._learn(batches, played)
                learnt += int(stats.pop("steps", 0))
                for key, value in stats.items():
                    sums[key] = sums.get(key, 0.0) + value
                if bar is not None:  # live figures: the games so far and their shares
                    bar.describe(f"round {number}: {len(played)} games; {live_text(played)}")
                    bar.advance(1)
        self.actor_states = actors.states()
        self.games += len(played)
        self.round = number
        row: dict[str, Any] = {
            "round": number,
            "games": len(played),
            "games_total": self.games,
            "steps": learnt,
            "updates": self.learner.updates,
            **{k: v / c.updates for k, v in sums.items()},
            **self._pool_figures(played),
        }
        cpu = self.cpu_seconds() - cpu0  # training alone (actors' too), evaluation apart
        row["games_per_core_hour"] = len(played) / cpu * 3600 if cpu > 0 else float("nan")
        if c.evaluate_every and (number % c.evaluate_every == 0 or number == c.rounds):
            row["evaluation"] = self.evaluate(c.eval_games, number)
        row["seconds"] = time.monotonic() - t0
        row["cpu_hours"] = self.cpu_seconds() / 3600
        # the learner's peak and its workers' (a sum of peaks: at least the peak of the sum)
        row["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 + self.actor_rss
        self.metrics.append(row)
        if number % c.checkpoint_every == 0 or number >= c.rounds:
            self._save()
        self.report(round_line(row, c.rounds, self.learner.remedies))

    def _flush(self) -> None:
        """The last round's checkpoint, where ``--checkpoint-every`` skipped it (a time
        limit ended the run): every round ends at a reset of the games, so any round's
        end is a point a resumed run goes on from exactly."""
        if self.saved_round < self.round:
            self._save()

    def _start_play(self, actors: ActorGroup) -> None:
        """The actors start an update's play with the learner's weights as they now are
        (copies: learning goes on) and what its remedies share."""
        actors.start(weights_of(self.learner.net), self.learner.shared())

    def _learn(self, batches: list[Played], played: list[GameRecord]) -> dict[str, float]:
        """The learner's update from the actors' play of it (their experience joined in
        actor order: the same whichever backend they played on)."""
        experience = Experience.joined([batch.experience() for batch in batches])
        played.extend(experience.results)
        for batch in batches:
            self.actor_cpu += batch.cpu
        self.actor_rss = sum(b.rss_mb for b in batches) or self.actor_rss
        return self.learner.learn(experience)

    def cpu_seconds(self) -> float:
        """This process's CPU and its actor processes' (a run's compute)."""
        return super().cpu_seconds() + self.actor_cpu

    def _pool_figures(self, played: list[GameRecord]) -> dict[str, Any]:
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
        self.saved_round = self.round
        self.model.info["training"] = {
            "algorithm": "ppo",
            "rounds": self.round,
            "updates": self.learner.updates,
            "games": self.games,
            "cpu_hours": self.cpu_seconds() / 3600,
        }
        training = {
            "config": self.config.to_dict(),
            "round": self.round,
            "games": self.games,
            # the learner's part, named "trainer" for the checkpoints written before the split
            "trainer": self.learner.state(),
            "metrics": self.metrics,
            "cpu_seconds": self.cpu_seconds(),
            "bot_figures": self.bot_figures,
            "actors": self.actor_states,
        }
        self._write(training)
        for remedy in self.learner.remedies:  # what a remedy keeps beside the model
            remedy.save(self.out, self.model)


def _named(params: dict[str, str]) -> str:
    return " ".join(f"{k.lower()}={v}" for k, v in params.items())


def round_seed(seed: int, number: int) -> int:
    return seed * 1_000_003 + number


def live_text(played: list[GameRecord]) -> str:
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


def round_line(row: dict[str, Any], rounds: int, remedies: Sequence[Remedy] = ()) -> str:
    text = (
        f"round {row['round']}/{rounds}: {row['games']} games ({row['games_total']} in all), "
        f"{row['steps']} steps learnt, policy {row.get('policy', float('nan')):.3f} "
        f"value {row.get('value', float('nan')):.3f} entropy {row.get('entropy', float('nan')):.2f}"
        f", {row['games_per_core_hour']:,.0f} games/core-hour, {row['seconds']:.0f} s"
    )
    text += "".join(remedy.round_text(row) for remedy in remedies)
    if "train_share" in row:
        shares = ", ".join(f"{k} {v:.2f}" for k, v in row["train_share"].items())
        text += f"; training share: {shares}" if shares else ""
    elif "train_turns" in row:
        text += f"; training turns {row['train_turns']:.2f}"
    evaluation = evaluation_text(row.get("evaluation"))
    return f"{text}; {evaluation}" if evaluation else text


__all__ = ["PPORun", "round_seed", "split_rows"]
