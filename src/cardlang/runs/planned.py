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

from typing import NamedTuple

from cardlang.agents import make_agent
from cardlang.engine.gamemaster import Gamemaster, GameResult
from cardlang.engine.state import splitmix64
from cardlang.runs.play import Decision, play_game
from cardlang.runs.store import PlannedGame, now

__all__ = ["Played", "agent_seeds", "play_planned"]


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
