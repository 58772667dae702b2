"""The compiler: a checked game to a runnable ``Game``.

Holds the expression compiler (``expressions``: each expression to one generated Python
function), the statement compiler (``statements``: actions, control nodes, option
listers; assembled from ``stmt_base``, ``control_flow``, ``moves``, ``board`` and
``choices``), the lowering to the native engine's intermediate form (``ir``) and its
text for people (``ir_dump``, ``cardlang describe --ir``), and ``load`` (``load_game``:
parse, check and compile in one call).

May import: ``cardlang.engine`` (the run-time library and control nodes it targets, the
``Game`` it builds), ``cardlang.language``, ``cardlang.inputs`` and ``cardlang.errors``.
"""
