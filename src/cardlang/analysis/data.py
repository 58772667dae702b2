"""Recorded games as plain values: what every measure of game quality is computed from.

Pipeline position: after the records (runs/store.py).  ``load_batch`` reads one batch of a
records database into ``GameRecord`` values, with each decision and the trace its agent
left (search agents estimate, at each decision, every option's value for the mover and
every seat's standing).  Nothing here plays a game; measures are pure functions of these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardlang.engine.state import COMPLETED

if TYPE_CHECKING:
    from cardlang.runs.store import RunStore


@dataclass(frozen=True)
class DecisionRecord:
    """One decision of a recorded game."""

    index: int  # 0-based, in the order of the game
    seat: int  # who decided
    situation: str
    options: int  # how many legal options there were
    chosen: int  # the option index played
    # The mover's agent's trace (None for agents that leave none, e.g. random):
    value: float | None  # the chosen option's estimated value for the mover, in [0, 1]
    option_values: tuple[float | None, ...] | None  # per option; None where not estimated
    standings: tuple[float, ...] | None  # per seat: its estimated standing, in [0, 1]


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a batch, with its decisions."""

    id: int
    batch: int
    index: int  # in its batch
    seed: int
    agents: tuple[str, ...]  # per seat, the agent spec
    end_reason: str  # "completed", "failed", "cutoff:decisions", "cutoff:steps"
    turns: int
    scores: tuple[int | None, ...]  # per seat (None when the game failed)
    ranks: tuple[int | None, ...]  # per seat, 1 is first (None when the game failed)
    credits: tuple[float, ...]  # per seat: 1 for a win, 1/k for a win shared by k
    decisions: tuple[DecisionRecord, ...]
    team_of: tuple[int, ...] = ()  # per seat its team, in partnership games; () if none

    @property
    def nplayers(self) -> int:
        return len(self.agents)

    @property
    def completed(self) -> bool:
        return self.end_reason == COMPLETED

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s, c in enumerate(self.credits) if c > 0)

    @property
    def winning_sides(self) -> int:
        """How many sides share the win: partners who win together are one side."""
        if not self.team_of:
            return len(self.winners)
        return len({self.team_of[s] for s in self.winners})


def load_batch(store: RunStore, batch_id: int) -> list[GameRecord]:
    """Every finished game of a batch, in batch order, with its decisions; every value
    read is checked (runs/rows.py): the records file is the user's, untrusted."""
    store.check_batch(batch_id)
    games = store.conn.execute(
        "SELECT id, idx, seed, agents, end_reason, turns, team_of FROM games "
        "WHERE batch_id = ? AND status = 'done' ORDER BY idx",
        (batch_id,),
    ).fetchall()
    return [_game_record(store, batch_id, row) for row in games]


def _game_record(store: RunStore, batch_id: int, row: tuple[Any, ...]) -> GameRecord:
    """One finished game of ``load_batch``, from its games row and its results rows."""
    from cardlang.runs.rows import AGENTS, SEATS, RowCheck
    from cardlang.runs.store import END_REASONS

    game_id, idx, seed, agents, end_reason, turns, team_of = row
    check = RowCheck(store.path, "games", game_id)
    results = store.conn.execute(
        "SELECT score, rank, credit FROM results WHERE game_id = ? ORDER BY seat", (game_id,)
    ).fetchall()
    scores, ranks, credits = _seat_results(store, game_id, results)
    return GameRecord(
        id=game_id,
        batch=batch_id,
        index=check.integer("idx", idx),
        seed=check.integer("seed", seed),
        agents=tuple(check.json("agents", agents, AGENTS)),
        end_reason=check.text("end_reason", end_reason, END_REASONS),
        turns=check.optional_integer("turns", turns) or 0,
        scores=scores,
        ranks=ranks,
        credits=credits,
        decisions=_decisions(store, game_id),
        team_of=_teams(tuple(check.optional_json("team_of", team_of, SEATS) or ())),
    )


def _seat_results(
    store: RunStore, game_id: int, results: list[tuple[Any, ...]]
) -> tuple[tuple[int | None, ...], tuple[int | None, ...], tuple[float, ...]]:
    """Each seat's score, rank and credit from its results row, checked."""
    from cardlang.runs.rows import RowCheck
    from cardlang.runs.store import MAX_SEATS

    scores, ranks, credits = [], [], []
    for seat, (score, rank, credit) in enumerate(results):
        check = RowCheck(store.path, "results", f"(game {game_id}, seat {seat})")
        scores.append(check.optional_integer("score", score, -(2**63)))
        ranks.append(check.optional_integer("rank", rank, 1, MAX_SEATS))
        credits.append(check.real("credit", credit, 0.0))
    return tuple(scores), tuple(ranks), tuple(credits)


def _decisions(store: RunStore, game_id: int) -> tuple[DecisionRecord, ...]:
    """The game's decisions as the records read them back (JSON decoded there)."""
    return tuple(
        DecisionRecord(
            index=d["idx"],
            seat=d["seat"],
            situation=d["situation"],
            options=d["options"],
            chosen=d["option_index"],
            value=d["value"],
            option_values=_tuple_or_none(d["option_values"]),
            standings=_tuple_or_none(d["standings"]),
        )
        for d in store.decisions(game_id)
    )


def _tuple_or_none(values: list[Any] | None) -> tuple[Any, ...] | None:
    return tuple(values) if values is not None else None


def _teams(teams: tuple[int, ...]) -> tuple[int, ...]:
    """The stored team of each seat; () when every seat plays for itself."""
    return teams if len(set(teams)) < len(teams) else ()
