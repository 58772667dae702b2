"""games/dominion.rcy against the reference numbers of Dominion simulators.

What it checks
    The reference figures of ../shared/specs/dominion.md, which two independent Dominion
    simulators agree on (within about one point):

    * Big Money solo, turns to 4 Provinces: mean 16.8 (sd 1.9), median 17;
    * Big Money mirror, 2 players, fixed seats: first seat wins ~25%, second ~42.5%,
      ties ~32%.

    It plays those games with cardlang's ``bigmoney`` bot (agents/bots/bigmoney.toml) and
    prints our figure beside the reference, with a 95% confidence interval (normal
    approximation; for the mean of turns, the sample sd over the square root of n).  A
    row is "ok" when the reference lies within our interval widened by the simulators'
    own disagreement (1 turn for the mean, 1 point for a percentage).

    The games are seeded (``--seed``), so a run is reproducible.  Nothing is timed here:
    speed is benchmarks/dominion_speed.py's job.

Usage (from the repository root)
    python benchmarks/dominion_reference.py                  # 4,000 solo + 20,000 mirror
    python benchmarks/dominion_reference.py --solo-games 1000 --mirror-games 4000 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from cardlang import load_game
from cardlang.runs.simulate import run_batch
from cardlang.runs.statistics import BatchSummary

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "dominion.rcy"

# (figure, reference value, tolerance between the reference simulators)
REFERENCE = {
    "solo_mean_turns": (16.8, 1.0),
    "solo_sd_turns": (1.9, None),
    "solo_median_turns": (17.0, None),
    "mirror_first_seat_wins": (0.25, 0.01),
    "mirror_second_seat_wins": (0.425, 0.01),
    "mirror_ties": (0.32, 0.01),
}


def solo(games: int, seed: int) -> tuple[BatchSummary, dict[str, Any]]:
    game = load_game(GAME, params={"PLAYERS": "1"})
    s = run_batch(game, games=games, seed=seed, agent_specs=["bigmoney"], on_game=_tick(games))
    stats = s.turns_stats()
    n = s.completed
    half = 1.96 * stats["sd"] / math.sqrt(n) if n > 1 else float("nan")
    return s, {
        "solo_mean_turns": (stats["mean"], half),
        "solo_sd_turns": (stats["sd"], None),
        "solo_median_turns": (stats["median"], None),
    }


def mirror(games: int, seed: int) -> tuple[BatchSummary, dict[str, Any]]:
    game = load_game(GAME, params={"PLAYERS": "2"})
    s = run_batch(
        game, games=games, seed=seed, agent_specs=["bigmoney", "bigmoney"], on_game=_tick(games)
    )
    n = s.completed
    ties = s.ties / n
    # a shared win gives each seat 1/2: outright wins are the credits less half the ties
    first = (s.wins[0] - s.ties / 2) / n
    second = (s.wins[1] - s.ties / 2) / n

    def ci(p: float) -> float:
        return 1.96 * math.sqrt(p * (1 - p) / n)

    return s, {
        "mirror_first_seat_wins": (first, ci(first)),
        "mirror_second_seat_wins": (second, ci(second)),
        "mirror_ties": (ties, ci(ties)),
    }


def _tick(total: int) -> Any:
    done = [0]

    def tick(_: Any) -> None:
        done[0] += 1
        if sys.stderr.isatty() and done[0] % 500 == 0:
            print(f"\r  {done[0]}/{total} games", end="", file=sys.stderr, flush=True)
        if sys.stderr.isatty() and done[0] == total:
            print("\r" + " " * 30 + "\r", end="", file=sys.stderr, flush=True)

    return tick


def verdict(name: str, ours: float, half: float | None) -> str:
    ref, tolerance = REFERENCE[name]
    if tolerance is None:
        return "info"
    slack = (half or 0.0) + tolerance
    return "ok" if abs(ours - ref) <= slack else "OFF"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solo-games", type=int, default=4000)
    ap.add_argument("--mirror-games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    solo_summary, figures = solo(args.solo_games, args.seed)
    mirror_summary, more = mirror(args.mirror_games, args.seed)
    figures.update(more)
    rows = []
    for name, (ours, half) in figures.items():
        ref, _ = REFERENCE[name]
        rows.append(
            {
                "figure": name,
                "reference": ref,
                "cardlang": round(ours, 4),
                "ci95_half_width": None if half is None else round(half, 4),
                "verdict": verdict(name, ours, half),
            }
        )
    failures = [r for r in solo_summary.errors + mirror_summary.errors]
    if args.json:
        print(
            json.dumps(
                {
                    "seed": args.seed,
                    "solo_games": solo_summary.completed,
                    "mirror_games": mirror_summary.completed,
                    "rows": rows,
                    "errors": failures,
                },
                indent=2,
            )
        )
        return 0
    print(
        f"Dominion reference numbers: {solo_summary.completed} solo games, "
        f"{mirror_summary.completed} mirror games, seed {args.seed}"
    )
    print(f"{'figure':28} {'reference':>10} {'cardlang':>10} {'95% CI':>16}  verdict")
    for r in rows:
        pct = r["figure"].startswith("mirror")
        fmt = (lambda v: f"{100 * v:.1f}%") if pct else (lambda v: f"{v:.2f}")
        half = r["ci95_half_width"]
        ci = "" if half is None else f"{fmt(r['cardlang'] - half)}-{fmt(r['cardlang'] + half)}"
        print(
            f"{r['figure']:28} {fmt(r['reference']):>10} {fmt(r['cardlang']):>10} {ci:>16}  "
            f"{r['verdict']}"
        )
    for e in failures:
        print("error:", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
