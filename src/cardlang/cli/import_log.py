"""``cardlang import-log LOG --game FILE [--db DB]``: games played elsewhere, into records.

Pipeline position: the command line (cli/), the face of runs/importing.py, whose
docstring states the log's schema (a CSV, or SQLite with a table ``moves``: game, seed,
seat, move[, player]).  The imported games are a batch of DB (by default the user's
records file that cli/records.py places) like any ``simulate --db`` batch:
``fit-opponent DB --game FILE`` learns from them, ``transcript --db DB`` replays them.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
    engine_of,
    engine_option,
    load_game_and_text,
    param_option,
)
from cardlang.errors import UsageError
from cardlang.inputs import regular_file

__all__ = ["add_parser", "cmd_import_log"]


def add_parser(sub: SubParsers) -> None:
    from cardlang.cli.records import RECORDS_RULE

    p = sub.add_parser(
        "import-log",
        help="import games played elsewhere (CSV or SQLite: game, seed, seat, move) into records",
        description="Replay each logged game from its cardlang seed, checking every move "
        "(an option index, or the option's label as cardlang transcript prints it), and "
        "write the games to DB as one batch. Columns: game, seed, seat, move, and "
        "optionally player.",
    )
    p.add_argument("log", metavar="LOG", type=Path, help="a .csv file, or SQLite with table moves")
    p.add_argument("--game", required=True, metavar="FILE", help="the game file they played")
    p.add_argument(
        "--db", type=Path, metavar="FILE", help=f"the records file (default: {RECORDS_RULE})"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    param_option(p)
    engine_option(p)


def cmd_import_log(args: argparse.Namespace) -> int:
    from cardlang.cli.records import records_to_write
    from cardlang.language.params import parse_param_args
    from cardlang.runs.importing import import_log

    if not regular_file(args.log, "game log").is_file():
        raise UsageError(f"log {args.log} not found")
    game, text = load_game_and_text(args.game, args.param, **engine_of(args))
    args.db = records_to_write(args.db)
    master = game.master()
    params = parse_param_args(args.param)
    batch_id, games, added = import_log(
        args.db, args.log, game, Path(args.game), text, master, params=params
    )
    summary = {
        "games": games,
        "added": added,
        "new": added > 0,
        "batch": batch_id,
        "db": str(args.db),
    }
    if args.json:
        print(json.dumps(summary))
    elif added:
        print(f"imported {added} of {games} games into {args.db} (batch {batch_id})")
    else:
        print(f"{args.log} is already in {args.db} (batch {batch_id}): nothing added")
    return EXIT_OK
