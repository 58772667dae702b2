"""Learning: the neural agent's training (``cardlang train``; torch, the ``neural`` extra).

The supported path is PPO (``--algorithm ppo``, the default): every shipped model's
recipe is a PPO command (its MODEL_CARD.md), and each game's recipe is in docs/neural.md.
It learns from games stepped in lockstep inside the engine, against an opponent pool
(itself, its past snapshots, agents that play inside the engine).  PPO is an actor and a
learner that meet at one hand-over, ``ppo.Experience``:

- ``ppo``: the algorithm's settings (``PPOConfig``), the hand-over (``Experience``: the
  learnt steps of the games that ended and their results) and the policy's inputs;
- ``ppo_actor``: ``PPOActor``, who plays the lanes with the policy it was sent, gives
  each decision its return and advantage, and keeps the past pool;
- ``ppo_learner``: ``PPOLearner``, the optimizer and the schedules: ``learn(experience)``
  is one clipped-ratio update with its entropy and value terms;
- ``lanes``: a lane of ``VectorEnv`` rows and who plays its seats; the opponent pool;
  name dropout;
- ``ppo_run``: ``--algorithm ppo`` around them: the run folder and the learner, rounds
  that start their rows afresh (so a resumed run is exact), checkpoints, evaluation;
- ``actors``: who plays a run's games, one update ahead of the learner: in its own
  process, in worker processes or as Ray actors, with the same results wherever;
- ``steps``: a decision PPO learns from, padded into the network's inputs, packed to
  cross to another process;
- ``returns``: what a finished game is worth to each seat, as the value head learns it;
- ``imitation``: the warm start (``--warm-start``): recorded games imitated;
- ``samples``: recorded games replayed into (view tokens, move distribution, outcome);
- ``trainer``: the replay buffer and the gradient steps imitation takes;
- ``config``: a run's settings, saved in its checkpoint;
- ``evaluate``: a policy's greedy play against named agents inside the engine, with
  Wilson intervals (in a solo game, its mean length);
- ``report``: plots, the HTML page and the model card with the command that reproduces it;
- ``run_folder``: what both algorithms' run folders share;
- ``card_worth``: what a card is worth to a policy (the card report's figure);

the seam to the experimental room:

- ``remedy``: ``Remedy``, the points where an experimental remedy plugs into the actor
  and the learner (extra loss terms, rewards, opponents, per-update hooks);
- ``seam``: the registration point, the one supported module that imports the room;
- ``experimental``: the room itself, off the supported path: the magnet (R-NaD), the
  average policy (NFSP), rollouts, and ``--algorithm search`` (self-play with search).

May import: ``cardlang.env``, ``cardlang.analysis`` (and ``solve``, ``interactive``),
``cardlang.runs`` and everything below; torch.  Only ``cardlang.cli`` imports it, when
``cardlang train`` runs.  Inside it, only ``seam`` imports ``experimental``.
"""
