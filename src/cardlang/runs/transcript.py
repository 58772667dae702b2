"""A game, move by move, as text a person can follow.

Pipeline position: reads the event log a Gamestate keeps when created with
``record=True`` (moves, storage changes, shuffles, decisions) and renders it.  Runs of
identical moves (dealing 13 cards) are folded into one line.
"""

from __future__ import annotations

from typing import Any

from cardlang.engine.game import Game
from cardlang.engine.gamemaster import GameResult
from cardlang.engine.labels import card_label, location_label
from cardlang.engine.owners import describe_owner
from cardlang.engine.protocol import EngineState
from cardlang.engine.state import FAILED


def render_transcript(
    game: Game, st: EngineState, result: GameResult, agent_names: list[str]
) -> str:
    lines = [
        f"{game.source.name}, seed {st.seed}",
        "players: " + ", ".join(f"P{i} {a}" for i, a in enumerate(agent_names)),
        "",
    ]
    events = st.log or []
    i = 0
    while i < len(events):
        event = events[i]
        if event[0] == "move":
            j = i
            while (
                j + 1 < len(events)
                and events[j + 1][0] == "move"
                and events[j + 1][2:4] == event[2:4]
            ):
                j += 1
            src, dst = location_label(event[2]), location_label(event[3])
            if j == i:
                lines.append(f"    move {card_label(st, event[1])}: {src} -> {dst}")
            else:
                lines.append(f"    move {j - i + 1} cards: {src} -> {dst}")
            i = j + 1
            continue
        lines.append(_render_event(game, event))
        i += 1
    lines.append("")
    lines.append(_render_result(result))
    return "\n".join(lines)


def _render_event(game: Game, event: tuple[Any, ...]) -> str:
    kind = event[0]
    if kind == "decision":
        _, mover, label, turn, situation = event
        where = "" if situation == "CHOICE" else f" ({situation})"
        return f"turn {turn}: P{mover} chooses{where} {label}"
    if kind == "reveal":  # a secret pick of a (simultaneous ...) block, shown
        _, mover, label, turn, situation = event
        where = "" if situation == "CHOICE" else f" ({situation})"
        return f"turn {turn}: P{mover} reveals{where} {label}"
    if kind == "set":
        _, (owner, name), value = event
        return f"    {describe_owner(owner)}.{name} = {value}"
    if kind == "create":
        return f"    create {event[1]} cards in {location_label(event[2])}"
    if kind == "remember":
        return f"    remember card {event[1]} in {location_label(event[2])}"
    if kind == "shuffle":
        return f"    shuffle {location_label(event[1])}"
    return f"    {event}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def render_result(result: GameResult) -> str:
    """How a game ended: its end, scores and winners (and its error), as the transcript
    and the story (runs/story.py) end."""
    return _render_result(result)


def _render_result(result: GameResult) -> str:
    head = (
        f"end: {result.end_reason} after {_plural(result.decisions, 'decision')}, "
        f"{_plural(result.turns, 'turn')}"
    )
    lines = [head]
    if result.end_reason != FAILED:
        scores = ", ".join(f"P{i} {s}" for i, s in enumerate(result.scores))
        lines.append(f"scores: {scores}" + ("" if result.completed else " (not a result)"))
    if result.winners:
        lines.append(
            "winner"
            + ("s" if len(result.winners) > 1 else "")
            + ": "
            + ", ".join(f"P{w}" for w in result.winners)
        )
    if result.error is not None:
        lines.append(result.error.render())
    return "\n".join(lines)
