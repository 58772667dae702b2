"""The ``cardlang`` command line: the entry point, which parses and dispatches.

Pipeline position: the top of cardlang.  ``main`` builds the parser from each command
module's ``add_parser`` (check.py, simulate.py, transcript.py, describe.py,
heuristics.py, card_report.py, ...; the options they share are options.py's), runs the
command's handler and turns what escapes it into a message and an exit code.

Exit codes: 0 ok, 1 errors in a game file, a failed run or an agent's failure, 2 bad
usage, 130 interrupted (Ctrl-C).  No Python traceback reaches the user unless
``--debug`` is given (anywhere on the line).

May import: anything in cardlang.  Nothing but ``cardlang.cli`` and ``cardlang.__main__``
imports it.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cardlang import __version__
from cardlang.cli import (
    card_report,
    check,
    describe,
    fit_opponent,
    heuristics,
    import_log,
    play,
    serve,
    simulate,
    solve,
    tournament,
    train,
    transcript,
)
from cardlang.cli.options import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    print_error,
    use_engine,
)
from cardlang.cli.signals import terminated_as_interrupted
from cardlang.errors import AgentError, CardlangError, GameFileError, UsageError

__all__ = ["COMMANDS", "build_parser", "main"]

#: The commands in the order ``cardlang --help`` lists them: name -> handler.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": check.cmd_check,
    "simulate": simulate.cmd_simulate,
    "transcript": transcript.cmd_transcript,
    "describe": describe.cmd_describe,
    "heuristics": heuristics.cmd_heuristics,
    "train": train.cmd_train,
    "solve": solve.cmd_solve,
    "fit-opponent": fit_opponent.cmd_fit_opponent,
    "import-log": import_log.cmd_import_log,
    "tournament": tournament.cmd_tournament,
    "play": play.cmd_play,
    "serve": serve.cmd_serve,
    "card-report": card_report.cmd_card_report,
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error says how to get help and exits with 2."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {message}\nRun '{self.prog} --help' for more.\n"
        )


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
            "  cardlang simulate games/hearts.rcy --games 10000 --engine python\n"
            "  cardlang describe games/dominion.rcy --param kingdom=random\n"
            "  cardlang heuristics games/hearts.rcy --games 200 --plot report/\n"
            "  cardlang train games/kuhn_poker.rcy --out runs/kuhn --rounds 10\n"
            "  cardlang solve games/kuhn_poker.rcy --seat 0 --opponent uniform --reward score\n"
            "  cardlang card-report my-dominion.rcy BAZAAR --html report/\n\n"
            "Every command takes --engine native|python (the C++ engine, the default where it\n"
            "is built, or the Python one: the same games, logs and results). On the C++\n"
            "engine the random agent, the Dominion bots and ISMCTS/MCTS searches run inside\n"
            "it (CARDLANG_NATIVE_AGENTS=0 keeps them in Python, choosing the same moves).\n"
            "Add --debug anywhere to see internal tracebacks."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"cardlang {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    commands = (check, simulate, transcript, describe, heuristics, train, solve, fit_opponent)
    for module in (*commands, import_log, play, tournament, serve, card_report):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    args_list = [a for a in args_list if a != "--debug"]
    parser = build_parser()
    args = parser.parse_args(args_list)
    args.debug = debug  # a batch shows its agents' tracebacks with it
    try:
        use_engine(args)
        with terminated_as_interrupted():  # kill stops it as Ctrl-C does (cli/signals.py)
            return COMMANDS[args.command](args)
    except GameFileError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_ERROR
    except AgentError as err:  # an agent's failure (its traceback with --debug): not ours
        print(f"cardlang: agent error: {err.render(debug)}", file=sys.stderr)
        return EXIT_ERROR
    except UsageError as err:
        print_error(err)
        return EXIT_USAGE
    except CardlangError as err:
        if debug:
            raise
        print_error(err)
        return EXIT_ERROR
    except sqlite3.Error as err:  # records (--db) on a file that cannot hold them
        if debug:
            raise
        print_error(f"the records database (--db) failed: {err}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("cardlang: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        sys.stdout = None  # type: ignore[assignment]  # nothing more can be written
        return EXIT_OK
    except OSError as err:  # a file or folder it was given cannot be made, read or written
        if debug:
            raise
        name = f" {err.filename}" if err.filename else ""
        print_error(f"cannot use{name}: {err.strerror or err}")
        return EXIT_ERROR
    except MemoryError:  # the machine, not a bug: what this run asked for did not fit
        if debug:
            raise
        print_error(
            "out of memory: this run asked for more than the machine could give (smaller "
            "--max-work or --max-game-work, fewer --workers or a smaller model ask for less)"
        )
        return EXIT_ERROR
    except Exception as err:  # a bug of ours: short message unless --debug
        if debug:
            raise
        print(
            f"cardlang: internal error: {type(err).__name__}: {err}\n"
            "Run again with --debug for the traceback, and please report it.",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
