"""Why PPO's Leduc policy stops near NashConv 0.8: exact diagnostics on the whole tree.

Leduc's 720 deals share one betting tree of 85 nodes, so the game is held as arrays
([deal, betting node]) built once from the engine (the Python reference, every deal of
``solve.worlds.starting_positions``).  Values, reaches, best responses and CFR+ are then a
few numpy operations per betting node: an exact NashConv takes milliseconds where
``cardlang solve`` takes half a minute.  An information state is the mover's view
(``observation_key(view, "view")``) and every action taken so far (perfect recall).

Subcommands (each prints a JSON line; ``--json FILE`` keeps them all)
    inputs MODEL   do distinct information states reach the network as distinct inputs?
                   (the tokens of every node's view, grouped by information state)
    fit            can the network represent an equilibrium?  CFR+ solves the game, then
                   a fresh network of each ``--widths`` is fitted to that policy on every
                   information state (cross-entropy, full batch, Adam) and its NashConv
                   measured
    where MODEL    where a policy is exploited: against each seat's best response, the
                   gain the policy's seat could make at its own information states, by
                   how often self-play visits them
    dynamics       the learning dynamics without a network: a tabular softmax policy,
                   the exact expected policy gradient (self-play visit weights, exact
                   advantages) or, with ``--games N``, its estimate from N sampled hands
                   per step (the exact state values as the critic: the sampling noise
                   alone), Adam; optional entropy term and R-NaD's reward transformation
                   (``--eta``, magnet replaced every ``--magnet-every`` steps); NashConv of
                   the current policy and of the visit-weighted average of the policies
                   played (what ``cardlang train --average`` learns)

Usage (from the repository root; torch for inputs, fit and where)
    python benchmarks/leduc_diagnostics.py inputs runs/leduc/run
    python benchmarks/leduc_diagnostics.py fit --widths 32,128
    python benchmarks/leduc_diagnostics.py where runs/leduc/run
    python benchmarks/leduc_diagnostics.py dynamics --eta 2.6 --magnet-every 100 --steps 8000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from cardlang.compiler.load import load_game
from cardlang.information.observation import observation_key
from cardlang.information.views import view_of
from cardlang.solve.process import after
from cardlang.solve.worlds import starting_positions

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "leduc_poker.rcy"
NEG = -1e9


class LeducTree:
    """The game as arrays: ``util[d, b]`` (seat 0's chips at a terminal node) and
    ``info[d, b]`` (the information state of a decision node) for deal d and betting node
    b, the betting tree's ``player``/``children`` shared by every deal."""

    def __init__(self, path: Path = GAME) -> None:
        self.game = load_game(path, engine="python")
        self.master = self.game.master()
        positions = starting_positions(self.master, sample=None, seed=0)
        self.index: dict[tuple[Any, ...], int] = {}
        self.node_views: list[list[Any]] = []  # every node's view, per information state
        self.nact: list[int] = []
        self.owner: list[int] = []  # the seat that moves there
        kinds, players, children, util, info = [], [], [], [], []
        for st in positions.states:
            flat: list[tuple[int, int, tuple[int, ...], float, int]] = []
            self._walk(st, (), flat)
            kinds.append([f[0] for f in flat])
            players.append([f[1] for f in flat])
            children.append([f[2] for f in flat])
            util.append([f[3] for f in flat])
            info.append([f[4] for f in flat])
        if any(
            k != kinds[0] or p != players[0] or c != children[0]
            for k, p, c in zip(kinds, players, children, strict=True)
        ):
            raise SystemExit("the deals do not share one betting tree")
        self.deals, self.nodes = len(kinds), len(kinds[0])
        self.terminal = np.array(kinds[0]) == 1
        self.player = np.array(players[0])
        self.children = children[0]
        self.util = np.array(util, dtype=np.float64)
        self.info = np.array(info)
        self.weight = np.array(positions.weights)
        self.n_info, self.width = len(self.nact), max(self.nact)
        self.mask = np.arange(self.width)[None, :] < np.array(self.nact)[:, None]
        self.decisions = [b for b in range(self.nodes) if not self.terminal[b]]

    def _walk(self, st: Any, actions: tuple[int, ...], flat: list[Any]) -> int:
        at = len(flat)
        if st.is_over:
            flat.append((1, -1, (), float(self.master.result(st).scores[0]), -1))
            return at
        options = self.master.legal_options(st)
        view = view_of(st, st.mover, self.game, options)
        key = (st.mover, observation_key(view, "view"), actions)
        if key not in self.index:
            self.index[key] = len(self.nact)
            self.node_views.append([])
            self.nact.append(len(options))
            self.owner.append(st.mover)
        self.node_views[self.index[key]].append(view)
        flat.append(None)
        kids = [
            self._walk(after(self.master, st, a), (*actions, a), flat) for a in range(len(options))
        ]
        flat[at] = (0, st.mover, tuple(kids), 0.0, self.index[key])
        return at

    @property
    def views(self) -> list[Any]:
        """One view per information state (its first node's: they all tokenize alike)."""
        return [views[0] for views in self.node_views]

    # ------------------------------------------------------------ policies
    def uniform(self) -> np.ndarray:
        return self.mask / self.mask.sum(1, keepdims=True)

    def reaches(self, pol: np.ndarray) -> np.ndarray:
        """[2, deals, nodes]: each seat's own probability of its actions on the way."""
        r = np.ones((2, self.deals, self.nodes))
        for b in self.decisions:
            s = pol[self.info[:, b]]
            for a, c in enumerate(self.children[b]):
                r[:, :, c] = r[:, :, b]
                r[self.player[b], :, c] *= s[:, a]
        return r

    def values(
        self, pol: np.ndarray, extra: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Seat 0's value of every node and of every action there; ``extra[d, b, a]``:
        seat 0's reward for the action (R-NaD's transformation)."""
        v = self.util.copy()
        q = np.zeros((self.deals, self.nodes, self.width))
        for b in reversed(self.decisions):
            for a, c in enumerate(self.children[b]):
                q[:, b, a] = v[:, c] + (extra[:, b, a] if extra is not None else 0.0)
            v[:, b] = (pol[self.info[:, b]] * q[:, b]).sum(1)
        return v, q

    def best_response(self, pol: np.ndarray, seat: int) -> tuple[float, np.ndarray]:
        """Seat's best response to ``pol``: its value (chips per hand) and the policy
        with the seat's information states replaced by the response's moves."""
        opponent = self.reaches(pol)[1 - seat] * self.weight[:, None]
        v = self.util * (1.0 if seat == 0 else -1.0)
        out = pol.copy()
        for b in reversed(self.decisions):  # an information state's nodes share b
            kids = self.children[b]
            if self.player[b] == seat:
                q = np.stack([v[:, c] for c in kids], 1)
                total = np.zeros((self.n_info, len(kids)))
                np.add.at(total, self.info[:, b], opponent[:, b, None] * q)
                best = total.argmax(1)
                choice = best[self.info[:, b]]
                v[:, b] = q[np.arange(self.deals), choice]
                out[self.info[:, b]] = np.eye(self.width)[choice]
            else:
                s = pol[self.info[:, b]]
                v[:, b] = sum(s[:, a] * v[:, c] for a, c in enumerate(kids))
        return float(self.weight @ v[:, 0]), out

    def nashconv(self, pol: np.ndarray) -> float:
        return self.best_response(pol, 0)[0] + self.best_response(pol, 1)[0]

    def visits(self, pol: np.ndarray) -> np.ndarray:
        """How often play under ``pol`` reaches each information state (per hand)."""
        r = self.reaches(pol)
        out = np.zeros(self.n_info)
        for b in self.decisions:
            np.add.at(out, self.info[:, b], r[0, :, b] * r[1, :, b] * self.weight)
        return out

    def cfr_plus(self, iterations: int) -> np.ndarray:
        """CFR+ (alternating, regret matching+, linear averaging): the average policy."""
        regret = np.zeros((self.n_info, self.width))
        average = np.zeros_like(regret)
        owner = np.array(self.owner)
        for t in range(1, iterations + 1):
            for seat in (0, 1):
                pos = np.maximum(regret, 0) * self.mask
                total = pos.sum(1, keepdims=True)
                pol = np.where(total > 0, pos / np.maximum(total, 1e-300), self.uniform())
                r = self.reaches(pol)
                v, q = self.values(pol)
                sign = 1.0 if seat == 0 else -1.0
                for b in self.decisions:
                    if self.player[b] != seat:
                        continue
                    info = self.info[:, b]
                    cf = (
                        (r[1 - seat, :, b] * self.weight)[:, None]
                        * sign
                        * (q[:, b] - v[:, b, None])
                    )
                    np.add.at(regret, info, cf * self.mask[info])
                    np.add.at(average, info, t * r[seat, :, b, None] * pol[info])
                regret[owner == seat] = np.maximum(regret[owner == seat], 0)
        total = average.sum(1, keepdims=True)
        return np.where(total > 0, average / np.maximum(total, 1e-300), self.uniform())


# ------------------------------------------------------------ the network's side
def network_inputs(
    model: Any, tree: LeducTree, views: list[Any]
) -> tuple[list[Any], dict[str, Any]]:
    from cardlang.agents.neural.network import batch_tensors

    from cardlang.information.tokens import collate

    items = [model.tokenizer(tree.game).tokenize(v) for v in views]
    return items, batch_tensors(collate(items), "cpu")


def table_logits(logits: Any, items: list[Any], tree: LeducTree) -> Any:
    """A network's logits over its action columns laid out as the table's [information
    state, option] (each option its action's logit; differentiable)."""
    import torch

    places = [(i, o, a) for i, item in enumerate(items) for o, a in enumerate(item.action_of)]
    state, option, action = (torch.tensor(c) for c in zip(*places, strict=True))
    table = torch.zeros(tree.n_info, tree.width)
    table[state, option] = logits[state, action]
    return table


def network_policy(
    net: Any, items: list[Any], batch: dict[str, Any], tree: LeducTree
) -> np.ndarray:
    import torch

    with torch.no_grad():
        logits, _ = net(**batch)
        return softmax(tree, table_logits(logits, items, tree).numpy())


def token_key(item: Any) -> bytes:
    arrays = (item.names, item.kinds, item.buckets, item.continuous, item.action_names)
    return (
        b"".join(a.tobytes() for a in arrays)
        + repr((item.keys, item.situation, item.current)).encode()
    )


def inputs(args: argparse.Namespace, tree: LeducTree) -> dict[str, Any]:
    from cardlang.agents.neural.model import load_model

    model = load_model(args.model)
    tokenizer = model.tokenizer(tree.game)
    by_input: dict[tuple[int, bytes], set[int]] = defaultdict(set)
    split = 0
    for i, views in enumerate(tree.node_views):
        keys = {token_key(tokenizer.tokenize(v)) for v in views}
        split += len(keys) > 1
        for key in keys:
            by_input[(tree.owner[i], key)].add(i)
    shared = [s for s in by_input.values() if len(s) > 1]
    return {
        "information_states": tree.n_info,
        "network_inputs": len(by_input),
        "states_seen_as_several_inputs": split,
        "inputs_shared_by_several_states": len(shared),
        "states_in_shared_inputs": sum(len(s) for s in shared),
    }


def fit(args: argparse.Namespace, tree: LeducTree) -> dict[str, Any]:
    import torch
    from cardlang.agents.neural.model import load_model
    from cardlang.agents.neural.network import make_net

    torch.set_num_threads(1)
    start = time.perf_counter()
    target = tree.cfr_plus(args.cfr_iterations)
    out: dict[str, Any] = {
        "cfr_iterations": args.cfr_iterations,
        "cfr_nashconv": tree.nashconv(target),
    }
    out["cfr_seconds"] = round(time.perf_counter() - start, 1)
    base = load_model(args.model) if args.model else None
    if base is None:
        raise SystemExit("fit needs --model: a Leduc model whose name table and sizes to use")
    items, batch = network_inputs(base, tree, tree.views)
    goal = torch.zeros(len(items), batch["action_mask"].shape[1])
    for i, item in enumerate(items):
        for option, action in enumerate(item.action_of):
            goal[i, action] += float(target[i, option])
    for width in args.widths:
        torch.manual_seed(args.seed)
        net = make_net(dataclasses.replace(base.config, width=width))
        optimizer = torch.optim.Adam(net.parameters(), lr=args.fit_lr)
        curve = []
        for step in range(1, args.fit_steps + 1):
            logits, _ = net(**batch)
            logp = torch.log_softmax(logits, -1).masked_fill(~batch["action_mask"], 0)
            loss = -(goal * logp).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % (args.fit_steps // 4) == 0:
                nc = tree.nashconv(network_policy(net, items, batch, tree))
                curve.append({"step": step, "cross_entropy": round(loss.item(), 4), "nashconv": nc})
        out[f"width_{width}"] = curve
    return out


def where(args: argparse.Namespace, tree: LeducTree) -> dict[str, Any]:
    from cardlang.agents.neural.model import load_model

    model = load_model(args.model)
    items, batch = network_inputs(model, tree, tree.views)
    pol = network_policy(model.net, items, batch, tree)
    visit = tree.visits(pol)
    owner = np.array(tree.owner)
    out: dict[str, Any] = {"model": str(args.model), "nashconv": tree.nashconv(pol)}
    buckets = [(0.0, 1e-4), (1e-4, 1e-3), (1e-3, 1e-2), (1e-2, 2.0)]
    for exploiter in (0, 1):
        value, profile = tree.best_response(pol, exploiter)
        r = tree.reaches(profile)
        v, q = tree.values(profile)
        seat = 1 - exploiter
        sign = 1.0 if seat == 0 else -1.0
        gain = np.zeros(tree.n_info)  # the seat's reach-weighted gain from its best move there
        for b in tree.decisions:
            if tree.player[b] != seat:
                continue
            info = tree.info[:, b]
            reach = (r[0, :, b] * r[1, :, b] * tree.weight)[:, None]
            total = np.zeros((tree.n_info, tree.width))
            np.add.at(total, info, reach * sign * q[:, b] * tree.mask[info])
            played = np.zeros(tree.n_info)
            np.add.at(played, info, reach[:, 0] * sign * v[:, b])
            touched = np.unique(info)
            gain[touched] += (
                np.where(tree.mask[touched], total[touched], NEG).max(1) - played[touched]
            )
        rows = []
        for lo, hi in buckets:
            inside = (visit >= lo) & (visit < hi) & (owner == seat)
            rows.append(
                {
                    "self_play_visits": [lo, hi],
                    "states": int(inside.sum()),
                    "gain": float(gain[inside].sum()),
                }
            )
        out[f"against_seat_{exploiter}_best_response"] = {"value": value, "by_visits": rows}
    return out


# ------------------------------------------------------------ learning dynamics
def softmax(tree: LeducTree, theta: np.ndarray) -> np.ndarray:
    z = np.where(tree.mask, theta, NEG)
    e = np.exp(z - z.max(1, keepdims=True)) * tree.mask
    return e / e.sum(1, keepdims=True)


def magnet_rewards(
    tree: LeducTree, pol: np.ndarray, eta: float, magnet: np.ndarray
) -> np.ndarray | None:
    """R-NaD's rewards in seat 0's terms, [deal, node, action]: each move's mover pays
    eta log(pi/magnet) of it, the other seat gains it (None without eta)."""
    if not eta:
        return None
    log_ratio = np.log(np.maximum(pol, 1e-30)) - np.log(np.maximum(magnet, 1e-30))
    extra = np.zeros((tree.deals, tree.nodes, tree.width))
    for b in tree.decisions:
        extra[:, b] = (-1.0 if tree.player[b] == 0 else 1.0) * eta * log_ratio[tree.info[:, b]]
    return extra


def with_entropy(
    tree: LeducTree, g: np.ndarray, pol: np.ndarray, visit: np.ndarray, weight: float
) -> np.ndarray:
    """``g`` plus the entropy term's gradient, each state weighted by its visits."""
    if weight:
        logp = np.log(np.maximum(pol, 1e-30)) * tree.mask
        h = -(pol * logp).sum(1, keepdims=True)
        g = g + weight * visit[:, None] * (-pol * (logp + h)) * tree.mask
    return g


def expected_gradient(
    tree: LeducTree, pol: np.ndarray, args: argparse.Namespace, magnet: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The expected policy gradient of self-play per hand (each information state weighted
    by how often play visits it, exact advantages), and the visits."""
    r = tree.reaches(pol)
    reach = r[0] * r[1] * tree.weight[:, None]
    v, q = tree.values(pol, magnet_rewards(tree, pol, args.eta, magnet))
    g, visit = np.zeros_like(pol), np.zeros(tree.n_info)
    for b in tree.decisions:
        info, sign = tree.info[:, b], (1.0 if tree.player[b] == 0 else -1.0)
        advantage = sign * (q[:, b] - v[:, b, None])
        np.add.at(g, info, reach[:, b, None] * pol[info] * advantage * tree.mask[info])
        np.add.at(visit, info, reach[:, b])
    return with_entropy(tree, g, pol, visit, args.entropy), visit


def every_move(
    g: np.ndarray, visit: np.ndarray, pol: np.ndarray, state: int, values: np.ndarray
) -> None:
    """Add every move's advantage at a visited state under ``values`` (the mover's action
    values there), as an action-value critic's policy gradient does."""
    g[state] += pol[state] * (values - pol[state] @ values)
    visit[state] += 1


def rollout(
    tree: LeducTree,
    pol: np.ndarray,
    extra: np.ndarray | None,
    deal: int,
    node: int,
    move: int,
    rng: np.random.Generator,
) -> float:
    """Seat 0's return after ``move`` at ``node`` of ``deal``, the rest of the hand played
    once by ``pol``: what a rollout from a cloned position gives (the dealt cards fixed,
    so every move of a state is compared on the same cards)."""
    earned, b, a = 0.0, node, move
    while True:
        earned += extra[deal, b, a] if extra is not None else 0.0
        b = tree.children[b][a]
        if tree.terminal[b]:
            return earned + tree.util[deal, b]
        state = tree.info[deal, b]
        a = int(rng.choice(tree.nact[state], p=pol[state, : tree.nact[state]]))


def sampled_move(g: np.ndarray, pol: np.ndarray, state: int, a: int, advantage: float) -> None:
    """Add the score-function term of move ``a`` at ``state``: ``advantage`` times the
    gradient of its log-probability on the logits."""
    g[state] -= pol[state] * advantage
    g[state, a] += advantage


def sampled_gradient(
    tree: LeducTree,
    pol: np.ndarray,
    args: argparse.Namespace,
    magnet: np.ndarray,
    rng: np.random.Generator,
    learned: np.ndarray,
    node_q: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The same gradient estimated as PPO estimates it, from ``args.games`` sampled hands:
    each decision's return (the outcome and the R-NaD rewards after it) less the exact
    value of its information state (the best critic there is), so what is left is the
    noise of the sampled cards and moves alone.  ``--critic learned``: every move's
    advantage from ``learned``, a table of action values each sampled return moves by
    ``--q-rate`` towards it (what an action-value head would learn).  ``--critic sarsa``:
    the same from ``node_q``, action values of whole positions (seat 0's terms) learnt
    by expected SARSA: each sampled move's value moves towards its reward plus the next
    position's value under the current policy, not towards the sampled return.
    ``--critic position``: every move's exact value in the whole position, the hidden
    cards included (what rollouts of every move from the true position would tend to);
    ``--critic rollouts``: the same from one rollout of each move (``rollout``).
    ``--critic cv``: ``learned``'s table as a control variate only (Q-Prop): the sampled
    move's return less its learnt value, plus every move's learnt advantage; unbiased
    whatever the table holds."""
    extra = magnet_rewards(tree, pol, args.eta, magnet)
    v, q = tree.values(pol, extra)
    r = tree.reaches(pol)
    q_sum, weight_sum = np.zeros((tree.n_info, tree.width)), np.zeros(tree.n_info)
    for b in tree.decisions:  # a state's values: its nodes' by opponent and chance reach
        w = r[1 - tree.player[b], :, b] * tree.weight
        sign = 1.0 if tree.player[b] == 0 else -1.0
        np.add.at(q_sum, tree.info[:, b], (w * sign)[:, None] * q[:, b])
        np.add.at(weight_sum, tree.info[:, b], w)
    state_q = q_sum / np.maximum(weight_sum, 1e-300)[:, None]
    state_value = (pol * state_q).sum(1)
    g, visit = np.zeros_like(pol), np.zeros(tree.n_info)
    for deal in rng.choice(tree.deals, size=args.games, p=tree.weight):
        b, path, earned = 0, [], 0.0  # earned: seat 0's rewards so far
        while not tree.terminal[b]:
            state = tree.info[deal, b]
            a = int(rng.choice(tree.nact[state], p=pol[state, : tree.nact[state]]))
            path.append((state, b, a, tree.player[b], earned))
            earned += extra[deal, b, a] if extra is not None else 0.0
            b = tree.children[b][a]
        earned += tree.util[deal, b]
        if args.critic == "q":  # every move's exact advantage at each state visited
            for state, *_ in path:
                every_move(g, visit, pol, state, state_q[state])
            continue
        if args.critic == "position":  # every move's exact value in the whole position
            for state, node, _a, seat, _before in path:
                every_move(g, visit, pol, state, q[deal, node] * (1.0 if seat == 0 else -1.0))
            continue
        if args.critic == "sarsa":
            for _state, node, a, _seat, _before in reversed(path):
                nxt = tree.children[node][a]
                if tree.terminal[nxt]:
                    after = tree.util[deal, nxt]
                else:
                    after = pol[tree.info[deal, nxt]] @ node_q[deal, nxt]
                reward = extra[deal, node, a] if extra is not None else 0.0
                node_q[deal, node, a] += args.q_rate * (reward + after - node_q[deal, node, a])
            for state, node, _a, seat, _before in path:
                every_move(g, visit, pol, state, node_q[deal, node] * (1.0 if seat == 0 else -1.0))
            continue
        if args.critic == "rollouts":  # every move's value from one rollout of its own
            for state, node, _a, seat, _before in path:
                values = np.zeros(tree.width)
                for move in range(tree.nact[state]):
                    values[move] = rollout(tree, pol, extra, deal, node, move, rng)
                every_move(g, visit, pol, state, values * (1.0 if seat == 0 else -1.0))
            continue
        if args.critic == "ends":  # exact values for the moves that end the hand
            for state, node, a, seat, before in path:
                sign, base, ended = (1.0 if seat == 0 else -1.0), state_value[state], False
                for move in range(tree.nact[state]):
                    child = tree.children[node][move]
                    if tree.terminal[child]:  # its value is read, not sampled
                        reward = extra[deal, node, move] if extra is not None else 0.0
                        value = sign * (reward + tree.util[deal, child])
                        sampled_move(g, pol, state, move, pol[state, move] * (value - base))
                        ended = ended or move == a
                if not ended:  # the sampled return stands for the rest (unbiased)
                    sampled_move(g, pol, state, a, (earned - before) * sign - base)
                visit[state] += 1
            continue
        if args.critic == "cv":  # the learnt action values as a control variate only
            for state, _node, a, seat, before in path:
                done = (earned - before) * (1.0 if seat == 0 else -1.0)
                # the sampled move's return less its learnt value (unbiased whatever the
                # table holds), plus every move's learnt advantage
                sampled_move(g, pol, state, a, done - learned[state, a])
                every_move(g, visit, pol, state, learned[state])
                learned[state, a] += args.q_rate * (done - learned[state, a])
            continue
        if args.critic == "learned":
            for state, _node, a, seat, before in path:
                done = (earned - before) * (1.0 if seat == 0 else -1.0)
                learned[state, a] += args.q_rate * (done - learned[state, a])
                every_move(g, visit, pol, state, learned[state])
            continue
        for state, node, a, seat, before in path:
            sign = 1.0 if seat == 0 else -1.0
            # the baseline: the information state's value, or (--critic full) the value of
            # the whole position, the hidden card included, as a critic trained on the
            # full state would give: still unbiased, since the move does not change it
            base = state_value[state] if args.critic == "state" else sign * v[deal, node]
            sampled_move(g, pol, state, a, (earned - before) * sign - base)
            visit[state] += 1
    g, visit = g * tree.mask / args.games, visit / args.games
    return with_entropy(tree, g, pol, visit, args.entropy), visit


class NetworkPolicy:
    """``dynamics --network MODEL``: the policy is a fresh network of MODEL's shape
    reading every information state's tokens, not a table; each step's gradient on the
    table's logits is carried back through it (one Adam step at ``--net-lr``), so the
    dynamics are the table's but for what the network's shared weights do to them."""

    def __init__(self, args: argparse.Namespace, tree: LeducTree) -> None:
        import torch
        from cardlang.agents.neural.model import load_model
        from cardlang.agents.neural.network import make_net

        torch.set_num_threads(1)
        torch.manual_seed(args.seed)
        base = load_model(args.network)
        self.tree = tree
        self.items, self.batch = network_inputs(base, tree, tree.views)
        self.net = make_net(base.config)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.net_lr)

    def policy(self) -> np.ndarray:
        return network_policy(self.net, self.items, self.batch, self.tree)

    def ascend(self, g: np.ndarray) -> None:
        """One step up ``g``, the gradient on the table's logits."""
        import torch

        logits, _ = self.net(**self.batch)
        table = table_logits(logits, self.items, self.tree)
        loss = -(table * torch.from_numpy(g * self.tree.mask).float()).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


def dynamics(args: argparse.Namespace, tree: LeducTree) -> dict[str, Any]:
    theta = np.zeros((tree.n_info, tree.width))
    m, s = np.zeros_like(theta), np.zeros_like(theta)
    network = NetworkPolicy(args, tree) if args.network else None
    pol = softmax(tree, theta) if network is None else network.policy()
    magnet, average = pol.copy(), np.zeros_like(pol)
    rows = []
    rng = np.random.default_rng(args.seed)
    learned = np.zeros_like(theta)  # --critic learned: the action values learnt so far
    node_q = np.zeros((tree.deals, tree.nodes, tree.width))  # --critic sarsa's
    for t in range(1, args.steps + 1):
        if args.games:
            g, visit = sampled_gradient(tree, pol, args, magnet, rng, learned, node_q)
        else:
            g, visit = expected_gradient(tree, pol, args, magnet)
        average += (t if args.linear else 1.0) * visit[:, None] * pol
        if network is not None:
            network.ascend(g)
            pol = network.policy()
        else:
            m = args.beta1 * m + (1 - args.beta1) * g
            s = 0.999 * s + 0.001 * g * g
            theta += args.lr * (m / (1 - args.beta1**t)) / (np.sqrt(s / (1 - 0.999**t)) + 1e-8)
            pol = softmax(tree, theta)
        if args.magnet_every and t % args.magnet_every == 0:
            magnet = pol.copy()
        if t % args.every == 0:
            total = average.sum(1, keepdims=True)
            mean = np.where(total > 0, average / np.maximum(total, 1e-300), pol)
            rows.append(
                {
                    "step": t,
                    "games": t * args.games,
                    "nashconv": tree.nashconv(pol),
                    "average_nashconv": tree.nashconv(mean),
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    names = "steps games critic q_rate lr beta1 entropy eta magnet_every linear seed network net_lr"
    names = names.split()
    settings = {k: getattr(args, k) for k in names}
    settings["network"] = None if args.network is None else str(args.network)
    return {"settings": settings, "rows": rows}


def plot_runs(document: dict[str, Any], out: Path) -> None:
    """The average policy's NashConv over sampled hands, one line per dynamics run of a
    results file (``{"runs": [{"critic", "eta", "magnet_every", "rows"}, ...]}``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    colors = [plt.get_cmap("tab20")(k) for k in range(20)]
    for i, run in enumerate(document["runs"]):
        rows = run["rows"]
        label = f"{run['critic']}, eta {run['eta']}, magnet every {run['magnet_every']}"
        label += ", linear average" if run.get("linear") else ", uniform average"
        label += f", q-rate {run['q_rate']}" if run.get("q_rate") else ""
        label += f", seed {run['seed']}" if run.get("seed") else ""
        hands = [r["games"] / 1e6 for r in rows]
        style = "-" if run.get("linear") else "--"  # the uniform averages dashed
        color = colors[(2 * i) % 20 + (2 * i) // 20 % 2]  # tab20's strong shades first
        averages = [r["average_nashconv"] for r in rows]
        ax.plot(hands, averages, style, color=color, marker=".", label=label)
    ax.axhline(0.5, color="grey", lw=0.5, ls="--", label="goal 0.5")
    ax.set_xlabel("sampled hands, millions (700 a step)")
    ax.set_ylabel("average policy's NashConv (chips)")
    ax.set_yscale("log")
    ax.set_title("Leduc, tabular PPO dynamics: critics and regularisers")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("what", choices=("inputs", "fit", "where", "dynamics", "plot"))
    p.add_argument(
        "model", nargs="?", type=Path, help="a Leduc model (inputs, where; fit: its sizes)"
    )
    p.add_argument(
        "--model", dest="model_option", type=Path, default=None, help="the same, for fit"
    )
    p.add_argument("--widths", type=lambda s: [int(w) for w in s.split(",")], default=[32, 128])
    p.add_argument("--cfr-iterations", type=int, default=1000)
    p.add_argument("--fit-steps", type=int, default=4000)
    p.add_argument("--fit-lr", type=float, default=1e-3)
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--every", type=int, default=1000)
    p.add_argument("--lr", type=float, default=0.01, help="dynamics: Adam's rate on the logits")
    p.add_argument("--beta1", type=float, default=0.9)
    p.add_argument(
        "--entropy", type=float, default=0.02, help="dynamics: the entropy weight, in chips"
    )
    p.add_argument("--eta", type=float, default=0.0, help="dynamics: R-NaD's weight, in chips")
    p.add_argument("--magnet-every", type=int, default=0)
    p.add_argument(
        "--linear", action="store_true", help="dynamics: step t's policy weighs t in the average"
    )
    p.add_argument(
        "--critic",
        choices=("state", "full", "q", "position", "rollouts", "ends", "learned", "cv", "sarsa"),
        default="state",
        help="dynamics --games: the baseline, the information state's exact value or the "
        "whole position's (the hidden card too); q: no sampled return, every move's exact "
        "advantage at the states the sampled hands visit (a perfect action-value critic); "
        "learned: the same from action values learnt from the sampled returns; sarsa: from "
        "whole positions' action values learnt by expected SARSA; position: every move's "
        "exact value in the whole position; rollouts: its estimate from one rollout of each "
        "move from the position; ends: the exact values of the moves that end "
        "the hand, sampled returns for the rest; cv: the learnt values as a control variate",
    )
    p.add_argument(
        "--q-rate", type=float, default=0.05, help="dynamics --critic learned, cv or sarsa"
    )
    p.add_argument(
        "--games",
        type=int,
        default=0,
        help="dynamics: estimate each step's gradient from this many sampled hands (0: exact)",
    )
    p.add_argument(
        "--network",
        type=Path,
        default=None,
        help="dynamics: the policy a fresh network of this Leduc model's shape, not a table",
    )
    p.add_argument("--net-lr", type=float, default=3e-4, help="dynamics --network: Adam's rate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, help="append the result line here")
    p.add_argument("--results", type=Path, default=None, help="plot: a file of dynamics runs")
    p.add_argument("--plot", type=Path, default=None, help="plot: the image to write")
    args = p.parse_args()
    args.model = args.model or args.model_option
    if args.what == "plot":
        if args.results is None or args.plot is None:
            p.error("plot needs --results and --plot")
        plot_runs(json.loads(args.results.read_text()), args.plot)
        return 0
    if args.what in ("inputs", "where") and args.model is None:
        p.error(f"{args.what} needs a model")
    start = time.perf_counter()
    tree = LeducTree()
    built = time.perf_counter() - start
    result = {"inputs": inputs, "fit": fit, "where": where, "dynamics": dynamics}[args.what](
        args, tree
    )
    result = {"what": args.what, "seconds_to_build_the_tree": round(built, 1), **result}
    line = json.dumps(result)
    print(line)
    if args.json:
        with args.json.open("a") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
