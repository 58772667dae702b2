"""Two steps of the Deep Sets network's packed forward that torch does slowly on a CPU:
telling repeated rows apart, and finding the max pool's winners.

Pipeline position: agents/neural, beside network.py, its only user.  On a CPU both run
in the native module (native/src/tensor_kernels.cpp, one pass each, over the tensors'
own memory); on a GPU, or where the native module is not built, in torch, as before.
The two ways give the same functions (tests/test_neural.py holds them to each other):

- ``distinct_rows``: the same grouping of rows (the native one exact: a hash finds
  candidates, the bytes decide; torch's by two 64-bit hashes, every row its own if the
  second disagrees), only the distinct rows' order differs (first appearance natively,
  by hash in torch).  In a PPO minibatch torch's hashing (a matrix product) and
  ``unique`` (a sort) were a sixth of the forward and backward.
- ``max_winners``: each pool row's largest value per feature and the token that holds
  it, the earliest on a tie; torch's ``argmax`` over a transposed copy of the slots was
  a fifth of a minibatch's forward and backward.
"""

from __future__ import annotations

import numpy as np
import torch

from cardlang.engine.native import native_extension
from cardlang.engine.state import splitmix64

#: the engine's extension module (built by pip install; None in a bare checkout)
_native = native_extension()


def _odd_words(count: int, state: int) -> list[int]:
    """``count`` odd words of the engine's splitmix64 stream from ``state``, as signed
    64-bit integers (torch's int64)."""
    words = []
    for _ in range(count):
        state, word = splitmix64(state)
        word |= 1
        words.append(word - (1 << 64) if word >= 1 << 63 else word)
    return words


#: Odd 64-bit multipliers of torch's two row hashes: pseudo-random and fixed.  Not an
#: arithmetic progression (which they were until 2026-11-29): then both hashes were
#: nearly functions of one weighted sum of the row, so rows with equal sums collided in
#: both and merged (tests/test_neural.py found such rows of small ids).
_ROW_HASH = torch.tensor([_odd_words(64, 1), _odd_words(64, 2)], dtype=torch.int64)


def native_kernels(*tensors: torch.Tensor) -> bool:
    """Whether the native kernels can take these tensors (all on the CPU, and built)."""
    return _native is not None and all(not x.is_cuda for x in tensors)


def distinct_rows(
    parts: tuple[torch.Tensor, ...], rows: torch.Tensor | None = None, *, native: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """The distinct rows of the columns ``parts`` (contiguous tensors [R, k] side by side,
    any element type, compared by their bytes) among ``rows`` (indices; None: all):
    (the position in ``rows`` of one occurrence of each distinct row, each row's number
    among them).  ``native=False``: torch's way, whatever the device."""
    if native and native_kernels(*parts):
        every = len(parts[0])
        if rows is None:
            rows = torch.arange(every)
        blocks = [_bytes(part) for part in parts]
        first = torch.empty(len(rows), dtype=torch.long)
        inverse = torch.empty(len(rows), dtype=torch.long)
        found = _native.distinct_rows(
            blocks, rows.contiguous().numpy(), first.numpy(), inverse.numpy()
        )
        return first[:found], inverse
    return _distinct_index(_row_keys(parts, rows))


def max_winners(
    table: torch.Tensor,
    real: torch.Tensor,
    inverse: torch.Tensor,
    b: int,
    t: int,
    *,
    native: bool = True,
) -> torch.Tensor:
    """[b, d]: for each pool row and feature, the row of ``table`` ([U + 1, d], the last
    row the padding's value) holding the largest value among the row's tokens (the real
    token ``real[i]`` of the [b, t] slots is ``table[inverse[i]]``), the earliest token
    on a tie, the padding's row where no token exceeds it.  No gradient: the caller
    gathers the values."""
    with torch.no_grad():
        pad = len(table) - 1
        if native and native_kernels(table):
            winner = torch.empty((b, table.shape[1]), dtype=torch.long)
            _native.max_winners(
                table.detach().contiguous().numpy(),
                real.contiguous().numpy(),
                inverse.contiguous().numpy(),
                t,
                pad,
                winner.numpy(),
            )
            return winner
        d = table.shape[1]
        # the padding slot first: a token must exceed it, as the native kernel's fallback
        slots = torch.full((b, t + 1), pad, dtype=torch.long, device=table.device)
        slots.view(-1)[real // t * (t + 1) + real % t + 1] = inverse
        laid = table.T.contiguous().index_select(1, slots.view(-1)).view(d, b, t + 1)
        return slots.gather(1, laid.argmax(-1).T)


def _bytes(part: torch.Tensor) -> np.ndarray:
    """A contiguous [R, k] tensor's memory as an [R, bytes] uint8 array (no copy)."""
    array = part.detach().contiguous().numpy()
    return array.reshape(len(array), int(np.prod(array.shape[1:]))).view(np.uint8)


def _row_keys(
    parts: tuple[torch.Tensor, ...], rows: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two independent 64-bit hashes of each row of the columns ``parts`` (integer
    tensors [R, k] side by side), of the rows ``rows`` only (None: all).  Computed over
    every row at once (a multiply and a sum, no gather of the rows themselves)."""
    keys = []
    for multipliers in _ROW_HASH.to(parts[0].device):
        key: torch.Tensor | None = None
        at = 0
        for part in parts:  # an integer product that wraps around
            if part.is_floating_point():
                part = part.view(torch.int32)
            width = part.shape[-1]
            factors = multipliers[at : at + width]
            if part.is_cuda:  # no integer matrix product there
                term = (part.long() * factors).sum(-1)
            else:  # an mv: a fifth of the multiply-and-sum's time on a CPU
                term = part.long() @ factors
            key, at = term if key is None else key + term, at + width
        assert key is not None and at <= len(multipliers)
        keys.append(key if rows is None else key[rows])
    return keys[0], keys[1]


def _distinct_index(keys: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """(the index of one occurrence of each distinct row, each row's index among
    them), rows told apart by their first hash and checked by their second: two rows
    are taken for one only where both 64-bit hashes agree (a 128-bit match).  Where the
    second disagrees inside a group of the first, every row is its own."""
    key, check = keys
    every = torch.arange(len(key), device=key.device)
    if len(key) == 0:
        return every, every
    unique, inverse = torch.unique(key, return_inverse=True)
    first = torch.empty(len(unique), dtype=torch.long, device=key.device)
    first.scatter_(0, inverse, every)
    if not torch.equal(check[first][inverse], check):
        return every, every
    return first, inverse
