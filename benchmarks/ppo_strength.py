"""The strength of a trained model's raw policy against the bots, thousands of games
inside the engine (issue 30's milestones).

What it measures
    The model's greedy policy (``learning/evaluate.py``: the engine writes the tokens
    ``neural:model=DIR`` reads, many games in lockstep) against each of ``--agents``:

    - several seats: the model in one seat, the agent in every other, the model's seat
      rotated, ``--games`` games; its win share (a tie its share, a game cut off at
      ``--max-decisions`` 0) with a Wilson 95% interval;
    - solo: its mean turns over the completed games and each agent's, with bootstrap
      intervals, the same number of games each.

    ``--check N`` also plays N games against the first agent through the batch runner
    with the agent spec ``neural:model=DIR`` (the Python tokenizer: the path a user
    takes), to show the two paths agree.  Nothing is timed.

Usage (from the repository root)
    python benchmarks/ppo_strength.py models/dominion-2p --agents bigmoney,bmu,smithy --games 4000
    python benchmarks/ppo_strength.py models/dominion-solo --param players=1 --games 4000
    python benchmarks/ppo_strength.py models/dominion-unseen --other-game --agents bmu \
        --param kingdom=witch,laboratory,festival,council-room,moneylender,library,\
moat,cellar,chapel,vassal
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch
from cardlang.agents.neural.model import load_model

from cardlang import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.language.params import parse_param_args
from cardlang.learning.evaluate import GreedyEvaluator
from cardlang.runs.simulate import run_batch
from cardlang.runs.statistics import wilson_interval

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("model", type=Path)
    p.add_argument("--game", type=Path, default=ROOT / "games" / "dominion.rcy")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--agents", default="bigmoney,bmu,smithy")
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--max-decisions", type=int, default=2000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--check", type=int, default=0, help="games through neural:model=DIR")
    p.add_argument(
        "--other-game",
        action="store_true",
        help="the model learnt another game file (a variant, made-up cards): its cards never "
        "met are read by what they do (the agent spec's other_game=1)",
    )
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()
    torch.set_num_threads(1)
    params = parse_param_args(args.param)
    game = load_game(args.game, params=params)
    model = load_model(args.model, game, device="cpu", other_game=args.other_game)
    model.freeze()
    limits = Limits(max_decisions=args.max_decisions)
    judge = GreedyEvaluator(model, game, limits, model_path=args.model, params=params)
    agents = [a for a in args.agents.split(",") if a]
    out: dict[str, Any] = {"model": str(args.model), "params": params, "games": args.games}
    if game.nplayers == 1:
        out["neural"] = judge.solo(args.games, args.seed)
        for spec in agents:
            out[spec] = judge.solo_agent(spec, args.games, args.seed)
        for name in ["neural", *agents]:
            f = out[name]
            print(
                f"{name:10} {f['mean_turns']:6.2f} turns [{f['low']:.2f}, {f['high']:.2f}] "
                f"({f['completed']}/{f['games']} completed)"
            )
    else:
        for spec in agents:
            f = out[spec] = judge.share(spec, args.games, args.seed)
            print(
                f"vs {spec:10} {f['win_share']:.3f} [{f['low']:.3f}, {f['high']:.3f}] "
                f"({f['games']} games, seats rotated)"
            )
    if args.check and agents and game.nplayers > 1:
        me = f"neural:model={args.model}" + (":other_game=1" if args.other_game else "")
        summary = run_batch(
            game,
            games=args.check,
            seed=args.seed + 1,
            agent_specs=[me] + [agents[0]] * (game.nplayers - 1),
            limits=limits,
            rotate_seats=True,
            params=params,
        )
        credit, n = summary.agent_credits.get(me, 0.0), summary.agent_games.get(me, 0)
        low, high = wilson_interval(credit, n)
        out["check"] = {"agent": agents[0], "win_share": credit / n, "low": low, "high": high}
        print(f"check, {me} vs {agents[0]}: {credit / n:.3f} [{low:.3f}, {high:.3f}] ({n} games)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
