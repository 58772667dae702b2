"""PIMC: perfect-information Monte Carlo over determinizations (CardStock's PIPMC player).

At each decision: deal ``determinizations`` worlds (the search budget, budget.py: or as
many as fit in ``time`` seconds) consistent with the view
(``view.determinize``); in each, try every option and play ``rollouts`` rollouts after
it (random moves by default, or any agent as the rollout policy); pick the option with
the best mean, by standing (``by=rank``: the share of the other seats one finishes ahead
of, see rewards.py) or by the mover's own score (``by=score``, for solo
games and score-chasing). Every option is tried in the same worlds, so the comparison is
between moves, not between deals.

Known weakness (Frank and Basin's *strategy fusion*): each world is solved as if the
player could see it, so PIMC over-values moves that keep options open.  ISMCTS does not
fuse strategies that way.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardlang.agents.base import Capabilities, DecisionTrace
from cardlang.agents.search.budget import Budget
from cardlang.agents.search.common import (
    DEFAULT_ROLLOUT_CAP,
    MoveKeys,
    check_positive,
    first_index_by_key,
    make_rollout,
)
from cardlang.agents.search.rewards import signed_score, standings

from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import MASK64, RUNNING
from cardlang.errors import UsageError

if TYPE_CHECKING:
    from cardlang.information.views import PlayerView


class PIMCAgent:
    name = "pimc"
    capabilities = Capabilities(knowledge=True)  # it determinizes: the game is recorded

    def __init__(
        self,
        determinizations: int = 8,
        rollouts: int = 2,
        cap: int = DEFAULT_ROLLOUT_CAP,
        by: str = "rank",
        rollout: str = "random",
        time: float = 0.0,
        seed: int = 0,
    ) -> None:
        """``determinizations`` per decision, or with ``time`` > 0 as many as fit in that
        many seconds; ``rollouts`` per option in each; ``cap`` decisions per rollout;
        ``by`` rank or score; ``rollout`` the rollout policy (an agent name)."""
        self.budget = Budget(determinizations, time)
        self.budget.check(self.name, "determinizations")
        check_positive("rollouts", rollouts, self.name)
        check_positive("cap", cap, self.name)
        if by not in ("rank", "score"):
            raise UsageError(f"pimc: by must be rank or score (got {by!r})")
        self.rollouts = rollouts
        self.cap = cap
        self.by = by
        self.rollout_spec = rollout
        self.seed = seed
        self.rng = random.Random(seed)
        self.last_trace: DecisionTrace | None = None
        self._rollout: Any = None
        self._keys: MoveKeys | None = None

    def choose(self, view: PlayerView, options: Sequence[Any]) -> int:
        if len(options) == 1:
            self.last_trace = DecisionTrace((None,), ())
            return 0
        master = view.master()
        game = master.game
        if self._keys is None:
            self._keys = MoveKeys(game)
            self._rollout = make_rollout(self.rollout_spec, view.nplayers, self.seed)
        seat = view.seat
        n = view.nplayers
        sums: dict[Any, list[float]] = {}  # move key -> [sum of values, count]
        seat_totals = [0.0] * n
        played = 0
        real_keys: list[Any] = []
        for d in self.budget.spend():
            world = view.determinize(self.rng)
            if d == 0:  # the real options, named as in the worlds (same card ids)
                real_keys = self._keys.keys(world, options)
            in_world = first_index_by_key(self._keys.keys(world, master.legal_options(world)))
            for key in dict.fromkeys(real_keys):
                i = in_world.get(key)
                if i is None:  # not a legal move in this world
                    continue
                for _ in range(self.rollouts):
                    value, outcome = self._rollout_after(master, world, i, seat)
                    acc = sums.setdefault(key, [0.0, 0])
                    acc[0] += value
                    acc[1] += 1
                    for p in range(n):
                        seat_totals[p] += outcome[p]
                    played += 1
        means = [sums[k][0] / sums[k][1] if k in sums else None for k in real_keys]
        # the best mean; equal means (common with small budgets) are broken at random,
        # not towards the first option
        top = max(_or_worst(m) for m in means)
        best = self.rng.choice([i for i, m in enumerate(means) if _or_worst(m) == top])
        values = means if self.by == "rank" else [None] * len(options)
        self.last_trace = DecisionTrace(tuple(values), tuple(s / played for s in seat_totals))
        return best

    def _rollout_after(
        self, master: Engine, world: EngineState, option: int, seat: int
    ) -> tuple[float, Sequence[float]]:
        """Play ``option`` in a copy of ``world``, then a rollout; (value for ``seat``,
        everyone's standing)."""
        st = world.clone()
        st.rng = self.rng.getrandbits(64) & MASK64  # each rollout its own chance events
        master.apply(st, option)
        if st.status == RUNNING:
            self._rollout.play(master, st, self.cap)
        outcome = standings(master, st)
        if self.by == "rank":
            return outcome[seat], outcome
        return signed_score(master, st, seat), outcome


def _or_worst(value: float | None) -> float:
    return -float("inf") if value is None else value
