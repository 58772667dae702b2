"""``cardlang card-report FILE CARD...``: a designer's report on each named card.

Pipeline position: the command line (cli/), the face of cardlang.report: the arguments
read, ``report.build.report_cards`` run (progress and an ETA on stderr, on a terminal),
the report printed as tables (``report.text``) or one JSON object (``--json``), and with
``--html DIR`` written as a page with its plots (``report.page``).  A file that fails
``check`` stops with its diagnostics (exit 1), an unknown card with a did-you-mean
(exit 2): ``main`` turns the errors into messages.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
    engine_option,
    output_dir,
    seed_option,
)

__all__ = ["add_parser", "cmd_card_report"]

#: The largest --minutes: a day of CPU, far beyond any report, still a finite run.
MAX_MINUTES = 24 * 60.0


def minutes(text: str) -> float:
    """--minutes: CPU-minutes above 0, at most MAX_MINUTES."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not 0 < value <= MAX_MINUTES:  # NaN too
        raise argparse.ArgumentTypeError(
            f"expected minutes above 0 and at most {MAX_MINUTES:g}, got {text}"
        )
    return value


def add_parser(sub: SubParsers) -> None:
    """The ``card-report`` subcommand's arguments."""
    from cardlang.report.budget import DEFAULT_MINUTES

    p = sub.add_parser(
        "card-report",
        help="how strong is a card at its cost: a designer's report on Dominion cards",
        description="Judge each named card of a Dominion game file (a copy of\n"
        "games/dominion.rcy with new cards): a Big Money bot that buys the card, tuned by\n"
        "a small search, against bmu and against the same bots made for the official\n"
        "cards of its cost; where it ranks among them. Every figure with its 95% interval.",
        epilog="example:\n  cardlang card-report my-dominion.rcy BAZAAR --html report/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="the Dominion game file")
    p.add_argument("cards", metavar="CARD", nargs="+", help="kingdom cards of FILE to judge")
    p.add_argument(
        "--minutes",
        type=minutes,
        default=DEFAULT_MINUTES,
        help=f"the CPU-minutes the whole report may spend ({DEFAULT_MINUTES:g}); fewer "
        "make wider intervals, and the report says so",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--html", type=output_dir, metavar="DIR", help="write DIR/card-report.html, with plots"
    )
    p.add_argument(
        "--model",
        metavar="DIR",
        default=None,
        help="the general model the neural section adapts to each card (models/"
        "dominion-general); 'none': no neural section, the card-plus-money bot alone",
    )
    p.add_argument(
        "--keep",
        type=output_dir,
        metavar="DIR",
        help="keep each card's adapted model in DIR/adapted-CARD (neural:model=DIR/...)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    seed_option(p)
    engine_option(p)


def cmd_card_report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from cardlang.report.build import report_cards
    from cardlang.report.neural import DEFAULT_MODEL
    from cardlang.report.page import write_page
    from cardlang.report.peers import shipped_peers
    from cardlang.report.text import print_report

    if args.html is not None:  # before the minutes of play, not after
        args.html.mkdir(parents=True, exist_ok=True)
    model: Path | None = DEFAULT_MODEL if args.model is None else Path(args.model)
    if args.model is not None and args.model.lower() == "none":
        model = None
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    report = report_cards(
        args.file,
        args.cards,
        args.minutes,
        args.seed,
        args.engine,
        progress=not args.quiet,
        model=model,
        keep=args.keep,
    )
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print_report(Console(), report)
    if args.html is not None:
        path = write_page(args.html, report, shipped_peers())
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK
