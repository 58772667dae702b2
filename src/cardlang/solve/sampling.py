"""A seat's decision process estimated by sampling, for games too large to walk whole.

The tree walk (process.py) follows every branch from every deal; a game like Punish,
unbounded and redealt every Measure, has no end to that.  Here the process is built state
by state, as the Punish notes do: each state keeps a *pool* of real positions that reached
it (up to ``samples`` of them); from a state, each action is tried ``samples`` times, from
the pool's positions in turn, and the game is rolled on, the others' moves drawn from the
opponent model and chance from the game's own RNG, to the seat's next decision or the
end.  The positions reached join the pools of their states, and new states are expanded
in turn, breadth first.  Every estimated probability carries sampling error (about
1/sqrt(samples)), so the result is an estimate; the value of the policy found is measured
by playing it (``play_policy``).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

from cardlang.information.observation import option_index
from cardlang.information.views import view_of
from cardlang.solve.process import DecisionProcess, Problem, after, reward_function
from cardlang.solve.worlds import SolveError


class _Sampler:
    def __init__(self, problem: Problem, samples: int, max_states: int, seed: int) -> None:
        self.problem = problem
        self.samples = samples
        self.max_states = max_states
        self.rng = random.Random(seed)
        self.reward = reward_function(problem.reward, problem.seat, problem.master)
        self.process = DecisionProcess(problem.seat, problem.keys)
        self.pools: list[list[tuple[Any, list[int]]]] = []  # (position, option per action)
        self.todo: deque[int] = deque()

    def draw(self, st: Any, options: Any) -> int:
        probs = self.problem.opponents.probabilities(st, st.mover, options)
        return self.rng.choices(range(len(options)), weights=probs)[0]

    def roll(self, st: Any) -> Any:
        """Play the others' moves (drawn from the model) up to the seat's turn or the end."""
        master, seat = self.problem.master, self.problem.seat
        while not st.is_over and st.mover != seat:
            st = after(master, st, self.draw(st, master.legal_options(st)))
            self.process.nodes += 1
        return st

    def land(self, st: Any, src: tuple[int, int] | None, weight: float) -> None:
        p = self.process
        if st.is_over:
            p.end(src, weight, self.reward(st))
            return
        s, moves = p.state_of(self.problem, st, self.problem.master.legal_options(st))
        if s == len(self.pools):  # a new state
            self.pools.append([])
            self.todo.append(s)
            if p.n_states > self.max_states:
                raise SolveError(
                    f"more than --max-states {self.max_states:,} states: use coarser keys "
                    "(--keys counts) or raise it"
                )
        p.arrive(src, s, weight)
        if len(self.pools[s]) < self.samples:
            self.pools[s].append((st, moves))

    def expand(self, s: int) -> None:
        master, p = self.problem.master, self.process
        pool = self.pools[s]
        for a in range(len(p.actions[s])):
            for j in range(self.samples):
                position, moves = pool[j % len(pool)]
                p.nodes += 1
                self.land(self.roll(after(master, position, moves[a])), (s, a), 1.0)
        p.weight[s] = float(self.samples)
        p.tries[s] = [float(self.samples)] * len(p.actions[s])


def sample_process(
    problem: Problem,
    *,
    samples: int,
    max_states: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> DecisionProcess:
    """The seat's process, estimated (see the module docstring)."""
    sampler = _Sampler(problem, samples, max_states, seed)
    positions = problem.positions
    for st, w in zip(positions.states, positions.weights, strict=True):
        sampler.land(sampler.roll(st), None, w)
    done = 0
    while sampler.todo:
        sampler.expand(sampler.todo.popleft())
        done += 1
        if progress is not None and done % 500 == 0:
            progress(done, sampler.process.n_states)
    return sampler.process


def play_policy(problem: Problem, policy: dict[str, str], games: int, seed: int) -> list[float]:
    """The seat's reward in ``games`` games played with ``policy`` against the model,
    from the starting positions in turn; a position the policy lacks is played at random."""
    sampler = _Sampler(problem, 1, 0, seed)
    master, game, seat = problem.master, problem.game, problem.seat
    states = problem.positions.states
    out = []
    for j in range(games):
        st = states[j % len(states)]
        while not st.is_over:
            options = master.legal_options(st)
            if st.mover == seat:
                view = view_of(st, seat, game, options)
                i = option_index(view, policy.get(problem.keys.of(view)))
                if i is None:
                    i = sampler.rng.randrange(len(options))
            else:
                i = sampler.draw(st, options)
            st = after(master, st, i)
        out.append(sampler.reward(st))
    return out
