"""Pure functions on card collections: set operations, sorting, runs, tuples, subsets,
route maps.

Pipeline position: engine, part of the run-time library: generated code (written by
cardlang.compiler.expressions) calls these as ``ops.NAME`` (runtime.py puts the module in
its globals) with already-evaluated sequences of card ids and a scoring function.
Collections are sequences ordered bottom first, top last; a collection of collections is
a list of such sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, product
from math import comb, prod
from typing import Any

Score = Callable[[int], int]
#: Charges units of work (engine/work.py) before an op builds what they pay for; None
#: where no budget runs.
Charge = Callable[[int], None] | None

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


def tuples(
    cards: Sequence[int], score: Score, n: int, charge: Charge = None
) -> list[tuple[int, ...]]:
    """Every group of ``n`` cards with equal scores, by ascending score.  Its work: one
    unit per group and per card in it, charged before any is made."""
    by_score: dict[int, list[int]] = {}
    for c in cards:
        by_score.setdefault(score(c), []).append(c)
    if charge is not None and n > 0:
        charge(sum(comb(len(g), n) * (n + 1) for g in by_score.values() if len(g) >= n))
    out: list[tuple[int, ...]] = []
    for s in sorted(by_score):
        group = by_score[s]
        if n > 0 and len(group) >= n:
            out.extend(combinations(group, n))
    return out


def runs(
    cards: Sequence[int], score: Score, n: int, mode: str, charge: Charge = None
) -> list[list[int]]:
    """Runs of consecutive scores, one card a score, at least ``n`` long, by ascending score.

    Cards of equal score give alternative runs (two sevens: two runs through seven).
    ``largest``: every maximal block of consecutive scores; ``all``: every window of
    consecutive scores inside those blocks.  Its work, charged before each is made: the
    windows (one unit each and one per score in it), then the runs (the same).
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
    if charge is not None:
        charge(_windows_work(blocks, length, mode == "largest"))
    windows: list[list[int]] = []
    for block in blocks:
        if mode == "largest":
            if len(block) >= length:
                windows.append(block)
            continue
        for size in range(length, len(block) + 1):
            windows.extend(block[i : i + size] for i in range(len(block) - size + 1))
    if charge is not None:
        charge(sum(prod(len(by_score[s]) for s in w) * (len(w) + 1) for w in windows))
    out: list[list[int]] = []
    for window in windows:
        out.extend(list(combo) for combo in product(*(by_score[s] for s in window)))
    return out


def _windows_work(blocks: Sequence[Sequence[int]], length: int, largest: bool) -> int:
    """The work of the windows ``runs`` would list (native/src/vm_eval.cpp: run_windows_work)."""
    total = 0
    for block in blocks:
        size = len(block)
        if largest:
            total += size + 1 if size >= length else 0
        else:
            total += sum((size - k + 1) * (k + 1) for k in range(length, size + 1))
    return total


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


# ---------------------------------------------------------------- route maps
# (connects ...) and (longest-path ...) read a collection as an undirected multigraph:
# each card an edge between the values of two of its attributes.  native/src/graphs.h
# is the same code for the native engine.

#: A route: its two ends and its length.
Route = tuple[str, str, int]


def routes(
    cards: Sequence[int],
    table: Sequence[dict[str, Any]],
    source: str,
    target: str,
    length: str | None = None,
) -> list[Route]:
    """The cards as routes between their ``source`` and ``target`` values, with their
    ``length`` (0 when not asked for or missing).  A card that lacks an end (it reads
    "") is no route, so a collection may mix route cards with others."""
    out: list[Route] = []
    for c in cards:
        attrs = table[c]
        a, b = attrs.get(source, ""), attrs.get(target, "")
        if a and b:
            out.append((a, b, attrs.get(length, 0) if length else 0))
    return out


def connected(edges: Sequence[Route], x: str, y: str) -> bool:
    """Whether a path of ``edges`` joins ``x`` and ``y`` (always, when they are equal)."""
    neighbours: dict[str, list[str]] = {}
    for a, b, _ in edges:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    seen, todo = {x}, [x]
    while todo:
        for city in neighbours.get(todo.pop(), ()):
            if city not in seen:
                seen.add(city)
                todo.append(city)
    return y in seen


class TooMuchWork(Exception):
    """``search_trails`` would take more routes than it may."""


def longest_trail(edges: Sequence[Route]) -> int:
    """The greatest total length of a trail (a walk using each edge at most once; cities
    may repeat), the empty trail's 0 included."""
    return search_trails(edges, None)[0]


def search_trails(edges: Sequence[Route], most: int | None) -> tuple[int, int]:
    """``longest_trail``'s answer, and the routes its search took (one unit of work
    each), raising TooMuchWork past ``most`` of them.

    Exact: a depth-first search over the unused edges from every city, exponential in the
    worst case but quick for the tens of routes a player owns.  A maximum, so the order
    of the search cannot change it; the count of routes taken is the native engine's
    (native/src/graphs.h: TrailSearch searches in the same order).  An explicit stack,
    not recursion: a trail may be as long as there are cards.
    """
    incident: dict[str, list[int]] = {}
    for i, (a, b, _) in enumerate(edges):
        incident.setdefault(a, []).append(i)
        if b != a:  # a loop is one way out of its city, not two
            incident.setdefault(b, []).append(i)
    used = [False] * len(edges)
    taken = 0
    overall = 0
    for start in incident:
        # frames: [city, the next of its edges to try, the longest continuation found]
        stack: list[list[Any]] = [[start, 0, 0]]
        via: list[int] = []  # the edge into each frame but the first
        while stack:
            frame = stack[-1]
            city, k = frame[0], frame[1]
            out = incident[city]
            while k < len(out) and used[out[k]]:
                k += 1
            if k < len(out):
                i = out[k]
                frame[1] = k + 1
                taken += 1
                if most is not None and taken > most:
                    raise TooMuchWork
                used[i] = True
                a, b, _ = edges[i]
                via.append(i)
                stack.append([b if city == a else a, 0, 0])
                continue
            stack.pop()
            if via:
                i = via.pop()
                used[i] = False
                parent = stack[-1]
                parent[2] = max(parent[2], edges[i][2] + frame[2])
            else:
                overall = max(overall, frame[2])
    return overall, taken
