"""ISMCTS and MCTS searched inside the native engine, choice for choice as in Python.

A search whose every part the engine has runs there (native/src/search.h): the state is
the native engine's, the evaluator is the agent's own rollout evaluator, its rollouts are
random (the default) or played by agents that all have twins inside the engine (the
Dominion bots: ``rollout=bigmoney``), and the engine declares search inside (not for a
game loaded with ``agents_inside=False``: CARDLANG_NATIVE_AGENTS=0).  The tree, the
determinizations, the move keys, the rollouts and the rewards are then the engine's; the
agent keeps the rest (the forced move, the tree's reuse, the trace).  The engine draws
from the agent's own ``random.Random`` (its state handed over and taken back) and the
random rollouts' SplitMix64 stream (or the rollout agents' twins), in the same order as
ismcts.py does, so the choices,
the traces and the event logs are those of the Python search (tests/test_search_in_engine.py
holds them equal on both engines).  Without the extension, for a game with a
``(simultaneous ...)`` block (the engine's deal knows nothing of secret picks), or for any
other search, the agent searches in Python as before.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from cardlang.agents.base import native_twin
from cardlang.agents.search.budget import Budget
from cardlang.agents.search.common import AgentRollout, RandomRollout
from cardlang.agents.search.evaluator import Evaluator, RolloutEvaluator

from cardlang.engine.gamemaster import ranking_signs
from cardlang.engine.protocol import Engine, SearchInsideEngine, search_inside

if TYPE_CHECKING:
    from cardlang.information.views import PlayerView


class Searcher(Protocol):
    """What the engine's search reads of the agent (ismcts.py: ISMCTSAgent)."""

    c: float
    margin: float
    budget: Budget
    evaluator: Evaluator | None
    rng: random.Random


class EngineSearch:
    """One agent's search inside the engine (its move-key table lives there)."""

    def __init__(self, master: SearchInsideEngine, card_slots: frozenset[int]) -> None:
        self.master = master  # the latest decision's (a view makes one per decision)
        self.scope = master.twin_scope  # what the search and its move keys belong to
        self.card_slots = card_slots
        self.last_visits: tuple[int, ...] | None = None  # the latest decide's, per option
        self.search = master.search_engine()
        game = master.game
        self.score_sign = -1 if game.scoring_mode == "min" else 1
        self.ranking_signs = ranking_signs(game)

    @staticmethod
    def rollouts(agent: Searcher, master: Engine, options: Sequence[Any]) -> list[Any] | None:
        """How the engine would play this decision's rollouts (``rollout_twins``), or None
        where the search cannot run inside the engine."""
        if type(agent.evaluator) is not RolloutEvaluator:  # not a subclass: it may differ
            return None
        evaluator = cast(RolloutEvaluator, agent.evaluator)
        if not (
            master.traits.search_inside
            # the engine deals no secret pick a seat has not seen (knowledge.py draws them)
            and not search_inside(master, "search inside the engine").secret_picks
            and getattr(options, "engine_list", lambda: None)() is not None
            and evaluator.margin == agent.margin
        ):
            return None
        return rollout_twins(evaluator.policy, master)

    def decide(
        self,
        agent: Searcher,
        view: PlayerView,
        options: Any,
        tree: Any,
        one_world: bool,
        twins: list[Any],
    ) -> tuple[int, list[float | None], list[float], int, Any]:
        """The search of one decision from ``tree`` (a ``SearchTree``), its rollouts by
        ``twins`` (``rollouts``): (the chosen option, each option's mean value, the
        seats' summed standings, the iterations done, the subtree under the chosen move
        or None)."""
        skeleton = view.skeleton()
        dealt = skeleton.engine_dealt
        if dealt is None:
            raise TypeError("a search inside the engine needs a skeleton the engine deals")
        evaluator = agent.evaluator
        assert isinstance(evaluator, RolloutEvaluator)
        policy = evaluator.policy
        self.master.name_moves(self.card_slots)
        settings = (
            agent.c,
            evaluator.cap,
            agent.margin,
            agent.budget.iterations,
            agent.budget.seconds,
            one_world,
            self.score_sign,
            self.ranking_signs,
            *self.master.engine_limits,
        )
        version, words, gauss = agent.rng.getstate()
        random_state = policy.state if isinstance(policy, RandomRollout) else 0
        best, values, totals, done, kept, words, random_state, visits = self.search.decide(
            settings,
            dealt.plan(skeleton),
            dealt.base,
            options.engine_list(),
            tree,
            list(words),
            random_state,
            twins,
            lambda: self.master.name_moves(self.card_slots),
        )
        agent.rng.setstate((version, tuple(words), gauss))
        if isinstance(policy, RandomRollout):
            policy.state = random_state
        self.last_visits = tuple(visits)  # per option: its iterations (an advisor's confidence)
        return best, values, totals, done, kept


def rollout_twins(policy: Any, master: Engine) -> list[Any] | None:
    """How the engine plays the rollouts: [] for random play (its own stream, carried
    over from ``RandomRollout``), the twin of each seat's agent for an ``AgentRollout``
    whose agents all have one (agents/loop.py's play_out would hand them the whole
    rollout, and they keep what they learn from one rollout to the next, as here); None
    where a rollout needs Python."""
    if type(policy) is RandomRollout:
        return []
    if type(policy) is not AgentRollout:
        return None
    twins = [native_twin(agent, master) for agent in policy.agents]
    return None if any(t is None for t in twins) else twins
