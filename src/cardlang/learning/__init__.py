"""Learning: the neural agent's training by self-play with search (``cardlang train``).

- ``samples``: recorded games replayed into (view tokens, move distribution, outcome);
- ``trainer``: the replay buffer and the gradient steps (torch);
- ``config``: a run's settings;
- ``loop``: the rounds of self-play, learning, evaluation and checkpoints;
- ``report``: plots, the HTML page and the model card.

May import: ``cardlang.analysis``, ``cardlang.runs`` and everything below; torch (the
``neural`` extra).  Only ``cardlang.cli`` imports it, when ``cardlang train`` runs.
"""
