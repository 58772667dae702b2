"""PPO's lanes: the rows of one ``VectorEnv`` and who plays their seats (numpy).

Pipeline position: learning, under ppo_actor.py (which plays the lanes) and actors.py
(which builds them from the opponent pool).

A lane's ``kind`` says who plays its seats: ``self`` (every seat the current policy,
every decision learnt from), ``past`` (one seat per game the current policy, the others
a frozen snapshot of an earlier policy), ``average`` (one seat the current policy, the
others a policy an experimental remedy plays, ``Remedy.opponents``: the one name of
a remedy's the core keeps, so that the pool parses and seats it), or an
agent inside the engine (``bmu``, ``random``, a TOML bot: the lane's env has one learner
seat and the engine plays the rest).  The opponent pool (``--opponents``, ``parse_pool``)
is the set of lanes; its weights are the lanes' shares of the rows.

A lane's env may hold ``spare`` rows after its games' rows: rows that are no game of the
lane's but that a remedy plays in (rollouts fork its decisions there).  Spare rows are
held (no forward, no engine work) except while a remedy plays in them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardlang.env.vector import VectorEnv
from cardlang.errors import UsageError
from cardlang.information.tokens import NameTable
from cardlang.language.kinds import KIND_ATTRIBUTE
from cardlang.learning.steps import Step

__all__ = ["AVERAGE", "BARRED", "PAST", "SEATED", "SELF", "Lane", "NameDropout", "parse_pool"]

SELF = "self"
PAST = "past"
AVERAGE = "average"
BARRED = "barred"  # the current policy barred from a kingdom card (barring.py)
SEATED = (SELF, PAST, AVERAGE, BARRED)  # lanes whose env gives the caller every seat


def parse_pool(text: str) -> list[tuple[str, float]]:
    """``self@4,past@1,bmu@1`` -> [(spec, weight)]; a spec without ``@`` weighs 1."""
    pool: list[tuple[str, float]] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        spec, _, weight = item.rpartition("@") if "@" in item else (item, "", "1")
        try:
            w = float(weight)
        except ValueError:
            raise UsageError(
                f"--opponents: {item!r}: the weight after @ must be a number"
            ) from None
        if not spec or w < 0:
            raise UsageError(f"--opponents: {item!r}: write SPEC@WEIGHT with a weight >= 0")
        pool.append((spec, w))
    if not pool or sum(w for _, w in pool) <= 0:
        raise UsageError("--opponents: name at least one opponent with a positive weight")
    return pool


@dataclass(eq=False)  # a game is itself (a remedy may key what it keeps of it by it)
class LaneGame:
    """A row's game in progress: its learner's steps so far.  A game that ended keeps
    its ``result``; a remedy that still plays for it (``Remedy.holds``) finishes it."""

    steps: list[Step] = field(default_factory=list)
    result: Any = None


@dataclass
class Moves:
    """The moves drawn for a step's rows: each row's option, its log-probability, the
    mover's value, and (where the steps keep them) the whole distribution; ``marks``:
    what remedies note of each row's move, by name (``Remedy.moved``)."""

    picked: np.ndarray
    taken: np.ndarray
    value: np.ndarray
    probs: np.ndarray | None
    marks: dict[str, np.ndarray] = field(default_factory=dict)

    def spread(self, acting: np.ndarray) -> Moves:
        """These moves, drawn for the ``acting`` rows alone, laid out over every row
        (zeros in the rows that do not move)."""
        if acting.all():
            return self

        def full(array: np.ndarray) -> np.ndarray:
            out = np.zeros((len(acting), *array.shape[1:]), dtype=array.dtype)
            out[acting] = array
            return out

        return Moves(
            full(self.picked),
            full(self.taken),
            full(self.value),
            None if self.probs is None else full(self.probs),
            {name: full(mark) for name, mark in self.marks.items()},
        )

    def rows(self, start: int, stop: int) -> Moves:
        """The moves of rows ``start:stop`` (one lane's)."""
        return Moves(
            self.picked[start:stop],
            self.taken[start:stop],
            self.value[start:stop],
            None if self.probs is None else self.probs[start:stop],
            {name: mark[start:stop] for name, mark in self.marks.items()},
        )

    def step(self, env: VectorEnv, i: int) -> Step:
        """Row ``i``'s decision as the network read it, with the move drawn there."""
        c, a = int(env.token_count[i]), int(env.action_count[i])
        return Step(
            tokens=(
                env.token_names[i, :c].copy(),
                env.token_kinds[i, :c].copy(),
                env.token_buckets[i, :c].copy(),
                env.token_continuous[i, :c].copy(),
            ),
            actions=env.action_names[i, :a].copy(),
            chosen=int(self.picked[i]),
            logp=float(self.taken[i]),
            value=float(self.value[i]),
            seat=int(env.seat[i]),
            probs=None if self.probs is None else self.probs[i, :a].copy(),
        )


class Lane:
    """The rows of one ``VectorEnv`` and who plays their seats: ``kind`` is ``self``,
    ``past``, ``average`` or the spec of the agent inside the engine (the env's
    opponents).  The env's last ``spare`` rows are not the lane's games (see the module
    docstring)."""

    def __init__(self, env: VectorEnv, kind: str, spare: int = 0) -> None:
        if getattr(env, "token_names", None) is None:
            raise ValueError("PPO reads tokens: make the VectorEnv with tokens=model.table")
        if kind in SEATED and env.learner is not None:
            raise ValueError(f"a {kind} lane's env gives the caller every seat (seats='all')")
        if kind not in SEATED and env.learner is None:
            raise ValueError(f"the {kind} lane's env needs a learner seat")
        if not 0 <= spare < env.n:
            raise ValueError(f"{spare} spare rows of {env.n}: a lane needs a game row")
        self.env, self.kind = env, kind
        self.main = env.n - spare  # the rows whose games count
        self.spare = spare
        self.games = [LaneGame() for _ in range(self.main)]
        # past and average lanes: per row, the seat the current policy plays and (past)
        # the snapshot playing the others (set at every game's start: the update's draw)
        self.learner = np.zeros(env.n, dtype=np.int64)
        self.opponent = np.zeros(env.n, dtype=np.int64)
        # barred lanes: per row, the kingdom card the other seats may not take (an
        # index of the run's kingdom cards; drawn at every game's start)
        self.barred = np.full(env.n, -1, dtype=np.int64)
        # per row, each name id as its game reads it: itself, or 0 where NameDropout
        # dropped it (None: no dropout)
        self.names_kept: np.ndarray | None = None

    def learns(self) -> np.ndarray:
        """Per row: is the decision now the current policy's to learn from?"""
        if self.kind != SELF and self.kind in SEATED:
            return self.env.seat == self.learner
        return np.ones(self.env.n, dtype=np.bool_)

    def acting(self) -> np.ndarray:
        """Per row: does it move this step?  The spare rows are held (a remedy that
        plays in some of them marks those)."""
        acting = np.ones(self.env.n, dtype=np.bool_)
        acting[self.main :] = False
        return acting

    def restart(self) -> None:
        """The env's rows started afresh: every game in progress dropped."""
        self.games = [LaneGame() for _ in range(self.main)]

    def learner_seat(self, i: int) -> int | None:
        """The seat the current policy plays in row ``i`` (None: every seat)."""
        if self.kind == SELF:
            return None
        return int(self.learner[i]) if self.kind in SEATED else self.env.learner


class NameDropout:
    """Card kinds read without their names, a game at a time (``PPOConfig.name_dropout``).

    A card's tokens sum its name (``comp:KIND=SMITHY``, and the storages named after
    it, ``sto:P+0:SMITHY``) with its components and effects.  A network that always
    sees the name can rely on it and never learn what the components mean; then a card
    it has not met, whose name it does not know, is a blank.  Here each game, as it
    starts in a row, draws for every card kind whether the row's tokens name it: a
    dropped name becomes the unknown name (0) in every token and action of that game,
    before the network reads them and before the learner keeps them, so the moves
    played and the moves learnt see the same tokens.  Games of a deck without kinds
    (a card is its attributes) have nothing to drop."""

    def __init__(self, table: NameTable, chance: float, seed: int) -> None:
        self.chance = chance
        self.rng = np.random.default_rng([seed, 54])
        self.kinds = _kind_names(table.names)
        self.width = table.capacity

    def draw(self, lane: Lane, rows: Any) -> None:
        """New games in ``rows``: each kind's name dropped with the chance."""
        if lane.names_kept is None:
            lane.names_kept = np.tile(np.arange(self.width, dtype=np.int32), (lane.env.n, 1))
        for i in rows:
            kept = lane.names_kept[i]
            kept[:] = np.arange(self.width, dtype=np.int32)
            dropped = self.rng.random(len(self.kinds)) < self.chance
            for ids in (ids for ids, drop in zip(self.kinds, dropped, strict=True) if drop):
                kept[ids] = 0

    def apply(self, lane: Lane) -> None:
        """The dropped names of each row's game removed from its tokens (in place)."""
        env, kept = lane.env, lane.names_kept
        if kept is None:
            return
        rows = np.arange(env.n)[:, None, None]
        t, a = int(env.token_count.max()), int(env.action_count.max())
        env.token_names[:, :t] = kept[rows, env.token_names[:, :t]]
        env.action_names[:, :a] = kept[rows, env.action_names[:, :a]]

    def state(self) -> dict[str, Any]:
        return dict(self.rng.bit_generator.state)

    def load_state(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state


def _kind_names(names: Sequence[str]) -> list[np.ndarray]:
    """Per card kind, the ids of the names that name it: ``comp:KIND=K``, the integer
    storages named after it (``sto:OWNER:K``, Dominion's count of K owned) and the
    option values of a pile it tops (``val:BUY-PHASE/PILE=SUPPLY:K``: a buy's action
    token names the pile, not the card; left named, the policy learnt which pile to buy
    by that name, and a card whose name it never learnt was never bought)."""
    prefix = f"comp:{KIND_ATTRIBUTE}="
    kinds = {n[len(prefix) :]: [i] for i, n in enumerate(names) if n.startswith(prefix)}
    for i, name in enumerate(names):
        if name.startswith(("sto:", "val:")):
            kind = name.rpartition(":")[2]
            if kind in kinds:
                kinds[kind].append(i)
    return [np.array(ids, dtype=np.int64) for ids in kinds.values()]
