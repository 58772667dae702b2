"""What a state costs under each engine: cloning it, determinizing it, and its memory.

For each game (Hearts, and Dominion's First Game for two players) and each engine, it
plays seeded random games (recorded: determinizing needs the event log) and, at every
decision, takes

- a determinization for the mover (``PlayerView.determinize``: what every search agent
  does once per iteration), timed (the view's first one builds the skeleton; it is left
  out, so the figure is the per-iteration cost);
- a clone of that determinization (unrecorded, as the states a search clones are),
  timed;
- its memory: for the Python engine the bytes ``tracemalloc`` sees allocated by 100
  clones, divided by 100 (what a clone adds: objects shared between clones, such as the
  cards' attribute tables, are not counted); for the native engine the bytes its
  containers hold (``State.memory_bytes``).

Medians over all decisions of all games; microseconds and kilobytes.  Both engines play
the same games (the same seeds and choices), so the rows compare like with like.

    python benchmarks/state_costs.py            # a table
    python benchmarks/state_costs.py --json     # one JSON object
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.information.views import view_of

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"hearts": ("games/hearts.rcy", {}), "dominion": ("games/dominion.rcy", {})}


def memory_of(st: Any) -> float:
    if st.traits.name == "native":
        return float(st.raw.memory_bytes)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    clones = [st.clone() for _ in range(100)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del clones
    return (after - before) / 100


def measure(
    path: str, params: dict[str, str], engine: str, games: int, seed: int
) -> dict[str, Any]:
    game = load_game(ROOT / path, params=params)
    master = game.master(engine=engine)
    clone_us: list[float] = []
    det_us: list[float] = []
    kb: list[float] = []
    clock = time.perf_counter
    for g in range(games):
        st = master.new_game(seed + g, record=True)
        rng = random.Random(seed + g)
        while not st.is_over:
            options = master.legal_options(st)
            view = view_of(st, st.mover, game, options)
            view.determinize(random.Random(1))  # builds the skeleton: not timed
            start = clock()
            world = view.determinize(random.Random(2))
            det_us.append((clock() - start) * 1e6)
            start = clock()
            world.clone()
            clone_us.append((clock() - start) * 1e6)
            if len(kb) < 200:
                kb.append(memory_of(world) / 1024)
            master.apply(st, rng.randrange(len(options)))
    return {
        "decisions": len(clone_us),
        "clone_us": statistics.median(clone_us),
        "determinize_us": statistics.median(det_us),
        "memory_kb": statistics.median(kb),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games per game file (10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    engines = ["python"] + (["native"] if native_available() else [])
    rows = []
    for name, (path, params) in GAMES.items():
        for engine in engines:
            row = measure(path, params, engine, args.games, args.seed)
            rows.append({"game": name, "engine": engine, **row})
            print(f"{name} {engine}: {row}", file=sys.stderr)
    if args.json:
        print(json.dumps({"benchmark": "state_costs", "games": args.games, "rows": rows}, indent=2))
        return 0
    print(f"{'game':10} {'engine':8} {'clone µs':>9} {'determinize µs':>15} {'memory KB':>10}")
    for r in rows:
        print(
            f"{r['game']:10} {r['engine']:8} {r['clone_us']:9.1f} {r['determinize_us']:15.1f} "
            f"{r['memory_kb']:10.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
