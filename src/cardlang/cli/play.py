"""``cardlang play FILE [--seat N] [--agents ...]``: play a seat yourself, in a terminal.

Pipeline position: the command line (cli/), the terminal face of cardlang.interactive.
You see only your seat's view and the others' moves as they make them; you choose by
number or by words of an option's label, and ``?`` asks the advisor (a search agent) for
each option's value.  The finished game goes into the records like any batch (``--db``,
by default the user's records file that cli/records.py places), where ``transcript
--game ID`` replays it and ``fit-opponent`` learns from it.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardlang.cli.options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    SubParsers,
    engine_of,
    engine_option,
    fresh_seed,
    limit_options,
    limits_of,
    load_game_and_text,
    param_option,
    seed_option,
)
from cardlang.errors import UsageError

__all__ = ["add_parser", "cmd_play"]


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser(
        "play",
        help="play a seat yourself in the terminal, against agents",
        description="Play one game: you see only your seat's view; choose by number or by "
        "words of an option's label, ? for the advisor's estimates, q to leave. The game "
        "is recorded like any batch.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--seat", type=int, default=0, help="your seat (0)")
    p.add_argument(
        "--agents",
        default="random",
        help="the other seats' agents: one for all, or one per other seat in seat order (random)",
    )
    person_game_options(p, advice="the agent whose estimates ? shows")


def person_game_options(p: argparse.ArgumentParser, *, advice: str) -> None:
    """What ``play`` and ``serve`` share: the advisor (``advice`` says where its estimates
    show), the records, the seed, parameters, engine and limits."""
    from cardlang.cli.records import RECORDS_RULE

    p.add_argument(
        "--advisor",
        default=None,
        metavar="SPEC",
        help=f"{advice} (the strongest for the game: ISMCTS with the game's bot rollouts "
        "where a scripted bot plays it, ismcts:iterations=3000:rollout=bmu for Dominion; "
        "else ismcts:iterations=1000)",
    )
    p.add_argument(
        "--db", type=Path, metavar="FILE", help=f"the records file (default: {RECORDS_RULE})"
    )
    p.add_argument("--no-record", action="store_true", help="keep no record of the game")
    seed_option(p, default=None, text="the game's seed (a fresh deal each time, printed)")
    param_option(p)
    engine_option(p)
    limit_options(p)


def cmd_play(args: argparse.Namespace) -> int:
    from cardlang.agents import make_agent
    from cardlang.agents.registry import agent_warnings
    from cardlang.interactive import Abandoned, PersonSeat, Session
    from cardlang.interactive.session import PERSON, Seating, default_advisor
    from cardlang.interactive.table import seat_view, table_of
    from cardlang.interactive.terminal import (
        TerminalFront,
        TerminalStory,
        render_result,
        render_table,
        wrap_items,
    )
    from cardlang.language.params import parse_param_args
    from cardlang.runs.ending import ending_of
    from cardlang.runs.planned import agent_seeds

    game, text = load_game_and_text(args.file, args.param, **engine_of(args))
    args.db = records_ready(args)
    args.seed = fresh_seed(args.seed)
    if not 0 <= args.seat < game.nplayers:
        raise UsageError(f"--seat {args.seat}: the game has seats 0 to {game.nplayers - 1}")
    others = other_specs(args.agents, game.nplayers - 1)
    args.advisor = args.advisor or default_advisor(game)
    make_agent(args.advisor, seed=0)  # a bad advisor spec is a usage error now, not at "?"
    for line in agent_warnings(others, game):
        print(f"warning: {line}", file=sys.stderr)
    master = game.master(limits_of(args))
    session = Session(master, args.seed, advisor=args.advisor)
    front = TerminalFront()
    story = TerminalStory(session, args.seat, front.say)
    session.narrate = story.narrate  # the others' moves, as the seat may know them
    front.catch_up = story.catch_up
    seeds = agent_seeds(args.seed, game.nplayers)
    specs = others[: args.seat] + [PERSON] + others[args.seat :]
    agents = [
        PersonSeat(front, session) if s == PERSON and p == args.seat else make_agent(s, seeds[p])
        for p, s in enumerate(specs)
    ]
    seating = Seating(agents, specs)
    front.say(
        f"{Path(args.file).name}: you are P{args.seat}, seed {args.seed}; "
        f"advisor {args.advisor}; h for help"
    )
    seats = [_seat_line(p, s, args.seat) for p, s in enumerate(specs)]
    front.say("\n".join(wrap_items("players: ", seats)))
    try:
        result = session.play(seating)
        story.catch_up()
    except Abandoned:
        front.say("\nyou left the game; nothing was recorded")
        return EXIT_INTERRUPTED
    final = table_of(seat_view(session.st, args.seat, game), ())
    # the whole Supply at the end
    front.say(render_table(final, "--- the table at the end ---", front.piles, front.symbols))
    front.say(render_result(result, ending_of(session.master, session.st, game), args.seat))
    if args.db is not None:
        game_id = session.save(
            args.db,
            seating,
            game_path=Path(args.file),
            game_text=text,
            params=parse_param_args(args.param),
        )
        front.say(
            f"recorded as game {game_id} in {args.db} "
            f"(replay: cardlang transcript --db {args.db} --game {game_id})"
        )
    return EXIT_OK


def records_ready(args: argparse.Namespace) -> Path | None:
    """The records file the game goes into (None with --no-record): --db, else the
    user's records file, its folder made.  Checked before the game that it can be
    written, so that a person's game is not lost at its end to a bad --db."""
    from cardlang.cli.records import records_to_write
    from cardlang.runs.store import RunStore

    if args.no_record:
        return None
    db = records_to_write(args.db)
    RunStore.open(db).close()
    return db


def other_specs(text: str, count: int) -> list[str]:
    """The agents of the ``count`` seats no person plays (``--agents``)."""
    from cardlang.agents.specs import specs_per_seat

    return specs_per_seat(
        text,
        count,
        "--agents names {found} agents; the other seats are {count}: name one for all, "
        "or one per other seat",
    )


def _seat_line(seat: int, spec: str, yours: int) -> str:
    """A seat as the opening lines name it: its short name, the whole spec beside."""
    from cardlang.agents.specs import short_name
    from cardlang.interactive.teller import seat_name

    if seat == yours:
        return f"P{seat} (you)"
    said = short_name(spec).lower() in (spec.lower(), spec.lower().replace("-", " "))
    return seat_name(seat, spec) + ("" if said else f" ({spec})")
