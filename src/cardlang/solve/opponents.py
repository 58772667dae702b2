"""What the other seats do: a distribution over their options at each of their decisions.

``uniform`` spreads evenly over the options.  ``model:PATH`` is an opponent model fitted
from records (``cardlang fit-opponent``; agents/opponent_model.py), which gives
probabilities.  An agent spec (``ismcts:iterations=50``,
``bigmoney``, ``policy:table=PATH``) gives the agent's own distribution when it has one
(a ``probabilities(view, options)`` method), else its choice, taken as certain: it is
asked once per information state of its seat (the answer is remembered, so the solve and
the evaluation of its policy face the same opponent), which is exact for a deterministic
agent and one sample of a random one.  Each seat gets its own agent, seeded from the
solve's seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardlang.agents.base import capabilities_of
from cardlang.agents.registry import make_agent
from cardlang.information.observation import observation_key
from cardlang.information.views import view_of

UNIFORM = "uniform"


class OpponentModel:
    """Per seat, a distribution over the options of a decision."""

    def __init__(self, spec: str, game: Any, nplayers: int, seed: int) -> None:
        self.spec = spec
        self.game = game
        self.uniform = spec in (UNIFORM, "random")  # the random agent is uniform
        self.agents: list[Any] = []
        self._chosen: dict[tuple[int, str], int] = {}  # (seat, its info key) -> choice
        self._distributions: dict[tuple[int, str], list[float]] = {}  # the same -> probabilities
        if not self.uniform:
            if spec.startswith("model:") and "=" not in spec:  # model:PATH
                spec = f"model:path={spec[len('model:') :]}"
            self.agents = [make_agent(spec, seed=seed * 1_000 + p) for p in range(nplayers)]

    @property
    def exact(self) -> bool:
        """Whether the model's distribution is the agent's own (not one sampled choice)."""
        return self.uniform or all(hasattr(a, "probabilities") for a in self.agents)

    @property
    def needs_history(self) -> bool:
        """Whether some agent reads the game's history (its positions must be recorded)."""
        return any(capabilities_of(a).knowledge for a in self.agents)

    def probabilities(self, st: Any, mover: int, options: Sequence[Any]) -> list[float]:
        n = len(options)
        if self.uniform:
            return [1.0 / n] * n
        agent = self.agents[mover]
        view = view_of(st, mover, self.game, options)
        key = (mover, observation_key(view, "info"))
        if hasattr(agent, "probabilities"):
            # a distribution is a function of the seat's view, so of its information
            # state: asked once per state (a network's forward pass is dear)
            known = self._distributions.get(key)
            if known is None or len(known) != n:
                known = self._distributions[key] = [
                    float(p) for p in agent.probabilities(view, options)
                ]
            return known
        chosen = self._chosen.get(key)
        if chosen is None:
            chosen = self._chosen[key] = agent.choose(view, list(options))
        return [1.0 if i == chosen else 0.0 for i in range(n)]


def opponent_model(spec: str, game: Any, nplayers: int, seed: int) -> OpponentModel:
    return OpponentModel(spec, game, nplayers, seed)
