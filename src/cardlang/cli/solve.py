"""``cardlang solve FILE --seat N --opponent SPEC``: a seat's best policy against a model.

Pipeline position: the command line (cli/), the face of cardlang.solve.  It lists the
starting positions (every deal, or ``--sample N`` of them), refuses a game tree too large
before walking it (with the estimate), builds the seat's decision process, runs value
iteration with a line per sweep, says whether the result is exact or an abstraction and
why, and prints the value of the start (``--json`` for machines).  ``--out`` saves the
policy as a table that plays as ``policy:table=PATH``; ``--plot`` draws the convergence.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from pathlib import Path
from typing import Any

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
    engine_option,
    fraction,
    limit_options,
    non_negative,
    param_option,
    positive,
    seed_option,
)
from cardlang.errors import UsageError
from cardlang.language.params import parse_param_args

__all__ = ["add_parser", "cmd_solve"]

#: The walk refuses a game tree estimated larger than this unless --max-nodes says more.
DEFAULT_MAX_NODES = 3_000_000
#: Deals a sampled process (--rollouts) starts from, unless --sample says.
SAMPLED_DEALS = 1_000


def add_parser(sub: SubParsers) -> None:
    from cardlang.information.observation import KEY_KINDS
    from cardlang.solve.process import REWARDS

    p = sub.add_parser(
        "solve",
        help="solve a small game for one seat against a model of the others (value iteration)",
        description="Build the seat's decision process (states: what it observes) from every "
        "deal of the game, with the others' moves weighted by the opponent model, and run "
        "value iteration. Exact for --keys info with every deal and an opponent whose "
        "probabilities are known; an abstraction or an estimate otherwise (it says which).",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--seat", type=int, default=0, help="the seat to solve for (0)")
    p.add_argument(
        "--opponent",
        default="uniform",
        metavar="SPEC",
        help="the others' model: uniform (default), any agent spec, policy:table=PATH",
    )
    p.add_argument("--reward", choices=REWARDS, default="win", help="win: +1/-1/0 (default); score")
    p.add_argument(
        "--keys",
        choices=KEY_KINDS,
        default="info",
        help="states: info (all the seat has observed; exact) or view (what it sees now)",
    )
    p.add_argument("--discount", type=fraction, default=1.0, help="per decision (1)")
    p.add_argument(
        "--tolerance", type=non_negative, default=1e-9, help="stop when a sweep changes less"
    )
    p.add_argument("--max-sweeps", type=positive, default=10_000, help="at most (10000)")
    p.add_argument(
        "--sample",
        type=positive,
        default=None,
        metavar="N",
        help="N deals from seeds instead of every deal (values then carry a sampling error; "
        f"with --rollouts, {SAMPLED_DEALS:,} by default)",
    )
    p.add_argument(
        "--max-nodes",
        type=positive,
        default=DEFAULT_MAX_NODES,
        help=f"refuse a game tree estimated larger ({DEFAULT_MAX_NODES:,})",
    )
    p.add_argument(
        "--rollouts",
        type=positive,
        default=None,
        metavar="N",
        help="estimate the process instead of walking it: N sampled transitions per state "
        "and action, from real positions (for games too large to walk)",
    )
    p.add_argument(
        "--max-states", type=positive, default=200_000, help="with --rollouts: at most (200000)"
    )
    p.add_argument(
        "--play",
        type=positive,
        default=2_000,
        help="with --rollouts: games that measure the policy",
    )
    p.add_argument("--out", type=Path, default=None, help="save the policy table (JSON)")
    p.add_argument("--plot", type=Path, default=None, help="save the convergence plot (PNG)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    seed_option(p, text="the first seed dealt (0)")
    param_option(p)
    engine_option(p)
    limit_options(p)


def cmd_solve(args: argparse.Namespace) -> int:
    from cardlang.compiler.load import load_game
    from cardlang.engine.gamemaster import Limits
    from cardlang.solve import (
        Problem,
        evaluate_policy,
        opponent_model,
        starting_positions,
        value_iteration,
    )
    from cardlang.solve.sampling import play_policy, sample_process
    from cardlang.solve.table import policy_document, save_policy

    game = load_game(args.file, params=parse_param_args(args.param))
    if not 0 <= args.seat < game.nplayers:
        raise UsageError(f"--seat {args.seat}: the game has seats 0 to {game.nplayers - 1}")
    master = game.master(Limits(args.max_decisions, args.max_steps))
    say = _reporter(args)
    clock = time.perf_counter()
    opponents = opponent_model(args.opponent, game, game.nplayers, args.seed)
    sample = args.sample
    if args.rollouts is not None and sample is None:
        sample = SAMPLED_DEALS
    record = args.rollouts is None or args.keys == "info" or opponents.needs_history
    positions = starting_positions(master, sample=sample, seed=args.seed, record=record)
    say(f"starting positions: {positions.note}")
    problem = Problem(
        master, game, positions, args.seat, opponents, keys_kind=args.keys, reward=args.reward
    )
    if args.rollouts is None:
        process = _walked(problem, args, say)
    else:
        process = sample_process(
            problem,
            samples=args.rollouts,
            max_states=args.max_states,
            seed=args.seed,
            progress=lambda n, s: say(f"  {n:,} states expanded of {s:,}", transient=True),
        )
    built = time.perf_counter()
    say(
        f"decision process: {process.n_states:,} states, {process.n_pairs:,} actions, "
        f"{process.n_transitions:,} transitions ({process.nodes:,} nodes walked)"
    )

    def on_sweep(s: Any) -> None:
        say(
            f"  sweep {s.number}: rmse {s.rmse:.3g}, max change {s.max_change:.3g}, "
            f"greedy actions changed {s.changed_actions}"
        )

    vi = value_iteration(
        process,
        discount=args.discount,
        tolerance=args.tolerance,
        max_sweeps=args.max_sweeps,
        on_sweep=on_sweep,
    )
    solved = time.perf_counter()
    policy = {key: process.actions[s][vi.greedy[s]] for s, key in enumerate(process.keys)}
    if args.rollouts is None:
        per_position = evaluate_policy(problem, policy)
        played = sum(w * v for w, v in zip(positions.weights, per_position, strict=True))
        error = _standard_error(per_position) if not positions.exact else 0.0
    else:
        rewards = play_policy(problem, policy, args.play, args.seed)
        played, error = sum(rewards) / len(rewards), _standard_error(rewards)
    exactness = _exactness(positions, args.keys, opponents, args.discount, args.rollouts)
    result = {
        "value": vi.start_value,
        "states": process.n_states,
        "sweeps": len(vi.sweeps),
        "converged": vi.converged,
        "exact": exactness[0],
        "why": exactness[1],
        "policy_value": played,
        "standard_error": error,
        "actions": process.n_pairs,
        "transitions": process.n_transitions,
        "nodes": process.nodes,
        "starting_positions": len(positions.states),
        "seconds_to_build": round(built - clock, 3),
        "seconds_to_solve": round(solved - built, 3),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "seat": args.seat,
        "opponent": args.opponent,
        "reward": args.reward,
        "keys": args.keys,
        "discount": args.discount,
        "history": [vars(s) for s in vi.sweeps],
    }
    if args.out is not None:
        meta = {k: result[k] for k in ("opponent", "reward", "discount", "exact")}
        save_policy(args.out, policy_document(process, vi, game_path=Path(args.file), meta=meta))
    if args.plot is not None:
        _plot(vi.sweeps, args.plot)
    if args.json:
        print(json.dumps(result))
    else:
        _print_result(result, args)
    return EXIT_OK


def _walked(problem: Any, args: argparse.Namespace, say: Any) -> Any:
    """The process walked whole, after refusing a tree estimated too large."""
    from cardlang.solve import build_process, estimate_nodes
    from cardlang.solve.worlds import count_text

    estimate = estimate_nodes(problem, probes=200, seed=args.seed)
    if estimate > args.max_nodes:
        raise UsageError(
            f"the game tree holds {count_text(estimate)} nodes (estimated from 200 random "
            f"paths), more than --max-nodes {args.max_nodes:,}: too large to walk; "
            "--rollouts N estimates the process by sampling instead"
        )
    say(f"walking about {estimate:,.0f} game-tree nodes")
    return build_process(
        problem,
        max_nodes=max(args.max_nodes, int(estimate * 4)),
        progress=lambda n: say(f"  {n:,} nodes", transient=True),
    )


def _exactness(
    positions: Any, keys: str, opponents: Any, discount: float, rollouts: int | None
) -> tuple[bool, str]:
    reasons = []
    if rollouts is not None:
        reasons.append(
            f"transitions estimated from {rollouts} samples per state and action, the "
            "policy's value from games played"
        )
    if not positions.exact:
        reasons.append(f"{positions.note}, not every deal: values carry a sampling error")
    if keys != "info":
        reasons.append(f"{keys} keys merge positions the seat could tell apart (an abstraction)")
    if not opponents.exact:
        reasons.append(
            f"the opponent {opponents.spec} gives no probabilities: its choice at each "
            "position is taken as certain"
        )
    if reasons:
        return False, "; ".join(reasons)
    text = "every deal, the seat's information states, the opponent model's probabilities"
    if discount < 1.0:
        text += f" (discounted by {discount} per decision)"
    return True, text


def _standard_error(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return float("nan")
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(var / n)


def _reporter(args: argparse.Namespace) -> Any:
    show = not args.quiet

    def say(text: str, transient: bool = False) -> None:
        if not show or (transient and not sys.stderr.isatty()):
            return
        print(text, file=sys.stderr, end="\r" if transient else "\n", flush=True)

    return say


def _print_result(r: dict[str, Any], args: argparse.Namespace) -> None:
    rows = [
        ("game", args.file),
        ("seat", r["seat"]),
        ("opponent", r["opponent"]),
        ("reward", r["reward"]),
        ("value of the start", f"{r['value']:.6f}"),
        (
            "value of the policy played",
            f"{r['policy_value']:.6f}"
            + (f" (standard error {r['standard_error']:.4f})" if r["standard_error"] else ""),
        ),
        ("exact", "yes: " + r["why"] if r["exact"] else "no: " + r["why"]),
        ("states", f"{r['states']:,} ({args.keys} keys)"),
        ("actions / transitions", f"{r['actions']:,} / {r['transitions']:,}"),
        ("nodes walked", f"{r['nodes']:,} from {r['starting_positions']:,} starting positions"),
        ("sweeps", f"{r['sweeps']}" + ("" if r["converged"] else " (not converged)")),
        ("time", f"{r['seconds_to_build']:.2f} s to build, {r['seconds_to_solve']:.2f} s to solve"),
        ("peak memory", f"{r['peak_memory_mb']:.0f} MB"),
    ]
    if args.out is not None:
        rows.append(("policy table", f"{args.out} (plays as policy:table={args.out})"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def _plot(sweeps: list[Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install cardlang[plot]") from None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    xs = [s.number for s in sweeps]
    top.semilogy(xs, [max(s.rmse, 1e-300) for s in sweeps], marker="o")
    top.set_ylabel("RMSE between sweeps")
    bottom.plot(xs, [s.changed_actions for s in sweeps], marker="o")
    bottom.set_ylabel("greedy actions changed")
    bottom.set_xlabel("sweep")
    fig.suptitle("value iteration")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
