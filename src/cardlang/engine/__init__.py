"""The engine: a compiled ``Game`` played on ``Gamestate`` values by the ``Gamemaster``.

Holds the state (``state``: plain data, cheap to clone; ``frames``: the named fields of the
control stack's frames), the control nodes the compiler builds (``control``), the
run-time library generated code calls (``runtime``, with ``collections`` and ``points``),
the compiled rules (``game``), the rule enforcer (``gamemaster``), option labels
(``labels``), and the engine protocol (``protocol``): what everything above asks of an
engine, so that a second engine can take this one's place.

May import: ``cardlang.language`` and ``cardlang.errors``.  Never the compiler (which
targets this layer) nor anything that looks at or plays games.
"""
