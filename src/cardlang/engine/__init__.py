"""The engine: a compiled ``Game`` played on ``Gamestate`` values by the ``Gamemaster``.

Holds the state (``state``: plain data, cheap to clone; ``owners``: the owners and zone
keys every engine and layer shares; ``frames``: the named fields of the control stack's
frames; ``picks``: the secret picks of a running ``(simultaneous ...)``
block), the control nodes the compiler builds (``control``), the run-time library
generated code calls (``runtime``, with ``collections`` and ``points``; ``work``: the
budget it charges between two decisions), the compiled rules (``game``), the rule
enforcer (``gamemaster``), options handed out without making them all
(``lazy_options``), option labels (``labels``), and the engine protocol (``protocol``,
with ``state_protocol``, the state's half): what everything above asks of an engine, so
that a second engine can take this one's place.  ``native`` is that second engine, the
C++ VM behind the same protocol; ``traits`` says what each engine offers beyond the
protocol, and ``engines`` is the registry: every engine by name, whether it runs here,
and the master that plays a game with it; ``transfer`` sends a state to another process
that compiled the same game.

May import: ``cardlang.language``, ``cardlang.inputs`` and ``cardlang.errors``.  Never
the compiler (which targets this layer) nor anything that looks at or plays games.
"""
