"""The command line: ``cardlang COMMAND ...``.

``main`` (main.py: the console entry point, ``cardlang.cli:main``, and what ``python -m
cardlang`` runs) parses the command line and dispatches to one module per command:
``check``, ``simulate``, ``transcript``, ``describe`` and ``heuristics``; the options and
helpers they share (``--param``, ``--seed``, the limits, the backend, exit codes, error
lines) are in ``options``.  Errors are printed as messages, never tracebacks (unless
``--debug``).

May import: anything in cardlang.  Nothing imports it.
"""

from __future__ import annotations

from cardlang.cli.main import main

__all__ = ["main"]
