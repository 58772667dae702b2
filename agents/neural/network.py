"""The networks: from a view's tokens to a policy and a value (torch).

Pipeline position: agents/neural, the only module of ``cardlang.agents`` besides
checkpoint.py that imports torch (the optional ``neural`` extra); nothing in the core
imports it.  Its input is a ``Batch`` of tokens (cardlang.information.tokens); see
../shared/specs/neural.md.

- **Tokens.**  A token is the sum of the embeddings of its names (its location or
  storage, its card's components: one embedding per attribute value, so ``CARDS=1`` and
  ``CARDS=2`` differ and a new card is the sum of values seen in training), of its
  discrete count (per token kind, 0..12, 13+, negative), and of its continuous features
  through a linear layer per token kind.  No position embeddings: the tokens are a set.
- **Body** (``NetConfig.body``).  ``"transformer"`` (``SetTransformerNet``, the default
  and the shipped models'): a transformer encoder (pre-norm, masked padding); the state
  summary is the mean of the token outputs beside the situation token's output.
  ``"deepsets"`` (``DeepSetsNet``, cheap on a CPU): each token through the same small MLP
  (``phi_layers``), then pooled by a masked mean and a masked max beside the situation
  token, projected to the summary (Deep Sets / PointNet): no attention, so its cost grows
  with the tokens, not their square, and names are summed by an ``EmbeddingBag`` (the
  [B, T, 16, d] tensor of the transformer's sum is never made).  Both are invariant to
  the order of the tokens and read the same inputs.
- **Policy.**  Each action token (the option's key: branch, bound values, cards by their
  components) is embedded the same way; an MLP of (summary, action) gives its logit.
  Padding and illegal actions get -inf, so softmax never chooses them.
- **Value.**  An MLP of the summary: one output per seat offset from the viewer.  Solo
  games: tanh, the scaled inverse game length in [-1, 1]; several seats: sigmoid, each
  seat's expected standing in [0, 1].
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from cardlang.information.tokens import BUCKETS, CONTINUOUS, KINDS, SITUATION, Batch


@dataclass(frozen=True)
class NetConfig:
    """Sizes of the network (all configurable from ``cardlang train``)."""

    names: int = 8192  # rows of the name embedding table (the NameTable's capacity)
    width: int = 64  # d_model
    heads: int = 4
    layers: int = 2
    feedforward: int = 128
    hidden: int = 128  # MLP heads' hidden width
    seats: int = 2  # value outputs: one per seat offset
    solo: bool = False  # value is the scaled inverse length (tanh), not standings
    body: str = "transformer"  # or "deepsets" (a checkpoint without it: a transformer)
    phi_layers: int = 1  # deepsets: the layers of the per-token MLP

    def to_dict(self) -> dict[str, int | bool | str]:
        return asdict(self)


BODIES = ("transformer", "deepsets")


def make_net(config: NetConfig) -> nn.Module:
    """The network ``config.body`` names."""
    if config.body == "transformer":
        return SetTransformerNet(config)
    if config.body == "deepsets":
        return DeepSetsNet(config)
    raise ValueError(f"no network body named {config.body!r} (choose from {', '.join(BODIES)})")


def mlp(inputs: int, hidden: int, outputs: int, layers: int = 2) -> nn.Sequential:
    parts: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        parts += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    parts.append(nn.Linear(width, outputs))
    return nn.Sequential(*parts)


class SetTransformerNet(nn.Module):
    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        d = config.width
        self.names = nn.Embedding(config.names, d, padding_idx=0)
        self.counts = nn.Embedding(KINDS * BUCKETS, d)
        # one linear map of the continuous features per token kind: a one-hot of the
        # kind times the features, through one layer
        self.continuous = nn.Linear(KINDS * CONTINUOUS, d)
        layer = nn.TransformerEncoderLayer(
            d, config.heads, config.feedforward, dropout=0.0, batch_first=True, norm_first=True
        )
        self.body = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.action = nn.Linear(d, d)
        self.policy = mlp(3 * d, config.hidden, 1)
        self.value = mlp(2 * d, config.hidden, config.seats)

    def forward(
        self,
        names: torch.Tensor,
        kinds: torch.Tensor,
        buckets: torch.Tensor,
        continuous: torch.Tensor,
        token_mask: torch.Tensor,
        action_names: torch.Tensor,
        action_mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [B, A] with -inf where ``action_mask`` is False, values [B, seats])."""
        x = self.names(names).sum(dim=2)
        x = x + self.counts(kinds * BUCKETS + buckets)
        onehot = nn.functional.one_hot(kinds, KINDS).to(continuous.dtype)
        x = x + self.continuous((onehot.unsqueeze(-1) * continuous.unsqueeze(-2)).flatten(-2))
        x = self.norm(self.body(x, src_key_padding_mask=~token_mask))
        weights = token_mask.unsqueeze(-1).to(x.dtype)
        mean = (x * weights).sum(1) / weights.sum(1).clamp(min=1.0)
        situation = (x * (kinds == SITUATION).unsqueeze(-1).to(x.dtype)).sum(1)
        summary = torch.cat([mean, situation], dim=-1)
        actions = self.action(self.names(action_names).sum(dim=2))
        return _heads(self, summary, actions, action_mask)


def _heads(
    net: SetTransformerNet | DeepSetsNet,
    summary: torch.Tensor,
    actions: torch.Tensor,
    action_mask: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Both bodies' heads: each action token's logit from (summary, action), -inf where
    ``action_mask`` is False, and the values from the summary (tanh solo, else sigmoid)."""
    a = actions.shape[1]
    per_action = torch.cat([summary.unsqueeze(1).expand(-1, a, -1), actions], dim=-1)
    logits = net.policy(per_action).squeeze(-1)
    logits = logits.masked_fill(~action_mask, float("-inf"))
    raw = net.value(summary)
    values = torch.tanh(raw) if net.config.solo else torch.sigmoid(raw)
    return logits, values


class DeepSetsNet(nn.Module):
    """The same inputs and outputs as ``SetTransformerNet``, with a Deep Sets body (see the
    module docstring): the cheap network for training on CPU cores."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        d = config.width
        self.names = nn.EmbeddingBag(config.names, d, mode="sum", padding_idx=0)
        self.counts = nn.Embedding(KINDS * BUCKETS, d)
        # one projection of the continuous features for every kind (the kind's own
        # count embedding tells the kinds apart): a third of the transformer's input cost
        self.continuous = nn.Linear(CONTINUOUS, d)
        phi: list[nn.Module] = []
        for _ in range(config.phi_layers):
            phi += [nn.Linear(d, d), nn.ReLU()]
        self.phi = nn.Sequential(*phi)
        self.pool = nn.Sequential(nn.Linear(3 * d, d), nn.ReLU())
        self.action = nn.Linear(d, d)
        self.policy = mlp(2 * d, config.hidden, 1)
        self.value = mlp(d, config.hidden, config.seats)

    def _bag(self, names: torch.Tensor) -> torch.Tensor:
        """[..., N] name ids -> [..., d], the sum of their embeddings (0: none).

        A batch repeats the same rows of names many times (the same card in the same
        zone, decision after decision: in a Dominion minibatch, padding included, about
        1 row in 200 is distinct): each distinct row is summed once, as one flat bag
        of the names present (a token has about 6 of its 16 slots filled), and the sums
        are gathered back, forward and backward (about a fifth of a PPO minibatch's
        work).  Rows are told apart by a hash, checked exactly against the rows
        themselves (a collision, never seen, falls back to every row its own bag); each
        sum is the same bag in the same order as without the sharing, so the values are
        bit for bit the same."""
        shape = names.shape
        rows = names.reshape(-1, shape[-1])
        distinct, inverse = _distinct_rows(rows)
        present = distinct != 0
        counts = present.sum(1)
        offsets = torch.zeros_like(counts)
        offsets[1:] = counts.cumsum(0)[:-1]
        sums = self.names(distinct[present], offsets)
        if inverse is not None:
            sums = sums[inverse]
        return sums.reshape(*shape[:-1], -1)

    def forward(
        self,
        names: torch.Tensor,
        kinds: torch.Tensor,
        buckets: torch.Tensor,
        continuous: torch.Tensor,
        token_mask: torch.Tensor,
        action_names: torch.Tensor,
        action_mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [B, A] with -inf where ``action_mask`` is False, values [B, seats])."""
        kinds, buckets = kinds.long(), buckets.long()
        x = self._bag(names) + self.counts(kinds * BUCKETS + buckets) + self.continuous(continuous)
        h = self.phi(x)
        mask = token_mask.unsqueeze(-1)
        weights = mask.to(h.dtype)
        kept = h * weights
        mean = kept.sum(1) / weights.sum(1).clamp(min=1.0)
        if self.config.phi_layers:
            # phi ends in a ReLU: every token's h >= 0, so the padding's 0 never exceeds
            # a real token's largest, and a row without tokens gets 0
            largest = kept.amax(1)
        else:
            largest = h.masked_fill(~mask, float("-inf")).amax(1)
            # a padding row (no token at all) has no largest: 0, not -inf
            largest = torch.where(torch.isfinite(largest), largest, torch.zeros_like(largest))
        situation = (h * (kinds == SITUATION).unsqueeze(-1).to(h.dtype)).sum(1)
        summary = self.pool(torch.cat([mean, largest, situation], dim=-1))
        actions = self.action(self._bag(action_names))
        return _heads(self, summary, actions, action_mask)


#: Odd 64-bit multipliers of the row hash in ``_distinct_rows`` (fixed: no randomness).
_ROW_HASH = torch.tensor(
    [(0x9E3779B97F4A7C15 * (k + 1)) % (1 << 63) | 1 for k in range(64)], dtype=torch.int64
)


def _distinct_rows(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(the distinct rows, each row's index among them), or (rows, None) where a hash
    collision made two different rows look alike."""
    width = rows.shape[-1]
    if len(rows) == 0 or width > len(_ROW_HASH):
        return rows, None
    keys = (rows.long() * _ROW_HASH[:width]).sum(1)  # wraps around: a hash
    unique, inverse = torch.unique(keys, return_inverse=True)
    first = torch.empty(len(unique), dtype=torch.long)
    first.scatter_(0, inverse, torch.arange(len(keys)))
    distinct = rows[first]
    if not torch.equal(distinct[inverse], rows):
        return rows, None
    return distinct, inverse


def batch_tensors(batch: Batch, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """A numpy ``Batch`` as the network's keyword arguments."""
    return {
        "names": torch.from_numpy(batch.names.astype(np.int64)).to(device),
        "kinds": torch.from_numpy(batch.kinds).to(device),
        "buckets": torch.from_numpy(batch.buckets).to(device),
        "continuous": torch.from_numpy(batch.continuous).to(device),
        "token_mask": torch.from_numpy(batch.token_mask).to(device),
        "action_names": torch.from_numpy(batch.action_names.astype(np.int64)).to(device),
        "action_mask": torch.from_numpy(batch.action_mask).to(device),
    }


def pick_device(requested: str = "auto") -> torch.device:
    """``auto``: a GPU when one is present, else the CPU."""
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)
