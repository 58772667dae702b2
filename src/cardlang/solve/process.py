"""A seat's decision process, built by walking the game from its starting positions.

Every node of the game tree below a starting position is visited once.  At the seat's own
decisions every option is followed; at the others' decisions each option is followed with
the probability the opponent model gives it (options it never takes are not); chance after
the start is the game's own RNG, fixed by the deal (an exact solve refuses a game that
draws chance after its first decision: that chance is not enumerated).

Each node where the seat decides has a *weight*: its starting position's weight times the
probabilities of the others' moves on the way (not the seat's own, which the solve
chooses).  Nodes with one observation key (``information.observation``) form one state.
From a state, an action leads to the seat's next states or to the end: the transition
weights, summed over the state's nodes and divided by the state's weight, are the
probabilities of the process, and the rewards at the ends are averaged the same way.
With ``info`` keys and perfect recall this is exactly the seat's problem against the
model (the best response); with ``view`` keys it is an abstraction.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cardlang.engine.protocol import Engine
from cardlang.information.observation import StateKeys, option_index, seen_option_key, state_text
from cardlang.information.views import view_of
from cardlang.solve.opponents import OpponentModel
from cardlang.solve.worlds import SolveError, StartingPositions

REWARDS = ("win", "score")

__all__ = [
    "REWARDS",
    "DecisionProcess",
    "Problem",
    "SolveError",
    "build_process",
    "estimate_nodes",
    "evaluate_policy",
]


@dataclass(frozen=True)
class Problem:
    """What a solve is about: the game (its Gamemaster and rules), where it starts, the
    seat, the model of the others, the kind of state key and the reward."""

    master: Engine
    game: Any
    positions: StartingPositions
    seat: int
    opponents: OpponentModel
    keys: StateKeys
    reward: str


@contextmanager
def _deep_recursion() -> Iterator[None]:
    """A walk recurses once per decision: let it go deeper than Python's default."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@dataclass
class DecisionProcess:
    """States (keys), their actions, transitions and rewards, as built from the tree.

    For state ``s`` and its ``a``-th action: ``next[s][a]`` maps next states to summed
    weights, ``reward[s][a]`` is the summed weight times reward of the ends reached
    before the seat decides again, ``ends[s][a]`` their summed weight, ``tries[s][a]``
    the summed weight of the times the action was taken (each transition's probability
    is its weight over that); ``weight[s]`` is the state's summed weight.  ``start`` and
    ``start_reward`` are the same for the walk from the starting positions to the seat's
    first decisions.
    """

    seat: int
    state_keys: StateKeys
    keys: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    actions: list[list[str]] = field(default_factory=list)  # option keys
    labels: list[list[str]] = field(default_factory=list)  # option labels, for people
    texts: list[str] = field(default_factory=list)  # each state in words (state_text)
    weight: list[float] = field(default_factory=list)
    next: list[list[dict[int, float]]] = field(default_factory=list)
    reward: list[list[float]] = field(default_factory=list)
    ends: list[list[float]] = field(default_factory=list)
    tries: list[list[float]] = field(default_factory=list)
    start: dict[int, float] = field(default_factory=dict)
    start_reward: float = 0.0
    start_ends: float = 0.0
    nodes: int = 0  # game-tree nodes visited

    def state(self, key: str, actions: list[str], labels: list[str], text: str = "") -> int:
        s = self.index.get(key)
        if s is None:
            s = self.index[key] = len(self.keys)
            self.keys.append(key)
            self.actions.append(actions)
            self.labels.append(labels)
            self.texts.append(text)
            self.weight.append(0.0)
            self.next.append([{} for _ in actions])
            self.reward.append([0.0] * len(actions))
            self.ends.append([0.0] * len(actions))
            self.tries.append([0.0] * len(actions))
        elif self.actions[s] != actions:
            raise SolveError(
                "two positions the seat cannot tell apart offer different options: the "
                f"options depend on what it cannot see (state {key[:12]}); use --keys info"
            )
        return s

    def arrive(self, src: tuple[int, int] | None, s: int, weight: float) -> None:
        """Weight reaching state ``s`` from the start (``src`` None) or from an action."""
        if src is None:
            self.start[s] = self.start.get(s, 0.0) + weight
        else:
            row = self.next[src[0]][src[1]]
            row[s] = row.get(s, 0.0) + weight

    def end(self, src: tuple[int, int] | None, weight: float, reward: float) -> None:
        """Weight reaching the end of the game, with its reward."""
        if src is None:
            self.start_reward += weight * reward
            self.start_ends += weight
        else:
            self.reward[src[0]][src[1]] += weight * reward
            self.ends[src[0]][src[1]] += weight

    def state_of(self, problem: Problem, st: Any, options: Any) -> tuple[int, list[int]]:
        """The state of a position where the seat decides (made when new), and the index
        of the option each of its actions is (equal options, copies of a card: the
        first stands for them)."""
        view = view_of(st, self.seat, problem.game, options)
        firsts: dict[str, int] = {}
        for i, o in enumerate(view.options):
            firsts.setdefault(seen_option_key(o), i)
        if self.state_keys.orderless:  # the key ignores the options' order: so do actions
            firsts = dict(sorted(firsts.items()))
        key = self.state_keys.of(view)
        s = self.index.get(key)
        if s is None:
            readable = view.option_labels  # as the seat reads them ("Bet 1")
            labels = [readable[i] for i in firsts.values()]
            text = state_text(view, history=self.state_keys.reads_history)
            s = self.state(key, list(firsts), labels, text)
        elif self.actions[s] != list(firsts):
            self.state(key, list(firsts), [])  # raises: the options differ
        return s, list(firsts.values())

    @property
    def n_states(self) -> int:
        return len(self.keys)

    @property
    def n_pairs(self) -> int:
        return sum(len(a) for a in self.actions)

    @property
    def n_transitions(self) -> int:
        return sum(len(d) for row in self.next for d in row)


class _Walk:
    def __init__(
        self, problem: Problem, max_nodes: int, progress: Callable[[int], None] | None
    ) -> None:
        self.problem = problem
        self.master, self.game, self.seat = problem.master, problem.game, problem.seat
        self.opponents = problem.opponents
        self.reward = reward_function(problem.reward, problem.seat, problem.master)
        self.exact = problem.positions.exact
        self.max_nodes = max_nodes
        self.progress = progress
        self.process = DecisionProcess(problem.seat, problem.keys)

    def from_start(self, st: Any, weight: float) -> None:
        self._walk(st, weight, None)

    def _child(self, st: Any, index: int) -> Any:
        child = st.clone()
        before = child.rng
        self.master.apply(child, index)
        if self.exact and child.rng != before:
            raise SolveError(
                f"the game draws chance after its first decision (turn {child.turns}): an "
                "exact solve enumerates only the deal; use --sample N to sample it"
            )
        p = self.process
        p.nodes += 1
        if p.nodes > self.max_nodes:
            raise SolveError(
                f"the game tree is larger than --max-nodes {self.max_nodes:,}; raise it, or "
                "use --keys view with --sample N"
            )
        if self.progress is not None and p.nodes % 10_000 == 0:
            self.progress(p.nodes)
        return child

    def _walk(self, st: Any, weight: float, src: tuple[int, int] | None) -> None:
        if st.is_over:
            self.process.end(src, weight, self.reward(st))
            return
        master = self.master
        options = master.legal_options(st)
        mover = st.mover
        if mover != self.seat:
            probs = self.opponents.probabilities(st, mover, options)
            for i, q in enumerate(probs):
                if q > 0.0:
                    self._walk(self._child(st, i), weight * q, src)
            return
        p = self.process
        s, moves = p.state_of(self.problem, st, options)
        p.weight[s] += weight
        p.arrive(src, s, weight)
        for a, i in enumerate(moves):
            p.tries[s][a] += weight
            self._walk(self._child(st, i), weight, (s, a))


def reward_function(reward: str, seat: int, master: Engine) -> Callable[[Any], float]:
    """``win``: +1 for the seat's sole win, -1 for a loss, 0 otherwise (a shared win, a
    game cut off); ``score``: the seat's final score."""
    if reward == "score":
        return lambda st: float(master.result(st).scores[seat])

    def win(st: Any) -> float:
        result = master.result(st)
        if not result.completed or not result.winners:
            return 0.0
        if result.winners == (seat,):
            return 1.0
        return 0.0 if seat in result.winners else -1.0

    return win


def build_process(
    problem: Problem, *, max_nodes: int, progress: Callable[[int], None] | None = None
) -> DecisionProcess:
    """The seat's decision process (see the module docstring)."""
    walk = _Walk(problem, max_nodes, progress)
    positions = problem.positions
    with _deep_recursion():
        for st, w in zip(positions.states, positions.weights, strict=True):
            walk.from_start(st, w)
    return walk.process


def evaluate_policy(problem: Problem, policy: dict[str, str]) -> list[float]:
    """Per starting position, the seat's expected reward when it plays ``policy`` (state
    key -> option key) against the model: the value of the policy itself, which an
    abstraction's process only approximates."""
    master, game, seat = problem.master, problem.game, problem.seat
    reward_of = reward_function(problem.reward, seat, master)

    def walk(st: Any) -> float:
        if st.is_over:
            return reward_of(st)
        options = master.legal_options(st)
        if st.mover != seat:
            probs = problem.opponents.probabilities(st, st.mover, options)
            return sum(q * walk(after(master, st, i)) for i, q in enumerate(probs) if q > 0.0)
        view = view_of(st, seat, game, options)
        index = option_index(view, policy.get(problem.keys.of(view)))
        if index is None:
            raise SolveError("the policy has no action for a position it reaches")
        return walk(after(master, st, index))

    with _deep_recursion():
        return [walk(st) for st in problem.positions.states]


def after(master: Engine, st: Any, index: int) -> Any:
    """A copy of ``st`` with its option ``index`` played."""
    child = st.clone()
    master.apply(child, index)
    return child


def estimate_nodes(problem: Problem, *, probes: int, seed: int, max_depth: int = 10_000) -> float:
    """About how many game-tree nodes the walk will visit (Knuth's estimator: random
    paths, each node counted as the product of the branchings above it), for refusing a
    game too large before walking it."""
    master, seat, states = problem.master, problem.seat, problem.positions.states
    rng = random.Random(seed)
    total = 0.0
    for _ in range(probes):
        st = states[rng.randrange(len(states))]
        nodes, width, depth = 0.0, 1.0, 0
        while not st.is_over and depth < max_depth:
            options = master.legal_options(st)
            if st.mover == seat:
                followed = list(range(len(options)))
            else:
                probs = problem.opponents.probabilities(st, st.mover, options)
                followed = [i for i, q in enumerate(probs) if q > 0.0]
            width *= len(followed)
            nodes += width
            st = after(master, st, followed[rng.randrange(len(followed))])
            depth += 1
        total += nodes
    return total / probes * len(states)
