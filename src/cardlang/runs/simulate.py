"""Batches of games with agents, and the summary a user reads.

Pipeline position: above the runner.  ``play_game`` (runner.py) plays one game with one
agent per seat; ``run_batch`` plays many, each with its own seed derived from one root
seed (numpy's SeedSequence), so a batch is reproducible whatever order or process plays
it.  Given a ``RunStore`` (records.py), the batch is planned in the database first, each
finished game is written as it ends, and a rerun of the same batch plays only what is
missing; its summary then covers the whole batch.  Who plays the games is a backend's
business (backends.py: this process, local worker processes, or Ray); they come back in
index order and are counted and written here, so nothing else depends on it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cardlang.agents import make_agent
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import Gamemaster, GameResult, Limits
from cardlang.engine.state import splitmix64
from cardlang.errors import UsageError
from cardlang.runs.play import Decision, play_game
from cardlang.runs.records import BatchSpec, Outcome, PlannedGame, RunStore, file_sha256, now

__all__ = [
    "BatchSummary",
    "Played",
    "agent_seeds",
    "game_seeds",
    "play_game",
    "play_planned",
    "run_batch",
    "wilson_interval",
]


def game_seeds(root_seed: int, games: int) -> Iterator[int]:
    """The seeds of a batch's games, derived from one root seed, made as they are needed.

    Game i's seed comes from numpy's SeedSequence child i of the root (what ``spawn``
    would give), so any game of a batch can be found without the others.  A game is
    fully determined by its seed: the game's RNG starts from it and every agent's seed is
    derived from it (``agent_seeds``), so the seed a rule error reports replays that very
    game with ``cardlang transcript --seed``.
    """
    for i in range(games):
        child = np.random.SeedSequence(root_seed, spawn_key=(i,))
        yield int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def agent_seeds(game_seed: int, seats: int) -> list[int]:
    """One seed per seat, derived from the game's seed (SplitMix64: cheap and well mixed)."""
    return [splitmix64(game_seed ^ (0xA5A5_5A5A_0F0F_F0F0 + seat))[1] for seat in range(seats)]


def parse_agent_specs(text: str | None, nplayers: int) -> list[str]:
    """'random' -> one per seat; 'a,b' must name one agent per seat."""
    if not text:
        return ["random"] * nplayers
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if len(specs) == 1:
        return specs * nplayers
    if len(specs) != nplayers:
        raise UsageError(f"--agents names {len(specs)} agents; this game has {nplayers} players")
    return specs


def seat_agents(agent_specs: Sequence[str], index: int, rotate_seats: bool) -> tuple[str, ...]:
    """The agent of each seat in game ``index``: the specs in order, or with
    ``rotate_seats`` shifted by ``index`` places, so each agent sits in every seat."""
    shift = index % len(agent_specs) if rotate_seats else 0
    return tuple(agent_specs[shift:]) + tuple(agent_specs[:shift])


@dataclass
class BatchSummary:
    game: str
    agents: list[str]
    games: int = 0
    completed: int = 0
    failed: int = 0
    cutoff: int = 0
    cutoff_reasons: dict[str, int] = field(default_factory=dict)
    wins: list[float] = field(default_factory=list)
    ties: int = 0
    total_decisions: int = 0
    total_turns: int = 0
    turns_histogram: dict[int, int] = field(default_factory=dict)  # completed games only
    # credits and games per agent spec, whatever seat it sat in (see --rotate-seats)
    agent_credits: dict[str, float] = field(default_factory=dict)  # completed games
    agent_games: dict[str, int] = field(default_factory=dict)  # all games
    agent_seats: dict[str, int] = field(default_factory=dict)  # seats in completed games
    agent_completed: dict[str, int] = field(default_factory=dict)  # completed games
    rotate_seats: bool = False
    planned: int = 0  # games asked for; more than ``games`` when the batch was interrupted
    seconds: float = 0.0  # the time of this run, which played ``games - stored`` games
    stored: int = 0  # games of a resumed batch read back from the records, not played now
    db: str | None = None  # the records file, when the batch is recorded
    batch_id: int | None = None
    error_counts: dict[str, int] = field(default_factory=dict)
    error_texts: dict[str, str] = field(default_factory=dict)

    def add(self, result: GameResult, seat_agents: Sequence[str] | None = None) -> None:
        """Count one game; ``seat_agents`` names the agent of each seat (default: the
        batch's agents in order)."""
        self.add_outcome(Outcome.of(result), seat_agents)

    def add_outcome(self, result: Outcome, seat_agents: Sequence[str] | None = None) -> None:
        """Count one game, just played or read back from the records."""
        seat_agents = seat_agents or self.agents
        self.games += 1
        self.total_decisions += result.decisions
        self.total_turns += result.turns
        for spec in set(seat_agents):
            self.agent_games[spec] = self.agent_games.get(spec, 0) + 1
            self.agent_credits.setdefault(spec, 0.0)
        if result.completed:
            self.completed += 1
            self.turns_histogram[result.turns] = self.turns_histogram.get(result.turns, 0) + 1
            for seat, credit in enumerate(result.credits):
                self.wins[seat] += credit
            self._count_agents(result.credits, seat_agents)
            if len({_team(result, w) for w in result.winners}) > 1:
                self.ties += 1
        elif result.end_reason == "failed":
            self.failed += 1
            kind = result.error_kind or "?"
            self.error_counts[kind] = self.error_counts.get(kind, 0) + 1
            self.error_texts.setdefault(kind, (result.error_text or "").partition("\n")[0])
        else:
            self.cutoff += 1
            reason = result.end_reason
            self.cutoff_reasons[reason] = self.cutoff_reasons.get(reason, 0) + 1

    def _count_agents(self, credits: Sequence[float], seat_agents: Sequence[str]) -> None:
        """A completed game's credits, seats and game per agent spec (its strength)."""
        for spec, credit in zip(seat_agents, credits, strict=True):
            self.agent_credits[spec] += credit
            self.agent_seats[spec] = self.agent_seats.get(spec, 0) + 1
        for spec in set(seat_agents):
            self.agent_completed[spec] = self.agent_completed.get(spec, 0) + 1

    @property
    def mean_decisions(self) -> float:
        return self.total_decisions / self.games if self.games else 0.0

    @property
    def mean_turns(self) -> float:
        return self.total_turns / self.games if self.games else 0.0

    def turns_stats(self) -> dict[str, float]:
        """Mean, standard deviation, median, min and max of turns over completed games."""
        values = np.repeat(
            np.array(list(self.turns_histogram), dtype=float),
            np.array(list(self.turns_histogram.values()), dtype=int),
        )
        if values.size == 0:
            return {}
        return {
            "mean": round(float(values.mean()), 3),
            "sd": round(float(values.std(ddof=1)) if values.size > 1 else 0.0, 3),
            "median": float(np.median(values)),
            "min": float(values.min()),
            "max": float(values.max()),
        }

    @property
    def wins_by_agent(self) -> dict[str, float]:
        return {a: round(c, 6) for a, c in self.agent_credits.items()}

    def strength(self) -> dict[str, dict[str, float]]:
        """Per agent spec, its win share with a 95% Wilson score interval; empty when
        every seat has the same agent (there is nothing to compare).

        The unit is a seat in a completed game: ``share`` = credits / ``seats``, so an
        agent as strong as its opponents scores 1/n in an n-player game whatever number
        of seats it fills (``games``: the completed games it played; equal to ``seats``
        when it fills one seat a game).  A shared win counts 1/k to each of the k
        winners (the game's credits).  Failed and cut-off games have no result and are
        left out.
        """
        if len(set(self.agents)) < 2:
            return {}
        out: dict[str, dict[str, float]] = {}
        for spec in dict.fromkeys(self.agents):
            seats = self.agent_seats.get(spec, 0)
            credits = self.agent_credits.get(spec, 0.0)
            low, high = wilson_interval(credits, seats)
            out[spec] = {
                "share": round(credits / seats, 6) if seats else 0.0,
                "ci_low": round(low, 6),
                "ci_high": round(high, 6),
                "games": self.agent_completed.get(spec, 0),
                "seats": seats,
                "credits": round(credits, 6),
            }
        return out

    @property
    def games_per_second(self) -> float:
        """Of the games played in this run (not those read back from the records)."""
        played = self.games - self.stored
        return played / self.seconds if self.seconds > 0 else 0.0

    @property
    def errors(self) -> list[str]:
        return [
            f"{self.error_texts[k]} [{n} game{'s' if n != 1 else ''}]"
            for k, n in self.error_counts.items()
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "agents": self.agents,
            "games": self.games,
            "planned": self.planned,
            "interrupted": self.games < self.planned,
            "completed": self.completed,
            "failed": self.failed,
            "cutoff": self.cutoff,
            "cutoff_reasons": self.cutoff_reasons,
            "rotate_seats": self.rotate_seats,
            "wins": [round(w, 6) for w in self.wins],
            "wins_by_agent": self.wins_by_agent,
            "games_by_agent": dict(self.agent_games),
            "strength": self.strength(),
            "ties": self.ties,
            "mean_decisions": round(self.mean_decisions, 3),
            "mean_turns": round(self.mean_turns, 3),
            "mean_turns_per_player": round(self.mean_turns / max(1, len(self.wins)), 3),
            "turns": self.turns_stats(),
            "turns_distribution": {str(k): v for k, v in sorted(self.turns_histogram.items())},
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 3),
            "errors": self.errors,
            **({"records": self.records_json()} if self.db is not None else {}),
        }

    def records_json(self) -> dict[str, Any]:
        """Where the batch is recorded, and how much of it this run played."""
        return {
            "db": self.db,
            "batch": self.batch_id,
            "from_db": self.stored,
            "played": self.games - self.stored,
        }


#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion: (0, 1) without trials.

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps its
    coverage near 0 and 1 and for few games (a strong agent's share is near 1), and over
    a bootstrap because it is exact arithmetic from two counts: deterministic, free, and
    the same for games read back from the records as for games played now.
    ``successes`` may be fractional (shared wins): a credit in [0, 1] with mean p has a
    variance of at most p(1 - p), the variance of a win-or-lose game, so the interval is
    conservative (if anything too wide) when ties split the credit.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def _team(result: Outcome, seat: int) -> int:
    """Partners who win together (equal scores) are one winner, not a tie."""
    return result.team_of[seat] if result.team_of else seat


def run_batch(
    game: Game,
    *,
    games: int,
    seed: int,
    agent_specs: Sequence[str],
    limits: Limits | None = None,
    on_game: Callable[[GameResult], None] | None = None,
    rotate_seats: bool = False,
    store: RunStore | None = None,
    params: Mapping[str, str] | None = None,
    on_resume: Callable[[int], None] | None = None,
    backend: str = "serial",
    workers: int | None = 1,
) -> BatchSummary:
    """Play ``games`` games.  Seats take the agents in the order given; with
    ``rotate_seats`` game i shifts them by i places, so each agent sits in every seat.

    With a ``store``, the batch (identified with ``params``, the --param values the game
    was loaded with) is planned there first; games already finished are read back into
    the summary (``on_resume`` is told how many) and only the others are played, each
    written as it ends.

    ``backend`` plays the games: ``"serial"`` in this process, ``"process"`` in
    ``workers`` local processes, ``"ray"`` as Ray tasks (``workers`` None: every core,
    or every CPU of the Ray cluster); see backends.py.  Whatever plays them, games come
    back in index order and are counted, written and passed to ``on_game`` here, so the
    summary and the records are the same for every backend and number of workers.
    """
    from cardlang.runs.backends import open_backend

    engine = open_backend(backend, workers)  # a bad choice fails before any planning
    master = game.master(limits)
    summary = BatchSummary(game.source.name, list(agent_specs), wins=[0.0] * game.nplayers)
    summary.rotate_seats = rotate_seats
    summary.planned = games
    if store is None:
        todo: Iterator[PlannedGame] = (
            PlannedGame(-1, i, game_seed, seat_agents(agent_specs, i, rotate_seats))
            for i, game_seed in enumerate(game_seeds(seed, games))
        )
    else:
        spec = batch_spec(game, games, seed, agent_specs, rotate_seats, params, master.limits)
        todo = _resume(store, summary, spec)
        if on_resume is not None:
            on_resume(summary.stored)
    start = time.perf_counter()
    played = engine.play(master, todo, record=store is not None, games=games - summary.stored)
    try:
        for done in played:
            if store is not None:
                store.save(done.planned, done.result, done.trace or (), done.started, done.ended)
            summary.add(done.result, done.planned.agents)
            if on_game is not None:
                on_game(done.result)
    except KeyboardInterrupt:  # Ctrl-C: the games finished so far are still summarised
        pass
    finally:
        played.close()  # stops the workers of an interrupted or failed batch
    summary.seconds = time.perf_counter() - start
    return summary


class Played(NamedTuple):
    """One finished game as a backend hands it back to ``run_batch``: what the summary
    counts and, for a recorded batch, what the records keep (``trace``: its decisions;
    ``started``/``ended``: when it was played, empty when nothing is recorded)."""

    planned: PlannedGame
    result: GameResult
    trace: list[Decision] | None
    started: str
    ended: str


def play_planned(master: Gamemaster, planned: PlannedGame, record: bool) -> Played:
    """Play one game of a batch with fresh agents (seeded from the game's seed), in
    whatever process the backend runs it; with ``record``, keep its decisions."""
    seeds = agent_seeds(planned.seed, len(planned.agents))
    agents = [make_agent(spec, s) for spec, s in zip(planned.agents, seeds, strict=True)]
    if not record:
        result = play_game(master, agents, planned.seed, names=planned.agents)[0]
        return Played(planned, result, None, "", "")
    trace: list[Decision] = []
    started = now()
    result, _ = play_game(master, agents, planned.seed, trace=trace, names=planned.agents)
    return Played(planned, result, trace, started, now())


def batch_spec(
    game: Game,
    games: int,
    seed: int,
    agent_specs: Sequence[str],
    rotate_seats: bool,
    params: Mapping[str, str] | None,
    limits: Limits,
) -> BatchSpec:
    """The identity of a recorded batch: game text, parameters, seed, size, agents, seat
    rotation and limits.  The path is stored as given (transcripts show it) and absolute
    (a replay finds the file from anywhere)."""
    path = Path(game.source.name)
    return BatchSpec(
        game_path=game.source.name,
        game_file=str(path.resolve()) if path.is_file() else game.source.name,
        game_sha256=file_sha256(game.source.text),
        params=dict(params or {}),
        root_seed=seed,
        games=games,
        agents=tuple(agent_specs),
        rotate_seats=rotate_seats,
        max_decisions=limits.max_decisions,
        max_steps=limits.max_steps,
    )


def _resume(store: RunStore, summary: BatchSummary, spec: BatchSpec) -> Iterator[PlannedGame]:
    """Plan the batch in the records (or find it), count its finished games into the
    summary, and give the games still to play."""
    specs, rotate = spec.agents, spec.rotate_seats
    batch_id, _ = store.plan(
        spec,
        lambda: (
            (game_seed, seat_agents(specs, i, rotate))
            for i, game_seed in enumerate(game_seeds(spec.root_seed, spec.games))
        ),
    )
    summary.db, summary.batch_id = str(store.path), batch_id
    for agents, outcome in store.finished(batch_id):
        summary.add_outcome(outcome, agents)
        summary.stored += 1
    return store.pending(batch_id)
