"""Search agents: they play any game through determinizations of their view.

``common`` holds what they share (rollout policies, move keys), ``budget`` the one search
budget contract (iterations or seconds), ``evaluator`` the one evaluator interface
(priors and values) that rollouts and networks implement, ``rewards`` what a game is
worth to each seat (standings, score shares); ``ismcts`` (ISMCTS and MCTS) and ``pimc``
are the agents, and ``in_engine`` searches ISMCTS and MCTS inside the native engine,
choice for choice as in Python.

May import: ``cardlang.agents.base``, ``loop`` (agents play rollouts through the one play
loop) and ``registry`` (rollout policies named by spec), ``cardlang.information``,
``cardlang.engine``, ``cardlang.language`` and ``cardlang.errors``.
"""
