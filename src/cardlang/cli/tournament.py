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
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cardlang.cli.names import agent_labels, legend
from cardlang.cli.options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    SubParsers,
    engine_of,
    engine_option,
    limit_options,
    limits_of,
    non_negative,
    output_file,
    param_option,
    positive_up_to,
    seed_option,
    whole,
    workers_count,
)
from cardlang.errors import UsageError

if TYPE_CHECKING:
    from cardlang.engine.game import Game
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
        "out of time or memory, answers illegal moves or breaks the protocol of its channel "
        "forfeits the game.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--agents",
        required=True,
        help="the agents, comma separated (built-in names, bot files, path/to/file.py:Class), "
        "parameters after colons: random,ismcts:iterations=200,my.py:MyAgent",
    )
    p.add_argument(
        "--games",
        type=positive_up_to(MAX_GAMES_PER_PAIRING, "games per pairing"),
        default=10,
        help="games per pairing (10)",
    )
    seed_option(p)
    p.add_argument(
        "--workers", type=workers_count, default=1, metavar="K", help="games played at once (1)"
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
        type=_megabytes,
        default=2048,
        metavar="MB",
        help="memory an agent's worker may take beyond its start-up, in MB, from 1 to "
        f"{MAX_MEMORY_MB:,}; 'none': no limit (2048)",
    )
    p.add_argument(
        "--illegal-retries",
        type=_retries,
        default=0,
        metavar="K",
        help=f"illegal answers refused and asked again before the agent forfeits, 0 to "
        f"{MAX_RETRIES} (0)",
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
        type=_secret,
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


#: Bounds of the sandbox's options.  Each is far past any real use; a larger value is a
#: typo or an attack on the tournament itself (a billion retries let one agent stall
#: every game; a day per decision is no limit at all).
MAX_SECONDS = 86_400.0
MAX_MEMORY_MB = 1 << 20  # 1 TiB
MAX_RETRIES = 100
#: Hex digits of a --secret: 512 bits is four times what the seeds need; the check of
#: its digits (runs/tournament.py) would otherwise read a number of any length.
MAX_SECRET_DIGITS = 128
#: Games of one pairing, and of a whole tournament: its plan is made in memory before
#: the first game.
MAX_GAMES_PER_PAIRING = 1_000_000
MAX_TOURNAMENT_GAMES = 10_000_000


def _seconds(text: str) -> float:
    """A time limit: seconds > 0, at most a day."""
    value = non_negative(text)
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds > 0 and at most {MAX_SECONDS:g}, got {value:g}"
        )
    return value


def _megabytes(text: str) -> int:
    """--memory-limit: MB from 1 to ``MAX_MEMORY_MB``, or ``none`` (0 inside: no limit).
    0 is refused: it read as "no memory" and meant "no limit"."""
    if text.strip().lower() == "none":
        return 0
    value = whole(text)
    if not 1 <= value <= MAX_MEMORY_MB:
        raise argparse.ArgumentTypeError(
            f"expected MB from 1 to {MAX_MEMORY_MB:,} (or 'none' for no limit), got {value:,}"
        )
    return value


def _retries(text: str) -> int:
    """--illegal-retries: 0 to ``MAX_RETRIES``."""
    value = whole(text)
    if value > MAX_RETRIES:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_RETRIES} retries, got {value:,}")
    return value


def _secret(text: str) -> str:
    """--secret: its length bounded here; its digits are checked with the records'."""
    if len(text.strip()) > MAX_SECRET_DIGITS:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_SECRET_DIGITS} hex digits, got {len(text.strip()):,}"
        )
    return text


def _check_size(agents: int, players: int, games: int) -> None:
    """Refuse a tournament of more than ``MAX_TOURNAMENT_GAMES`` games (every
    ``players``-subset of the agents, ``games`` each): its plan is made before it starts."""
    total = math.comb(agents, players) * games if agents >= players else 0
    if total > MAX_TOURNAMENT_GAMES:
        raise UsageError(
            f"{agents} agents in groups of {players}, --games {games} each: {total:,} games, "
            f"more than the {MAX_TOURNAMENT_GAMES:,} a tournament may plan"
        )


def _check_builtin_agents(agents: list[str], game: Game) -> None:
    """A built-in agent that cannot play the game at all (a neural model that cannot
    load, or learnt another game) is a usage error before the first game, not a forfeit
    of each of its games.  Agents from files are not made here: their code runs only in
    their jailed workers."""
    from cardlang.agents.registry import check_ready
    from cardlang.runs.sandbox import is_sandboxed

    check_ready([spec for spec in agents if not is_sandboxed(spec)], game)


def cmd_tournament(args: argparse.Namespace) -> int:
    from cardlang.compiler.load import load_game
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
    _check_size(len(agents), game.nplayers, args.games)
    _check_builtin_agents(agents, game)
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
                limits=limits_of(args),
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
    from rich.text import Text

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
    labels = agent_labels(ratings)
    columns = ("", "agent", "rating", "95% interval", "games", "score", "payoff", "forfeits")
    for name in columns:
        left = name in ("agent", "forfeits")  # a long spec folds rather than being cut
        figure = name in ("rating", "95% interval", "games", "score")  # one line each
        table.add_column(name, justify="left" if left else "right", overflow="fold", no_wrap=figure)
    partial = False  # a payoff over only the games its agent finished
    notes: list[str] = []  # the forfeits' messages, printed under the table
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
        if pay["seats"] and forfeits[spec]:
            payoff += " *"
            partial = True
        lost = (
            "\n".join(
                f"{kind}: {count} [{_note(notes, messages[spec].get(kind))}]"
                for kind, count in forfeits[spec].items()
            )
            or "-"
        )
        score = "-" if row["score"] is None else f"{row['score']:.1%}"
        table.add_row(
            letters[spec],
            Text(labels[spec]),  # plain text: no rich markup in a spec or an agent's words
            f"{row['rating']:.0f}",
            f"{row['ci_low']:.0f} to {row['ci_high']:.0f}",
            str(row["games"]),
            score,
            payoff,
            Text(lost),
        )
    console.print(table)
    for n, message in enumerate(notes, 1):  # long words under the table, not in a cell
        console.print(Text(f"[{n}] {message}"))
    if partial:
        console.print(
            "* over the games the agent finished: the games it forfeited are not in its "
            "payoff (they count as losses in its rating and score)"
        )
    for line in legend(labels):
        console.print(Text(line), soft_wrap=True)
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


def _note(notes: list[str], message: str | None) -> int:
    """A forfeit's message as a note number (the same message, the same number)."""
    text = message or "no message"
    if text not in notes:
        notes.append(text)
    return notes.index(text) + 1


def _print_details(r: TournamentResult) -> None:
    """--debug: the whole recorded text (a crash's traceback among the agent's words,
    made safe to print) of each agent's first forfeit of each kind."""
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
