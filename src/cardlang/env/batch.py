"""A ``VectorEnv``'s games stepped inside the native engine (native/src/batch.h).

Pipeline position: cardlang.env, under vector.py (which alone imports it).  ``NativeBatch``
turns what ``VectorEnv`` computes once (where each part of the observation layout reads
the board, the vocabulary's keys of every choice site, the card types' names, the
ranking) into the engine's ``BatchPlan``, binds the env's arrays to it, and steps every
row in one call: the chosen options are applied, the in-engine opponents (the random
agent, the Dominion bots, TOML bots) move, ended games restart from the batch's seeds,
and the arrays are written, with no Python per move or per row.  The arrays are the ones
the Python path writes, value for value (tests/test_vector_env.py holds the two equal).

``plan_for`` says why a game or an env cannot be stepped so (a site whose keys bind a
value the engine cannot name, an opponent with no twin in the engine, a recorded game);
``VectorEnv`` then steps in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardlang.compiler.ir import OPS
from cardlang.engine.gamemaster import ranking_signs
from cardlang.engine.protocol import batch_engine
from cardlang.errors import UsageError
from cardlang.language import types as T

#: A VectorEnv (env/vector.py, which imports this module: not imported here).
VectorEnv = Any

__all__ = ["NativeBatch", "plan_for", "token_plan"]

#: How the engine writes a keyed fork's value (vocabulary.py: ``_part_fn``), by its type
_PART_KINDS = {
    T.CARD: 0,
    T.PLAYER: 1,
    T.TEAM: 2,
    T.INT: 3,
    T.STR: 4,
    T.BOOL: 5,
    T.LOC: 6,
    T.MEMLOC: 6,
    T.CARDS: 7,
}


class BatchUnavailable(Exception):
    """Why an env steps in Python (its message says)."""


def plan_for(env: VectorEnv) -> dict[str, Any]:
    """The engine's ``BatchPlan`` of ``env``, as plain data; ``BatchUnavailable`` says
    why there is none."""
    vocabulary, encoder, writer = env.vocabulary, env.encoder, env.writer
    situations = {name: vocabulary.situation_id(name) for name in vocabulary.situations}
    return {
        "nplayers": env.nplayers,
        "width": env.width,
        "n_actions": env.n_actions,
        "learner": -1 if env.learner is None else env.learner,
        "seats": [_seat(plan) for plan in writer.plans],
        "types": list(encoder.card_types),
        "sites": _sites(env, situations),
        "keys": [list(vocabulary.keys(name)) for name in vocabulary.situations],
        "ranking_signs": ranking_signs(env.game),
        "score_reward": env.reward == "score",
        "score_sign": env._sign,
        "cards": env.cards,
    }


def token_plan(env: VectorEnv, table: Any, max_tokens: int) -> dict[str, Any]:
    """What the engine needs to write ``tokens.Tokenizer``'s tokens of every row: each
    name as its id in ``table`` (a ``NameTable``; names it lacks are added while it grows)."""
    from cardlang.information.tokens import Tokenizer

    tokenizer = Tokenizer(env.game, table)
    vocabulary = env.vocabulary
    seats = []
    for seat in range(env.nplayers):
        zones, storages = tokenizer.seat_names(seat)
        seats.append({"zones": zones, "storages": storages})
    return {
        "max_tokens": max_tokens,
        "seats": seats,
        "turns": tokenizer.name_id("turns"),
        "situations": [tokenizer.name_id(f"sit:{s}") for s in vocabulary.situations],
        # per type id (the encoder's card types; a type the vocabulary lacks is written
        # as the unknown name)
        "components": [tokenizer.components(t) for t in env.encoder.card_types],
        "actions": [
            [tokenizer.action_names(s, key) for key in vocabulary.keys(s)]
            for s in vocabulary.situations
        ],
    }


def _seat(plan: Any) -> dict[str, Any]:
    return {
        "current": plan.current,
        "storages": [(pos, owner, name) for pos, (owner, name) in plan.storages],
        "zones": list(plan.zones),
        "ends": [list(ends) for ends in plan.ends],
    }


def _sites(env: VectorEnv, situations: dict[str, int]) -> list[tuple[Any, ...]]:
    """Per CHOICE node of the program: its situation and how its options' keys are made."""
    by_position = {site.span.start_pos: site for site in env.vocabulary.sites}
    ir = env.master.ir
    choice = OPS.index("CHOICE")
    out = []
    for node, record in enumerate(ir.nodes):
        if record[0] != choice:
            continue
        site = by_position.get(ir.ast_nodes[node].span.start_pos)
        if site is None:
            continue
        parts = []
        for branch in site.branches:
            for fork in branch.forks:
                if not fork.keyed:
                    continue
                kind = _PART_KINDS.get(fork.type)
                if kind is None:
                    raise BatchUnavailable(
                        f"the keys of {site.situation} bind a {fork.type}, which the engine "
                        "does not name"
                    )
                parts.append((fork.slot, kind, f"{fork.var}="))
        n = max((b.index for b in site.branches), default=0) + 1
        bare = [f"{site.prefix}{b}" for b in range(n)]
        heads = [f"{site.prefix}{b}:" for b in range(n)]
        out.append((node, situations[site.situation], bare, heads, parts))
    return out


class NativeBatch:
    """The engine's batch of an env: built once, bound to the env's arrays."""

    def __init__(self, env: VectorEnv, plan: dict[str, Any], twins: list[Any]) -> None:
        master = batch_engine(env.master, "lockstep games inside the engine need the native one")
        self.env = env
        self.master = master
        self.tokens = plan.get("tokens") is not None
        self.batch = master.vector_batch(plan, env.n)
        self.batch.set_agents(twins)
        self.batch.bind(
            env.obs,
            env.mask,
            env.seat,
            env.situation,
            env.rewards,
            env.terminated,
            env.truncated,
            env.final_obs,
            env.has_final,
        )

        if self.tokens:
            self.bind_tokens()

    def bind_tokens(self) -> None:
        env = self.env
        self.batch.bind_tokens(
            env.token_names,
            env.token_kinds,
            env.token_buckets,
            env.token_continuous,
            env.token_count,
            env.action_names,
            env.action_key,
            env.action_count,
        )

    def reset(self, root: int) -> None:
        self._call(self.batch.reset, _root_words(root))
        self._fit_tokens()

    def step(self, actions: np.ndarray) -> dict[int, Any]:
        finished = self._call(self.batch.step, actions)
        self._fit_tokens()
        result = self.master.result
        return {i: result(self._finished(i)) for i in finished}

    def fork(self, src: int, dst: int) -> None:
        self.batch.fork(src, dst)

    def _fit_tokens(self) -> None:
        """A row that needed more token rows than the arrays hold: grow them (to the next
        multiple of 64) and have every row's tokens written again."""
        if not self.tokens:
            return
        needed = int(self.env.token_count.max())
        if needed > self.env.token_names.shape[1]:
            self.env._allocate_tokens(-(-needed // 64) * 64)
            self.bind_tokens()
            self.batch.rewrite_tokens()

    def states(self) -> list[Any]:
        return [self.state(i) for i in range(self.env.n)]

    def state(self, i: int) -> Any:
        return self.master.state(self.batch.state(i), self.batch.seed(i))

    def _finished(self, i: int) -> Any:
        return self.master.state(self.batch.finished(i), self.batch.finished_seed(i))

    def _call(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)``, its errors as the Python path raises them: an illegal action a
        UsageError naming the legal ones, a failed game its rule error."""
        try:
            return fn(*args)
        except ValueError as err:
            what, _, rest = str(err).partition(":")
            if what == "illegal":
                row, _, action = rest.partition(":")
                raise UsageError(self.env._illegal(int(row), int(action))) from None
            if what == "failed":
                error = self.master.result(self._finished(int(rest))).error
                raise error if error is not None else UsageError("a game failed") from None
            if what == "no-decision":
                raise self.env._no_decision() from None
            raise


def _root_words(root: int) -> list[int]:
    """A seed as numpy's SeedSequence reads it: 32-bit words from the lowest (numpy says
    what is wrong with a negative one)."""
    if root < 0:
        np.random.SeedSequence(root)  # raises numpy's own error
    words = []
    while True:
        words.append(root & 0xFFFFFFFF)
        root >>= 32
        if not root:
            return words
