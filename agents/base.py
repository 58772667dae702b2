"""The agent interface: a player gets a view and the legal options and picks one.

Agents never receive a Gamestate; ``view`` (cardlang.information.views.PlayerView) is all they know.
``choose`` answers in one of three ways (the runner, cardlang.runs.play, plays them all):

- the index of an option in ``options`` (an ``int``): the fast path, what scripted and
  search agents return;
- one of the ``options`` themselves;
- a selection-strength vector: one float per entry of the situation's action vocabulary
  (``cardlang.information.vocabulary.Vocabulary.of(game).keys(situation)``), as a neural network
  outputs it.  The runner tries the entries from the strongest down and plays the first
  that names a legal option; each entry tried before it is recorded as an illegal
  attempt.  A vector with no legal entry at all is an error of the agent.

An agent with ``needs_view = False`` gets ``None`` for the view (the runner then builds
none: the random agent is faster so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from cardlang.engine.control import Option
    from cardlang.information.views import PlayerView


@runtime_checkable
class Agent(Protocol):
    name: str

    def choose(
        self, view: PlayerView, options: list[Option]
    ) -> int | Option | Sequence[float] | np.ndarray:
        """The chosen option: its index, itself, or a strength per vocabulary entry."""
        ...
