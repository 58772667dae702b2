"""What a game tells at its end besides the result: why it ended and the score's
breakdown, from its ``(end-reason ...)`` and ``(score-part ...)`` forms (docs/language.md,
"Presentation").

Pipeline position: runs, for the front ends above it (interactive/: the terminal and the
web table) and the story beside it (story.py).  Either engine evaluates the forms
(``ending_values``, as it evaluates the table score): they read only what every player
sees and draw no random number, so telling the end changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardlang.engine.protocol import Engine
from cardlang.errors import CardlangError


@dataclass(frozen=True)
class Ending:
    """Why the game ended (the first ``(end-reason ...)`` that holds; "" for none) and
    the score's breakdown, one row per ``(score-part ...)`` with a value per seat (rows
    that are 0 for everyone left out)."""

    reason: str = ""
    parts: tuple[tuple[str, tuple[int, ...]], ...] = ()


def ending_of(master: Engine, st: Any, game: Any) -> Ending:
    """The ending of a finished game ``st`` as ``master`` (either engine) evaluates the
    game's forms; empty for a game without them, or where one fails (a rule error in a
    form for people must not lose the game's result)."""
    shows = game.checked.presentation
    if not shows.end_reasons and not shows.score_parts:
        return Ending()
    try:
        values = master.ending_values(st)
    except CardlangError:
        return Ending()
    reasons = len(shows.end_reasons)
    held = [text for i, (text, _) in enumerate(shows.end_reasons) if values[0][i]]
    parts = []
    for i, (text, _) in enumerate(shows.score_parts):
        row = tuple(int(seat_values[reasons + i]) for seat_values in values)
        if any(row):
            parts.append((text, row))
    return Ending(held[0] if held else "", tuple(parts))


def score_lines(ending: Ending, scores: Sequence[int], seat: int | None = None) -> list[str]:
    """The scores as a table, one column per seat (``seat`` marked "you"), the
    breakdown's rows above the score's, indented by two spaces."""
    names = [f"P{p}{' (you)' if p == seat else ''}" for p in range(len(scores))]
    rows = [(text, [str(v) for v in values]) for text, values in ending.parts]
    rows.append(("score", [str(s) for s in scores]))
    first = max(len(text) for text, _ in rows)
    widths = [max(len(n), *(len(values[p]) for _, values in rows)) for p, n in enumerate(names)]
    lines = []
    for text, cells in [("", names), *rows]:
        shown = "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        lines.append(f"  {text:<{first}}{shown}")
    return lines
