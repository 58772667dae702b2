"""ISMCTS (information-set Monte Carlo tree search, single observer) and plain MCTS.

SO-ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree for the searching player,
whose root is its information set; every iteration deals a fresh determinization of the
player's view (``view.determinize``) and walks the tree with it.  An edge is a move key
(search/common.py: the condact and the card types it binds, as the mover sees them in that
determinization), so an opponent's move is named by what they played, and a move legal in
only some determinizations is a separate edge with its own *availability* count: UCB uses
``ln(availability)`` in place of the parent's visits, so rarely available moves are not
starved nor favoured.  Selection is UCT (``c``); a leaf is expanded by one untried move,
then a rollout (random by default, or any agent) plays to the end, and every edge on the
path adds the standing of the seat that moved there (n players, general sum).

A leaf is valued by an evaluator (evaluator.py): by default a ``RolloutEvaluator``
(the rollout policy, then standings); a given ``evaluator`` (a neural network) replaces
it, called on the determinized state at the leaf: it returns priors over the legal
options (or None) and a value per seat; with priors, selection is PUCT (``Q + c * P *
sqrt(A) / (1 + N)``).  The budget (budget.py) is ``iterations`` simulations per decision,
or as many as fit in ``time`` seconds.

The tree is kept between decisions when the player decides again right after its own
move (a Dominion turn, passing three cards one by one): the subtree under the move it
made becomes the new root.  After anyone else's move it starts afresh (the moves of
others are not all visible to it).

``MCTSAgent`` is the same search on a single determinization per decision: exact MCTS
for games without hidden information (the determinization is then the state itself).

Each decision leaves a trace (``last_trace``): per option its mean value for the mover,
and each seat's mean standing over the iterations.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardlang.agents.base import Capabilities, DecisionTrace
from cardlang.agents.search.budget import Budget
from cardlang.agents.search.common import (
    DEFAULT_ROLLOUT_CAP,
    MoveKey,
    MoveKeys,
    check_positive,
    first_index_by_key,
    make_rollout,
)
from cardlang.agents.search.evaluator import (
    Evaluator,
    EvaluatorFunction,
    RolloutEvaluator,
    as_evaluator,
    terminal_value,
)
from cardlang.agents.search.in_engine import EngineSearch

from cardlang.engine.protocol import Engine, EngineState, SearchInsideEngine, search_inside
from cardlang.engine.state import RUNNING
from cardlang.errors import UsageError
from cardlang.information.visibility import can_see

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.information.views import PlayerView


class Edge:
    __slots__ = ("visits", "total", "available", "prior", "child")

    def __init__(self, prior: float = 0.0) -> None:
        self.visits = 0
        self.total = 0.0  # sum of the mover's rewards through this edge
        self.available = 0  # iterations in which this move was legal here
        self.prior = prior
        self.child: Node | None = None


class Node:
    __slots__ = ("edges", "priored")

    def __init__(self) -> None:
        self.edges: dict[MoveKey, Edge] = {}
        self.priored = False


class ISMCTSAgent:
    """Single-observer ISMCTS with UCT; see the module docstring."""

    name = "ismcts"
    capabilities = Capabilities(knowledge=True)  # it determinizes: the game is recorded
    one_world = False  # MCTS: one determinization per decision (_world)

    def __init__(
        self,
        iterations: int = 200,
        c: float = 0.7,
        time: float = 0.0,
        rollout: str = "random",
        cap: int = DEFAULT_ROLLOUT_CAP,
        reuse: bool = True,
        margin: float = 0.0,
        evaluator: Evaluator | EvaluatorFunction | None = None,
        seed: int = 0,
    ) -> None:
        """``iterations`` per decision, or with ``time`` > 0 as many as fit in that many
        seconds; ``c`` the exploration constant (rewards are in [0, 1]); ``rollout`` the
        rollout policy (an agent name); ``cap`` decisions per rollout before it is scored
        as the game stands; ``reuse`` keeps the tree between one's own consecutive
        decisions; ``margin`` (0 to 1) the weight of the score margin in the reward
        (``rewards.score_shares``): with it a lost position still has better and worse
        moves (losing by less).  ``evaluator`` replaces the rollouts (evaluator.py)."""
        self.budget = Budget(iterations, time)
        self.budget.check(self.name)
        check_positive("c", c, self.name)
        check_positive("cap", cap, self.name)
        self.c = c
        self.rollout_spec = rollout
        self.cap = cap
        self.reuse = reuse
        if not 0.0 <= margin <= 1.0:
            raise UsageError(f"{self.name}: margin must be between 0 and 1 (got {margin})")
        self.margin = margin
        # None until the first decision, when the rollout policy is made (_prepare)
        self.evaluator: Evaluator | None = None if evaluator is None else as_evaluator(evaluator)
        self.seed = seed
        self.rng = random.Random(seed)
        self.last_trace: DecisionTrace | None = None
        self._keys: MoveKeys | None = None
        # to reuse: (the decision count it is for, history length then, the subtree: a
        # Node, or the engine's SearchTree)
        self._kept: tuple[int, int, Any] | None = None
        self._engine: EngineSearch | None = None  # the search inside the native engine
        self._base: EngineState | None = None  # MCTS: this decision's one determinization

    # ------------------------------------------------------------ deciding
    def choose(self, view: PlayerView, options: Sequence[Any]) -> int:
        if len(options) == 1:
            self.last_trace = DecisionTrace((None,), ())
            self._kept = None
            return 0
        master = view.master()
        game = master.game
        self._prepare(game, view.nplayers)
        twins = EngineSearch.rollouts(self, master, options)
        if twins is not None:  # the search runs inside the native engine (in_engine.py)
            inside = search_inside(master, "search inside the engine")  # rollouts() asked
            return self._choose_in_engine(self._engine_for(inside), view, options, twins)
        root = self._root(view)
        if not isinstance(root, Node):  # kept by the engine's search: not this one's
            root = Node()
        totals = [0.0] * view.nplayers
        self._base = None
        done = self._search(view, master, root, totals)
        # the real options, named as in the simulations (their cards are the same ids)
        assert self._keys is not None
        keys = self._keys.keys(self._world(view), options)
        best = self._best(root, keys)
        self._trace(root, keys, totals, done)
        chosen = root.edges.get(keys[best])
        self._kept = None
        if chosen is not None and chosen.child is not None:
            self._kept = (view.decisions + 1, view.history_length, chosen.child)
        return best

    def _engine_for(self, master: SearchInsideEngine) -> EngineSearch:
        """This agent's search inside the engine, for this game's program."""
        engine = self._engine
        if engine is None or engine.scope is not master.twin_scope:
            assert self._keys is not None
            engine = self._engine = EngineSearch(master, self._keys.card_slots)
        engine.master = master
        return engine

    def _choose_in_engine(
        self, engine: EngineSearch, view: PlayerView, options: Any, twins: list[Any]
    ) -> int:
        kept = self._root(view)
        tree = None if isinstance(kept, Node) else kept  # None: a new root
        best, values, totals, done, subtree = engine.decide(
            self, view, options, tree, self.one_world, twins
        )
        self.last_trace = DecisionTrace(
            tuple(values),
            tuple(t / done for t in totals) if done else (),
            visits=getattr(engine, "last_visits", None),
        )
        self._kept = None
        if subtree is not None:
            self._kept = (view.decisions + 1, view.history_length, subtree)
        return best  # type: ignore[no-any-return]

    def _prepare(self, game: Game, nplayers: int) -> None:
        if self._keys is None:  # once per agent: agents play one game each
            self._keys = MoveKeys(game)
            if self.evaluator is None:
                rollout = make_rollout(self.rollout_spec, nplayers, self.seed)
                self.evaluator = RolloutEvaluator(rollout, self.cap, self.margin)

    def _root(self, view: PlayerView) -> Any:
        """The subtree under one's previous move, if nothing happened since that the tree
        does not account for: no one else decided, and no card came into sight and no
        location was shuffled (the tree's statistics mix every way those could go)."""
        kept = self._kept
        if not self.reuse or kept is None or kept[0] != view.decisions:
            return Node()
        seat = view.seat
        for event in view.history_since(kept[1]):  # only what happened since
            if event[0] == "shuffle" or (
                event[0] == "move" and not can_see(seat, event[2]) and can_see(seat, event[3])
            ):
                return Node()
        return kept[2]

    def _search(self, view: PlayerView, master: Engine, root: Node, totals: list[float]) -> int:
        done = 0
        for done in self.budget.spend():  # noqa: B007 (the count is the answer)
            standings = self._iterate(master, self._world(view), root)
            for p, r in enumerate(standings):
                totals[p] += r
        return done + 1

    def _world(self, view: PlayerView) -> EngineState:
        """The determinization an iteration plays in: a fresh one each time."""
        return view.determinize(self.rng)

    def _iterate(self, master: Engine, st: EngineState, root: Node) -> Sequence[float]:
        keys_of, evaluator = self._keys, self.evaluator
        assert keys_of is not None and evaluator is not None
        path: list[tuple[Edge, int]] = []
        node = root
        expanded = False
        while st.status == RUNNING:
            options = master.legal_options(st)
            keys = keys_of.keys(st, options)
            index_of = first_index_by_key(keys)
            if evaluator.gives_priors and not node.priored:
                self._add_priors(master, node, st, keys)
            for k in index_of:
                edge = node.edges.get(k)
                if edge is not None:
                    edge.available += 1
            untried = [k for k in index_of if k not in node.edges or node.edges[k].visits == 0]
            if untried:
                key = untried[int(self.rng.random() * len(untried))]
                edge = node.edges.get(key)
                if edge is None:
                    edge = node.edges[key] = Edge()
                    edge.available = 1
                expanded = True
            else:
                key = self._select(node, index_of)
                edge = node.edges[key]
            path.append((edge, st.mover))
            master.apply(st, index_of[key])
            if expanded:
                break
            if edge.child is None:
                edge.child = Node()
            node = edge.child
        rewards, standings = self._leaf_value(master, st)
        for edge, mover in path:
            edge.visits += 1
            edge.total += rewards[mover]
        return standings  # what the trace's standings average

    def _select(self, node: Node, index_of: dict[MoveKey, int]) -> MoveKey:
        c = self.c
        best_key, best_score = None, -math.inf
        for key in index_of:
            e = node.edges[key]
            mean = e.total / e.visits
            if node.priored:
                score = mean + c * e.prior * math.sqrt(e.available) / (1 + e.visits)
            else:
                score = mean + c * math.sqrt(math.log(e.available) / e.visits)
            if score > best_score:
                best_key, best_score = key, score
        assert best_key is not None
        return best_key

    def _add_priors(self, master: Engine, node: Node, st: EngineState, keys: list[MoveKey]) -> None:
        """The evaluator's priors on the edges of ``node`` (PUCT from then on)."""
        assert self.evaluator is not None
        priors = self.evaluator.evaluate(master, st).priors
        if priors is not None:
            for k, p in zip(keys, priors, strict=True):
                edge = node.edges.get(k)
                if edge is None:
                    edge = node.edges[k] = Edge(p)
                else:
                    edge.prior = max(edge.prior, p)
            node.priored = True

    def _leaf_value(
        self, master: Engine, st: EngineState
    ) -> tuple[Sequence[float], Sequence[float]]:
        """(the reward each seat backs up, its standing): equal unless ``margin`` mixes
        the score margin into the reward; traces report standings.  A finished game is
        scored as it ended; a running one by the evaluator."""
        assert self.evaluator is not None
        if st.status == RUNNING:
            _, values, standings = self.evaluator.evaluate(master, st)
        else:
            _, values, standings = terminal_value(master, st, self.margin)
        return values, standings

    # ------------------------------------------------------------ the answer
    def _best(self, root: Node, keys: list[MoveKey]) -> int:
        """The most visited move (ties: the better mean, then the first option)."""
        best, best_rank = 0, (-1, -math.inf)
        for i, k in enumerate(keys):
            e = root.edges.get(k)
            rank = (e.visits, e.total / e.visits) if e is not None and e.visits else (0, -math.inf)
            if rank > best_rank:
                best, best_rank = i, rank
        return best

    def _trace(self, root: Node, keys: list[MoveKey], totals: list[float], done: int) -> None:
        values: list[float | None] = []
        visits: list[int] = []
        for k in keys:
            e = root.edges.get(k)
            values.append(e.total / e.visits if e is not None and e.visits else None)
            visits.append(e.visits if e is not None else 0)
        self.last_trace = DecisionTrace(
            tuple(values), tuple(t / done for t in totals) if done else (), visits=tuple(visits)
        )


class MCTSAgent(ISMCTSAgent):
    """UCT on one determinization per decision: plain MCTS where nothing is hidden."""

    name = "mcts"
    one_world = True

    def _world(self, view: PlayerView) -> EngineState:
        if self._base is None:  # one determinization per decision
            self._base = view.determinize(self.rng)
        st = self._base.clone()
        st.rng = self.rng.getrandbits(64)  # the future's chance events still vary
        return st
