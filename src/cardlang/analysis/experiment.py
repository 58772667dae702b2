"""The experiments behind the measures: which games to play, played or found in the records.

Pipeline position: between the command (cli/heuristics.py, ``cardlang heuristics``) and the batch
runner (simulate.run_batch).  Each measure names the *design* whose games it reads
(analysis/measures.py):

- ``random``: every seat a random player (fairness, branching, duration ...);
- ``ai_vs_random``: one AI seat, rotating through every seat from game to game, against
  random players (order);
- ``ai``: every seat the same AI (drama, security, lead changes, clarity ...).

Every design's batch is recorded in a records database and read back from it, so a rerun
reuses the games already played (and an interrupted run resumes).  All designs use the
same root seed: game i of each design is dealt from the same seed, which makes the
designs' differences about the players, not the deals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cardlang.analysis import DEFAULT_AI
from cardlang.analysis.data import GameRecord, load_batch
from cardlang.analysis.measures import DESIGNS, MEASURES, Estimate, seat_win_rates

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.engine.gamemaster import Limits
    from cardlang.runs.store import RunStore


@dataclass(frozen=True)
class Plan:
    """What to play for one variant of a game."""

    games: int  # per design
    seed: int
    ai: str = DEFAULT_AI
    designs: tuple[str, ...] = DESIGNS
    limits: Limits | None = None
    backend: str = "serial"
    workers: int | None = 1  # None: every core


def design_agents(design: str, ai: str, nplayers: int) -> tuple[list[str], bool]:
    """The seats' agent specs of a design, and whether they rotate through the seats."""
    if design == "random":
        return ["random"] * nplayers, False
    if design == "ai_vs_random":
        return [ai] + ["random"] * (nplayers - 1), True
    if design == "ai":
        return [ai] * nplayers, False
    raise ValueError(f"unknown design {design!r}")


@dataclass
class Results:
    """One variant's games per design, and what was measured on them."""

    label: str
    games: dict[str, list[GameRecord]] = field(default_factory=dict)
    measures: dict[str, Estimate] = field(default_factory=dict)
    seat_wins: dict[str, list[Estimate]] = field(default_factory=dict)
    played: int = 0  # games played now (the rest came from the records)
    stored: int = 0
    failed: int = 0  # games ended by a rule error or an agent's failure (left out)
    errors: list[str] = field(default_factory=list)  # the first of each kind, counted


def run_experiment(
    game: Game,
    plan: Plan,
    store: RunStore,
    *,
    label: str,
    params: Mapping[str, str] | None = None,
    on_game: Callable[[], None] | None = None,
    on_resume: Callable[[int], None] | None = None,
) -> Results:
    """Play (or find in ``store``) every design's games, then compute every measure."""
    from cardlang.runs.simulate import run_batch

    results = Results(label)
    for design in plan.designs:
        specs, rotate = design_agents(design, plan.ai, game.nplayers)
        summary = run_batch(
            game,
            games=plan.games,
            seed=plan.seed,
            agent_specs=specs,
            rotate_seats=rotate,
            limits=plan.limits,
            store=store,
            params=params,
            on_game=(lambda _result: on_game()) if on_game is not None else None,
            on_resume=on_resume,
            backend=plan.backend,
            workers=plan.workers,
        )
        results.stored += summary.stored
        results.played += summary.games - summary.stored
        results.failed += summary.failed
        results.errors += [f"{design}: {e}" for e in summary.errors]
        # Ctrl-C ends run_batch with BatchInterrupted (a KeyboardInterrupt): nothing
        # half-played is measured, and the recorded games stay for the next run
        assert summary.batch_id is not None
        results.games[design] = load_batch(store, summary.batch_id)
        results.seat_wins[design] = seat_win_rates(results.games[design])
    results.measures = measure_all(results.games)
    return results


def measure_all(games: Mapping[str, Sequence[GameRecord]]) -> dict[str, Estimate]:
    """Every measure whose design was played, on that design's games."""
    return {
        name: measure.compute(games[measure.design])
        for name, measure in MEASURES.items()
        if measure.design in games
    }
