"""The ``cardlang`` command line: check, simulate, transcript, describe, heuristics.

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
from cardlang.language.params import parse_param_args

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
            "  cardlang transcript games/hearts.rcy --seed 3\n"
            "  cardlang describe games/dominion.rcy --param kingdom=random\n"
            "  cardlang heuristics games/hearts.rcy --games 200 --plot report/\n\n"
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
        "(random, pimc, ismcts, mcts, bigmoney, bmu, smithy, double-witch; a bot file "
        "path/to/bot.toml; or path/to/file.py:ClassName); parameters follow colons as "
        "key=value: ismcts:iterations=500:c=0.7,random",
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
    _records_options(sim)
    _backend_options(sim)

    tr = sub.add_parser(
        "transcript",
        help="play one game and show it move by move, or replay a recorded one (--db)",
    )
    tr.add_argument("file", metavar="FILE", nargs="?", help="the game file (with --db: optional)")
    tr.add_argument("--seed", type=_seed, default=None, help="the game's seed (0)")
    tr.add_argument("--agents", default=None, help="as for simulate")
    _param_option(tr)
    _limit_options(tr)
    _replay_options(tr)

    desc = sub.add_parser(
        "describe",
        help="show a game's situations, observation layouts and action vocabulary",
    )
    desc.add_argument("file", metavar="FILE")
    desc.add_argument("--json", action="store_true", help="print one JSON object")
    _param_option(desc)

    from cardlang.cli.heuristics import add_parser as add_heuristics

    add_heuristics(sub, _positive, _seed, _param_option, _limit_options)
    return parser


def _param_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="override a constant the game declares, e.g. --param nump=3 (repeatable)",
    )


def _limit_options(p: argparse.ArgumentParser) -> None:
    from cardlang.engine.gamemaster import Limits

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
        handler = {
            "check": cmd_check,
            "simulate": cmd_simulate,
            "transcript": cmd_transcript,
            "describe": cmd_describe,
            "heuristics": cmd_heuristics,
        }
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


def cmd_heuristics(args: argparse.Namespace) -> int:
    from cardlang.cli.heuristics import cmd_heuristics as run

    return run(args)


# ---------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    from cardlang.compiler.load import load_game

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
    from cardlang.compiler.load import load_game
    from cardlang.engine.gamemaster import Limits
    from cardlang.runs.simulate import parse_agent_specs

    params = parse_param_args(args.param)
    game = load_game(args.file, params=params)
    specs = parse_agent_specs(args.agents, game.nplayers)
    for spec in set(specs):
        make_agent(spec, 0)  # fail fast on a bad agent name, before any game is played
    batch = {
        "games": args.games,
        "seed": args.seed,
        "agent_specs": specs,
        "limits": Limits(args.max_decisions, args.max_steps),
        "rotate_seats": args.rotate_seats,
        "params": params,
    }
    batch["backend"], batch["workers"] = backend_choice(args)
    store = _open_records(args)
    try:
        summary = _run_simulation(game, batch, store, progress=not args.quiet)
    finally:
        if store is not None:
            store.close()
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        _print_summary(summary)
    if summary.stored:
        print(
            f"cardlang: batch {summary.batch_id} of {summary.db} resumed: "
            f"{summary.stored} games were recorded by earlier runs, "
            f"{summary.games - summary.stored} played now; the summary covers them all",
            file=sys.stderr,
        )
    if summary.games < summary.planned:
        resume = " (rerun the same command to resume)" if store is not None else ""
        print(
            f"cardlang: interrupted after {summary.games} of {summary.planned} games "
            f"(the summary covers those){resume}",
            file=sys.stderr,
        )
        return 130
    return EXIT_ERROR if summary.failed else EXIT_OK  # a rule error is a failed run


def _records_options(p: argparse.ArgumentParser) -> None:
    from cardlang.runs.records import DEFAULT_DB

    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--db",
        metavar="FILE",
        help="record every game, decision and result in this SQLite file; running the "
        "same command again resumes the batch (finished games are not played again)",
    )
    where.add_argument(
        "--keep",
        action="store_true",
        help=f"like --db ./{DEFAULT_DB.as_posix()} (the directory is made if missing)",
    )


def _backend_options(p: argparse.ArgumentParser) -> None:
    """--backend and --workers: what plays the games (results are the same whatever)."""
    from cardlang.runs.backends import BACKENDS, RAY_INSTALL

    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="serial: in this process (the default); process: in local worker processes; "
        f"ray: as Ray tasks on a cluster or a local Ray ({RAY_INSTALL}). The results are "
        "the same whatever plays the games",
    )
    p.add_argument(
        "--workers",
        type=_positive,
        default=None,
        metavar="K",
        help="worker processes (process: every core; ray: every CPU of the cluster); "
        "--workers K > 1 alone means --backend process",
    )


def backend_choice(args: argparse.Namespace) -> tuple[str, int | None]:
    """The backend and worker count that --backend and --workers ask for (None: every
    core), checked: a usage error before any game is played, Ray missing included."""
    from cardlang.runs.backends import check_backend

    backend, workers = args.backend, args.workers
    if backend is None:
        backend = "process" if workers is not None and workers > 1 else "serial"
    check_backend(backend, workers)
    return backend, workers


def _open_records(args: argparse.Namespace) -> Any:
    """The RunStore that --db or --keep names, or None."""
    from cardlang.runs.records import DEFAULT_DB, RunStore

    if args.keep:
        DEFAULT_DB.parent.mkdir(parents=True, exist_ok=True)
        return RunStore.open(DEFAULT_DB)
    return RunStore.open(args.db) if args.db else None


def _run_simulation(game: Any, batch: dict[str, Any], store: Any, *, progress: bool) -> Any:
    """run_batch, with a progress bar on a terminal (games of a resumed batch that are
    already recorded count as done)."""
    from cardlang.runs.progress import games_bar
    from cardlang.runs.simulate import run_batch

    with games_bar(game.name, batch["games"], enabled=progress) as bar:
        if bar is None:
            return run_batch(game, store=store, **batch)
        return run_batch(
            game,
            store=store,
            on_game=lambda r: bar.advance(1),
            on_resume=bar.advance,
            **batch,
        )


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
    if s.db is not None:
        played = s.games - s.stored
        table.add_row("recorded in", f"{s.db}, batch {s.batch_id}")
        table.add_row("played now / from earlier runs", f"{played} / {s.stored}")
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
    _print_strength(console, s)
    if len(s.turns_histogram) > 1 and len(s.wins) == 1:  # solo: the distribution of turns
        _print_turns_histogram(console, s.turns_histogram)
    if s.errors:
        console.print("[bold red]first error of each kind:[/]")
        for e in s.errors:
            console.print("  " + e, markup=False, highlight=False)


def _print_strength(console: Any, s: Any) -> None:
    """Win share per agent with its 95% interval, when the seats' agents differ."""
    from rich.table import Table

    strength = s.strength()
    if not strength:
        return
    even = 1 / max(1, len(s.wins))
    table = Table(
        title=f"strength per agent: win share per seat (even: {even:.0%}), 95% interval",
        caption="completed games; a shared win counts 1/k; Wilson score interval",
        caption_justify="left",
        title_justify="left",
    )
    for name in ("agent", "games", "seats", "wins", "win share", "95% interval"):
        table.add_column(name, justify="left" if name == "agent" else "right")
    for spec, row in strength.items():
        table.add_row(
            spec,
            str(row["games"]),
            str(row["seats"]),
            f"{row['credits']:.2f}",
            f"{row['share']:.1%}",
            f"{row['ci_low']:.1%} - {row['ci_high']:.1%}",
        )
    console.print(table)


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
    from cardlang.compiler.load import load_game
    from cardlang.engine.gamemaster import Limits
    from cardlang.runs.simulate import agent_seeds, parse_agent_specs, play_game
    from cardlang.runs.transcript import render_transcript

    if args.db is not None:
        return _replay_recorded(args)
    if args.game is not None or args.force:
        raise UsageError("--game and --force replay a recorded game: they need --db FILE")
    if args.file is None:
        raise UsageError("transcript needs a game FILE (or --db FILE --game ID)")
    seed = 0 if args.seed is None else args.seed
    game = load_game(args.file, params=parse_param_args(args.param))
    specs = parse_agent_specs(args.agents, game.nplayers)
    seeds = agent_seeds(seed, len(specs))
    agents = [make_agent(spec, s) for spec, s in zip(specs, seeds, strict=True)]
    master = game.master(Limits(args.max_decisions, args.max_steps))
    result, st = play_game(master, agents, seed, record=True)
    print(render_transcript(game, st, result, specs))
    return EXIT_OK


def _replay_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="FILE",
        help="replay a game recorded by 'simulate --db' with its recorded seed, agents, "
        "parameters and limits (without --game: list the recorded games)",
    )
    p.add_argument("--game", type=_positive, metavar="ID", help="the recorded game to replay")
    p.add_argument(
        "--force",
        action="store_true",
        help="replay even if the game file changed since the game was recorded",
    )


def _replay_recorded(args: argparse.Namespace) -> int:
    """Replay a recorded game from its seed and recorded choices (no agent is asked), or
    list the recorded games.  The game file must be the recorded text unless --force."""
    from cardlang.runs.records import RunStore, load_recorded_game, replay_game
    from cardlang.runs.transcript import render_transcript

    if args.seed is not None or args.agents or args.param:
        raise UsageError(
            "--db replays a recorded game with its own seed, agents and parameters: "
            "leave out --seed, --agents and --param"
        )
    with RunStore.open(args.db, create=False) as store:
        if args.game is None:
            _print_listing(store)
            return EXIT_OK
        stored = store.game(args.game)
        choices = store.choices(stored.id)
    if stored.status != "done":
        raise UsageError(
            f"game {stored.id} of {args.db} has not been played yet: its batch was "
            "interrupted; run the same simulate command again to finish it"
        )
    game, same_text = load_recorded_game(stored, args.file)
    if not same_text:
        change = (
            f"{game.source.name} has changed since game {stored.id} was recorded "
            f"(its SHA-256 differs from the recorded {stored.game_sha256[:12]}...)"
        )
        if not args.force:
            raise UsageError(f"{change}; pass --force to replay it anyway")
        print(f"cardlang: warning: {change}", file=sys.stderr)
    result, st = replay_game(game, stored, choices)
    print(render_transcript(game, st, result, list(stored.agents)))
    return EXIT_OK


def _print_listing(store: Any) -> None:
    """One line per recorded game: what --game takes, and enough to pick one."""
    rows = store.listing()
    print(f"{store.path}: {len(rows)} games")
    print(f"{'id':>6} {'batch':>5} {'#':>5} {'seed':>20}  {'end':<17} {'dec':>5}  agents: scores")
    for gid, batch, idx, seed, status, end, decisions, agents, scores, _ in rows:
        end = end or status
        agents_text = ",".join(json.loads(agents))
        tail = f"{agents_text}: {scores}" if scores else agents_text
        print(f"{gid:>6} {batch:>5} {idx:>5} {seed:>20}  {end:<17} {decisions or 0:>5}  {tail}")


if __name__ == "__main__":
    sys.exit(main())


# ---------------------------------------------------------------- describe


def cmd_describe(args: argparse.Namespace) -> int:
    from rich.console import Console

    from cardlang.compiler.load import load_game
    from cardlang.information.describe import description, print_tables

    game = load_game(args.file, params=parse_param_args(args.param))
    if args.json:
        print(json.dumps(description(game), indent=2))
    else:  # piped into a file: wide rows rather than wrapped ones
        print_tables(game, Console(width=None if sys.stdout.isatty() else 160))
    return EXIT_OK
