"""Game-quality heuristics: measures computed from recorded batches of games.

``data`` loads recorded games (records.py) as plain values; ``measures`` computes each
measure from them, as a pure function with a confidence interval.
"""

#: The AI of the ``ai_vs_random`` and ``ai`` designs unless --ai names another.
DEFAULT_AI = "ismcts:iterations=50"
