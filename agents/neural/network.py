"""The networks: from a view's tokens to a policy and a value (torch).

Pipeline position: agents/neural, the only module of ``cardlang.agents`` besides
checkpoint.py that imports torch (the optional ``neural`` extra); nothing in the core
imports it.  Its input is a ``Batch`` of tokens (cardlang.information.tokens); see
docs/neural-design-notes.md.

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
  [B, T, 16, d] tensor of the transformer's sum is never made).  Its forward is packed:
  only real tokens and legal actions, each distinct one once (a Dominion minibatch
  repeats most of its tokens and nearly all its actions), a third of the padded
  forward's and backward's cost.  Both bodies are invariant to the order of the tokens
  and read the same inputs.
- **Policy.**  Each action token (the option's key: branch, bound values, cards by their
  components) is embedded the same way; an MLP of (summary, action) gives its logit.
  Padding and illegal actions get -inf, so softmax never chooses them.
- **Value.**  An MLP of the summary: one output per seat offset from the viewer.  Solo
  games: tanh, the scaled inverse game length in [-1, 1]; several seats: sigmoid, each
  seat's expected standing in [0, 1].
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from cardlang.errors import UsageError
from cardlang.information.tokens import BUCKETS, CONTINUOUS, KINDS, SITUATION, Batch

from .kernels import distinct_rows, max_winners


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

    def __post_init__(self) -> None:
        problem = config_problem(self)
        if problem is not None:
            raise UsageError(f"network settings: {problem}")

    def to_dict(self) -> dict[str, int | bool | str]:
        return asdict(self)


BODIES = ("transformer", "deepsets")

#: The range of each whole-number setting.  A checkpoint is untrusted input and
#: ``cardlang train`` takes these from the command line: a value out of range is refused
#: before any layer is built, since torch would allocate first (a million layers, a table
#: of 10^10 names) and fail, if at all, deep inside.  Far above any model trained here.
SIZE_RANGES: dict[str, tuple[int, int]] = {
    "names": (2, 1 << 22),  # the unknown name and at least one more
    "width": (1, 4096),
    "heads": (1, 64),
    "layers": (1, 64),
    "feedforward": (1, 65536),
    "hidden": (1, 65536),
    "seats": (1, 256),
    "phi_layers": (0, 64),
}
#: The most weights a network may have (800 MB as float32): checked on a network built
#: without memory (torch's "meta" device) before the real one is made.
MAX_PARAMETERS = 200_000_000


def config_problem(config: NetConfig) -> str | None:
    """What is wrong with ``config``'s values (None: nothing): a type or a range, or a
    width the transformer's heads do not divide."""
    for name, (low, high) in SIZE_RANGES.items():
        value = getattr(config, name)
        if type(value) is not int:  # bool is an int to Python, not a size here
            return f"{name} must be a whole number, not {shown_value(value)}"
        if not low <= value <= high:
            return f"{name} must be from {low} to {high:,}, not {value:,}"
    if type(config.solo) is not bool:
        return f"solo must be true or false, not {shown_value(config.solo)}"
    if config.body not in BODIES:
        return f"body must be one of {', '.join(BODIES)}, not {shown_value(config.body)}"
    if config.body == "transformer" and config.width % config.heads:
        return f"width {config.width} is not a multiple of heads {config.heads}"
    return None


def shown_value(value: object, most: int = 40) -> str:
    """A value in a message, cut short: it may come from a hostile file."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def weight_shapes(config: NetConfig) -> dict[str, tuple[tuple[int, ...], torch.dtype]]:
    """The shape and type of each tensor of ``config``'s network, found without
    allocating it (built on the meta device); a UsageError if it holds more than
    ``MAX_PARAMETERS`` weights."""
    with torch.device("meta"):
        net = _BODY_CLASSES[config.body](config)
    count = sum(p.numel() for p in net.parameters())
    if count > MAX_PARAMETERS:
        raise UsageError(
            f"network settings: {count:,} weights, more than the {MAX_PARAMETERS:,} allowed "
            "(lower names, width, layers, feedforward or hidden)"
        )
    return {name: (tuple(t.shape), t.dtype) for name, t in net.state_dict().items()}


def make_net(config: NetConfig) -> nn.Module:
    """The network ``config.body`` names, its size checked before it is allocated."""
    weight_shapes(config)
    return _BODY_CLASSES[config.body](config)


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
        names, kinds, buckets = names.long(), kinds.long(), buckets.long()
        action_names = action_names.long()
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
    return logits, _values(net, summary)


def _values(net: SetTransformerNet | DeepSetsNet, summary: torch.Tensor) -> torch.Tensor:
    """The value head: tanh solo (the scaled inverse length), else sigmoid (standings)."""
    raw = net.value(summary)
    return torch.tanh(raw) if net.config.solo else torch.sigmoid(raw)


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
        """[R, N] name ids -> [R, d], the sum of each row's embeddings (0: none).

        A batch repeats the same rows of names many times (the same card in the same
        zone, decision after decision: in a Dominion minibatch about 1 row in 100 is
        distinct): each distinct row is summed once, as one flat bag of the names
        present (a token has about 6 of its 16 slots filled), and the sums are gathered
        back, forward and backward."""
        if len(names) == 0:
            return self.counts.weight.new_zeros((0, self.config.width))
        first, inverse = distinct_rows((names,))
        distinct = names[first].long()
        present = distinct != 0
        counts = present.sum(1)
        offsets = torch.zeros_like(counts)
        offsets[1:] = counts.cumsum(0)[:-1]
        sums = self.names(distinct[present], offsets)
        return sums[inverse]

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
        """(logits [B, A] with -inf where ``action_mask`` is False, values [B, seats]).

        Packed: only the real tokens and the legal actions are computed, never the
        padding, and each distinct token (names, kind, count and features alike: in a
        Dominion minibatch about 1 in 5) goes through phi once, each distinct action
        through its layers once.  The function is the padded one's (``padded_forward``,
        which the tests hold it to); only the order of its sums differs."""
        b, t = token_mask.shape
        n = names.shape[-1]
        real = token_mask.reshape(-1).nonzero().squeeze(1)
        kinds, buckets = kinds.reshape(-1), buckets.reshape(-1)  # any integer type
        features = continuous.reshape(-1, continuous.shape[-1])
        names = names.reshape(-1, n)
        first, inverse = distinct_rows((names, kinds[:, None], buckets[:, None], features), real)
        at = real[first]  # the distinct tokens' slots
        moves = _DistinctActions(action_names, action_mask)
        # the tokens' names and the actions' in one bag: one backward of the name table
        # (a dense [names, d] gradient each: a bag apiece was a ninth of a minibatch's)
        bags = self._bag(torch.cat([names[at], moves.rows]))
        x = (
            bags[: len(at)]
            + self.counts(kinds[at].long() * BUCKETS + buckets[at].long())
            + self.continuous(features[at])
        )
        h = self.phi(x)  # [distinct tokens, d]
        summary = self._pool(h, inverse, real, kinds[real] == SITUATION, b, t)
        return _packed_heads(self, summary, self.action(bags[len(at) :]), moves)

    def _pool(
        self,
        h: torch.Tensor,
        inverse: torch.Tensor,
        real: torch.Tensor,
        situation: torch.Tensor,
        b: int,
        t: int,
    ) -> torch.Tensor:
        """The summary from the distinct tokens' ``h`` ([U, d]; the real token ``real[i]``
        of the [b, t] slots is ``h[inverse[i]]``): mean and max over each row's tokens,
        and its situation token.

        Neither pool lays the tokens out as [b, t, d] with a gradient (its backward,
        the max's above all, was half of a PPO minibatch's): the mean is a sparse
        product (each row's tokens' weights 1/n), the max finds each (row, feature)'s
        winning token without a gradient (``kernels.max_winners``: natively on a CPU)
        and gathers it with one, so the gradient goes to the winner as amax's does.  A
        tie gives it all to one token (or to the padding, which a token must exceed),
        not a share to each: ties are ReLU's zeros, which pass no gradient either way
        (or, without phi, equal floats of distinct tokens: measure zero)."""
        d = h.shape[1]
        owner = real // t
        count = torch.bincount(owner, minlength=b).clamp(min=1).to(h.dtype)
        weights = torch.sparse_coo_tensor(
            torch.stack([owner, inverse]),
            count.reciprocal()[owner],
            (b, len(h)),
            check_invariants=False,  # built in bounds here
        )
        mean = torch.sparse.mm(weights, h)
        # phi ends in a ReLU: every h >= 0, so the padding's 0 never exceeds a real
        # token's largest, and a row without tokens gets 0; without phi the padding
        # is -inf, and a row without tokens gets 0 after
        pad = 0.0 if self.config.phi_layers else float("-inf")
        table = torch.cat([h, h.new_full((1, d), pad)])
        largest = table.gather(0, max_winners(table, real, inverse, b, t))
        if not self.config.phi_layers:
            largest = torch.where(torch.isfinite(largest), largest, torch.zeros_like(largest))
        spot = h.new_zeros((b, d)).index_add(0, owner[situation], h[inverse[situation]])
        return self.pool(torch.cat([mean, largest, spot], dim=-1))

    def padded_forward(
        self,
        names: torch.Tensor,
        kinds: torch.Tensor,
        buckets: torch.Tensor,
        continuous: torch.Tensor,
        token_mask: torch.Tensor,
        action_names: torch.Tensor,
        action_mask: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The same function over every padded slot, written plainly: the reference
        ``forward`` is tested against (tests/test_neural.py)."""
        kinds, buckets = kinds.long(), buckets.long()
        flat = names.reshape(-1, names.shape[-1])
        x = (
            self._bag(flat).reshape(*names.shape[:-1], -1)
            + self.counts(kinds * BUCKETS + buckets)
            + self.continuous(continuous)
        )
        h = self.phi(x)
        mask = token_mask.unsqueeze(-1)
        weights = mask.to(h.dtype)
        mean = (h * weights).sum(1) / weights.sum(1).clamp(min=1.0)
        largest = h.masked_fill(~mask, float("-inf")).amax(1)
        largest = torch.where(torch.isfinite(largest), largest, torch.zeros_like(largest))
        situation = (h * ((kinds == SITUATION) & token_mask).unsqueeze(-1).to(h.dtype)).sum(1)
        summary = self.pool(torch.cat([mean, largest, situation], dim=-1))
        a = action_names.reshape(-1, action_names.shape[-1])
        actions = self.action(self._bag(a).reshape(*action_names.shape[:-1], -1))
        return _heads(self, summary, actions, action_mask)


_BODY_CLASSES: dict[str, type[nn.Module]] = {
    "transformer": SetTransformerNet,
    "deepsets": DeepSetsNet,
}


class _DistinctActions:
    """The legal actions of a batch ([b, a] slots), each distinct one once: ``rows`` their
    name rows, ``inverse[i]`` the distinct action of the legal slot ``legal[i]``."""

    def __init__(self, action_names: torch.Tensor, action_mask: torch.Tensor) -> None:
        self.shape = action_mask.shape
        self.legal = action_mask.reshape(-1).nonzero().squeeze(1)
        rows = action_names.reshape(-1, action_names.shape[-1])
        first, self.inverse = distinct_rows((rows,), self.legal)
        self.rows = rows[self.legal[first]]


def _packed_heads(
    net: DeepSetsNet,
    summary: torch.Tensor,
    actions: torch.Tensor,
    moves: _DistinctActions,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``_heads`` over the legal actions only (``actions``: the distinct ones' embeddings):
    the policy's first layer splits into its summary half (once per row) and its action
    half (once per distinct action)."""
    b, a = moves.shape
    d = summary.shape[1]
    layer = net.policy[0]
    assert isinstance(layer, nn.Linear)
    by_row = nn.functional.linear(summary, layer.weight[:, :d], layer.bias)
    by_action = nn.functional.linear(actions, layer.weight[:, d:])
    hidden = by_row[moves.legal // a] + by_action[moves.inverse]
    scores = net.policy[1:](hidden).squeeze(-1)
    logits = summary.new_full((b * a,), float("-inf")).index_copy(0, moves.legal, scores)
    return logits.reshape(b, a), _values(net, summary)


def batch_tensors(batch: Batch, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """A numpy ``Batch`` as the network's keyword arguments."""
    return {
        "names": torch.from_numpy(batch.names).to(device),
        "kinds": torch.from_numpy(batch.kinds).to(device),
        "buckets": torch.from_numpy(batch.buckets).to(device),
        "continuous": torch.from_numpy(batch.continuous).to(device),
        "token_mask": torch.from_numpy(batch.token_mask).to(device),
        "action_names": torch.from_numpy(batch.action_names).to(device),
        "action_mask": torch.from_numpy(batch.action_mask).to(device),
    }


def pick_device(requested: str = "auto") -> torch.device:
    """``auto``: a GPU when one is present, else the CPU; else the device named, which
    must be one this machine has (``checked_device``)."""
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return checked_device(requested)


#: The kinds of device a network may run on, and whether this machine has one of each.
DEVICE_KINDS = ("cpu", "cuda", "mps")


def checked_device(name: object) -> torch.device:
    """The torch device ``name`` names (``cpu``, ``cuda``, ``cuda:1``, ``mps``), or a
    UsageError: a name torch cannot parse, another kind of device, or one this machine
    lacks (torch would fail at the first tensor moved there, or never look)."""
    try:
        device = torch.device(name) if isinstance(name, str) else None
    except (RuntimeError, TypeError, ValueError):
        device = None
    if device is None or device.type not in DEVICE_KINDS:
        raise UsageError(
            f"device {shown_value(name)}: expected auto, cpu, cuda, cuda:N (a GPU's index) or mps"
        )
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise UsageError(f"device {name}: this machine has no CUDA GPU torch can use")
        if device.index is not None and device.index >= count:
            raise UsageError(
                f"device {name}: this machine has {count} CUDA GPU(s), 0 to {count - 1}"
            )
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise UsageError(f"device {name}: MPS (Apple's GPU) is not available here")
    return device
