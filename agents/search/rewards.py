"""Rewards for search: what a finished (or cut-short) game is worth to each seat.

Pipeline position: agents.  The engine says how a game ended and what its scores are
(``Gamemaster.result``, ``current_scores``, ``ranking_keys``); turning those into rewards in
[0, 1] is the search agents' business, so it lives here, not in the Gamemaster.

- ``standings``: per seat, the share of the other seats it finishes ahead of, a tie
  counting half.  The reward of ISMCTS, MCTS and PIMC, and the unit of the values in
  their traces (``DecisionTrace``).
- ``score_shares``: each seat's score placed between the lowest and highest at the
  table; a scale-free margin term (ISMCTS ``margin=``).
- ``signed_score(s)``: scores negated where the game minimises them (PIMC ``by=score``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import FAILED, RUNNING
from cardlang.errors import RuleError

if TYPE_CHECKING:
    pass


def standings(master: Engine, st: EngineState) -> tuple[float, ...]:
    """Each seat's standing in [0, 1]: 1 ahead of everyone, 0 behind everyone, a tie
    counting half (the share of the other seats it beats).  For a game over, from its
    result; for a game still running (a search's rollout cut short), from the scores as
    they stand now.  A failed game stands everyone at 0.5."""
    n = st.nplayers
    status = st.status
    if status == FAILED or n < 2:
        return (0.5,) * n if status == FAILED else (1.0,) * n
    keys: Sequence[tuple[int, ...]]
    if status == RUNNING:
        try:
            keys = master.current_scores(st)
        except RuleError:
            return (0.5,) * n
    else:
        keys = st.scores or [(0,) * (1 + len(master.game.tiebreaks))] * n
    keyed = master.ranking_keys(keys)
    # plain loops: every rollout of a search ends here
    return tuple(
        [
            (sum([o > mine for o in keyed]) + 0.5 * (sum([o == mine for o in keyed]) - 1)) / (n - 1)
            for mine in keyed
        ]
    )


def signed_score(master: Engine, st: EngineState, seat: int) -> int:
    """A seat's score as it stands (final once the game is over), negated when the
    game's scoring is ``min``: larger is better either way."""
    return signed_scores(master, st)[seat]


def signed_scores(master: Engine, st: EngineState) -> tuple[int, ...]:
    """Every seat's ``signed_score`` (all 0 when the scores cannot be computed)."""
    if st.scores is not None:
        scores = [k[0] for k in st.scores]
    else:
        try:
            scores = [k[0] for k in master.current_scores(st)]
        except RuleError:
            return (0,) * st.nplayers
    sign = -1 if master.game.scoring_mode == "min" else 1
    return tuple(sign * x for x in scores)


def score_shares(master: Engine, st: EngineState) -> tuple[float, ...]:
    """Each seat's score placed between the lowest (0) and the highest (1) score at the
    table; 0.5 each when all are equal.  Scale-free, so a search can add it to standings
    as a margin term in any game."""
    scores = signed_scores(master, st)
    low, high = min(scores), max(scores)
    if high == low:
        return (0.5,) * len(scores)
    return tuple((x - low) / (high - low) for x in scores)
