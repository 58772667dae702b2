"""The progress bar of long commands (simulate, heuristics): games done out of planned.

Shown only on a terminal (stderr), and left behind nowhere: it disappears when the work
is done, so tables and JSON on stdout stay clean.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class GamesBar:
    """What a running command calls: ``advance(n)`` games done, ``describe(text)``."""

    advance: Callable[[int], None]
    describe: Callable[[str], None]


@contextmanager
def games_bar(
    description: str, total: int, *, enabled: bool = True, unit: str = "games"
) -> Iterator[GamesBar | None]:
    """A bar over ``total`` games (or other ``unit``s), or None when disabled or stderr
    is not a terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn(f"{{task.completed}}/{{task.total}} {unit}"),
        TimeRemainingColumn(),
        transient=True,
        # on stderr, the terminal the test above asked about: stdout may be a file
        # (--json > out.json) that a bar would corrupt or, off a terminal, hide
        console=Console(stderr=True),
    ) as progress:
        task = progress.add_task(description, total=total)

        def advance(n: int) -> None:
            progress.advance(task, n)

        def describe(text: str) -> None:
            progress.update(task, description=text)

        yield GamesBar(advance, describe)
