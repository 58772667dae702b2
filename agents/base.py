"""The agent interface: a player gets a view and the legal options and picks one.

Agents never receive a Gamestate; ``view`` (cardlang.views.PlayerView) is all they know.
``choose`` returns the index of an option in ``options``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from cardlang.control import Option
    from cardlang.views import PlayerView


@runtime_checkable
class Agent(Protocol):
    name: str

    def choose(self, view: PlayerView, options: list[Option]) -> int:
        """The index of the chosen option."""
        ...
