"""A decision PPO learns from, and decisions padded into the network's inputs (torch).

Pipeline position: learning; ppo_actor.py makes the steps (handed to the learner in an
``Experience``), experimental/average.py keeps some of them.  ``probs`` is kept where a
remedy asks (``Remedy.keeps_probs``); ``magnet_logp`` and ``move_advantages`` are the
magnet's and rollouts' (learning/experimental/): they stay here for the packed steps'
format (``pack_steps`` carries them), and no other core code reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["Step", "collate_steps", "pack_steps", "unpack_steps"]


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
    probs: np.ndarray | None = None  # the policy's move probabilities (where kept)
    magnet_logp: float = 0.0  # the magnet's log-probability of the move (magnet_reward)
    # every move's value less the policy's mean (experimental/rollouts.py's estimate)
    move_advantages: np.ndarray | None = None


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


#: A step's per-decision numbers, packed one array each (``pack_steps``).
_SCALARS = {
    "chosen": np.int64,
    "logp": np.float64,
    "value": np.float64,
    "seat": np.int64,
    "advantage": np.float64,
    "magnet_logp": np.float64,
}


def pack_steps(steps: list[Step]) -> dict[str, np.ndarray]:
    """Steps as a few flat arrays (their ragged parts concatenated, with lengths): what an
    actor process sends the learner, pickled in one piece, not as thousands of objects."""
    tokens = [
        np.concatenate([s.tokens[k] for s in steps]) if steps else np.zeros(0) for k in range(4)
    ]
    packed = {f"tokens{k}": array for k, array in enumerate(tokens)}
    packed["token_counts"] = np.array([len(s.tokens[1]) for s in steps], dtype=np.int64)
    packed["actions"] = np.concatenate([s.actions for s in steps]) if steps else np.zeros(0)
    packed["action_counts"] = np.array([len(s.actions) for s in steps], dtype=np.int64)
    for name, dtype in _SCALARS.items():
        packed[name] = np.array([getattr(s, name) for s in steps], dtype=dtype)
    if steps and steps[0].returns is not None:
        packed["returns"] = np.stack([s.returns for s in steps])  # type: ignore[misc]
    if steps and steps[0].probs is not None:
        packed["probs"] = np.concatenate([s.probs for s in steps])  # type: ignore[misc]
    if any(s.move_advantages is not None for s in steps):  # NaN: a step without
        packed["move_advantages"] = np.concatenate(
            [
                s.move_advantages
                if s.move_advantages is not None
                else np.full(len(s.actions), np.nan)
                for s in steps
            ]
        )
    return packed


def unpack_steps(packed: dict[str, np.ndarray]) -> list[Step]:
    """The steps ``pack_steps`` packed (their arrays views into the packed ones)."""
    token_ends = np.cumsum(packed["token_counts"]).tolist()
    action_ends = np.cumsum(packed["action_counts"]).tolist()
    scalars = {name: packed[name].tolist() for name in _SCALARS}
    returns, probs = packed.get("returns"), packed.get("probs")
    moved = packed.get("move_advantages")
    steps = []
    t0 = a0 = 0
    for i, (t1, a1) in enumerate(zip(token_ends, action_ends, strict=True)):
        step = Step(
            tokens=tuple(packed[f"tokens{k}"][t0:t1] for k in range(4)),
            actions=packed["actions"][a0:a1],
            chosen=scalars["chosen"][i],
            logp=scalars["logp"][i],
            value=scalars["value"][i],
            seat=scalars["seat"][i],
            advantage=scalars["advantage"][i],
            returns=None if returns is None else returns[i],
            probs=None if probs is None else probs[a0:a1],
            magnet_logp=scalars["magnet_logp"][i],
        )
        if moved is not None and not np.isnan(moved[a0]):
            step.move_advantages = moved[a0:a1]
        steps.append(step)
        t0, a0 = t1, a1
    return steps
