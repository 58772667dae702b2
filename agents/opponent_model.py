"""An opponent model learnt from records plays: ``model:path=PATH`` (``cardlang solve
--opponent model:PATH`` takes it as the others' model).

The file is what ``cardlang fit-opponent`` writes (cardlang.solve.fit): per observation
state (information.observation keys), the moves seen there and how often.  PARLESS (the
Punish notes' name) reads it as a Dirichlet posterior: a prior of total pseudo-count
``prior`` (3) spread evenly over the legal moves, plus the observed counts; the move
distribution is the posterior mean.  A state never observed gets the uniform distribution.
A PAWNN model (``fit-opponent --method pawnn``) also holds a small network per situation,
which gives the distribution of a state never observed (cardlang.solve.pawnn trains it;
it is evaluated here with numpy).  ``choose`` draws from the distribution with the agent's
own seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from cardlang.agents.base import Capabilities
from cardlang.agents.specs import agent_file

from cardlang.errors import UsageError
from cardlang.information.observation import StateKeys, seen_option_key

FORMAT = "cardlang-opponent-model"
#: The PARLESS prior: total pseudo-count spread over the legal moves of a state.
PRIOR = 3.0


def parless(
    counts: Mapping[str, int], moves: Sequence[str], prior: float = PRIOR
) -> dict[str, float]:
    """The posterior mean of a state's Dirichlet: ``prior`` spread evenly over its legal
    ``moves`` (distinct option keys), plus the times each was seen."""
    alpha = prior / len(moves)
    total = prior + sum(counts.get(k, 0) for k in moves)
    return {k: (alpha + counts.get(k, 0)) / total for k in moves}


def hidden_and_logits(w: Mapping[str, Any], x: Any) -> tuple[Any, Any]:
    """PAWNN's network on standardised vectors: its hidden layer and its logits."""
    h = np.tanh(x @ w["W1"] + w["b1"])
    return h, h @ w["W2"] + w["b2"]


def masked_softmax(logits: Any, mask: Any) -> Any:
    """A softmax over the legal moves only (rows); illegal moves get 0."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.where(mask, np.exp(z), 0.0)
    return e / e.sum(axis=-1, keepdims=True)


def network_distribution(w: Mapping[str, Any], x: Any, mask: Any) -> Any:
    """PAWNN's move distribution for observation vectors ``x`` (its trained weights
    ``w``, with the inputs' mean and standard deviation)."""
    _, logits = hidden_and_logits(w, (x - w["mean"]) / w["std"])
    return masked_softmax(logits, mask)


class ModelAgent:
    name = "model"
    capabilities = Capabilities(knowledge=True)  # until the model says its kind of keys

    def __init__(self, path: str, seed: int = 0) -> None:
        self.doc = agent_file(path, FORMAT, "opponent model")
        try:
            self.keys = StateKeys.from_fields(self.doc)
        except ValueError as e:
            raise UsageError(f"opponent model {path}: {e}") from None
        self.capabilities = Capabilities(knowledge=self.keys.reads_history)  # info: history
        self.prior = float(self.doc.get("prior", PRIOR))
        self.states: dict[str, dict[str, int]] = self.doc["states"]
        self.rng = random.Random(seed)
        self._weights: dict[str, dict[str, Any]] = {}  # PAWNN's arrays, per situation
        self.seen = 0
        self.unseen = 0

    def probabilities(self, view: Any, options: list[Any]) -> list[float]:
        keys = [seen_option_key(o) for o in view.options]
        counts = self.states.get(self.keys.of(view))
        n = len(options)
        if counts is None:
            self.unseen += 1
            net = self._network(view)
            return net if net is not None else [1.0 / n] * n
        self.seen += 1
        distinct = list(dict.fromkeys(keys))  # equal options are one move
        probs = [0.0] * n
        for k, q in parless(counts, distinct, self.prior).items():
            probs[keys.index(k)] = q
        return probs

    def _network(self, view: Any) -> list[float] | None:
        """PAWNN's distribution over the options, where the model has a network for the
        view's situation."""
        networks = self.doc.get("networks")
        if not networks or view.game is None:
            return None
        from cardlang.information.encode import Encoder

        encoder = Encoder.of(view.game)
        sid, vector, mask = encoder.encode(view)
        situation = encoder.layouts[sid].situation
        w = self._weights.get(situation)
        if w is None:
            raw = networks.get(situation)
            if raw is None:
                return None
            w = self._weights[situation] = {k: np.asarray(v) for k, v in raw.items()}
        p = network_distribution(w, vector, mask)
        probs = [0.0] * len(view.options)
        taken: set[int] = set()
        for j, i in enumerate(encoder.vocabulary.view_indices(view)):
            if i is not None and i not in taken:  # equal options are one move
                taken.add(i)
                probs[j] = float(p[i])
        total = sum(probs)
        return [q / total for q in probs] if total > 0 else None

    def choose(self, view: Any, options: list[Any]) -> int:
        probs = self.probabilities(view, options)
        return self.rng.choices(range(len(options)), weights=probs)[0]
