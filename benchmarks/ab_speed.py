"""A/B speed of two checkouts of cardlang on the same machine, in one run.

For a change meant to keep speed (a refactoring), compare the code before and after:

    git worktree add /tmp/before <commit>
    python benchmarks/ab_speed.py /tmp/before .          # A = before, B = this checkout

Each checkout is laid out as it installs (src/cardlang with agents/ and grammar/ inside)
in a temporary folder, and every workload runs in a fresh interpreter that imports
cardlang from there, A and B alternating (A, B, B, A, A, B ...) so that noise on a shared
machine hits both alike.  The table gives each side's median seconds and the ratio B / A
of the medians (below 1: B is faster), with the median of the per-pair ratios.

Both sides load the native extension cardlang finds (set ``CARDLANG_NATIVE_MODULE`` to
one built .so to give both the same: a change of Python code alone); ``--engine python``
times the reference engine.

Workloads: the Dominion Big Money mirror (the bots' fast path), random Hearts (the
interpreter), random Hearts recorded with traces (the records' path), ISMCTS on Kuhn
poker (determinizations, search, rollouts).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from bench_common import LAYOUT_FIRST, installed_layout, layout_env

WORKLOAD = LAYOUT_FIRST + textwrap.dedent(
    """
    import sys, time
    import cardlang
    assert cardlang.__file__.startswith(os.environ["PYTHONPATH"]), cardlang.__file__
    from cardlang import load_game
    from cardlang.agents import make_agent
    try:
        from cardlang.runs.runner import play_game
    except ImportError:  # older checkouts: runs/play.py, before it cardlang/runner.py
        try:
            from cardlang.runs.play import play_game
        except ImportError:
            from cardlang.runner import play_game
    root, which, games, engine = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    files = {"bm": "dominion.rcy", "hearts": "hearts.rcy", "traced": "hearts.rcy",
             "ismcts": "kuhn_poker.rcy"}
    specs = {"bm": ["bigmoney", "bigmoney"], "hearts": ["random"] * 4,
             "traced": ["random"] * 4, "ismcts": ["ismcts:iterations=100", "random"]}[which]
    master = load_game(root + "/games/" + files[which]).master(engine=engine or None)
    start = time.perf_counter()
    for seed in range(games):
        agents = [make_agent(s, seed * 10 + i) for i, s in enumerate(specs)]
        trace = [] if which == "traced" else None
        play_game(master, agents, seed, trace=trace)
    print(time.perf_counter() - start)
    """
)

GAMES = {"bm": 1000, "hearts": 2000, "traced": 800, "ismcts": 200}


def timed(layout: Path, root: Path, which: str, games: int, engine: str) -> float:
    env = layout_env(layout)
    done = subprocess.run(
        [sys.executable, "-c", WORKLOAD, str(root), which, str(games), engine],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="checkout A (e.g. the code before a change)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--repeats", type=int, default=5, help="runs per side and workload")
    parser.add_argument("--workloads", default=",".join(GAMES), help="comma-separated")
    parser.add_argument(
        "--engine", choices=("python", "native"), default="", help="default: native where built"
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="games per workload, times this (e.g. 0.1)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    games_dir = Path(__file__).resolve().parent.parent
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        layouts = {
            side: installed_layout(path.resolve(), Path(tmp) / side)
            for side, path in (("a", args.a), ("b", args.b))
        }
        for which in args.workloads.split(","):
            runs: dict[str, list[float]] = {"a": [], "b": []}
            for r in range(args.repeats):
                order = ("a", "b") if r % 2 == 0 else ("b", "a")
                for side in order:
                    games = max(1, int(GAMES[which] * args.scale))
                    runs[side].append(timed(layouts[side], games_dir, which, games, args.engine))
            a, b = statistics.median(runs["a"]), statistics.median(runs["b"])
            pairs = statistics.median(y / x for x, y in zip(runs["a"], runs["b"], strict=True))
            out[which] = {"a": runs["a"], "b": runs["b"], "ratio": b / a, "pair_ratio": pairs}
            if not args.json:
                print(f"{which:8} A {a:7.3f}s  B {b:7.3f}s  B/A {b / a:5.3f}  (pairs {pairs:5.3f})")
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
