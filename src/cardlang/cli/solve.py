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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardlang.cli.options import (
    EXIT_OK,
    SubParsers,
    engine_of,
    engine_option,
    fraction,
    limit_options,
    limits_of,
    load_game_and_text,
    non_negative,
    output_file,
    param_option,
    positive,
    seed_option,
    state_keys_of,
    state_keys_options,
)
from cardlang.engine.protocol import Engine
from cardlang.errors import UsageError

__all__ = ["add_parser", "cmd_solve"]

#: The walk refuses a game tree estimated larger than this unless --max-nodes says more.
DEFAULT_MAX_NODES = 3_000_000
#: Deals a sampled process (--rollouts) starts from, unless --sample says.
SAMPLED_DEALS = 1_000


def add_parser(sub: SubParsers) -> None:
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
    state_keys_options(
        p,
        default="info",
        help="states: info (all the seat has observed; exact), view (what it sees now) or "
        "counts (the same, its cards counted by kind)",
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
        "--explore",
        type=positive,
        default=None,
        metavar="GAMES",
        help="estimate the process from GAMES games its own policy plays, in rounds, each "
        "solved before the next (samples go where the policy goes; for games too large to "
        "walk)",
    )
    p.add_argument("--rounds", type=positive, default=10, help="with --explore: rounds (10)")
    p.add_argument(
        "--epsilon",
        type=fraction,
        default=0.2,
        help="with --explore: the chance of a random action at each decision (0.2)",
    )
    p.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        metavar="PATH",
        help="with --explore: keep each round here; the same command resumes from it",
    )
    p.add_argument(
        "--max-states",
        type=positive,
        default=200_000,
        help="with --rollouts or --explore: at most (200000)",
    )
    p.add_argument(
        "--play",
        type=positive,
        default=2_000,
        help="with --rollouts or --explore: games that measure the policy (2000)",
    )
    p.add_argument("--out", type=output_file, default=None, help="save the policy table (JSON)")
    p.add_argument("--plot", type=output_file, default=None, help="save the convergence plot (PNG)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    seed_option(p, text="the first seed dealt (0)")
    param_option(p)
    engine_option(p)
    limit_options(p)


def cmd_solve(args: argparse.Namespace) -> int:
    from cardlang.solve import opponent_model
    from cardlang.solve.policy_file import policy_document, save_policy

    if args.explore is not None and args.rollouts is not None:
        raise UsageError("--explore and --rollouts are two ways to estimate: choose one")
    if args.checkpoint is not None and args.explore is None:
        raise UsageError("--checkpoint keeps an --explore solve's rounds: add --explore N")
    game, text = load_game_and_text(args.file, args.param, **engine_of(args))
    if not 0 <= args.seat < game.nplayers:
        raise UsageError(f"--seat {args.seat}: the game has seats 0 to {game.nplayers - 1}")
    master = game.master(limits_of(args))
    keys = state_keys_of(args, game)
    say = _reporter(args)
    clock = time.perf_counter()
    opponents = opponent_model(args.opponent, game, game.nplayers, args.seed)
    if args.explore is not None:
        solved = _explored(master, game, text, keys, opponents, args, say)
    else:
        solved = _enumerated(master, game, keys, opponents, args, say)
    process, vi = solved.process, solved.solution
    policy = {key: process.actions[s][vi.greedy[s]] for s, key in enumerate(process.keys)}
    played, error = solved.evaluate(policy)
    evaluated = time.perf_counter()
    exactness = _exactness(solved.positions, keys, opponents, args)
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
        "starting_positions": solved.starting,
        "seconds_to_build": round(solved.built - clock, 3),
        "seconds_to_solve": round(solved.solved - solved.built, 3),
        "seconds_to_evaluate": round(evaluated - solved.solved, 3),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "seat": args.seat,
        "opponent": args.opponent,
        "reward": args.reward,
        "keys": keys.kind,
        "ignore": sorted(keys.ignore),
        "discount": args.discount,
        "history": [vars(s) for s in vi.sweeps],
    }
    if solved.rounds:
        result["rounds"] = [vars(r) for r in solved.rounds]
    if args.out is not None:
        meta = {k: result[k] for k in ("opponent", "reward", "discount", "exact")}
        save_policy(args.out, policy_document(process, vi, game_path=Path(args.file), meta=meta))
    if args.plot is not None:
        _plot(vi.sweeps, args.plot)
    if args.json:
        print(json.dumps(result))
    else:
        _print_result(result, args, keys)
    return EXIT_OK


@dataclass
class _Solved:
    """A built and solved process, and how to measure the policy it gives."""

    process: Any
    solution: Any
    positions: Any  # the starting positions (None: fresh deals, --explore)
    starting: int  # how many games' starts it was built from
    evaluate: Callable[[dict[str, str]], tuple[float, float]]  # -> (value, standard error)
    built: float  # perf_counter when the process was built
    solved: float  # ... and solved
    rounds: list[Any] = field(default_factory=list)


def _enumerated(
    master: Engine, game: Any, keys: Any, opponents: Any, args: argparse.Namespace, say: Any
) -> _Solved:
    """The process walked whole (or by rollouts) from listed starting positions."""
    from cardlang.solve import Problem, evaluate_policy, starting_positions
    from cardlang.solve.sampling import play_policy, sample_process

    sample = args.sample
    if args.rollouts is not None and sample is None:
        sample = SAMPLED_DEALS
    record = args.rollouts is None or keys.reads_history or opponents.needs_history
    positions = starting_positions(master, sample=sample, seed=args.seed, record=record)
    say(f"starting positions: {positions.note}")
    problem = Problem(master, game, positions, args.seat, opponents, keys, args.reward)
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
    _say_size(process, say)
    vi = _iterate(process, args, say)

    def evaluate(policy: dict[str, str]) -> tuple[float, float]:
        if args.rollouts is not None:
            rewards = play_policy(problem, policy, args.play, args.seed)
            return sum(rewards) / len(rewards), _standard_error(rewards)
        per_position = evaluate_policy(problem, policy)
        value = sum(w * v for w, v in zip(positions.weights, per_position, strict=True))
        return value, (_standard_error(per_position) if not positions.exact else 0.0)

    return _Solved(
        process, vi, positions, len(positions.states), evaluate, built, time.perf_counter()
    )


def _explored(
    master: Engine,
    game: Any,
    text: str,
    keys: Any,
    opponents: Any,
    args: argparse.Namespace,
    say: Any,
) -> _Solved:
    """The process counted from rounds of games the policy plays (solve/exploring.py)."""
    from cardlang.solve import Problem, StartingPositions
    from cardlang.solve.exploring import Settings, explore, identity_of, play_greedy

    if args.sample is not None:
        raise UsageError("--explore deals a fresh game each time: --sample does not apply")
    rounds = min(args.rounds, args.explore)
    deals = StartingPositions([], [], False, f"{args.explore:,} fresh deals", None)
    problem = Problem(master, game, deals, args.seat, opponents, keys, args.reward)
    settings = Settings(
        games=args.explore,
        rounds=rounds,
        epsilon=args.epsilon,
        seed=args.seed,
        discount=args.discount,
        tolerance=args.tolerance,
        max_sweeps=args.max_sweeps,
        max_states=args.max_states,
    )
    say(f"exploring: {args.explore:,} games in {rounds} rounds, epsilon {args.epsilon}")

    def on_round(r: Any) -> None:
        say(
            f"  round {r.number}/{rounds}: {r.games:,} games, {r.states:,} states, mean reward "
            f"{r.mean_reward:+.3f} this round, start value {r.start_value:+.3f} "
            f"({r.sweeps} sweeps)"
        )

    x = explore(
        problem,
        settings,
        checkpoint=args.checkpoint,
        identity=identity_of(problem, text, args.opponent),
        on_round=on_round,
    )
    done = time.perf_counter()
    _say_size(x.process, say)
    assert x.solution is not None

    def evaluate(policy: dict[str, str]) -> tuple[float, float]:
        rewards, misses = play_greedy(problem, policy, args.play, args.seed)
        say(
            f"the policy played {args.play:,} games on fresh deals ({misses:,} decisions in "
            "states it never met, played at random)"
        )
        return sum(rewards) / len(rewards), _standard_error(rewards)

    return _Solved(x.process, x.solution, None, args.explore, evaluate, done, done, x.rounds)


def _say_size(process: Any, say: Any) -> None:
    say(
        f"decision process: {process.n_states:,} states, {process.n_pairs:,} actions, "
        f"{process.n_transitions:,} transitions ({process.nodes:,} nodes walked)"
    )


def _iterate(process: Any, args: argparse.Namespace, say: Any) -> Any:
    from cardlang.solve import value_iteration

    def on_sweep(s: Any) -> None:
        say(
            f"  sweep {s.number}: rmse {s.rmse:.3g}, max change {s.max_change:.3g}, "
            f"greedy actions changed {s.changed_actions}"
        )

    return value_iteration(
        process,
        discount=args.discount,
        tolerance=args.tolerance,
        max_sweeps=args.max_sweeps,
        on_sweep=on_sweep,
    )


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
    positions: Any, keys: Any, opponents: Any, args: argparse.Namespace
) -> tuple[bool, str]:
    reasons = []
    if args.rollouts is not None:
        reasons.append(
            f"transitions estimated from {args.rollouts} samples per state and action, the "
            "policy's value from games played"
        )
    if args.explore is not None:
        reasons.append(
            f"transitions counted in {args.explore:,} games the policy played, its value "
            "measured in games on fresh deals"
        )
    elif not positions.exact:
        reasons.append(f"{positions.note}, not every deal: values carry a sampling error")
    if keys.kind != "info":
        reasons.append(f"{keys} merge positions the seat could tell apart (an abstraction)")
    if not opponents.exact:
        reasons.append(
            f"the opponent {opponents.spec} gives no probabilities: its choice at each "
            "position is taken as certain"
        )
    if reasons:
        return False, "; ".join(reasons)
    text = "every deal, the seat's information states, the opponent model's probabilities"
    if args.discount < 1.0:
        text += f" (discounted by {args.discount} per decision)"
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


def _print_result(r: dict[str, Any], args: argparse.Namespace, keys: Any) -> None:
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
        ("states", f"{r['states']:,} ({keys})"),
        ("actions / transitions", f"{r['actions']:,} / {r['transitions']:,}"),
        ("nodes walked", f"{r['nodes']:,} from {r['starting_positions']:,} starts"),
        ("sweeps", f"{r['sweeps']}" + ("" if r["converged"] else " (not converged)")),
        (
            "time",
            f"{r['seconds_to_build']:.2f} s to build, {r['seconds_to_solve']:.2f} s to solve, "
            f"{r['seconds_to_evaluate']:.2f} s to evaluate",
        ),
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
