"""Random-play speed of cardlang against OpenSpiel's C++ games, measured in one run.

What it measures
    Games per second when every decision is taken uniformly at random, for Hearts and
    Crazy Eights (4 players):

    * cardlang: ``cardlang simulate FILE --games N --seed S --json --quiet`` run as a
      subprocess, for our own game file (``games/*.rcy``) and the CardStock corpus file
      (``../shared/cardstock/*.rcy``); the figure is the ``games_per_second`` field of its
      JSON output (the interpreter's own timing, so process start-up and parsing are not
      counted).
    * OpenSpiel: the C++ game driven from Python through ``pyspiel``.  At a chance node an
      outcome is sampled from ``state.chance_outcomes()`` with its probability, otherwise
      an action is picked uniformly from ``state.legal_actions()``, with a seeded
      ``random.Random``; ``state.apply_action`` until ``state.is_terminal()``.  The
      Python loop is part of what is timed: this is what "OpenSpiel played randomly from
      Python" costs.

    Measurements are interleaved (cardlang file, OpenSpiel, next cardlang file,
    OpenSpiel, ... for R repetitions) so that noise on a shared machine hits both sides
    alike.  Unless ``--games`` / ``--openspiel-games`` fix them, the game counts are
    sized by a short calibration run per file (as timeit's autorange does) so that each
    measurement, on either side, takes about ``--target-seconds`` (default 6 s); the
    chosen counts are printed.  The table gives medians, and the ratio cardlang /
    OpenSpiel, where the OpenSpiel median is taken over the runs interleaved with that
    file (``--json`` also gives the median of the per-pair ratios).  Absolute numbers
    depend on the machine; compare ratios taken in the same run.  The decisions-per-game
    columns show how much play each side's "game" holds: the rules differ in details.

OpenSpiel version and game parameters
    Written and measured against open-spiel 2.0.2 (PyPI wheel, ``pip install -e .[bench]``;
    the version found at run time is printed and recorded in ``--json`` output).

    * ``hearts`` (default parameters): pass_cards=True (the pass direction is itself a
      chance event: left, right, across or no pass), must_break_hearts=True,
      qs_breaks_hearts=True, no_pts_on_first_trick=True, can_lead_any_club=False,
      can_lead_hearts_instead_of_qs=False, avoid_all_tricks_bonus=False, jd_bonus=False.
      One game is ONE DEAL (13 tricks), as in CardStock's Hearts4.rcy, not a match to 100.
    * ``crazy_eights`` with players=4 (other parameters default): max_draw_cards=5,
      max_turns=100, reshuffle=False, use_special_cards=False.  Five cards each; a player
      may draw up to 5 cards before having to play or pass.  Without reshuffle, once the
      stock is empty the game ends after players+1 consecutive passes, so with random
      players about two thirds of the games end blocked rather than by a player going out
      (reported as ``natural_end_fraction`` in ``--json`` output).  CardStock's
      CrazyEights4.rcy instead refills the stock from the discard pile and lets a player
      draw one card per turn: the rules, and so the work per game, differ somewhat.

Usage (from the repository root)
    python benchmarks/random_play.py                     # about 5 minutes
    python benchmarks/random_play.py --games 200 --openspiel-games 2000 --repeats 3 --json

Exits 0 with a message if open-spiel is not installed; cardlang files that do not exist
are skipped with a note; if the ``cardlang simulate`` CLI is not available only the
OpenSpiel side is measured.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
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
DEFAULT_CORPUS = REPO.parent / "shared" / "cardstock"


@dataclass
class GameSpec:
    """One game: the OpenSpiel game and the cardlang files measured against it."""

    key: str
    title: str
    openspiel_name: str
    openspiel_params: dict[str, Any]
    own_file: str  # relative to the repository root
    corpus_file: str  # file name inside the corpus directory


GAMES = [
    GameSpec("hearts", "Hearts", "hearts", {}, "games/hearts.rcy", "Hearts4.rcy"),
    GameSpec(
        "crazy_eights",
        "Crazy Eights 4p",
        "crazy_eights",
        {"players": 4},
        "games/crazy_eights.rcy",
        "CrazyEights4.rcy",
    ),
]
CALIBRATION_GAMES = 100  # cardlang
OPENSPIEL_CALIBRATION_GAMES = 500


# --------------------------------------------------------------------------- OpenSpiel


@dataclass
class OpenSpielRun:
    games_per_second: float
    seconds: float
    games: int
    decisions_per_game: float  # non-chance actions
    natural_end_fraction: float  # a player out of cards (crazy eights); 1.0 for hearts


def play_openspiel(game: Any, n_games: int, seed: int, key: str) -> OpenSpielRun:
    """Play ``n_games`` complete games with uniformly random players; time the lot."""
    rng = random.Random(seed)
    choice = rng.choice
    choices = rng.choices
    decisions = 0
    natural = 0
    start = time.perf_counter()
    for _ in range(n_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                actions = [a for a, _ in outcomes]
                probs = [p for _, p in outcomes]
                action = choices(actions, weights=probs)[0]
            else:
                action = choice(state.legal_actions())
                decisions += 1
            state.apply_action(action)
        # Crazy Eights: every card costs penalty points, so a 0 return means that player
        # went out; otherwise the game ended blocked (empty stock, everyone passed).
        if key != "crazy_eights" or 0.0 in state.returns():
            natural += 1
    seconds = time.perf_counter() - start
    return OpenSpielRun(
        games_per_second=n_games / seconds,
        seconds=seconds,
        games=n_games,
        decisions_per_game=decisions / n_games,
        natural_end_fraction=natural / n_games,
    )


# --------------------------------------------------------------------------- cardlang


@dataclass
class CardlangRun:
    games_per_second: float | None
    seconds: float | None
    wall_seconds: float
    result: dict[str, Any] | None
    error: str | None = None


def cardlang_available(cmd: list[str]) -> tuple[bool, str]:
    """Whether ``cardlang simulate --help`` works; the reason if it does not."""
    try:
        proc = subprocess.run(
            [*cmd, "simulate", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return False, f"exit {proc.returncode}: {tail[0]}"
    return True, ""


def run_cardlang(
    cmd: list[str], path: Path, n_games: int, seed: int, timeout: float
) -> CardlangRun:
    argv = [*cmd, "simulate", str(path), "--games", str(n_games), "--seed", str(seed)]
    argv += ["--json", "--quiet"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        wall = time.perf_counter() - start
        return CardlangRun(None, None, wall, None, f"timed out ({timeout} s)")
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        return CardlangRun(None, None, wall, None, f"exit {proc.returncode}: {tail}")
    try:
        result = parse_json_output(proc.stdout)
        gps = float(result["games_per_second"])
    except (ValueError, KeyError, TypeError) as exc:
        error = f"unreadable output ({exc}): {proc.stdout[:200]!r}"
        return CardlangRun(None, None, wall, None, error)
    seconds = result.get("seconds")
    return CardlangRun(gps, float(seconds) if seconds is not None else None, wall, result)


# --------------------------------------------------------------------------- driver


@dataclass
class Pairing:
    """One measured series: a cardlang file (or none) and the OpenSpiel runs beside it."""

    spec: GameSpec
    label: str | None  # "ours", "corpus", or None for OpenSpiel alone
    path: Path | None
    games: int | None = None  # cardlang games per measurement
    cardlang: list[CardlangRun] = field(default_factory=list)
    openspiel: list[OpenSpielRun] = field(default_factory=list)


RESULT_KEYS = ("games", "completed", "failed", "cutoff")


def display_path(path: Path) -> str:
    """Relative to the repository when inside it, else ``corpusdir/file``."""
    if path.is_relative_to(REPO):
        return str(path.relative_to(REPO))
    return f"{path.parent.name}/{path.name}"


def fmt_gps(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 0.01 else f"{value:.3f}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Random-play games/s of cardlang vs OpenSpiel (interleaved, medians)."
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="cardlang games per measurement (default: sized per file by a short "
        "calibration run so that one measurement takes about --target-seconds)",
    )
    parser.add_argument(
        "--target-seconds",
        type=float,
        default=6.0,
        help="time aimed at per measurement, cardlang and OpenSpiel alike, where --games "
        "or --openspiel-games is not given (default 6)",
    )
    parser.add_argument(
        "--openspiel-games",
        type=int,
        default=None,
        help="OpenSpiel games per measurement (default: sized by a calibration run "
        "like the cardlang side, so both sides of a pair run about as long)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; repetition r uses seed+r")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="CardStock corpus dir")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds allowed per cardlang run"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    engine_argument(parser)
    args = parser.parse_args(argv)
    if (
        args.repeats < 1
        or (args.games is not None and args.games < 1)
        or (args.openspiel_games is not None and args.openspiel_games < 1)
        or args.target_seconds <= 0
    ):
        parser.error("--games, --openspiel-games, --repeats and --target-seconds must be positive")
    return args


def plan(args: argparse.Namespace, cardlang_ok: bool) -> list[Pairing]:
    """A series per existing cardlang file; OpenSpiel alone for a game that has none."""
    pairings: list[Pairing] = []
    for spec in GAMES:
        found = False
        if cardlang_ok:
            candidates = (
                ("ours", REPO / spec.own_file),
                ("corpus", args.corpus / spec.corpus_file),
            )
            for label, path in candidates:
                if path.is_file():
                    pairings.append(Pairing(spec, label, path))
                    found = True
                else:
                    note(f"note: skipping {spec.title} {label} file {path} (does not exist)")
        if not found:
            pairings.append(Pairing(spec, None, None))
    return pairings


def size_runs(pairings: list[Pairing], args: argparse.Namespace, cmd: list[str]) -> None:
    """Choose each file's game count: --games, or a calibration run (like timeit's autorange)."""
    for pairing in pairings:
        if pairing.path is None:
            continue
        if args.games is not None:
            pairing.games = args.games
            continue
        cal = run_cardlang(cmd, pairing.path, CALIBRATION_GAMES, args.seed, args.timeout)
        where = f"calibrate cardlang {display_path(pairing.path)}"
        if cal.games_per_second is None:
            note(f"{where}: FAILED {cal.error}")
            pairing.games = CALIBRATION_GAMES
            continue
        pairing.games = round_games(cal.games_per_second * args.target_seconds)
        note(
            f"{where}: {cal.games_per_second:,.1f} games/s -> {pairing.games} games per measurement"
        )


def size_openspiel(games: dict[str, Any], args: argparse.Namespace) -> dict[str, int]:
    """OpenSpiel games per measurement for each game: --openspiel-games, or calibrated."""
    sizes: dict[str, int] = {}
    for key, game in games.items():
        if args.openspiel_games is not None:
            sizes[key] = args.openspiel_games
            continue
        cal = play_openspiel(game, OPENSPIEL_CALIBRATION_GAMES, args.seed, key)
        sizes[key] = round_games(cal.games_per_second * args.target_seconds)
        note(
            f"calibrate openspiel {key}: {cal.games_per_second:,.1f} games/s -> "
            f"{sizes[key]} games per measurement"
        )
    return sizes


def measure(
    pairings: list[Pairing],
    games: dict[str, Any],
    os_sizes: dict[str, int],
    args: argparse.Namespace,
    cmd: list[str],
) -> None:
    """Interleave: per repetition, each cardlang file then an OpenSpiel run of its game."""
    for rep in range(args.repeats):
        seed = args.seed + rep
        tag = f"[{rep + 1}/{args.repeats}]"
        for pairing in pairings:
            spec = pairing.spec
            if pairing.path is not None and pairing.games is not None:
                n = pairing.games
                cl = run_cardlang(cmd, pairing.path, n, seed, args.timeout)
                pairing.cardlang.append(cl)
                where = f"{tag} cardlang {display_path(pairing.path)}"
                if cl.error:
                    note(f"{where}: FAILED {cl.error}")
                else:
                    note(
                        f"{where}: {cl.games_per_second:,.1f} games/s "
                        f"({n} games, {cl.wall_seconds:.1f} s wall)"
                    )
            osr = play_openspiel(games[spec.key], os_sizes[spec.key], seed, spec.key)
            pairing.openspiel.append(osr)
            note(
                f"{tag} openspiel {spec.openspiel_name}: {osr.games_per_second:,.1f} games/s "
                f"({osr.games} games, {osr.seconds:.2f} s)"
            )


def summarise(pairing: Pairing, args: argparse.Namespace) -> dict[str, Any]:
    spec = pairing.spec
    cl_gps = [r.games_per_second for r in pairing.cardlang if r.games_per_second is not None]
    os_gps = [r.games_per_second for r in pairing.openspiel]
    cl_med, os_med = median(cl_gps), median(os_gps)
    paired = paired_ratios(pairing.cardlang, pairing.openspiel)
    last = next((r.result for r in reversed(pairing.cardlang) if r.result), None)
    return {
        "game": spec.key,
        "title": spec.title,
        "source": pairing.label,
        "file": str(pairing.path) if pairing.path else None,
        "cardlang_games_per_run": pairing.games,
        "cardlang_decisions_per_game": last.get("mean_decisions") if last else None,
        "cardlang_runs": [r.games_per_second for r in pairing.cardlang],
        "cardlang_errors": [r.error for r in pairing.cardlang if r.error],
        "cardlang_run_seconds": [r.seconds for r in pairing.cardlang],
        "cardlang_median_gps": cl_med,
        "cardlang_last_result": {k: last.get(k) for k in RESULT_KEYS} if last else None,
        "openspiel_runs": os_gps,
        "openspiel_run_seconds": [r.seconds for r in pairing.openspiel],
        "openspiel_decisions_per_game": median([r.decisions_per_game for r in pairing.openspiel]),
        "openspiel_median_gps": os_med,
        "ratio": (cl_med / os_med) if cl_med is not None and os_med else None,
        "ratio_paired_median": median(paired),
    }


def openspiel_summary(
    spec: GameSpec, game: Any, pairings: list[Pairing], games_per_run: int
) -> dict[str, Any]:
    runs = [r for p in pairings if p.spec.key == spec.key for r in p.openspiel]
    return {
        "load": [spec.openspiel_name, spec.openspiel_params],
        "parameters": game.get_parameters(),
        "games_per_run": games_per_run,
        "median_gps": median([r.games_per_second for r in runs]),
        "decisions_per_game": median([r.decisions_per_game for r in runs]),
        "natural_end_fraction": median([r.natural_end_fraction for r in runs]),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    use_engine(args.engine)
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        print(
            "open-spiel is not installed; nothing to compare against.\n"
            "Install the optional extra:  pip install -e .[bench]   (or: pip install open-spiel)"
        )
        return 0
    try:
        os_version = importlib.metadata.version("open-spiel")
    except importlib.metadata.PackageNotFoundError:
        os_version = "unknown"

    cmd = cardlang_command()
    cardlang_ok, reason = cardlang_available(cmd)
    if not cardlang_ok:
        note(f"note: `{' '.join(cmd)} simulate` is not available ({reason}); OpenSpiel only.")

    games = {g.key: pyspiel.load_game(g.openspiel_name, g.openspiel_params) for g in GAMES}
    pairings = plan(args, cardlang_ok)
    size_runs(pairings, args, cmd)
    os_sizes = size_openspiel(games, args)
    measure(pairings, games, os_sizes, args, cmd)

    report = {
        "benchmark": "random_play",
        "openspiel_version": os_version,
        "engine": use_engine(None),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cardlang_cli": " ".join(cmd) if cardlang_ok else None,
        "repeats": args.repeats,
        "seed": args.seed,
        "openspiel": {
            g.key: openspiel_summary(g, games[g.key], pairings, os_sizes[g.key]) for g in GAMES
        },
        "rows": [summarise(p, args) for p in pairings],
    }
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_table(report)
    return 0


def print_table(report: dict[str, Any]) -> None:
    title = (
        f"Random play, games/s (median of {report['repeats']}; open-spiel "
        f"{report['openspiel_version']}, Python {report['python']})"
    )
    header = [
        "Game",
        "cardlang file",
        "games/run",
        "cardlang g/s",
        "cl decisions/game",
        "OpenSpiel g/s",
        "OS decisions/game",
        "ratio cl/OS",
    ]
    body = []
    for row in report["rows"]:
        file = row["file"]
        if file is not None:
            file = display_path(Path(file))
            if row.get("cardlang_errors"):
                file += f"  ({len(row['cardlang_errors'])} failed runs)"
        body.append(
            [
                row["title"],
                file or "(none)",
                "-"
                if row["cardlang_games_per_run"] is None
                else str(row["cardlang_games_per_run"]),
                fmt_gps(row["cardlang_median_gps"]),
                fmt_gps(row["cardlang_decisions_per_game"]),
                fmt_gps(row["openspiel_median_gps"]),
                fmt_gps(row["openspiel_decisions_per_game"]),
                fmt_ratio(row["ratio"]),
            ]
        )
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
        print(title)
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        print("  ".join("-" * w for w in widths))
        for r in body:
            cells = [
                str(c).ljust(w) if i < 2 else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            print("  ".join(cells))
    else:
        table = Table(title=title)
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i < 2 else "right")
        for r in body:
            table.add_row(*r)
        console = Console()
        if not console.is_terminal:  # piped or redirected: do not squeeze into 80 columns
            console = Console(width=150)
        console.print(table)
    for row in report["rows"]:
        for err in sorted(set(row.get("cardlang_errors") or [])):
            print(f"  {row['title']} ({row['source']}): {err}")
        last = row.get("cardlang_last_result")
        if last and (last.get("failed") or last.get("cutoff")):
            print(f"  {row['title']} ({row['source']}), last cardlang run: {last}")


if __name__ == "__main__":
    sys.exit(main())
