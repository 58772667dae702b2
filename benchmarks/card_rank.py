"""Is the card report right about known cards?  Each base card judged as new and as known.

Issue 54's milestone "the report is right about known cards": each of the 26 base
kingdom cards is treated as new (judged by a model that never met it, adapted within the
report's budget, as ``cardlang card-report`` does) and as known (judged by the general
model, which trained with it, as it comes); the rank correlation (Spearman) of the two
strengths must be at least 0.8, and Chapel and Witch must be in the report's top five.

A model that never met a card is a *fold* model: trained on random kingdoms without a
fold of cards (``--param exclude=...``), or beside made-up cards only (``python -m
cardlang.language.card_pool games/dominion.rcy 30 --only``: one model that met none of
the 26).  Every card of a fold is judged by its fold's model.  The strength is the
report's headline figure, the win rate added (the model against itself barred from the
card, learning/card_worth.py; report/neural.py: the better of the model as met and
adapted, played again on fresh games; 0 where both lose by buying it).

As known, the card is judged the same way by ``--known``, a model that met it in
training: the report's own procedure, adaptation included, so that the two sides differ
only in what the model knew.  ``--known-as-it-comes`` judges it by that model as it
comes, without the adaptation (the measure of the first run, 2026-12-02).

    python benchmarks/card_rank.py --fold runs/foldA=witch,laboratory,... \\
        --fold runs/foldB=chapel,smithy,... --known models/dominion-general \\
        --minutes 8 --json benchmarks/results/2026-12-xx-card_rank.json

Each card's figures are written to the JSON file as soon as they are measured, and a
card already there is not measured again (a run stopped half way goes on).  On two
cores, two runs, each with its own JSON file and ``--merge`` naming the other's (the
second's folds in the other order): a card either has measured is not measured again, and
each writes both runs' cards and the summary into its own file at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

GAME = str(ROOT / "games" / "dominion.rcy")
PEERS = ROOT / "src" / "cardlang" / "report" / "peers.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--fold", action="append", default=[], metavar="MODEL=CARD,CARD...")
    p.add_argument("--known", required=True, metavar="MODEL", help="the general model")
    p.add_argument(
        "--minutes", type=float, default=8.0, help="CPU-minutes of neural work per card as new"
    )
    p.add_argument(
        "--known-as-it-comes",
        action="store_true",
        help="judge a card as known by the --known model without adapting it",
    )
    p.add_argument(
        "--no-bonus",
        action="store_true",
        help="adapt without the card bonus (report/neural.py adapt_bonus), on both sides",
    )
    p.add_argument(
        "--barred-adaptation",
        action="store_true",
        help="adapt with barred lanes, every one barred from the card (report/neural.py "
        "NeuralPlan.barred), on both sides",
    )
    p.add_argument(
        "--sides",
        default="new,known",
        help="which sides this run measures (new, known or both: the known side needs no "
        "fold model, so it can run while one trains)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", required=True, type=Path)
    p.add_argument("--merge", nargs="+", type=Path, default=[], help="other runs' JSON files")
    args = p.parse_args(argv)

    import torch

    from cardlang.report.neural import NeuralPlan, neural_section

    torch.set_num_threads(1)
    done = json.loads(args.json.read_text()) if args.json.is_file() else {"cards": {}}
    done["settings"] = {
        "minutes": args.minutes,
        "seed": args.seed,
        "known": args.known,
        "known_adapted": not args.known_as_it_comes,
        "card_bonus": not args.no_bonus,
        "barred_adaptation": args.barred_adaptation,
    }
    sides = set(args.sides.split(","))
    for fold in args.fold:
        model, _, cards = fold.partition("=")
        for card in (c.strip().upper() for c in cards.split(",") if c.strip()):
            entry = done["cards"].setdefault(card, {"fold_model": model})
            other = _others(args.merge).get(card, {})
            for side in ("new", "known"):
                if side not in sides or side in entry or side in other:
                    continue
                started = time.process_time()
                plan = NeuralPlan.of(
                    args.minutes * 60, Path(model if side == "new" else args.known)
                )
                plan = replace(plan, bonus=not args.no_bonus, barred=args.barred_adaptation)
                if side == "known" and args.known_as_it_comes:
                    # that model as it comes, on all the evaluations' games
                    plan = replace(plan, updates=0)
                entry[side] = neural_section(GAME, card, plan, args.seed).to_json()
                entry[f"{side}_cpu_seconds"] = time.process_time() - started
                _summary(done)
                _write(args.json, done)
                print(_line(card, side, entry), flush=True)
    done["cards"] = _merged(_others(args.merge), done["cards"])
    _summary(done)
    _write(args.json, done)
    print(json.dumps(done["summary"], indent=1))
    return 0


def _write(path: Path, done: dict) -> None:
    """Whole or not at all: the other run reads it while this one writes."""
    part = path.with_suffix(".part")
    part.write_text(json.dumps(done, indent=1))
    part.replace(path)


def _others(paths: list[Path]) -> dict:
    """The cards the other runs (``--merge``) have measured so far, side by side."""
    cards: dict = {}
    for path in paths:
        if path.is_file():
            cards = _merged(cards, json.loads(path.read_text())["cards"])
    return cards


def _merged(a: dict, b: dict) -> dict:
    """Two runs' cards, each card's sides from whichever run measured them."""
    return {card: {**a.get(card, {}), **b.get(card, {})} for card in {**a, **b}}


def _strength(entry: dict, which: str) -> float:
    """The headline's worth (report/neural.py ``NeuralResult.worth``), read from a side's
    JSON: the better of as met and adapted played on fresh games, a play that never
    bought the card worth exactly 0 (so cards a model leaves alone tie, as they should),
    and 0 where both lose by buying it (declined; runs before 2026-12-04 read the fresh
    games, or before 2026-12-03 the better of the two)."""
    part = entry[which]
    if "worth" in part:  # the report's own reading: 0 where both plays lose by buying it
        return float(part["worth"])
    if part.get("headline_figures") is not None:  # the chosen model's fresh games
        return _worth(part["headline_figures"])
    plays = [p for p in (part["as_met"], part["adapted"]) if p is not None]
    return max(_worth(p) for p in plays)  # a run before 2026-12-03's fresh games


def _worth(play: dict) -> float:
    """``Play.worth`` of a play's JSON."""
    if play["buy_rate"]["value"] == 0.0:
        return 0.0
    return float(play["win_rate_added"]["value"])


def _line(card: str, side: str, entry: dict) -> str:
    return f"{card:14s} {side:5s} {_strength(entry, side):+.3f}"


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation (ties share their mean rank)."""
    import numpy as np

    def ranks(values: list[float]) -> np.ndarray:
        order = np.argsort(values, kind="stable")
        r = np.empty(len(values))
        r[order] = np.arange(len(values), dtype=float)
        for v in set(values):  # ties: the mean of their ranks
            tied = np.array(values) == v
            r[tied] = r[tied].mean()
        return r

    ra, rb = ranks(a), ranks(b)
    return float(np.corrcoef(ra, rb)[0, 1])


def spearman_interval(entries: list[dict], draws: int = 2000, seed: int = 0) -> tuple[float, float]:
    """The Spearman's 95% percentile interval by a parametric bootstrap: each side's worth
    drawn again from a normal of its interval's width, a worth that is 0 by rule (never
    bought, declined) kept at 0.  It says how much of a run's figure is the luck of its
    games; drawn noise on noisy figures pulls a rank correlation down, so the interval
    sits below the figure, and a run whose interval reaches 0.8 has not met it."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sides = [[_spread(entry, which) for entry in entries] for which in ("new", "known")]
    rhos = []
    for _ in range(draws):
        new, known = ([m + s * rng.standard_normal() for m, s in side] for side in sides)
        rhos.append(spearman(new, known))
    return float(np.quantile(rhos, 0.025)), float(np.quantile(rhos, 0.975))


def _spread(entry: dict, which: str) -> tuple[float, float]:
    """A side's worth and its standard error (0 where the worth is 0 by rule)."""
    worth = _strength(entry, which)
    figures = entry[which].get("headline_figures")
    if figures is None or worth == 0.0:  # declined, or never bought: 0 by rule
        return worth, 0.0
    from cardlang.runs.intervals import Z95

    added = figures["win_rate_added"]
    return worth, (added["high"] - added["low"]) / (2 * Z95)


def _summary(done: dict) -> None:
    cards = sorted(c for c, entry in done["cards"].items() if {"new", "known"} <= set(entry))
    new = [_strength(done["cards"][c], "new") for c in cards]
    known = [_strength(done["cards"][c], "known") for c in cards]
    top = sorted(cards, key=lambda c: -_strength(done["cards"][c], "new"))[:5]
    rho = spearman(new, known) if len(cards) > 2 else float("nan")
    done["summary"] = {"cards": len(cards), "spearman": rho, "top_five_as_new": top}
    if top:  # a place among a tie is its name's (cards that add nothing tie at 0)
        fifth = _strength(done["cards"][top[-1]], "new")
        tied = [c for c in cards if _strength(done["cards"][c], "new") == fifth]
        if len(tied) > 1:
            done["summary"]["fifth_place_tied"] = {"strength": fifth, "cards": tied}
    if len(cards) > 2:
        low, high = spearman_interval([done["cards"][c] for c in cards])
        done["summary"]["spearman_interval"] = [round(low, 3), round(high, 3)]
    # an outside reference: each card's card-plus-money bot against bmu (the shipped
    # peers table, report/peers.json), which ranks by what Big Money makes of a card
    money = {e["card"]: e["share"] for e in json.loads(PEERS.read_text())["cards"]}
    if len(cards) > 2 and all(c in money for c in cards):
        by_money = [money[c] for c in cards]
        done["summary"]["spearman_new_with_card_plus_money"] = spearman(new, by_money)
        done["summary"]["spearman_known_with_card_plus_money"] = spearman(known, by_money)


if __name__ == "__main__":
    raise SystemExit(main())
