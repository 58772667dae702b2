"""Agents for tests/test_tournament.py, loaded as ``tests/tournament_agents/hostile.py:Class``.

A sensible Kuhn poker player (``KuhnBot``) and hostile ones: a cheat that searches its
process for the game, and agents that crash, sleep, hoard memory or answer illegal moves.
Each runs in a sandboxed worker process of a tournament.
"""

from __future__ import annotations

import gc
import json
import os
import time
from typing import Any


class KuhnBot:
    """Bets whenever it may and calls every bet: against a random player, who folds to
    a bet half the time, that wins most hands (the game ranks seats by chips won)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: Any, options: Any) -> int:
        # the branches of kuhn_poker.rcy's choice: 0 check, 1 check behind, 2 bet,
        # 3 fold, 4 call
        preferred = {2: 0, 4: 1, 1: 2, 0: 3, 3: 4}
        return min(range(len(options)), key=lambda i: preferred.get(options[i].branch, 9))


#: What the cheat looks for: the classes of the game, its state and views, by name.
FORBIDDEN = (
    "Gamestate",
    "Gamemaster",
    "NativeMaster",
    "NativeState",
    "Game",
    "PlayerView",
    "CheckedGame",
    "KuhnBot",
    "RandomAgent",
    "ISMCTSAgent",
)


class Cheat:
    """Inspects its view's private attributes and walks the garbage collector for the
    game's objects and other agents; prints what it found (a JSON line after
    ``CHEAT-REPORT``: it lands in its log) at its first decision, then plays option 0."""

    def __init__(self, seed: int = 0) -> None:
        self.done = False

    def choose(self, view: Any, options: Any) -> int:
        if not self.done:
            self.done = True
            found = []
            for obj in gc.get_objects():
                name = type(obj).__name__
                if name in FORBIDDEN:
                    found.append(f"{type(obj).__module__}.{name}")
            private = [a for a in dir(view) if a.startswith("_") and not a.startswith("__")]
            reachable = set()
            for attr in ("_st", "_state", "game", "_game", "_option_data", "master"):
                value = getattr(view, attr, None)
                if value is not None and not callable(value):
                    reachable.add(attr)
            try:
                view.master()
                simulates = True
            except Exception:
                simulates = False
            types = sorted({type(v).__name__ for v in _walk(vars(view))})
            print(
                "CHEAT-REPORT",
                json.dumps(
                    {
                        "found": found,
                        "private": private,
                        "reachable": sorted(reachable),
                        "simulates": simulates,
                        "view_type": type(view).__name__,
                        "types": types,
                        "option_type": type(options[0]).__name__,
                        "pid": os.getpid(),
                    }
                ),
                flush=True,
            )
        return 0


def _walk(value: Any) -> Any:
    """Every value inside a view's plain data."""
    yield value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(k)
            yield from _walk(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _walk(v)


class Crasher:
    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        raise RuntimeError("this agent always crashes")


class Sleeper:
    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        time.sleep(60)
        return 0


class Hog:
    """Allocates memory until the limit stops it."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))


class Illegal:
    """Answers an option that does not exist, every time."""

    def __init__(self, seed: int = 0) -> None:
        self.asked = 0

    def choose(self, view: Any, options: Any) -> int:
        self.asked += 1
        return len(options) + 7


class Exiter:
    """Ends its own process."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        os._exit(3)


class IllegalOnce:
    """Answers an option that does not exist, then, told why (``view.refusal``), the
    first option."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> int:
        return 0 if view.refusal else len(options)


class Vector:
    """Answers a strength vector over the situation's vocabulary that prefers the last
    legal option's key."""

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view: Any, options: Any) -> list[float]:
        wanted = options[-1].key
        return [1.0 if key == wanted else 0.0 for key in view.vocabulary]
