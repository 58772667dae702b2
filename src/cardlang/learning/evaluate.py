"""How strong a trained policy is: its greedy play against named agents (torch).

Pipeline position: learning, beside ppo.py (whose ``play_greedy`` plays the games).  The
model plays its most likely move at every decision, reading the tokens the engine writes
(the same tokens ``neural:model=DIR`` reads through the Python tokenizer, with uniform
odds for hidden locations; tests/test_vector_tokens.py holds them equal), against agents
inside the engine, many games in lockstep:

- ``share(spec, games)``: the model in one seat, ``spec`` in every other, the model's
  seat rotated (``games`` split evenly among the seats), each row's first game only (so
  short games are not favoured); its mean credit (a win 1, a tie its share, a game cut
  off 0) with a Wilson 95% interval.  An agent the engine cannot play is played through
  the batch runner with the model as ``neural:model=PATH``;
- ``solo(games)``, ``solo_agent(spec, games)``: a solo game's mean length (turns, else
  decisions) over its completed games, with a bootstrap interval.

Used by ``cardlang train --algorithm ppo`` for its evaluations and by
benchmarks/ppo_strength.py for the milestones.
"""

from __future__ import annotations

import resource
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cardlang.agents import make_agent
from cardlang.agents.base import native_twin
from cardlang.agents.neural.model import NeuralModel
from cardlang.analysis.estimates import estimate, means
from cardlang.engine.gamemaster import Limits
from cardlang.env.vector import VectorEnv
from cardlang.learning.ppo import play_greedy
from cardlang.learning.returns import game_length_of
from cardlang.runs.simulate import run_batch
from cardlang.runs.statistics import wilson_interval

MAX_ROWS = 256  # lockstep games at once in an evaluation

__all__ = [
    "GreedyEvaluator",
    "game_length_of",
    "length_figures",
    "process_cpu_seconds",
    "solo_figures",
]


class GreedyEvaluator:
    """The greedy policy of ``model`` on ``game`` (see the module docstring)."""

    def __init__(
        self,
        model: NeuralModel,
        game: Any,
        limits: Limits,
        model_path: str | Path | None = None,
        params: Mapping[str, str] | None = None,
    ) -> None:
        self.model, self.game, self.limits = model, game, limits
        self.model_path = model_path
        self.params = dict(params or {})

    def _env(self, rows: int, seats: str | int, opponents: str) -> VectorEnv:
        return VectorEnv(
            self.game,
            rows,
            seats=seats,
            opponents=opponents,
            max_decisions=self.limits.max_decisions,
            tokens=self.model.table,
        )

    def share(self, spec: str, games: int, seed: int) -> dict[str, Any]:
        credit, played = self._credits(spec, games, seed)
        low, high = wilson_interval(credit, played)
        return {
            "win_share": credit / played if played else float("nan"),
            "low": low,
            "high": high,
            "games": played,
        }

    def _credits(self, spec: str, games: int, seed: int) -> tuple[float, int]:
        n = self.game.nplayers
        if native_twin(make_agent(spec, 0), self.game.master(self.limits)) is None:
            return self._batch_credits(spec, games, seed)
        credit, played = 0.0, 0
        for seat in range(n):
            count = games // n + (seat < games % n)
            if not count:
                continue
            env = self._env(min(count, MAX_ROWS), seat, spec)
            for result in play_greedy(self.model.net, env, count, seed=seed + 101 * seat):
                credit += result.credits[seat]
                played += 1
            env.close()
        return credit, played

    def _batch_credits(self, spec: str, games: int, seed: int) -> tuple[float, int]:
        if self.model_path is None:
            raise ValueError(f"{spec} plays outside the engine: the model needs its file")
        me = f"neural:model={self.model_path}"
        summary = run_batch(
            self.game,
            games=games,
            seed=seed,
            agent_specs=[me] + [spec] * (self.game.nplayers - 1),
            limits=self.limits,
            rotate_seats=True,
            params=self.params,
            backend="serial",
        )
        return summary.agent_credits.get(me, 0.0), summary.agent_games.get(me, 0)

    def solo(self, games: int, seed: int) -> dict[str, Any]:
        env = self._env(min(games, MAX_ROWS), "all", "random")
        results = play_greedy(self.model.net, env, games, seed=seed)
        env.close()
        return solo_figures(results)

    def solo_agent(self, spec: str, games: int, seed: int) -> dict[str, Any]:
        found: list[Any] = []
        run_batch(
            self.game,
            games=games,
            seed=seed,
            agent_specs=[spec],
            limits=self.limits,
            params=self.params,
            backend="serial",
            on_game=found.append,
        )
        return solo_figures(found)


def solo_figures(results: list[Any]) -> dict[str, Any]:
    lengths = [float(game_length_of(r)) for r in results if r.completed]
    return length_figures(lengths, len(results))


def length_figures(lengths: list[float], games: int) -> dict[str, Any]:
    """Mean length of the completed games with its bootstrap interval (both trainers'
    solo evaluations)."""
    est = estimate(means(lengths)) if lengths else None
    return {
        "mean_turns": est.value if est else float("nan"),
        "low": est.ci_low if est else float("nan"),
        "high": est.ci_high if est else float("nan"),
        "completed": len(lengths),
        "games": games,
    }


def process_cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (a run's compute)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
