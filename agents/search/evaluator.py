"""The evaluator interface: what a search asks of a leaf, whoever answers it.

Pipeline position: agents/search.  ISMCTS calls an evaluator on a determinized state at
the leaf of its tree; a rollout policy (random play, or any agent) and a neural network
both implement the same ``Evaluator``:

- ``evaluate(master, st)`` returns an ``Evaluation``: ``priors`` over the legal options
  of ``st`` (in ``legal_options`` order), or None; ``values``, the reward each seat backs
  up; ``standings``, each seat's expected standing in [0, 1] (what traces report: equal
  to ``values`` unless the reward is shaped, as by ``margin``).  The evaluator may play
  on ``st`` (a rollout does); the search never reuses it.
- ``gives_priors``: whether ``evaluate`` returns priors, so that the search asks for them
  when it first reaches a node (PUCT) and otherwise does not (UCT).

A finished game needs no evaluator: ``terminal_value`` scores it, the same way for all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from cardlang.agents.search.rewards import score_shares, standings

from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import RUNNING

if TYPE_CHECKING:
    from cardlang.agents.search.common import Rollout


class Evaluation(NamedTuple):
    priors: Sequence[float] | None  # per legal option of the state, or None
    values: Sequence[float]  # per seat: the reward the search backs up
    standings: Sequence[float]  # per seat: the expected standing in [0, 1]


class Evaluator(Protocol):
    gives_priors: bool

    def evaluate(self, master: Engine, st: EngineState) -> Evaluation: ...


def terminal_value(master: Engine, st: EngineState, margin: float = 0.0) -> Evaluation:
    """The value of a game as it stands (finished, or cut short): standings, with
    ``margin`` (0 to 1) of the score margin mixed into the reward."""
    standing = standings(master, st)
    if not margin:
        return Evaluation(None, standing, standing)
    shares = score_shares(master, st)
    rewards = [(1 - margin) * s + margin * x for s, x in zip(standing, shares, strict=True)]
    return Evaluation(None, rewards, standing)


class RolloutEvaluator:
    """Plays the state out with a rollout policy (at most ``cap`` decisions), then scores
    it as it stands: the classic Monte Carlo evaluation.  Gives no priors."""

    gives_priors = False

    def __init__(self, policy: Rollout, cap: int, margin: float = 0.0) -> None:
        self.policy = policy
        self.cap = cap
        self.margin = margin

    def evaluate(self, master: Engine, st: EngineState) -> Evaluation:
        if st.status == RUNNING:
            self.policy.play(master, st, self.cap)
        return terminal_value(master, st, self.margin)


#: A plain function as an evaluator: ``f(state, mover) -> (priors or None, values)``.
EvaluatorFunction = Callable[[EngineState, int], tuple[Sequence[float] | None, Sequence[float]]]


class FunctionEvaluator:
    """An ``EvaluatorFunction`` (a network's forward pass, a heuristic) as an
    ``Evaluator``: its values are both the rewards and the standings."""

    gives_priors = True

    def __init__(self, function: EvaluatorFunction) -> None:
        self.function = function

    def evaluate(self, master: Engine, st: EngineState) -> Evaluation:
        priors, values = self.function(st, st.mover)
        return Evaluation(priors, values, values)


def as_evaluator(given: Evaluator | EvaluatorFunction) -> Evaluator:
    """An ``Evaluator`` as it is; a plain function wrapped in a ``FunctionEvaluator``."""
    if hasattr(given, "evaluate"):
        return given  # type: ignore[return-value]
    return FunctionEvaluator(given)  # type: ignore[arg-type]
