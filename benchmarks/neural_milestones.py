"""The neural agent's milestones (issue 12), each measured in one run beside its peers.

What it measures (1,000 games each unless ``--games``; 95% intervals)
    * ``solo``: solo Dominion (First Game kingdom), mean turns to 4 Provinces of the model
      and of every scripted bot (bigmoney, bmu, smithy), same seeds; a bootstrap
      interval over games (cut-off games are counted apart, not averaged);
    * ``unseen``: the same on a kingdom that holds six cards never in any training
      kingdom (``--unseen-kingdom``), beside the bots;
    * ``duel``: two-player Dominion, the model against each of ``--duel-opponents``,
      seats rotated: the model's win share (a tie counts half) with Wilson's interval;
    * ``duel_unseen``: the same against ``--unseen-opponents`` (Big Money) on the unseen
      kingdom;
    * ``hearts``: the model in two seats of Hearts against ISMCTS (100 iterations) in the
      other two, seats rotated; and against three random players.

Nothing is timed: the figures are strengths.  The model plays greedily with
``--iterations`` of search (0: the raw policy; ``--policy`` its root).

Usage (from the repository root)
    python benchmarks/neural_milestones.py --solo models/dominion-solo --games 1000
    python benchmarks/neural_milestones.py --hearts runs/hearts --games 200 --json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cardlang import load_game
from cardlang.analysis.estimates import estimate, means
from cardlang.runs.simulate import run_batch
from cardlang.runs.statistics import wilson_interval

ROOT = Path(__file__).resolve().parent.parent
DOMINION = ROOT / "games" / "dominion.rcy"
HEARTS = ROOT / "games" / "hearts.rcy"
BOTS = ("bigmoney", "bmu", "smithy")
#: Six cards outside the First Game kingdom, with four of it (Smithy for the Smithy bot).
UNSEEN = "laboratory,festival,council-room,moneylender,library,witch,smithy,village,market,militia"


def solo_turns(
    model_spec: str, kingdom: str, games: int, seed: int, workers: int
) -> dict[str, Any]:
    game = load_game(DOMINION, params={"PLAYERS": "1", "KINGDOM": kingdom})
    out: dict[str, Any] = {}
    for name, spec in [("neural", model_spec)] + [(b, b) for b in BOTS]:
        turns: list[float] = []
        summary = run_batch(
            game,
            games=games,
            seed=seed,
            agent_specs=[spec],
            backend=_backend(workers),
            workers=workers,
            on_game=lambda r, t=turns: (
                t.append(float(r.turns)) if r.end_reason == "completed" else None
            ),
        )
        est = estimate(means(turns))
        out[name] = {
            "mean_turns": est.value,
            "low": est.ci_low,
            "high": est.ci_high,
            "completed": len(turns),
            "games": summary.games,
            "seconds": summary.seconds,
        }
        _progress(
            f"solo {kingdom[:24]} {name}: {est.value:.2f} [{est.ci_low:.2f}, {est.ci_high:.2f}]"
        )
    return out


def head_to_head(
    path: Path,
    params: dict[str, str],
    seats: list[str],
    model_spec: str,
    games: int,
    seed: int,
    workers: int,
) -> dict[str, Any]:
    game = load_game(path, params=params)
    summary = run_batch(
        game,
        games=games,
        seed=seed,
        agent_specs=seats,
        rotate_seats=True,
        params=params,
        backend=_backend(workers),
        workers=workers,
    )
    shares: dict[str, Any] = {}
    for agent in dict.fromkeys(seats):
        n = summary.agent_seats.get(agent, 0)
        credits = summary.agent_credits.get(agent, 0.0)
        low, high = wilson_interval(credits, n)
        shares[agent] = {
            "share": credits / n if n else float("nan"),
            "low": low,
            "high": high,
            "seats": n,
        }
    mine = shares[model_spec]
    _progress(f"{path.name} {seats}: {mine['share']:.3f} [{mine['low']:.3f}, {mine['high']:.3f}]")
    return {
        **mine,
        "by_agent": shares,
        "even_share": 1 / game.nplayers,
        "games": summary.games,
        "completed": summary.completed,
        "seconds": summary.seconds,
    }


def _backend(workers: int) -> str:
    return "process" if workers > 1 else "serial"


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--solo", help="a solo Dominion model (folder or file)")
    p.add_argument("--duel", help="a two-player Dominion model")
    p.add_argument("--duel-opponents", default="bmu,smithy,bigmoney")
    p.add_argument("--hearts", help="a Hearts model")
    p.add_argument("--unseen-kingdom", default=UNSEEN)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--hearts-games", type=int, default=None, help="(default: --games)")
    p.add_argument("--iterations", type=int, default=0, help="the model's search per move")
    p.add_argument("--policy", default="visits", help="the search's root: visits or gumbel")
    p.add_argument("--considered", type=int, default=8, help="a Gumbel root's moves")
    p.add_argument(
        "--unseen-opponents", default="bigmoney", help="the duel on the unseen kingdom ('': none)"
    )
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    results: dict[str, Any] = {
        "games": args.games,
        "iterations": args.iterations,
        "policy": args.policy,
        "considered": args.considered,
        "seed": args.seed,
    }
    search = f":iterations={args.iterations}:policy={args.policy}:considered={args.considered}"
    if args.solo:
        spec = f"neural:model={args.solo}{search}"
        results["solo"] = solo_turns(spec, "first-game", args.games, args.seed, args.workers)
        results["unseen"] = solo_turns(
            spec, args.unseen_kingdom, args.games, args.seed, args.workers
        )
        results["unseen"]["kingdom"] = args.unseen_kingdom
    if args.duel:
        spec = f"neural:model={args.duel}{search}"
        results["duel"] = {
            o: head_to_head(
                DOMINION,
                {"KINGDOM": "first-game"},
                [spec, o],
                spec,
                args.games,
                args.seed,
                args.workers,
            )
            for o in args.duel_opponents.split(",")
        }
        unseen = {"KINGDOM": args.unseen_kingdom}
        results["duel_unseen"] = {
            o: head_to_head(DOMINION, unseen, [spec, o], spec, args.games, args.seed, args.workers)
            for o in args.unseen_opponents.split(",")
            if o
        }
        results["duel_unseen"]["kingdom"] = args.unseen_kingdom
    if args.hearts:
        spec = f"neural:model={args.hearts}{search}"
        n = args.hearts_games or args.games
        results["hearts"] = {
            "ismcts:iterations=100": head_to_head(
                HEARTS, {}, [spec, "ismcts:iterations=100"] * 2, spec, n, args.seed, args.workers
            ),
            "random": head_to_head(
                HEARTS, {}, [spec, "random", "random", "random"], spec, n, args.seed, args.workers
            ),
        }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key, value in results.items():
            print(key, json.dumps(value, indent=1) if isinstance(value, dict) else value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
