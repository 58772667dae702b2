"""A seat's decision process estimated by sampling, for games too large to walk whole.

The tree walk (process.py) follows every branch from every deal; a game like Punish,
unbounded and redealt every Measure, has no end to that.  Here the process is built state
by state, as the Punish notes do: each state keeps a *pool* of real positions that reached
it (recorded games, up to ``samples`` of them); from a state, each action is tried
``samples`` times, from the pool's positions in turn, and the game is rolled on, the
others' moves drawn from the opponent model and chance from the game's own RNG, to the
seat's next decision or the end.  The positions reached join the pools of their states,
and new states are expanded in turn, breadth first.  Every estimated probability carries
sampling error (about 1/sqrt(samples)), so the result is an estimate; the value of the
policy found is measured by playing it (``play_policy``).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

from cardlang.information.observation import observation_key, option_key
from cardlang.information.views import view_of
from cardlang.solve.process import DecisionProcess, Problem, reward_function
from cardlang.solve.worlds import SolveError


class _Sampler:
    def __init__(self, problem: Problem, samples: int, max_states: int, seed: int) -> None:
        self.problem = problem
        self.samples = samples
        self.max_states = max_states
        self.rng = random.Random(seed)
        self.reward = reward_function(problem.reward, problem.seat, problem.master)
        self.process = DecisionProcess(problem.seat, problem.keys_kind)
        self.pools: list[list[Any]] = []
        self.todo: deque[int] = deque()

    def roll(self, st: Any) -> Any:
        """Play the others' moves (drawn from the model) up to the seat's turn or the end."""
        master, seat = self.problem.master, self.problem.seat
        while not st.is_over and st.mover != seat:
            options = master.legal_options(st)
            probs = self.problem.opponents.probabilities(st, st.mover, options)
            i = self.rng.choices(range(len(options)), weights=probs)[0]
            st = _applied(master, st, i)
            self.process.nodes += 1
        return st

    def land(self, st: Any, src: tuple[int, int] | None, weight: float) -> None:
        p = self.process
        if st.is_over:
            r = self.reward(st)
            if src is None:
                p.start_reward += weight * r
                p.start_ends += weight
            else:
                p.reward[src[0]][src[1]] += weight * r
                p.ends[src[0]][src[1]] += weight
            return
        s = self._state_of(st)
        if src is None:
            p.start[s] = p.start.get(s, 0.0) + weight
        else:
            row = p.next[src[0]][src[1]]
            row[s] = row.get(s, 0.0) + weight
        if len(self.pools[s]) < self.samples:
            self.pools[s].append(st)

    def _state_of(self, st: Any) -> int:
        problem, p = self.problem, self.process
        options = problem.master.legal_options(st)
        view = view_of(st, problem.seat, problem.game, options)
        keys = list(dict.fromkeys(option_key(o) for o in view.options))
        key = observation_key(view, problem.keys_kind)
        known = p.index.get(key)
        if known is not None:
            return known
        labels = [problem.game.describe_option(st, options[_first(view, k)]) for k in keys]
        s = p.state(key, keys, labels)
        self.pools.append([])
        self.todo.append(s)
        if p.n_states > self.max_states:
            raise SolveError(
                f"more than --max-states {self.max_states:,} states: use coarser keys "
                "(--keys counts) or raise it"
            )
        return s

    def expand(self, s: int) -> None:
        problem, p = self.problem, self.process
        pool = self.pools[s]
        for a, key in enumerate(p.actions[s]):
            for j in range(self.samples):
                h = pool[j % len(pool)]
                view = view_of(h, problem.seat, problem.game, problem.master.legal_options(h))
                child = _applied(problem.master, h, _first(view, key))
                p.nodes += 1
                self.land(self.roll(child), (s, a), 1.0)
        p.weight[s] = float(self.samples)


def _first(view: Any, key: str) -> int:
    return next(i for i, o in enumerate(view.options) if option_key(o) == key)


def _applied(master: Any, st: Any, index: int) -> Any:
    child = st.clone()
    master.apply(child, index)
    return child


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
    rng = random.Random(seed)
    master, game, seat = problem.master, problem.game, problem.seat
    reward_of = reward_function(problem.reward, seat, master)
    states = problem.positions.states
    out = []
    for j in range(games):
        st = states[j % len(states)]
        while not st.is_over:
            options = master.legal_options(st)
            if st.mover == seat:
                view = view_of(st, seat, game, options)
                want = policy.get(observation_key(view, problem.keys_kind))
                found = [i for i, o in enumerate(view.options) if option_key(o) == want]
                i = found[0] if found else rng.randrange(len(options))
            else:
                probs = problem.opponents.probabilities(st, st.mover, options)
                i = rng.choices(range(len(options)), weights=probs)[0]
            st = _applied(master, st, i)
        out.append(reward_of(st))
    return out
