"""Search with a policy-value network: PUCT over information sets (no torch here).

Pipeline position: agents/neural.  The network is anything with ``tokenizer(game)`` and
``evaluate(tokens) -> (priors per action, values per seat offset)`` (``PolicyValue``):
the torch model of model.py, or a stand-in in tests.

The search (AlphaZero's, on an ISMCTS tree; docs/neural-design-notes.md):

- **One tree for the searching player**, its root the player's information set.  Every
  iteration plays in a fresh determinization of the player's view (``view.determinize``:
  hidden cards dealt consistently with what the player knows), and an edge is an
  option's *key* as the mover knows it (cardlang.information.vocabulary): the same move
  in every determinization, and the network's action token.  A move legal in only some
  determinizations counts its *availability*, used in PUCT where AlphaZero uses the
  parent's visits: ``Q + c * P * sqrt(available) / (1 + N)``.
- **Expansion** evaluates the leaf with the network instead of a rollout, in
  ``determinizations`` worlds at once: the leaf's own and others dealt afresh from the
  root and walked down the same keys (a world where a key is not legal drops out).
  Their views are tokenized and evaluated in one batch; the priors of each key and the
  values are averaged.  The root is evaluated on the player's real view.
- **Batches of leaves.**  Descents go ``leaf_batch`` at a time, each leaving a virtual
  loss on its path until the batch's leaves come back from one call of the network.
- **Values** are per seat: each seat's expected standing in [0, 1] with several seats;
  in a solo game the scaled inverse length (``SoloValue``) in [-1, 1].  A finished game is
  scored by the rules, not the network.
- **Self-play** adds Dirichlet noise to the root priors (``noise``: its weight,
  ``alpha``) and picks the move from the visit counts with a temperature (0: the most
  visited).  ``iterations=0`` plays the raw policy (priors, with the same temperature).
- **Gumbel root** (``policy="gumbel"``): Gumbel MuZero's sequential halving over the
  Gumbel-top-k moves instead of PUCT at the root, the best finalist played and the
  improved policy taught (``improved_policy``); it learns with few iterations, where
  visit shares only repeat the priors (docs/neural.md).

The network reads only views, and the search only determinizations of the player's own
view: no hidden card reaches either.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from cardlang.agents.search.rewards import standings

from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import COMPLETED, RUNNING
from cardlang.information.tokens import Tokenizer, ViewTokens
from cardlang.information.views import PlayerView
from cardlang.information.vocabulary import Vocabulary

if TYPE_CHECKING:
    from cardlang.engine.game import Game


class PolicyValue(Protocol):
    """What the search asks of a network."""

    def tokenizer(self, game: Game) -> Tokenizer: ...

    def evaluate(self, items: Sequence[ViewTokens]) -> tuple[list[np.ndarray], np.ndarray]: ...


@dataclass(frozen=True)
class SoloValue:
    """The value of a solo game of ``length`` turns: the inverse length, scaled so that
    ``best`` turns (or fewer) is 1 and ``cap`` turns (or more, or a game cut off) is -1:
    ``2 (1/L - 1/cap) / (1/best - 1/cap) - 1``.  The notes' form has ``best`` 1 (ending
    at once); a larger ``best`` spreads the values of realistic lengths over the range."""

    best: int = 1
    cap: int = 100

    def __call__(self, length: float | None) -> float:
        if length is None or length >= self.cap:
            return -1.0
        length = max(length, self.best)
        top = 1.0 / self.best - 1.0 / self.cap
        return 2.0 * (1.0 / length - 1.0 / self.cap) / top - 1.0 if top > 0 else 1.0

    def of_state(self, st: EngineState) -> float:
        """A finished solo game's value (a cut-off or failed game: -1)."""
        if st.status != COMPLETED:
            return -1.0
        return self(game_length(st))


def game_length(st: EngineState) -> int:
    """Turns, or decisions in a game without turns."""
    return st.turns or st.decisions


class Edge:
    __slots__ = ("prior", "visits", "total", "available", "child")

    def __init__(self, prior: float) -> None:
        self.prior = prior
        self.visits = 0
        self.total = 0.0  # the mover's rewards through this edge
        self.available = 0
        self.child: Node | None = None


class Node:
    __slots__ = ("edges", "expanded", "value")

    def __init__(self) -> None:
        self.edges: dict[str, Edge] = {}
        self.expanded = False
        self.value = 0.0  # the mover's value at expansion: the Q of unvisited edges


class _Descent:
    """One descent of the tree: its world, the edges it took (with their movers) and
    their keys, the leaf it stopped at with the leaf's options (None at the end of the
    game), and the values per seat it backs up once known."""

    __slots__ = ("state", "path", "walked", "node", "options", "values")

    def __init__(self, state: EngineState) -> None:
        self.state = state
        self.path: list[tuple[Edge, int]] = []
        self.walked: list[str] = []
        self.node: Node | None = None
        self.options: Sequence[Any] = ()
        self.values: tuple[float, ...] | None = None


@dataclass
class SearchResult:
    """A decision's search: the root's action tokens, the visit count and prior of each
    action, each seat's estimated value, and per action the mover's mean value."""

    tokens: ViewTokens
    priors: np.ndarray  # the network's, with the root noise of self-play
    visits: np.ndarray
    values: tuple[float, ...]  # per seat (absolute)
    q: list[float | None]
    iterations: int
    network_priors: np.ndarray  # the network's, without noise
    seat: int  # the mover
    gumbel: np.ndarray | None = None  # a Gumbel root: its noise per action (zeros: none)
    finalists: tuple[int, ...] = ()  # a Gumbel root: the actions left by the halving

    def unit(self, v: float) -> float:
        """A value of this game as a standing in [0, 1] (a solo value is in [-1, 1])."""
        return (v + 1.0) / 2.0 if len(self.values) == 1 else v

    def log_prior(self) -> np.ndarray:
        """The network's log-probabilities (clipped off zero): Gumbel's logits."""
        return np.log(np.clip(np.asarray(self.network_priors, dtype=np.float64), 1e-12, None))


class NeuralSearch:
    def __init__(
        self,
        model: PolicyValue,
        *,
        iterations: int = 0,
        c: float = 1.5,
        determinizations: int = 4,
        noise: float = 0.0,
        alpha: float = 0.3,
        solo: SoloValue | None = None,
        leaf_batch: int = 8,
        policy: str = "visits",
        considered: int = 8,
        sample: bool = False,
        seed: int = 0,
    ) -> None:
        self.model = model
        self.policy = policy  # one of POLICIES
        self.considered = max(1, considered)
        self.sample = sample
        self.leaf_batch = max(1, leaf_batch)
        self.iterations = iterations
        self.c = c
        self.determinizations = max(1, determinizations)
        self.noise = noise
        self.alpha = alpha
        self.solo = solo or SoloValue()
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self._virtual = 0.0  # the virtual loss of a descent: set per decision (run)

    # ------------------------------------------------------------ a decision
    def run(self, view: PlayerView) -> SearchResult:
        game = view.game
        assert game is not None
        tokenizer = self.model.tokenizer(game)
        tokens = tokenizer.tokenize(view)
        priors_list, values = self.model.evaluate([tokens])
        priors = network_priors = np.asarray(priors_list[0], dtype=np.float64)
        gumbel = self.policy == "gumbel"
        if self.noise > 0 and len(priors) > 1 and not gumbel:  # (Gumbel noise explores there)
            dirichlet = self.np_rng.dirichlet([self.alpha] * len(priors))
            priors = (1 - self.noise) * priors + self.noise * dirichlet
        n = view.nplayers
        root_values = self._absolute(values[0], view.seat, n)
        self._virtual = -1.0 if n == 1 else 0.0  # the worst value a seat can get
        root = Node()
        root.expanded = True
        root.value = root_values[view.seat]
        for key, p in zip(tokens.keys, priors, strict=True):
            root.edges[key] = Edge(float(p))
        keys = list(tokens.keys)
        result = SearchResult(
            tokens, priors, np.zeros(len(keys)), root_values, [None] * len(keys),
            0, network_priors, view.seat,
        )  # fmt: skip
        if self.iterations <= 0 or len(keys) == 1:
            return result  # the raw policy
        result.iterations = self.iterations
        master = view.master()
        vocabulary = Vocabulary.of(game)
        if gumbel:
            g = self.np_rng.gumbel(size=len(keys)) if self.sample else np.zeros(len(keys))
            result.gumbel = g
            result.finalists = self._halving(view, master, vocabulary, tokenizer, root, result)
        else:
            plan: list[str | None] = [None] * self.iterations
            self._descents(plan, view, master, vocabulary, tokenizer, root)
        _read_root(result, root)
        return result

    def _absolute(self, relative: np.ndarray, seat: int, n: int) -> tuple[float, ...]:
        """Values per seat offset from ``seat`` -> per seat."""
        out = [0.0] * n
        for j in range(n):
            out[(seat + j) % n] = float(relative[j]) if j < len(relative) else 0.0
        return tuple(out)

    # ------------------------------------------------------------ iterations
    def _halving(
        self,
        view: PlayerView,
        master: Engine,
        vocabulary: Vocabulary,
        tokenizer: Tokenizer,
        root: Node,
        result: SearchResult,
    ) -> tuple[int, ...]:
        """Gumbel MuZero's root (Danihelka et al. 2022): the ``considered`` actions of
        largest ``g + log prior`` (Gumbel-top-k: a sample without replacement when ``g``
        is noise), then sequential halving: each phase shares its part of the budget
        equally among the actions left and keeps the better half by
        ``g + log prior + sigma(q)``; the last phase spends what is left.  Returns the
        actions left.  Every considered action is tried, however small its prior."""
        assert result.gumbel is not None
        keys = list(result.tokens.keys)
        score = result.gumbel + result.log_prior()
        m = min(self.considered, len(keys))
        left = sorted(range(len(keys)), key=lambda j: (-score[j], j))[:m]
        phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
        done = 0
        while done < self.iterations:
            if len(left) <= 2:  # the last phase: the rest of the budget
                per = math.ceil((self.iterations - done) / len(left))
            else:
                per = max(1, self.iterations // (phases * len(left)))
            plan: list[str | None] = [keys[j] for _ in range(per) for j in left]
            plan = plan[: self.iterations - done]
            self._descents(plan, view, master, vocabulary, tokenizer, root)
            done += len(plan)
            if len(left) > 2:
                _read_root(result, root)
                ranked = score + completed_sigma(result)
                left = sorted(left, key=lambda j: (-ranked[j], j))[: math.ceil(len(left) / 2)]
        return tuple(left)

    def _descents(
        self,
        plan: Sequence[str | None],
        view: PlayerView,
        master: Engine,
        vocabulary: Vocabulary,
        tokenizer: Tokenizer,
        root: Node,
    ) -> None:
        """A descent per item of ``plan`` (the root's move it must take, or None: PUCT's),
        ``leaf_batch`` at a time (at most a quarter of the budget): each batch's leaves
        are evaluated in one call of the network (a descent leaves a *virtual loss* on
        its path until its leaf is valued, so the next descents of the batch spread out)."""
        done = 0
        # at least four rounds of batches: a batch's descents choose without each
        # other's values, so a small budget in one batch would learn little
        batch = max(1, min(self.leaf_batch, self.iterations // 4))
        while done < len(plan):
            n = min(batch, len(plan) - done)
            descents = [
                self._descend(view, master, vocabulary, root, plan[done + i]) for i in range(n)
            ]
            self._value_leaves(descents, view, master, vocabulary, tokenizer)
            for d in descents:
                assert d.values is not None
                for edge, mover in d.path:
                    edge.total += d.values[mover] - self._virtual
            done += n

    def _descend(
        self,
        view: PlayerView,
        master: Engine,
        vocabulary: Vocabulary,
        root: Node,
        forced: str | None = None,
    ) -> _Descent:
        st = view.determinize(self.rng)
        descent = _Descent(st)
        node = root
        while True:
            if st.status != RUNNING:
                descent.values = self._terminal(master, st)
                return descent
            options = master.legal_options(st)
            keys = vocabulary.option_keys(st, options, st.mover)
            first: dict[str, int] = {}
            for i, k in enumerate(keys):
                first.setdefault(k, i)
            if not node.expanded:
                if len(first) > 1:  # a leaf: the network values it
                    descent.node, descent.options = node, options
                    return descent
                node.edges[keys[0]] = Edge(1.0)  # a forced move: no need to ask
                node.expanded = True
            if forced is not None and node is root and forced in first:
                key = forced  # the root's move a Gumbel phase asks for
            else:
                key = self._select(node, first)
            edge = node.edges[key]
            edge.visits += 1  # the visit, and a virtual loss until the leaf's value is known
            edge.total += self._virtual
            descent.path.append((edge, st.mover))
            descent.walked.append(key)
            master.apply(st, first[key])
            if edge.child is None:
                edge.child = Node()
            node = edge.child

    def _select(self, node: Node, first: dict[str, int]) -> str:
        edges = node.edges
        default = 1.0 / len(first)
        best_key, best = "", -math.inf
        for key in first:
            edge = edges.get(key)
            if edge is None:  # legal here, never seen at expansion
                edge = edges[key] = Edge(default)
            edge.available += 1
            q = edge.total / edge.visits if edge.visits else node.value
            score = q + self.c * edge.prior * math.sqrt(edge.available) / (1 + edge.visits)
            if score > best:
                best_key, best = key, score
        return best_key

    def _terminal(self, master: Engine, st: EngineState) -> tuple[float, ...]:
        if st.nplayers == 1:
            return (self.solo.of_state(st),)
        return standings(master, st)

    def _value_leaves(
        self,
        descents: Sequence[_Descent],
        view: PlayerView,
        master: Engine,
        vocabulary: Vocabulary,
        tokenizer: Tokenizer,
    ) -> None:
        """Evaluate every leaf of a batch in its own world and ``determinizations - 1``
        others walked down the same keys, all in one call; set each leaf's priors (the
        mean over its worlds) and value (the mean values per seat)."""
        game = view.game
        assert game is not None
        worlds: list[tuple[int, EngineState, Sequence[Any]]] = []  # (descent, world, options)
        for i, d in enumerate(descents):
            if d.node is None:
                continue
            worlds.append((i, d.state, d.options))
            for _ in range(self.determinizations - 1):
                other = self._walk(view, master, vocabulary, d.walked, d.state.mover)
                if other is not None:
                    worlds.append((i, *other))
        if not worlds:
            return
        items = [
            tokenizer.tokenize(PlayerView.live(w, w.mover, game, opts, view.limits))
            for _, w, opts in worlds
        ]
        priors_list, values = self.model.evaluate(items)
        n = view.nplayers
        summed: dict[int, dict[str, float]] = {}
        totals: dict[int, list[float]] = {}
        counts: dict[int, int] = {}
        for (i, w, _), item, priors, relative in zip(
            worlds, items, priors_list, values, strict=True
        ):
            keyed = summed.setdefault(i, {})
            for key, p in zip(item.keys, priors, strict=True):
                keyed[key] = keyed.get(key, 0.0) + float(p)
            total = totals.setdefault(i, [0.0] * n)
            for seat, v in enumerate(self._absolute(relative, w.mover, n)):
                total[seat] += v
            counts[i] = counts.get(i, 0) + 1
        for i, keyed in summed.items():
            d = descents[i]
            mean = tuple(t / counts[i] for t in totals[i])
            d.values = mean
            node = d.node
            assert node is not None
            if not node.expanded:  # (two descents of a batch may reach one leaf)
                scale = sum(keyed.values()) or 1.0
                for key, p in keyed.items():
                    node.edges[key] = Edge(p / scale)
                node.expanded = True
                node.value = mean[d.state.mover]

    def _walk(
        self,
        view: PlayerView,
        master: Engine,
        vocabulary: Vocabulary,
        walked: Sequence[str],
        mover: int,
    ) -> tuple[EngineState, Sequence[Any]] | None:
        """A fresh determinization walked down ``walked``: the world and its options at
        the end, or None where a key is not legal on the way or the leaf's mover differs."""
        st = view.determinize(self.rng)
        for key in walked:
            if st.status != RUNNING:
                return None
            options = master.legal_options(st)
            keys = vocabulary.option_keys(st, options, st.mover)
            try:
                index = keys.index(key)
            except ValueError:
                return None
            master.apply(st, index)
        if st.status != RUNNING or st.mover != mover:
            return None
        return st, master.legal_options(st)


#: How a search plays and what it teaches: ``visits``, AlphaZero's PUCT root, the most
#: visited move, visit shares as the target; ``gumbel``, Gumbel MuZero's root (Gumbel-top-k
#: and sequential halving), the best finalist, the improved policy as the target.
POLICIES = ("visits", "gumbel")


def _weights(result: SearchResult) -> np.ndarray:
    """The search's move weights, not normalized: the priors without a search, the
    improved policy after a Gumbel root, the visit counts after PUCT's."""
    if result.iterations <= 0 or not result.visits.any():
        return np.asarray(result.priors, dtype=np.float64)
    if result.gumbel is not None:
        return improved_policy(result)
    return np.asarray(result.visits, dtype=np.float64)


def search_policy(result: SearchResult) -> np.ndarray:
    """The search's move distribution over the root's actions (``_weights``, summing
    to 1): what self-play teaches."""
    weights = _weights(result)
    total = float(weights.sum())
    return weights / total if total > 0 else np.full(len(weights), 1.0 / len(weights))


def _read_root(result: SearchResult, root: Node) -> None:
    """The root's visits and mean values into ``result``."""
    edges = [root.edges[k] for k in result.tokens.keys]
    result.visits = np.array([e.visits for e in edges], dtype=np.float64)
    result.q = [e.total / e.visits if e.visits else None for e in edges]


def completed_sigma(
    result: SearchResult, c_visit: float = 50.0, c_scale: float = 0.1
) -> np.ndarray:
    """Gumbel MuZero's ``sigma(completed q)``: ``(c_visit + max N) c_scale q`` per action,
    ``q`` each action's mean value as a standing in [0, 1], an unvisited action's
    completed by the mixed value (the root's value and the visited actions'
    prior-weighted mean).  Unlike mctx the values are not rescaled to span [0, 1]: our
    values come from few visits in sampled worlds, and stretching that noise over the
    whole range drove two-player Dominion's self-play astray (win share against Smithy
    0.42 after 8 rounds, against 0.48-0.53 unscaled: docs/neural.md)."""
    prior = np.clip(np.asarray(result.network_priors, dtype=np.float64), 1e-12, None)
    visits = np.asarray(result.visits, dtype=np.float64)
    visited = visits > 0
    q = np.array([result.unit(v) if v is not None else 0.0 for v in result.q])
    n = float(visits.sum())
    root = result.unit(result.values[result.seat])
    weight = float(prior[visited].sum())
    mixed = root
    if n > 0 and weight > 0:
        mixed = (root + n * float((prior[visited] * q[visited]).sum()) / weight) / (1.0 + n)
    completed = np.where(visited, q, mixed)
    return (c_visit + float(visits.max(initial=0.0))) * c_scale * completed


def improved_policy(result: SearchResult) -> np.ndarray:
    """Gumbel MuZero's policy target (Danihelka et al., *Policy improvement by planning
    with Gumbel*, ICLR 2022): ``softmax(log prior + sigma(completed q))``.  Unlike visit
    shares it improves on the prior with a handful of iterations: an action the search
    found worse loses weight at once, and one never visited keeps its prior's rank."""
    logits = result.log_prior() + completed_sigma(result)
    logits -= logits.max()
    out = np.exp(logits)
    return out / out.sum()


def choose_action(result: SearchResult, temperature: float, rng: random.Random) -> int:
    """The action played.  A Gumbel root's: the finalist of largest ``g + log prior +
    sigma(q)`` (its Gumbel noise ``g`` is the sampling, so no temperature).  Otherwise by
    the search's weights (``_weights``; the priors without a search) with a temperature;
    0 takes the largest (ties: the larger prior, then the first)."""
    if result.finalists and result.gumbel is not None:
        ranked = result.gumbel + result.log_prior() + completed_sigma(result)
        return min(result.finalists, key=lambda j: (-ranked[j], j))
    weights = _weights(result)
    if temperature <= 0:
        order = sorted(range(len(weights)), key=lambda j: (-weights[j], -result.priors[j], j))
        return order[0]
    w = np.asarray(weights, dtype=np.float64)
    if w.sum() <= 0:
        w = np.ones_like(w)
    w = np.power(w / w.max(), 1.0 / temperature)
    x = rng.random() * float(w.sum())
    acc = 0.0
    for j, wj in enumerate(w):
        acc += float(wj)
        if x < acc:
            return j
    return int(np.flatnonzero(w > 0)[-1])


def option_policy(result: SearchResult) -> tuple[float, ...]:
    """The search's distribution per option (``search_policy``): each action's share on
    the first option with its key, 0 on the others."""
    weights = search_policy(result)
    n_options = len(result.tokens.action_of)
    out = [0.0] * n_options
    for j, option in enumerate(result.tokens.option_of):
        out[int(option)] = float(weights[j])
    return tuple(out)
