"""Training throughput: two-player Dominion games trained per CPU core-hour, learning
included, for ``cardlang train --algorithm ppo`` beside ``--algorithm search`` (the
pipeline before issue 30), in one run.

What it measures
    Each pipeline runs as the user runs it, ``cardlang train games/dominion.rcy`` in a
    subprocess with one torch thread and no evaluation:

    - ``ppo``: ``--rounds R`` rounds (3), each ``--updates U`` PPO updates of ``--envs``
      lockstep games against the pool ``--opponents`` (the default: self-play, past
      snapshots and the three bots);
    - ``search``: one round of ``--games G`` self-play games with 16 Gumbel iterations per
      move and 50 gradient steps (the shipped models' recipe), serial (a round of it
      already takes as long as the PPO run).

    The figure is the run's games divided by the CPU time of the process and its
    children (``metrics.jsonl``: games, cpu_hours; start-up included: about 8 s of
    imports and loading, which one round of PPO would count once in 45 s and an hour's
    run once in 3,600), beside the last round's games over its own CPU time (``round
    alone``: what an hour's run tends to; the past pool, a snapshot every 10 updates and
    8 kept, is full from the ninth round, so ``--rounds 9`` measures a full one), and the
    peak resident memory of the whole command (``ru_maxrss`` of the child).  The PPO
    command runs with its defaults: the shipped models' recipe (2 epochs, horizon 64).
    The pipelines alternate
    (``--repeats`` times, A B A B ...); the table gives medians.  ``--init MODEL`` starts
    both from the same trained model (the same network, and games as long as a trained
    policy's; from random weights a game lasts several times as many decisions).  The
    issue's goal: at least 150,000 games per core-hour with resident memory under 4 GB.

Usage (from the repository root)
    python benchmarks/train_throughput.py
    python benchmarks/train_throughput.py --init models/dominion-2p --json out.json
    python benchmarks/train_throughput.py --init models/dominion-general \
        --versus runs/general-reading-piles/model.pt --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import median, note  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PEAK = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
    "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)
POOL = "self@3,past@1,random@1,bigmoney@1,bmu@1,smithy@1"


def _train(arguments: list[str], rounds: int) -> dict[str, Any]:
    """``rounds`` rounds of ``cardlang train`` in a child: its games, CPU seconds and peak
    RSS."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        command = [
            sys.executable,
            "-m",
            "cardlang",
            "train",
            "games/dominion.rcy",
            "--out",
            str(out),
            "--rounds",
            str(rounds),
            "--evaluate-every",
            "0",
            *arguments,
        ]
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        # a fresh wrapper per command: its children's peak RSS is this command's alone
        done = subprocess.run(
            [sys.executable, "-c", PEAK, *command],
            cwd=ROOT,
            check=True,
            capture_output=True,
            env=env,
            text=True,
        )
        peak = int(done.stdout.split()[-1])
        rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    cpu = rows[-1]["cpu_hours"] * 3600  # the whole command's (actors' too), start-up included
    games = sum(row["games"] for row in rows)
    # what a step costs, whatever the games' length (search's rounds do not count steps)
    steps = sum(row.get("steps", 0) for row in rows)
    # the last round's own CPU (the command's start-up apart): what a long run tends to
    # (search's rounds do not say: there, the whole command's)
    last = rows[-1].get("games_per_core_hour", games / cpu * 3600)
    return {
        "rounds": len(rows),
        "games": games,
        "cpu_seconds": cpu,
        "games_per_core_hour": games / cpu * 3600,
        "steps_per_core_hour": steps / cpu * 3600,
        "round_games_per_core_hour": last,
        # the command's child and its actor processes' peaks, summed (the metrics' rss_mb
        # adds the workers' to the learner's; the wrapper sees the largest process only)
        "peak_rss_mb": max(peak / 1024, max(row.get("rss_mb", 0.0) for row in rows)),
        "wall_seconds": sum(row["seconds"] for row in rows),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3, help="ppo: rounds per run (3)")
    p.add_argument("--updates", type=int, default=10)
    p.add_argument("--envs", type=int, default=128)
    p.add_argument("--games", type=int, default=4, help="search self-play games per round")
    p.add_argument("--opponents", default=POOL)
    p.add_argument("--init", default=None, help="start both pipelines from this model")
    p.add_argument(
        "--versus",
        default=None,
        metavar="MODEL",
        help="an A/B of two models' inputs: PPO from --init against PPO from this model "
        "(for example the same weights reading piles by their cards: info pile_cards), "
        "in place of search",
    )
    p.add_argument(
        "--serial",
        action="store_true",
        help="also run PPO with its actor in the learner's process (--backend serial), "
        "beside the default (--backend process: an actor process while the learner learns)",
    )
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()
    ppo = ["--algorithm", "ppo", "--updates", str(args.updates), "--envs", str(args.envs)]
    ppo += ["--opponents", args.opponents, "--horizon", "64", "--max-decisions", "600"]
    search = ["--algorithm", "search", "--games", str(args.games), "--iterations", "16"]
    search += ["--policy", "gumbel", "--backend", "serial", "--device", "cpu"]
    recipe = list(ppo)  # PPO's settings before the model it starts from
    if args.init:  # both from the same network and weights: games of the same length
        ppo += ["--init", args.init]
        search += ["--init", args.init]
    pipelines = [("ppo", ppo), ("search", search)]
    if args.versus:  # the same recipe from another model: what its inputs cost
        if not args.init:
            p.error("--versus needs --init (the model it is compared with)")
        versus = [*recipe, "--init", args.versus]
        pipelines = [("ppo", ppo), ("versus", versus)]
    if args.serial:
        pipelines.insert(1, ("ppo-serial", [*ppo, "--backend", "serial", "--actors", "1"]))
        pipelines[0] = ("ppo", [*ppo, "--actors", "1"])  # the same run, another backend
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in pipelines}
    for repeat in range(args.repeats):
        for name, arguments in pipelines:
            row = _train(arguments, 1 if name == "search" else args.rounds)
            runs[name].append(row)
            rate = row["games_per_core_hour"]
            steps = row["steps_per_core_hour"]
            note(
                f"[{repeat + 1}/{args.repeats}] {name}: {rate:,.0f} games/core-hour, "
                f"{steps:,.0f} steps/core-hour"
            )
    table = {
        name: {
            "games_per_core_hour": median([r["games_per_core_hour"] for r in rows]),
            "steps_per_core_hour": median([r["steps_per_core_hour"] for r in rows]),
            "round_games_per_core_hour": median([r["round_games_per_core_hour"] for r in rows]),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in rows),
            "wall_seconds": median([r["wall_seconds"] for r in rows]),
            "runs": rows,
        }
        for name, rows in runs.items()
    }
    # against search, games (its rounds count no steps); against another model's inputs,
    # steps: a model that never learnt its inputs plays games of another length
    other, per = (
        ("versus", "steps_per_core_hour") if args.versus else ("search", "games_per_core_hour")
    )
    ratio = table["ppo"][per] / table[other][per]
    print(
        f"{'pipeline':10} {'games/core-hour':>16} {'steps/core-hour':>16} {'round alone':>12} "
        f"{'peak RSS MB':>12} {'wall s':>8}"
    )
    for name, row in table.items():
        print(
            f"{name:10} {row['games_per_core_hour']:16,.0f} {row['steps_per_core_hour']:16,.0f} "
            f"{row['round_games_per_core_hour']:12,.0f} {row['peak_rss_mb']:12,.0f} "
            f"{row['wall_seconds']:8,.0f}"
        )
    print(
        f"ppo / {other} ({per}): {ratio:.2f}x "
        "(goal: ppo >= 150,000 games per core-hour, RSS < 4 GB)"
    )
    if args.json:
        result = {
            "machine": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "settings": vars(args) | {"json": str(args.json)},
            "pipelines": table,
            "ratio": ratio,
            "ratio_of": per,
        }
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
