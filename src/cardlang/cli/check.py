"""``cardlang check FILE...``: check game files; exit 1 if any has errors.

Pipeline position: the command line (cli/), above the compiler: each file is loaded
(parsed, checked and compiled, with the --param values) and its errors or warnings are
printed as diagnostics, or as JSON with ``--json``.  ``main`` dispatches here.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cardlang.cli.options import (
    EXIT_ERROR,
    EXIT_OK,
    SubParsers,
    engine_of,
    engine_option,
    param_option,
    print_error,
)
from cardlang.errors import Diagnostic, GameFileError, UsageError
from cardlang.language.params import parse_param_args

__all__ = ["add_parser", "cmd_check"]


def add_parser(sub: SubParsers) -> None:
    """The ``check`` subcommand's arguments."""
    check = sub.add_parser("check", help="check game files; exit 1 if any has errors")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--json", action="store_true", help="diagnostics as JSON")
    param_option(check)
    engine_option(check)


def cmd_check(args: argparse.Namespace) -> int:
    from cardlang.compiler.load import load_game

    failed = 0
    report = []
    for path in args.files:
        try:
            game = load_game(path, params=parse_param_args(args.param), **engine_of(args))
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
                print_error(err)
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


def _diag_json(d: Diagnostic) -> dict[str, Any]:
    return {
        "severity": d.severity,
        "message": d.message,
        "line": d.span.line,
        "column": d.span.column,
        "hint": d.hint,
    }
