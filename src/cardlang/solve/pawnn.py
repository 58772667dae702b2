"""PAWNN: a small network from what a player observes to its moves, for unseen states.

The Punish notes fill the states PARLESS never saw with a softmax network trained on the
PARLESS targets.  Here, per situation of the game, a one-hidden-layer network (tanh)
maps the observation vector (information/encode.py: the same numbers for the same view
in every game) to logits over the situation's action vocabulary; illegal moves are
masked and the rest renormalised.  It is trained on every observed state's PARLESS
distribution (cross-entropy, full-batch Adam, L2), inputs standardised.  k-fold cross
validation reports the held-out cross-entropy beside the uniform distribution's, then
the network is trained on all states.  numpy only: a model plays without torch
(agents/opponent_model.py evaluates it, with the functions training uses too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cardlang.agents.opponent_model import hidden_and_logits, masked_softmax, network_distribution

HIDDEN = 32
EPOCHS = 400
LEARNING_RATE = 0.01
L2 = 1e-4


@dataclass
class Samples:
    """One situation's training states: vectors, legal masks, PARLESS targets."""

    x: np.ndarray  # (n, width)
    mask: np.ndarray  # (n, actions) bool
    target: np.ndarray  # (n, actions), rows sum to 1 over the legal moves


def _cross_entropy(p: np.ndarray, target: np.ndarray) -> float:
    return float(-(target * np.log(np.clip(p, 1e-12, 1.0))).sum(axis=1).mean())


def _train(s: Samples, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean = s.x.mean(axis=0)
    std = s.x.std(axis=0) + 1e-6
    x = (s.x - mean) / std
    width, actions = x.shape[1], s.mask.shape[1]
    w = {
        "W1": rng.normal(0, 1 / np.sqrt(max(width, 1)), (width, HIDDEN)),
        "b1": np.zeros(HIDDEN),
        "W2": rng.normal(0, 1 / np.sqrt(HIDDEN), (HIDDEN, actions)),
        "b2": np.zeros(actions),
    }
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v2 = {k: np.zeros_like(v) for k, v in w.items()}
    n = len(x)
    for t in range(1, EPOCHS + 1):
        h, logits = hidden_and_logits(w, x)
        d_logits = (masked_softmax(logits, s.mask) - s.target) / n  # softmax cross-entropy
        grads = {
            "W2": h.T @ d_logits + L2 * w["W2"],
            "b2": d_logits.sum(axis=0),
        }
        d_h = (d_logits @ w["W2"].T) * (1 - h**2)
        grads["W1"] = x.T @ d_h + L2 * w["W1"]
        grads["b1"] = d_h.sum(axis=0)
        for k in w:  # Adam
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v2[k] = 0.999 * v2[k] + 0.001 * grads[k] ** 2
            w[k] -= LEARNING_RATE * (m[k] / (1 - 0.9**t)) / (np.sqrt(v2[k] / (1 - 0.999**t)) + 1e-8)
    w["mean"], w["std"] = mean, std
    return w


def cross_validate(s: Samples, folds: int, seed: int) -> dict[str, Any]:
    """Held-out cross-entropy of the network, and of the uniform distribution over the
    legal moves, over ``folds`` folds (fewer when there are fewer states)."""
    n = len(s.x)
    k = min(folds, n)
    if k < 2:
        return {"folds": 0, "cross_entropy": None, "uniform_cross_entropy": None}
    order = np.random.default_rng(seed).permutation(n)
    net, uniform = [], []
    for f in range(k):
        held = order[f::k]
        kept = np.setdiff1d(order, held)
        w = _train(Samples(s.x[kept], s.mask[kept], s.target[kept]), seed + f)
        test = Samples(s.x[held], s.mask[held], s.target[held])
        net.append(_cross_entropy(network_distribution(w, test.x, test.mask), test.target))
        flat = test.mask / test.mask.sum(axis=1, keepdims=True)
        uniform.append(_cross_entropy(flat, test.target))
    return {
        "folds": k,
        "cross_entropy": float(np.mean(net)),
        "uniform_cross_entropy": float(np.mean(uniform)),
    }


def fit_networks(
    by_situation: dict[str, Samples], *, folds: int, seed: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per situation, the trained network (as lists, for JSON) and its cross-validation."""
    networks, reports = {}, {}
    for situation, s in sorted(by_situation.items()):
        reports[situation] = {"states": len(s.x), **cross_validate(s, folds, seed)}
        w = _train(s, seed)
        networks[situation] = {k: v.tolist() for k, v in w.items()}
    return networks, reports
