"""The command line: ``cardlang COMMAND ...``.

``main`` parses the command line and dispatches to one module per command group
(``heuristics`` for ``cardlang heuristics``); ``main.py`` holds the shared options and the
other commands.  Errors are printed as messages, never tracebacks (unless ``--debug``).

May import: anything in cardlang.  Nothing imports it.
"""

from __future__ import annotations

from cardlang.cli.main import main

__all__ = ["main"]
