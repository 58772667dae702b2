"""What a player may know, and how a network sees it.

Holds the player's view (``views``: visible zones, sizes, history, determinization),
per-card knowledge (``knowledge``: pools of known joint composition), the action
vocabulary (``vocabulary``: a stable key per option), the encoders (``encode``: a view to
a vector and a mask) and ``describe`` (those layouts as tables).

May import: ``cardlang.engine``, ``cardlang.language`` and ``cardlang.errors``.
"""
