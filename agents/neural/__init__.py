"""The neural agent: a network over a view's tokens, played raw or searching with PUCT.

- ``agent``: ``neural:model=PATH[:iterations=N][:temperature=T][:policy=P]``, which loads
  a model when first used (``iterations=0`` plays the network's raw policy);
- ``search``: PUCT over information sets with a policy-value network, several
  determinizations evaluated together per expansion (numpy; no torch);
- ``network``: the torch networks, a set transformer (the default) or Deep Sets (cheap on
  a CPU, its forward packed), from tokens to a policy and a value;
- ``model``: a trained model: the network, its name table, the game it learnt, its
  checkpoints;
- ``kernels``: two steps of the Deep Sets packed forward (repeated rows, the max pool's
  winners), in the native module on a CPU, else in torch.

The network's input comes from ``cardlang.information.tokens``; training is
``cardlang.learning`` (``cardlang train``).

May import: ``cardlang.agents.base`` and ``search`` (rewards), ``cardlang.information``,
``cardlang.engine``, ``cardlang.language`` and ``cardlang.errors``; torch only in
``network``, ``model`` and ``kernels``, and in ``agent`` when the first neural agent is
made.
"""
