"""Pure functions on card collections: set operations, sorting, runs, tuples, subsets.

Pipeline position: engine, part of the run-time library: generated code (written by
cardlang.compiler.expressions) calls these as ``ops.NAME`` (runtime.py puts the module in
its globals) with already-evaluated sequences of card ids and a scoring function.
Collections are sequences ordered bottom first, top last; a collection of collections is
a list of such sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, product

Score = Callable[[int], int]

#: ``(subsets ...)`` of more cards than this is a rule error (2**16 = 65536 subsets).
MAX_SUBSET_CARDS = 16


def union(groups: Sequence[Sequence[int]]) -> list[int]:
    seen: set[int] = set()
    out: list[int] = []
    for group in groups:
        for c in group:
            if c not in seen:
                seen.add(c)
                out.append(c)
    return out


def intersect(groups: Sequence[Sequence[int]]) -> list[int]:
    if not groups:
        return []
    rest = [set(g) for g in groups[1:]]
    return [c for c in groups[0] if all(c in r for r in rest)]


def disjunction(groups: Sequence[Sequence[int]]) -> list[int]:
    """The cards that are in exactly one of the collections."""
    counts: dict[int, int] = {}
    for group in groups:
        for c in set(group):
            counts[c] = counts.get(c, 0) + 1
    return [c for c in union(groups) if counts[c] == 1]


def sort_by_score(cards: Sequence[int], score: Score) -> list[int]:
    """Ascending score from bottom to top; equal scores keep their order."""
    return sorted(cards, key=score)


def tuples(cards: Sequence[int], score: Score, n: int) -> list[tuple[int, ...]]:
    """Every group of ``n`` cards with equal scores, by ascending score."""
    by_score: dict[int, list[int]] = {}
    for c in cards:
        by_score.setdefault(score(c), []).append(c)
    out: list[tuple[int, ...]] = []
    for s in sorted(by_score):
        group = by_score[s]
        if n > 0 and len(group) >= n:
            out.extend(combinations(group, n))
    return out


def runs(cards: Sequence[int], score: Score, n: int, mode: str) -> list[list[int]]:
    """Runs of consecutive scores, one card a score, at least ``n`` long, by ascending score.

    Cards of equal score give alternative runs (two sevens: two runs through seven).
    ``largest``: every maximal block of consecutive scores; ``all``: every window of
    consecutive scores inside those blocks.
    """
    by_score: dict[int, list[int]] = {}
    for c in cards:
        by_score.setdefault(score(c), []).append(c)
    blocks: list[list[int]] = []
    for s in sorted(by_score):
        if blocks and blocks[-1][-1] == s - 1:
            blocks[-1].append(s)
        else:
            blocks.append([s])
    length = max(n, 1)
    windows: list[list[int]] = []
    for block in blocks:
        if mode == "largest":
            if len(block) >= length:
                windows.append(block)
            continue
        for size in range(length, len(block) + 1):
            windows.extend(block[i : i + size] for i in range(len(block) - size + 1))
    out: list[list[int]] = []
    for window in windows:
        out.extend(list(combo) for combo in product(*(by_score[s] for s in window)))
    return out


def run_at_end(cards: Sequence[int], score: Score, n: int, end: str) -> list[int]:
    """The longest k >= n cards at one end whose scores, sorted, are consecutive and distinct."""
    ordered = list(cards) if end == "bottom" else list(reversed(cards))
    best: list[int] = []
    for k in range(max(n, 1), len(ordered) + 1):
        window = ordered[:k]
        scores = sorted(score(c) for c in window)
        if all(b == a + 1 for a, b in zip(scores, scores[1:], strict=False)):
            best = window
    return best if end == "bottom" else list(reversed(best))


def subsets(cards: Sequence[int]) -> list[tuple[int, ...]]:
    """Every subset, the empty one included, by increasing size."""
    out: list[tuple[int, ...]] = []
    for k in range(len(cards) + 1):
        out.extend(combinations(cards, k))
    return out


def partition(cards: Sequence[int], table: Sequence[dict[str, str]], key: str) -> list[list[int]]:
    """The cards grouped by the value of attribute ``key``, groups in first-seen order."""
    groups: dict[str, list[int]] = {}
    for c in cards:
        groups.setdefault(table[c].get(key, ""), []).append(c)
    return list(groups.values())


def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(max(n, 0)):
        a, b = b, a + b
    return a
