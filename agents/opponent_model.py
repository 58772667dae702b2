"""An opponent model learnt from records plays: ``model:path=PATH`` (``cardlang solve
--opponent model:PATH`` takes it as the others' model).

The file is what ``cardlang fit-opponent`` writes (cardlang.solve.fit): per observation
state (information.observation keys), the moves seen there and how often.  PARLESS (the
Punish notes' name) reads it as a Dirichlet posterior: a prior of total pseudo-count
``prior`` (3) spread evenly over the legal moves, plus the observed counts; the move
distribution is the posterior mean.  A state never observed gets the uniform distribution.
``choose`` draws from the distribution with the agent's own seeded generator.
"""

from __future__ import annotations

import random
from typing import Any

from cardlang.agents.base import Capabilities
from cardlang.agents.specs import agent_file

from cardlang.errors import UsageError
from cardlang.information.observation import KEY_KINDS, observation_key, option_key

FORMAT = "cardlang-opponent-model"


class ModelAgent:
    name = "model"
    capabilities = Capabilities(knowledge=True)  # until the model says its kind of keys

    def __init__(self, path: str, seed: int = 0) -> None:
        self.doc = agent_file(path, FORMAT, "opponent model")
        if self.doc.get("keys") not in KEY_KINDS:
            raise UsageError(f"opponent model {path}: unknown kind of keys {self.doc['keys']!r}")
        self.kind: str = self.doc["keys"]
        self.capabilities = Capabilities(knowledge=self.kind == "info")  # info keys: history
        self.prior = float(self.doc.get("prior", 3.0))
        self.states: dict[str, dict[str, int]] = self.doc["states"]
        self.rng = random.Random(seed)
        self.seen = 0
        self.unseen = 0

    def probabilities(self, view: Any, options: list[Any]) -> list[float]:
        keys = [option_key(o) for o in view.options]
        counts = self.states.get(observation_key(view, self.kind))
        n = len(options)
        if counts is None:
            self.unseen += 1
            return [1.0 / n] * n
        self.seen += 1
        distinct = list(dict.fromkeys(keys))  # equal options are one move
        alpha = self.prior / len(distinct)
        total = self.prior + sum(counts.get(k, 0) for k in distinct)
        probs = [0.0] * n
        for k in distinct:
            probs[keys.index(k)] = (alpha + counts.get(k, 0)) / total
        return probs

    def choose(self, view: Any, options: list[Any]) -> int:
        probs = self.probabilities(view, options)
        return self.rng.choices(range(len(options)), weights=probs)[0]
