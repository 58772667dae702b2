"""Small games solved: a seat's decision process against a model of the others.

Pipeline position: above the runs (it plays games through agents and the engines),
beside analysis.  ``cardlang solve`` and ``cardlang fit-opponent`` (cli/solve.py,
cli/fit_opponent.py) are its face.

- ``opponents``: what the other seats do, as a distribution over their options
  (``uniform``, any agent spec, a saved policy table, a fitted model);
- ``worlds``: the starting positions, every deal the shuffles can make with its weight
  (exact), or a sample of them;
- ``process``: the seat's decision process, built by walking the game from every starting
  position: states are what the seat observes (information.observation), transitions
  and rewards are weighted by chance and by the opponents' model;
- ``sampling`` and ``exploring``: the process estimated from games instead, for games
  too large to walk: every action of every state tried alike (``--rollouts``), or
  counted from rounds of games the policy itself plays (``--explore``, resumable);
- ``iteration``: value iteration over it, sweep by sweep;
- ``policy_file``: the policy it finds, saved as a table that plays as
  ``policy:table=PATH``, its states in words;
- ``fit``: opponent models (PARLESS) counted from recorded games (``cardlang
  fit-opponent``); ``pawnn``: PAWNN, a small network (numpy) for the states PARLESS
  never saw.

May import: cardlang.runs, cardlang.agents and below; never cardlang.cli.
"""

from __future__ import annotations

from cardlang.solve.iteration import Sweep, ValueIteration, value_iteration
from cardlang.solve.opponents import OpponentModel, opponent_model
from cardlang.solve.policy_file import save_policy
from cardlang.solve.process import (
    DecisionProcess,
    Problem,
    build_process,
    estimate_nodes,
    evaluate_policy,
)
from cardlang.solve.worlds import SolveError, StartingPositions, starting_positions

__all__ = [
    "DecisionProcess",
    "OpponentModel",
    "Problem",
    "SolveError",
    "StartingPositions",
    "Sweep",
    "ValueIteration",
    "build_process",
    "estimate_nodes",
    "evaluate_policy",
    "opponent_model",
    "save_policy",
    "starting_positions",
    "value_iteration",
]
