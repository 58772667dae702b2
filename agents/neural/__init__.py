"""The neural agent: a set transformer over a view's tokens, searching with PUCT.

- ``search``: PUCT over information sets with a policy-value network, several
  determinizations evaluated together per expansion (numpy; no torch);
- ``agent``: ``neural:model=PATH[:iterations=N][:temperature=T]``, which loads a model
  when first used;
- ``network`` and ``model``: the torch network, the model with its name table, its
  checkpoints (the only modules that import torch, the ``neural`` extra).

The network's input comes from ``cardlang.information.tokens``; training is
``cardlang.learning`` (``cardlang train``).

May import: ``cardlang.agents.base`` and ``search`` (rewards), ``cardlang.information``,
``cardlang.engine``, ``cardlang.language`` and ``cardlang.errors``; torch only in
``network`` and ``model``.
"""
