"""The values the records read and write: a batch's identity, a game planned, played, stored.

Pipeline position: runs, under the store (store.py and its parts).  ``BatchSpec`` is what
identifies a batch (``key``: the same command on the same game text is the same batch),
``PlannedGame`` a game still to play, ``Outcome`` a finished game as the batch summary
counts it (from a ``GameResult`` or from the records), ``StoredGame`` a game row with its
batch's settings, what replaying it needs.  Beside them, the bounds that every row read
back is checked against (rows.py) and the two helpers that stamp a record: ``now`` and
``file_sha256``.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library at run time (the engine's ``GameResult`` is a
type here).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from cardlang.engine.gamemaster import Limits
from cardlang.engine.state import COMPLETED, CUTOFF, FAILED
from cardlang.engine.tally import CardCounts
from cardlang.engine.work import DEFAULT_MAX_GAME_WORK, DEFAULT_MAX_WORK

if TYPE_CHECKING:
    from cardlang.engine.gamemaster import GameResult

#: What the records hold of a game, checked as each row is read (rows.py): the states
#: of a game row, and how a played game ended ("forfeit": a tournament's agent forfeited).
STATUSES = ("planned", "done")
END_REASONS = (COMPLETED, FAILED, f"{CUTOFF}:decisions", f"{CUTOFF}:steps", "forfeit")
#: The most seats a recorded game may have, and the most options of a decision: far
#: beyond any game, and small enough that no reader is asked to make absurd lists.
MAX_SEATS = 1024
MAX_OPTIONS = 10**9


def now() -> str:
    """A timestamp for the records: UTC, ISO 8601, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def file_sha256(text: str) -> str:
    """The hash that ties records to the exact text of a game file."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BatchSpec:
    """What identifies a batch: the same command on the same game text is the same batch.

    The game file's path (as given, and absolute) is kept for people and for replay,
    but is not part of the identity (the hash is).  Limits are: they decide which games
    are cut off.
    """

    game_path: str
    game_file: str
    game_sha256: str
    params: dict[str, str]
    root_seed: int
    games: int
    agents: tuple[str, ...]
    rotate_seats: bool
    max_decisions: int
    max_steps: int
    max_work: int = DEFAULT_MAX_WORK
    max_game_work: int = DEFAULT_MAX_GAME_WORK

    def key(self, sized: bool = True) -> str:
        """The batch's identity as a hash.  ``sized=False``: without its number of games,
        for a batch whose game i is the same whatever the number (a simulate batch: a
        larger --games extends it rather than playing the same seeds in a new one)."""
        identity = asdict(self)
        del identity["game_path"], identity["game_file"]
        if not sized:
            del identity["games"]
            identity["extensible"] = True
        if self.max_work == DEFAULT_MAX_WORK:  # a batch made before there was one
            del identity["max_work"]
        if self.max_game_work == DEFAULT_MAX_GAME_WORK:  # likewise
            del identity["max_game_work"]
        identity["agents"] = list(self.agents)
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class PlannedGame:
    """A game of a batch not played yet: everything needed to play it."""

    id: int
    idx: int
    seed: int
    agents: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """A finished game as the batch summary counts it, from a result or from the records."""

    end_reason: str
    decisions: int
    turns: int
    credits: tuple[float, ...]
    winners: tuple[int, ...]
    team_of: tuple[int, ...] = ()
    error_kind: str | None = None
    error_text: str | None = None  # the rule or agent error as rendered (several lines)
    scores: tuple[int | None, ...] = ()  # per seat (None: a failed game has none)
    cards: CardCounts | None = None  # the seats' picks and cards, where they were counted

    @property
    def completed(self) -> bool:
        return self.end_reason == COMPLETED

    @property
    def failed_seat(self) -> int | None:
        """The seat whose agent failed the game (``AgentError.kind``: ``agent P1: ...``),
        or None (a rule error, or no failure)."""
        match = _AGENT_KIND.match(self.error_kind or "")
        return int(match.group(1)) if match else None

    @classmethod
    def of(cls, result: GameResult) -> Outcome:
        error = result.error
        return cls(
            end_reason=result.end_reason,
            decisions=result.decisions,
            turns=result.turns,
            credits=result.credits,
            winners=result.winners,
            team_of=result.team_of,
            error_kind=error.kind() if error is not None else None,
            error_text=error.render() if error is not None else None,
            scores=result.scores,
            cards=result.cards,
        )


_AGENT_KIND = re.compile(r"agent P(\d+): ")


@dataclass(frozen=True)
class StoredGame:
    """One game row with its batch's settings: what replaying it needs."""

    id: int
    batch_id: int
    idx: int
    seed: int
    agents: tuple[str, ...]
    status: str
    end_reason: str | None
    game_path: str  # as the simulate command named it
    game_file: str  # absolute, to find it from anywhere
    game_sha256: str
    params: dict[str, str]
    max_decisions: int
    max_steps: int
    max_work: int = DEFAULT_MAX_WORK
    max_game_work: int = DEFAULT_MAX_GAME_WORK
    error_kind: str | None = None  # why it failed, if it did (Outcome.error_kind)
    error: str | None = None  # the error as rendered

    @property
    def limits(self) -> Limits:
        """The limits its batch was played under: a replay uses the same."""
        return Limits(self.max_decisions, self.max_steps, self.max_work, self.max_game_work)
