"""A planned game of a batch, played: the same in this process and in any worker.

Pipeline position: runs, between the batch (simulate.py, which plans games and counts
them) and the backends (backends.py, which decide where they are played).  Both import
this module and it imports neither, so the batch loop and the backends stay apart.

Holds ``agent_seeds`` (each seat's seed, derived from the game's seed), ``play_planned``
(fresh agents for a ``PlannedGame``, the game played by the runner, its decisions kept for
a recorded batch) and ``Played`` (what comes back to ``run_batch``).  A planned game
carries its seed and its seats' agent specs, and every process builds the agents and
their seeds from those alone, so a game plays the same wherever it runs.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from cardlang.agents import make_agent
from cardlang.agents.base import capabilities_of, native_twin
from cardlang.engine.gamemaster import GameResult
from cardlang.engine.protocol import Engine, batch_engine
from cardlang.engine.state import splitmix64
from cardlang.errors import AgentError
from cardlang.runs.runner import Decision, failed_by_agent, play_game
from cardlang.runs.store import PlannedGame, now

__all__ = ["Played", "agent_seeds", "play_planned", "play_planned_games"]


def agent_seeds(game_seed: int, seats: int) -> list[int]:
    """One seed per seat, derived from the game's seed (SplitMix64: cheap and well mixed)."""
    return [splitmix64(game_seed ^ (0xA5A5_5A5A_0F0F_F0F0 + seat))[1] for seat in range(seats)]


class Played(NamedTuple):
    """One finished game as a backend hands it back to ``run_batch``: what the summary
    counts and, for a recorded batch, what the records keep (``trace``: its decisions;
    ``started``/``ended``: when it was played, empty when nothing is recorded)."""

    planned: PlannedGame
    result: GameResult
    trace: list[Decision] | None
    started: str
    ended: str


#: How long one batch of ``play_planned_games`` should take inside the native engine:
#: short enough that a progress bar moves and Ctrl-C is felt at once (Python sees
#: neither while the engine plays), long enough that the call costs nothing.  Batches
#: start small and grow or shrink towards it, between the two bounds.
BATCH_SECONDS = 0.05
BATCH_GAMES = (4, 256)


def play_planned_games(
    master: Engine, todo: Iterable[PlannedGame], record: bool, cards: bool = False
) -> Iterator[Played]:
    """Play planned games in order, each exactly as ``play_planned`` would (``cards``:
    each result with its card counts).

    Where nothing is recorded and every seat's agent runs inside the native engine (a
    ``native_agent`` twin: the random agent, the Dominion bots), games go to the engine
    in batches (``BatchEngine.play_batch``) and never come back to Python between
    moves or between games; the rest are played one by one.  A game of a batch that
    fails is played again the usual way, for its rule error.
    """
    if record or not master.traits.batch_stepping:
        for planned in todo:
            yield play_planned(master, planned, record, cards)
        return
    batches = batch_engine(master, "no batches")  # its traits said it plays them
    seats = _NativeSeatSets(master)
    batch: list[tuple[PlannedGame, int]] = []
    size = BATCH_GAMES[0]

    def flush() -> Iterator[Played]:
        nonlocal size
        games = batch[:]
        batch.clear()
        if not games:
            return
        start = time.perf_counter()
        seeds, weights = [p.seed for p, _ in games], [w for _, w in games]
        results = batches.play_batch(seeds, seats.sets, weights, cards)
        size = _next_batch_size(size, len(games), time.perf_counter() - start)
        for (planned, _), result in zip(games, results, strict=True):
            if result is None:  # failed: played again for its rule error
                yield play_planned(master, planned, False, cards)
            else:
                yield Played(planned, result, None, "", "")

    for planned in todo:
        which = seats.index(planned.agents)
        if which is None:
            yield from flush()
            yield play_planned(master, planned, False, cards)
            continue
        batch.append((planned, which))
        if len(batch) >= size:
            yield from flush()
    yield from flush()


def _next_batch_size(size: int, played: int, seconds: float) -> int:
    """The next batch's size: twice as many games while a full batch took less than
    half of BATCH_SECONDS, half as many once one takes more than twice as long."""
    low, high = BATCH_GAMES
    if played < size:  # a short batch (the end of a run of seatings) says little
        return size
    if seconds < BATCH_SECONDS / 2:
        return min(size * 2, high)
    if seconds > BATCH_SECONDS * 2:
        return max(size // 2, low)
    return size


class _NativeSeatSets:
    """The native agents of each seating of a batch (its agent specs, seat by seat),
    made once and given each game's seeds by the engine; None for a seating with an
    agent that has no native twin or reads what it knows (it needs the event log)."""

    def __init__(self, master: Engine) -> None:
        self.master = master
        self.sets: list[list[Any]] = []
        self._index: dict[tuple[str, ...], int | None] = {}

    def index(self, specs: tuple[str, ...]) -> int | None:
        if specs not in self._index:
            self._index[specs] = self._make(specs)
        return self._index[specs]

    def _make(self, specs: tuple[str, ...]) -> int | None:
        try:
            agents = [make_agent(spec, 0) for spec in specs]
        except AgentError:  # played game by game, each failing for its agent
            return None
        twins = []
        for agent in agents:
            twin = native_twin(agent, self.master)
            if twin is None or capabilities_of(agent).knowledge:
                return None
            twins.append(twin)
        self.sets.append(twins)
        return len(self.sets) - 1


def play_planned(master: Engine, planned: PlannedGame, record: bool, cards: bool = False) -> Played:
    """Play one game of a batch with fresh agents (seeded from the game's seed), in
    whatever process the backend runs it; with ``record``, keep its decisions, with
    ``cards`` its card counts (engine/tally.py).  An
    agent's failure (``AgentError``: an exception, an illegal answer, a constructor that
    raised) fails that game, the error in its result, and the batch goes on."""
    seeds = agent_seeds(planned.seed, len(planned.agents))
    started = now() if record else ""
    try:
        agents = [make_agent(spec, s) for spec, s in zip(planned.agents, seeds, strict=True)]
    except AgentError as err:  # a user's constructor raised: that game fails, named
        seat = next((i for i, spec in enumerate(planned.agents) if spec == err.agent), None)
        err.seat, err.seed = seat, planned.seed
        st = master.new_game(planned.seed)
        result = failed_by_agent(master, st, err)
        return Played(planned, result, [] if record else None, started, now() if record else "")
    names, errors = planned.agents, "fail"
    if not record:
        result = play_game(
            master, agents, planned.seed, names=names, agent_errors=errors, tally=cards
        )[0]
        return Played(planned, result, None, "", "")
    trace: list[Decision] = []
    result, _ = play_game(
        master, agents, planned.seed, trace=trace, names=names, agent_errors=errors, tally=cards
    )
    return Played(planned, result, trace, started, now())
