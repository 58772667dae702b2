"""The command line: ``cardlang COMMAND ...``.

``main`` (main.py: the console entry point, ``cardlang.cli:main``, and what ``python -m
cardlang`` runs) parses the command line and dispatches to one module per command:
``check``, ``simulate``, ``transcript``, ``describe``, ``heuristics``, ``train``,
``solve``, ``fit_opponent``, ``import_log``, ``tournament``, ``play``, ``serve`` and
``card_report``.  The options and helpers they share (``--param``, ``--seed``, the
limits, the engine, the backend, exit codes, error lines) are in ``options``;
``records`` says where a user's records go by default (the one module that reads
``CARDLANG_HOME``); ``names`` names agents in the tables, short and distinct at 80
columns; ``signals`` makes SIGTERM stop a command as Ctrl-C does.  Errors are printed
as messages, never tracebacks (unless ``--debug``).

May import: anything in cardlang.  Nothing imports it.
"""

from __future__ import annotations

from cardlang.cli.main import main

__all__ = ["main"]
