"""Analysis: game-quality heuristics computed from recorded batches of games.

``data`` loads recorded games (cardlang.runs) as plain values; ``measures`` computes each
measure from them, as a pure function with a confidence interval; ``experiment`` plans and
plays the batches a design needs; ``report`` renders tables, JSON, plots and HTML.

``measures`` is the registry (``MEASURES``) over modules with one job each: ``estimates``
(estimates, differences, Wilson and bootstrap intervals), ``games`` (what the measures
read from a recorded game), ``base`` (the ``Measure`` type, its registration,
``compare``) and the families of measures: ``outcomes`` (completion, length, seats' win
rates), ``decisions`` (options and their estimated values), ``course`` (standings and
winners' estimates as play goes on).

May import: ``cardlang.runs`` and everything below it; never ``cardlang.cli``.
A new measure goes in the module of its family (declared with ``base.register``, it
joins ``MEASURES``).
"""

#: The AI of the ``ai_vs_random`` and ``ai`` designs unless --ai names another.
DEFAULT_AI = "ismcts:iterations=50"
