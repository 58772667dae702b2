"""Analysis: game-quality heuristics computed from recorded batches of games.

``data`` loads recorded games (cardlang.runs) as plain values; ``measures`` computes each
measure from them, as a pure function with a confidence interval; ``experiment`` plans and
plays the batches a design needs; ``report`` renders tables, JSON, plots and HTML.

May import: ``cardlang.runs`` and everything below it; never ``cardlang.cli``.
A new measure goes in ``measures`` (registered in ``MEASURES``).
"""

#: The AI of the ``ai_vs_random`` and ``ai`` designs unless --ai names another.
DEFAULT_AI = "ismcts:iterations=50"
