"""The official cards as a card's peers: each kingdom card's card-plus-money bot, tuned
and measured against bmu, written as the data `cardlang card-report` ships (issue 54).

What it measures
    For each of the 26 kingdom cards of games/dominion.rcy ('ALL-KINGDOM-CARDS), the
    card-plus-money bot tuned for it exactly as a report tunes a new card's
    (src/cardlang/report/money.py: every plan of the grid screened, the best few
    refined, the chosen one measured on fresh seeds), in ``--seconds`` CPU-seconds per
    card (sized by the engine's work count, so the games do not depend on the machine),
    and its win share against bmu with a 95% Wilson interval, seats rotated.  Written with
    the game file's rules fingerprint, the date, the seed and the games to
    src/cardlang/report/peers.json (``--out``), which the report reads.

Usage (from the repository root; one core, about 20 minutes at the default 45 s a card)
    nice python3 benchmarks/card_peers.py
    python3 benchmarks/card_peers.py --seconds 2 --cards witch,chapel --out /tmp/p.json
    python3 benchmarks/card_peers.py --seconds 30 --cards remodel --merge   # one card again
    (after a change to how its bot plays it: the others' entries are kept, and the file
    says which cards were measured again, when, and by what command)
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

from cardlang.report.budget import WORK_PER_CPU_SECOND
from cardlang.report.build import GameFile, tune_alone
from cardlang.report.money import OPPONENT
from cardlang.report.peers import Peer
from cardlang.report.sections import Figure

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "dominion.rcy"
OUT = ROOT / "src" / "cardlang" / "report" / "peers.json"


def measure(file: GameFile, card: str, seconds: float, seed: int) -> tuple[Peer, int]:
    """One card's peer entry and the games it played."""
    result = tune_alone(file, card, seconds, seed)
    share = Figure.share(result.final.credits, result.final.games)
    peer = Peer(card, file.cost(card), share.value, share.low, share.high, share.games, result.plan)
    sizes = result.sizes
    assert sizes is not None
    played = sizes.games(len(result.tried), 0)
    return peer, played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=45.0, help="CPU-seconds per card")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cards", default="", help="a comma-separated subset (default: all)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--merge", action="store_true", help="replace these cards' entries in --out, keep the rest"
    )
    args = parser.parse_args(argv)
    file = GameFile.read(str(GAME), "native")
    cards = [file.card(c) for c in args.cards.split(",") if c] or list(file.kingdom_cards)
    peers, games, started = [], 0, time.process_time()
    for card in cards:
        card_started = time.process_time()
        peer, played = measure(file, card, args.seconds, args.seed)
        peers.append(peer)
        games += played
        print(
            f"{card:13} ${peer.cost} {peer.share:.3f} ({peer.low:.3f}-{peer.high:.3f}) "
            f"{time.process_time() - card_started:5.1f} s  {peer.plan.words()}",
            file=sys.stderr,
        )
    seconds = time.process_time() - started
    about = _about(args, file, games, seconds)
    data: dict[str, Any] = {**about, "cards": [p.to_json() for p in peers]}
    if args.merge:
        data = _merged(json.loads(args.out.read_text(encoding="utf-8")), data)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(peers)} cards, {games:,} games, {seconds:.0f} CPU-s")
    return 0


def _merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``new``'s cards in place of their entries, and a line of what changed."""
    if old["rules_fingerprint"] != new["rules_fingerprint"] or old["seed"] != new["seed"]:
        raise SystemExit("--merge: the file was measured on other rules or another seed")
    fresh = {c["card"]: c for c in new["cards"]}
    cards = [fresh.pop(c["card"], c) for c in old["cards"]] + list(fresh.values())
    again = {"cards": sorted(c["card"] for c in new["cards"]), "date": new["date"]}
    again |= {"games": new["games"], "command": new["command"] + " --merge"}
    return {**old, "measured_again": [*old.get("measured_again", []), again], "cards": cards}


def _about(args: argparse.Namespace, file: GameFile, games: int, seconds: float) -> dict[str, Any]:
    from cardlang.language.fingerprint import rules_fingerprint

    return {
        "about": (
            "each official kingdom card's card-plus-money bot, tuned as card-report tunes a "
            f"new card's, and its win share against {OPPONENT} (95% Wilson interval, seats "
            "rotated, on seeds the search never saw)"
        ),
        "game": "games/dominion.rcy",
        "rules_fingerprint": rules_fingerprint(file.text),
        "date": datetime.date.today().isoformat(),
        "seed": args.seed,
        "seconds_per_card": args.seconds,
        "work_per_cpu_second": WORK_PER_CPU_SECOND,
        "opponent": OPPONENT,
        "games": games,
        "cpu_seconds": round(seconds, 1),
        "games_per_cpu_second": round(games / seconds) if seconds else 0,
        "command": "python3 benchmarks/card_peers.py"
        + (f" --seconds {args.seconds:g}" if args.seconds != 45.0 else "")
        + (f" --seed {args.seed}" if args.seed else "")
        + (f" --cards {args.cards}" if args.cards else ""),
    }


if __name__ == "__main__":
    raise SystemExit(main())
