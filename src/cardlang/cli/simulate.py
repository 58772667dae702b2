"""``cardlang simulate FILE``: play many games and summarise them.

Pipeline position: the command line (cli/), above the batches of cardlang.runs: the game
is loaded, its agents checked, and ``run_batch`` plays the games (with a progress bar on
a terminal, on the backend --backend/--workers choose, recorded with --db, or with --keep
in the user's records file that cli/records.py places); the summary is printed as tables
(wins per seat, strength per agent, turns) or as JSON.  Ctrl-C still prints the summary
of the games finished, then exits with 130.  ``main`` dispatches here.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cardlang.cli.names import agent_labels, legend
from cardlang.cli.options import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    SubParsers,
    backend_choice,
    backend_options,
    engine_of,
    engine_option,
    limit_options,
    limits_of,
    param_option,
    positive,
    seed_option,
)
from cardlang.errors import UsageError
from cardlang.language.params import parse_param_args

if TYPE_CHECKING:  # imported when used: `cardlang check` loads none of it
    from rich.console import Console

    from cardlang.engine.game import Game
    from cardlang.engine.gamemaster import GameResult
    from cardlang.runs.statistics import BatchSummary
    from cardlang.runs.store import RunStore

__all__ = ["add_parser", "cmd_simulate"]


def add_parser(sub: SubParsers) -> None:
    """The ``simulate`` subcommand's arguments."""
    sim = sub.add_parser("simulate", help="play many games and summarise them")
    sim.add_argument("file", metavar="FILE")
    sim.add_argument("--games", type=positive, default=100, help="games to play (100)")
    seed_option(sim)
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
    sim.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object (with each agent\'s figures per card: "cards")',
    )
    sim.add_argument(
        "--cards",
        action="store_true",
        help="also show each agent's buys, plays and win share per card it bought "
        "(games with a BUY-PHASE, as Dominion's)",
    )
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    param_option(sim)
    engine_option(sim)
    limit_options(sim)
    _records_options(sim)
    backend_options(sim)


#: The most games a batch recorded with --db may have: every one is planned as a row of
#: the records before the first is played (a tournament's limit too).
MAX_RECORDED_GAMES = 10_000_000


def cmd_simulate(args: argparse.Namespace) -> int:
    from cardlang.agents.registry import agent_warnings, check_ready
    from cardlang.compiler.load import load_game
    from cardlang.runs.simulate import BatchInterrupted, parse_agent_specs

    params = parse_param_args(args.param)
    game = load_game(args.file, params=params, **engine_of(args))
    specs = parse_agent_specs(args.agents, game.nplayers)
    # a bad agent name, or a model that cannot load or learnt another game, is a usage
    # error now, before any game is played (else every game would fail on it alone)
    check_ready(specs, game)
    if (args.db or args.keep) and args.games > MAX_RECORDED_GAMES:  # planned as rows
        raise UsageError(
            f"--games {args.games:,} with records kept: a recorded batch holds at most "
            f"{MAX_RECORDED_GAMES:,} games (each is planned as a row before the first is played)"
        )
    for line in agent_warnings(specs, game):  # a bot that cannot play what it is given
        print(f"warning: {line}", file=sys.stderr)
    batch = {
        "games": args.games,
        "seed": args.seed,
        "agent_specs": specs,
        "limits": limits_of(args),
        "rotate_seats": args.rotate_seats,
        "params": params,
        "cards": args.json or args.cards,  # counted where they are shown (and recorded)
    }
    batch["backend"], batch["workers"] = backend_choice(args)
    store = _open_records(args)
    if getattr(args, "debug", False):  # each kind of agent failure's traceback, once
        batch["on_failure"] = _traceback_printer()
    try:
        summary = _run_simulation(game, batch, store, progress=not args.quiet)
    except BatchInterrupted as stop:  # Ctrl-C: the games finished so far are summarised
        summary = stop.summary
    finally:
        if store is not None:
            store.close()
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        _print_summary(summary)
        if args.cards:
            _print_cards(summary)
    if summary.stored:
        print(
            f"cardlang: batch {summary.batch_id} of {summary.db} resumed: "
            f"{summary.stored} games were recorded by earlier runs, "
            f"{summary.games - summary.stored} played now; the summary covers them all",
            file=sys.stderr,
        )
    if summary.planned > args.games:
        print(
            f"cardlang: batch {summary.batch_id} of {summary.db} holds {summary.planned} "
            f"games, more than --games {args.games}: all of them are counted (another "
            "--seed makes another batch)",
            file=sys.stderr,
        )
    if summary.games < summary.planned:
        resume = " (rerun the same command to resume)" if store is not None else ""
        print(
            f"cardlang: interrupted after {summary.games} of {summary.planned} games "
            f"(the summary covers those){resume}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return EXIT_ERROR if summary.failed else EXIT_OK  # a rule error is a failed run


def _records_options(p: argparse.ArgumentParser) -> None:
    from cardlang.cli.records import RECORDS_RULE

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
        help=f"like --db with your records file: {RECORDS_RULE} (the folder is made "
        "if missing; the summary says where)",
    )


def _open_records(args: argparse.Namespace) -> RunStore | None:
    """The RunStore that --db or --keep names (--keep: the user's one records file,
    wherever the command runs), or None."""
    from cardlang.cli.records import records_to_write
    from cardlang.runs.store import RunStore

    if args.keep:
        return RunStore.open(records_to_write(None))
    return RunStore.open(args.db) if args.db else None


def _run_simulation(
    game: Game, batch: dict[str, Any], store: RunStore | None, *, progress: bool
) -> BatchSummary:
    """run_batch, with a progress bar on a terminal (games of a resumed batch that are
    already recorded count as done)."""
    from cardlang.runs.progress import games_bar
    from cardlang.runs.simulate import run_batch

    batch = dict(batch)
    on_failure = batch.pop("on_failure", None)
    with games_bar(game.name, batch["games"], enabled=progress) as bar:

        def on_game(result: GameResult) -> None:
            if bar is not None:
                bar.advance(1)
            if on_failure is not None and result.error is not None:
                on_failure(result.error)

        return run_batch(
            game,
            store=store,
            on_game=on_game if bar is not None or on_failure is not None else None,
            on_resume=bar.advance if bar is not None else None,
            **batch,
        )


def _traceback_printer() -> Callable[[Any], None]:
    """With --debug: print the traceback of the first agent failure of each kind (an
    agent's own traceback, made where it failed: in a worker process too)."""
    from cardlang.errors import AgentError

    seen: set[str] = set()

    def show(error: Any) -> None:
        if isinstance(error, AgentError) and error.kind() not in seen:
            seen.add(error.kind())
            print(f"cardlang: agent error: {error.render(debug=True)}", file=sys.stderr)

    return show


def _print_summary(s: BatchSummary) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    table = Table(title=f"{s.game}: {s.games} games", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value", justify="right", overflow="fold")  # a path whole, if long
    table.add_row("games", str(s.games))
    table.add_row("completed", str(s.completed))
    failed = str(s.failed)
    if s.agent_failures:
        by_agent = ", ".join(f"{spec}: {n}" for spec, n in s.agent_failures.items())
        failed += f" (by agents: {by_agent})"
    table.add_row("failed", Text(failed))  # Text: a spec's ':name:' is no emoji code
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
    labels = agent_labels([*s.agents, *s.strength()])
    seats = Table(title="wins per seat (a shared win counts 1/k)", title_justify="left")
    seats.add_column("seat", no_wrap=True)
    seats.add_column("agent", overflow="fold")  # folded, never cut
    seats.add_column("wins", justify="right", no_wrap=True)
    seats.add_column("share of completed", justify="right")
    seats.add_column("mean score", justify="right", no_wrap=True)
    scores = s.seat_mean_scores()
    for seat, wins in enumerate(s.wins):
        share = wins / s.completed if s.completed else 0.0
        agent = "rotated" if s.rotate_seats else labels[s.agents[seat]]
        score = _score_text(scores[seat]) if seat < len(scores) else "-"
        seats.add_row(f"P{seat}", agent, f"{wins:.2f}", f"{share:.1%}", score)
    console.print(seats)
    _print_strength(console, s, labels)
    for line in legend(labels):
        console.print(Text(line), soft_wrap=True)
    if len(s.turns_histogram) > 1 and len(s.wins) == 1:  # solo: the distribution of turns
        _print_turns_histogram(console, s.turns_histogram)
    if s.errors:
        console.print("[bold red]first error of each kind:[/]")
        for e in s.errors:
            console.print("  " + e, markup=False, highlight=False)


def _print_strength(console: Console, s: BatchSummary, labels: dict[str, str]) -> None:
    """Win share per agent with its 95% interval, when the seats' agents differ: each
    figure on one line (80 columns hold it), an agent by its table name."""
    from rich.table import Table
    from rich.text import Text

    strength = s.strength()
    if not strength:
        return
    even = 1 / max(1, len(s.wins))
    table = Table(
        title=f"strength per agent: win share per seat (even: {even:.0%}), 95% interval",
        caption="completed games; a shared win counts 1/k; Wilson score interval; mean score "
        "per seat ± its 95% normal interval",
        caption_justify="left",
        title_justify="left",
    )
    # an agent in one seat of each of its games: its seats are its games
    one_seat = all(row["seats"] == row["games"] for row in strength.values())
    every = ("agent", "games", "seats", "wins", "win share", "95% interval", "mean score")
    columns = [c for c in every if not (one_seat and c == "seats")]
    for name in columns:
        if name == "agent":
            table.add_column(name, overflow="fold")
        else:
            table.add_column(name, justify="right", no_wrap=True)
    scores = s.mean_scores()
    for spec, row in strength.items():
        seats = [] if one_seat else [str(row["seats"])]
        table.add_row(
            Text(labels.get(spec, spec)),
            str(row["games"]),
            *seats,
            f"{row['credits']:.2f}",
            f"{row['share']:.1%}",
            f"{100 * row['ci_low']:.1f}-{100 * row['ci_high']:.1f}%",
            _score_text(scores[spec]) if spec in scores else "-",
        )
    console.print(table)


def _print_cards(s: BatchSummary) -> None:
    """Per agent, each card it bought or played: buys and plays per game, the share of
    its games it bought the card in, and its win share with and without it (95%)."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    totals = s.cards.to_json() if s.cards is not None else {}
    if "buys_in" not in totals:
        console.print("no buys to show: this game has no BUY-PHASE (--json has its picks)")
        return
    for spec, figures in totals["by_agent"].items():
        table = Table(
            title=f"{spec}: per card, over {figures['seats']} seats of completed games",
            caption="win share: its seats that bought the card, and the others, with 95% "
            "Wilson intervals; plays: cards chosen to be played (Treasures not)",
            caption_justify="left",
            title_justify="left",
        )
        for name in ("card", "buys/game", "plays/game", "bought in", "won, bought",
                     "won, not"):  # fmt: skip
            table.add_column(name, justify="left" if name == "card" else "right")
        rows = sorted(figures["cards"].items(), key=lambda item: -item[1]["buys_per_game"])
        for card, row in rows:
            table.add_row(
                card,
                f"{row['buys_per_game']:.2f}",
                f"{row['plays_per_game']:.2f}",
                f"{row['bought_share']:.0%}",
                _share_text(row["win_share_bought"]),
                _share_text(row["win_share_not_bought"]),
            )
        console.print(table)


def _share_text(row: dict[str, float]) -> str:
    if not row["seats"]:
        return "-"
    return f"{row['share']:.0%} ({100 * row['ci_low']:.0f}-{100 * row['ci_high']:.0f})"


def _score_text(row: dict[str, float]) -> str:
    """A mean score and the half-width of its 95% interval: "12.40 ± 0.50"."""
    if not row["seats"]:
        return "-"
    return f"{row['mean']:.2f} ± {(row['ci_high'] - row['ci_low']) / 2:.2f}"


def _print_turns_histogram(console: Console, histogram: dict[int, int]) -> None:
    total = sum(histogram.values())
    peak = max(histogram.values())
    console.print("turns taken (completed games)")
    for turns in range(min(histogram), max(histogram) + 1):
        n = histogram.get(turns, 0)
        bar = "#" * max(1 if n else 0, round(40 * n / peak))
        console.print(f"  {turns:4d} {n / total:6.1%} {bar}", markup=False, highlight=False)
