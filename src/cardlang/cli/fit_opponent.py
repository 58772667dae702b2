"""``cardlang fit-opponent [DB] --game FILE --out PATH``: an opponent model from records.

Pipeline position: the command line (cli/), the face of cardlang.solve.fit.  Replays the
recorded games of FILE in DB (``cardlang simulate FILE --db DB``; without DB, the user's
records file that cli/records.py places, where ``play`` records), counts each observed
state's moves (``--champion``: the winners' only) and writes the model that
``cardlang solve --opponent model:PATH`` and ``--agents model:path=PATH`` read.

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
    engine_of,
    load_game_and_text,
    output_file,
    param_option,
    positive,
    seed,
    state_keys_of,
    state_keys_options,
)
from cardlang.errors import UsageError
from cardlang.inputs import regular_file

__all__ = ["add_parser", "cmd_fit_opponent"]

METHODS = ("parless", "pawnn")


def add_parser(sub: SubParsers) -> None:
    from cardlang.cli.records import RECORDS_RULE

    p = sub.add_parser(
        "fit-opponent",
        help="learn an opponent model from recorded games (PARLESS: Dirichlet counts per state)",
        description="Replay the games of FILE recorded in DB and count, per state the mover "
        "observes, the moves made there. The model gives the posterior mean of a Dirichlet "
        "prior of total pseudo-count 3 over the legal moves plus the counts; unseen states "
        "are uniform.",
    )
    p.add_argument(
        "db",
        metavar="DB",
        type=Path,
        nargs="?",
        help=f"records (cardlang simulate --db DB; default: {RECORDS_RULE})",
    )
    p.add_argument("--game", required=True, metavar="FILE", help="the game file they played")
    p.add_argument("--out", required=True, type=output_file, help="where to write the model (JSON)")
    p.add_argument("--champion", action="store_true", help="count only the winners' moves")
    p.add_argument(
        "--method",
        choices=METHODS,
        default="parless",
        help="parless (default); pawnn adds a network for unseen states (k-fold validated)",
    )
    p.add_argument("--folds", type=positive, default=5, help="pawnn: cross-validation folds (5)")
    p.add_argument("--seed", type=seed, default=0, help="pawnn: the networks' seed (0)")
    state_keys_options(p, default="view", help="states: view (default), counts or info")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    param_option(p)


def cmd_fit_opponent(args: argparse.Namespace) -> int:
    from cardlang.cli.records import records_to_read
    from cardlang.solve.fit import Features, fit_counts, model_document, pawnn_networks

    args.db = records_to_read(args.db)
    if not regular_file(args.db, "records database").is_file():
        raise UsageError(f"records {args.db} not found")
    game, text = load_game_and_text(args.game, args.param, **engine_of(args))

    def progress(n: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"  {n}/{total} games", end="\r", file=sys.stderr, flush=True)

    keys = state_keys_of(args, game)
    features: dict[str, Features] | None = {} if args.method == "pawnn" else None
    states, report = fit_counts(
        args.db,
        game,
        text,
        keys=keys,
        champion=args.champion,
        progress=progress,
        features=features,
    )
    doc = model_document(
        states, report, keys=keys, champion=args.champion, game=Path(args.game).name
    )
    validation = None
    if features is not None:
        networks, validation = pawnn_networks(states, features, folds=args.folds, seed=args.seed)
        doc.update(method="pawnn", networks=networks, cross_validation=validation)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc) + "\n")
    summary = {
        "games": report.games,
        "decisions": report.decisions,
        "states": report.states,
        "skipped_games": report.skipped,
        "out": str(args.out),
        "cross_validation": validation,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{report.games} games, {report.decisions} decisions counted"
            + (" (winners only)" if args.champion else "")
            + f", {report.states} states -> {args.out}"
            + (f" ({report.skipped} games of other files skipped)" if report.skipped else "")
        )
        for situation, cv in (validation or {}).items():
            if cv["folds"]:
                print(
                    f"  PAWNN {situation}: {cv['states']} states, held-out cross-entropy "
                    f"{cv['cross_entropy']:.4f} over {cv['folds']} folds "
                    f"(uniform over the legal moves: {cv['uniform_cross_entropy']:.4f})"
                )
    return EXIT_OK
