"""Value iteration over a seat's decision process, sweep by sweep.

Q(s, a) = R(s, a) + discount * sum over s' of P(s' | s, a) * max over a' of Q(s', a'),
started from the immediate expected reward R (as the Punish notes do), swept until the
largest change of a sweep is at most the tolerance.  Each sweep reports the root mean
square difference between successive Q tables and how many states changed their greedy
action.  Ties go to the first action (the game's option order), so results are
deterministic.  The value of the start is the expected reward of the walk to the seat's
first decisions plus the value of the states it reaches (undiscounted: no decision was
made yet).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cardlang.solve.process import DecisionProcess


@dataclass(frozen=True)
class Sweep:
    number: int
    rmse: float  # between this sweep's Q table and the last
    max_change: float
    changed_actions: int  # states whose greedy action changed


@dataclass
class ValueIteration:
    q: np.ndarray  # per state-action pair, in state order
    first: np.ndarray  # per state, the index of its first pair (and one past the end)
    greedy: list[int]  # per state, the chosen action
    values: np.ndarray  # per state, max Q
    start_value: float
    sweeps: list[Sweep]
    converged: bool


def _arrays(p: DecisionProcess) -> tuple[np.ndarray, ...]:
    counts = np.array([len(a) for a in p.actions], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(counts)])
    rows, cols, probs = [], [], []
    reward = np.zeros(int(first[-1]))
    for s, per_action in enumerate(p.next):
        for a, targets in enumerate(per_action):
            tries = p.tries[s][a]
            if tries == 0.0:
                continue  # never taken (a sampled process): no estimate, Q stays 0
            pair = first[s] + a
            reward[pair] = p.reward[s][a] / tries
            for t, w in targets.items():
                rows.append(pair)
                cols.append(t)
                probs.append(w / tries)
    return (
        first,
        reward,
        np.array(rows, dtype=np.int64),
        np.array(cols, dtype=np.int64),
        np.array(probs),
    )


def _greedy(q: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, list[int]]:
    values = np.maximum.reduceat(q, first[:-1]) if len(q) else np.zeros(0)
    greedy = [int(np.argmax(q[first[s] : first[s + 1]])) for s in range(len(first) - 1)]
    return values, greedy


def value_iteration(
    p: DecisionProcess,
    *,
    discount: float,
    tolerance: float,
    max_sweeps: int,
    on_sweep: Callable[[Sweep], None] | None = None,
) -> ValueIteration:
    first, reward, rows, cols, probs = _arrays(p)
    n_pairs = len(reward)
    q = reward.copy()
    values, greedy = _greedy(q, first)
    sweeps: list[Sweep] = []
    converged = n_pairs == 0
    while not converged and len(sweeps) < max_sweeps:
        expected = np.bincount(rows, weights=probs * values[cols], minlength=n_pairs)
        new_q = reward + discount * expected
        diff = new_q - q
        new_values, new_greedy = _greedy(new_q, first)
        sweep = Sweep(
            number=len(sweeps) + 1,
            rmse=float(np.sqrt(np.mean(diff**2))),
            max_change=float(np.max(np.abs(diff))),
            changed_actions=sum(a != b for a, b in zip(greedy, new_greedy, strict=True)),
        )
        sweeps.append(sweep)
        if on_sweep is not None:
            on_sweep(sweep)
        q, values, greedy = new_q, new_values, new_greedy
        converged = sweep.max_change <= tolerance
    start = p.start_reward + sum(w * values[s] for s, w in p.start.items())
    return ValueIteration(q, first, greedy, values, float(start), sweeps, converged)
