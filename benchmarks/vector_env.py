"""Steps per second of ``cardlang.env.VectorEnv`` beside PettingZoo's and RLCard's card games.

What it measures
    One *step* is one decision of one game, its observation and legal-action mask made
    for the next one, every decision taken uniformly at random among the legal actions:

    * cardlang: ``VectorEnv(FILE, n)`` (all seats learning, the default engine or
      ``--engine``) for ``games/hearts.rcy``, ``games/leduc_poker.rcy`` and
      ``games/kuhn_poker.rcy``, and Dominion's seat 0 against ``bmu`` (the bot's moves
      inside ``step``), at n = 1, 16, 64, 256 (``--sizes``); a call of ``step`` plays n
      steps of the caller; actions are drawn by ``random_actions(mask, rng)`` (one numpy
      pass per call), auto-reset included.  On the native engine each is measured
      stepped inside the engine (``cardlang``: env/batch.py) and in Python
      (``cardlang-py``: ``batch=False``), in the same run (``--batch``);
    * PettingZoo (``pettingzoo.classic``): ``leduc_holdem_v4`` and ``texas_holdem_v4``
      (limit), AEC environments stepped one agent at a time, the action drawn from the
      observation's ``action_mask`` (numpy), ``reset`` when the game is over.  PettingZoo
      has no Hearts and no Kuhn poker;
    * RLCard: ``rlcard.make("leduc-holdem")`` and ``"limit-holdem"``, ``env.step`` with an
      action drawn from ``state["legal_actions"]``, ``reset`` when ``is_over()``.  RLCard
      has no Hearts and no Kuhn poker either.

    PettingZoo and RLCard step one game at a time, so they appear once (no n); their
    observations are their own (RLCard's Leduc: 36 floats; cardlang's encodes every
    location and storage of the layout), so the figures compare what each costs a
    learner per decision, not identical work.

    Every measurement steps its environment for ``--seconds`` (default 0.6 s) after
    it was made and reset (not timed).  Each repetition measures every configuration in
    turn (A B C ... A B C ...: a drift of the machine's load spreads over all of them),
    ``--repeats`` times (default 5); the table gives the median steps per second.  The
    default run takes about a minute and a half on 2 shared cores.

Usage (from the repository root)
    python benchmarks/vector_env.py                         # table
    python benchmarks/vector_env.py --json benchmarks/results/DATE-vector_env.json
    python benchmarks/vector_env.py --seconds 2 --repeats 5 --sizes 1 64 1024
    python benchmarks/vector_env.py --engine python --only cardlang
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import median, note  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAMES = {
    "hearts": "games/hearts.rcy",
    "leduc": "games/leduc_poker.rcy",
    "kuhn": "games/kuhn_poker.rcy",
    "dominion-vs-bmu": "games/dominion.rcy",
    "dominion-tokens": "games/dominion.rcy",
}
#: Keyword arguments of a game's VectorEnv beyond the file: Dominion is stepped as a
#: learner trains against a bot (seat 0 the caller's, the other seat ``bmu``, inside the
#: engine), the others with every seat the caller's.
ENV_KWARGS: dict[str, dict[str, Any]] = {
    "dominion-vs-bmu": {"seats": 0, "opponents": "bmu"},
    # the same, the engine writing each view's tokens too (tokens.py: a network's input)
    "dominion-tokens": {"seats": 0, "opponents": "bmu", "tokens": True},
}
PETTINGZOO = {"leduc": "leduc_holdem_v4", "limit-holdem": "texas_holdem_v4"}
RLCARD = {"leduc": "leduc-holdem", "limit-holdem": "limit-holdem"}


@dataclass
class Config:
    """One thing measured: ``run(seconds)`` steps it for that long, giving steps done."""

    library: str
    game: str
    n: int
    run: Callable[[float], int]
    rates: list[float] = field(default_factory=list)


# ---------------------------------------------------------------- cardlang


def cardlang_config(game: str, n: int, engine: str | None, seed: int, batch: bool) -> Config | None:
    from cardlang.env.vector import VectorEnv, random_actions
    from cardlang.information.tokens import NameTable

    kwargs = dict(ENV_KWARGS.get(game, {}))
    if kwargs.get("tokens"):
        if not batch:
            return None  # tokens are the engine's alone
        kwargs["tokens"] = NameTable()
    env = VectorEnv(ROOT / GAMES[game], n, engine=engine, seed=seed, batch=batch, **kwargs)
    rng = np.random.default_rng(seed)
    state = {"mask": env.reset()[1]}

    def run(seconds: float) -> int:
        step, mask = env.step, state["mask"]
        steps, start, clock = 0, time.perf_counter(), time.perf_counter
        while clock() - start < seconds:
            mask = step(random_actions(mask, rng))[1]
            steps += n
        state["mask"] = mask
        return steps

    return Config("cardlang" if batch else "cardlang-py", game, n, run)


# ---------------------------------------------------------------- peers


class _StandIn:
    """Whatever PettingZoo reads of pygame at import time (never used to render)."""

    def __getattr__(self, name: str) -> _StandIn:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> _StandIn:
        return self


def _import_pettingzoo(name: str) -> Any:
    """``pettingzoo.classic.NAME``.  Its RLCard games import pygame (for rendering only)
    at import time: where pygame is not installed, an empty stand-in lets them load."""
    try:
        return importlib.import_module(f"pettingzoo.classic.{name}")
    except ModuleNotFoundError as err:
        if err.name != "pygame":
            raise
        note("pygame is not installed: a stand-in module lets PettingZoo load (no rendering)")
        stand_in = types.ModuleType("pygame")
        # PettingZoo's annotations name pygame's classes (pygame.font.Font): any name
        # of the stand-in is a stand-in too
        stand_in.__dict__["__getattr__"] = lambda name: _StandIn()
        sys.modules["pygame"] = stand_in
        return importlib.import_module(f"pettingzoo.classic.{name}")


def pettingzoo_config(game: str, seed: int) -> Config:
    env = _import_pettingzoo(PETTINGZOO[game]).env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> int:
        steps, start, clock = 0, time.perf_counter(), time.perf_counter
        while clock() - start < seconds:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None  # an AEC agent that is done is stepped with None
                if all(env.terminations.values()) or all(env.truncations.values()):
                    env.reset()
                    continue
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                steps += 1
            env.step(action)
        return steps

    return Config("pettingzoo", game, 1, run)


def rlcard_config(game: str, seed: int) -> Config:
    import rlcard

    env = rlcard.make(RLCARD[game], config={"seed": seed})
    rng = np.random.default_rng(seed)
    state = {"obs": env.reset()[0]}

    def run(seconds: float) -> int:
        obs = state["obs"]
        steps, start, clock = 0, time.perf_counter(), time.perf_counter
        while clock() - start < seconds:
            if env.is_over():
                obs = env.reset()[0]
            legal = list(obs["legal_actions"])
            obs = env.step(legal[int(rng.integers(len(legal)))])[0]
            steps += 1
        state["obs"] = obs
        return steps

    return Config("rlcard", game, 1, run)


# ---------------------------------------------------------------- the run


def make_configs(args: argparse.Namespace) -> list[Config]:
    configs: list[Config] = []
    if "cardlang" in args.only:
        native = args.engine != "python"
        modes = {"on": [True], "off": [False], "both": [True, False]}[args.batch]
        for game in GAMES:
            for n in args.sizes:
                for batch in modes if native else [False]:
                    config = cardlang_config(game, n, args.engine, args.seed, batch)
                    if config is not None:
                        configs.append(config)
    for library, make in (("pettingzoo", pettingzoo_config), ("rlcard", rlcard_config)):
        if library not in args.only:
            continue
        for game in PETTINGZOO:
            try:
                configs.append(make(game, args.seed))
            except ImportError as err:
                note(f"{library} {game}: skipped ({err})")
    return configs


def measure(configs: list[Config], seconds: float, repeats: int) -> None:
    for r in range(repeats):
        for c in configs:  # every configuration once per repetition: A B C ... A B C ...
            start = time.perf_counter()
            steps = c.run(seconds)
            c.rates.append(steps / (time.perf_counter() - start))
        note(f"repetition {r + 1}/{repeats} done")


def table(configs: list[Config]) -> str:
    lines = [f"{'library':<11} {'game':<13} {'n':>4} {'steps/s (median)':>17}  runs"]
    for c in configs:
        runs = " ".join(f"{x:,.0f}" for x in c.rates)
        lines.append(
            f"{c.library:<11} {c.game:<13} {c.n:>4} {median(c.rates) or 0:>17,.0f}  {runs}"
        )
    return "\n".join(lines)


def machine() -> dict[str, Any]:
    versions = {}
    for name in ("cardlang", "pettingzoo", "rlcard", "numpy"):
        try:
            versions[name] = importlib.import_module(name).__version__
        except (ImportError, AttributeError):
            versions[name] = None
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "versions": versions,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 64, 256])
    parser.add_argument("--seconds", type=float, default=0.6, help="per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--engine", choices=("python", "native"), default=None)
    parser.add_argument(
        "--only", nargs="+", default=["cardlang", "pettingzoo", "rlcard"], help="libraries"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--batch",
        choices=("on", "off", "both"),
        default="both",
        help="native engine: step inside the engine (on, 'cardlang'), in Python "
        "('cardlang-py', off), or both in the same run (the default)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the results there")
    args = parser.parse_args(argv)
    from cardlang.engine.engines import default_engine

    engine = args.engine or default_engine()
    before = machine()
    configs = make_configs(args)
    measure(configs, args.seconds, args.repeats)
    print(f"cardlang engine: {engine}; {args.repeats} runs of {args.seconds} s each, median")
    print(table(configs))
    if args.json:
        out = {
            "benchmark": "vector_env",
            "engine": engine,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "machine": before,
            "results": [
                {
                    "library": c.library,
                    "game": c.game,
                    "n": c.n,
                    "steps_per_second": median(c.rates),
                    "runs": c.rates,
                }
                for c in configs
            ],
        }
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        note(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
