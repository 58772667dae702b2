"""cardlang: a language for card games, an interpreter, and agents that play them.

The facade: ``load_game(path)`` parses, checks and compiles a game file into a ``Game``;
``game.master()`` gives its ``Gamemaster``, which plays ``Gamestate`` values.

The package is layered by pipeline stage, each layer importing only those below it
(``[tool.importlinter]`` in pyproject.toml, checked by the tests with import-linter; the
layers side by side never import each other; see docs/internals.md):

    cli -> learning -> analysis | solve | interactive | env -> runs -> agents
        -> information | compiler -> engine -> language -> inputs -> errors

``agents`` is the top-level ``agents/`` folder, installed as ``cardlang.agents``.  The
modules at this level: ``errors`` (positions, diagnostics, rule and usage errors,
did-you-mean: what every layer reports with), ``inputs`` (files a user names, read as
untrusted input) and ``__main__`` (``python -m cardlang``, the same as the ``cardlang``
command).
"""

from __future__ import annotations

__version__ = "0.1.0"

from cardlang.compiler.load import load_game
from cardlang.engine.game import Game
from cardlang.engine.gamemaster import Gamemaster, GameResult, Limits
from cardlang.engine.state import Gamestate
from cardlang.errors import GameFileError, RuleError

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
