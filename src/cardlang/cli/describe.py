"""``cardlang describe FILE``: a game's situations, observation layouts and vocabulary.

Pipeline position: the command line (cli/), above the information layer: the game is
loaded and ``cardlang.information.describe`` shows what an agent sees of it, as tables or
as JSON with ``--json``.  ``main`` dispatches here.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import sys

from cardlang.cli.options import EXIT_OK, SubParsers, engine_of, engine_option, param_option
from cardlang.language.params import parse_param_args

__all__ = ["add_parser", "cmd_describe"]


def add_parser(sub: SubParsers) -> None:
    """The ``describe`` subcommand's arguments."""
    desc = sub.add_parser(
        "describe",
        help="show a game's situations, observation layouts and action vocabulary",
    )
    desc.add_argument("file", metavar="FILE")
    desc.add_argument("--json", action="store_true", help="print one JSON object")
    desc.add_argument(
        "--ir",
        action="store_true",
        help="print the compiled program the native engine runs, node by node (debugging)",
    )
    param_option(desc)
    engine_option(desc)


def cmd_describe(args: argparse.Namespace) -> int:
    from rich.console import Console

    from cardlang.compiler.load import load_game
    from cardlang.information.describe import description, print_tables

    game = load_game(args.file, params=parse_param_args(args.param), **engine_of(args))
    if args.ir:
        from cardlang.compiler.ir_dump import dump_ir

        print(dump_ir(game.ir, game.source.name))
        return EXIT_OK
    if args.json:
        print(json.dumps(description(game), indent=2))
    else:  # piped into a file: wide rows rather than wrapped ones
        print_tables(game, Console(width=None if sys.stdout.isatty() else 160))
    return EXIT_OK
