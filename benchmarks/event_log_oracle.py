"""The refactoring oracle: a fingerprint of how every game file plays.

For each game file (games/ and, when present, ../shared/cardstock/) and a few seeds, it
plays seeded random games and records the full event log, the action key of every legal
option at every decision, and the result; for a few games it also plays the built-in bots
and search agents (whose determinizations and rollouts then count too).  It prints one
SHA-256 per (file, run) as JSON, so two checkouts can be compared:

    python benchmarks/event_log_oracle.py --checkout /tmp/before > before.json
    python benchmarks/event_log_oracle.py > after.json      # this checkout
    diff before.json after.json                              # must print nothing

``--checkout DIR`` runs the same games on another checkout's code (a git worktree of the
commit before a change), laid out as it installs; the game files are always this
checkout's, so only the code differs.

Use it for any change meant to keep behaviour (refactoring, optimisation, a second
engine): ``--engine native`` plays with the native engine, whose fingerprints must equal
the Python engine's, search agents' determinizations included.  It imports only the
public facade (``load_game``, ``make_agent``, ``play_game``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

if os.environ.get("CARDLANG_LAYOUT_FIRST"):
    # run_on: read cardlang from the laid-out checkout, not from an editable install
    # (scikit-build-core's finder comes before PYTHONPATH)
    sys.meta_path[:] = [f for f in sys.meta_path if "Redirecting" not in type(f).__name__]

from cardlang.agents import make_agent

from cardlang import GameFileError, load_game

try:  # the layout by pipeline stage
    from cardlang.information.vocabulary import option_key
    from cardlang.runs.runner import play_game
except ImportError:  # the flat layout before it
    from cardlang.runner import play_game  # type: ignore[no-redef]
    from cardlang.vocabulary import option_key  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "cardstock"

# (game file, agent specs per seat): the agents' own decisions, determinizations and
# rollouts become part of the fingerprint
AGENT_RUNS = [
    ("games/dominion.rcy", ["bigmoney", "bmu"]),
    ("games/dominion.rcy", ["smithy", "double-witch"]),
    ("games/dominion.rcy", ["pimc:determinizations=2:rollout=bmu", "bmu"]),
    (
        "games/hearts.rcy",
        ["ismcts:iterations=30", "random", "pimc:determinizations=2", "mcts:iterations=20"],
    ),
    ("games/kuhn_poker.rcy", ["ismcts:iterations=40", "pimc:determinizations=3"]),
]


def game_files() -> list[Path]:
    files = sorted((ROOT / "games").glob("*.rcy"))
    if CORPUS.is_dir():
        files += sorted(CORPUS.glob("*.rcy"))
    return files


def random_fingerprint(game, seed: int) -> str:  # type: ignore[no-untyped-def]
    """Seeded random play: event log, every option's key at every decision, result."""
    master = game.master()
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    digest = hashlib.sha256()
    while not st.is_over:
        options = master.legal_options(st)
        keys = [option_key(game, st, o, st.mover) for o in options]
        digest.update(repr((st.mover, keys)).encode())
        master.apply(st, rng.randrange(len(options)))
    digest.update(repr(st.log).encode())
    digest.update(repr(_result(master.result(st))).encode())
    return digest.hexdigest()


def agent_fingerprint(game, specs: list[str], seed: int) -> str:  # type: ignore[no-untyped-def]
    agents = [make_agent(s, seed * 31 + i) for i, s in enumerate(specs)]
    result, st = play_game(game.master(), agents, seed, record=True)
    return hashlib.sha256(repr((st.log, _result(result))).encode()).hexdigest()


def _result(result) -> tuple:  # type: ignore[no-untyped-def]
    error = None if result.error is None else str(result.error)
    return (
        result.end_reason,
        result.scores,
        result.ranks,
        result.credits,
        result.winners,
        result.decisions,
        result.turns,
        result.tiebreak_scores,
        error,
    )


def run_on(checkout: Path, seeds: int, agent_seeds: int) -> int:
    """This script, run on ``checkout``'s code in a fresh interpreter."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_common import installed_layout, layout_env

    with tempfile.TemporaryDirectory() as tmp:
        layout = installed_layout(checkout.resolve(), Path(tmp))
        env = layout_env(layout)
        command = [sys.executable, __file__, "--seeds", str(seeds)]
        command += ["--agent-seeds", str(agent_seeds)]
        return subprocess.run(command, env=env, check=False).returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="random games per file")
    parser.add_argument("--agent-seeds", type=int, default=2, help="games per agent run")
    parser.add_argument("--checkout", type=Path, help="run another checkout's code instead")
    parser.add_argument(
        "--engine",
        choices=("python", "native"),
        help="the engine to play with (default: CARDLANG_ENGINE, else native where built); "
        "the fingerprints of both must agree",
    )
    args = parser.parse_args()
    if args.engine is not None:
        # a --checkout's code reads it there (older checkouts read it below their CLI)
        os.environ["CARDLANG_ENGINE"] = args.engine
    engine = args.engine or os.environ.get("CARDLANG_ENGINE") or None
    if args.checkout is not None:
        sys.exit(run_on(args.checkout, args.seeds, args.agent_seeds))
    out: dict[str, str] = {}
    for path in game_files():
        name = str(path.relative_to(ROOT.parent))
        try:
            game = load_game(path)
            game.engine = engine  # every master this game makes (older code lacks the argument)
        except GameFileError as err:
            out[name] = "does not check: " + hashlib.sha256(str(err).encode()).hexdigest()
            continue
        for seed in range(args.seeds):
            out[f"{name} random {seed}"] = random_fingerprint(game, seed)
        print(name, file=sys.stderr)
    for file, specs in AGENT_RUNS:
        game = load_game(ROOT / file)
        game.engine = engine
        for seed in range(args.agent_seeds):
            out[f"{file} {','.join(specs)} {seed}"] = agent_fingerprint(game, specs, seed)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
