"""Learning: the neural agent's training (``cardlang train``; torch, the ``neural`` extra).

Two algorithms.  PPO (``--algorithm ppo``, the default) learns from games stepped in
lockstep inside the engine, against an opponent pool (itself, its past snapshots, its
average policy, agents that play inside the engine); self-play with search
(``--algorithm search``) learns from recorded games played through the batch runner
with PUCT or Gumbel search.

PPO:

- ``ppo``: the algorithm: lanes of ``VectorEnv`` rows (one per kind of opponent), the
  clipped-ratio update with its entropy and value terms, generalised advantages;
- ``ppo_run``: ``--algorithm ppo`` around it: the run folder, rounds that start their
  rows afresh (so a resumed run is exact), checkpoints, evaluation, the report;
- ``actors``: who plays a run's games, one update ahead of the learner: in its own
  process, in worker processes or as Ray actors, with the same results wherever;
- ``steps``: a decision PPO learns from, padded into the network's inputs, packed to
  cross to another process;
- ``returns``: what a finished game is worth to each seat, as the value head learns it;
- ``average``: NFSP's average network, the average of the policies played (``--average``);
- ``rollouts``: every move of a learnt decision valued by rollouts forked from its row
  (``--rollouts``);

self-play with search:

- ``loop``: the rounds of self-play through the batch runner, learning, evaluation and
  checkpoints; imitation of recorded games, the warm start both algorithms use;
- ``samples``: recorded games replayed into (view tokens, move distribution, outcome);
- ``trainer``: the replay buffer and the gradient steps;

shared:

- ``config``: a run's settings, saved in its checkpoint;
- ``evaluate``: a policy's greedy play against named agents inside the engine, with
  Wilson intervals (in a solo game, its mean length);
- ``report``: plots, the HTML page and the model card with the command that reproduces it;
- ``run_folder``: what both algorithms' run folders share.

May import: ``cardlang.env``, ``cardlang.analysis`` (and ``solve``, ``interactive``),
``cardlang.runs`` and everything below; torch.  Only ``cardlang.cli`` imports it, when
``cardlang train`` runs.
"""
