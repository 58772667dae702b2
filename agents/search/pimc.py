"""PIMC: perfect-information Monte Carlo over determinizations (CardStock's PIPMC player).

At each decision: deal ``determinizations`` worlds consistent with the view
(``view.determinize``); in each, try every option and play ``rollouts`` rollouts after
it (random moves by default, or any agent as the rollout policy); pick the option with
the best mean, by standing (``by=rank``: the share of the other seats one finishes ahead
of, see ``Gamemaster.standings``) or by the mover's own score (``by=score``, for solo
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

from cardlang.agents.search.common import (
    DEFAULT_ROLLOUT_CAP,
    MoveKeys,
    check_positive,
    first_index_by_key,
    make_rollout,
)

from cardlang.engine.state import MASK64, RUNNING, Gamestate
from cardlang.errors import UsageError
from cardlang.runs.play import DecisionTrace

if TYPE_CHECKING:
    from cardlang.engine.gamemaster import Gamemaster
    from cardlang.information.views import PlayerView


class PIMCAgent:
    name = "pimc"
    needs_knowledge = True  # it determinizes: the runner records the game

    def __init__(
        self,
        determinizations: int = 8,
        rollouts: int = 2,
        cap: int = DEFAULT_ROLLOUT_CAP,
        by: str = "rank",
        rollout: str = "random",
        seed: int = 0,
    ) -> None:
        check_positive("determinizations", determinizations, self.name)
        check_positive("rollouts", rollouts, self.name)
        check_positive("cap", cap, self.name)
        if by not in ("rank", "score"):
            raise UsageError(f"pimc: by must be rank or score (got {by!r})")
        self.determinizations = determinizations
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
        game = view.game
        master = game.master()
        if self._keys is None:
            self._keys = MoveKeys(game)
            self._rollout = make_rollout(self.rollout_spec, view.nplayers, self.seed)
        seat = view.seat
        n = view.nplayers
        sums: dict[Any, list[float]] = {}  # move key -> [sum of values, count]
        standings = [0.0] * n
        played = 0
        real_keys: list[Any] = []
        for d in range(self.determinizations):
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
                        standings[p] += outcome[p]
                    played += 1
        means = [sums[k][0] / sums[k][1] if k in sums else None for k in real_keys]
        # the best mean; equal means (common with small budgets) are broken at random,
        # not towards the first option
        top = max(_or_worst(m) for m in means)
        best = self.rng.choice([i for i, m in enumerate(means) if _or_worst(m) == top])
        values = means if self.by == "rank" else [None] * len(options)
        self.last_trace = DecisionTrace(tuple(values), tuple(s / played for s in standings))
        return best

    def _rollout_after(
        self, master: Gamemaster, world: Gamestate, option: int, seat: int
    ) -> tuple[float, Sequence[float]]:
        """Play ``option`` in a copy of ``world``, then a rollout; (value for ``seat``,
        everyone's standing)."""
        st = world.clone()
        st.rng = self.rng.getrandbits(64) & MASK64  # each rollout its own chance events
        master.apply(st, option)
        if st.status == RUNNING:
            self._rollout.play(master, st, self.cap)
        outcome = master.standings(st)
        if self.by == "rank":
            return outcome[seat], outcome
        return master.signed_score(st, seat), outcome


def _or_worst(value: float | None) -> float:
    return -float("inf") if value is None else value
