"""Dominion Big Money mirror: games/s of cardlang against pyminion, measured in one run.

What it measures
    Complete 2-player games of Dominion in which both seats play Big Money: play every
    treasure, then buy a Province with $8 or more, else a Gold with $6 or more, else a
    Silver with $3 or more, else nothing; no Action card is ever bought or played.

    * cardlang: ``cardlang simulate games/dominion.rcy --agents bigmoney,bigmoney
      --games N --seed S --json --quiet`` run as a subprocess; the figures are the
      ``games_per_second``, ``mean_turns``, ``mean_decisions``, ``wins`` and ``ties``
      fields of its JSON output (the interpreter's own timing, so process start-up and
      parsing are not counted).  ``--game-file``, ``--agents`` and ``--param`` change
      what is run.  If the game file does not exist, or a first run fails (for instance
      because the ``bigmoney`` agent does not exist yet), only pyminion is measured.
    * pyminion: its own ``Game`` and its shipped ``BigMoney`` bot, driven in process:
      a new ``Game`` and two new bots per game, ``game.play()``, the result read back.
      Game set-up is part of what is timed, as cardlang's is.

    Measurements are interleaved (cardlang, pyminion, cardlang, pyminion, ... for R
    repetitions; repetition r uses seed S + r on both sides) so that noise on a shared
    machine hits both alike.  Unless ``--games`` / ``--pyminion-games`` fix them, the
    game counts are sized by a short calibration run (as timeit's autorange does) so
    that each measurement takes about ``--target-seconds`` (default 5 s).  The table
    gives median games/s of each side, turns and decisions per game, and the ratio
    cardlang / pyminion of the medians (``--json`` also gives the median of the
    per-pair ratios).  Absolute numbers depend on the machine: compare ratios taken in
    the same run.  The script also reports each side's seat statistics over its timed
    games (first-seat wins, second-seat wins, ties, turns per game).

pyminion version and set-up
    Written and measured against pyminion 0.4.0 (PyPI; the package's own
    ``pyminion.__version__`` still says 0.3.0, so the version is read from the
    distribution metadata and recorded in ``--json`` output).  Install it with
    ``pip install pyminion==0.4.0``.

    * Bot: ``pyminion.bots.examples.BigMoney`` as shipped.  Its decider
      (``BigMoneyDecider.buy_priority``) yields Province at $8+, Gold at $6+, Silver at
      $3+, and ``BotDecider`` plays every treasure in hand and buys the first of those
      whose pile is not empty: exactly the definition above (no Duchy rule), so no
      subclass is needed.
    * ``Game(players=[first, second], expansions=[base_set], kingdom_cards=KINGDOM,
      random_order=False, log_stdout=False, log_file=False)``: seats fixed (pyminion
      shuffles the seating by default), the ten kingdom piles of the base set's "First
      Game" (Cellar, Market, Merchant, Militia, Mine, Moat, Remodel, Smithy, Village,
      Workshop; pyminion needs ten kingdom piles and the bots never buy them).  Supply
      for 2 players: 8 Estates, Duchies and Provinces, 10 Curses, 46 Coppers, 40 Silvers,
      30 Golds; start deck 7 Coppers and 3 Estates.  The game ends after the turn in
      which the Provinces or any three piles run out.
    * Randomness: pyminion shuffles with the global ``random`` module, which is seeded
      with S + r before each measurement.
    * Logging: pyminion logs every step with ``logger.info`` on the ROOT logger (it sets
      the root level to INFO at import and ``Game(log_stdout=True)``, the default, adds a
      stdout handler).  Here ``log_stdout=False`` and ``log_file=False``, no handler but
      a ``NullHandler`` is left on the root logger and ``logging.disable(CRITICAL)`` makes
      every logging call return at its first check, so no I/O and no log records happen
      while timing.  pyminion has no ``print`` outside its human player.  It does build
      its log messages eagerly, though (f-strings, including the whole supply before
      every buy and the hand every turn), and that is part of the engine as shipped and
      of its timing: with those ``__repr__``/``__str__`` methods stubbed out pyminion
      plays about 1.5 times as fast (1.3x to 1.7x in our runs; ``--no-log-format``
      measures that variant; off by default).
    * Ties: ``Game.get_winners`` gives the most victory points; between equal scores,
      the player who had fewer turns wins, and players with equal scores and equal
      turns tie.  So when the first seat ends the game level on points, the second seat
      wins; only a level game ended by the second seat is a tie.  ``equal_vp`` in the
      statistics counts every game that ended level on points.
    * Turns: pyminion's ``Player.turns`` summed over both players (each player's turn
      counts once); decisions: calls of the bots' action-, treasure- and buy-phase
      deciders, counted in a separate, untimed run (the timed runs use the stock bot).

Measured on the 2-core development machine (Python 3.11.7, pyminion 0.4.0, seed 0)
    pyminion as shipped: about 775 games/s (median of 5 runs of 3,400 games; single runs
    ranged 500 to 1,000 games/s on this shared machine), 34.2 turns (both players) and
    68.5 decisions per game.  Over the first 2,000 games: first seat 24.7 % wins, second
    seat 42.1 %, ties 33.3 % (equal VP in 61.0 %); over 17,000 games: 24.5 %, 42.5 %,
    33.0 % (equal VP 61.5 %).  That matches the reference figures for the Big Money
    mirror with fixed seats (first ~25 %, second ~42.5 %, ties ~32 %).

Usage (from the repository root)
    python benchmarks/dominion_speed.py                  # about a minute
    python benchmarks/dominion_speed.py --games 500 --pyminion-games 4000 --repeats 3 --json

Exits 0 with a message if pyminion is not installed; if the game file, the agent or the
``cardlang simulate`` CLI is not available, only the pyminion side is measured.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench_common import (
    cardlang_command,
    engine_argument,
    median,
    note,
    paired_ratios,
    parse_json_output,
    round_games,
    use_engine,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_GAME_FILE = "games/dominion.rcy"
DEFAULT_AGENTS = "bigmoney,bigmoney"
PYMINION_VERSION = "0.4.0"
# The base set's recommended "First Game" kingdom; the Big Money bots never touch it.
KINGDOM = (
    "cellar",
    "market",
    "merchant",
    "militia",
    "mine",
    "moat",
    "remodel",
    "smithy",
    "village",
    "workshop",
)
CALIBRATION_GAMES = 50  # cardlang
PROBE_GAMES = 2  # cardlang, when --games fixes the count
PYMINION_CALIBRATION_GAMES = 300
DECISION_COUNT_GAMES = 300  # untimed pyminion run that counts decisions


# --------------------------------------------------------------------------- pyminion


def load_pyminion(no_log_format: bool) -> SimpleNamespace | None:
    """pyminion's pieces, with its logging silenced; None if it is not installed."""
    try:
        from pyminion import core, result
        from pyminion.bots.examples.big_money import BigMoney, BigMoneyDecider
        from pyminion.expansions import base
        from pyminion.game import Game
    except ImportError:
        return None
    # pyminion logs to the root logger (level INFO, a NullHandler added at import; a
    # stdout handler per Game unless log_stdout=False).  Drop any handler but the null
    # one and disable logging altogether: every logger.info call then returns at once.
    root = logging.getLogger()
    for handler in list(root.handlers):
        if not isinstance(handler, logging.NullHandler):
            root.removeHandler(handler)
    logging.disable(logging.CRITICAL)
    if no_log_format:
        # Make the eagerly built log messages cheap: game logic never reads these.
        for cls in (core.Card, core.AbstractDeck, core.DeckCounter, core.Supply):
            cls.__repr__ = cls.__str__ = lambda self: ""  # type: ignore[method-assign]
        for cls in (result.GameResult, result.PlayerSummary):
            cls.__repr__ = lambda self: ""  # type: ignore[method-assign]

    class CountingDecider(BigMoneyDecider):  # type: ignore[misc, valid-type]
        """BigMoney's decider, counting the decisions asked of it (untimed runs only)."""

        calls = 0

        def action_phase_decision(self, *args: Any, **kwargs: Any) -> Any:
            CountingDecider.calls += 1
            return super().action_phase_decision(*args, **kwargs)

        def treasure_phase_decision(self, *args: Any, **kwargs: Any) -> Any:
            CountingDecider.calls += 1
            return super().treasure_phase_decision(*args, **kwargs)

        def buy_phase_decision(self, *args: Any, **kwargs: Any) -> Any:
            CountingDecider.calls += 1
            return super().buy_phase_decision(*args, **kwargs)

    try:
        version = importlib.metadata.version("pyminion")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return SimpleNamespace(
        Game=Game,
        BigMoney=BigMoney,
        CountingDecider=CountingDecider,
        expansions=[base.base_set],
        kingdom=[getattr(base, name) for name in KINGDOM],
        version=version,
    )


@dataclass
class PyminionRun:
    games_per_second: float
    seconds: float
    games: int
    first_wins: int
    second_wins: int
    ties: int
    equal_vp: int
    turns: int  # both players' turns, summed over the games


def pyminion_games(pm: SimpleNamespace, n_games: int, bots: Any) -> Iterator[tuple[Any, ...]]:
    """Play ``n_games``; yield (result, first bot, second bot) for each."""
    for _ in range(n_games):
        first, second = bots()
        game = pm.Game(
            players=[first, second],
            expansions=pm.expansions,
            kingdom_cards=pm.kingdom,
            random_order=False,
            log_stdout=False,
            log_file=False,
        )
        yield game.play(), first, second


def play_pyminion(pm: SimpleNamespace, n_games: int, seed: int) -> PyminionRun:
    """Play ``n_games`` Big Money mirrors with the stock bot, seats fixed; time the lot."""
    big_money = pm.BigMoney
    first_wins = second_wins = ties = equal_vp = turns = 0
    random.seed(seed)
    start = time.perf_counter()
    for result, first, second in pyminion_games(
        pm, n_games, lambda: (big_money("first"), big_money("second"))
    ):
        winners = result.winners
        if len(winners) > 1:
            ties += 1
        elif winners[0] is first:
            first_wins += 1
        else:
            second_wins += 1
        scores = [s.score for s in result.player_summaries]
        equal_vp += scores[0] == scores[1]
        turns += first.turns + second.turns
    seconds = time.perf_counter() - start
    return PyminionRun(
        n_games / seconds, seconds, n_games, first_wins, second_wins, ties, equal_vp, turns
    )


def pyminion_decisions_per_game(pm: SimpleNamespace, n_games: int, seed: int) -> float:
    """Decisions asked of the bots per game, counted in an untimed run."""
    from pyminion.bots.bot import Bot

    counting = pm.CountingDecider
    counting.calls = 0
    random.seed(seed)
    for _ in pyminion_games(
        pm,
        n_games,
        lambda: (Bot(counting(), "first"), Bot(counting(), "second")),
    ):
        pass
    return counting.calls / n_games


# --------------------------------------------------------------------------- cardlang


@dataclass
class CardlangRun:
    games_per_second: float | None
    wall_seconds: float
    result: dict[str, Any] | None
    error: str | None = None


def run_cardlang(cmd: list[str], args: argparse.Namespace, n_games: int, seed: int) -> CardlangRun:
    argv = [*cmd, "simulate", str(args.game_file), "--agents", args.agents]
    argv += ["--games", str(n_games), "--seed", str(seed), "--json", "--quiet"]
    for param in args.param or []:
        argv += ["--param", param]
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return CardlangRun(None, time.perf_counter() - start, None, f"timed out ({args.timeout} s)")
    except OSError as exc:
        return CardlangRun(None, time.perf_counter() - start, None, str(exc))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return CardlangRun(None, wall, None, f"exit {proc.returncode}: {tail or 'no output'}")
    try:
        result = parse_json_output(proc.stdout)
        gps = float(result["games_per_second"])
    except (ValueError, KeyError, TypeError) as exc:
        return CardlangRun(None, wall, None, f"unreadable output ({exc}): {proc.stdout[:200]!r}")
    return CardlangRun(gps, wall, result)


# --------------------------------------------------------------------------- driver


@dataclass
class Series:
    cardlang_games: int | None = None  # None: cardlang side not measured
    pyminion_games: int = 0
    cardlang: list[CardlangRun] = field(default_factory=list)
    pyminion: list[PyminionRun] = field(default_factory=list)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Dominion Big Money mirror: games/s of cardlang vs pyminion "
        "(interleaved, medians)."
    )
    parser.add_argument(
        "--games",
        type=positive_int,
        default=None,
        help="cardlang games per measurement (default: sized by a short calibration run "
        "so that one measurement takes about --target-seconds)",
    )
    parser.add_argument(
        "--pyminion-games",
        type=positive_int,
        default=None,
        help="pyminion games per measurement (default: sized by a calibration run)",
    )
    parser.add_argument(
        "--target-seconds",
        type=float,
        default=5.0,
        help="time aimed at per measurement, on either side, where --games or "
        "--pyminion-games is not given (default 5)",
    )
    parser.add_argument("--repeats", type=positive_int, default=5, help="repetitions (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; repetition r uses seed+r")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds allowed per cardlang run"
    )
    parser.add_argument(
        "--no-log-format",
        action="store_true",
        help="stub out the __repr__/__str__ methods pyminion's eagerly built log messages "
        "call, to see its speed without them (default: pyminion as shipped)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    engine_argument(parser)
    parser.add_argument(
        "--python-agents",
        action="store_true",
        help="play cardlang's bots as Python agents, one call per decision "
        "(CARDLANG_NATIVE_AGENTS=0), not inside the native engine",
    )
    # What the cardlang side runs: for trying the plumbing on another game file.
    hidden = argparse.SUPPRESS
    parser.add_argument("--game-file", type=Path, default=Path(DEFAULT_GAME_FILE), help=hidden)
    parser.add_argument("--agents", default=DEFAULT_AGENTS, help=hidden)
    parser.add_argument("--param", action="append", metavar="NAME=VALUE", help=hidden)
    args = parser.parse_args(argv)
    if args.target_seconds <= 0:
        parser.error("--target-seconds must be positive")
    return args


def size_cardlang(args: argparse.Namespace, cmd: list[str]) -> int | None:
    """cardlang games per measurement, or None (with a note) if it cannot be measured.

    The calibration run, or a tiny probe run when ``--games`` fixes the count, also
    finds out whether the game file and the agents work.
    """
    path = args.game_file if args.game_file.is_absolute() else REPO / args.game_file
    if not path.is_file():
        note(f"note: {args.game_file} does not exist yet; measuring pyminion only.")
        return None
    n = PROBE_GAMES if args.games is not None else CALIBRATION_GAMES
    cal = run_cardlang(cmd, args, n, args.seed)
    if cal.games_per_second is None:
        note(
            f"note: `cardlang simulate {args.game_file} --agents {args.agents}` does not "
            f"run ({cal.error}); measuring pyminion only."
        )
        return None
    if args.games is not None:
        return args.games
    games = round_games(cal.games_per_second * args.target_seconds)
    note(
        f"calibrate cardlang: {cal.games_per_second:,.1f} games/s -> {games} games per measurement"
    )
    return games


def size_pyminion(pm: SimpleNamespace, args: argparse.Namespace) -> int:
    if args.pyminion_games is not None:
        return args.pyminion_games
    cal = play_pyminion(pm, PYMINION_CALIBRATION_GAMES, args.seed)
    games = round_games(cal.games_per_second * args.target_seconds)
    note(
        f"calibrate pyminion: {cal.games_per_second:,.1f} games/s -> {games} games per measurement"
    )
    return games


def measure(series: Series, pm: SimpleNamespace, args: argparse.Namespace, cmd: list[str]) -> None:
    """Interleave: per repetition, a cardlang run then a pyminion run, same seed."""
    for rep in range(args.repeats):
        seed = args.seed + rep
        tag = f"[{rep + 1}/{args.repeats}]"
        if series.cardlang_games is not None:
            cl = run_cardlang(cmd, args, series.cardlang_games, seed)
            series.cardlang.append(cl)
            if cl.error:
                note(f"{tag} cardlang: FAILED {cl.error}")
            else:
                note(
                    f"{tag} cardlang: {cl.games_per_second:,.1f} games/s "
                    f"({series.cardlang_games} games, {cl.wall_seconds:.1f} s wall)"
                )
        pr = play_pyminion(pm, series.pyminion_games, seed)
        series.pyminion.append(pr)
        note(
            f"{tag} pyminion: {pr.games_per_second:,.1f} games/s "
            f"({pr.games} games, {pr.seconds:.2f} s)"
        )


def cardlang_stats(runs: list[CardlangRun]) -> dict[str, Any] | None:
    """Seat statistics over all successful runs (2 seats; a shared win credits 1/2 each)."""
    results = [r.result for r in runs if r.result is not None]
    if not results:
        return None
    games = sum(int(r["games"]) for r in results)
    completed = sum(int(r.get("completed", r["games"])) for r in results)
    ties = sum(int(r.get("ties", 0)) for r in results)
    if any(len(r["wins"]) != 2 for r in results):
        return None  # not a 2-player game (only when --game-file points elsewhere)
    wins = [sum(float(r["wins"][seat]) for r in results) for seat in range(2)]

    def share(count: float) -> float | None:
        return count / completed if completed else None

    return {
        "games": games,
        "completed": completed,
        "failed": sum(int(r.get("failed", 0)) for r in results),
        "cutoff": sum(int(r.get("cutoff", 0)) for r in results),
        "first_seat_wins": share(wins[0] - ties / 2),
        "second_seat_wins": share(wins[1] - ties / 2),
        "ties": share(ties),
        "turns_per_game": sum(float(r["mean_turns"]) * int(r["games"]) for r in results) / games,
        "decisions_per_game": sum(float(r["mean_decisions"]) * int(r["games"]) for r in results)
        / games,
    }


def pyminion_stats(runs: list[PyminionRun]) -> dict[str, Any]:
    games = sum(r.games for r in runs)
    return {
        "games": games,
        "first_seat_wins": sum(r.first_wins for r in runs) / games,
        "second_seat_wins": sum(r.second_wins for r in runs) / games,
        "ties": sum(r.ties for r in runs) / games,
        "equal_vp": sum(r.equal_vp for r in runs) / games,
        "turns_per_game": sum(r.turns for r in runs) / games,
    }


def report_of(
    series: Series, pm: SimpleNamespace, args: argparse.Namespace, cmd: list[str]
) -> dict[str, Any]:
    cl_gps = [r.games_per_second for r in series.cardlang if r.games_per_second is not None]
    pm_gps = [r.games_per_second for r in series.pyminion]
    cl_med, pm_med = median(cl_gps), median(pm_gps)
    paired = paired_ratios(series.cardlang, series.pyminion)
    pm_stats = pyminion_stats(series.pyminion)
    pm_stats["decisions_per_game"] = pyminion_decisions_per_game(
        pm, min(DECISION_COUNT_GAMES, series.pyminion_games), args.seed
    )
    measured = series.cardlang_games is not None
    return {
        "benchmark": "dominion_speed",
        "engine": use_engine(None),
        "agents_in": "python" if os.environ.get("CARDLANG_NATIVE_AGENTS") == "0" else "engine",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "repeats": args.repeats,
        "seed": args.seed,
        "cardlang": {
            "command": " ".join(cmd) if measured else None,
            "game_file": str(args.game_file),
            "agents": args.agents,
            "params": args.param or [],
            "games_per_run": series.cardlang_games,
            "runs": [r.games_per_second for r in series.cardlang],
            "errors": [r.error for r in series.cardlang if r.error],
            "median_gps": cl_med,
            "stats": cardlang_stats(series.cardlang),
        },
        "pyminion": {
            "version": pm.version,
            "bot": "pyminion.bots.examples.BigMoney",
            "kingdom": list(KINGDOM),
            "random_order": False,
            "log_format_stubbed": args.no_log_format,
            "games_per_run": series.pyminion_games,
            "runs": pm_gps,
            "run_seconds": [r.seconds for r in series.pyminion],
            "median_gps": pm_med,
            "stats": pm_stats,
        },
        "ratio": (cl_med / pm_med) if cl_med is not None and pm_med else None,
        "ratio_paired_median": median(paired),
    }


def fmt(value: float | None, spec: str = ",.1f") -> str:
    return "-" if value is None else format(value, spec)


STAT_ROWS = (  # label, key in the stats, format
    ("turns / game", "turns_per_game", ",.1f"),
    ("decisions / game", "decisions_per_game", ",.1f"),
    ("first seat wins", "first_seat_wins", ".1%"),
    ("second seat wins", "second_seat_wins", ".1%"),
    ("ties", "ties", ".1%"),
    ("equal VP", "equal_vp", ".1%"),
)


def print_table(report: dict[str, Any]) -> None:
    cl, pm = report["cardlang"], report["pyminion"]
    cs, ps = cl["stats"] or {}, pm["stats"]
    variant = ", log formatting stubbed" if pm["log_format_stubbed"] else ""
    title = f"Dominion Big Money mirror, median of {report['repeats']}"
    caption = f"pyminion {pm['version']}{variant}; Python {report['python']}"
    header = ["", "cardlang", "pyminion"]
    what = f"{cl['game_file']} ({cl['agents']})" if cl["games_per_run"] else "(not measured)"
    body = [
        ["what", what, "BigMoney x2"],
        ["games / run", fmt(cl["games_per_run"], ","), fmt(pm["games_per_run"], ",")],
        ["games / s", fmt(cl["median_gps"]), fmt(pm["median_gps"])],
        *(
            [label, fmt(cs.get(key), spec), fmt(ps.get(key), spec)]
            for label, key, spec in STAT_ROWS
        ),
        ["games in stats", fmt(cs.get("completed"), ","), fmt(ps["games"], ",")],
    ]
    ratio = report["ratio"]
    ratio_text = "-" if ratio is None else (f"{ratio:.4f}" if ratio < 0.01 else f"{ratio:.3f}")
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
        print(f"{title} ({caption})")
        for row in [header, ["-" * w for w in widths], *body]:
            cells = zip(row, widths, strict=True)
            print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(cells)))
    else:
        table = Table(title=title, caption=caption)
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i == 0 else "right")
        for row in body:
            table.add_row(*row)
        console = Console()
        if not console.is_terminal:  # piped or redirected: do not squeeze into 80 columns
            console = Console(width=120)
        console.print(table)
    print(f"ratio cardlang / pyminion (games/s medians): {ratio_text}")
    for err in sorted(set(cl["errors"])):
        print(f"  cardlang run failed: {err}")
    if cs.get("failed") or cs.get("cutoff"):
        print(f"  cardlang: {cs['failed']} failed and {cs['cutoff']} cut-off games")
    print(
        "  pyminion breaks a tie on points in favour of the player with fewer turns, so "
        "only equal points after equal turns is a tie."
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    use_engine(args.engine)
    if args.python_agents:
        os.environ["CARDLANG_NATIVE_AGENTS"] = "0"  # inherited by every cardlang run
    pm = load_pyminion(args.no_log_format)
    if pm is None:
        print(
            "pyminion is not installed; nothing to compare against.\n"
            f"Install it:  pip install pyminion=={PYMINION_VERSION}"
        )
        return 0
    if pm.version != PYMINION_VERSION:
        note(
            f"note: pyminion {pm.version} found; this benchmark was written for {PYMINION_VERSION}"
        )
    cmd = cardlang_command()
    series = Series()
    series.cardlang_games = size_cardlang(args, cmd)
    series.pyminion_games = size_pyminion(pm, args)
    measure(series, pm, args, cmd)
    report = report_of(series, pm, args, cmd)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
