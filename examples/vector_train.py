"""Train one seat of Leduc poker on many games at once, through ``cardlang.env.VectorEnv``.

    python examples/vector_train.py [--game games/leduc_poker.rcy] [--envs 64]
                                    [--budget 10000] [--eval 2000] [--seed 0]

``VectorEnv(FILE, n, seats=0, opponents="random")`` steps ``n`` games in lockstep: seat 0
learns, random players take the other seats inside the engine.  The learner is
every-visit Monte Carlo control with action masks, as in ``gymnasium_train.py``, but it
acts for all ``n`` rows with one masked argmax over a ``[n, actions]`` array of values
and keeps one trajectory per row: when a row's game ends (``terminated | truncated``),
that row's visited (observation, action) pairs move towards the row's reward, and the
row goes on with its next game (auto-reset: the returned observation is already the new
game's).  Arrays come back the same objects every step, so what is kept is copied.

After ``--budget`` finished training games the greedy policy and a uniform one play
``--eval`` games each, from seeds no training game used, and the script prints both
mean rewards (+1 a win, -1 a loss; docs/rl.md).

Measured (Leduc seat 0 against random, 64 rows, ``--budget 4000 --eval 1000``, seeds
0..4): trained +0.47 to +0.53, uniform +0.02 to +0.12, in about 1 s each, where the same
learner through the one-game Gymnasium adapter (``gymnasium_train.py``) takes about 6 s.
``tests/test_env_examples.py`` runs it with those settings and asserts ``TARGET`` and
``MARGIN``.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from cardlang.env import VectorEnv

GAMES = Path(__file__).resolve().parent.parent / "games"
TARGET = 0.35  # the trained policy's mean reward with the test's budget (measured above)
MARGIN = 0.25  # how much better than the uniform policy it must be


class Table:
    """Action values per observation (Leduc's seat 0 meets a few hundred)."""

    def __init__(self, actions: int) -> None:
        self.q: dict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(actions))
        self.n: dict[bytes, np.ndarray] = defaultdict(lambda: np.zeros(actions))

    def values(self, obs: np.ndarray) -> np.ndarray:
        """``[rows, actions]``: each row's action values (zeros where unseen)."""
        return np.stack([self.q[row.tobytes()] for row in obs])

    def learn(self, visited: list[tuple[bytes, int]], reward: float) -> None:
        for key, action in visited:
            self.n[key][action] += 1
            self.q[key][action] += (reward - self.q[key][action]) / self.n[key][action]


def masked_argmax(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the legal action of highest value (the first on a tie)."""
    return np.where(mask, values, -np.inf).argmax(axis=1)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, a legal action drawn uniformly."""
    noise = np.where(mask, rng.random(mask.shape), -1.0)
    return noise.argmax(axis=1)


def train(env: VectorEnv, table: Table, games: int, seed: int) -> None:
    """Every-visit Monte Carlo control over ``env``'s rows until ``games`` games ended,
    epsilon decaying from 0.5 to 0.05."""
    rng = np.random.default_rng(seed)
    obs, mask, _, _ = env.reset(seed=seed)
    trajectories: list[list[tuple[bytes, int]]] = [[] for _ in range(env.n)]
    finished = 0
    while finished < games:
        epsilon = max(0.05, 0.5 * (1 - finished / games))
        explore = rng.random(env.n) < epsilon
        actions = np.where(explore, random_legal(mask, rng), masked_argmax(table.values(obs), mask))
        for i, action in enumerate(actions):  # before the step overwrites obs
            trajectories[i].append((obs[i].tobytes(), int(action)))
        obs, mask, rewards, terminated, truncated, _ = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            table.learn(trajectories[i], float(rewards[i]))
            trajectories[i] = []
            finished += 1


def evaluate(env: VectorEnv, table: Table | None, games: int, seed: int) -> float:
    """The mean reward of the greedy policy (``table``) or of uniform play (None) over
    the first ``games`` games that end."""
    rng = np.random.default_rng(seed)
    obs, mask, _, _ = env.reset(seed=seed)
    total, finished = 0.0, 0
    while finished < games:
        if table is None:
            actions = random_legal(mask, rng)
        else:
            actions = masked_argmax(table.values(obs), mask)
        obs, mask, rewards, terminated, truncated, _ = env.step(actions)
        for i in np.flatnonzero(terminated | truncated)[: games - finished]:
            total += float(rewards[i])
            finished += 1
    return total / games


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default=str(GAMES / "leduc_poker.rcy"))
    parser.add_argument("--envs", type=int, default=64, help="games in lockstep")
    parser.add_argument("--budget", type=int, default=10_000, help="training games")
    parser.add_argument("--eval", type=int, default=2_000, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = VectorEnv(args.game, args.envs, seats=0, opponents="random", seed=args.seed)
    table = Table(env.n_actions)
    train(env, table, args.budget, args.seed)
    held_out = 10**9 + args.seed  # a run seed no training game used
    trained = evaluate(env, table, args.eval, held_out)
    uniform = evaluate(env, None, args.eval, held_out)
    print(
        f"{args.game} seat 0 vs random, {args.envs} games in lockstep: mean reward over "
        f"{args.eval} games: trained {trained:+.3f}, uniform {uniform:+.3f} "
        f"({len(table.q)} observations learned in {args.budget} games)"
    )
    return {"trained": trained, "random": uniform}


if __name__ == "__main__":
    main(sys.argv[1:])
