"""Batches of games with agents: planned, played by a backend, counted, recorded.

Pipeline position: runs, above the runner (runner.py) and the backends.  ``run_batch``
plays many games, each with its own seed derived from one root seed (numpy's
SeedSequence: ``game_seeds``), so a batch is reproducible whatever order or process
plays it.  Given a ``RunStore`` (store.py), the batch is planned in the database first,
each finished game is written as it ends, and a rerun of the same batch plays only what
is missing; its summary (statistics.py) then covers the whole batch.  Who plays the games
is a backend's business (backends.py: this process, local worker processes, or Ray; each
game by ``play_planned``, planned.py); they come back in index order and are counted and
written here, so nothing else depends on it.  Ctrl-C stops a batch with
``BatchInterrupted``, which carries the summary of the games finished before it.

Holds the orchestration only: seeds and seats of planned games, the batch's identity in
the records, the agents of ``--agents``, and ``run_batch``.  Like all of runs/, it may
import agents, information, compiler, engine, language and errors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from cardlang.agents.specs import specs_per_seat
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import GameResult, Limits
from cardlang.engine.native import native_game_seeds
from cardlang.runs.backends import open_backend
from cardlang.runs.cards import CardTotals, buys_and_plays
from cardlang.runs.planned import agent_seeds
from cardlang.runs.runner import play_game
from cardlang.runs.statistics import BatchSummary
from cardlang.runs.store import BatchSpec, PlannedGame, RunStore, file_sha256

__all__ = [
    "BatchInterrupted",
    "BatchSummary",
    "agent_seeds",
    "batch_spec",
    "game_seeds",
    "parse_agent_specs",
    "play_game",
    "run_batch",
    "seat_agents",
]


def game_seeds(root_seed: int, games: int) -> Iterator[int]:
    """The seeds of a batch's games, derived from one root seed, made as they are needed.

    Game i's seed comes from numpy's SeedSequence child i of the root (what ``spawn``
    would give), so any game of a batch can be found without the others.  A game is
    fully determined by its seed: the game's RNG starts from it and every agent's seed is
    derived from it (``agent_seeds``), so the seed a rule error reports replays that very
    game with ``cardlang transcript --seed``.
    """
    for start in range(0, games, _SEED_BLOCK):
        count = min(_SEED_BLOCK, games - start)
        # the extension computes the same seeds some hundred times faster, when built
        block = native_game_seeds(root_seed, start, count)
        if block is None:
            block = [_numpy_game_seed(root_seed, i) for i in range(start, start + count)]
        yield from block


_SEED_BLOCK = 1024


def _numpy_game_seed(root_seed: int, index: int) -> int:
    child = np.random.SeedSequence(root_seed, spawn_key=(index,))
    return int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def parse_agent_specs(text: str | None, nplayers: int) -> list[str]:
    """'random' -> one per seat; 'a,b' must name one agent per seat."""
    if not text:
        return ["random"] * nplayers
    return specs_per_seat(
        text, nplayers, "--agents names {found} agents; this game has {count} players"
    )


def seat_agents(agent_specs: Sequence[str], index: int, rotate_seats: bool) -> tuple[str, ...]:
    """The agent of each seat in game ``index``: the specs in order, or with
    ``rotate_seats`` shifted by ``index`` places, so each agent sits in every seat."""
    shift = index % len(agent_specs) if rotate_seats else 0
    return tuple(agent_specs[shift:]) + tuple(agent_specs[:shift])


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped ``run_batch``.  Its workers are stopped, every game counted in
    ``summary`` is committed to the records of a recorded batch (the same call resumes
    from there), and ``summary`` covers the games finished before it (``games`` <
    ``planned``, unless the last game was finishing).  A KeyboardInterrupt still, so a
    caller that knows nothing of batches stops as it would on Ctrl-C."""

    def __init__(self, summary: BatchSummary) -> None:
        super().__init__(f"interrupted after {summary.games} of {summary.planned} games")
        self.summary = summary


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
    cards: bool = False,
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

    ``cards`` counts each seat's picks and cards per card type (engine/tally.py) into each
    result and the summary's per-card figures (``BatchSummary.cards``, runs/cards.py); a
    recorded batch counts them always, for its records.

    Ctrl-C (a KeyboardInterrupt, here or in ``on_game``) stops the batch: the workers are
    stopped and ``BatchInterrupted`` is raised, carrying the summary of the games
    finished so far (recorded, with a ``store``).
    """
    engine = open_backend(backend, workers)  # a bad choice fails before any planning
    master = game.master(limits)
    summary = BatchSummary(game.source.name, list(agent_specs), wins=[0.0] * game.nplayers)
    summary.rotate_seats = rotate_seats
    summary.planned = games
    tally = cards or store is not None
    if tally:
        summary.cards = CardTotals(buys_and_plays(game.situations))
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
    played = engine.play(
        master, todo, record=store is not None, games=games - summary.stored, cards=tally
    )
    stopped: KeyboardInterrupt | None = None
    try:
        for done in played:
            if store is not None:  # one transaction a game: what is counted is committed
                store.save(done.planned, done.result, done.trace or (), done.started, done.ended)
            summary.add(done.result, done.planned.agents)
            if on_game is not None:
                on_game(done.result)
    except KeyboardInterrupt as interrupt:  # Ctrl-C: raised again below, with the summary
        stopped = interrupt
    finally:
        played.close()  # stops the workers of an interrupted or failed batch
    summary.seconds = time.perf_counter() - start
    if stopped is not None:
        raise BatchInterrupted(summary) from stopped
    return summary


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
        max_work=limits.max_work,
        max_game_work=limits.max_game_work,
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
        extensible=True,  # game i is the same whatever --games: a larger one extends it
    )
    summary.db, summary.batch_id = str(store.path), batch_id
    summary.planned = max(summary.planned, store.batch_games(batch_id))
    for agents, outcome in store.finished(batch_id):
        summary.add_outcome(outcome, agents)
        summary.stored += 1
    return store.pending(batch_id)
