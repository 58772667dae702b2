"""ISMCTS decisions per second: cardlang's ``ismcts`` agent against OpenSpiel's Python ISMCTS.

What it measures
    Hearts, 4 players, one deal per game.  In every game one seat is an ISMCTS player
    with 100 iterations (simulations) per decision and the other three play uniformly at
    random; the ISMCTS seat moves round the table from game to game (game g: seat g mod 4),
    so every seat is measured alike.  The figure is the ISMCTS seat's *trick* decisions
    per second: its decisions while playing the 13 tricks that have at least two legal
    options (both searches answer a forced move at once), divided by the time spent in
    its calls at trick decisions (forced ones included: microseconds on both sides).
    Nothing else is timed: not the random seats, not dealing, not making the agent.
    Passing is left out of the comparison because OpenSpiel cannot search it (below);
    cardlang's rate over all its decisions, the three passes included (they cost about
    twice a trick decision: rollouts from there play the whole deal), is shown beside
    it.  Games per second (wall, every seat, everything included) too.

    * cardlang: ``games/hearts.rcy`` (each player passes three cards to the left, one at
      a time), the agent from ``make_agent("ismcts:iterations=100", seed)`` (its other
      parameters at their defaults: UCT constant c=0.7 on standings in [0, 1], random
      rollouts to the end, the tree kept across the player's own consecutive decisions);
      the other seats ``make_agent("random", seed)``.  Played in process with
      ``runner.play_game`` (the plain loop, as ``cardlang simulate`` without records);
      game and agent seeds are those ``cardlang simulate --seed S`` uses.  The timed
      part is the agent's ``choose`` (determinizing the view, the search, the trace);
      the event log its knowledge needs is kept for the whole game and is not timed.
      The deal's first 12 decisions are the passes (3 per player, seat by seat).
    * Beside it (``openspiel_cpp``, ``ratio_to_cpp``): OpenSpiel's C++
      ``pyspiel.ISMCTSBot`` with the same settings (``RandomRolloutEvaluator(1)``, the
      same simulations, a fresh world each, the most visited move), the same games.
    * OpenSpiel: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (the Python one) on
      ``pyspiel.load_game("hearts")`` (default parameters),
      ``evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1)``, ``max_simulations=100``
      and its defaults otherwise: ``max_world_samples=-1`` (a fresh world sampled for
      every simulation, as cardlang deals a fresh determinization per iteration;
      Hearts implements ``resample_from_infostate``, so no resampler callback is
      set), ``final_policy_type=MAX_VISIT_COUNT``, ``use_observation_string=False``
      (information-state strings key the tree), ``allow_inconsistent_action_sets=False``
      (a player's legal cards follow from its own hand, which its information state
      holds), UCT selection.  The bot's ``step(state)`` is timed.  A fresh bot per game,
      seeded (numpy RandomState) like its evaluator; the deal and the random seats use a
      seeded ``random.Random``.
    * OpenSpiel's passing: in open-spiel 2.0.2, Hearts' ``resample_from_infostate``
      deals worlds that do not fit the game once cards have been passed (in random
      play, 268 of 3,642 resamples led to a player with cards to play but no legal
      move, all in deals with a pass; none of 705 in deals without), so its ISMCTS
      stops with ``ValueError: 'a' cannot be empty`` within a few games; and
      ``pass_cards=false`` does not stop the pass direction being drawn.  So the pass
      direction, the game's first chance event, is set to "No Pass" (action 0): the
      deal is random, the tricks are played as in the default game.
    * UCT constant: ISMCTSBot has no default, so it gets cardlang's default c (read from
      the agent's signature: 0.7) scaled to OpenSpiel's Hearts returns, which are points
      (``game.max_utility() - game.min_utility()`` = 36) where cardlang's rewards are
      standings in [0, 1]: uct_c = 0.7 * 36 = 25.2, the same exploration on each side's
      scale.  ``--uct-c`` sets it.  The constant shapes the trees, not the cost of an
      iteration; the table shows each side's win share, to show both searches play.

    Measurements alternate (cardlang, OpenSpiel, cardlang, ...) for ``--repeats``
    repetitions (default 5), repetition r using seed S + r on both sides.  Unless
    ``--games`` / ``--openspiel-games`` fix them, the game counts are sized by a
    calibration run (a game per seat) so that a measurement takes about
    ``--target-seconds`` (default 8 s) of wall time, rounded up to a multiple of 4 (each
    seat equally often).  The table
    gives medians of each side's decisions per second, and the ratio cardlang / OpenSpiel
    of the medians (``--json`` also gives the median of the per-pair ratios).  Compare
    ratios from one run, not absolute numbers across machines.

Versions
    Written and measured against open-spiel 2.0.2 (``pip install -e .[bench]``); the
    version found at run time is printed and recorded in ``--json`` output.

Usage (from the repository root)
    python benchmarks/ismcts_speed.py                # about 2 minutes
    python benchmarks/ismcts_speed.py --games 8 --openspiel-games 8 --repeats 3 --json

Exits 0 with a message if open-spiel is not installed; if the cardlang agent cannot be
made (``ismcts`` not registered), only OpenSpiel is measured.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import inspect
import json
import math
import platform
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_common import engine_argument, median, note, use_engine

REPO = Path(__file__).resolve().parents[1]
GAME_FILE = REPO / "games" / "hearts.rcy"
PLAYERS = 4
#: games/hearts.rcy: a deal opens with 12 decisions, each player passing 3 cards in turn
PASS_DECISIONS = 3 * PLAYERS
#: OpenSpiel's Hearts, default parameters; the pass direction is drawn as "No Pass" (its
#: first chance outcome), since its resampling is wrong after a pass (see above)
OPENSPIEL_GAME: tuple[str, dict[str, Any]] = ("hearts", {})
NO_PASS = 0
DEFAULT_ITERATIONS = 100
FALLBACK_C = 0.7  # cardlang's ISMCTS default, if it cannot be read from the agent


@dataclass
class Run:
    """One measurement: some games, the ISMCTS seat's calls timed."""

    games: int
    searched: int = 0  # trick decisions of the ISMCTS seat with two or more options
    seconds: float = 0.0  # time inside its calls at trick decisions
    calls: int = 0  # all its decisions, passes included
    pass_searched: int = 0  # cardlang: its searched decisions while passing cards
    pass_seconds: float = 0.0
    wall_seconds: float = 0.0  # the whole games, every seat
    credits: float = 0.0  # the ISMCTS seat's wins, a shared win counting 1/k
    error: str | None = None

    @property
    def decisions_per_second(self) -> float | None:
        """The figure compared: searched trick decisions per second of search."""
        return self.searched / self.seconds if self.seconds > 0 and not self.error else None

    @property
    def all_decisions_per_second(self) -> float | None:
        searched, seconds = self.searched + self.pass_searched, self.seconds + self.pass_seconds
        return searched / seconds if seconds > 0 and not self.error else None

    @property
    def games_per_second(self) -> float | None:
        ok = self.wall_seconds > 0 and not self.error
        return self.games / self.wall_seconds if ok else None


@dataclass
class Series:
    side: str
    games: int = 0
    runs: list[Run] = field(default_factory=list)


# --------------------------------------------------------------------------- cardlang


class TimedAgent:
    """Wraps the searching agent: times its ``choose`` and counts its decisions.  It
    passes on what the runner asks of an agent (its name, whether it needs a view and
    the game's event log)."""

    def __init__(self, inner: Any, run: Run) -> None:
        self.inner = inner
        self.run = run
        self.name = getattr(inner, "name", type(inner).__name__)
        from cardlang.agents.base import capabilities_of

        self.capabilities = capabilities_of(inner)  # a view, the event log for knowledge

    def choose(self, view: Any, options: Any) -> Any:
        passing = view.decisions < PASS_DECISIONS
        start = time.perf_counter()
        choice = self.inner.choose(view, options)
        seconds = time.perf_counter() - start
        run = self.run
        run.calls += 1
        if passing:
            run.pass_seconds += seconds
            run.pass_searched += len(options) > 1
        else:
            run.seconds += seconds
            run.searched += len(options) > 1
        return choice


def cardlang_setup(spec: str) -> tuple[Any, str | None]:
    """The Hearts Gamemaster, or None and why the cardlang side cannot run."""
    try:
        from cardlang.agents import make_agent

        from cardlang import load_game

        make_agent(spec, 0)
        return load_game(GAME_FILE, engine=use_engine(None)).master(), None
    except Exception as err:  # not installed, agent not registered, game missing
        return None, f"{type(err).__name__}: {err}"


def play_cardlang(master: Any, spec: str, n_games: int, seed: int) -> Run:
    """``n_games`` games from root seed ``seed``, the ISMCTS seat rotating."""
    from cardlang.agents import make_agent

    from cardlang.runs.runner import play_game
    from cardlang.runs.simulate import agent_seeds, game_seeds

    run = Run(n_games)
    start = time.perf_counter()
    for g, game_seed in enumerate(game_seeds(seed, n_games)):
        seat = g % PLAYERS
        seeds = agent_seeds(game_seed, PLAYERS)
        agents = [make_agent("random", s) for s in seeds]
        agents[seat] = TimedAgent(make_agent(spec, seeds[seat]), run)
        result, _ = play_game(master, agents, game_seed)
        if result.end_reason != "completed":
            run.error = f"game {g} ended {result.end_reason}"
            break
        run.credits += result.credits[seat]
    run.wall_seconds = time.perf_counter() - start
    return run


def cardlang_default_c() -> float:
    """The UCT constant cardlang's ismcts uses unless told: from its signature."""
    try:
        from cardlang.agents import BUILTIN_AGENTS

        default = inspect.signature(BUILTIN_AGENTS["ismcts"]).parameters["c"].default
        return float(default)
    except Exception:  # not registered yet, or renamed
        return FALLBACK_C


# --------------------------------------------------------------------------- OpenSpiel


def load_openspiel() -> tuple[Any, Any, Any] | None:
    """(pyspiel, ismcts module, mcts module), or None when open-spiel is missing."""
    try:
        import pyspiel  # type: ignore[import-not-found]
        from open_spiel.python.algorithms import (  # type: ignore[import-not-found]
            ismcts,
            mcts,
        )
    except ImportError:
        return None
    return pyspiel, ismcts, mcts


def openspiel_bot(os_mods: tuple[Any, Any, Any], game: Any, args: Any, seed: int) -> Any:
    """ISMCTSBot as described in the module docstring: 100 simulations, one random
    rollout per leaf, a fresh world per simulation, its own defaults otherwise."""
    import numpy as np

    _, ismcts, mcts = os_mods
    evaluator = mcts.RandomRolloutEvaluator(
        n_rollouts=1, random_state=np.random.RandomState(seed % 2**32)
    )
    return ismcts.ISMCTSBot(
        game=game,
        evaluator=evaluator,
        uct_c=args.uct_c,
        max_simulations=args.iterations,
        random_state=np.random.RandomState((seed + 1) % 2**32),
    )


def openspiel_cpp_bot(os_mods: tuple[Any, Any, Any], game: Any, args: Any, seed: int) -> Any:
    """OpenSpiel's C++ ISMCTSBot, set as the Python one: the same simulations, one random
    rollout per leaf, a fresh world per simulation, the most visited move played."""
    pyspiel = os_mods[0]
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed % 2**31)
    return pyspiel.ISMCTSBot(
        (seed + 1) % 2**31,
        evaluator,
        args.uct_c,
        args.iterations,
        -1,
        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )


def play_openspiel(
    os_mods: tuple[Any, Any, Any], game: Any, args: Any, n: int, seed: int, make_bot: Any = None
) -> Run:
    """``n`` games, the ISMCTS seat rotating; no pass, the deal and the random seats from
    one seeded ``random.Random``."""
    run = Run(n)
    rng = random.Random(seed)
    start = time.perf_counter()
    for g in range(n):
        seat = g % PLAYERS
        bot = (make_bot or openspiel_bot)(os_mods, game, args, seed * 1_000_003 + g)
        state = game.new_initial_state()
        state.apply_action(NO_PASS)  # the pass direction, drawn first
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            elif state.current_player() == seat:
                state.apply_action(_timed_step(bot, state, run))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        returns = state.returns()  # 26 - points and the like: higher is better
        best = max(returns)
        if returns[seat] == best:
            run.credits += 1 / returns.count(best)
    run.wall_seconds = time.perf_counter() - start
    return run


def _timed_step(bot: Any, state: Any, run: Run) -> int:
    options = len(state.legal_actions())
    start = time.perf_counter()
    action = bot.step(state)
    run.seconds += time.perf_counter() - start
    run.calls += 1
    run.searched += options > 1
    return int(action)


# --------------------------------------------------------------------------- the run


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="ISMCTS decisions/s on Hearts: cardlang vs OpenSpiel's Python ISMCTS."
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help="iterations (OpenSpiel: simulations) per decision, both sides (default 100)",
    )
    parser.add_argument(
        "--spec",
        default=None,
        help="the cardlang agent spec (default ismcts:iterations=N from --iterations)",
    )
    parser.add_argument(
        "--uct-c",
        type=float,
        default=None,
        help="OpenSpiel's UCT constant (default: cardlang's default c times the "
        "range of OpenSpiel's Hearts returns)",
    )
    parser.add_argument("--games", type=int, default=None, help="cardlang games per run")
    parser.add_argument("--openspiel-games", type=int, default=None, help="OpenSpiel games")
    parser.add_argument(
        "--target-seconds",
        type=float,
        default=8.0,
        help="wall time aimed at per run where the game counts are not given (default 8)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; repetition r uses seed+r")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    engine_argument(parser)
    args = parser.parse_args(argv)
    counts = (args.games, args.openspiel_games)
    if args.repeats < 1 or args.iterations < 1 or any(c is not None and c < 1 for c in counts):
        parser.error("--iterations, --games, --openspiel-games and --repeats must be positive")
    if args.target_seconds <= 0:
        parser.error("--target-seconds must be positive")
    args.spec = args.spec or f"ismcts:iterations={args.iterations}"
    return args


def games_for(seconds_per_game: float, target: float) -> int:
    """Games that fill ``target`` seconds, a multiple of the seats (each seat alike)."""
    n = max(1, math.ceil(target / max(seconds_per_game, 1e-9)))
    return PLAYERS * math.ceil(n / PLAYERS)


def size(series: Series, given: int | None, calibrate: Any, target: float) -> None:
    """Games per measurement: given, or from a calibration run of one game per seat
    (the seat changes the cost of a game: the one who leads first decides most)."""
    if given is not None:
        series.games = given
        return
    cal = calibrate()
    per_game = cal.wall_seconds / cal.games
    series.games = games_for(per_game, target)
    note(
        f"calibrate {series.side}: {per_game:.2f} s a game -> {series.games} games per measurement"
    )


def measure(sides: list[tuple[Series, Any]], repeats: int, seed: int) -> None:
    """Interleave: per repetition, each side once, in the same order."""
    for rep in range(repeats):
        for series, play in sides:
            run = play(series.games, seed + rep)
            series.runs.append(run)
            tag = f"[{rep + 1}/{repeats}] {series.side}"
            if run.error:
                note(f"{tag}: FAILED {run.error}")
                continue
            note(
                f"{tag}: {run.decisions_per_second:,.1f} decisions/s "
                f"({run.searched} searched decisions in {run.seconds:.2f} s; "
                f"{run.games} games, {run.wall_seconds:.1f} s wall)"
            )


def summary(series: Series) -> dict[str, Any]:
    ok = [r for r in series.runs if not r.error]
    games = sum(r.games for r in ok)
    return {
        "games_per_run": series.games,
        "runs_decisions_per_second": [r.decisions_per_second for r in series.runs],
        "median_decisions_per_second": median(
            [r.decisions_per_second for r in ok if r.decisions_per_second is not None]
        ),
        "median_games_per_second": median(
            [r.games_per_second for r in ok if r.games_per_second is not None]
        ),
        "median_all_decisions_per_second": median(
            [r.all_decisions_per_second for r in ok if r.all_decisions_per_second is not None]
        ),
        "searched_decisions_per_game": sum(r.searched for r in ok) / games if games else None,
        "searched_pass_decisions_per_game": (
            sum(r.pass_searched for r in ok) / games if games else None
        ),
        "decisions_per_game": sum(r.calls for r in ok) / games if games else None,
        "ismcts_win_share": sum(r.credits for r in ok) / games if games else None,
        "errors": [r.error for r in series.runs if r.error],
    }


def report_of(
    args: argparse.Namespace,
    os_version: str,
    cl: Series | None,
    os_series: Series,
    why: str | None,
    cpp_series: Series | None = None,
) -> dict[str, Any]:
    ours = summary(cl) if cl is not None else None
    theirs = summary(os_series)
    cpp = summary(cpp_series) if cpp_series is not None else None
    cpp_med = cpp["median_decisions_per_second"] if cpp else None
    cl_med = ours["median_decisions_per_second"] if ours else None
    os_med = theirs["median_decisions_per_second"]
    paired = []
    if cl is not None:
        for a, b in zip(cl.runs, os_series.runs, strict=False):
            if a.decisions_per_second and b.decisions_per_second:
                paired.append(a.decisions_per_second / b.decisions_per_second)
    return {
        "benchmark": "ismcts_speed",
        "engine": use_engine(None),
        "openspiel_version": os_version,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "game": {
            "cardlang": str(GAME_FILE.relative_to(REPO)),
            "openspiel": [OPENSPIEL_GAME[0], OPENSPIEL_GAME[1]],
        },
        "iterations": args.iterations,
        "cardlang_spec": args.spec,
        "openspiel_uct_c": args.uct_c,
        "repeats": args.repeats,
        "seed": args.seed,
        "cardlang": ours,
        "cardlang_unavailable": why,
        "openspiel": theirs,
        "ratio": cl_med / os_med if cl_med is not None and os_med else None,
        "ratio_paired_median": median(paired),
        # beside it: OpenSpiel's C++ ISMCTSBot, set alike (the issue asks for both)
        "openspiel_cpp": cpp,
        "ratio_to_cpp": cl_med / cpp_med if cl_med is not None and cpp_med else None,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    use_engine(args.engine)
    os_mods = load_openspiel()
    if os_mods is None:
        print(
            "open-spiel is not installed; nothing to compare against.\n"
            "Install the optional extra:  pip install -e .[bench]   (or: pip install open-spiel)"
        )
        return 0
    pyspiel = os_mods[0]
    os_version = _version("open-spiel")
    game = pyspiel.load_game(*OPENSPIEL_GAME)
    first = game.new_initial_state()
    assert first.action_to_string(NO_PASS) == "No Pass", "OpenSpiel's Hearts changed"
    if args.uct_c is None:
        args.uct_c = cardlang_default_c() * (game.max_utility() - game.min_utility())
    master, why = cardlang_setup(args.spec)
    if why is not None:
        note(f"note: the cardlang agent {args.spec!r} cannot be made ({why}); OpenSpiel only")

    sides: list[tuple[Series, Any]] = []
    cl_series = None
    if master is not None:
        cl_series = Series("cardlang")
        sides.append((cl_series, lambda n, s: play_cardlang(master, args.spec, n, s)))
    os_series = Series("openspiel")
    sides.append((os_series, lambda n, s: play_openspiel(os_mods, game, args, n, s)))
    cpp_series = Series("openspiel_cpp")
    sides.append(
        (cpp_series, lambda n, s: play_openspiel(os_mods, game, args, n, s, openspiel_cpp_bot))
    )
    given = {"cardlang": args.games, "openspiel": args.openspiel_games, "openspiel_cpp": None}
    for series, play in sides:
        calibrate = lambda play=play: play(PLAYERS, args.seed)  # noqa: E731
        size(series, given[series.side], calibrate, args.target_seconds)
    measure(sides, args.repeats, args.seed)

    report = report_of(args, os_version, cl_series, os_series, why, cpp_series)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------- the table


def fmt(value: float | None, spec: str = ",.1f") -> str:
    return "-" if value is None else format(value, spec)


def print_table(report: dict[str, Any]) -> None:
    title = (
        f"ISMCTS, {report['iterations']} iterations, Hearts: trick decisions/s of the "
        f"searching seat (median of {report['repeats']})"
    )
    header = ["side", "games", "decisions/s", "ms each", "per game", "with passes"]
    header += ["win share", "games/s"]
    rows = []
    for side in ("cardlang", "openspiel", "openspiel_cpp"):
        s = report.get(side)
        if s is None:
            rows.append([side] + ["-"] * (len(header) - 1))
            continue
        dps = s["median_decisions_per_second"]
        passes = s["searched_pass_decisions_per_game"]
        rows.append(
            [
                side,
                str(s["games_per_run"]),
                fmt(dps),
                fmt(1000 / dps if dps else None),
                fmt(s["searched_decisions_per_game"]),
                fmt(s["median_all_decisions_per_second"]) if passes else "-",
                fmt(s["ismcts_win_share"], ".1%"),
                fmt(s["median_games_per_second"], ",.2f"),
            ]
        )
    _print(title, header, rows)
    print(
        f"cardlang: {report['cardlang_spec']} on {report['game']['cardlang']}; OpenSpiel "
        f"{report['openspiel_version']}: ISMCTSBot(uct_c={report['openspiel_uct_c']:g}, "
        f"max_simulations={report['iterations']}) on hearts, no pass; Python "
        f"{report['python']}.\nper game: searched trick decisions; with passes: cardlang's "
        f"decisions/s counting its 3 passes; win share: the ISMCTS seat's (even: "
        f"{1 / PLAYERS:.0%}).\nratio cardlang / OpenSpiel: {fmt(report['ratio'], '.2f')} "
        f"(median of paired runs: {fmt(report['ratio_paired_median'], '.2f')}); "
        f"cardlang / OpenSpiel's C++ ISMCTSBot (openspiel_cpp): "
        f"{fmt(report.get('ratio_to_cpp'), '.2f')}"
    )


def _print(title: str, header: list[str], rows: list[list[str]]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        print(title)
        for r in [header, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
        return
    table = Table(title=title)
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i < 2 else "right")
    for r in rows:
        table.add_row(*r)
    Console().print(table)


if __name__ == "__main__":
    sys.exit(main())
