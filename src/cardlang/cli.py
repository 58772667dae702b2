"""The ``cardlang`` command line: check, simulate, transcript.

Exit codes: 0 ok, 1 errors in a game file or a failed run, 2 bad usage.  No Python
traceback reaches the user unless ``--debug`` is given (anywhere on the line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from cardlang import __version__
from cardlang.errors import CardlangError, GameFileError, UsageError
from cardlang.params import parse_param_args

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error says how to get help and exits with 2."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nRun '{self.prog} --help' for more.\n"
        )


def _whole_number(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def _positive(text: str) -> int:
    value = _whole_number(text, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seed(text: str) -> int:
    if _whole_number(text, "an integer seed") < 0:
        raise argparse.ArgumentTypeError("the seed must be >= 0")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cardlang",
        description="Describe card games in a language; let machines play and analyse them.",
        epilog=(
            "examples:\n"
            "  cardlang check games/dominion.rcy\n"
            "  cardlang simulate games/dominion.rcy --agents bigmoney,bmu --games 1000\n"
            "  cardlang simulate games/dominion.rcy --agents bigmoney --param players=1\n"
            "  cardlang transcript games/hearts.rcy --seed 3\n\n"
            "Add --debug anywhere to see internal tracebacks."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"cardlang {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    check = sub.add_parser("check", help="check game files; exit 1 if any has errors")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--json", action="store_true", help="diagnostics as JSON")
    _param_option(check)

    sim = sub.add_parser("simulate", help="play many games and summarise them")
    sim.add_argument("file", metavar="FILE")
    sim.add_argument("--games", type=_positive, default=100, help="games to play (100)")
    sim.add_argument("--seed", type=_seed, default=0, help="root seed (0)")
    sim.add_argument(
        "--agents",
        default=None,
        help="one agent for all seats or one per seat, comma separated "
        "(random, bigmoney, bmu, smithy, double-witch; a bot file path/to/bot.toml; "
        "or path/to/file.py:ClassName)",
    )
    sim.add_argument(
        "--rotate-seats",
        action="store_true",
        help="rotate the agents through the seats from game to game (default: fixed seats)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    _param_option(sim)
    _limit_options(sim)

    tr = sub.add_parser("transcript", help="play one game and show it move by move")
    tr.add_argument("file", metavar="FILE")
    tr.add_argument("--seed", type=_seed, default=0, help="the game's seed (0)")
    tr.add_argument("--agents", default=None, help="as for simulate")
    _param_option(tr)
    _limit_options(tr)
    return parser


def _param_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="override a constant the game declares, e.g. --param nump=3 (repeatable)",
    )


def _limit_options(p: argparse.ArgumentParser) -> None:
    from cardlang.gamemaster import Limits

    p.add_argument(
        "--max-decisions",
        type=_positive,
        default=Limits.max_decisions,
        help=f"cut a game off after this many decisions ({Limits.max_decisions})",
    )
    p.add_argument(
        "--max-steps",
        type=_positive,
        default=Limits.max_steps,
        help=f"cut a game off after this many steps without a decision ({Limits.max_steps})",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    args_list = [a for a in args_list if a != "--debug"]
    parser = build_parser()
    args = parser.parse_args(args_list)
    try:
        handler = {"check": cmd_check, "simulate": cmd_simulate, "transcript": cmd_transcript}
        return handler[args.command](args)
    except GameFileError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_ERROR
    except UsageError as err:
        print(f"cardlang: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except CardlangError as err:
        if debug:
            raise
        print(f"cardlang: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("cardlang: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        sys.stdout = None  # type: ignore[assignment]  # nothing more can be written
        return EXIT_OK
    except Exception as err:  # a bug of ours: short message unless --debug
        if debug:
            raise
        print(
            f"cardlang: internal error: {type(err).__name__}: {err}\n"
            "Run again with --debug for the traceback, and please report it.",
            file=sys.stderr,
        )
        return EXIT_ERROR


# ---------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    from cardlang.game import load_game

    failed = 0
    report = []
    for path in args.files:
        try:
            game = load_game(path, params=parse_param_args(args.param))
        except GameFileError as err:
            failed += 1
            report.append(
                {"file": path, "ok": False, "diagnostics": [_diag_json(d) for d in err.diagnostics]}
            )
            if not args.json:
                print(err.render(), file=sys.stderr)
            continue
        except UsageError as err:
            failed += 1
            report.append({"file": path, "ok": False, "diagnostics": [{"message": str(err)}]})
            if not args.json:
                print(f"cardlang: error: {err}", file=sys.stderr)
            continue
        report.append(
            {"file": path, "ok": True, "diagnostics": [_diag_json(d) for d in game.warnings]}
        )
        if not args.json:
            for w in game.warnings:
                print(w.render(game.source), file=sys.stderr)
            print(f"{path}: ok ({game.nplayers} players)")
    if args.json:
        print(json.dumps({"files": report, "ok": failed == 0}, indent=2))
    return EXIT_ERROR if failed else EXIT_OK


def _diag_json(d: Any) -> dict[str, Any]:
    return {
        "severity": d.severity,
        "message": d.message,
        "line": d.span.line,
        "column": d.span.column,
        "hint": d.hint,
    }


# ---------------------------------------------------------------- simulate


def cmd_simulate(args: argparse.Namespace) -> int:
    from cardlang.agents import make_agent
    from cardlang.game import load_game
    from cardlang.gamemaster import Limits
    from cardlang.simulate import parse_agent_specs, run_batch

    game = load_game(args.file, params=parse_param_args(args.param))
    specs = parse_agent_specs(args.agents, game.nplayers)
    for spec in set(specs):
        make_agent(spec, 0)  # fail fast on a bad agent name, before any game is played
    limits = Limits(args.max_decisions, args.max_steps)
    show_progress = not args.quiet and sys.stderr.isatty()
    if show_progress:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} games"),
            TimeRemainingColumn(),
            transient=True,
        ) as progress:
            task = progress.add_task(game.name, total=args.games)
            summary = run_batch(
                game,
                games=args.games,
                seed=args.seed,
                agent_specs=specs,
                limits=limits,
                on_game=lambda r: progress.advance(task),
                rotate_seats=args.rotate_seats,
            )
    else:
        summary = run_batch(
            game,
            games=args.games,
            seed=args.seed,
            agent_specs=specs,
            limits=limits,
            rotate_seats=args.rotate_seats,
        )
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        _print_summary(summary)
    if summary.games < summary.planned:
        print(
            f"cardlang: interrupted after {summary.games} of {summary.planned} games "
            "(the summary covers those)",
            file=sys.stderr,
        )
        return 130
    return EXIT_ERROR if summary.failed else EXIT_OK  # a rule error is a failed run


def _print_summary(s: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"{s.game}: {s.games} games", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    table.add_row("games", str(s.games))
    table.add_row("completed", str(s.completed))
    table.add_row("failed", str(s.failed))
    cut = str(s.cutoff)
    if s.cutoff_reasons:
        reasons = ", ".join(f"{k.split(':')[-1]}: {v}" for k, v in s.cutoff_reasons.items())
        cut += f" ({reasons})"
    table.add_row("cut off by limits", cut)
    table.add_row("ties", str(s.ties))
    table.add_row("mean decisions / game", f"{s.mean_decisions:.1f}")
    per_player = s.mean_turns / max(1, len(s.wins))
    table.add_row("mean turns / game", f"{s.mean_turns:.1f} ({per_player:.1f} per player)")
    stats = s.turns_stats()
    if stats:
        table.add_row(
            "turns (completed games)",
            f"mean {stats['mean']:.2f}, sd {stats['sd']:.2f}, median {stats['median']:g}, "
            f"range {stats['min']:g}-{stats['max']:g}",
        )
    table.add_row("games / second", f"{s.games_per_second:.1f}")
    console.print(table)
    seats = Table(title="wins per seat (a shared win counts 1/k)", title_justify="left")
    seats.add_column("seat")
    seats.add_column("agent")
    seats.add_column("wins", justify="right")
    seats.add_column("share of completed", justify="right")
    for seat, wins in enumerate(s.wins):
        share = wins / s.completed if s.completed else 0.0
        agent = "rotated" if s.rotate_seats else s.agents[seat]
        seats.add_row(f"P{seat}", agent, f"{wins:.2f}", f"{share:.1%}")
    console.print(seats)
    if len(set(s.agents)) > 1:
        agents = Table(title="wins per agent (a shared win counts 1/k)", title_justify="left")
        agents.add_column("agent")
        agents.add_column("games", justify="right")
        agents.add_column("wins", justify="right")
        agents.add_column("wins / games", justify="right")
        for spec, credit in s.wins_by_agent.items():
            played = s.agent_games.get(spec, 0)
            agents.add_row(spec, str(played), f"{credit:.2f}", f"{credit / played:.1%}")
        console.print(agents)
    if len(s.turns_histogram) > 1 and len(s.wins) == 1:  # solo: the distribution of turns
        _print_turns_histogram(console, s.turns_histogram)
    if s.errors:
        console.print("[bold red]first error of each kind:[/]")
        for e in s.errors:
            console.print("  " + e, markup=False, highlight=False)


def _print_turns_histogram(console: Any, histogram: dict[int, int]) -> None:
    total = sum(histogram.values())
    peak = max(histogram.values())
    console.print("turns taken (completed games)")
    for turns in range(min(histogram), max(histogram) + 1):
        n = histogram.get(turns, 0)
        bar = "#" * max(1 if n else 0, round(40 * n / peak))
        console.print(f"  {turns:4d} {n / total:6.1%} {bar}", markup=False, highlight=False)


# ---------------------------------------------------------------- transcript


def cmd_transcript(args: argparse.Namespace) -> int:
    from cardlang.agents import make_agent
    from cardlang.game import load_game
    from cardlang.gamemaster import Limits
    from cardlang.simulate import agent_seeds, parse_agent_specs, play_game
    from cardlang.transcript import render_transcript

    game = load_game(args.file, params=parse_param_args(args.param))
    specs = parse_agent_specs(args.agents, game.nplayers)
    seeds = agent_seeds(args.seed, len(specs))
    agents = [make_agent(spec, s) for spec, s in zip(specs, seeds, strict=True)]
    master = game.master(Limits(args.max_decisions, args.max_steps))
    result, st = play_game(master, agents, args.seed, record=True)
    print(render_transcript(game, st, result, specs))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
