"""CFR on our Kuhn and Leduc poker (registered with OpenSpiel) beside OpenSpiel's own.

Our games/kuhn_poker.rcy and games/leduc_poker.rcy are registered with pyspiel through
``cardlang.env.openspiel.register`` (exact chance, the Python engine) and solved with
OpenSpiel's C++ CFR (``pyspiel.CFRSolver``, or ``--solver cfr+`` for
``pyspiel.CFRPlusSolver``), and so are OpenSpiel's built-in ``kuhn_poker`` and
``leduc_poker`` (default parameters), for the same number of iterations, in one run.
At each checkpoint (1, 2, 5, 10, 20, 50... up to the iterations) it records the average
policy's exploitability (``pyspiel.exploitability``, NashConv / 2), the game's value to
seat 0 under it (``pyspiel.expected_returns``) and the seconds spent in CFR iterations
so far (exploitability is not timed).

The two pairs of games have the same trees (same chance, same action order), so the
curves should coincide; the seconds show what playing the rules through cardlang costs
against OpenSpiel's C++ games (a first traversal runs the engine; after it, positions
come from a cache keyed by OpenSpiel history).

    python benchmarks/openspiel_cfr.py                       # table; about 2 minutes
    python benchmarks/openspiel_cfr.py --kuhn-iterations 1000 --leduc-iterations 200 \\
        --json benchmarks/results/2026-11-24-openspiel_cfr.json --plot cfr.png

Written against open_spiel 2.0.2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import pyspiel

from cardlang.env import openspiel

ROOT = Path(__file__).resolve().parent.parent
SOLVERS = {"cfr": pyspiel.CFRSolver, "cfr+": pyspiel.CFRPlusSolver}


def checkpoints(iterations: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... up to ``iterations`` (always included)."""
    out, scale = [], 1
    while scale <= iterations:
        out += [k * scale for k in (1, 2, 5) if k * scale <= iterations]
        scale *= 10
    return sorted(set(out + [iterations]))


def curve(game: Any, iterations: int, solver: str) -> list[dict[str, float]]:
    """CFR on ``game``: exploitability, value and CFR seconds at each checkpoint."""
    started = time.perf_counter()
    cfr = SOLVERS[solver](game)
    spent = time.perf_counter() - started  # the solver's first walk of the tree
    points = []
    done = 0
    for target in checkpoints(iterations):
        started = time.perf_counter()
        for _ in range(target - done):
            cfr.evaluate_and_update_policy()
        spent += time.perf_counter() - started
        done = target
        policy = cfr.average_policy()
        points.append(
            {
                "iteration": target,
                "exploitability": pyspiel.exploitability(game, policy),
                "value": pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)[0],
                "seconds": spent,
            }
        )
    return points


def games() -> dict[str, Any]:
    """The four games: ours (registered) and OpenSpiel's, by a short label."""
    return {
        "cardlang kuhn": openspiel.register(
            ROOT / "games" / "kuhn_poker.rcy", name="cardlang_kuhn_poker", utility_range=(-2, 2)
        ),
        "openspiel kuhn": pyspiel.load_game("kuhn_poker"),
        "cardlang leduc": openspiel.register(
            ROOT / "games" / "leduc_poker.rcy",
            name="cardlang_leduc_poker",
            utility_range=(-13, 13),
        ),
        "openspiel leduc": pyspiel.load_game("leduc_poker"),
    }


def table(results: dict[str, list[dict[str, float]]]) -> str:
    """Side by side: per game pair, exploitability of ours and OpenSpiel's, and seconds."""
    lines = []
    for pair in ("kuhn", "leduc"):
        ours, theirs = results[f"cardlang {pair}"], results[f"openspiel {pair}"]
        lines.append(f"\n{pair.capitalize()} poker")
        lines.append(
            f"{'iter':>6} {'cardlang expl':>14} {'openspiel expl':>15} {'|diff|':>9} "
            f"{'value p0':>9} {'cardlang s':>11} {'openspiel s':>12}"
        )
        for a, b in zip(ours, theirs, strict=True):
            lines.append(
                f"{a['iteration']:>6} {a['exploitability']:>14.6f} {b['exploitability']:>15.6f} "
                f"{abs(a['exploitability'] - b['exploitability']):>9.1e} {a['value']:>9.5f} "
                f"{a['seconds']:>11.2f} {b['seconds']:>12.3f}"
            )
    return "\n".join(lines)


def plot(results: dict[str, list[dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, pair in zip(axes, ("kuhn", "leduc"), strict=True):
        for label, style in ((f"cardlang {pair}", "o-"), (f"openspiel {pair}", "x--")):
            points = results[label]
            ax.loglog(
                [p["iteration"] for p in points],
                [max(p["exploitability"], 1e-12) for p in points],
                style,
                label=label,
            )
        ax.set_title(f"CFR on {pair.capitalize()} poker")
        ax.set_xlabel("iterations")
        ax.set_ylabel("exploitability")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kuhn-iterations", type=int, default=1000)
    parser.add_argument("--leduc-iterations", type=int, default=200)
    parser.add_argument("--solver", choices=sorted(SOLVERS), default="cfr")
    parser.add_argument("--json", type=Path, help="write the curves and settings here")
    parser.add_argument("--plot", type=Path, help="draw the curves into this PNG")
    args = parser.parse_args(argv)
    results = {}
    for label, game in games().items():
        iterations = args.kuhn_iterations if "kuhn" in label else args.leduc_iterations
        print(f"{label}: {iterations} iterations of {args.solver}...", file=sys.stderr)
        results[label] = curve(game, iterations, args.solver)
    print(table(results))
    if args.json:
        document = {
            "benchmark": "openspiel_cfr",
            "solver": args.solver,
            "open_spiel": getattr(pyspiel, "__version__", "2.0.2"),
            "kuhn_iterations": args.kuhn_iterations,
            "leduc_iterations": args.leduc_iterations,
            "curves": results,
        }
        args.json.write_text(json.dumps(document, indent=1) + "\n")
    if args.plot:
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
