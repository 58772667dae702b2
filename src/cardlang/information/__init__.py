"""What a player may know, and how a network sees it.

Holds the player's view (``views``: visible zones, sizes, history, determinization), who
sees a location (``visibility``: the one home of the rule), per-card knowledge
(``knowledge``: pools of known joint composition), every deal of a game found as real
games (``deals``), keys of what a seat observes (``observation``: the states of
``cardlang solve``), the action vocabulary (``vocabulary``: a stable key per option), the
encoders (``encode``: a view, or a state, to a vector and a mask), a view as a set of
tokens for the neural agent (``tokens``, numpy only) and ``describe`` (those layouts as
tables).

May import: ``cardlang.engine``, ``cardlang.language``, ``cardlang.inputs`` and
``cardlang.errors``.
"""
