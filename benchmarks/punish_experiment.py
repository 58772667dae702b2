"""The experiment of the Punish notes, reproduced with cardlang's commands.

What it does (every step is a ``cardlang`` command a user could type; the log shows each)
    1. **Records.**  ``cardlang simulate games/punish.rcy --db RECORDS`` plays ``--games``
       games between two search agents (``ismcts:iterations=200`` and
       ``ismcts:iterations=50``, seats rotating), the "logged games" of the notes.
    2. **Opponent models** from those records (``cardlang fit-opponent``): PARLESS (a
       Dirichlet posterior per observed state), champion-PARLESS (the winners' decisions
       only) and PAWNN (PARLESS plus a network for states never observed, k-fold
       validated).
    3. **Policies.**  ``cardlang solve --explore`` for seat 0 against each opponent:
       uniform, PARLESS, champion-PARLESS, PAWNN.  States are the seat's ``counts`` keys
       without the storages and locations the notes' abstraction leaves out (the last
       damage, the Measure counter, the game's end flags, the face-up cards, the deck's
       size); reward ``win`` (+1/-1/0) and discount 0.95, as in the notes.  Each solve's
       states, time and peak memory are kept.
    4. **The table.**  Each policy (and, for scale, ``random`` and the search agent that
       made the records) plays seat 0 against each opponent as an agent in seat 1
       (``random`` for uniform, ``model:path=...`` for the fitted ones): ``--play`` games
       each, dealt from seeds the solves never used.  Each cell is seat 0's win share with
       its 95% Wilson interval (a game cut off after 30 Measures counts as no win).

Every step is skipped when its output exists (the records resume by themselves), so a
killed run goes on where it stopped.  The results are written as JSON and as the
Markdown table docs/solving.md shows.

Usage (from the repository root; about 12 minutes on a 2-core machine)
    python benchmarks/punish_experiment.py
    python benchmarks/punish_experiment.py --games 500 --explore 20000 --play 500 --work /tmp/p
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cardlang.runs.statistics import wilson_interval

GAME = "games/punish.rcy"
RECORDERS = "ismcts:iterations=200,ismcts:iterations=50"
REFERENCE = "ismcts:iterations=200"
IGNORE = "DAMAGE,MEASURES,WON,OVER,DRAWN,SHOWING,DISCARD,DECK"
KEYS = ["--keys", "counts", "--ignore", IGNORE]
MODELS = {  # name -> fit-opponent options
    "PARLESS": ["--method", "parless"],
    "champion-PARLESS": ["--method", "parless", "--champion"],
    "PAWNN": ["--method", "pawnn"],
}
#: Solve and play seeds, kept apart from the records' and from each other.
SOLVE_SEED = 1_000
PLAY_SEED = 2_000_000


def cardlang(*args: str, capture: bool = True) -> str:
    command = [sys.executable, "-m", "cardlang", *args]
    print("$ cardlang " + " ".join(args), file=sys.stderr, flush=True)
    done = subprocess.run(command, text=True, capture_output=capture)
    if done.returncode != 0:
        sys.exit(f"the command failed (exit {done.returncode}):\n{done.stderr}")
    return done.stdout if capture else ""


def record(work: Path, games: int) -> Path:
    db = work / "records.sqlite"
    cardlang(
        "simulate", GAME, "--games", str(games), "--agents", RECORDERS, "--rotate-seats",
        "--db", str(db), "--seed", "0", "--quiet", "--json",
    )  # fmt: skip
    return db


def fit(work: Path, db: Path) -> dict[str, Any]:
    fitted = {}
    for name, options in MODELS.items():
        out = work / f"model-{name}.json"
        summary = work / f"model-{name}.summary.json"
        if not summary.exists():
            text = cardlang(
                "fit-opponent", str(db), "--game", GAME, "--out", str(out), *KEYS, *options,
                "--json",
            )  # fmt: skip
            summary.write_text(text)
        fitted[name] = {"path": str(out), **json.loads(summary.read_text())}
    return fitted


def solve(work: Path, opponents: dict[str, str], explore: int) -> dict[str, Any]:
    solved = {}
    for name, spec in opponents.items():
        out = work / f"policy-vs-{name}.json"
        summary = work / f"policy-vs-{name}.summary.json"
        if not summary.exists():
            started = time.perf_counter()
            text = cardlang(
                "solve", GAME, "--seat", "0", "--opponent", spec, *KEYS,
                "--discount", "0.95", "--explore", str(explore), "--seed", str(SOLVE_SEED),
                "--out", str(out), "--checkpoint", str(work / f"solve-vs-{name}.ckpt"),
                "--json", "--quiet",
            )  # fmt: skip
            result = json.loads(text)
            result.pop("history")
            result["wall_seconds"] = round(time.perf_counter() - started, 1)
            summary.write_text(json.dumps(result))
        solved[name] = {"path": str(out), **json.loads(summary.read_text())}
    return solved


def play(seat0: str, seat1: str, games: int) -> dict[str, Any]:
    text = cardlang(
        "simulate", GAME, "--games", str(games), "--agents", f"{seat0},{seat1}",
        "--seed", str(PLAY_SEED), "--quiet", "--json",
    )  # fmt: skip
    r = json.loads(text)
    wins = r["wins"][0]  # seat 0's (a shared win would count 1/k; Punish has none)
    low, high = wilson_interval(wins, r["planned"])
    return {
        "games": r["planned"],
        "wins": wins,
        "share": wins / r["planned"],
        "ci_low": low,
        "ci_high": high,
        "cutoff": r["cutoff"],
    }


def table(rows: dict[str, dict[str, Any]], columns: list[str]) -> str:
    lines = [
        "| seat 0 \\ seat 1 | " + " | ".join(columns) + " |",
        "|---|" + "---:|" * len(columns),
    ]
    for name, cells in rows.items():
        text = [
            f"{c['share']:.1%} ({c['ci_low']:.1%}–{c['ci_high']:.1%})"
            for c in (cells[col] for col in columns)
        ]
        lines.append(f"| {name} | " + " | ".join(text) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("cardlang-runs/punish-experiment"))
    ap.add_argument("--games", type=int, default=3_000, help="recorded games (3000)")
    ap.add_argument("--explore", type=int, default=100_000, help="games per solve (100000)")
    ap.add_argument("--play", type=int, default=2_000, help="games per cell (2000)")
    ap.add_argument("--out", type=Path, default=None, help="the results as JSON")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    db = record(args.work, args.games)
    models = fit(args.work, db)
    opponents = {"uniform": "uniform"} | {n: f"model:{m['path']}" for n, m in models.items()}
    solved = solve(args.work, opponents, args.explore)
    seat1 = {"uniform": "random"} | {n: f"model:path={m['path']}" for n, m in models.items()}
    seat0 = {f"solved vs {n}": f"policy:table={s['path']}" for n, s in solved.items()}
    seat0 |= {"random": "random", REFERENCE: REFERENCE}
    rows = {r: {c: play(a, b, args.play) for c, b in seat1.items()} for r, a in seat0.items()}
    results = {
        "records": {"games": args.games, "agents": RECORDERS},
        "keys": {"kind": "counts", "ignore": IGNORE.split(",")},
        "models": models,
        "solves": solved,
        "table": rows,
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(table(rows, list(seat1)))
    print()
    print("| policy solved against | states | explored games | time (s) | peak memory (MB) |")
    print("|---|---:|---:|---:|---:|")
    for name, s in solved.items():
        print(
            f"| {name} | {s['states']:,} | {s['starting_positions']:,} | {s['wall_seconds']} "
            f"| {s['peak_memory_mb']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
