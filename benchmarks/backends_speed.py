"""Games per second of `cardlang simulate` by backend: serial against local processes.

What it measures
    Two batches, each played by the serial backend and by the process backend with 1,
    2, ... up to every core this machine gives the process (``--max-workers``):

    * ``hearts-random``: ``games/hearts.rcy``, four random players (short games, about
      0.6 ms each: the overheads of shipping games and results weigh the most);
    * ``hearts-ismcts``: ``games/hearts.rcy``, ``ismcts:iterations=50`` against three
      random players, ``--rotate-seats`` (long games, about 0.2 s each: the case the
      process backend is for).

    Each measurement is one ``cardlang simulate FILE --agents ... --games N --seed S
    --backend B --workers K --json --quiet`` in a fresh process, and its figure is the
    summary's ``games_per_second``: the time from the first game handed out to the last
    one counted, starting the worker pool included (loading the game is not).  Every
    repetition runs every configuration, in an order rotated from one repetition to the
    next, so that a drift of the machine's load spreads over all of them; the table
    gives the median games per second of ``--repeats`` repetitions (default 3), the
    speed-up (median / the serial median) and the efficiency (speed-up / workers).
    Every run of a batch must give the same summary (wins, decisions, turns, strength):
    the script checks it and says so (``"identical"`` in ``--json``).

    Other processes on the machine lower the speed-up, so each repetition also measures
    the machine's *ceiling* for k workers: k processes that only count in a loop, run
    together, against one alone (k / their wall time, relative to one's).  On an idle
    k-core machine it is about k; a speed-up near the ceiling means the backend costs
    little beyond what the machine gives.  The load average before the run is recorded.

Usage (from the repository root)
    python benchmarks/backends_speed.py                    # about 3 minutes on 2 cores
    python benchmarks/backends_speed.py --only hearts-random --repeats 5 --json
    python benchmarks/backends_speed.py --random-games 20000 --search-games 32 --max-workers 8
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import cardlang_command, median, note, parse_json_output  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HEARTS = "games/hearts.rcy"
#: Summary fields that depend on the clock or on the backend.
VOLATILE = {"seconds", "games_per_second", "records"}


@dataclass(frozen=True)
class Batch:
    name: str
    file: str
    agents: str
    games: int
    rotate: bool = False


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def configurations(max_workers: int) -> list[tuple[str, int]]:
    return [("serial", 1)] + [("process", k) for k in range(1, max_workers + 1)]


SPIN = "for i in range(6_000_000): pass"


def ceiling(k: int) -> float:
    """How much faster k CPU-bound processes get through k units of work than one
    gets through one: what this machine gives k workers right now."""

    def wall(n: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(n)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start

    return k * wall(1) / wall(k)


def run_once(batch: Batch, backend: str, workers: int, seed: int) -> dict[str, Any]:
    """One `cardlang simulate` run; its JSON summary."""
    argv = [*cardlang_command(), "simulate", batch.file, "--agents", batch.agents]
    argv += ["--games", str(batch.games), "--seed", str(seed), "--json", "--quiet"]
    argv += ["--backend", backend, "--workers", str(workers)]
    argv += ["--rotate-seats"] if batch.rotate else []
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr}")
    return parse_json_output(proc.stdout)


def measure(batch: Batch, configs: list[tuple[str, int]], repeats: int, seed: int) -> dict:
    """Every configuration ``repeats`` times, interleaved; medians and speed-ups."""
    rates: dict[tuple[str, int], list[float]] = {c: [] for c in configs}
    ceilings: dict[int, list[float]] = {k: [] for _, k in configs}
    summaries: set[str] = set()
    for r in range(repeats):
        for k in ceilings:
            ceilings[k].append(ceiling(k))
        order = configs[r % len(configs) :] + configs[: r % len(configs)]
        for backend, workers in order:
            summary = run_once(batch, backend, workers, seed)
            rates[(backend, workers)].append(summary["games_per_second"])
            stable = {k: v for k, v in summary.items() if k not in VOLATILE}
            summaries.add(json.dumps(stable, sort_keys=True))
            note(f"  {batch.name} {backend} x{workers}: {summary['games_per_second']:.1f} games/s")
    serial = median(rates[("serial", 1)]) or 0.0
    rows = []
    for (backend, workers), values in rates.items():
        mid = median(values) or 0.0
        speedup = mid / serial if serial else 0.0
        rows.append(
            {
                "backend": backend,
                "workers": workers,
                "games_per_second": round(mid, 2),
                "runs": [round(v, 2) for v in values],
                "speedup": round(speedup, 3),
                "efficiency": round(speedup / workers, 3),
                "ceiling": round(median(ceilings[workers]) or 0.0, 3),
            }
        )
    return {"batch": batch.__dict__, "rows": rows, "identical": len(summaries) == 1}


def print_table(result: dict) -> None:
    batch = result["batch"]
    print(f"\n{batch['name']}: {batch['games']} games of {batch['file']}, agents {batch['agents']}")
    head = f"{'backend':<9} {'workers':>7} {'games/s':>10} {'speed-up':>9} {'efficiency':>10}"
    print(f"{head} {'ceiling':>8}")
    for row in result["rows"]:
        print(
            f"{row['backend']:<9} {row['workers']:>7} {row['games_per_second']:>10.1f} "
            f"{row['speedup']:>9.2f} {row['efficiency']:>10.2f} {row['ceiling']:>8.2f}"
        )
    same = "identical" if result["identical"] else "DIFFERENT (a bug: please report it)"
    print(f"summaries of all runs: {same}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random-games", type=int, default=6000)
    parser.add_argument("--search-games", type=int, default=16)
    parser.add_argument("--max-workers", type=int, default=cores())
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default=None, help="comma-separated batch names")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
    batches = [
        Batch("hearts-random", HEARTS, "random", args.random_games),
        Batch("hearts-ismcts", HEARTS, "ismcts:iterations=50,random,random,random",
              args.search_games, rotate=True),
    ]  # fmt: skip
    if args.only:
        wanted = set(args.only.split(","))
        batches = [b for b in batches if b.name in wanted]
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    note(f"{cores()} cores; load average before the run: {load}")
    configs = configurations(args.max_workers)
    results = [measure(b, configs, args.repeats, args.seed) for b in batches]
    if args.json:
        out = {"cores": cores(), "load_before": load, "repeats": args.repeats, "results": results}
        print(json.dumps(out, indent=2))
    else:
        print(f"{cores()} cores; load average before the run: {load}")
        for result in results:
            print_table(result)
    return 0 if all(r["identical"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
