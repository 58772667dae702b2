"""What K copies of a card add to a model's play: a diagnostic of the card ranking.

Issue 54's ranking (card_rank.py) judges a card by the win rate a model adds with it,
buying as it chooses.  This measures the card apart from the model's judgement of it:
``barred_mirror(owned=K)`` (learning/card_worth.py) has the free seat take the card at
its first K chances and play the rest of the game by the model, on the report's eight
kingdoms holding the card.  Run it for a model that never met the 26 base cards and for
one that trained with them, and the two rankings' Spearman says whether what a model
makes of an owned card depends on having met it.

    python benchmarks/card_owned.py --model runs/onlyA --json new.json
    python benchmarks/card_owned.py --model runs/generalP2 --json known.json
    python benchmarks/card_owned.py --compare new.json known.json

What it found (2026-12-03, results/2026-12-03-card-owned.json): the two rankings agree
(Spearman 0.83), but because both models play badly any deck they would not build
themselves: two Smithies taken at the first chances lose 0.27-0.35 of win share, two
Laboratories 0.32-0.35.  The figure is a measure of the models, not of the cards.

Read again (2026-12-04, models/dominion-general, 32 games on the first kingdom): most of
that loss is what the forced copies displace, not how the model plays them.  The first
chances are the first hands with the card's cost or more, so the forced copies take the
place of the model's own first buys, often the kingdom's best card: with two Laboratories
the free seat bought 0.8 Bandits a game against the barred seat's 2.1 (and played its
Laboratories 9.3 times); with two Moneylenders, no Militia against 1.6, and 0.6 Bandits
against 1.3.  So the diagnostic compares the card with the model's first choices, and
its ranking says little about the card alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

GAME = str(ROOT / "games" / "dominion.rcy")
BASE_CARDS = (
    "ARTISAN BANDIT BUREAUCRAT CELLAR CHAPEL COUNCIL-ROOM FESTIVAL GARDENS HARBINGER "
    "LABORATORY LIBRARY MARKET MERCHANT MILITIA MINE MOAT MONEYLENDER POACHER REMODEL "
    "SENTRY SMITHY THRONE-ROOM VASSAL VILLAGE WITCH WORKSHOP"
).split()
KINGDOM_SEED = 7919  # the report's evaluation kingdoms (report/neural.py, seed 0)


def measure(model_dir: str, cards: list[str], owned: int, games: int) -> dict[str, dict]:
    import numpy as np
    import torch
    from cardlang.agents.neural.model import load_model

    from cardlang.compiler.load import load_game
    from cardlang.language.params import always_draws
    from cardlang.learning.card_worth import barred_mirror

    torch.set_num_threads(1)
    base = load_game(GAME)
    out: dict[str, dict] = {}
    for card in cards:
        started = time.process_time()
        kingdoms = always_draws(base.ast, [card], {}, 8, KINGDOM_SEED)["KINGDOM"]
        boards = [load_game(GAME, params={"KINGDOM": k}) for k in kingdoms]
        model = load_model(model_dir, boards[0], other_game=True)
        credits, buys, plays = [], [], []
        for k, game in enumerate(boards):
            for played in barred_mirror(model, game, card, games, 1000 * k, owned=owned):
                credits.append(played.free_credit)
                figures = played.free_cards(card)
                buys.append(sum(f.buys for f in figures))
                plays.append(sum(f.plays for f in figures))
        out[card] = {
            "added": round(float(np.mean(credits)) - 0.5, 4),
            "stderr": round(float(np.std(credits) / np.sqrt(len(credits))), 4),
            "games": len(credits),
            "buys": round(float(np.mean(buys)), 2),
            "plays": round(float(np.mean(plays)), 2),
        }
        print(card, out[card], f"{time.process_time() - started:.0f} CPU-s", flush=True)
    return out


def compare(new: dict, known: dict) -> None:
    from scipy.stats import spearmanr

    cards = sorted(set(new["cards"]) & set(known["cards"]))
    rho = spearmanr(
        [new["cards"][c]["added"] for c in cards], [known["cards"][c]["added"] for c in cards]
    )
    print(f"{len(cards)} cards, Spearman {rho.statistic:.3f}")
    for c in sorted(cards, key=lambda c: -new["cards"][c]["added"]):
        print(
            f"{c:14s} new {new['cards'][c]['added']:+.3f}  known {known['cards'][c]['added']:+.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", help="the model's folder")
    p.add_argument("--owned", type=int, default=2, help="copies taken at the first chances")
    p.add_argument("--games", type=int, default=64, help="games a kingdom (eight kingdoms)")
    p.add_argument("--cards", default=",".join(BASE_CARDS))
    p.add_argument("--json", type=Path)
    p.add_argument("--compare", nargs=2, type=Path, metavar=("NEW", "KNOWN"))
    args = p.parse_args(argv)
    if args.compare:
        compare(*(json.loads(f.read_text()) for f in args.compare))
        return 0
    if not args.model or not args.json:
        p.error("--model and --json, or --compare NEW KNOWN")
    cards = measure(args.model, args.cards.upper().split(","), args.owned, args.games)
    settings = {"model": args.model, "owned": args.owned, "games_a_kingdom": args.games}
    args.json.write_text(json.dumps({"settings": settings, "cards": cards}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
