"""cardlang: a language for card games, an interpreter, and agents that play them.

The facade: ``load_game(path)`` parses, checks and compiles a game file into a ``Game``;
``game.master()`` gives its ``Gamemaster``, which plays ``Gamestate`` values.
"""

from __future__ import annotations

__version__ = "0.1.0"

from cardlang.compiler.load import load_game
from cardlang.engine.game import Game  # noqa: E402
from cardlang.engine.gamemaster import Gamemaster, GameResult, Limits  # noqa: E402
from cardlang.engine.state import Gamestate  # noqa: E402
from cardlang.errors import GameFileError, RuleError  # noqa: E402

__all__ = [
    "Game",
    "GameFileError",
    "GameResult",
    "Gamemaster",
    "Gamestate",
    "Limits",
    "RuleError",
    "load_game",
]
