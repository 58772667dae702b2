"""``cardlang tournament FILE --agents A,B,C --games N``: agents against each other, rated.

Pipeline position: the command line (cli/), above ``cardlang.runs.tournament``: the game
is loaded, the tournament played (every pairing, seats rotated, each agent in a worker
process under the sandbox's limits; recorded and resumable with --db), and the ratings
with their intervals, the forfeits and the cross table printed as tables or JSON, with a
plot on request.  ``main`` dispatches here.

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
    engine_of,
    engine_option,
    limit_options,
    non_negative,
    output_file,
    param_option,
    positive,
    seed_option,
    whole,
)
from cardlang.errors import UsageError

if TYPE_CHECKING:
    from cardlang.runs.tournament import TournamentResult

__all__ = ["add_parser", "cmd_tournament"]


def add_parser(sub: SubParsers) -> None:
    """The ``tournament`` subcommand's arguments."""
    p = sub.add_parser(
        "tournament",
        help="play agents against each other in sandboxes and rate them",
        description="Every pairing of the agents (every P-subset for a P-player game), "
        "seats rotated, N games each; each agent runs in a worker process of its own, an "
        "agent from a file sees only its view as plain data. An agent that crashes, runs "
        "out of time or memory or answers illegal moves forfeits the game.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--agents",
        required=True,
        help="the agents, comma separated (built-in names, bot files, path/to/file.py:Class), "
        "parameters after colons: random,ismcts:iterations=200,my.py:MyAgent",
    )
    p.add_argument("--games", type=positive, default=10, help="games per pairing (10)")
    seed_option(p)
    p.add_argument(
        "--workers", type=positive, default=1, metavar="K", help="games played at once (1)"
    )
    p.add_argument("--db", metavar="FILE", help="record the games here; the same command resumes")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--by",
        choices=("rating", "score"),
        default="rating",
        help="order the table by the rating from wins and losses, or by each agent's mean "
        "payoff per game, its score (chips in poker; less is better where the game scores "
        "min) with a 95%% interval (rating)",
    )
    p.add_argument(
        "--plot",
        metavar="PNG",
        type=output_file,
        help="draw the ratings and the cross table (matplotlib)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--time-limit",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="seconds an agent may take for one decision (10)",
    )
    p.add_argument(
        "--memory-limit",
        type=whole,
        default=2048,
        metavar="MB",
        help="memory an agent's worker may take beyond its start-up, in MB; 0: no limit (2048)",
    )
    p.add_argument(
        "--illegal-retries",
        type=whole,
        default=0,
        metavar="K",
        help="illegal answers refused and asked again before the agent forfeits (0)",
    )
    p.add_argument(
        "--init-time-limit",
        type=_seconds,
        metavar="SECONDS",
        help="seconds an agent may take to load its file, and to make the agent of a game "
        "(default: --time-limit)",
    )
    p.add_argument(
        "--secret",
        metavar="HEX",
        help="the key the games' and the agents' seeds are derived under (32+ hex digits); "
        "default: a fresh one, kept in the records (--db) and printed with the results. "
        "The same --seed and --secret give the same games",
    )
    p.add_argument(
        "--no-jail",
        action="store_true",
        help="run agents from files as plain processes of your user, not in a jail "
        "(bubblewrap): they can then read whatever you can. Only for agents you trust",
    )
    p.add_argument(
        "--agent-logs",
        metavar="DIR",
        help="keep what each agent prints here, a capped file per agent (default: DB.logs "
        "next to --db; without --db, nowhere)",
    )
    param_option(p)
    engine_option(p)
    limit_options(p)


def _seconds(text: str) -> float:
    value = non_negative(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {value}")
    return value


def cmd_tournament(args: argparse.Namespace) -> int:
    from cardlang.compiler.load import load_game
    from cardlang.engine.gamemaster import Limits
    from cardlang.language.params import parse_param_args
    from cardlang.runs.progress import games_bar
    from cardlang.runs.sandbox import SandboxLimits, harden_parent
    from cardlang.runs.store import RunStore
    from cardlang.runs.tournament import run_tournament, seatings

    params = parse_param_args(args.param)
    game = load_game(args.file, params=params, **engine_of(args))
    agents = [s.strip() for s in args.agents.split(",") if s.strip()]
    sandbox = SandboxLimits(
        time_limit=args.time_limit,
        memory_limit=args.memory_limit or None,
        illegal_retries=args.illegal_retries,
        init_time_limit=args.init_time_limit,
        jail=not args.no_jail,
    )
    harden_parent()
    store = RunStore.open(args.db) if args.db else None
    total = len(seatings(agents, game.nplayers, args.games)) if len(agents) >= game.nplayers else 0
    try:
        with games_bar(game.name, total, enabled=not args.quiet) as bar:
            result = run_tournament(
                game,
                agents=agents,
                games=args.games,
                seed=args.seed,
                sandbox=sandbox,
                limits=Limits(args.max_decisions, args.max_steps, args.max_work),
                store=store,
                params=params,
                workers=args.workers,
                on_game=None if bar is None else (lambda r: bar.advance(1)),
                on_resume=None if bar is None else bar.advance,
                secret=args.secret,
                log_dir=Path(args.agent_logs) if args.agent_logs else None,
            )
    finally:
        if store is not None:
            store.close()
    if args.json:
        data = result.to_json()
        if getattr(args, "debug", False):
            data["forfeit_details"] = result.forfeit_details()
        print(json.dumps(data, indent=2))
    else:
        _print_result(result, args.by)
        if getattr(args, "debug", False):
            _print_details(result)
    if result.logs:
        shown = ", ".join(f"{spec}: {path}" for spec, path in result.logs.items())
        print(f"cardlang: what agents printed is kept in their logs ({shown})", file=sys.stderr)
    print(
        f"cardlang: this tournament's secret is {result.secret} (--seed {result.seed} "
        f"--secret {result.secret} plays the same games again)",
        file=sys.stderr,
    )
    if args.plot:
        _plot(result, Path(args.plot))
    if result.from_db:
        print(
            f"cardlang: tournament {result.batch_id} of {result.db} resumed: "
            f"{result.from_db} games were recorded by earlier runs",
            file=sys.stderr,
        )
    if result.interrupted:
        print(
            f"cardlang: interrupted after {len(result.records)} of {result.planned} games"
            + (" (rerun the same command to resume)" if args.db else ""),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return EXIT_OK


def _print_result(r: TournamentResult, by: str = "rating") -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    counts = r.counts()
    ratings = r.ratings()
    forfeits = r.forfeits()
    messages = r.forfeit_messages()
    table = Table(
        title=f"{r.game}: {counts['played']} of {counts['planned']} games "
        f"({r.games_per_pairing} per pairing, seats rotated)",
        caption="Bradley-Terry (a draw counts half), Elo scale centred on 0, 95% interval; "
        "payoff: the mean score per game (negated where less is better), 95% interval; "
        f"completed {counts['completed']}, forfeited {counts['forfeits']}, failed "
        f"{counts['failed']}, cut off {counts['cutoff']}",
        caption_justify="left",
        title_justify="left",
    )
    payoffs = r.payoffs()
    columns = ("", "agent", "rating", "95% interval", "games", "score", "payoff", "forfeits")
    for name in columns:
        left = name in ("agent", "forfeits")  # a long spec folds rather than being cut
        table.add_column(name, justify="left" if left else "right", overflow="fold")
    letters = {spec: _letter(i) for i, spec in enumerate(ratings)}
    order = list(payoffs) if by == "score" else list(ratings)
    for spec in order:
        row = ratings[spec]
        pay = payoffs[spec]
        payoff = (
            f"{pay['mean']:+.3f} ({pay['ci_low']:+.3f} to {pay['ci_high']:+.3f})"
            if pay["seats"]
            else "-"
        )
        lost = (
            "\n".join(
                f"{kind}: {count} ({messages[spec].get(kind) or 'no message'})"
                for kind, count in forfeits[spec].items()
            )
            or "-"
        )
        score = "-" if row["score"] is None else f"{row['score']:.1%}"
        table.add_row(
            letters[spec],
            spec,
            f"{row['rating']:.0f}",
            f"{row['ci_low']:.0f} - {row['ci_high']:.0f}",
            str(row["games"]),
            score,
            payoff,
            lost,
        )
    console.print(table)
    cross = r.cross_table()
    order = list(ratings)
    # the title above the table, not in it: a narrow table would fold it
    console.print("cross table: the row agent's points against the column agent / games")
    grid = Table()
    grid.add_column("")  # agents by their letters in the table above
    for spec in order:
        grid.add_column(letters[spec], justify="right")
    for a in order:
        cells = []
        for b in order:
            cell = cross[a].get(b)
            cells.append("" if cell is None else f"{cell['score']:g}/{cell['games']}")
        grid.add_row(letters[a], *cells)
    console.print(grid)


def _print_details(r: TournamentResult) -> None:
    """--debug: the whole recorded text (a crash's traceback) of each agent's first
    forfeit of each kind."""
    for spec, kinds in r.forfeit_details().items():
        for kind, text in kinds.items():
            print(f"--- {spec}: first forfeit ({kind}) ---\n{text}")


def _letter(i: int) -> str:
    """A, B, ..., Z, then AA, AB, ...: an agent's short name in the tables."""
    return _letter(i // 26 - 1) + chr(65 + i % 26) if i >= 26 else chr(65 + i)


def _plot(r: TournamentResult, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install cardlang[plot]") from None
    ratings = r.ratings()
    order = list(ratings)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, max(4, 0.6 * len(order) + 3)), layout="constrained"
    )
    ys = list(range(len(order)))[::-1]
    values = [ratings[a]["rating"] for a in order]
    lows = [ratings[a]["rating"] - ratings[a]["ci_low"] for a in order]
    highs = [ratings[a]["ci_high"] - ratings[a]["rating"] for a in order]
    left.errorbar(values, ys, xerr=[lows, highs], fmt="o", capsize=4)
    left.set_yticks(ys, order)
    left.axvline(0, color="grey", linewidth=0.5)
    left.set_xlabel("rating (Elo scale, 95% interval)")
    cross = r.cross_table()
    shares = [
        [
            cross[a][b]["score"] / cross[a][b]["games"] if b in cross[a] else float("nan")
            for b in order
        ]
        for a in order
    ]
    image = right.imshow(shares, vmin=0, vmax=1, cmap="RdYlGn")
    right.set_xticks(range(len(order)), order, rotation=45, ha="right")
    right.set_yticks(range(len(order)), order)
    right.set_title("score share, row against column")
    fig.colorbar(image, ax=right)
    fig.suptitle(f"{r.game}: tournament")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
