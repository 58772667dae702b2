"""``cardlang transcript FILE``: one game move by move, or a recorded game replayed.

Pipeline position: the command line (cli/), above cardlang.runs: a game is played from
its seed with the agents of --agents and rendered move by move (runs/transcript.py);
with ``--db FILE --game ID`` a game recorded by ``simulate --db`` is replayed from its
seed and recorded choices (runs/replay.py), and ``--db FILE`` alone lists the recorded
games.  ``--game ID`` without ``--db``, or ``--db`` without FILE, reads the user's
records file (cli/records.py), where ``play`` and ``simulate --keep`` record.  ``main``
dispatches here.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
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

if TYPE_CHECKING:  # imported when used
    from cardlang.runs.store import RunStore

__all__ = ["add_parser", "cmd_transcript"]


def add_parser(sub: SubParsers) -> None:
    """The ``transcript`` subcommand's arguments."""
    tr = sub.add_parser(
        "transcript",
        help="play one game and show it move by move, or replay a recorded one (--db)",
    )
    tr.add_argument(
        "file", metavar="FILE", nargs="?", help="the game file (with --db or --game: optional)"
    )
    seed_option(tr, default=None, text="the game's seed (0)")
    tr.add_argument("--agents", default=None, help="as for simulate")
    param_option(tr)
    engine_option(tr)
    limit_options(tr)
    tr.add_argument(
        "--story",
        action="store_true",
        help="tell the game turn by turn in words (who played, drew, bought, revealed; "
        "each choice by its label) instead of the low-level event log",
    )
    tr.add_argument(
        "--as",
        dest="as_seat",
        type=int,
        metavar="SEAT",
        help="tell the story as SEAT saw it: other seats' hidden cards are not named "
        "(implies --story)",
    )
    _replay_options(tr)


def cmd_transcript(args: argparse.Namespace) -> int:
    from cardlang.agents import make_agent
    from cardlang.agents.registry import check_ready
    from cardlang.compiler.load import load_game
    from cardlang.runs.planned import agent_seeds
    from cardlang.runs.runner import play_game
    from cardlang.runs.simulate import parse_agent_specs
    from cardlang.runs.transcript import render_transcript

    if args.db is not None or args.game is not None:
        return _replay_recorded(args)
    if args.force:
        raise UsageError("--force replays a recorded game: it needs --game ID")
    if args.file is None:
        raise UsageError("transcript needs a game FILE (or --game ID, --db FILE --game ID)")
    seed = 0 if args.seed is None else args.seed
    game = load_game(args.file, params=parse_param_args(args.param), **engine_of(args))
    specs = parse_agent_specs(args.agents, game.nplayers)
    check_ready(specs, game)  # a model that cannot load: a usage error, not a failed game
    seeds = agent_seeds(seed, len(specs))
    agents = [make_agent(spec, s) for spec, s in zip(specs, seeds, strict=True)]
    limits = limits_of(args)
    master = game.master(limits)
    if not _wants_story(args, game.nplayers):
        result, st = play_game(master, agents, seed, record=True, names=specs)
        print(render_transcript(game, st, result, specs))
        return EXIT_OK
    from cardlang.runs.runner import Decision
    from cardlang.runs.story import tell_story

    trace: list[Decision] = []
    result, _ = play_game(master, agents, seed, record=True, trace=trace, names=specs)
    choices = [d.option_index for d in trace]
    print(tell_story(game, seed, choices, result, specs, limits, seat=args.as_seat))
    return EXIT_OK


def _wants_story(args: argparse.Namespace, nplayers: int) -> bool:
    """Whether to tell the story (--story, or --as SEAT, checked against the players)."""
    if args.as_seat is not None and not 0 <= args.as_seat < nplayers:
        raise UsageError(f"--as {args.as_seat}: the seats of this game are 0..{nplayers - 1}")
    return bool(args.story or args.as_seat is not None)


#: ``--db`` given without FILE: the user's records file.
_YOUR_RECORDS = True


def _replay_options(p: argparse.ArgumentParser) -> None:
    from cardlang.cli.records import RECORDS_RULE

    p.add_argument(
        "--db",
        nargs="?",
        const=_YOUR_RECORDS,
        metavar="FILE",
        help="replay a game recorded by 'simulate --db' with its recorded seed, agents, "
        "parameters and limits (without --game: list the recorded games); without FILE, "
        f"your records file ({RECORDS_RULE})",
    )
    p.add_argument(
        "--game",
        type=positive,
        metavar="ID",
        help="the recorded game to replay (from --db FILE, else from your records file)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replay even if the game file changed since the game was recorded",
    )


def _replay_recorded(args: argparse.Namespace) -> int:
    """Replay a recorded game from its seed and recorded choices (no agent is asked), or
    list the recorded games.  The game file must be the recorded text unless --force."""
    from cardlang.cli.records import records_to_read
    from cardlang.runs.replay import load_recorded_game, replay_game
    from cardlang.runs.store import RunStore
    from cardlang.runs.transcript import render_transcript

    if args.seed is not None or args.agents or args.param:
        raise UsageError(
            "--db and --game replay a recorded game with its own seed, agents and parameters: "
            "leave out --seed, --agents and --param"
        )
    args.db = records_to_read(args.db if isinstance(args.db, str) else None)
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
    game, same_text = load_recorded_game(stored, args.file, args.engine)
    if not same_text:
        change = (
            f"{game.source.name} has changed since game {stored.id} was recorded "
            f"(its SHA-256 differs from the recorded {stored.game_sha256[:12]}...)"
        )
        if not args.force:
            raise UsageError(f"{change}; pass --force to replay it anyway")
        print(f"cardlang: warning: {change}", file=sys.stderr)
    result, st = replay_game(game, stored, choices)
    if _wants_story(args, game.nplayers):
        from cardlang.runs.story import tell_story

        limits = stored.limits
        indices = [index for _, index, _ in choices]
        story = tell_story(
            game, stored.seed, indices, result, list(stored.agents), limits, seat=args.as_seat
        )
        print(story)
        return EXIT_OK
    print(render_transcript(game, st, result, list(stored.agents)))
    return EXIT_OK


def _print_listing(store: RunStore) -> None:
    """One line per recorded game: what --game takes, and enough to pick one."""
    rows = store.listing()
    print(f"{store.path}: {len(rows)} games")
    print(f"{'id':>6} {'batch':>5} {'#':>5} {'seed':>20}  {'end':<17} {'dec':>5}  agents: scores")
    for gid, batch, idx, seed, status, end, decisions, agents, scores, _ in rows:
        end = end or status
        agents_text = ",".join(agents)
        tail = f"{agents_text}: {scores}" if scores else agents_text
        print(f"{gid:>6} {batch:>5} {idx:>5} {seed:>20}  {end:<17} {decisions or 0:>5}  {tail}")
