"""Game-quality heuristics: measures computed from recorded batches of games.

``data`` loads recorded games (records.py) as plain values; ``measures`` computes each
measure from them, as a pure function with a confidence interval.
"""
