"""A policy table plays: ``policy:table=PATH``, the file ``cardlang solve --out`` saves.

At each decision the agent computes the key of what it observes (information.observation,
the kind the table was solved with) and takes the option the table names for it.  A
position the table does not hold (the game strayed where the solve never went: another
seat, another opponent) gets a uniformly random option from the agent's own seeded
stream, and is counted (``misses``).  ``probabilities`` gives the same choice as a
distribution, so a solve can take a table as its opponent model.
"""

from __future__ import annotations

from typing import Any

from cardlang.agents.base import Capabilities
from cardlang.agents.specs import agent_file

from cardlang.engine.state import MASK64, splitmix64
from cardlang.errors import UsageError
from cardlang.information.observation import StateKeys, option_index

FORMAT = "cardlang-policy"


def _load(path: str) -> tuple[StateKeys, dict[str, str]]:
    """The table's state keys and its key -> option key map."""
    doc = agent_file(path, FORMAT, "policy table")
    try:
        keys = StateKeys.from_fields(doc)
    except ValueError as e:
        raise UsageError(f"policy table {path}: {e}") from None
    return keys, {key: entry["action"] for key, entry in doc["policy"].items()}


class PolicyTableAgent:
    name = "policy"
    capabilities = Capabilities(knowledge=True)  # until the table says its kind of keys

    def __init__(self, table: str, seed: int = 0) -> None:
        self.keys, self.policy = _load(table)
        # only info keys read the game's history (so only they need a recorded game)
        self.capabilities = Capabilities(knowledge=self.keys.reads_history)
        self._state = seed & MASK64
        self.hits = 0
        self.misses = 0

    def _index(self, view: Any) -> int | None:
        return option_index(view, self.policy.get(self.keys.of(view)))

    def choose(self, view: Any, options: list[Any]) -> int:
        i = self._index(view)
        if i is not None:
            self.hits += 1
            return i
        self.misses += 1
        self._state, z = splitmix64(self._state)
        return (z * len(options)) >> 64

    def probabilities(self, view: Any, options: list[Any]) -> list[float]:
        i = self._index(view)
        if i is None:
            return [1.0 / len(options)] * len(options)
        return [1.0 if j == i else 0.0 for j in range(len(options))]
