"""The statistics of a batch: what its games add up to, and how sure that is.

Pipeline position: runs, beside the batch loop (simulate.py), which counts each game into
a ``BatchSummary`` as it ends (or as it is read back from the records, store.py); the
command line prints the summary as tables or JSON.  Everything here is arithmetic on
results: games, completions, failures and cut-offs, wins per seat and per agent spec,
ties, turns (mean, spread, distribution), each agent's strength, its win share with
a Wilson score interval (``wilson_interval``, also used by the measures of
cardlang.analysis), and its mean score (payoff) with a normal interval
(``mean_interval``).  Nothing is played here.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardlang.engine.gamemaster import GameResult
from cardlang.engine.state import FAILED
from cardlang.runs.cards import CardTotals
from cardlang.runs.intervals import Z95, mean_interval, wilson_interval
from cardlang.runs.store import Outcome

__all__ = ["Z95", "BatchSummary", "mean_interval", "wilson_interval"]


@dataclass
class BatchSummary:
    game: str
    agents: list[str]
    games: int = 0
    completed: int = 0
    failed: int = 0
    cutoff: int = 0
    cutoff_reasons: dict[str, int] = field(default_factory=dict)
    wins: list[float] = field(default_factory=list)
    ties: int = 0
    total_decisions: int = 0
    total_turns: int = 0
    turns_histogram: dict[int, int] = field(default_factory=dict)  # completed games only
    # credits and games per agent spec, whatever seat it sat in (see --rotate-seats)
    agent_credits: dict[str, float] = field(default_factory=dict)  # completed games
    agent_games: dict[str, int] = field(default_factory=dict)  # all games
    agent_seats: dict[str, int] = field(default_factory=dict)  # seats in completed games
    agent_completed: dict[str, int] = field(default_factory=dict)  # completed games
    # each seat's score in completed games, per agent spec and per seat: (n, sum, sum of
    # squares), for mean scores (payoffs: chips in poker) with their intervals
    agent_scores: dict[str, list[float]] = field(default_factory=dict)
    seat_scores: list[list[float]] = field(default_factory=list)
    rotate_seats: bool = False
    planned: int = 0  # games asked for; more than ``games`` when the batch was interrupted
    seconds: float = 0.0  # the time of this run, which played ``games - stored`` games
    stored: int = 0  # games of a resumed batch read back from the records, not played now
    db: str | None = None  # the records file, when the batch is recorded
    batch_id: int | None = None
    error_counts: dict[str, int] = field(default_factory=dict)
    error_texts: dict[str, str] = field(default_factory=dict)
    # failed games per agent spec whose agent failed them (an AgentError)
    agent_failures: dict[str, int] = field(default_factory=dict)
    # per-card figures of the completed games whose picks were counted (runs/cards.py);
    # None: the batch counts none
    cards: CardTotals | None = None

    def add(self, result: GameResult, seat_agents: Sequence[str] | None = None) -> None:
        """Count one game; ``seat_agents`` names the agent of each seat (default: the
        batch's agents in order)."""
        self.add_outcome(Outcome.of(result), seat_agents)

    def add_outcome(self, result: Outcome, seat_agents: Sequence[str] | None = None) -> None:
        """Count one game, just played or read back from the records."""
        seat_agents = seat_agents or self.agents
        self.games += 1
        self.total_decisions += result.decisions
        self.total_turns += result.turns
        for spec in set(seat_agents):
            self.agent_games[spec] = self.agent_games.get(spec, 0) + 1
            self.agent_credits.setdefault(spec, 0.0)
        if result.completed:
            self.completed += 1
            self.turns_histogram[result.turns] = self.turns_histogram.get(result.turns, 0) + 1
            for seat, credit in enumerate(result.credits):
                self.wins[seat] += credit
            self._count_agents(result.credits, seat_agents)
            self._count_scores(result.scores, seat_agents)
            if self.cards is not None and result.cards is not None:
                self.cards.add(result.cards, seat_agents, result.credits)
            if len({_team(result, w) for w in result.winners}) > 1:
                self.ties += 1
        elif result.end_reason == FAILED:
            self.failed += 1
            kind = result.error_kind or "?"
            culprit = result.failed_seat
            if culprit is not None and culprit < len(seat_agents):  # the agent's failure
                spec = seat_agents[culprit]
                self.agent_failures[spec] = self.agent_failures.get(spec, 0) + 1
                kind = f"agent {spec}: {kind.partition(': ')[2]}"  # alike in every seat
            self.error_counts[kind] = self.error_counts.get(kind, 0) + 1
            self.error_texts.setdefault(kind, (result.error_text or "").partition("\n")[0])
        else:
            self.cutoff += 1
            reason = result.end_reason
            self.cutoff_reasons[reason] = self.cutoff_reasons.get(reason, 0) + 1

    def _count_agents(self, credits: Sequence[float], seat_agents: Sequence[str]) -> None:
        """A completed game's credits, seats and game per agent spec (its strength)."""
        for spec, credit in zip(seat_agents, credits, strict=True):
            self.agent_credits[spec] += credit
            self.agent_seats[spec] = self.agent_seats.get(spec, 0) + 1
        for spec in set(seat_agents):
            self.agent_completed[spec] = self.agent_completed.get(spec, 0) + 1

    def _count_scores(self, scores: Sequence[int | None], seat_agents: Sequence[str]) -> None:
        while len(self.seat_scores) < len(scores):
            self.seat_scores.append([0.0, 0.0, 0.0])
        for seat, (spec, score) in enumerate(zip(seat_agents, scores, strict=False)):
            if score is None:
                continue
            for tally in (
                self.agent_scores.setdefault(spec, [0.0, 0.0, 0.0]),
                self.seat_scores[seat],
            ):
                tally[0] += 1
                tally[1] += score
                tally[2] += score * score

    def mean_scores(self) -> dict[str, dict[str, float]]:
        """Per agent spec, its mean score per seat in completed games (a poker game's
        chips, a Dominion game's victory points) with a 95% normal interval."""
        return {
            spec: mean_interval(*self.agent_scores[spec])
            for spec in dict.fromkeys(self.agents)
            if spec in self.agent_scores
        }

    def seat_mean_scores(self) -> list[dict[str, float]]:
        """Per seat, its mean score in completed games with a 95% normal interval."""
        return [mean_interval(*tally) for tally in self.seat_scores]

    @property
    def mean_decisions(self) -> float:
        return self.total_decisions / self.games if self.games else 0.0

    @property
    def mean_turns(self) -> float:
        return self.total_turns / self.games if self.games else 0.0

    def turns_stats(self) -> dict[str, float]:
        """Mean, standard deviation, median, min and max of turns over completed games."""
        values = np.repeat(
            np.array(list(self.turns_histogram), dtype=float),
            np.array(list(self.turns_histogram.values()), dtype=int),
        )
        if values.size == 0:
            return {}
        return {
            "mean": round(float(values.mean()), 3),
            "sd": round(float(values.std(ddof=1)) if values.size > 1 else 0.0, 3),
            "median": float(np.median(values)),
            "min": float(values.min()),
            "max": float(values.max()),
        }

    @property
    def wins_by_agent(self) -> dict[str, float]:
        return {a: round(c, 6) for a, c in self.agent_credits.items()}

    def strength(self) -> dict[str, dict[str, float]]:
        """Per agent spec, its win share with a 95% Wilson score interval; empty when
        every seat has the same agent (there is nothing to compare).

        The unit is a seat in a completed game: ``share`` = credits / ``seats``, so an
        agent as strong as its opponents scores 1/n in an n-player game whatever number
        of seats it fills (``games``: the completed games it played; equal to ``seats``
        when it fills one seat a game).  A shared win counts 1/k to each of the k
        winners (the game's credits).  Failed and cut-off games have no result and are
        left out.
        """
        if len(set(self.agents)) < 2:
            return {}
        out: dict[str, dict[str, float]] = {}
        for spec in dict.fromkeys(self.agents):
            seats = self.agent_seats.get(spec, 0)
            credits = self.agent_credits.get(spec, 0.0)
            low, high = wilson_interval(credits, seats)
            out[spec] = {
                "share": round(credits / seats, 6) if seats else 0.0,
                "ci_low": round(low, 6),
                "ci_high": round(high, 6),
                "games": self.agent_completed.get(spec, 0),
                "seats": seats,
                "credits": round(credits, 6),
            }
        return out

    @property
    def games_per_second(self) -> float:
        """Of the games played in this run (not those read back from the records)."""
        played = self.games - self.stored
        return played / self.seconds if self.seconds > 0 else 0.0

    @property
    def errors(self) -> list[str]:
        return [
            f"{self.error_texts[k]} [{n} game{'s' if n != 1 else ''}]"
            for k, n in self.error_counts.items()
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "agents": self.agents,
            "games": self.games,
            "planned": self.planned,
            "interrupted": self.games < self.planned,
            "completed": self.completed,
            "failed": self.failed,
            "failed_by_agent": dict(self.agent_failures),
            "cutoff": self.cutoff,
            "cutoff_reasons": self.cutoff_reasons,
            "rotate_seats": self.rotate_seats,
            "wins": [round(w, 6) for w in self.wins],
            "wins_by_agent": self.wins_by_agent,
            "games_by_agent": dict(self.agent_games),
            "strength": self.strength(),
            "score_by_agent": self.mean_scores(),
            "score_by_seat": self.seat_mean_scores(),
            "ties": self.ties,
            "mean_decisions": round(self.mean_decisions, 3),
            "mean_turns": round(self.mean_turns, 3),
            "mean_turns_per_player": round(self.mean_turns / max(1, len(self.wins)), 3),
            "turns": self.turns_stats(),
            "turns_distribution": {str(k): v for k, v in sorted(self.turns_histogram.items())},
            "seconds": round(self.seconds, 4),
            "games_per_second": round(self.games_per_second, 3),
            "errors": self.errors,
            **({"records": self.records_json()} if self.db is not None else {}),
            **({"cards": self.cards.to_json()} if self.cards is not None else {}),
        }

    def records_json(self) -> dict[str, Any]:
        """Where the batch is recorded, and how much of it this run played."""
        return {
            "db": self.db,
            "batch": self.batch_id,
            "from_db": self.stored,
            "played": self.games - self.stored,
        }


def _team(result: Outcome, seat: int) -> int:
    """Partners who win together (equal scores) are one winner, not a tie."""
    return result.team_of[seat] if result.team_of else seat
