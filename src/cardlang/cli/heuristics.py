"""``cardlang heuristics FILE [FILE_B]``: play the experiments, measure, report.

Pipeline position: the command line (cli/), the face of cardlang.analysis (experiment.py
and report.py).  One file: its measures with intervals.  Two variants (two files, or one
file with ``--param`` and ``--param-b`` settings): both, side by side, with the
difference and whether it is significant.  The games are recorded (``--db``, by default
the user's records file that cli/records.py places) and reused by the next run; Ctrl-C
keeps the games recorded so far (the same command goes on from there) and exits with
130.  ``main`` dispatches here; the options it shares with simulate come from options.py.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cardlang.cli.options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    SubParsers,
    backend_choice,
    engine_of,
    engine_option,
    limit_options,
    limits_of,
    output_dir,
    param_option,
    positive,
    seed_option,
    workers_count,
)
from cardlang.errors import UsageError
from cardlang.language.params import parse_param_args

if TYPE_CHECKING:
    from cardlang.analysis.experiment import Plan, Results
    from cardlang.engine.game import Game
    from cardlang.runs.store import RunStore

__all__ = ["add_parser", "cmd_heuristics"]


def add_parser(sub: SubParsers) -> None:
    """The ``heuristics`` subcommand's arguments."""
    from cardlang.analysis import DEFAULT_AI
    from cardlang.cli.records import RECORDS_RULE

    p = sub.add_parser(
        "heuristics",
        help="measure a game's quality (fairness, drama, ...) from batches of games",
        description="Play the games the measures need (all random; one AI against random "
        "players; all AI), record them, and measure fairness, drama, decisiveness, balance, "
        "branching and more, with 95% intervals. Two files (or --param-b) compare variants.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("file_b", metavar="FILE_B", nargs="?", help="a variant to compare with")
    p.add_argument("--games", type=positive, default=100, help="games per design (100)")
    p.add_argument("--ai", default=DEFAULT_AI, help=f"the AI agent spec ({DEFAULT_AI})")
    seed_option(p)
    p.add_argument(
        "--db",
        metavar="FILE",
        help=f"the records file games are kept in and reused from ({RECORDS_RULE})",
    )
    p.add_argument(
        "--workers", type=workers_count, default=None, help="workers (default: every core)"
    )
    p.add_argument(
        "--backend",
        choices=("serial", "process", "ray"),
        default=None,
        help="where games are played: serial, or process (with --workers > 1) or ray",
    )
    p.add_argument(
        "--designs",
        default="random,ai_vs_random,ai",
        help="which experiments to run, comma separated (all three)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--plot", metavar="DIR", type=output_dir, help="write PNG plots and report.html here"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    param_option(p)
    engine_option(p)
    limit_options(p)
    p.add_argument(
        "--param-b",
        action="append",
        metavar="NAME=VALUE",
        help="compare with the same file under these parameter values (repeatable)",
    )


def cmd_heuristics(args: argparse.Namespace) -> int:
    from cardlang.agents import make_agent
    from cardlang.analysis.experiment import Plan

    variants = _variants(args)
    make_agent(args.ai, 0)  # a bad agent spec fails now, before any game is played
    _warn_of_the_ai(args.ai, [game for _, game, _ in variants])
    backend, workers = backend_choice(args)  # the same rules as simulate's
    plan = Plan(
        limits=limits_of(args),
        games=args.games,
        seed=args.seed,
        ai=args.ai,
        designs=_designs(args.designs),
        backend=backend,
        workers=workers,
    )
    store = _open_store(args)
    try:
        results = _run_all(variants, plan, store, progress=not args.quiet)
    except KeyboardInterrupt:  # run_batch's BatchInterrupted, or Ctrl-C between batches
        print(
            f"cardlang: interrupted; the games finished so far are kept in {args.db}: "
            "the same command goes on from there",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        store.close()
    _report(args, results)
    for result in results:  # failed games have no result: say so, and why
        if result.failed:
            print(
                f"cardlang: {result.label}: {result.failed} games failed and are left out "
                "of the measures; the first of each kind:",
                file=sys.stderr,
            )
            for error in result.errors:
                print(f"  {error}", file=sys.stderr)
    return EXIT_OK


def _warn_of_the_ai(spec: str, games: list[Game]) -> None:
    """What the AI says a designer should know before it plays (a bot's decisions
    without a rule, the kingdom cards it never buys), each line once, as simulate does."""
    from cardlang.agents.registry import agent_warnings

    said = dict.fromkeys(line for game in games for line in agent_warnings([spec], game))
    for line in said:
        print(f"warning: {line}", file=sys.stderr)


def _variants(args: argparse.Namespace) -> list[tuple[str, Game, dict[str, str]]]:
    """(label, game, params) for A, and for B when comparing."""
    from cardlang.compiler.load import load_game

    def variant(path: str, params: dict[str, str]) -> tuple[str, Game, dict[str, str]]:
        return _label(path, params), load_game(path, params=params, **engine_of(args)), params

    params = parse_param_args(args.param)
    a = variant(args.file, params)
    if args.file_b and args.param_b:
        raise UsageError("compare either two files or one file under --param-b, not both")
    if args.file_b:
        return [a, variant(args.file_b, params)]
    if args.param_b:
        return [a, variant(args.file, {**params, **parse_param_args(args.param_b)})]
    return [a]


def _label(path: str, params: dict[str, str]) -> str:
    settings = " ".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{Path(path).name}" + (f" ({settings})" if settings else "")


def _designs(text: str) -> tuple[str, ...]:
    from cardlang.analysis.measures import DESIGNS

    chosen = tuple(d.strip() for d in text.split(",") if d.strip())
    unknown = [d for d in chosen if d not in DESIGNS]
    if unknown or not chosen:
        raise UsageError(
            f"unknown design {', '.join(unknown) or '(none)'}: choose from {', '.join(DESIGNS)}"
        )
    return chosen


def _open_store(args: argparse.Namespace) -> RunStore:
    """The records of --db (its folder made), else the user's records file: ``args.db``
    becomes the file, which the messages name."""
    from cardlang.cli.records import records_to_write
    from cardlang.runs.store import RunStore

    args.db = records_to_write(args.db)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    return RunStore.open(args.db)


def _run_all(
    variants: list[tuple[str, Game, dict[str, str]]], plan: Plan, store: RunStore, *, progress: bool
) -> list[Results]:
    """Each variant's experiments, with one progress bar over every game to play."""
    from cardlang.analysis.experiment import run_experiment
    from cardlang.runs.progress import games_bar

    total = len(variants) * len(plan.designs) * plan.games
    out = []
    with games_bar("heuristics", total, enabled=progress) as bar:
        for label, game, params in variants:
            if bar is not None:
                bar.describe(label)
            out.append(
                run_experiment(
                    game,
                    plan,
                    store,
                    label=label,
                    params=params,
                    on_game=(lambda: bar.advance(1)) if bar is not None else None,
                    on_resume=bar.advance if bar is not None else None,
                )
            )
    return out


def _report(args: argparse.Namespace, results: list[Results]) -> None:
    from rich.console import Console

    from cardlang.analysis import report

    console = Console()
    if len(results) == 2:
        diffs = report.differences(results[0], results[1], seed=args.seed)
        if args.json:
            print(json.dumps(report.comparison_json(results[0], results[1], diffs), indent=2))
        else:
            report.print_comparison(console, results[0], results[1], diffs)
    elif args.json:
        print(json.dumps(report.to_json(results[0]), indent=2))
    else:
        report.print_results(console, results[0])
    stored, played = sum(r.stored for r in results), sum(r.played for r in results)
    where = (
        f"{stored} games reused from {args.db}, {played} played now"
        if stored
        else f"{played} games played now, recorded in {args.db}"
    )
    print(f"cardlang: {where}", file=sys.stderr)  # where the records are, once
    if args.plot:
        written = report.write_plots(Path(args.plot), results)
        print(f"cardlang: wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
