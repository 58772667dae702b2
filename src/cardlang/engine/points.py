"""Point maps: ``(((KEY : VALUE) ... INT) ...)``, the scores cards get.

A card's score is the sum of every award whose conditions all match the card's
attributes.  A point map is immutable once made (``set`` makes a new one), so the score
of each distinct card is computed once and cached.

Pipeline position: engine, part of the run-time library: compiled actions make point maps
(setting a point storage), the state's ``points`` storages hold them, and generated code
scores cards with them.
"""

from __future__ import annotations

from typing import Any


class PointMap:
    __slots__ = ("awards", "_cache")

    def __init__(self, awards: tuple[tuple[tuple[tuple[str, str], ...], int], ...]) -> None:
        self.awards = awards
        self._cache: dict[int, int] = {}

    def score(self, attrs: dict[str, str]) -> int:
        # Attribute dicts are made once per card description and shared, so their
        # identity is a sound cache key for as long as the game lives.
        key = id(attrs)
        cached = self._cache.get(key)
        if cached is None:
            cached = sum(
                points
                for conditions, points in self.awards
                if all(attrs.get(k) == v for k, v in conditions)
            )
            self._cache[key] = cached
        return cached

    def __reduce__(self) -> tuple[type[PointMap], tuple[Any, ...]]:
        # the cache is keyed by object identities of this process: never sent
        return PointMap, (self.awards,)

    def __repr__(self) -> str:
        parts = [
            "(" + " ".join(f"({k} : {v})" for k, v in conds) + f" {p})" for conds, p in self.awards
        ]
        return "(" + " ".join(parts) + ")"


EMPTY_POINTS = PointMap(())
