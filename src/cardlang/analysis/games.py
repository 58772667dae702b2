"""Recorded games as the measures read them: which completed, how many players, which
design they belong to, and what each player's own search agent estimated.

Pipeline position: after ``data`` (recorded games as ``GameRecord`` values), below the
measures (``outcomes``, ``decisions``, ``course``).  Pure functions of one game or a list
of games; nothing here computes an interval.

"Estimates" of a player are what its own search agent estimated at its own decisions:
the value of the option it chose (``DecisionRecord.value``), the standing it expected to
reach by playing on.  These are the numbers CardStock's drama, security, decisiveness
and coolness are computed from (the mover's best option, per player); see
docs/heuristics.md for why not ``standings[seat]`` as seen by others.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from cardlang.analysis.data import DecisionRecord, GameRecord

#: Two estimated values closer than this are equal (leaders tied, options as good).
EPS = 1e-9


def completed(games: Sequence[GameRecord]) -> list[GameRecord]:
    """The games that completed: the only ones with a result and a whole course of play."""
    return [g for g in games if g.completed]


def players(games: Sequence[GameRecord]) -> int:
    """The number of players the games share; mixing player counts is a caller's error
    (a win rate of 1/3 means one thing with 3 players and another with 4)."""
    counts = {g.nplayers for g in games}
    if len(counts) > 1:
        raise ValueError(f"games with different numbers of players: {sorted(counts)}")
    return counts.pop() if counts else 0


def design_of(game: GameRecord) -> str | None:
    """The design a game belongs to: ``random`` (every seat random), ``ai_vs_random``
    (exactly one seat not random), ``ai`` (every seat the same other agent), else None."""
    ai = [spec for spec in game.agents if not _is_random(spec)]
    if not ai:
        return "random"
    if len(ai) == 1 and game.nplayers > 1:
        return "ai_vs_random"
    if len(ai) == game.nplayers and len(set(ai)) == 1:
        return "ai"
    return None


def _is_random(spec: str) -> bool:
    return spec == "random" or spec.startswith("random:")


def ai_seat(game: GameRecord) -> int | None:
    """The one seat not played at random (an ``ai_vs_random`` game), else None."""
    seats = [s for s, spec in enumerate(game.agents) if not _is_random(spec)]
    return seats[0] if len(seats) == 1 else None


def own_estimates(game: GameRecord, seat: int) -> list[tuple[int, float]]:
    """(decision index, estimate) at each of the seat's own decisions its agent valued."""
    return [(d.index, d.value) for d in game.decisions if d.seat == seat and d.value is not None]


def winner_estimates(game: GameRecord) -> list[tuple[int, float]]:
    """The estimates of the game's winners (every winner of a shared win), in order."""
    return sorted(e for w in game.winners for e in own_estimates(game, w))


def _valued(d: DecisionRecord) -> list[float]:
    """The options' estimated values of a decision, where the agent formed them."""
    return [v for v in d.option_values or () if v is not None]


def choices(game: GameRecord) -> Iterator[list[float]]:
    """Option values of each traced decision with at least two valued options: a real
    choice the agent weighed (forced moves have one option and no estimate)."""
    for d in game.decisions:
        values = _valued(d)
        if len(values) >= 2:
            yield values


def views(game: GameRecord) -> list[list[tuple[float, ...]]]:
    """Per observing seat, the standings it estimated at its own traced decisions, in
    order: one player's view of the table as the game goes on."""
    out: list[list[tuple[float, ...]]] = [[] for _ in range(game.nplayers)]
    for d in game.decisions:
        if d.standings and len(d.standings) == game.nplayers:
            out[d.seat].append(d.standings)
    return out
