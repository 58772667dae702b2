"""A decision PPO learns from, and decisions padded into the network's inputs (torch).

Pipeline position: learning; ppo.py makes the steps, average.py keeps some of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["Step", "collate_steps"]


@dataclass
class Step:
    """One decision of one row, as the network read it."""

    tokens: tuple[np.ndarray, ...]  # names, kinds, buckets, continuous (trimmed)
    actions: np.ndarray  # action token names [A, N]
    chosen: int  # the action token taken
    logp: float
    value: float  # the mover's standing as the network valued it
    seat: int
    advantage: float = 0.0
    returns: np.ndarray | None = None  # per seat offset from the mover: its return
    probs: np.ndarray | None = None  # the policy's move probabilities (average.py reads)


def collate_steps(batch: list[Step]) -> dict[str, torch.Tensor]:
    """Steps padded into the network's inputs, in the engine's narrow types (as
    ``ppo.token_inputs``)."""
    b = len(batch)
    t = max(max(len(s.tokens[1]) for s in batch), 1)
    a = max(max(len(s.actions) for s in batch), 1)
    n = batch[0].tokens[0].shape[1] if len(batch[0].tokens[0]) else 16
    names = np.zeros((b, t, n), dtype=np.int32)
    kinds = np.zeros((b, t), dtype=np.int8)
    buckets = np.zeros((b, t), dtype=np.int8)
    continuous = np.zeros((b, t, 3), dtype=np.float32)
    token_mask = np.zeros((b, t), dtype=np.bool_)
    action_names = np.zeros((b, a, n), dtype=np.int32)
    action_mask = np.zeros((b, a), dtype=np.bool_)
    for i, s in enumerate(batch):
        k = len(s.tokens[1])
        names[i, :k], kinds[i, :k], buckets[i, :k], continuous[i, :k] = s.tokens
        token_mask[i, :k] = True
        m = len(s.actions)
        action_names[i, :m] = s.actions
        action_mask[i, :m] = True
    return {
        "names": torch.from_numpy(names),
        "kinds": torch.from_numpy(kinds),
        "buckets": torch.from_numpy(buckets),
        "continuous": torch.from_numpy(continuous),
        "token_mask": torch.from_numpy(token_mask),
        "action_names": torch.from_numpy(action_names),
        "action_mask": torch.from_numpy(action_mask),
    }
